"""test_cli_stdout_full.py - what the CLI prints that does not reach standard output (a full
disk: /dev/full) is a failure, exit 1 with a message, as coreutils' tools say; it exited 0."""
import os
import subprocess

from corpus_util import BIN, CORPUS, report

failures = []
total = 0
F = os.path.join(CORPUS, "fits/u_f32_primary.fits")
for args in (["info", F], ["info", "--json", F], ["info", "--attrs", F], ["--help"],
             ["read", "--help"], ["--version"]):
    total += 1
    with open("/dev/full", "w") as full:
        p = subprocess.run([BIN] + args, stdout=full, stderr=subprocess.PIPE, text=True,
                           timeout=60)
    if p.returncode != 1 or "standard output" not in p.stderr:
        failures.append("%s: exit %d, stderr %r" % (args, p.returncode, p.stderr))
    total += 1
    p = subprocess.run([BIN] + args, capture_output=True, text=True, timeout=60)
    if p.returncode != 0 or not p.stdout:
        failures.append("%s to a pipe: exit %d" % (args, p.returncode))
report(failures, total)
