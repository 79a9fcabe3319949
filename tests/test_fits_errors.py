"""test_fits_errors.py - bad FITS input gets a non-zero exit and a message naming file, HDU and
tile; never a crash. Each case mutates a copy of a corpus file."""
import os
import shutil
import struct
import tempfile

from corpus_util import CORPUS, fits_hdus, read_must_fail, report

tmp = tempfile.mkdtemp()
failures = []
total = 0


def copy(name):
    dst = os.path.join(tmp, os.path.basename(name))
    shutil.copy(os.path.join(CORPUS, "fits", name), dst)
    os.chmod(dst, 0o644)
    return dst


def expect_error(label, path, *args, want=()):
    """The read must fail with exit 1 and a message containing every string in want."""
    global total
    total += 1
    why = read_must_fail(path, args, want)
    if why:
        failures.append("%s: %s" % (label, why))


def patch(path, offset, data):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def set_card(path, key, value):
    """Rewrites the value of the first card `key` (in place, same width)."""
    raw = bytearray(open(path, "rb").read())
    for i in range(0, len(raw), 80):
        if raw[i:i + 8].decode("ascii").strip() == key:
            card = ("%-8s= %20s" % (key, value)).ljust(80)
            raw[i:i + 80] = card.encode("ascii")
            break
    open(path, "wb").write(bytes(raw))


# Truncated files: inside the header, inside the data.
p = copy("u_i16_primary.fits")
os.truncate(p, 1000)
expect_error("truncated header", p, want=("HDU 0",))
p = copy("u_i16_primary.fits")
os.truncate(p, 2880 + 5000)
expect_error("truncated data", p, want=("HDU 0", "truncated"))
p = copy("c_rice_i16_tiles.fits")
h = fits_hdus(open(p, "rb").read())
os.truncate(p, h[1][1] + 100)
expect_error("truncated compressed table", p, "--hdu", "1", want=("HDU 1",))

# A header without END.
p = copy("u_i16_primary.fits")
raw = bytearray(open(p, "rb").read())
i = raw.find(b"END" + b" " * 77)
raw[i:i + 3] = b"XND"
open(p, "wb").write(raw[:2880])
expect_error("no END", p, want=("END",))

# Unsupported BITPIX; HDU index out of range; not FITS at all.
p = copy("u_i16_primary.fits")
set_card(p, "BITPIX", "12")
expect_error("BITPIX 12", p, want=("BITPIX",))
expect_error("HDU out of range", os.path.join(CORPUS, "fits", "u_multi_hdu.fits"), "--hdu", "9",
             want=("HDU 9", "6 HDUs"))
p = os.path.join(tmp, "notfits.fits")
open(p, "wb").write(b"hello" * 1000)
expect_error("not FITS", p, want=("not a FITS",))
expect_error("missing file", os.path.join(tmp, "nope.fits"))

# A tile descriptor pointing past the heap (tile 3's offset).
for name, hdu in (("c_rice_i16_tiles.fits", 1), ("c_gzip2_i32_tiles.fits", 1)):
    p = copy(name)
    h = fits_hdus(open(p, "rb").read())
    dstart, cards = h[hdu][1], h[hdu][2]
    row = int(cards["NAXIS1"])
    patch(p, dstart + 3 * row + 4, struct.pack(">i", 0x7FFFFFF0))
    expect_error("descriptor past heap " + name, p, "--hdu", str(hdu), want=("HDU 1", "tile 3", "heap"))

# Corrupt compressed tiles: garbage in the heap of tile 2.
# (gzip tiles carry a CRC; RICE has no check, so RICE gets a truncated stream below.)
for name in ("c_gzip1_i16_rows.fits", "c_gzip2_i32_tiles.fits", "c_gzip1_f64_sd1.fits"):
    p = copy(name)
    h = fits_hdus(open(p, "rb").read())
    dstart, cards = h[1][1], h[1][2]
    row = int(cards["NAXIS1"])
    nrows = int(cards["NAXIS2"])
    theap = int(cards.get("THEAP", row * nrows))
    raw = open(p, "rb").read()
    n, off = struct.unpack(">ii", raw[dstart + 2 * row:dstart + 2 * row + 8])
    # Flip bytes in the middle of tile 2's stream (keeps the gzip header).
    patch(p, dstart + theap + off + 10, bytes(b ^ 0xA5 for b in raw[dstart + theap + off + 10:dstart + theap + off + n - 9]))
    expect_error("corrupt tile " + name, p, "--hdu", "1", want=("HDU 1", "tile 2"))

# A tile that decodes to the wrong size: shrink tile 0's stream length.
p = copy("c_gzip1_i16_rows.fits")
h = fits_hdus(open(p, "rb").read())
dstart = h[1][1]
raw = open(p, "rb").read()
n, off = struct.unpack(">ii", raw[dstart:dstart + 8])
patch(p, dstart, struct.pack(">i", n - 20))
expect_error("short gzip tile", p, "--hdu", "1", want=("HDU 1", "tile 0"))

# RICE tiles cut short run past their end.
for name in ("c_rice_i16_tiles.fits", "c_rice_f32_sd1.fits", "c_rice_u8_rows.fits"):
    p = copy(name)
    h = fits_hdus(open(p, "rb").read())
    dstart, row = h[1][1], int(h[1][2]["NAXIS1"])
    raw = open(p, "rb").read()
    n, off = struct.unpack(">ii", raw[dstart + 2 * row:dstart + 2 * row + 8])
    patch(p, dstart + 2 * row, struct.pack(">i", n // 3))
    expect_error("short RICE tile " + name, p, "--hdu", "1", want=("HDU 1", "tile 2", "RICE"))

# ZNAXIS / tiles inconsistent with the table.
p = copy("c_rice_i16_tiles.fits")
set_card(p, "ZTILE1", "7")
expect_error("tile count mismatch", p, "--hdu", "1", want=("HDU 1", "tiles"))

# Malformed and out-of-range sections.
good = os.path.join(CORPUS, "fits", "u_i16_primary.fits")
for spec, why in (("1:2:3:4", "selection"), ("abc", "selection"), ("::0", "step"),
                  ("0,0,0", "too many"), ("...,...", "ellipsis"), ("5:a", "selection")):
    expect_error("section %r" % spec, good, "--section", spec, want=(why,))
expect_error("index out of range", good, "--section", "500,0", want=("500",))

shutil.rmtree(tmp)
report(failures, total)
