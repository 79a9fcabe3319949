"""test_cli_json_utf8.py - the CLI's JSON is valid UTF-8 whatever the bytes of the paths it is
given: `info --json` of a file named by bytes that are not UTF-8 (its "path" wrote them as they
are, which JSON readers refuse) and `bench --output-json` (its command and workload paths) write
each byte that starts no UTF-8 character as U+FFFD, as Python's errors="replace"."""
import json
import os
import shutil
import subprocess
import tempfile

from corpus_util import BIN, CORPUS, report

failures = []
tmp = tempfile.mkdtemp()
name = os.path.join(os.fsencode(tmp), b"b\xffd\xc3.fits")  # (a stray byte, a cut sequence)
shutil.copy(os.path.join(CORPUS, "fits/u_i16_primary.fits"), name)
want = os.fsdecode(name).encode("utf-8", "surrogateescape").decode("utf-8", "replace")

p = subprocess.run([os.fsencode(BIN), b"info", name, b"--json"], capture_output=True, timeout=120)
try:
    d = json.loads(p.stdout)
    if d.get("path") != want:
        failures.append("info --json path %r, expected %r" % (d.get("path"), want))
except ValueError as e:
    failures.append("info --json is not JSON (rc %d): %s" % (p.returncode, e))

p = subprocess.run([os.fsencode(BIN), b"info", name, name, b"--json"], capture_output=True,
                   timeout=120)
try:
    json.loads(p.stdout)
except ValueError as e:
    failures.append("info --json of two paths is not JSON: %s" % e)

out = os.path.join(tmp, "r.json")
p = subprocess.run([os.fsencode(BIN), b"bench", b"--iterations", b"1", b"--device", b"cpu",
                    b"--output-json", os.fsencode(out), name], capture_output=True, timeout=300)
try:
    with open(out, "rb") as f:
        r = json.loads(f.read())
    if want not in r["command"]:
        failures.append("bench command %r lacks %r" % (r["command"], want))
except (OSError, ValueError) as e:
    failures.append("bench report (rc %d): %s" % (p.returncode, e))

shutil.rmtree(tmp, ignore_errors=True)
report(failures, 3)
