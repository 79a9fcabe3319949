"""test_peer_zarr_dtypes.py - zarr-python 3 (PyPI) writes fresh Zarr v2 and v3 arrays of
fixed-length bytes and unicode strings, raw bytes, datetime64/timedelta64 (with units) and
structured dtypes, with fill values (some chunks left unwritten) and codecs; tessera must read
back what zarr-python reads, with the same NumPy dtype in the NPY (datetimes in native byte
order, as all numbers). Variable-length strings must fail with a clear message.
TSR_SEED picks another run."""
import os
import random
import shutil
import tempfile
import warnings

import numpy as np

from corpus_util import report, run_read, same

warnings.filterwarnings("ignore")
import numcodecs as nc  # noqa: E402
import zarr  # noqa: E402

SEED = int(os.environ.get("TSR_SEED", "20261201"))
rng = random.Random(SEED)
nrng = np.random.default_rng(SEED)
tmp = tempfile.mkdtemp()

WORDS = ["", "a", "hé", "zarr", "日本語", "tessera!", "x" * 7, "\u00ff\u0100"]


def strings(n, width):
    return [rng.choice(WORDS)[:width] for _ in range(n)]


def cases(n):
    """(name, dtype, data, fill value, v2 only)."""
    st = np.dtype([("a", "<i4"), ("b", ">f8"), ("c", "S3"), ("d", "<U2"), ("e", "|u1")])
    nested = np.dtype([("p", [("x", "<i2"), ("y", "|u1")]), ("q", "<f4", (2,))])
    data_st = np.zeros(n, dtype=st)
    data_st["a"] = nrng.integers(-1000, 1000, n)
    data_st["b"] = nrng.standard_normal(n)
    data_st["c"] = [w.encode("utf-8")[:3] for w in strings(n, 3)]
    data_st["d"] = strings(n, 2)
    data_st["e"] = nrng.integers(0, 255, n)
    data_nested = np.zeros(n, dtype=nested)
    data_nested["p"]["x"] = nrng.integers(-300, 300, n)
    data_nested["q"] = nrng.standard_normal((n, 2))
    out = [
        ("S8", "|S8", np.array([w.encode("utf-8")[:8] for w in strings(n, 8)], dtype="S8"), b"fill"),
        ("S1", "|S1", np.array([w.encode("utf-8")[:1] for w in strings(n, 1)], dtype="S1"), None),
        ("U6", "<U6", np.array(strings(n, 6), dtype="<U6"), "hé"),
        (">U3", ">U3", np.array(strings(n, 3), dtype=">U3"), "日本"),
        ("U5 empty fill", "<U5", np.array(strings(n, 5), dtype="<U5"), None),
        ("V5", "|V5", np.frombuffer(nrng.bytes(5 * n), dtype="V5").copy(), None),
        ("datetime64[ns]", "<M8[ns]", (nrng.integers(-10 ** 18, 10 ** 18, n)).astype("M8[ns]"),
         np.datetime64("NaT")),
        ("datetime64[D]", "<M8[D]", nrng.integers(-10 ** 5, 10 ** 5, n).astype("M8[D]"),
         np.datetime64("2001-02-03")),
        ("datetime64[ms] big-endian", ">M8[ms]", nrng.integers(0, 10 ** 12, n).astype(">M8[ms]"), 7),
        ("timedelta64[10s]", "<m8[10s]", nrng.integers(-10 ** 6, 10 ** 6, n).astype("m8[10s]"), None),
        ("timedelta64[us]", "<m8[us]", nrng.integers(-10 ** 6, 10 ** 6, n).astype("m8[us]"),
         np.timedelta64(-5, "us")),
        ("structured", st, data_st, np.array((1, 2.5, b"ab", "z", 3), dtype=st)[()]),
    ]
    for name, dt, data, fill in out:
        data[: n // 5] = data[n // 5]  # runs
        if rng.random() < 0.3:
            data[n // 3] = data[0]
    return out, data_nested


def handwritten_nested(path, data):
    """zarr-python 3 cannot read nested or subarray fields back: a v2 array written as
    zarr-python 2 writes them ([name, type, shape] lists), one raw chunk plus a missing one,
    compared with NumPy's own values and the fill value."""
    import json
    os.makedirs(path)
    n = len(data)
    descr = [["p", [["x", "<i2"], ["y", "|u1"]]], ["q", "<f4", [2]]]
    fill = np.zeros((), dtype=data.dtype)
    fill["p"]["x"], fill["q"] = -7, (1.5, -2.0)
    meta = {"zarr_format": 2, "shape": [2 * n], "chunks": [n], "dtype": descr,
            "fill_value": __import__("base64").b64encode(fill.tobytes()).decode(),
            "order": "C", "compressor": None, "filters": None}
    with open(os.path.join(path, ".zarray"), "w") as f:
        json.dump(meta, f)
    with open(os.path.join(path, "0"), "wb") as f:
        f.write(data.tobytes())
    want = np.concatenate([data, np.full(n, fill, dtype=data.dtype)])
    got, rc, err = run_read(path)
    if rc:
        return "tessera failed: " + err.strip()
    return same(got, want) or (None if got.dtype == want.dtype else
                               "dtype %s != %s" % (got.dtype, want.dtype))


def make(path, fmt, dtype, data, fill):
    n = len(data)
    chunks = (rng.randint(3, max(4, n // 3)),)
    kw = {}
    if rng.random() < 0.6:
        kw["compressors"] = nc.Zstd(level=1) if fmt == 2 else zarr.codecs.ZstdCodec(level=1)
    else:
        kw["compressors"] = None
    z = zarr.create_array(path, shape=(n,), chunks=chunks, dtype=dtype, zarr_format=fmt,
                          fill_value=fill, **kw)
    # a block somewhere in the middle: chunks before and after it stay fill
    a = rng.randint(0, n // 2)
    b = rng.randint(a + 1, n)
    z[a:b] = data[a:b]
    return z


def vlen_refused(path, fmt):
    """A variable-length string array fails, naming its dtype."""
    z = zarr.create_array(path, shape=(4,), chunks=(2,), dtype=str, zarr_format=fmt)
    z[:] = ["a", "bb", "ccc", ""]
    got, rc, err = run_read(path)
    if rc == 0:
        return "a variable-length string array read without error"
    if "variable-length" not in err and "object" not in err:
        return "message does not say variable-length: " + err.strip()
    return None


def main():
    failures = []
    total = 0
    n = rng.randint(20, 120)
    for fmt in (2, 3):
        all_cases, nested = cases(n)
        for i, (name, dtype, data, fill) in enumerate(all_cases):
            if fmt == 3 and np.dtype(dtype).kind == "V" and np.dtype(dtype).names:
                # zarr-python 3 writes v3 structured dtypes with little-endian fields only
                data = data.astype([(k, v[0].newbyteorder("<") if v[0].kind in "iufcmM" else v[0])
                                    for k, v in np.dtype(dtype).fields.items()])
                dtype = data.dtype
            path = os.path.join(tmp, "v%d_%d.zarr" % (fmt, i))
            desc = "v%d %s fill %r" % (fmt, name, fill)
            try:
                make(path, fmt, dtype, data, fill)
            except Exception as e:
                failures.append("%s: zarr-python could not write it: %s" % (desc, e))
                continue
            total += 1
            want = zarr.open_array(path, mode="r")[...]
            if want.dtype.kind in "mM":
                want = want.astype(want.dtype.newbyteorder("="))
            got, rc, err = run_read(path)
            if not rc and want.dtype.kind in "mM" and got.dtype == want.dtype:
                got, want = got.view("i8"), want.view("i8")  # NaT == NaT, bit for bit
            msg = ("tessera failed: " + err.strip()) if rc else same(got, want)
            if not msg and got.dtype.str != want.dtype.str:
                msg = "NPY dtype %r, zarr-python %r" % (got.dtype.str, want.dtype.str)
            if msg:
                failures.append("%s: %s" % (desc, msg))
        total += 1
        msg = vlen_refused(os.path.join(tmp, "vlen%d.zarr" % fmt), fmt)
        if msg:
            failures.append("v%d vlen strings: %s" % (fmt, msg))
    total += 1
    msg = handwritten_nested(os.path.join(tmp, "nested.zarr"), nested)
    if msg:
        failures.append("v2 nested structured with a subarray field: " + msg)
    shutil.rmtree(tmp, ignore_errors=True)
    print("seed %d" % SEED)
    report(failures, total)


if __name__ == "__main__":
    main()
