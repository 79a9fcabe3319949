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
