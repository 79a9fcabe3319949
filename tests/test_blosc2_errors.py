"""test_blosc2_errors.py - bad Blosc2 input gets exit status 1 and a one-line message naming the
file (and the chunk, when one chunk is at fault); never a crash (the sanitizer build runs this
too). Cases damage copies of corpus frames, and frames this test writes itself (zlib chunks large
enough that small sections take the part-fetch path): bad magic, truncation, lengths that lie,
index and chunk offsets beyond the file, chunk headers that lie about sizes, corrupt streams,
unknown codec and filter ids, missing and short chunk files of sparse frames."""
import os
import shutil
import struct
import subprocess
import tempfile
import zlib

import numpy as np

from corpus_util import BIN, CORPUS, read_must_fail, report

tmp = tempfile.mkdtemp()
failures = []
total = 0


def expect_error(label, path, section=None, want=()):
    """The read must fail with exit 1 and one line holding the file name and every `want`."""
    global total
    total += 1
    why = read_must_fail(path, ["--section", section] if section else [], want)
    if why:
        failures.append("%s: %s" % (label, why))


def copy(name):
    src = os.path.join(CORPUS, "blosc2", name)
    dst = os.path.join(tmp, name)
    if os.path.isdir(src):
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(src, dst)
        for f in os.listdir(dst):
            os.chmod(os.path.join(dst, f), 0o644)
    else:
        shutil.copy(src, dst)
        os.chmod(dst, 0o644)
    return dst


def patch(path, offset, data):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def frame_info(raw):
    header_len = struct.unpack(">i", raw[11:15])[0]
    cbytes = struct.unpack(">q", raw[39:47])[0]
    return header_len, cbytes


def chunk_positions(raw):
    """Chunk starts of a frame whose chunks were appended in order (no specials, no rewrites)."""
    header_len, cbytes = frame_info(raw)
    pos, p = [], header_len
    while p < header_len + cbytes:
        pos.append(p)
        p += struct.unpack("<i", raw[p + 12:p + 16])[0]
    assert p == header_len + cbytes
    return pos


def memcpyed_chunk(payload, typesize):
    """A Blosc2 chunk storing payload raw after its 32-byte header."""
    n = len(payload)
    hdr = bytearray(32)
    hdr[0], hdr[1], hdr[2], hdr[3] = 5, 1, 0x05 | 0x02 | 0x10, typesize
    hdr[4:16] = struct.pack("<iii", n, n, 32 + n)
    return bytes(hdr) + payload


def with_index(raw, offsets):
    """The frame with its chunk-offsets index replaced (stored raw) and its length updated."""
    header_len, cbytes = frame_info(raw)
    frame_len = struct.unpack(">Q", raw[16:24])[0]
    tlen = struct.unpack(">I", raw[frame_len - 22:frame_len - 18])[0]
    index = memcpyed_chunk(struct.pack("<%dq" % len(offsets), *offsets), 8)
    out = bytearray(raw[:header_len + cbytes]) + index + raw[frame_len - tlen:frame_len]
    out[16:24] = struct.pack(">Q", len(out))
    return bytes(out)


def zlib_chunk(data, blocksize, typesize):
    """A Blosc2 chunk of zlib streams, one per block, no filters."""
    n = len(data)
    nblocks = (n + blocksize - 1) // blocksize
    hdr = bytearray(32)
    hdr[0], hdr[1], hdr[2], hdr[3] = 5, 1, 0x05 | 0x10 | (3 << 5), typesize
    body, starts = bytearray(), []
    base = 32 + 4 * nblocks
    for k in range(nblocks):
        starts.append(base + len(body))
        block = data[k * blocksize:(k + 1) * blocksize]
        c = zlib.compress(block, 1)
        if len(c) >= len(block):  # as blosc does: a stream that does not shrink is stored raw
            c = block
        body += struct.pack("<i", len(c)) + c
    hdr[4:16] = struct.pack("<iii", n, blocksize, base + len(body))
    return bytes(hdr) + struct.pack("<%di" % nblocks, *starts) + bytes(body)


