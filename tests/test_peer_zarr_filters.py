"""test_peer_zarr_filters.py - zarr-python 3 (PyPI) with numcodecs writes fresh Zarr v2 arrays
with numcodecs filters (delta, fixedscaleoffset, astype, quantize, shuffle, packbits, bitround;
alone and chained) and v3 arrays with zarr-python's numcodecs.* codecs; tessera must read back
what zarr-python reads. Chunks of raw values written past zarr-python check the casts on values
NumPy converts with wrap-around and out-of-range rules. TSR_SEED picks another run."""
import os
import random
import shutil
import sys
import tempfile
import warnings

import numpy as np

from corpus_util import report, run_read, same

warnings.filterwarnings("ignore")
import numcodecs as nc  # noqa: E402
import zarr  # noqa: E402

from zarr.codecs import numcodecs as zn  # noqa: E402

SEED = int(os.environ.get("TSR_SEED", "20261201"))
rng = random.Random(SEED)
nrng = np.random.default_rng(SEED)
tmp = tempfile.mkdtemp()


def floats(n, scale=30.0, centre=1000.0):
    v = nrng.standard_normal(n) * scale + centre
    v[: n // 4] = np.round(v[: n // 4])
    return v


def cases():
    """(name, dtype, data, v2 filters, v3 array->array codecs, v3 bytes->bytes codecs)."""
    n = rng.randint(40, 300)
    f8 = floats(n)
    out = []
    for astype in ("u1", "u2", "i2", "f4"):
        scale = rng.choice([1, 10, 3.3, 0.25])
        out.append(("fixedscaleoffset f8<-%s" % astype, "f8", f8,
                    [nc.FixedScaleOffset(offset=1000, scale=scale, dtype="<f8", astype=astype)],
                    [zn.FixedScaleOffset(offset=1000, scale=scale, dtype="f8", astype=astype)], []))
    out.append(("fixedscaleoffset f4 in f4", "f4", f8.astype("f4"),
                [nc.FixedScaleOffset(offset=999.5, scale=3.3, dtype="<f4")],
                [zn.FixedScaleOffset(offset=999.5, scale=3.3, dtype="f4")], []))
    out.append(("fixedscaleoffset f2 in f2", "f2", (f8 / 100).astype("f2"),
                [nc.FixedScaleOffset(offset=10, scale=7, dtype="<f2")],
                [zn.FixedScaleOffset(offset=10, scale=7, dtype="f2")], []))
    out.append(("fixedscaleoffset i4<-i2", "i4", (f8 * 100).astype("i4"),
                [nc.FixedScaleOffset(offset=100000, scale=1, dtype="<i4", astype="<i2")],
                [zn.FixedScaleOffset(offset=100000, scale=1, dtype="i4", astype="i2")], []))
    out.append(("quantize f8 as f4", "f8", f8,
                [nc.Quantize(digits=rng.randint(1, 4), dtype="<f8", astype="<f4")],
                [zn.Quantize(digits=2, dtype="f8")], []))
    out.append(("astype f8<-f4", "f8", f8,
                [nc.AsType(encode_dtype="<f4", decode_dtype="<f8")],
                [zn.AsType(encode_dtype="f4", decode_dtype="f8")], []))
    out.append(("astype i8<-i2", "i8", (f8 * 3).astype("i8"),
                [nc.AsType(encode_dtype="<i2", decode_dtype="<i8")],
                [zn.AsType(encode_dtype="i2", decode_dtype="i8")], []))
    out.append(("delta i8 as i4", "i8", (f8 * 1e5).astype("i8"),
                [nc.Delta(dtype="<i8", astype="<i4")], [zn.Delta(dtype="i8", astype="i4")], []))
    out.append(("delta u2 wraps", "u2", nrng.integers(0, 65535, n, dtype="u2"),
                [nc.Delta(dtype="<u2")], [zn.Delta(dtype="u2")], []))
    out.append(("delta f4", "f4", f8.astype("f4"), [nc.Delta(dtype="<f4")], [zn.Delta(dtype="f4")], []))
    out.append(("delta big-endian i4", ">i4", (f8 * 10).astype(">i4"), [nc.Delta(dtype=">i4")], None, []))
    out.append(("packbits", "bool", nrng.random(n) < 0.3, [nc.PackBits()], [zn.PackBits()], []))
    out.append(("bitround", "f4", f8.astype("f4"), [nc.BitRound(keepbits=rng.randint(2, 12))],
                [zn.BitRound(keepbits=7)], []))
    es = rng.choice([1, 2, 4, 8])
    out.append(("shuffle %d" % es, "f8", f8, [nc.Shuffle(elementsize=es)], [], [zn.Shuffle(elementsize=es)]))
    out.append(("chain fso+delta+shuffle", "f8", f8,
                [nc.FixedScaleOffset(offset=1000, scale=10, dtype="<f8", astype="<u2"),
                 nc.Delta(dtype="<u2"), nc.Shuffle(elementsize=2)],
                [zn.FixedScaleOffset(offset=1000, scale=10, dtype="f8", astype="u2"), zn.Delta(dtype="u2")],
                [zn.Shuffle(elementsize=2), zarr.codecs.ZstdCodec()]))
    out.append(("chain quantize+zlib filter", "f4", f8.astype("f4"),
                [nc.Quantize(digits=1, dtype="<f4"), nc.Zlib(level=1)], None, []))
    return out


def write(path, fmt, dtype, data, filters, aa, bb):
    shape = (len(data),)
    chunks = (rng.randint(7, max(8, len(data) // 2)),)
    if fmt == 2:
        comp = rng.choice([None, nc.Zstd(level=1), nc.Blosc(cname="lz4", shuffle=0)])
        z = zarr.create_array(path, shape=shape, chunks=chunks, dtype=dtype, zarr_format=2,
                              filters=filters, compressors=comp, fill_value=0)
    else:
        z = zarr.create_array(path, shape=shape, chunks=chunks, dtype=dtype, zarr_format=3,
                              filters=aa, compressors=bb or None, fill_value=0)
    # the last chunk stays unwritten when there is one: fill
    z[: max(1, len(data) - chunks[0])] = data[: max(1, len(data) - chunks[0])]
    return z


def raw_cast_cases(path):
    """AsType chunks of float64 values written as raw chunk files, cast as NumPy casts them:
    truncation toward zero, rounding to narrower floats (overflow to inf, NaN kept), NaN and
    nonzero as True. Integer targets get only values whose truncation fits them: NumPy's casts
    of others are undefined (they differ between its SIMD and scalar loops)."""
    out = []
    vals = np.array([-1.5, 300.7, -1e10, np.nan, 1e20, -0.0, 255.9, 65535.5, -129.2, 2.0 ** 40,
                     np.inf, -np.inf, 1e19, 3e9, -3e9, 0.5, 4294967295.5, 65504.0, 65520.0,
                     1e-8, -2147483648.9, 2147483647.9, 9.2e18, -9.2e18, 127.99, -128.99,
                     1.0000001, 3.14159], dtype="<f8")
    for to in ("u1", "i1", "u2", "i2", "u4", "i4", "i8", "u8", "f2", "f4", "bool"):
        t = np.dtype(to)
        v = vals
        if t.kind in "iu":
            info = np.iinfo(t)
            with np.errstate(invalid="ignore"):
                tr = np.trunc(v)
                v = v[np.isfinite(v) & (tr >= float(info.min)) & (tr <= float(info.max))]
        p = os.path.join(path, "rawcast_%s.zarr" % to)
        zarr.create_array(p, shape=(len(v),), chunks=(len(v),), dtype=to, zarr_format=2,
                          filters=[nc.AsType(encode_dtype="<f8", decode_dtype=t.str)],
                          compressors=None, fill_value=0)
        with open(os.path.join(p, "0"), "wb") as f:
            f.write(v.tobytes())
        out.append(("raw astype f8->%s" % to, p))
    return out


def main():
    failures = []
    total = 0
    for fmt in (2, 3):
        for i, (name, dtype, data, filters, aa, bb) in enumerate(cases()):
            if fmt == 3 and aa is None:
                continue
            path = os.path.join(tmp, "v%d_%d.zarr" % (fmt, i))
            desc = "v%d %s" % (fmt, name)
            z = write(path, fmt, dtype, data, filters, aa, bb)
            total += 1
            want = zarr.open_array(path, mode="r")[...]
            got, rc, err = run_read(path)
            # tessera returns numbers in native byte order
            msg = ("tessera failed: " + err.strip()) if rc else \
                same(got, want.astype(want.dtype.newbyteorder("=")))
            if msg:
                failures.append("%s: %s (metadata %s)" % (desc, msg, z.metadata.to_dict()))
    # filters of a shard's inner chunks
    total += 1
    path = os.path.join(tmp, "sharded.zarr")
    z = zarr.create_array(path, shape=(40, 30), chunks=(5, 6), shards=(10, 12), dtype="f8",
                          filters=[zn.FixedScaleOffset(offset=5, scale=100, dtype="f8", astype="i2"),
                                   zn.Delta(dtype="i2")],
                          compressors=[zn.Shuffle(elementsize=2), zarr.codecs.ZstdCodec()],
                          fill_value=1.25, zarr_format=3)
    z[:33, :25] = nrng.standard_normal((33, 25))
    want = zarr.open_array(path, mode="r")[...]
    got, rc, err = run_read(path)
    msg = ("tessera failed: " + err.strip()) if rc else same(got, want)
    if msg:
        failures.append("v3 sharded with filters: %s" % msg)
    for desc, path in raw_cast_cases(tmp):
        total += 1
        want = zarr.open_array(path, mode="r")[...]
        got, rc, err = run_read(path)
        msg = ("tessera failed: " + err.strip()) if rc else same(got, want)
        if msg:
            failures.append("%s: %s" % (desc, msg))
    shutil.rmtree(tmp, ignore_errors=True)
    print("seed %d" % SEED)
    report(failures, total)


if __name__ == "__main__":
    main()
