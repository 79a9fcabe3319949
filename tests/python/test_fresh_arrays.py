"""test_fresh_arrays.py - a large read into a new host array (4 MiB and more: the library
allocates it, tsr_read_alloc, and faults its pages in on its threads) gives the same values,
dtype, shape and flags as a read into out= and as NumPy's slicing, through tessera.read, Array.read
and a[key]; its memory goes back when the array goes (resident set steady over many reads,
also of reads that fail); and small reads keep their plain NumPy arrays."""
import numpy as np
import pytest
import tessera

from conftest import rss_kib, write_zlib_zarr2

SHAPE, ROWS = (1024, 1536), 256  # 6 MiB of float32 (over the 4 MiB line), chunks of 256 rows


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    d = tmp_path_factory.mktemp("fresh")
    a = np.random.default_rng(3).random(SHAPE, dtype=np.float32)
    good, bad = str(d / "a.zarr"), str(d / "bad.zarr")
    write_zlib_zarr2(good, a, ROWS)
    write_zlib_zarr2(bad, a, ROWS, cut=SHAPE[0] // ROWS - 1)  # (its last chunk)
    return good, bad, a


def check_fresh(r, want):
    assert r.dtype == want.dtype and r.shape == want.shape
    assert r.flags["C_CONTIGUOUS"] and r.flags["WRITEABLE"] and r.flags["ALIGNED"]
    assert np.array_equal(r, want)
    r[0, 0] = -1.0  # (its own memory: writing it changes nothing else)


def test_large_reads_equal(stores):
    path, _, a = stores
    check_fresh(tessera.read(path), a)
    out = np.empty_like(a)
    assert tessera.read(path, out=out) is out and np.array_equal(out, a)
    with tessera.open(path) as arr:
        check_fresh(arr.read(), a)
        check_fresh(arr[10:1000, ::-1], a[10:1000, ::-1])
        check_fresh(np.asarray(arr), a)
        r, rec = arr.read(receipt=True)
        assert rec["bytes_out"] == a.nbytes and np.array_equal(r, a)
        # small reads: plain arrays, as before
        s = arr[3:5, 7:9]
        assert s.flags["OWNDATA"] and np.array_equal(s, a[3:5, 7:9])
        assert arr[5, 7] == a[5, 7]


def test_memory_goes_back(stores):
    path, bad, a = stores
    arr = tessera.open(path)
    for _ in range(5):
        arr.read()
    before = rss_kib()
    for i in range(60):
        r = arr.read()
        assert r[i, i] == a[i, i]
        del r
        with pytest.raises(tessera.TesseraError):
            tessera.read(bad)
    grown = rss_kib() - before
    # 60 arrays of 6 MiB kept would be 360 MiB; one kept, 6
    assert grown < 3 * 1024, "RSS grew by %d KiB over 60 large reads" % grown
    arr.close()
