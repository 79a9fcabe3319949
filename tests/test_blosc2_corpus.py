"""test_blosc2_corpus.py - every case of manifest-blosc2.json (frames written by C-Blosc2) reads
back as C-Blosc2 read it: same dtype, shape and values (NaN equals NaN). DELTA cases expect the
data as written, which C-Blosc2's own partial reads sometimes get wrong."""
from corpus_util import check_manifest, report

failures = []
report(failures, check_manifest("manifest-blosc2.json", failures))
