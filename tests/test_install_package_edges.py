"""test_install_package_edges.py - the installed CMake package and tessera.pc at their edges:
find_package(tessera QUIET) where a dependency's pkg-config module is missing leaves tessera not
found and configure going on (REQUIRED lookups stopped it), and leaves the caller's own
variables of the same names (ZSTD_LIBRARIES) as they were; an install with an absolute libdir
and includedir (as Spack, Nix and conda pass them) writes a tessera.pc whose paths are those
(prefix resolved to / and -I/include)."""
import os
import subprocess
import tempfile

from corpus_util import BIN, report

BUILD = os.path.dirname(os.path.abspath(BIN))
failures = []
total = 0


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)


with tempfile.TemporaryDirectory() as tmp:
    prefix = os.path.join(tmp, "prefix")
    p = run(["cmake", "--install", BUILD, "--prefix", prefix])
    cfgdir = None
    for root, _, files in os.walk(prefix):
        if "tesseraConfig.cmake" in files:
            cfgdir = root
    if p.returncode or not cfgdir:
        failures.append("install: exit %d %s" % (p.returncode, p.stderr[-2000:]))
        report(failures, 1)

    proj = os.path.join(tmp, "proj")
    os.mkdir(proj)
    with open(os.path.join(proj, "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.16)\nproject(opt C)\n"
                "set(ZSTD_LIBRARIES /opt/custom/libzstd.a)\n"
                "find_package(tessera QUIET)\n"
                "message(STATUS \"FOUND=${tessera_FOUND} ZSTD=${ZSTD_LIBRARIES}\")\n")
    # found: the caller's variable kept
    total += 1
    p = run(["cmake", "-S", proj, "-B", os.path.join(tmp, "b1"), "-DCMAKE_PREFIX_PATH=" + prefix])
    if p.returncode or "FOUND=1 ZSTD=/opt/custom/libzstd.a" not in p.stdout:
        failures.append("found: exit %d\n%s%s" % (p.returncode, p.stdout[-1500:], p.stderr[-1500:]))
    # a dependency's module missing: not found, configure goes on
    total += 1
    empty = os.path.join(tmp, "no-modules")
    os.mkdir(empty)
    env = dict(os.environ, PKG_CONFIG_LIBDIR=empty, PKG_CONFIG_PATH=empty)
    p = run(["cmake", "-S", proj, "-B", os.path.join(tmp, "b2"), "-DCMAKE_PREFIX_PATH=" + prefix],
            env=env)
    if p.returncode or "FOUND=0" not in p.stdout:
        failures.append("missing modules: exit %d\n%s%s" % (p.returncode, p.stdout[-1500:],
                                                            p.stderr[-1500:]))

    # absolute libdir and includedir
    total += 1
    b3 = os.path.join(tmp, "b3")
    ab = os.path.join(tmp, "abs")
    src = os.environ.get("TSR_SRC", os.path.join(os.path.dirname(__file__), ".."))
    p = run(["cmake", "-S", src, "-B", b3, "-DCMAKE_INSTALL_PREFIX=" + ab,
             "-DCMAKE_INSTALL_LIBDIR=" + os.path.join(ab, "lib64"),
             "-DCMAKE_INSTALL_INCLUDEDIR=" + os.path.join(ab, "inc"),
             "-DTESSERA_CUDA=OFF", "-DTESSERA_BUILD_BENCH=OFF"])
    pc = os.path.join(b3, "tessera.pc")
    text = open(pc).read() if os.path.exists(pc) else ""
    want = ["prefix=%s" % ab, "libdir=%s" % os.path.join(ab, "lib64"),
            "includedir=%s" % os.path.join(ab, "inc")]
    if p.returncode or any(w + "\n" not in text for w in want):
        failures.append("absolute dirs: exit %d, tessera.pc:\n%s%s" % (p.returncode, text,
                                                                      p.stderr[-1500:]))
    total += 1
    libs = [l for l in text.splitlines() if l.startswith("Libs.private:")]
    if not libs or libs[0].split().count("-lpthread") > 1:
        failures.append("Libs.private names a library twice: %s" % libs)

report(failures, total)
