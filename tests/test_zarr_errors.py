"""test_zarr_errors.py - bad Zarr input gets exit 1 and one line naming the store, the array and
(for chunk failures) the chunk key; never a crash. Each case mutates a copy of a corpus store."""
import json
import os
import shutil
import struct
import tempfile

from corpus_util import CORPUS, crc32c, read_must_fail, report

tmp = tempfile.mkdtemp()
failures = []
total = 0
serial = 0


def copy(rel):
    """A private, writable copy of a corpus store."""
    global serial
    serial += 1
    dst = os.path.join(tmp, "%02d_%s" % (serial, os.path.basename(rel)))
    shutil.copytree(os.path.join(CORPUS, rel), dst)
    for root, dirs, files in os.walk(dst):
        for f in files:
            os.chmod(os.path.join(root, f), 0o644)
    return dst


def expect_error(label, store, *args, want=()):
    """The read must fail with exit 1 and one line containing the store and every string in want."""
    global total
    total += 1
    why = read_must_fail(store, args, want)
    if why:
        failures.append("%s: %s" % (label, why))


def edit_json(path, fn):
    with open(path) as f:
        d = json.load(f)
    fn(d)
    with open(path, "w") as f:
        json.dump(d, f)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def flip(path, offset, mask=0xFF):
    raw = bytearray(open(path, "rb").read())
    raw[offset] ^= mask
    write(path, bytes(raw))


# ---- metadata ----

s = copy("zarr2/zstd_i32_3d.zarr")
write(os.path.join(s, ".zarray"), b'{"zarr_format": 2, "shape": [12, 80')
expect_error("v2 truncated .zarray", s, want=("array /", ".zarray", "JSON"))

s = copy("zarr2/zstd_i32_3d.zarr")
edit_json(os.path.join(s, ".zarray"), lambda d: d.pop("shape"))
expect_error("v2 .zarray without shape", s, want=("array /", ".zarray", "shape"))

s = copy("zarr2/zstd_i32_3d.zarr")
edit_json(os.path.join(s, ".zarray"), lambda d: d.update(chunks=[5, 0, 40]))
expect_error("v2 zero chunk size", s, want=("array /", "chunks"))

s = copy("zarr2/zstd_i32_3d.zarr")
edit_json(os.path.join(s, ".zarray"), lambda d: d.update(chunks=[5, 32]))
expect_error("v2 chunks of the wrong rank", s, want=("array /", "chunks"))

s = copy("zarr2/zstd_i32_3d.zarr")
edit_json(os.path.join(s, ".zarray"), lambda d: d.update(fill_value="zero"))
expect_error("v2 bad fill_value", s, want=("array /", "fill_value"))

s = copy("zarr2/zstd_i32_3d.zarr")
edit_json(os.path.join(s, ".zarray"), lambda d: d.update(order="X"))
expect_error("v2 bad order", s, want=("array /", "order"))

s = copy("zarr2/zstd_i32_3d.zarr")
edit_json(os.path.join(s, ".zarray"), lambda d: d.update(dtype="|O"))
expect_error("v2 unsupported dtype", s, want=("array /", "|O", "not supported"))

s = copy("zarr2/zstd_i32_3d.zarr")
edit_json(os.path.join(s, ".zarray"), lambda d: d.update(dtype="|S12"))
expect_error("v2 bytes dtype", s, want=("array /", "|S12"))

s = copy("zarr2/zstd_i32_3d.zarr")
edit_json(os.path.join(s, ".zarray"), lambda d: d.update(compressor={"id": "zfpy", "mode": 4}))
expect_error("v2 unsupported compressor", s, want=("array /", "zfpy", "not supported"))

s = copy("zarr2/zstd_i32_3d.zarr")
edit_json(os.path.join(s, ".zarray"),
          lambda d: d.update(filters=[{"id": "categorize", "labels": ["a"], "dtype": "<U1"}]))
expect_error("v2 unsupported filter", s, want=("array /", "categorize", "not supported"))

s = copy("zarr2/group_consolidated.zarr")
edit_json(os.path.join(s, "labels/ids/.zarray"), lambda d: d.update(dtype="<U4"))
expect_error("v2 unsupported dtype in a group", s, "--array", "labels/ids",
             want=("array labels/ids", "<U4"))

s = copy("zarr3/zstd_f4.zarr")
write(os.path.join(s, "zarr.json"), b'{"zarr_format": 3, "node_type": "array", ')
expect_error("v3 truncated zarr.json", s, want=("array /", "zarr.json", "JSON"))

s = copy("zarr3/zstd_f4.zarr")
edit_json(os.path.join(s, "zarr.json"), lambda d: d.update(node_type="table"))
expect_error("v3 bad node_type", s, want=("node_type",))

