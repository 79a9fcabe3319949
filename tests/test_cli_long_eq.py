"""test_cli_long_eq.py - the CLI takes GNU's "--name=value" for every long option (it refused
"--hdu=2" as an unexpected argument): info and read give what "--name value" gives."""
import os
import subprocess

from corpus_util import BIN, CORPUS, report

failures = []
total = 0
F = os.path.join(CORPUS, "fits/u_multi_hdu.fits")


def out(args):
    p = subprocess.run([BIN] + args, capture_output=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


for a, b in ((["info", "--hdu=2", F], ["info", "--hdu", "2", F]),
             (["info", "--json", "--hdu=I32", F], ["info", "--json", "--hdu", "I32", F]),
             (["read", F, "--hdu=2", "--section=0:2,::3", "--output=-"],
              ["read", F, "--hdu", "2", "--section", "0:2,::3", "-o", "-"])):
    total += 1
    ra, rb = out(a), out(b)
    if ra[0] != 0 or ra != rb:
        failures.append("%s: exit %d (%r) differs from %s" % (a, ra[0], ra[2][-200:], b))
total += 1
rc, _, err = out(["read", F, "--bogus=1", "-o", "-"])
if rc != 2 or b"unexpected argument '--bogus'" not in err:
    failures.append("--bogus=1: exit %d, %r" % (rc, err))
report(failures, total)
