"""test_cli_read_stdout.py - `tessera read ... -o -` writes the NPY to standard output (and its
--receipt to standard error), leaving no file named "-" behind."""
import io
import os
import subprocess
import tempfile

import numpy as np

from corpus_util import BIN, CORPUS, report, same

failures = []
total = 0
src = os.path.join(CORPUS, "fits", "u_i16_primary.fits")

with tempfile.TemporaryDirectory() as tmp:
    ref = os.path.join(tmp, "ref.npy")
    subprocess.run([BIN, "read", src, "-o", ref], check=True, timeout=60)
    want = np.load(ref)
    for extra in ([], ["--receipt"], ["--section", "3:17,::-2"]):
        total += 1
        p = subprocess.run([BIN, "read", src, "-o", "-"] + extra, capture_output=True,
                           timeout=60, cwd=tmp)
        if p.returncode != 0:
            failures.append("%s: exit %d: %r" % (extra, p.returncode, p.stderr))
            continue
        if os.path.exists(os.path.join(tmp, "-")):
            failures.append("%s: wrote a file named '-'" % extra)
            os.remove(os.path.join(tmp, "-"))
        try:
            got = np.load(io.BytesIO(p.stdout))
        except ValueError as e:
            failures.append("%s: standard output is no NPY: %s" % (extra, e))
            continue
        expect = want[3:17, ::-2] if extra[:1] == ["--section"] else want
        err = same(got, expect)
        if err:
            failures.append("%s: %s" % (extra, err))
        if extra == ["--receipt"] and b"driver fits" not in p.stderr:
            failures.append("--receipt: not on standard error: %r" % p.stderr)

report(failures, total)
