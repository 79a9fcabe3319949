"""test_data_errors_cli.py - the golden bad inputs of tests/data-errors/ through the CLI: make.py
must still write exactly the committed files, and `tessera read` must exit 1 on each with one
line naming the file and holding the strings its README.md row gives (test_data_errors.c checks
the exact status through the C API)."""
import filecmp
import os
import re
import subprocess
import sys
import tempfile

from corpus_util import BIN, CORPUS, report

SRC = os.environ.get("TSR_SRC", os.path.join(os.path.dirname(__file__), ".."))
DIR = os.path.join(SRC, "tests", "data-errors")
failures = []
total = 0

rows = []
with open(os.path.join(DIR, "README.md")) as f:
    for line in f:
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append((re.findall(r"`([^`]*)`", cells[0])[0], re.findall(r"`([^`]*)`", cells[3])))

# make.py is deterministic: rebuilt from the corpus, every input is byte for byte the one
# committed (a changed corpus or script shows up here rather than as a silent drift).
with tempfile.TemporaryDirectory() as tmp:
    total += 1
    env = dict(os.environ, TSR_CORPUS=CORPUS)
    p = subprocess.run([sys.executable, os.path.join(DIR, "make.py"), tmp], env=env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        failures.append("make.py failed: %s" % p.stderr.strip())
    else:
        for name, _ in rows:
            a, b = os.path.join(tmp, name), os.path.join(DIR, name)
            if os.path.isdir(a):
                cmp = filecmp.dircmp(a, b)
                pending = [(cmp, "")]
                while pending:
                    c, rel = pending.pop()
                    if c.left_only or c.right_only or c.diff_files or c.funny_files:
                        failures.append("%s%s: rebuilt store differs: %s" % (
                            name, rel, c.left_only + c.right_only + c.diff_files + c.funny_files))
                    # dircmp compares shallowly (size, time); compare contents too
                    for f in c.common_files:
                        if not filecmp.cmp(os.path.join(c.left, f), os.path.join(c.right, f),
                                           shallow=False):
                            failures.append("%s%s/%s: rebuilt file differs" % (name, rel, f))
                    pending += [(s, rel + "/" + k) for k, s in c.subdirs.items()]
            elif not os.path.exists(a) or not filecmp.cmp(a, b, shallow=False):
                failures.append("%s: make.py no longer writes the committed file" % name)

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "out.npy")
    for name, want in rows:
        total += 1
        path = os.path.join(DIR, name)
        try:
            p = subprocess.run([BIN, "read", path, "-o", out], capture_output=True, text=True,
                               timeout=60)
        except subprocess.TimeoutExpired:
            failures.append("%s: hung" % name)
            continue
        msg = p.stderr.strip()
        if p.returncode != 1:
            failures.append("%s: exit %d (want 1): %s" % (name, p.returncode, msg))
        elif "\n" in msg or not msg:
            failures.append("%s: message is not one line: %r" % (name, msg))
        elif os.path.exists(out):
            failures.append("%s: a failed read left %s behind" % (name, out))
        else:
            for w in [name] + want:
                if w not in msg:
                    failures.append("%s: message lacks %r: %s" % (name, w, msg))

if len(rows) < 12:
    failures.append("only %d failure classes in README.md (want at least 12)" % len(rows))
report(failures, total)
