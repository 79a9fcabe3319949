"""test_gpu_corpus.py - every corpus case (FITS, Zarr v2/v3, Blosc2) read into GPU memory with
`tessera read --device cuda` equals what the peers read, bit for bit; sections too. Without a
CUDA device (or a build without CUDA) it says so and passes."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from corpus_util import BIN, CORPUS, report, run_read, same  # noqa: E402

import numpy as np  # noqa: E402

probe = subprocess.run([BIN, "read", os.path.join(CORPUS, "fits", "u_i16_primary.fits"),
                        "--device", "cuda", "-o", "/dev/null"], capture_output=True, text=True)
if probe.returncode != 0 and ("no CUDA" in probe.stderr or "CUDA engine" in probe.stderr):
    print("skipped: no CUDA device (%s)" % probe.stderr.strip())
    sys.exit(0)

failures, total = [], 0
for manifest in ("manifest-fits.json", "manifest-zarr2.json", "manifest-zarr3.json",
                 "manifest-blosc2.json"):
    path = os.path.join(CORPUS, manifest)
    if not os.path.exists(path):
        continue
    for c in json.load(open(path)):
        extra = ["--device", "cuda"]
        if c.get("array"):
            extra += ["--array", c["array"]]
        if c.get("level") is not None:
            extra += ["--level", str(c["level"])]
        total += 1
        got, rc, err = run_read(os.path.join(CORPUS, c["path"]), c.get("hdu"), c.get("section"),
                                extra=extra)
        if got is None:
            failures.append("%s: exit %d: %s" % (c["id"], rc, err.strip()))
            continue
        why = same(got, np.load(os.path.join(CORPUS, c["expect"])))
        if why:
            failures.append("%s: %s" % (c["id"], why))
report(failures, total)
