"""test_cli_read_needs_value.py - `tessera read` with an option that takes a value given last
without one says so ("-o needs a value"), where it called the option an unexpected argument;
an unknown option is still unexpected."""
import os
import subprocess

from corpus_util import BIN, CORPUS, report

failures = []
total = 0
F = os.path.join(CORPUS, "fits/u_f32_primary.fits")
for opt in ("-o", "--output", "--hdu", "--section", "--dtype", "--threads", "--device"):
    total += 1
    p = subprocess.run([BIN, "read", F, opt], capture_output=True, text=True, timeout=60)
    if p.returncode != 2 or "%s needs a value" % opt not in p.stderr:
        failures.append("%s: exit %d, %r" % (opt, p.returncode, p.stderr))
total += 1
p = subprocess.run([BIN, "read", F, "--a"], capture_output=True, text=True, timeout=60)
if p.returncode != 2 or "unexpected argument '--a'" not in p.stderr:
    failures.append("--a: exit %d, %r" % (p.returncode, p.stderr))
report(failures, total)
