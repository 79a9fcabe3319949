"""test_dtypes_raw.py - fixed-length bytes and unicode strings, raw bytes, datetime64 /
timedelta64 and structured dtypes that zarr-python (v2, v3) and python-blosc2 write come back
through the Python API with the writer's own NumPy dtype and bytes (a[key], read, out=,
tessera.read, read_batch, stream, info, list_arrays), and device reads of them are refused."""
import os
import warnings

import numpy as np
import pytest
import tessera

warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore")
rng = np.random.default_rng(20261201)
WORDS = ["", "a", "hé", "zarr", "日本語", "tessera!", "x" * 7]
N = 53


def words(n, width):
    return [WORDS[i][:width] for i in rng.integers(0, len(WORDS), n)]


def structured(n, little=False):
    big = "<f8" if little else ">f8"
    st = np.dtype([("a", "<i4"), ("b", big), ("c", "S3"), ("d", "<U2"), ("e", "|u1")])
    s = np.zeros(n, dtype=st)
    s["a"] = rng.integers(-1000, 1000, n)
    s["b"] = rng.standard_normal(n)
    s["c"] = [w.encode("utf-8")[:3] for w in words(n, 3)]
    s["d"] = words(n, 2)
    s["e"] = rng.integers(0, 255, n)
    return s


def nested(n):
    st = np.dtype([("a", "<i4"), ("d", "<U2", (2,)), ("n", [("x", "<i2"), ("y", "|u1")])])
    s = np.zeros(n, dtype=st)
    s["a"] = rng.integers(-99, 99, n)
    s["d"] = np.array(words(2 * n, 2)).reshape(n, 2)
    s["n"]["x"] = rng.integers(-9, 9, n)
    return s


def datas(fmt):
    out = {
        "S8": np.array([w.encode("utf-8")[:8] for w in words(N, 8)], dtype="S8"),
        "<U6": np.array(words(N, 6), dtype="<U6"),
        ">U3": np.array(words(N, 3), dtype=">U3"),
        "V5": np.frombuffer(rng.bytes(5 * N), dtype="V5").copy(),
        "<M8[ns]": rng.integers(-10 ** 18, 10 ** 18, N).astype("<M8[ns]"),
        "<M8[D]": rng.integers(-10 ** 5, 10 ** 5, N).astype("<M8[D]"),
        "<m8[10s]": rng.integers(-10 ** 6, 10 ** 6, N).astype("<m8[10s]"),
        "structured": structured(N, little=fmt == "zarr3"),
    }
    out["<M8[ns]"][5] = np.datetime64("NaT")
    if fmt == "blosc2":
        out["nested"] = nested(N)
        out["V24"] = np.frombuffer(rng.bytes(24 * N), dtype="V24").copy()
        out[">M8[ms]"] = rng.integers(0, 10 ** 12, N).astype(">M8[ms]")
    return out


def write(path, fmt, data):
    if fmt == "blosc2":
        blosc2 = pytest.importorskip("blosc2")
        blosc2.asarray(data, urlpath=path, mode="w", chunks=(17,), blocks=(5,))
        return blosc2.open(path)[:]
    zarr = pytest.importorskip("zarr")
    z = zarr.create_array(path, shape=data.shape, chunks=(11,), dtype=data.dtype,
                          zarr_format=2 if fmt == "zarr2" else 3)
    z[:30] = data[:30]  # chunks past 33 stay unwritten: the fill value
    return zarr.open_array(path, mode="r")[...]


def exact(got, want):
    """Same dtype (byte order and field layout included), shape and bytes (NaT == NaT)."""
    assert got.dtype == want.dtype and got.dtype.str == want.dtype.str, (got.dtype, want.dtype)
    assert got.shape == want.shape
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()


def native_times(want):
    """tessera delivers datetimes in native byte order, as all numbers; raw bytes as stored."""
    return want.astype(want.dtype.newbyteorder("=")) if want.dtype.kind in "mM" else want


def stacked(part, k):
    """k copies of part along a new first axis, in part's own dtype (np.stack would turn
    big-endian strings native)."""
    r = np.empty((k,) + part.shape, part.dtype)
    r[...] = part
    return r


CASES = [(fmt, name) for fmt in ("zarr2", "zarr3", "blosc2") for name in datas(fmt)]


@pytest.mark.parametrize("fmt,name", CASES, ids=["%s-%s" % c for c in CASES])
def test_peer_dtype(tmp_path, fmt, name):
    data = datas(fmt)[name]
    path = str(tmp_path / ("a.b2nd" if fmt == "blosc2" else "a.zarr"))
    try:
        want = write(path, fmt, data)
    except (TypeError, ValueError, NotImplementedError) as e:
        pytest.skip("the writer refuses %s: %s" % (name, e))
    want = native_times(want)
    with tessera.open(path) as a:
        assert a.dtype == want.dtype and a.dtype.str == want.dtype.str
        assert a.nbytes == want.nbytes and a.shape == want.shape
        assert a.info()["dtype"] == want.dtype
        exact(a[...], want)
        exact(np.asarray(a), want)
        exact(a[3:47:3], want[3:47:3])
        exact(a[::-5], want[::-5])
        exact(a[[7, 1, 40]], want[[7, 1, 40]])
        one = a[9]  # a NumPy scalar of the dtype, as want[9]
        assert type(one) is type(want[9]) and np.asarray(one).tobytes() == \
            np.asarray(want[9]).tobytes()
        out = np.empty(want.shape, want.dtype)
        assert a.read(out=out) is out
        exact(out, want)
        wrong = np.empty(want.shape, "u1" if want.dtype.itemsize != 1 else "i2")
        with pytest.raises(ValueError, match="out has shape"):
            a.read(out=wrong)
        with pytest.raises(NotImplementedError, match="device reads of dtype"):
            a.read(device="cuda")
    exact(tessera.read(path, slice(40, None)), want[40:])
    exact(tessera.read_batch([path, path], key=slice(2, 9)), stacked(want[2:9], 2))
    batches = list(tessera.stream([path] * 3, batch=2, key=slice(0, 4)))
    assert [b.shape[0] for b in batches] == [2, 1]
    for b in batches:
        exact(b, stacked(want[:4], b.shape[0]))
    with pytest.raises(NotImplementedError, match="device reads of dtype"):
        tessera.stream([path], device="cuda")
    if fmt != "blosc2":
        listed = [e for e in tessera.list_arrays(path) if "dtype" in e]
        assert listed and listed[0]["dtype"] == want.dtype
