"""test_zarr_corpus.py - every case of manifest-zarr2.json (zarr-python) and manifest-zarr3.json
(tensorstore) reads back as the peer read it: same dtype, shape and values."""
from corpus_util import check_manifest, report

failures = []
total = check_manifest("manifest-zarr2.json", failures)
total += check_manifest("manifest-zarr3.json", failures)
report(failures, total)
