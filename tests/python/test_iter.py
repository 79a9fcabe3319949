"""test_iter.py - iterating over an Array yields the rows of its first axis, as iterating over
NumPy's read of it does (arrays of rows, scalars for a 1-D array), read a block of whole chunks
at a time (at least 4 MiB), not a row a read; a 0-d array and a closed one refuse."""
import os

import numpy as np
import pytest
import tessera

from conftest import CORPUS, same, write_zlib_zarr2

FILES = [
    ("fits/u_u8_primary.fits", {}),
    ("fits/fp_rice_i16.fits.fz", {"hdu": 1}),
    ("zarr3/zstd_f4.zarr", {}),
    ("zarr3/shard_end_zstd_f4.zarr", {}),
    ("blosc2/lz4_shuffle_f4_3d.b2nd", {}),
]


@pytest.mark.parametrize("path,kw", FILES, ids=[f for f, _ in FILES])
def test_rows_as_numpy(path, kw):
    with tessera.open(os.path.join(CORPUS, path), **kw) as a:
        whole = a[...]
        it = iter(a)
        assert it.__length_hint__() == a.shape[0]
        rows = list(it)
        assert it.__length_hint__() == 0
        assert len(rows) == len(whole) == a.shape[0]
        for got, want in zip(rows, whole):
            assert same(got, want) is None
        with pytest.raises(StopIteration):
            next(it)


def test_one_dimension_gives_scalars(tmp_path):
    a = np.arange(1000, dtype="<i8") * 3
    store = str(tmp_path / "one.zarr")
    write_zlib_zarr2(store, a, 100)
    with tessera.open(store) as t:
        got = list(t)
    assert got == list(a)
    assert all(type(x) is np.int64 for x in got)


def test_a_block_of_chunks_a_read(tmp_path):
    """Rows of chunks of one row each, 64 KiB a row: after the first row, the block already
    read serves the next 63 even with every chunk file gone; the 65th is read again (the
    files gone: the fill value)."""
    a = np.arange(100 * 16384, dtype="<f4").reshape(100, 16384)
    store = str(tmp_path / "rows.zarr")
    write_zlib_zarr2(store, a, 1)
    with tessera.open(store) as t:
        it = iter(t)
        assert same(next(it), a[0]) is None
        for name in os.listdir(store):
            if name[0] != ".":
                os.remove(os.path.join(store, name))
        for i in range(1, 64):
            assert same(next(it), a[i]) is None, i
        assert not next(it).any()


def test_refusals(tmp_path):
    """A 0-d array is not iterable; a closed one refuses a new iterator, and its iterators
    refuse their next row whether or not their block holds it, as a closed file's (they gave
    rows while the block lasted, then refused: how many depended on the array's size); rows
    given before stay readable, as views of their block."""
    a = np.arange(100 * 16384, dtype="<f4").reshape(100, 16384)
    store = str(tmp_path / "r.zarr")
    write_zlib_zarr2(store, a, 1)
    t = tessera.open(store)
    it = iter(t)
    held = [next(it) for _ in range(10)]
    t.close()
    with pytest.raises(ValueError, match="closed"):
        iter(t)
    with pytest.raises(ValueError, match="closed"):
        next(it)  # (row 10 is in the block read)
    assert same(held[9], a[9]) is None
    zero = str(tmp_path / "z.zarr")
    os.makedirs(zero)
    with open(os.path.join(zero, "zarr.json"), "w") as f:
        f.write('{"zarr_format": 3, "node_type": "array", "shape": [], "data_type": "int32", '
                '"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": []}}, '
                '"chunk_key_encoding": {"name": "default"}, "fill_value": 7, '
                '"codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}')
    with tessera.open(zero) as t0:
        assert t0[()] == 7
        with pytest.raises(TypeError, match="0-d"):
            iter(t0)


def test_one_next_at_a_time(tmp_path):
    """Threads sharing one iterator: every row is handed out once, and right. A next() while
    another thread's block read is in flight is refused, as a generator's (whether one falls
    there depends on timing, so the test does not require one)."""
    import threading
    a = np.arange(64 * 262144, dtype="<f4").reshape(64, 262144)  # 1 MiB rows: 4-row blocks
    store = str(tmp_path / "t.zarr")
    write_zlib_zarr2(store, a, 1)
    with tessera.open(store) as t:
        it = iter(t)
        got, refused, lock = {}, [0], threading.Lock()

        def run():
            while True:
                try:
                    row = next(it)
                except StopIteration:
                    return
                except ValueError as e:
                    assert "already executing" in str(e)
                    with lock:
                        refused[0] += 1
                    continue
                i = int(row[0]) // 262144
                with lock:
                    assert i not in got
                    got[i] = row
        ths = [threading.Thread(target=run) for _ in range(4)]
        for th in ths:
            th.start()
        for th in ths:
            th.join()
    assert sorted(got) == list(range(64))
    for i, row in got.items():
        assert same(row, a[i]) is None
