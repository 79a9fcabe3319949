"""test_blosc2_corpus.py - every case of manifest-blosc2.json (frames written by C-Blosc2) reads
back as C-Blosc2 read it: same dtype, shape and values (NaN equals NaN). DELTA cases expect the
data as written, which C-Blosc2's own partial reads sometimes get wrong."""
import json
import os

import numpy as np

from corpus_util import CORPUS, report, run_read, same

cases = json.load(open(os.path.join(CORPUS, "manifest-blosc2.json")))
failures = []
for c in cases:
    extra = ["--array", c["array"]] if c.get("array") else []
    got, rc, err = run_read(os.path.join(CORPUS, c["path"]), section=c.get("section"), extra=extra)
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
report(failures, len(cases))
