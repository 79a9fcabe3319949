"""test_blosc2_corpus.py - every case of manifest-blosc2.json (frames written by C-Blosc2) reads
back as C-Blosc2 read it: same dtype, shape and values (NaN equals NaN). DELTA cases expect the
data as written, which C-Blosc2's own partial reads sometimes get wrong. Then the same with every
chunk's blocks split into block tasks (1, 2 and 16 threads)."""
import os

from corpus_util import SPLIT_ALL, check_manifest, report

failures = []
total = check_manifest("manifest-blosc2.json", failures)
# Again with every chunk's blocks split into block tasks, on 1, 2 and 16 threads.
os.environ.update(SPLIT_ALL)
for n in (1, 2, 16):
    total += check_manifest("manifest-blosc2.json", failures, extra=["--threads", str(n)])
report(failures, total)
