"""test_fits_corpus.py - every case of manifest-fits.json reads back as astropy/CFITSIO did."""
import json
import os

import numpy as np

from corpus_util import CORPUS, report, run_read, same

cases = json.load(open(os.path.join(CORPUS, "manifest-fits.json")))
failures = []
for c in cases:
    got, rc, err = run_read(os.path.join(CORPUS, c["path"]), c.get("hdu"), c.get("section"))
    if got is None:
        failures.append("%s: exit %d: %s" % (c["id"], rc, err.strip()))
        continue
    want = np.load(os.path.join(CORPUS, c["expect"]))
    assert str(want.dtype.str).lstrip("<|") == c["dtype"].lstrip("<|") and list(want.shape) == c["shape"]
    why = same(got, want)
    if why:
        failures.append("%s: %s" % (c["id"], why))
report(failures, len(cases))
