"""python-blosc2 filter pipelines with DELTA anywhere (filters=[SHUFFLE, DELTA], [DELTA, DELTA],
[BITSHUFFLE, DELTA], [SHUFFLE, BYTEDELTA, DELTA], ...) read as python-blosc2 reads them, whole
and in sections that touch some blocks only, where tessera refused them ("DELTA followed on
decode by filter 1", "two DELTA filters"). (python-blosc2 on one thread: c-blosc2 lets other
blocks read block 0 before its last filter on several.)"""
import numpy as np
import pytest

import tessera

blosc2 = pytest.importorskip("blosc2")
F = blosc2.Filter

PIPELINES = [["SHUFFLE", "DELTA"], ["BITSHUFFLE", "DELTA"], ["DELTA", "DELTA"],
             ["DELTA", "SHUFFLE", "DELTA"], ["BYTEDELTA", "DELTA"],
             ["SHUFFLE", "BYTEDELTA", "DELTA"], ["DELTA", "SHUFFLE"]]


@pytest.mark.parametrize("names", PIPELINES, ids=["-".join(p) for p in PIPELINES])
@pytest.mark.parametrize("dtype", ["i8", "f4", "i2", "u1"])
def test_as_blosc2(tmp_path, names, dtype):
    blosc2.set_nthreads(1)
    x = ((np.arange(24000, dtype="i8").reshape(120, 200) * 7919) % 100003).astype(dtype)
    p = str(tmp_path / "d.b2nd")
    blosc2.asarray(x, urlpath=p, mode="w", chunks=(60, 100), blocks=(20, 50),
                   cparams=dict(codec=blosc2.Codec.ZSTD, filters=[getattr(F, n) for n in names],
                                filters_meta=[0] * len(names)))
    want = blosc2.open(p)[...]
    np.testing.assert_array_equal(want, x)
    a = tessera.open(p)
    np.testing.assert_array_equal(a[...], want)
    np.testing.assert_array_equal(a[27:99:3, ::-7], want[27:99:3, ::-7])
    np.testing.assert_array_equal(a[65, 130:150], want[65, 130:150])
