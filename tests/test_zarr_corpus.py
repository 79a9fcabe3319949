"""test_zarr_corpus.py - every case of manifest-zarr2.json (zarr-python) and manifest-zarr3.json
(tensorstore) reads back as the peer read it: same dtype, shape and values; the blosc cases also
with every chunk's blocks split into block tasks (1, 2 and 16 threads)."""
import os

from corpus_util import SPLIT_ALL, check_manifest, report, zarr_uses_blosc

failures = []
total = check_manifest("manifest-zarr2.json", failures)
total += check_manifest("manifest-zarr3.json", failures)
# The blosc cases again with every chunk's blocks split into block tasks, on 1, 2 and 16 threads.
os.environ.update(SPLIT_ALL)
for n in (1, 2, 16):
    for m in ("manifest-zarr2.json", "manifest-zarr3.json"):
        total += check_manifest(m, failures, extra=["--threads", str(n)], only=zarr_uses_blosc)
report(failures, total)
