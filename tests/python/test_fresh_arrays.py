"""test_fresh_arrays.py - a large read into a new host array (4 MiB and more: the library
allocates it, tsr_read_alloc, and faults its pages in on its threads) gives the same values,
dtype, shape and flags as a read into out= and as NumPy's slicing, through tessera.read, Array.read
and a[key]; its memory goes back when the array goes (resident set steady over many reads,
also of reads that fail); and small reads keep their plain NumPy arrays."""
import json
import os
import zlib

import numpy as np
import pytest
import tessera

SHAPE, CHUNKS = (1024, 1536), (256, 1536)  # 6 MiB of float32: over the 4 MiB line


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    pytest.skip("no /proc/self/status")


def write_store(path, a, corrupt=False):
    """A Zarr v2 store of a, zlib chunks (corrupt: the last chunk's stream cut short)."""
    os.makedirs(path)
    with open(os.path.join(path, ".zarray"), "w") as f:
        json.dump({"zarr_format": 2, "shape": list(a.shape), "chunks": list(CHUNKS),
                   "dtype": "<f4", "compressor": {"id": "zlib", "level": 1},
                   "fill_value": 0, "order": "C", "filters": None}, f)
    n = a.shape[0] // CHUNKS[0]
    for i in range(n):
        z = zlib.compress(a[i * CHUNKS[0]:(i + 1) * CHUNKS[0]].tobytes(), 1)
        with open(os.path.join(path, "%d.0" % i), "wb") as f:
            f.write(z[:len(z) // 2] if corrupt and i == n - 1 else z)


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    d = tmp_path_factory.mktemp("fresh")
    a = np.random.default_rng(3).random(SHAPE, dtype=np.float32)
    good, bad = str(d / "a.zarr"), str(d / "bad.zarr")
    write_store(good, a)
    write_store(bad, a, corrupt=True)
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
