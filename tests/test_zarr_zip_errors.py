"""test_zarr_zip_errors.py - a zip store whose directory or entries are corrupt gets exit 1 and
one line naming the file (and, for a chunk's entry, the chunk); never a crash, a hang or a read
outside the file. Each case mutates a small valid zip store written here with zipfile."""
import json
import os
import struct
import tempfile
import zipfile

import numpy as np

from corpus_util import read_must_fail, report, run_read

tmp = tempfile.mkdtemp()
failures = []
total = 0
serial = 0

META = {"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 0,
        "order": "C", "compressor": None, "filters": None}
VALUES = np.arange(6, dtype="<i4") * 7 - 5


def store():
    """A fresh zip: .zarray and chunk 0 stored, chunk 1 deflated."""
    global serial
    serial += 1
    path = os.path.join(tmp, "%02d.zarr.zip" % serial)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(".zarray", json.dumps(META))
        zf.writestr("0", VALUES[:3].tobytes())
        zf.writestr(zipfile.ZipInfo("1"), VALUES[3:].tobytes(), compress_type=zipfile.ZIP_DEFLATED)
    return path


def layout(raw):
    """End record offset, central directory offset, and each entry's (name, central offset,
    local offset)."""
    eocd = raw.rfind(b"PK\x05\x06")
    count, cd_off = struct.unpack("<H", raw[eocd + 10:eocd + 12])[0], \
        struct.unpack("<I", raw[eocd + 16:eocd + 20])[0]
    p, entries = cd_off, {}
    for _ in range(count):
        nl, xl, cl = struct.unpack("<HHH", raw[p + 28:p + 34])
        name = raw[p + 46:p + 46 + nl].decode()
        entries[name] = (p, struct.unpack("<I", raw[p + 42:p + 46])[0])
        p += 46 + nl + xl + cl
    return eocd, cd_off, entries


def mutate(fn):
    path = store()
    raw = bytearray(open(path, "rb").read())
    fn(raw, *layout(bytes(raw)))
    with open(path, "wb") as f:
        f.write(bytes(raw))
    return path


def expect_error(label, path, want=()):
    global total
    total += 1
    why = read_must_fail(path, (), want)
    if why:
        failures.append("%s: %s" % (label, why))


def put(raw, at, fmt, *v):
    raw[at:at + struct.calcsize(fmt)] = struct.pack(fmt, *v)


# the unharmed store reads (else every error below could be for another reason)
total += 1
got, rc, err = run_read(store())
if rc or not np.array_equal(got, VALUES):
    failures.append("valid zip store: %s" % (err.strip() if rc else "wrong values %r" % got))

p = store()
with open(p, "r+b") as f:
    f.truncate(os.path.getsize(p) // 2)
expect_error("truncated: no end record", p, want=("zip", "end of central directory"))

expect_error("directory offset past the file",
             mutate(lambda r, e, c, ent: put(r, e + 16, "<I", len(r) + 100)),
             want=("central directory", "outside the file"))
expect_error("directory size past its end record",
             mutate(lambda r, e, c, ent: put(r, e + 12, "<I", 1 << 30)),
             want=("central directory", "outside the file"))
expect_error("more entries than the directory holds",
             mutate(lambda r, e, c, ent: (put(r, e + 8, "<H", 5000), put(r, e + 10, "<H", 5000))),
             want=("entries cannot fit",))
expect_error("zip64 count without a locator",
             mutate(lambda r, e, c, ent: put(r, e + 10, "<H", 0xFFFF)),
             want=("zip64",))
expect_error("directory entry signature",
             mutate(lambda r, e, c, ent: put(r, ent["0"][0], "<I", 0x12345678)),
             want=("central directory entry", "malformed"))
expect_error("directory entry name runs past the directory",
             mutate(lambda r, e, c, ent: put(r, ent["1"][0] + 28, "<H", 60000)),
             want=("runs past",))
expect_error("entry offset past the file",
             mutate(lambda r, e, c, ent: put(r, ent["0"][0] + 42, "<I", len(r) + 1)),
             want=("'0'", "outside the file"))
expect_error("entry size past the file",
             mutate(lambda r, e, c, ent: put(r, ent["1"][0] + 20, "<I", 0x7FFFFFF0)),
             want=("'1'", "outside the file"))
expect_error("zip64 size field missing",
             mutate(lambda r, e, c, ent: put(r, ent["0"][0] + 20, "<I", 0xFFFFFFFF)),
             want=("'0'", "zip64"))
expect_error("local header signature of a chunk",
             mutate(lambda r, e, c, ent: put(r, ent["0"][1], "<I", 0)),
             want=("no local header", "chunk 0"))
expect_error("local header extra length runs past the file",
             mutate(lambda r, e, c, ent: put(r, ent["1"][1] + 28, "<H", 65535)),
             want=("runs past the end", "chunk 1"))
expect_error("unsupported method",
             mutate(lambda r, e, c, ent: put(r, ent["1"][0] + 10, "<H", 12)),
             want=("compression method 12", "chunk 1"))
expect_error("encrypted entry",
             mutate(lambda r, e, c, ent: put(r, ent["0"][0] + 8, "<H", 1)),
             want=("encrypted", "chunk 0"))
expect_error("metadata entry's local header",
             mutate(lambda r, e, c, ent: put(r, ent[".zarray"][1], "<I", 0)),
             want=("no local header",))


def corrupt_deflate(r, e, c, ent):
    at = ent["1"][1] + 30 + struct.unpack("<H", r[ent["1"][1] + 26:ent["1"][1] + 28])[0]
    r[at] = 0xFF  # an invalid block type


expect_error("corrupt deflated chunk", mutate(corrupt_deflate), want=("chunk 1",))

report(failures, total)
