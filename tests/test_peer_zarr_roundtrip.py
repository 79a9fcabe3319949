"""test_peer_zarr_roundtrip.py - zarr-python 3 (PyPI) writes fresh Zarr v2 and v3 arrays at test
time with random codecs x dtypes x orders x chunkings x fill values (some chunks left unwritten),
sharded too (index at start or end, nested shards); tessera reads them whole and in random
sections, and must return what zarr-python reads (sections: NumPy's indexing of that read).
TSR_SEED picks another run; TSR_ZARR_CASES sets how many arrays."""
import os
import random
import shutil
import sys
import tempfile
import warnings

import numpy as np

from corpus_util import report, run_read, same

warnings.filterwarnings("ignore")
import numcodecs  # noqa: E402
import zarr  # noqa: E402
from zarr.codecs import (BloscCodec, BytesCodec, Crc32cCodec, GzipCodec, ShardingCodec,  # noqa: E402
                         TransposeCodec, ZstdCodec)

try:
    from zarr.codecs import numcodecs as zn  # zarr-python >= 3.1.3
except ImportError:  # pragma: no cover
    import numcodecs.zarr3 as zn

SEED = int(os.environ.get("TSR_SEED", "20240611"))
NCASES = int(os.environ.get("TSR_ZARR_CASES", "120"))
rng = random.Random(SEED)
nrng = np.random.default_rng(SEED)
tmp = tempfile.mkdtemp()

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


def values(dtype, shape):
    """Data with runs (compressible) and noise, NaN/inf for floats, extremes for ints."""
    n = int(np.prod(shape))
    dt = np.dtype(dtype)
    if dt.kind == "b":
        v = nrng.random(n) < 0.3
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        v = nrng.integers(info.min, info.max, size=n, dtype=dt, endpoint=True)
        v[: n // 2] = (np.arange(n // 2) // 7).astype(dt)  # runs
        if n > 4:
            v[1], v[3] = info.min, info.max
    else:
        real = np.float64 if dt.kind == "c" else dt
        v = (nrng.standard_normal(n) * 1000).astype(real)
        v[: n // 3] = np.round(v[: n // 3] / 100)
        if n > 8:
            v[2], v[5], v[7] = np.nan, np.inf, -0.0
        if dt.kind == "c":
            v = (v + 1j * (nrng.standard_normal(n) * 10).astype(real))
        v = v.astype(dt)
    return v.reshape(shape)


def fill_for(dtype, v2):
    dt = np.dtype(dtype)
    r = rng.random()
    if v2 and r < 0.15:
        return None
    if dt.kind == "b":
        return rng.random() < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return int(rng.choice([0, info.min, info.max, 7 if info.max >= 7 else 1]))
    if dt.kind == "c":
        return complex(rng.choice([0.0, 1.5, float("nan")]), rng.choice([0.0, -2.0]))
    return rng.choice([0.0, -1.5, float("nan"), float("inf"), float("-inf"), 1e-3])


def random_shape():
    nd = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4])
    shape = tuple(rng.randint(1, {0: 1, 1: 3000, 2: 90, 3: 30, 4: 12}[nd]) for _ in range(nd))
    chunks = tuple(max(1, rng.randint(1, s + 3)) if rng.random() < 0.8 else s for s in shape)
    return shape, chunks


def v2_compressor(dtype):
    itemsize = np.dtype(dtype).itemsize
    choice = rng.choice(["blosc", "blosc", "zstd", "gzip", "zlib", "lz4", "bz2", None])
    if choice == "blosc":
        return numcodecs.Blosc(cname=rng.choice(["lz4", "lz4hc", "blosclz", "zstd", "zlib"]),
                               clevel=rng.choice([0, 1, 5, 9]),
                               shuffle=rng.choice([0, 1, 2, -1]),
                               blocksize=rng.choice([0, 0, 256 * itemsize, 4096]))
    if choice == "zstd":
        return numcodecs.Zstd(level=rng.choice([0, 1, 5]))
    if choice == "gzip":
        return numcodecs.GZip(level=rng.choice([1, 6]))
    if choice == "zlib":
        return numcodecs.Zlib(level=rng.choice([1, 6]))
    if choice == "lz4":
        return numcodecs.LZ4(acceleration=rng.choice([1, 5]))
    if choice == "bz2":
        return numcodecs.BZ2(level=rng.choice([1, 9]))
    return None


