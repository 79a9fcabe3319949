"""test_zarr_stores.py - Zarr stores written by hand (NumPy and the standard library only), for
what peers rarely write: consolidated metadata without per-array files, 64-bit fill values
beyond a double, hex/NaN/complex/float16 fills, 0-d arrays, short-hand codec names, transpose
"F", must_understand: false, missing shards, and `tessera info` listing a store."""
import bz2
import gzip
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import zlib

import numpy as np

from corpus_util import BIN, CORPUS, crc32c, report, run_read, same

tmp = tempfile.mkdtemp()
failures = []
total = 0


def check(label, store, want, *extra, section=None):
    global total
    total += 1
    got, rc, err = run_read(store, section=section, extra=extra)
    if got is None:
        failures.append("%s: exit %d: %s" % (label, rc, err.strip()))
        return
    why = same(got, want)
    if why:
        failures.append("%s: %s" % (label, why))


def put(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def chunks_of(a, chunks):
    """(index tuple, full-size chunk array padded with zeros) for every chunk of a."""
    grid = [-(-s // c) for s, c in zip(a.shape, chunks)]
    for idx in np.ndindex(*grid):
        box = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(idx, chunks, a.shape))
        full = np.zeros(chunks, a.dtype)
        full[tuple(slice(0, b.stop - b.start) for b in box)] = a[box]
        yield idx, full


def v2_array(path, a, chunks, dtype_str, fill, compress=lambda b: b, compressor=None,
             skip=lambda idx: False, sep=".", order="C", zarray=True):
    meta = {"zarr_format": 2, "shape": list(a.shape), "chunks": list(chunks), "dtype": dtype_str,
            "compressor": compressor, "fill_value": fill, "order": order, "filters": None,
            "dimension_separator": sep}
    if zarray:
        put(os.path.join(path, ".zarray"), json.dumps(meta))
    for idx, c in chunks_of(a, chunks):
        if skip(idx):
            continue
        key = sep.join(map(str, idx)) if idx else "0"
        raw = np.asarray(c, dtype=np.dtype(dtype_str)).tobytes(order=order)
        put(os.path.join(path, key), compress(raw))
    return meta


def v3_meta(a, chunks, data_type, fill, codecs, key="default", sep="/", **extra):
    m = {"zarr_format": 3, "node_type": "array", "shape": list(a.shape), "data_type": data_type,
         "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
         "chunk_key_encoding": {"name": key, "configuration": {"separator": sep}},
         "fill_value": fill, "codecs": codecs}
    m.update(extra)
    return m


def v3_key(idx, key="default", sep="/"):
    if key == "default":
        return "c" + "".join(sep + str(i) for i in idx)
    return sep.join(map(str, idx)) if idx else "0"


# ---- 64-bit fill values beyond a double's 53 bits, missing chunks ----
for dt, fill in (("<i8", 9223372036854775807), ("<i8", -9223372036854775807 - 1),
                 ("<u8", 18446744073709551615), ("<i8", 9007199254740993)):
    a = np.arange(40, dtype=dt).reshape(5, 8)
    p = os.path.join(tmp, "fill64_%s_%d.zarr" % (dt[1:], abs(fill) % 1000))
    v2_array(p, a, (2, 4), dt, fill, skip=lambda idx: idx[0] == 1)
    want = a.copy()
    want[2:4] = np.array(fill, dtype=dt)
    check("v2 %s fill %d" % (dt, fill), p, want)
    m = v3_meta(a, (2, 4), {"<i8": "int64", "<u8": "uint64"}[dt], fill, [{"name": "bytes", "configuration": {"endian": "little"}}])
    p3 = p.replace(".zarr", "_v3.zarr")
    put(os.path.join(p3, "zarr.json"), json.dumps(m))
    for idx, c in chunks_of(a, (2, 4)):
        if idx[0] != 1:
            put(os.path.join(p3, v3_key(idx)), c.tobytes())
    check("v3 %s fill %d" % (dt, fill), p3, want)

# ---- float fills: hex bit patterns, NaN, Infinity, complex pairs, float16 rounding ----
fills = [("float32", "0x3f800000", np.float32(1.0)), ("float32", "Infinity", np.float32(np.inf)),
         ("float64", "-Infinity", -np.inf), ("float64", "0x7ff8000000000001", np.nan),
         ("float32", "NaN", np.float32(np.nan)), ("float64", -0.0, -0.0),
         ("float16", 0.1, np.float16(0.1)), ("float16", 65519.0, np.float16(65519.0)),
         ("float16", 1e-7, np.float16(1e-7)), ("float16", 2.9802322387695312e-08, np.float16(2.9802322387695312e-08)),
         ("float16", "0x7c00", np.float16(np.inf)),
         ("complex64", ["NaN", 1.5], np.complex64(complex(np.nan, 1.5))),
         ("complex128", ["0x3ff0000000000000", "-Infinity"], complex(1.0, -np.inf))]
for i, (dt, fill, value) in enumerate(fills):
    a = np.arange(24).reshape(4, 6).astype(dt)
    p = os.path.join(tmp, "ffill%02d.zarr" % i)
    m = v3_meta(a, (2, 3), dt, fill, [{"name": "bytes", "configuration": {"endian": "little"}},
                                      "crc32c"])
    put(os.path.join(p, "zarr.json"), json.dumps(m))
    for idx, c in chunks_of(a, (2, 3)):
        if idx != (1, 1):
            raw = c.tobytes()
            put(os.path.join(p, v3_key(idx)), raw + struct.pack("<I", crc32c(raw)))
    want = a.copy()
    want[2:4, 3:6] = np.array(value, dtype=dt)
    check("v3 %s fill %r" % (dt, fill), p, want)

# v2 float fills as strings, and null (zero, as zarr-python 3 reads it).
for i, (fill, value) in enumerate((("NaN", np.nan), ("Infinity", np.inf), ("-Infinity", -np.inf),
                                   (None, 0.0))):
    a = np.linspace(-3, 3, 30, dtype=">f8").reshape(5, 6)
    p = os.path.join(tmp, "v2fill%d.zarr" % i)
    v2_array(p, a, (3, 3), ">f8", fill, compress=lambda b: bz2.compress(b),
             compressor={"id": "bz2", "level": 9}, skip=lambda idx: idx == (0, 1))
    want = a.astype("<f8")
    want[0:3, 3:6] = value
    check("v2 >f8 bz2 fill %r" % (fill,), p, want)

# ---- 0-d arrays ----
a0 = np.array(-12345, dtype="<i4")
p = os.path.join(tmp, "zero_d_v2.zarr")
v2_array(p, a0, (), "<i4", 0, compress=lambda b: zlib.compress(b), compressor={"id": "zlib"})
check("v2 0-d", p, a0)
p = os.path.join(tmp, "zero_d_v3.zarr")
put(os.path.join(p, "zarr.json"), json.dumps(v3_meta(a0, (), "int32", 0, [{"name": "bytes"}, {"name": "gzip", "configuration": {"level": 1}}])))
put(os.path.join(p, "c"), gzip.compress(a0.tobytes()))
check("v3 0-d", p, a0)
p = os.path.join(tmp, "zero_d_v3_missing.zarr")
put(os.path.join(p, "zarr.json"), json.dumps(v3_meta(a0, (), "int32", 7, ["bytes"])))
check("v3 0-d missing chunk", p, np.array(7, dtype="<i4"))

# ---- short-hand names, the old "endian" codec, transpose "F", ignorable extensions ----
a = np.arange(3 * 4 * 5, dtype="<u2").reshape(3, 4, 5)
p = os.path.join(tmp, "shorthand.zarr")
m = v3_meta(a, (2, 3, 4), "uint16", 0,
            [{"name": "transpose", "configuration": {"order": "F"}},
             {"name": "endian", "configuration": {"endian": "big"}}, "crc32c"],
            key="v2", sep="/", dimension_names=["z", "y", "x"], attributes={"a": 1},
            my_extension={"must_understand": False, "x": 1}, storage_transformers=[])
put(os.path.join(p, "zarr.json"), json.dumps(m))
for idx, c in chunks_of(a, (2, 3, 4)):
    raw = np.ascontiguousarray(c.transpose(2, 1, 0)).astype(">u2").tobytes()
    put(os.path.join(p, v3_key(idx, "v2", "/")), raw + struct.pack("<I", crc32c(raw)))
check("v3 transpose F, endian, crc32c short-hand, v2 keys '/'", p, a)
check("v3 transpose F section", p, a[1:3, ::-2, 3], section="1:3,::-2,3")

# ---- v2 order F 3-D with nested keys and gzip ----
a = (np.arange(5 * 6 * 7, dtype="<i2") * 7 - 300).reshape(5, 6, 7)
p = os.path.join(tmp, "orderF.zarr")
v2_array(p, a, (2, 4, 3), "<i2", 0, compress=gzip.compress, compressor={"id": "gzip"}, sep="/",
         order="F")
check("v2 order F 3-D nested gzip", p, a)

# ---- consolidated metadata only (the per-array files removed) ----
g = os.path.join(tmp, "consolidated_v2.zarr")
put(os.path.join(g, ".zgroup"), json.dumps({"zarr_format": 2}))
a = np.arange(60, dtype="<f4").reshape(6, 10)
meta = v2_array(os.path.join(g, "x/y"), a, (4, 4), "<f4", 0.5, zarray=False,
                skip=lambda idx: idx == (1, 2))
put(os.path.join(g, ".zmetadata"), json.dumps({"zarr_consolidated_format": 1, "metadata": {
    ".zgroup": {"zarr_format": 2}, "x/.zgroup": {"zarr_format": 2}, "x/y/.zarray": meta}}))
want = a.copy()
want[4:6, 8:10] = 0.5
check("v2 consolidated-only array", g, want, "--array", "x/y")
check("v2 consolidated-only array, path with slashes", g, want, "--array", "/x//y/")

g = os.path.join(tmp, "consolidated_v3.zarr")
a = np.arange(20, dtype="<i2").reshape(4, 5)
m = v3_meta(a, (3, 3), "int16", -1, ["bytes"])
put(os.path.join(g, "zarr.json"), json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {},
    "consolidated_metadata": {"kind": "inline", "must_understand": False,
                              "metadata": {"img": m, "sub": {"zarr_format": 3, "node_type": "group"}}}}))
