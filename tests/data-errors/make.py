#!/usr/bin/env python3
"""make.py - writes the golden bad inputs of tests/data-errors/ from corpus files: one small
file (or store) per failure class, damaged in one place. README.md lists what each must give.
Usage: make.py [OUT_DIR] (default: this folder); TSR_CORPUS names the corpus
(default ../../../shared/corpus from here). The output is deterministic, so
tests/test_data_errors_cli.py rebuilds it and compares it with the committed files."""
import json
import os
import shutil
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import corpus_util  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.environ.get("TSR_CORPUS", os.path.join(HERE, "..", "..", "..", "shared", "corpus"))
OUT = sys.argv[1] if len(sys.argv) > 1 else HERE


def src(rel):
    with open(os.path.join(CORPUS, rel), "rb") as f:
        return bytearray(f.read())


def put(rel, data):
    path = os.path.join(OUT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(bytes(data))


def store(name):
    """A fresh, empty store directory (stale files of an earlier run would change the case)."""
    path = os.path.join(OUT, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return name


# ---- FITS ----


def fits_hdus(raw):
    """(data offset, cards) of each HDU."""
    return [(dstart, cards) for _, dstart, cards in corpus_util.fits_hdus(raw)]


def set_card(raw, key, value):
    """Rewrites the first card `key` in place (same 80 columns)."""
    for i in range(0, len(raw), 80):
        if raw[i:i + 8].decode("ascii").strip() == key:
            raw[i:i + 80] = ("%-8s= %20s" % (key, value)).ljust(80).encode("ascii")
            return
    raise KeyError(key)


def tile_descriptor(raw, hdu, tile):
    """(file offset of the descriptor, its byte count, file offset of its bytes) of a tile's
    COMPRESSED_DATA (column 1, 1PB) in a corpus tile table."""
    dstart, cards = fits_hdus(raw)[hdu]
    row, nrows = int(cards["NAXIS1"]), int(cards["NAXIS2"])
    theap = int(cards.get("THEAP", row * nrows))
    at = dstart + tile * row
    n, off = struct.unpack(">ii", raw[at:at + 8])
    return at, n, dstart + theap + off


raw = src("fits/u_i16_primary.fits")
put("fits_truncated_header.fits", raw[:1000])

raw = src("fits/u_i16_primary.fits")[:2880]
i = raw.find(b"END" + b" " * 77)
raw[i:i + 3] = b"XND"
put("fits_no_end.fits", raw)

# A whole, tiny image whose only fault is BITPIX.
raw = src("fits/u_u8_primary.fits")[:2880]
set_card(raw, "BITPIX", "12")
set_card(raw, "NAXIS1", "8")
set_card(raw, "NAXIS2", "8")
put("fits_bitpix_12.fits", raw + bytes(2880))

raw = src("fits/c_gzip1_u8_tiles.fits")
at, n, _ = tile_descriptor(raw, 1, 3)
raw[at + 4:at + 8] = struct.pack(">i", 0x7FFFFFF0)
put("fits_descriptor_past_heap.fits", raw)

# gzip keeps its 10-byte header and its CRC-32 + size trailer; the deflate stream between
# them is garbled.
raw = src("fits/c_gzip1_u8_tiles.fits")
at, n, p = tile_descriptor(raw, 1, 2)
raw[p + 10:p + n - 8] = bytes(b ^ 0xA5 for b in raw[p + 10:p + n - 8])
put("fits_corrupt_gzip_tile.fits", raw)

raw = src("fits/c_rice_u8_rows.fits")
at, n, _ = tile_descriptor(raw, 1, 2)
raw[at:at + 4] = struct.pack(">i", n // 3)
put("fits_short_rice_tile.fits", raw)

# HCOMPRESS has no checksum: the bit planes after the 25-byte header are overwritten with
# ones, which no encoder writes (a quadtree code of 111111 followed by more ones runs past
# the planes the header promises).
raw = src("fits/c_hcomp_u8_default.fits")
at, n, p = tile_descriptor(raw, 1, 2)
raw[p + 25:p + n] = b"\xff" * (n - 25)
put("fits_hcompress_corrupt.fits", raw)

# ---- Zarr ----
# Each store keeps its metadata and only the chunks the case needs: the others are missing,
# which Zarr reads as the fill value, so the damaged chunk is the only fault.

s = store("zarr_malformed_zarray.zarr")
put(s + "/.zarray", b'{"zarr_format": 2, "shape": [12, 80')

s = store("zarr_unsupported_dtype.zarr")
meta = json.loads(src("zarr2/zstd_i32_3d.zarr/.zarray"))
meta["dtype"] = "|O"
put(s + "/.zarray", json.dumps(meta, sort_keys=True).encode())

s = store("zarr_truncated_chunk.zarr")
put(s + "/.zarray", src("zarr2/zstd_i32_3d.zarr/.zarray"))
raw = src("zarr2/zstd_i32_3d.zarr/1.1.1")
put(s + "/1.1.1", raw[:len(raw) // 2])

s = store("zarr_crc32c_mismatch.zarr")
put(s + "/zarr.json", src("zarr3/crc32c_i4.zarr/zarr.json"))
raw = src("zarr3/crc32c_i4.zarr/c/1/1/2")
raw[-1] ^= 0xFF  # the stored checksum
put(s + "/c/1/1/2", raw)

s = store("zarr_shard_index_out_of_range.zarr")
put(s + "/zarr.json", src("zarr3/shard_start_gzip_u1.zarr/zarr.json"))
raw = src("zarr3/shard_start_gzip_u1.zarr/c/0/0/0")
struct.pack_into("<QQ", raw, 0, 10 ** 9, 100)  # inner chunk (0,0,0): index at the start
put(s + "/c/0/0/0", raw)

# The fuzz target's first find (build-fuzz crash-bffa677f, fixed in src/engine/fetch.c by
# 0df2011): an uncompressed chunk whose file is empty made the fetch do pointer arithmetic on
# a NULL buffer. The empty chunk must be a clean size error instead.
s = store("zarr_empty_chunk.zarr")
put(s + "/.zarray", src("zarr2/group_consolidated.zarr/meta/vector/.zarray"))
put(s + "/0", b"")

# ---- Blosc2 ----

B2 = "blosc2/bool_lz4_bitshuffle_2d.b2nd"


def b2_chunks(raw):
    """Start of each chunk of a frame whose chunks were appended in order."""
    header_len = struct.unpack(">i", raw[11:15])[0]
    cbytes = struct.unpack(">q", raw[39:47])[0]
    pos, p = [], header_len
    while p < header_len + cbytes:
        pos.append(p)
        p += struct.unpack("<i", raw[p + 12:p + 16])[0]
    assert p == header_len + cbytes, "chunks do not tile the chunks section"
    return pos


raw = src(B2)
raw[4:5] = b"X"
put("blosc2_bad_magic.b2nd", raw)

raw = src(B2)
put("blosc2_truncated_frame.b2nd", raw[:len(raw) * 3 // 5])

raw = src(B2)
p = b2_chunks(raw)[1]
raw[p + 4:p + 8] = struct.pack("<i", 12345)  # nbytes: what the chunk decodes to
put("blosc2_chunk_header_lies.b2nd", raw)

raw = src(B2)
p = b2_chunks(raw)[2]
raw[p + 2] = raw[p + 2] | (7 << 5)  # compressor format 7: undefined (6 is a plugin id in byte 22)
put("blosc2_unknown_codec.b2nd", raw)

# ---- issue 21: claims bounded by bytes, hostile files ----

SCHUNK = "blosc2/schunk_lz4hc_bitshuffle_u1.b2frame"  # plain super-chunk of 1-byte items


def b2_set_i64(raw, at, value):
    """Rewrites a header's msgpack int64 (0xd3 and 8 big-endian bytes) whose value is at `at`."""
    assert raw[at - 1] == 0xD3
    raw[at:at + 8] = struct.pack(">q", value)


# D2: an uncompressed size of 2^63 - 1 once overflowed the chunk count (it went negative and
# the open succeeded); the 4 offsets of the index now cannot serve the 2^48 chunks it means.
raw = src(SCHUNK)
b2_set_i64(raw, 30, 2 ** 63 - 1)
put("blosc2_nbytes_overflow.b2frame", raw)

# D3: the chunk-offsets index replaced by a 32-byte special chunk (zeros) claiming 2^27
# offsets, and the header's size grown to match: opening once allocated and sorted them all.
raw = src(SCHUNK)
header_len = struct.unpack(">i", raw[11:15])[0]
cbytes = struct.unpack(">q", raw[39:47])[0]
chunksize = struct.unpack(">i", raw[58:62])[0]
b2_set_i64(raw, 30, 2 ** 27 * chunksize)
idx = header_len + cbytes
special = bytearray(32)
special[0:4] = bytes([5, 1, 0x05, 8])  # version 5, Blosc2 extended header, typesize 8
special[4:16] = struct.pack("<iii", 2 ** 30, 2 ** 30, 32)  # nbytes, blocksize, cbytes
special[31] = 0x10  # special chunk: zeros
raw[idx:idx + 32] = special
put("blosc2_index_special_zeros.b2frame", raw)

# An empty file named as a frame: reported as empty, not as "not a FITS file".
put("blosc2_empty.b2nd", b"")

# D6: an integer keyword written as a real beyond 2^63 (the double was cast before its range
# was checked).
def add_card(raw, key, value):
    """Puts a card right before END (the header block must have room for it)."""
    end = raw.find(b"END" + b" " * 77)
    assert end % 80 == 0 and (end // 80 + 1) % 36 != 0, "no room for a card before END"
    raw[end + 80:end + 160] = raw[end:end + 80]
    raw[end:end + 80] = ("%-8s= %20s" % (key, value)).ljust(80).encode("ascii")


raw = src("fits/u_i16_primary.fits")
add_card(raw, "BLANK", "1E19")
put("fits_blank_1e19.fits", raw)

# Claims bounded by bytes: GCOUNT = 2^62 times the 120000 bytes of the image wraps to 0 in 64
# bits; the data unit then looked empty and the walk went on inside the pixels.
raw = src("fits/u_i16_primary.fits")
add_card(raw, "GCOUNT", str(2 ** 62))
put("fits_gcount_overflow.fits", raw)

# D7: a gzip shard whose first inner chunk is offset 0, length 0: an empty stream reached the
# inflater as a NULL source.
s = store("zarr_shard_empty_inner_gzip.zarr")
put(s + "/zarr.json", src("zarr3/shard_start_gzip_u1.zarr/zarr.json"))
raw = src("zarr3/shard_start_gzip_u1.zarr/c/0/0/0")
struct.pack_into("<QQ", raw, 0, 0, 0)
put(s + "/c/0/0/0", raw)

# A shape past 2^53, which JSON's doubles cannot hold exactly: the message says the limit.
s = store("zarr_shape_above_2_53.zarr")
meta = json.loads(src("zarr2/zstd_i32_3d.zarr/.zarray"))
meta["shape"][0] = 2 ** 60
put(s + "/.zarray", json.dumps(meta, sort_keys=True).encode())

# Bytes from the file quoted in a message are escaped: a dtype holding ESC, a newline and a
# byte that is not UTF-8.
s = store("zarr_dtype_control_bytes.zarr")
meta = json.loads(src("zarr2/zstd_i32_3d.zarr/.zarray"))
meta["dtype"] = "<M8@@"
put(s + "/.zarray", json.dumps(meta, sort_keys=True).encode().replace(
    b"<M8@@", b"<M8\\u001b[31m\\n" + b"\xff"))


def header(*cards):
    """A header block (or more) of the given (key, value) cards and END."""
    text = b"".join(("%-8s= %20s" % kv).ljust(80).encode("ascii") for kv in cards)
    text += b"END".ljust(80)
    return text.ljust((len(text) + 2879) // 2880 * 2880, b" ")


# Claims bounded by bytes: a table HDU (not an image, so the walk passes it) whose data unit is
# GCOUNT * PCOUNT = 64 * (2^58 - 45) = 2^64 - 2880 bytes. Rounded to blocks and added to its
# offset this wrapped to byte 3584, inside the file and no header, read as HDU 2; a data unit
# the file cannot hold now ends the walk.
put("fits_pcount_wraps_walk.fits",
    header(("SIMPLE", "T"), ("BITPIX", "8"), ("NAXIS", "0")) +
    header(("XTENSION", "'BINTABLE'"), ("BITPIX", "8"), ("NAXIS", "2"), ("NAXIS1", "0"),
           ("NAXIS2", "0"), ("PCOUNT", str(2 ** 58 - 45)), ("GCOUNT", "64"), ("TFIELDS", "0")))

# Claims bounded by bytes (the sections fuzz target's out-of-memory): a blosc step whose output
# size the chain once left unset (expect 0), so the header's own claim sized the output and 3
# block buffers (4.9 GB). Chunk 0.0 of `zarr2/delta_i32.zarr` is made to claim 1635397127 bytes
# in one block of that size. Behind a delta filter the blosc step must yield exactly the
# filter's input (40 x 64 int32 = 10240 bytes); before zstd (a compressor listed as a filter)
# only a cap is known: zstd's input for 10240 bytes, at most 10240 + 10240/8 + 65536.
def blosc_claim(name, filters):
    s = store(name)
    meta = json.loads(src("zarr2/delta_i32.zarr/.zarray"))
    meta["filters"] = filters
    put(s + "/.zarray", json.dumps(meta, sort_keys=True).encode())
    raw = src("zarr2/delta_i32.zarr/0.0")
    raw[4:12] = struct.pack("<ii", 1635397127, 1635397127)  # nbytes, blocksize
    put(s + "/0.0", raw)


blosc_claim("zarr_blosc_claim_before_filter.zarr",
            [{"astype": "<i4", "dtype": "<i4", "id": "delta"}])
blosc_claim("zarr_blosc_claim_before_zstd.zarr", [{"id": "zstd", "level": 1}])
