"""test_blosc2_corpus.py - every case of manifest-blosc2.json (frames written by C-Blosc2) reads
back as C-Blosc2 read it: same dtype, shape and values (NaN equals NaN). DELTA cases expect the
data as written, which C-Blosc2's own partial reads sometimes get wrong. Plain super-chunks
store no dtype: read with the manifest's dtype they match; without one they read as the
unsigned integers of their item size (the same bytes), and `tessera info` says so. Then the
whole manifest again with every chunk's blocks split into block tasks (1, 2 and 16 threads)."""
import json
import os
import subprocess

import numpy as np

from corpus_util import (BIN, CORPUS, SPLIT_ALL, check_manifest, plain_superchunk, report,
                         run_read, same)

failures = []
total = check_manifest("manifest-blosc2.json", failures)
UNSIGNED = {1: "|u1", 2: "<u2", 4: "<u4", 8: "<u8"}
for c in json.load(open(os.path.join(CORPUS, "manifest-blosc2.json"))):
    if not plain_superchunk(c):
        continue
    path = os.path.join(CORPUS, c["path"])
    want = np.load(os.path.join(CORPUS, c["expect"]))
    total += 1
    got, rc, err = run_read(path, section=c.get("section"))
    if got is None:
        failures.append("%s without --dtype: exit %d: %s" % (c["id"], rc, err.strip()))
    else:
        why = same(got, want.view(UNSIGNED[want.itemsize]))
        if why:
            failures.append("%s without --dtype: %s" % (c["id"], why))
    total += 1
    p = subprocess.run([BIN, "info", path, "--json"], capture_output=True, text=True)
    info = json.loads(p.stdout)["entries"][0] if p.returncode == 0 else {}
    if info.get("dtype_source") != "itemsize" or info.get("dtype") != np.dtype(
            UNSIGNED[want.itemsize]).name:
        failures.append("%s: info does not say the dtype is the item size's: %s" % (
            c["id"], p.stdout.strip() + p.stderr.strip()))
    # a dtype of another size than the items is refused, naming both sizes
    total += 1
    other = "<i2" if want.itemsize != 2 else "<i4"
    got, rc, err = run_read(path, extra=["--dtype", other])
    if got is not None or rc != 1 or ("%d-byte items" % want.itemsize) not in err:
        failures.append("%s --dtype %s: exit %d, %r" % (c["id"], other, rc, err.strip()))
# Again with every chunk's blocks split into block tasks, on 1, 2 and 16 threads.
os.environ.update(SPLIT_ALL)
for n in (1, 2, 16):
    total += check_manifest("manifest-blosc2.json", failures, extra=["--threads", str(n)])
report(failures, total)