for idx, c in chunks_of(a, (3, 3)):
    put(os.path.join(g, "img", v3_key(idx)), c.tobytes())
check("v3 consolidated-only array", g, a, "--array", "img")

# ---- a sharded array with a missing shard and an index in big-endian at the start ----
a = np.arange(8 * 6, dtype="<i4").reshape(8, 6)
p = os.path.join(tmp, "shard_be.zarr")
inner = (2, 3)
m = v3_meta(a, (4, 6), "int32", 99, [{"name": "sharding_indexed", "configuration": {
    "chunk_shape": list(inner), "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                           {"name": "gzip", "configuration": {"level": 1}}],
    "index_codecs": [{"name": "bytes", "configuration": {"endian": "big"}}],
    "index_location": "start"}}])
put(os.path.join(p, "zarr.json"), json.dumps(m))
# Shard (0, 0) only: inner chunks in reverse order, one left empty; shard (1, 0) missing.
blobs, entries = [], []
for idx, c in chunks_of(a[:4], inner):
    blobs.append(None if idx == (1, 1) else gzip.compress(c.tobytes()))
off = 16 * len(blobs)
body = b""
for blob in reversed(blobs):
    if blob is not None:
        entries.insert(0, (off + len(body), len(blob)))
        body = body + blob
    else:
        entries.insert(0, (2 ** 64 - 1, 2 ** 64 - 1))
