"""test_b2nd_empty.py - empty arrays python-blosc2 writes open and read as empty arrays of
their shape and dtype: b2nd arrays with an axis of 0, whose chunks and blocks python-blosc2
makes 0 along it unless given (tessera reports chunks of 1 there: a chunk is at least 1 wide,
as Zarr's), in contiguous and sparse frames, and a plain super-chunk that never had a chunk
(its chunksize stored as -1)."""
import numpy as np
import pytest

import tessera

blosc2 = pytest.importorskip("blosc2")

CASES = [
    ((0,), {}),
    ((0, 4), {}),
    ((3, 0), {}),
    ((0, 0), {}),
    ((5, 0, 3), {}),
    ((0, 4), {"chunks": (2, 4), "blocks": (1, 2)}),
    ((3, 0), {"chunks": (2, 2), "blocks": (1, 1)}),
    ((0, 4), {"contiguous": False}),
]


@pytest.mark.parametrize("dtype", ["<f4", "<i2"])
@pytest.mark.parametrize("shape,kw", CASES, ids=[f"{s}-{sorted(k)}" for s, k in CASES])
def test_b2nd_empty(tmp_path, shape, kw, dtype):
    path = str(tmp_path / "a.b2nd")
    blosc2.zeros(shape, dtype=dtype, urlpath=path, mode="w", **kw)
    peer = blosc2.open(path)
    assert peer.shape == shape
    want = np.empty(shape, dtype=dtype)
    with tessera.open(path) as a:
        assert a.shape == shape
        assert a.dtype == np.dtype(dtype)
        # the file's chunks, but never 0 wide
        assert a.chunks == tuple(c if c else 1 for c in peer.chunks)
        assert a.info()["nchunks"] == 0
        for got in (a.read(), a[...], np.asarray(a)):
            assert got.shape == want.shape and got.dtype == want.dtype
        if len(shape) > 1:
            assert a[:, 1:].shape == want[:, 1:].shape
        rows = list(a)
        assert len(rows) == shape[0] and all(r.shape == shape[1:] for r in rows)
    got = tessera.read(path)
    assert got.shape == shape and got.dtype == np.dtype(dtype)


def test_schunk_without_chunks(tmp_path):
    path = str(tmp_path / "a.b2frame")
    sc = blosc2.SChunk(urlpath=path, mode="w", cparams={"typesize": 4})
    del sc
    assert blosc2.open(path).nbytes == 0
    with tessera.open(path) as a:
        assert a.shape == (0,)
        assert a.dtype == np.uint32  # no dtype stored: unsigned items of the typesize
        assert a.chunks == (1,)
        assert a.read().shape == (0,)
    got = tessera.read(path, dtype="<f4")
    assert got.shape == (0,) and got.dtype == np.float32