s = copy("zarr3/zstd_f4.zarr")
edit_json(os.path.join(s, "zarr.json"), lambda d: d.pop("codecs"))
expect_error("v3 without codecs", s, want=("array /", "zarr.json", "codecs"))

s = copy("zarr3/zstd_f4.zarr")
edit_json(os.path.join(s, "zarr.json"), lambda d: d.update(data_type="int4"))
expect_error("v3 unsupported data_type", s, want=("array /", "int4", "not supported"))

s = copy("zarr3/zstd_f4.zarr")
edit_json(os.path.join(s, "zarr.json"),
          lambda d: d["codecs"].append({"name": "lzma", "configuration": {}}))
expect_error("v3 unsupported codec", s, want=("array /", "lzma", "not supported"))

s = copy("zarr3/zstd_f4.zarr")
edit_json(os.path.join(s, "zarr.json"), lambda d: d.update(my_extension={"must_understand": True}))
expect_error("v3 must_understand extension", s, want=("array /", "my_extension"))

s = copy("zarr3/zstd_f4.zarr")
edit_json(os.path.join(s, "zarr.json"), lambda d: d.update(chunk_grid={"name": "rectilinear", "configuration": {}}))
expect_error("v3 unsupported chunk grid", s, want=("array /", "rectilinear"))

s = copy("zarr3/zstd_f4.zarr")
edit_json(os.path.join(s, "zarr.json"), lambda d: d.update(fill_value="0x7fc0"))
expect_error("v3 hex fill of the wrong width", s, want=("array /", "fill_value"))

s = copy("zarr3/shard_end_zstd_f4.zarr")
edit_json(os.path.join(s, "zarr.json"),
          lambda d: d["codecs"][0]["configuration"].update(chunk_shape=[3, 32, 16]))
expect_error("v3 inner chunks that do not divide the shard", s, want=("array /", "divide"))

# A store that a level or an array name does not fit.
expect_error("no such array", os.path.join(CORPUS, "zarr2/group_consolidated.zarr"), "--array",
             "nope", want=("nope", "labels/ids", "raw"))
expect_error("a group without --array", os.path.join(CORPUS, "zarr2/group_consolidated.zarr"),
             want=("group", "labels/ids", "raw"))
expect_error("level out of range", os.path.join(CORPUS, "zarr2/ome_multiscale.zarr"), "--level",
             "3", want=("level 3", "3 levels"))

# ---- chunks ----

s = copy("zarr2/none_f64.zarr")
write(os.path.join(s, "1.0"), b"\0" * 100)
expect_error("v2 chunk of the wrong decoded size", s, want=("array /", "chunk 1.0", "bytes"))

