"""test_peer_blosc2_memcpyed.py - b2nd arrays whose chunks C-Blosc2 stores memcpyed (its codec
did not shrink them: noise, with or without a filter, every codec) read by tessera's CPU engine
with its block shares (TSR_CPU_PART_NBYTES=1: every chunk cut into shares of its blocks; and the
default), whole and in sections, equal python-blosc2's reads. Each array's chunks are checked to
be memcpyed (the header's flag 0x10), so the test cannot drift off the case it is for."""
import os
import random
import shutil
import sys
import tempfile
import warnings

import numpy as np

from corpus_util import report, run_read, same

warnings.filterwarnings("ignore")
import blosc2  # noqa: E402

rng = random.Random(20261205)
nrng = np.random.default_rng(20261205)
tmp = tempfile.mkdtemp()
MEMCPYED = 0x10

# (shape, chunks, blocks, dtype, codec, filter): edge chunks and blocks, 1 to 3 axes
CASES = [
    ((1000, 700), (256, 512), (32, 128), "<f4", blosc2.Codec.BLOSCLZ, blosc2.Filter.BITSHUFFLE),
    ((1000, 700), (256, 512), (32, 128), "<u4", blosc2.Codec.LZ4, blosc2.Filter.BITSHUFFLE),
    ((300, 200), (300, 200), (16, 200), "<u8", blosc2.Codec.ZSTD, blosc2.Filter.NOFILTER),
    ((60, 50, 40), (32, 50, 40), (8, 25, 40), "<i2", blosc2.Codec.BLOSCLZ, blosc2.Filter.NOFILTER),
    ((100000,), (40000,), (5000,), "<f8", blosc2.Codec.LZ4HC, blosc2.Filter.BITSHUFFLE),
]


def chunk_flags(a):
    return [a.schunk.get_chunk(i)[2] for i in range(a.schunk.nchunks)]


def section(shape):
    spec, py = [], []
    for s in shape:
        a = rng.randrange(0, s)
        b = min(s, a + rng.randint(1, max(1, s // 2)))
        spec.append("%d:%d" % (a, b))
        py.append(slice(a, b))
    return ",".join(spec), tuple(py)


failures, total = [], 0
try:
    for k, (shape, chunks, blocks, dtype, codec, filt) in enumerate(CASES):
        v = nrng.integers(0, 256, size=int(np.prod(shape)) * np.dtype(dtype).itemsize,
                          dtype=np.uint8).view(dtype).reshape(shape)
        path = os.path.join(tmp, "m%d.b2nd" % k)
        cp = {"codec": codec, "clevel": 5, "filters": [filt], "filters_meta": [0]}
        a = blosc2.asarray(v, urlpath=path, mode="w", chunks=chunks, blocks=blocks, cparams=cp)
        flags = chunk_flags(a)
        name = "%s %s %s %s" % (shape, dtype, codec.name, filt.name)
        if not all(f & MEMCPYED for f in flags):
            failures.append("%s: chunks not all memcpyed (flags %s): not the case under test"
                            % (name, [hex(f) for f in flags]))
            continue
        want = a[...]
        for env in ({"TSR_CPU_PART_NBYTES": "1"}, None):
            total += 1
            got, rc, err = run_read(path, env=env)
            diff = "exit %d: %s" % (rc, err.strip()) if got is None else same(got, want)
            if diff:
                failures.append("%s whole (%s): %s" % (name, env, diff))
            for _ in range(6):
                spec, py = section(shape)
                total += 1
                got, rc, err = run_read(path, section=spec, env=env)
                diff = "exit %d: %s" % (rc, err.strip()) if got is None else same(got, a[py])
                if diff:
                    failures.append("%s [%s] (%s): %s" % (name, spec, env, diff))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
report(failures, total)