index = b"".join(struct.pack(">QQ", o, n) for o, n in entries)
put(os.path.join(p, "c/0/0"), index + body)
want = a.copy()
want[2:4, 3:6] = 99
want[4:] = 99
check("v3 shard: index at start, big-endian, empty entry, missing shard", p, want)
check("v3 shard section", p, want[1:7, 2:5], section="1:7,2:5")

# ---- a section of a sharded array reads its inner chunks' bytes, not the shard ----
total += 1
store = os.path.join(CORPUS, "zarr3/shard_end_zstd_f4.zarr")
shard_nbytes = os.path.getsize(os.path.join(store, "c/0/0/0"))
pr = subprocess.run([BIN, "read", store, "--section", "0:4,0:32,0:16", "--receipt", "-o",
                     os.path.join(tmp, "one.npy")], capture_output=True, text=True, timeout=60)
m = re.search(r"\bread (\d+) B", pr.stdout)
nread = int(m.group(1)) if m else None
if pr.returncode != 0 or nread is None or not 0 < nread < shard_nbytes // 4:
    failures.append("one inner chunk of a shard: read %s of a %d-byte shard: %s %s" % (
        nread, shard_nbytes, pr.stdout, pr.stderr))

# ---- tessera info on stores ----


def info(store, *args):
    p = subprocess.run([BIN, "info", store] + list(args), capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


total += 1
rc, out, err = info(os.path.join(CORPUS, "zarr2/group_consolidated.zarr"))
for w in ("labels/ids", "labels/mask", "meta/vector", "raw", "int32", "120x160", "gzip"):
    if rc != 0 or w not in out:
        failures.append("info group: lacks %r (exit %d): %s %s" % (w, rc, out, err))
        break
total += 1
rc, out, err = info(os.path.join(CORPUS, "zarr2/ome_multiscale.zarr"), "--json")
try:
    d = json.loads(out)
    assert [e["name"] for e in d["entries"] if e["kind"] == "array"] == ["0", "1", "2"]
    assert [e["nlevels"] for e in d["entries"] if e["kind"] == "multiscale"] == [3]
except Exception as e:  # noqa: BLE001
    failures.append("info OME --json: %s: %r %s" % (e, out, err))
total += 1
rc, out, err = info(g)
if rc != 0 or "img" not in out or "int16" not in out:
    failures.append("info v3 consolidated: exit %d: %s %s" % (rc, out, err))
total += 1
rc, out, err = info(os.path.join(CORPUS, "zarr3/shard_end_zstd_f4.zarr"), "--json")
try:
    d = json.loads(out)
    e = d["entries"][0]
    assert e["name"] == "" and e["layout"]["chunk_shape"] == [4, 32, 16]
except Exception as e:  # noqa: BLE001
    failures.append("info array store --json: %s: %r %s" % (e, out, err))

shutil.rmtree(tmp, ignore_errors=True)
report(failures, total)