s = copy("zarr2/zstd_i32_3d.zarr")
raw = open(os.path.join(s, "1.1.1"), "rb").read()
write(os.path.join(s, "1.1.1"), raw[: len(raw) // 2])
expect_error("v2 truncated zstd chunk", s, want=("array /", "chunk 1.1.1", "zstd"))

s = copy("zarr2/zstd_i32_3d.zarr")
flip(os.path.join(s, "0.0.0"), 0)  # the frame's magic number
expect_error("v2 corrupt zstd chunk", s, want=("array /", "chunk 0.0.0", "zstd"))

s = copy("zarr2/blosc_lz4_shuffle_i16.zarr")
raw = open(os.path.join(s, "1.1"), "rb").read()
write(os.path.join(s, "1.1"), raw[: len(raw) - 40])
expect_error("v2 truncated blosc chunk", s, want=("array /", "chunk 1.1", "blosc"))

s = copy("zarr2/blosc_lz4_shuffle_i16.zarr")
raw = bytearray(open(os.path.join(s, "0.1"), "rb").read())
struct.pack_into("<i", raw, 4, 12345)  # nbytes in the header no longer matches the chunk
write(os.path.join(s, "0.1"), bytes(raw))
expect_error("v2 blosc chunk of the wrong size", s, want=("array /", "chunk 0.1"))

s = copy("zarr2/gzip_u16.zarr")
flip(os.path.join(s, "1.1"), 20)
expect_error("v2 corrupt gzip chunk", s, want=("array /", "chunk 1.1"))

s = copy("zarr2/lz4_f32.zarr")
raw = open(os.path.join(s, "0.0"), "rb").read()
write(os.path.join(s, "0.0"), raw[:-30])
expect_error("v2 truncated lz4 chunk", s, want=("array /", "chunk 0.0", "lz4"))

s = copy("zarr2/bz2_u64.zarr")
raw = open(os.path.join(s, "0.0"), "rb").read()
write(os.path.join(s, "0.0"), raw[:-30])
expect_error("v2 truncated bz2 chunk", s, want=("array /", "chunk 0.0", "bz2"))

s = copy("zarr2/nested_f32_3d.zarr")
raw = open(os.path.join(s, "1/1/0"), "rb").read()
write(os.path.join(s, "1/1/0"), raw[:20])
expect_error("v2 truncated nested-key chunk", s, "--section", "2:4,32:64,0:32",
             want=("array /", "chunk 1/1/0"))

s = copy("zarr2/group_consolidated.zarr")
raw = open(os.path.join(s, "labels/ids/1.1"), "rb").read()
write(os.path.join(s, "labels/ids/1.1"), raw[:10])
expect_error("v2 corrupt chunk in a group", s, "--array", "labels/ids",
             want=("array labels/ids", "chunk 1.1"))

s = copy("zarr3/crc32c_i4.zarr")
p = os.path.join(s, "c/1/1/2")
raw = open(p, "rb").read()
flip(p, len(raw) - 1)
expect_error("v3 crc32c mismatch", s, want=("array /", "chunk c/1/1/2", "crc32c mismatch"))

s = copy("zarr3/crc32c_i4.zarr")
p = os.path.join(s, "c/0/0/0")
raw = open(p, "rb").read()
write(p, raw[:2])
expect_error("v3 chunk shorter than its checksum", s, want=("array /", "chunk c/0/0/0", "crc32c"))

s = copy("zarr3/raw_f4.zarr")
p = os.path.join(s, "c/0/1/1")
write(p, open(p, "rb").read()[:-8])
expect_error("v3 raw chunk of the wrong size", s, want=("array /", "chunk c/0/1/1", "bytes"))

s = copy("zarr3/v2_keys_i4.zarr")
p = os.path.join(s, "1.1")
write(p, open(p, "rb").read()[:-5])
expect_error("v3 truncated chunk with v2 keys", s, want=("array /", "chunk 1.1", "zstd"))

s = copy("zarr3/transpose_u2.zarr")
p = os.path.join(s, "c/0/0/0")
write(p, open(p, "rb").read()[:9])
expect_error("v3 truncated transposed chunk", s, want=("array /", "chunk c/0/0/0"))

# ---- shards ----


def shard_index(path, n, crc, at_start):
    raw = bytearray(open(path, "rb").read())
    size = 16 * n + (4 if crc else 0)
    start = 0 if at_start else len(raw) - size
    return raw, start


s = copy("zarr3/shard_start_gzip_u1.zarr")
p = os.path.join(s, "c/0/0/0")
raw, start = shard_index(p, 2 * 2 * 2, False, True)
struct.pack_into("<QQ", raw, start, 10 ** 9, 100)
write(p, bytes(raw))
expect_error("v3 shard index pointing outside the shard", s,
             want=("array /", "chunk c/0/0/0", "inner chunk (0,0,0)", "outside"))

s = copy("zarr3/shard_end_zstd_f4.zarr")
p = os.path.join(s, "c/1/0/1")
raw, start = shard_index(p, 2 * 2 * 2, True, False)
struct.pack_into("<QQ", raw, start, len(raw) - 10, 50)
struct.pack_into("<I", raw, len(raw) - 4, crc32c(bytes(raw[start:len(raw) - 4])))
write(p, bytes(raw))
expect_error("v3 shard entry running past the end (crc32c kept valid)", s,
             want=("array /", "chunk c/1/0/1", "outside"))

s = copy("zarr3/shard_end_zstd_f4.zarr")
p = os.path.join(s, "c/0/1/0")
raw = open(p, "rb").read()
flip(p, len(raw) - 20)
expect_error("v3 shard index crc32c mismatch", s, want=("array /", "chunk c/0/1/0", "crc32c"))

s = copy("zarr3/shard_end_zstd_f4.zarr")
p = os.path.join(s, "c/0/0/0")
write(p, b"\1" * 40)
expect_error("v3 shard too small for its index", s, want=("array /", "chunk c/0/0/0", "index"))

s = copy("zarr3/shard_end_zstd_f4.zarr")
p = os.path.join(s, "c/0/0/0")
raw, start = shard_index(p, 8, True, False)
o, n = struct.unpack_from("<QQ", raw, start)
raw[o + 5] ^= 0xFF
write(p, bytes(raw))
expect_error("v3 corrupt inner chunk", s, want=("array /", "chunk c/0/0/0 inner chunk (0,0,0)", "zstd"))

s = copy("zarr3/shard_start_gzip_u1.zarr")
p = os.path.join(s, "c/1/0/0")
raw, start = shard_index(p, 8, False, True)
struct.pack_into("<QQ", raw, start, 2 ** 64 - 1, 5)  # only half of the empty marker
write(p, bytes(raw))
expect_error("v3 half an empty marker", s, want=("array /", "chunk c/1/0/0", "outside"))

shutil.rmtree(tmp, ignore_errors=True)
report(failures, total)
