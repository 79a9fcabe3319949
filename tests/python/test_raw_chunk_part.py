"""A part of a large uncompressed chunk reads only the bytes from the part's first element to its
last (one element of a 4 MiB chunk: its bytes, where the whole chunk was read and copied twice),
and every selection of such chunks still equals NumPy's: boxes, steps, negative steps, points,
several dtypes and byte orders, C and F order, Zarr v2 and v3."""
import json
import os

import numpy as np
import pytest

import tessera

RNG = np.random.default_rng(7)


def raw_v2(path, a, chunks, order="C"):
    os.makedirs(path)
    json.dump({"zarr_format": 2, "shape": list(a.shape), "chunks": list(chunks),
               "dtype": a.dtype.str, "compressor": None,
               "fill_value": [0, 0] if a.dtype.kind == "c" else 0, "order": order,
               "filters": None}, open(os.path.join(path, ".zarray"), "w"))
    grid = [(s + c - 1) // c for s, c in zip(a.shape, chunks)]
    for idx in np.ndindex(*grid):
        block = np.zeros(chunks, a.dtype)
        sl = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(idx, chunks, a.shape))
        part = a[sl]
        block[tuple(slice(0, n) for n in part.shape)] = part
        data = block.tobytes(order=order)
        open(os.path.join(path, ".".join(map(str, idx)) or "0"), "wb").write(data)


def keys(shape, n):
    for _ in range(n):
        k = []
        for s in shape:
            lo, hi = sorted(RNG.integers(0, s + 1, 2))
            step = int(RNG.choice([1, 1, 2, 3, -1, -2]))
            k.append(slice(lo, hi, step) if step > 0 else slice(hi - 1 if hi else None,
                                                                 lo - 1 if lo else None, step))
        yield tuple(k)
        yield tuple(int(RNG.integers(0, s)) for s in shape)


@pytest.mark.parametrize("dtype", ["|u1", "<i2", "<f8", ">u1", ">i4", "<c8"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_parts_equal_numpy(tmp_path, dtype, order):
    shape, chunks = (70, 300, 40), (64, 256, 32)  # 4 MiB chunks of f8 and more
    a = (RNG.integers(0, 250, shape)).astype(dtype)
    p = str(tmp_path / "r.zarr")
    raw_v2(p, a, chunks, order)
    arr = tessera.open(p)
    for k in keys(shape, 60):
        np.testing.assert_array_equal(arr[k], a[k], err_msg=str(k))
    pts = tuple(RNG.integers(0, s, 50) for s in shape)
    np.testing.assert_array_equal(arr[pts], a[pts])


def test_reads_only_the_span(tmp_path):
    shape = chunks = (1024, 1024)  # one 8 MiB chunk of f8
    a = RNG.random(shape)
    p = str(tmp_path / "one.zarr")
    raw_v2(p, a, chunks)
    arr = tessera.open(p)
    v, r = arr.read((1000, 3), receipt=True)
    assert v == a[1000, 3] and r["bytes_read"] == 8
    v, r = arr.read((slice(10, 12), slice(None)), receipt=True)
    np.testing.assert_array_equal(v, a[10:12])
    assert r["bytes_read"] == 2 * 1024 * 8
    v, r = arr.read((slice(None), 5), receipt=True)  # a column spans the chunk: read whole
    np.testing.assert_array_equal(v, a[:, 5])
    assert r["bytes_read"] == 1024 * 1024 * 8


def test_v3(tmp_path):
    zarr = pytest.importorskip("zarr")
    a = RNG.integers(0, 1000, (512, 1024)).astype("<u4")
    p = str(tmp_path / "v3.zarr")
    z = zarr.create_array(p, shape=a.shape, chunks=(512, 1024), dtype=a.dtype, compressors=None)
    z[...] = a
    arr = tessera.open(p)
    v, r = arr.read((slice(100, 101), slice(7, 9)), receipt=True)
    np.testing.assert_array_equal(v, a[100:101, 7:9])
    assert r["bytes_read"] == 2 * 4


def test_short_file_still_corrupt(tmp_path):
    shape = chunks = (1024, 1024)
    a = RNG.random(shape)
    p = str(tmp_path / "short.zarr")
    raw_v2(p, a, chunks)
    f = os.path.join(p, "0.0")
    os.truncate(f, os.path.getsize(f) - 8)
    with pytest.raises(tessera.CorruptError, match=r"chunk 0\.0: none: decodes to 8388600 bytes, "
                                                   r"expected 8388608"):
        tessera.open(p)[3, 4]