def write_frame(path, arr, chunks, blocks):
    """A contiguous b2nd frame of zlib chunks, as c-blosc2 lays frames out."""
    nd, ts = arr.ndim, arr.itemsize
    pad = [-(-c // b) * b for c, b in zip(chunks, blocks)]
    grid = [-(-s // c) for s, c in zip(arr.shape, chunks)]
    data, offs = bytearray(), []
    for ci in np.ndindex(*grid):
        chunk = np.zeros(pad, arr.dtype)
        sl = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(ci, chunks, arr.shape))
        chunk[tuple(slice(0, x.stop - x.start) for x in sl)] = arr[sl]
        # b2nd layout: blocks in C order, each block C order
        bgrid = [p // b for p, b in zip(pad, blocks)]
        lay = chunk.reshape([v for g, b in zip(bgrid, blocks) for v in (g, b)])
        lay = lay.transpose(list(range(0, 2 * nd, 2)) + list(range(1, 2 * nd, 2)))
        offs.append(len(data))
        data += zlib_chunk(np.ascontiguousarray(lay).tobytes(), int(np.prod(blocks)) * ts, ts)
    index = zlib_chunk(struct.pack("<%dq" % len(offs), *offs), 8 * len(offs), 8)
    dt = arr.dtype.str.encode()
    meta = bytes([0x97, 0, nd, 0x90 + nd]) + b"".join(b"\xd3" + struct.pack(">q", s) for s in arr.shape)
    meta += bytes([0x90 + nd]) + b"".join(b"\xd2" + struct.pack(">i", c) for c in chunks)
    meta += bytes([0x90 + nd]) + b"".join(b"\xd2" + struct.pack(">i", b) for b in blocks)
    meta += b"\x00\xdb" + struct.pack(">i", len(dt)) + dt
    chunk_nbytes = int(np.prod(pad)) * ts
    h = bytearray(b"\x9e\xa8b2frame\x00\xd2\0\0\0\0\xcf" + bytes(8) + b"\xa4\x12\x00\x34\x03")
    h += b"\xd3" + struct.pack(">q", chunk_nbytes * len(offs)) + b"\xd3" + struct.pack(">q", len(data))
    h += b"\xd2" + struct.pack(">i", ts) + b"\xd2" + struct.pack(">i", int(np.prod(blocks)) * ts)
    h += b"\xd2" + struct.pack(">i", chunk_nbytes) + b"\xd1\0\1\xd1\0\1\xc2\xd8\x06" + bytes(16)
    idx0 = len(h)
    h += b"\x93\xcd\0\0\xde\0\x01\xa4b2nd\xd2\0\0\0\0"
    h[idx0 + 2:idx0 + 4] = struct.pack(">H", len(h) - idx0)
    h += b"\xdc\0\x01"
    h[len(h) - 7:len(h) - 3] = struct.pack(">i", len(h))
    h += b"\xc6" + struct.pack(">i", len(meta)) + meta
    trailer = b"\x94\x01\x93\xcd\0\x06\xde\0\0\xdc\0\0\xce" + struct.pack(">I", 35) + b"\xd8" + bytes(17)
    h[11:15] = struct.pack(">i", len(h))
    h[16:24] = struct.pack(">Q", len(h) + len(data) + len(index) + len(trailer))
    with open(path, "wb") as f:
        f.write(bytes(h) + bytes(data) + index + trailer)


# ---- corpus frames, damaged ----
name = "zstd_nofilter_f8_2d.b2nd"
raw = open(os.path.join(CORPUS, "blosc2", name), "rb").read()
header_len, cbytes = frame_info(raw)
pos = chunk_positions(raw)
offsets = [p - header_len for p in pos]

p = copy(name)
patch(p, 4, b"X")
expect_error("bad magic", p, want=("bad magic",))

p = copy(name)
patch(p, 10, b"\x00")
expect_error("header length marker", p, want=("frame header",))

p = copy(name)
os.truncate(p, len(raw) * 3 // 5)
expect_error("truncated frame", p, want=("truncated",))

p = copy(name)
os.truncate(p, 40)
expect_error("truncated to 40 bytes", p, want=("truncated",))

p = copy(name)
patch(p, 11, struct.pack(">i", len(raw) + 100))
expect_error("header longer than the frame", p, want=("frame header",))

p = copy(name)
patch(p, len(raw) - 23, b"\x00")
expect_error("trailer length marker", p, want=("trailer",))

p = copy(name)
patch(p, 39, struct.pack(">q", 1 << 40))
expect_error("chunks section beyond the frame", p, want=("truncated",))

p = copy(name)
patch(p, header_len + cbytes + 12, struct.pack("<i", 1 << 30))
expect_error("index chunk lies about its size", p, want=("chunk-offsets index",))

for label, k, value, want in [
        ("index offset beyond the file", 3, 10 ** 9, ("chunk 3", "beyond")),
        ("index offset past the chunks", 5, cbytes + 10, ("chunk 5", "beyond")),
        ("index special of unknown kind", 2, -(1 << 63) | (7 << 56), ("chunk 2", "special")),
        ("index offset off by one", 7, offsets[7] + 1,
         ("chunk 7",))]:
    o = list(offsets)
    o[k] = value
    p = os.path.join(tmp, "idx_" + name)
    open(p, "wb").write(with_index(raw, o))
    expect_error(label, p, want=want)

# chunk headers that lie, corrupt streams, unknown codecs and filters (chunk k of the corpus
# frame, read whole and through a section holding only that chunk)
cases = [
    ("chunk cbytes beyond the file", 3, 12, struct.pack("<i", 1 << 29), ("chunk 3",)),
    ("chunk cbytes below its header", 3, 12, struct.pack("<i", 8), ("chunk 3",)),
    ("chunk nbytes lie", 4, 4, struct.pack("<i", 12345), ("chunk 4",)),
    ("chunk blocksize lie", 5, 8, struct.pack("<i", 96), ("chunk 5",)),
    ("chunk typesize 0", 6, 3, b"\x00", ("chunk 6",)),
    ("chunk version 9", 1, 0, b"\x09", ("chunk 1",)),
    ("unknown codec", 2, 2, bytes([0x05 | 0x10 | (6 << 5)]), ("chunk 2", "codec")),
    ("snappy codec", 2, 2, bytes([0x05 | 0x10 | (2 << 5)]), ("chunk 2", "snappy")),
    ("unknown filter", 6, 21, b"\x63", ("chunk 6", "filter 99")),
    ("block start beyond the chunk", 7, 32, struct.pack("<i", 1 << 20), ("chunk 7", "block")),
    ("corrupt stream", 1, 200, b"\xff" * 300, ("chunk 1",)),
]
grid = (3, 3)  # (120, 90) in chunks of (50, 40)
for label, k, off, data, want in cases:
    p = copy(name)
    patch(p, pos[k] + off, data)
    expect_error(label, p, want=want)
    ci = (k // grid[1], k % grid[1])
    expect_error(label + " (section)", p, "%d,%d" % (ci[0] * 50 + 3, ci[1] * 40 + 5), want=want)

# sparse frames: a chunk file missing, one cut short, a bad index in chunks.b2frame
sp = copy("sparse_lz4_shuffle_f4_2d.b2nd")
os.remove(os.path.join(sp, "00000003.chunk"))
expect_error("sparse: missing chunk file", sp, want=("chunk 3", "00000003.chunk"))
sp = copy("sparse_lz4_shuffle_f4_2d.b2nd")
os.truncate(os.path.join(sp, "00000004.chunk"), 100)
expect_error("sparse: short chunk file", sp, "70,70", want=("chunk 4",))
sp = copy("sparse_lz4_shuffle_f4_2d.b2nd")
patch(os.path.join(sp, "chunks.b2frame"), 4, b"Q")
expect_error("sparse: bad magic", sp, want=("bad magic",))

# the b2nd metalayer
p = copy(name)
m = raw.find(b"\xa4b2nd\xd2")
moff = struct.unpack(">i", raw[m + 6:m + 10])[0]
patch(p, moff + 5 + 2, b"\x11")  # ndim 17
expect_error("b2nd with 17 dimensions", p, want=("b2nd metalayer",))
p = copy(name)
patch(p, moff + 5 + 3, b"\x95")  # shape array marker disagrees with ndim
expect_error("b2nd shape marker", p, want=("b2nd metalayer",))

# ---- frames written here: large zlib chunks, read through small sections (part fetch) ----
rng = np.random.default_rng(7)
arr = (rng.integers(0, 60, size=(400, 300)) + np.arange(300)).astype("<i4")
big = os.path.join(tmp, "big.b2nd")
write_frame(big, arr, (200, 300), (10, 50))
got = subprocess.run([BIN, "read", big, "-o", os.path.join(tmp, "ok.npy")], capture_output=True,
                     text=True)
total += 1
if got.returncode != 0 or not np.array_equal(np.load(os.path.join(tmp, "ok.npy")), arr):
    failures.append("self-written frame does not read back: %s" % got.stderr.strip())
braw = open(big, "rb").read()
bpos = chunk_positions(braw)
nblocks = 20 * 6
for label, off, data, want in [
        ("part: block start beyond the chunk", 32 + 4 * 37, struct.pack("<i", 1 << 24), ("chunk 1",)),
        ("part: block start inside the table", 32 + 4 * 37, struct.pack("<i", 40), ("chunk 1",)),
        ("part: corrupt stream", None, None, ("chunk 1",)),
        ("part: chunk cbytes beyond the file", 12, struct.pack("<i", 1 << 29), ("chunk 1",)),
        ("part: chunk nbytes lie", 4, struct.pack("<i", 1000), ("chunk 1",))]:
    p = os.path.join(tmp, "bigbad.b2nd")
    shutil.copy(big, p)
    if off is None:
        start = struct.unpack("<i", braw[bpos[1] + 32 + 4 * 37:bpos[1] + 36 + 4 * 37])[0]
        off, data = start + 8, b"\x13" * 40
    patch(p, bpos[1] + off, data)
    # block 37 of chunk 1: rows 200 + 6*10.., columns 50 * 1..
    expect_error(label, p, "265,60", want=want)

shutil.rmtree(tmp, ignore_errors=True)
report(failures, total)
