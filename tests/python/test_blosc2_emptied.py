"""A Blosc2 frame whose chunks are all gone (python-blosc2's resize to a zero-length axis, an
SChunk's delete_chunk of each chunk) reads as the empty array python-blosc2 reads. c-blosc2 leaves
the header's cbytes as it was, and the frame no longer holds those bytes: tessera refused such
files as truncated."""
import numpy as np
import pytest

import tessera

blosc2 = pytest.importorskip("blosc2")


@pytest.mark.parametrize("shape,chunks,to", [((30,), (10,), (0,)), ((6, 10), (4, 4), (0, 10)),
                                             ((6, 10), (4, 4), (6, 0))])
def test_resized_to_nothing(tmp_path, shape, chunks, to):
    p = str(tmp_path / "r.b2nd")
    b = blosc2.asarray(np.arange(np.prod(shape), dtype="i4").reshape(shape), urlpath=p,
                       mode="w", chunks=chunks)
    b.resize(to)
    del b
    want = blosc2.open(p)[...]
    got = tessera.read(p)
    assert got.shape == want.shape == to and got.dtype == want.dtype
    assert tessera.open(p).shape == to


def test_every_chunk_deleted(tmp_path):
    p = str(tmp_path / "s.b2frame")
    s = blosc2.SChunk(chunksize=40, data=np.arange(30, dtype="i4"), urlpath=p, mode="w",
                      cparams=blosc2.CParams(typesize=4))
    for i in (2, 1, 0):
        s.delete_chunk(i)
    del s
    assert blosc2.open(p).nbytes == 0
    got = tessera.read(p, dtype="i4")
    assert got.shape == (0,) and got.dtype == np.dtype("i4")


def test_some_chunks_deleted_still_read(tmp_path):
    p = str(tmp_path / "k.b2frame")
    d = np.arange(30, dtype="i4")
    s = blosc2.SChunk(chunksize=40, data=d, urlpath=p, mode="w",
                      cparams=blosc2.CParams(typesize=4))
    s.delete_chunk(1)
    del s
    np.testing.assert_array_equal(tessera.read(p, dtype="i4"), np.r_[d[:10], d[20:]])