def v3_bytes_codecs(dtype):
    out = []
    choice = rng.choice(["blosc", "blosc", "zstd", "gzip", "none", "zlib", "lz4", "bz2"])
    if choice == "blosc":
        shuffle = rng.choice(["noshuffle", "shuffle", "bitshuffle"])
        out.append(BloscCodec(cname=rng.choice(["lz4", "lz4hc", "blosclz", "zstd", "zlib"]),
                              clevel=rng.choice([0, 1, 5, 9]), shuffle=shuffle,
                              typesize=np.dtype(dtype).itemsize))
    elif choice == "zstd":
        out.append(ZstdCodec(level=rng.choice([0, 1, 5]), checksum=rng.random() < 0.3))
    elif choice == "gzip":
        out.append(GzipCodec(level=rng.choice([1, 6])))
    elif choice == "zlib":
        out.append(zn.Zlib(level=1))
    elif choice == "lz4":
        out.append(zn.LZ4())
    elif choice == "bz2":
        out.append(zn.BZ2(level=1))
    if rng.random() < 0.3:
        out.append(Crc32cCodec())
    return out


def make_v2(path, dtype, shape, chunks):
    order = rng.choice(["C", "F"])
    byteorder = rng.choice(["<", ">"]) if np.dtype(dtype).itemsize > 1 else "|"
    dt = np.dtype(dtype).newbyteorder(byteorder) if byteorder != "|" else np.dtype(dtype)
    filters = None
    kind = np.dtype(dtype).kind
    if kind in "iu" and rng.random() < 0.25 or (dtype in ("float32", "float64") and rng.random() < 0.1):
        filters = [numcodecs.Delta(dtype=dt.str)]
    sep = rng.choice([".", "/"])
    desc = "v2 %s %s order %s chunks %s sep %s" % (dt.str, shape, order, chunks, sep)
    z = zarr.create_array(path, shape=shape, chunks=chunks, dtype=dt, zarr_format=2,
                          compressors=v2_compressor(dtype), filters=filters,
                          fill_value=fill_for(dtype, True), order=order,
                          chunk_key_encoding={"name": "v2", "separator": sep},
                          config={"write_empty_chunks": rng.random() < 0.5})
    return z, desc + " %s filters %s fill %r" % (z.metadata.compressor, filters, z.metadata.fill_value)


def make_v3(path, dtype, shape, chunks):
    nd = len(shape)
    serializer = BytesCodec(endian=rng.choice(["little", "big"])) if np.dtype(dtype).itemsize > 1 \
        else BytesCodec()
    filters = []
    if nd > 1 and rng.random() < 0.3:
        order = list(range(nd))
        rng.shuffle(order)
        filters = [TransposeCodec(order=order)]
    compressors = v3_bytes_codecs(dtype)
    key = rng.choice([{"name": "default", "separator": "/"}, {"name": "default", "separator": "."},
                      {"name": "v2", "separator": "."}, {"name": "v2", "separator": "/"}])
    sharding = nd > 0 and rng.random() < 0.45
    desc = "v3 %s %s chunks %s keys %s" % (dtype, shape, chunks, key)
    kw = {}
    if sharding:
        # The shard is a whole number of inner chunks; maybe nested once more.
        per = tuple(rng.randint(1, 3) for _ in range(nd))
        nested = rng.random() < 0.25
        mid = tuple(c * p for c, p in zip(chunks, per))
        per2 = tuple(rng.randint(1, 2) for _ in range(nd)) if nested else (1,) * nd
        shard = tuple(m * p for m, p in zip(mid, per2))
        inner_codecs = filters + [serializer] + compressors
        index_codecs = [BytesCodec(endian=rng.choice(["little", "big"]))]
        if rng.random() < 0.7:
            index_codecs.append(Crc32cCodec())
        loc = rng.choice(["start", "end"])
        codec = ShardingCodec(chunk_shape=chunks, codecs=inner_codecs, index_codecs=index_codecs,
                              index_location=loc)
        if nested:
            codec = ShardingCodec(chunk_shape=mid, codecs=[codec],
                                  index_location=rng.choice(["start", "end"]))
        z = zarr.create_array(path, shape=shape, chunks=shard, dtype=dtype, zarr_format=3,
                              serializer=codec, compressors=None, filters=None,
                              fill_value=fill_for(dtype, False), chunk_key_encoding=key,
                              config={"write_empty_chunks": rng.random() < 0.5})
        desc += " sharded %s (index %s, nested %s)" % (shard, loc, nested)
    else:
        z = zarr.create_array(path, shape=shape, chunks=chunks, dtype=dtype, zarr_format=3,
                              serializer=serializer, compressors=compressors, filters=filters,
                              fill_value=fill_for(dtype, False), chunk_key_encoding=key,
                              config={"write_empty_chunks": rng.random() < 0.5}, **kw)
    return z, desc + " codecs %s" % ([c.to_dict() for c in z.metadata.codecs],)


