"""test_cli_read_output_error.py - `tessera read -o PATH` where PATH cannot be written exits 1
with its error on one line headed "tessera read:", as every other error of the command (perror
printed the path alone)."""
import os
import subprocess
import tempfile

import numpy as np
from astropy.io import fits as afits

from corpus_util import BIN, report

failures = []
with tempfile.TemporaryDirectory() as tmp:
    src = os.path.join(tmp, "a.fits")
    afits.PrimaryHDU(np.zeros((2, 3), "i2")).writeto(src)
    out = os.path.join(tmp, "no", "such", "dir", "x.npy")
    p = subprocess.run([BIN, "read", src, "-o", out], capture_output=True, text=True, timeout=60)
    if p.returncode != 1:
        failures.append("exit %d" % p.returncode)
    want = "tessera read: %s: No such file or directory\n" % out
    if p.stderr != want:
        failures.append("stderr %r, want %r" % (p.stderr, want))
report(failures, 2)
