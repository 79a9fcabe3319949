"""test_zarr_corpus.py - every case of manifest-zarr2.json (zarr-python) and manifest-zarr3.json
(tensorstore) reads back as the peer read it: same dtype, shape and values."""
import json
import os

import numpy as np

from corpus_util import CORPUS, report, run_read, same

failures = []
total = 0
for manifest in ("manifest-zarr2.json", "manifest-zarr3.json"):
    for c in json.load(open(os.path.join(CORPUS, manifest))):
        total += 1
        extra = []
        if c.get("array"):
            extra += ["--array", c["array"]]
        if c.get("level") is not None:
            extra += ["--level", str(c["level"])]
        got, rc, err = run_read(os.path.join(CORPUS, c["path"]), section=c.get("section"),
                                extra=extra)
        if got is None:
            failures.append("%s: exit %d: %s" % (c["id"], rc, err.strip()))
            continue
        want = np.load(os.path.join(CORPUS, c["expect"]))
        if want.dtype.str.lstrip("<|") != c["dtype"].lstrip("<|") or list(want.shape) != c["shape"]:
            failures.append("%s: the manifest and its expect file disagree" % c["id"])
            continue
        why = same(got, want)
        if why:
            failures.append("%s: %s" % (c["id"], why))
report(failures, total)