def write_some(z, data):
    """Writes all, or only some boxes (the rest stays unwritten: fill value)."""
    if z.ndim == 0 or rng.random() < 0.4:
        z[...] = data
        return
    for _ in range(rng.randint(1, 3)):
        box = []
        for s in z.shape:
            a = rng.randint(0, s - 1)
            b = rng.randint(a + 1, s)
            box.append(slice(a, b))
        z[tuple(box)] = data[tuple(box)]


def random_section(shape):
    """A NumPy basic-indexing string and its tuple."""
    items, spec = [], []
    for s in shape:
        r = rng.random()
        if r < 0.15:
            i = rng.randint(-s, s - 1)
            items.append(i)
            spec.append(str(i))
        elif r < 0.3:
            items.append(slice(None))
            spec.append(":")
        else:
            step = rng.choice([1, 1, 1, 2, 3, -1, -2])
            a = rng.randint(-s - 2, s + 2)
            b = rng.randint(-s - 2, s + 2)
            items.append(slice(a, b, step))
            spec.append("%d:%d:%d" % (a, b, step))
    if shape and rng.random() < 0.2:
        items.insert(0, None)
        spec.insert(0, "None")
    return ",".join(spec), tuple(items)


failures = []
ncompared = 0
counts = {"v2": 0, "v3": 0, "sharded": 0, "sections": 0}
for n in range(NCASES):
    dtype = rng.choice(DTYPES)
    shape, chunks = random_shape()
    path = os.path.join(tmp, "a%03d.zarr" % n)
    v2 = rng.random() < 0.5
    try:
        z, desc = (make_v2 if v2 else make_v3)(path, dtype, shape, chunks)
        data = values(dtype, shape)
        write_some(z, data)
        want = zarr.open_array(path, mode="r")[...]
    except Exception as e:  # a combination zarr-python refuses: not ours to test
        print("skip %d (%s %s %s): zarr-python: %s" % (n, "v2" if v2 else "v3", dtype, shape, e))
        shutil.rmtree(path, ignore_errors=True)
        continue
    counts["v2" if v2 else "v3"] += 1
    if "sharded" in desc:
        counts["sharded"] += 1
    # Through a group too, sometimes: the same array at a path inside a store.
    sections = [(None, ())] + [random_section(shape) for _ in range(rng.randint(1, 3))]
    for spec, idx in sections:
        expect = want if spec is None else want[idx]
        got, rc, err = run_read(path, section=spec)
        ncompared += 1
        counts["sections"] += spec is not None
        if got is None:
            failures.append("case %d (%s) section %r: exit %d: %s" % (n, desc, spec, rc, err.strip()))
            break
        expect = np.asarray(expect)  # a 0-d result stays 0-d (ascontiguousarray would not)
        why = same(got, expect.astype(expect.dtype.newbyteorder("="), order="C"))
        if why:
            failures.append("case %d (%s) section %r: %s" % (n, desc, spec, why))
            break
    shutil.rmtree(path, ignore_errors=True)

# Groups: arrays at nested paths, and an OME-Zarr 0.5 image (v3) read by level.
g = zarr.open_group(os.path.join(tmp, "group.zarr"), mode="w", zarr_format=3)
levels = []
for lv, sh in enumerate([(64, 48), (32, 24), (16, 12)]):
    a = g.create_array(str(lv), shape=sh, chunks=(16, 16), dtype="uint16")
    d = values("uint16", sh)
    a[...] = d
    levels.append(d)
g.attrs["ome"] = {"version": "0.5", "multiscales": [{"axes": [{"name": "y"}, {"name": "x"}],
                                                     "datasets": [{"path": str(i)} for i in range(3)]}]}
sub = g.create_group("sub")
deep = sub.create_array("deep", shape=(10, 10), chunks=(3, 4), dtype="float32", fill_value=2.5)
deep[2:5, 1:9] = 1.0
for lv in range(3):
    ncompared += 1
    got, rc, err = run_read(os.path.join(tmp, "group.zarr"), extra=["--level", str(lv)])
    why = "exit %d: %s" % (rc, err.strip()) if got is None else same(got, levels[lv])
    if why:
        failures.append("OME-Zarr 0.5 level %d: %s" % (lv, why))
ncompared += 1
got, rc, err = run_read(os.path.join(tmp, "group.zarr"), extra=["--array", "sub/deep"])
why = "exit %d: %s" % (rc, err.strip()) if got is None else same(got, deep[...])
if why:
    failures.append("group array sub/deep: %s" % why)

shutil.rmtree(tmp, ignore_errors=True)
print("seed %d: %d arrays (%d v2, %d v3, %d sharded), %d reads compared (%d sections)" % (
    SEED, counts["v2"] + counts["v3"], counts["v2"], counts["v3"], counts["sharded"], ncompared,
    counts["sections"]))
report(failures, ncompared)
