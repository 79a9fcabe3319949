"""test_make_install_lean.py - `make install` builds and installs the library alone: its own
Debian packages and a build without tests or benchmarks, no Python virtual environment, PyPI
peers or test-only Debian packages (a C user's install set up astropy, zarr, tensorstore and
matplotlib first)."""
import os
import subprocess

from corpus_util import report

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
failures = []
p = subprocess.run(["make", "-n", "-C", ROOT, "install", "PREFIX=/nonexistent/prefix"],
                   capture_output=True, text=True, timeout=60)
plan = p.stdout
checks = [
    ("make -n exits 0", p.returncode == 0),
    ("no pip", "pip install" not in plan and "pip3" not in plan),
    ("no virtual environment", "-m venv" not in plan),
    ("no test-only Debian package", not any(x in plan for x in
                                            ("python3-astropy", "matplotlib", "clang", "libblosc-dev"))),
    ("the library's packages", all(x in plan for x in ("libdeflate-dev", "libcfitsio-dev", "libcjson-dev"))),
    ("a build without tests or benchmarks", "-DTESSERA_BUILD_TESTS=OFF" in plan
     and "-DTESSERA_BUILD_BENCH=OFF" in plan),
    ("installs to PREFIX", "--install" in plan and "/nonexistent/prefix" in plan),
]
for what, ok in checks:
    if not ok:
        failures.append(what)
if failures:
    print(plan[-2000:], p.stderr[-500:])
report(failures, len(checks))
