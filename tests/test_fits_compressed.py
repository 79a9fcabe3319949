"""test_fits_compressed.py - FITS files compressed whole, as archives ship them: astropy writes
multi-HDU files (plain, scaled and tile-compressed images, with EXTNAME/EXTVER); Python's gzip
and bz2 modules (one member, several members, zero padding) and compress(1) (.Z) compress them;
tessera must read every HDU, by index and by EXTNAME[,EXTVER], whole and in sections, as
astropy reads the same file; broken archives must fail with one line naming the file.
Seed: TSR_SEED or time; printed for reproducing a failure."""
import bz2
import gzip
import os
import random
import shutil
import subprocess
import tempfile
import time
import warnings

import numpy as np
from astropy.io import fits

from corpus_util import BIN, read_must_fail, report, run_read, same

warnings.simplefilter("ignore")
seed = int(os.environ.get("TSR_SEED", int(time.time())))
print("seed", seed)
rng = random.Random(seed)
nprng = np.random.default_rng(seed)
tmp = tempfile.mkdtemp()
failures = []
total = 0


def rand_section(shape):
    items = []
    for n in shape:
        if rng.random() < 0.2:
            items.append(str(rng.randrange(-n, n)))
        else:
            a, b = rng.randrange(-n - 2, n + 3), rng.randrange(-n - 2, n + 3)
            items.append("%d:%d:%d" % (a, b, rng.choice([1, 1, 2, 3, -1, -4])))
    return ",".join(items)


# (index, name as --hdu gives it, EXTVER or 0) of the HDUs write_fits writes
HDUS = [(0, "PRIMARY", 0), (1, "SCI", 1), (2, "err", 0), (3, "SCI", 2), (4, "SCALED", 0),
        (5, "RICE", 0), (6, "quant", 0), (7, "GZIP2", 0)]


def write_fits(path):
    """A file of several image HDUs (HDUS), two sharing a name."""
    shape = (rng.randrange(20, 300), rng.randrange(20, 200))
    smooth = np.add.outer(np.arange(shape[0]), np.arange(shape[1])).astype(np.int16)
    noise = nprng.integers(-3000, 3000, shape, dtype=np.int16)
    scaled = fits.ImageHDU(nprng.integers(0, 200, shape, dtype=np.int16), name="SCALED")
    scaled.scale("float32", bscale=0.25, bzero=10.0)
    hdus = [fits.PrimaryHDU(smooth),
            fits.ImageHDU(noise, name="SCI", ver=1),
            fits.ImageHDU(nprng.normal(0, 1, shape).astype(np.float32), name="ERR"),
            fits.ImageHDU(noise[::-1].copy(), name="SCI", ver=2),
            scaled,
            fits.CompImageHDU(noise, name="RICE", compression_type="RICE_1",
                              tile_size=[shape[1], rng.randrange(1, 40)]),
            fits.CompImageHDU(nprng.normal(100, 5, shape).astype(np.float32), name="QUANT",
                              compression_type="RICE_1", quantize_level=16.0,
                              dither_seed=rng.randrange(1, 10000)),
            fits.CompImageHDU(nprng.normal(0, 1, shape), name="GZIP2",
                              compression_type="GZIP_2", quantize_level=0.0)]
    fits.HDUList(hdus).writeto(path, overwrite=True)


def gzip_members(raw, n):
    cuts = sorted(rng.randrange(1, len(raw)) for _ in range(n - 1))
    parts = [raw[a:b] for a, b in zip([0] + cuts, cuts + [len(raw)])]
    return b"".join(gzip.compress(p, compresslevel=rng.choice([1, 6, 9])) for p in parts)


def compress_z(src, bits):
    # (-f: write it even where it does not shrink, which compress then exits 2 for)
    p = subprocess.run(["compress", "-c", "-f", "-b", str(bits), src], capture_output=True)
    assert p.returncode in (0, 2) and p.stdout[:2] == b"\x1f\x9d", p.stderr
    return p.stdout


def check(path, plain, hdus, label):
    """Every HDU of path, as astropy reads plain (the same file, uncompressed)."""
    global total
    with fits.open(plain) as hl:
        for index, name, ver in hdus:
            want = hl[index].data
            want = np.ascontiguousarray(want).astype(want.dtype.newbyteorder("="))
            picks = [str(index), name + ("," + str(ver) if ver else "")]
            # whole by index, and a section by name (every HDU holds other values, so a
            # wrong pick shows)
            for pick, sec in [(picks[0], None), (picks[1], rand_section(want.shape))]:
                total += 1
                w = want if sec is None else np.array(want[eval("np.s_[" + sec + "]")])
                got, rc, err = run_read(path, pick, sec)
                tag = "%s --hdu %s --section %s" % (label, pick, sec)
                if got is None:
                    failures.append("%s: exit %d: %s" % (tag, rc, err.strip()))
                    continue
                why = same(got, w)
                if why:
                    failures.append("%s: %s" % (tag, why))


for i in range(2):
    plain = os.path.join(tmp, "f%d.fits" % i)
    # astropy 5.2.1's compressor corrupts its heap on some inputs: write in a child process
    pid = os.fork()
    if pid == 0:
        try:
            write_fits(plain)
            os._exit(0)
        except Exception:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        failures.append("case %d: astropy could not write the file (status %d)" % (i, status))
        continue
    hdus = HDUS if i == 0 else rng.sample(HDUS, 4)
    raw = open(plain, "rb").read()
    variants = {
        "gz": gzip.compress(raw),
        "members.gz": gzip_members(raw, rng.randrange(2, 6)),
        "padded.gz": gzip.compress(raw) + b"\0" * rng.randrange(1, 3000),
        "bz2": bz2.compress(raw, rng.randrange(1, 10)),
        "streams.bz2": bz2.compress(raw[:len(raw) // 3]) + bz2.compress(raw[len(raw) // 3:]),
        "Z": compress_z(plain, rng.choice([12, 14, 16])),
    }
    for suffix, data in variants.items():
        path = os.path.join(tmp, "f%d.fits.%s" % (i, suffix))
        with open(path, "wb") as f:
            f.write(data)
        label = "case %d .%s" % (i, suffix)
        print(label, flush=True)
        check(path, plain, hdus, label)
    # astropy itself reads the .gz and .bz2 files as we do (not only their uncompressed bytes)
    for suffix in ("gz", "bz2"):
        path = os.path.join(tmp, "f%d.fits.%s" % (i, suffix))
        with fits.open(path) as hl:
            want = np.ascontiguousarray(hl["SCI", 2].data)
        got, rc, err = run_read(path, "SCI,2")
        total += 1
        why = "exit %d: %s" % (rc, err.strip()) if got is None else same(got, want.astype(want.dtype.newbyteorder("=")))
        if why:
            failures.append("case %d .%s against astropy reading it: %s" % (i, suffix, why))
    # tessera info lists a compressed file's HDUs (and their metadata) as the plain file's
    want_info = subprocess.run([BIN, "info", "--json", plain], capture_output=True, text=True)
    for suffix in ("gz", "bz2", "Z"):
        path = os.path.join(tmp, "f%d.fits.%s" % (i, suffix))
        got_info = subprocess.run([BIN, "info", "--json", path], capture_output=True, text=True)
        total += 1
        strip = lambda t: t.replace(path, "P").replace(plain, "P")
        if got_info.returncode or strip(got_info.stdout) != strip(want_info.stdout):
            failures.append("case %d .%s: tessera info differs from the plain file's: %s" % (
                i, suffix, got_info.stderr.strip() or got_info.stdout[:300]))
    # the name tells nothing: a gzip file without the suffix reads the same
    bare = os.path.join(tmp, "bare%d" % i)
    shutil.copy(os.path.join(tmp, "f%d.fits.gz" % i), bare)
    check(bare, plain, hdus[:2], "case %d no suffix" % i)

# Broken archives: one line naming the file (and what is wrong), exit 1.
raw = open(os.path.join(tmp, "f0.fits"), "rb").read()
gz = gzip.compress(raw)
bz = bz2.compress(raw)
z = compress_z(os.path.join(tmp, "f0.fits"), 16)
flipped = bytearray(gz)
flipped[len(gz) // 2] ^= 0x55
bad = {
    "trunc.fits.gz": (gz[:len(gz) // 2], ["gzip", "truncated or corrupt"]),
    "notrailer.fits.gz": (gz[:-4], ["gzip"]),
    "flipped.fits.gz": (bytes(flipped), ["gzip"]),
    "garbage.fits.gz": (gz + b"not gzip at all", ["not gzip data"]),
    "trunc.fits.bz2": (bz[:len(bz) // 2], ["bzip2", "truncated"]),
    "flipped.fits.bz2": (bz[:100] + bytes([bz[100] ^ 0xff]) + bz[101:], ["bzip2"]),
    # (LZW has no end mark: only the FITS layer sees the missing HDUs)
    "trunc.fits.Z": (z[:len(z) // 2], []),
    "nine.fits.Z": (compress_z(os.path.join(tmp, "f0.fits"), 10)[:3] + b"\xff" * 50, ["compress"]),
    "header.fits.gz": (gzip.compress(raw[:2880 * 2]), []),
    "text.gz": (gzip.compress(b"hello, not FITS\n" * 300), ["gzip-compressed", "SIMPLE"]),
    "empty.gz": (gzip.compress(b""), ["gzip-compressed"]),
}
for name, (data, want) in bad.items():
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(data)
    total += 1
    why = read_must_fail(path, ["--hdu", "GZIP2"], want)  # (the last HDU)
    if why:
        failures.append("%s: %s" % (name, why))

# Names that are not there, and --hdu values that are none of index, NAME, NAME,VER.
path = os.path.join(tmp, "f0.fits.gz")
for args, want in [(["--hdu", "NOPE"], ["NOPE", "SCI,2"]), (["--hdu", "SCI,3"], ["EXTVER 3"]),
                   (["--hdu", "99"], ["out of range"])]:
    total += 1
    why = read_must_fail(path, args, want)
    if why:
        failures.append("%s: %s" % (args, why))
for value in ["SCI,0", "SCI,", "SCI,x", "-1", "1x", "", ",2", "SCI,2,3"]:
    total += 1
    p = subprocess.run([BIN, "read", path, "--hdu", value, "-o", os.path.join(tmp, "o.npy")],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 2 or "--hdu" not in p.stderr:
        failures.append("--hdu %r: exit %d (want 2, naming --hdu): %s" % (value, p.returncode, p.stderr.strip()))

# Into GPU memory (where there is a CUDA device): the CUDA engine must read the decompressed
# bytes (the pool's pread of the memory file), never the compressed file by its path, and say so.
path, plain = os.path.join(tmp, "f0.fits.gz"), os.path.join(tmp, "f0.fits")
probe = subprocess.run([BIN, "read", plain, "--hdu", "1", "--device", "cuda", "-o", "/dev/null"],
                       capture_output=True, text=True)
if probe.returncode != 0:
    print("GPU reads not tested: %s" % probe.stderr.strip())
else:
    with fits.open(plain) as hl:
        for index, name, ver in HDUS:
            want = np.ascontiguousarray(hl[index].data)
            want = want.astype(want.dtype.newbyteorder("="))
            for extra in (["--device", "cuda"], ["--device", "cuda", "--storage", "posix"],
                          ["--device", "cuda", "--decoder", "cpu"],
                          ["--device", "cuda", "--storage", "mock-device", "--decoder", "gpu"]):
                total += 1
                got, rc, err = run_read(path, index, None, extra=extra)
                why = "exit %d: %s" % (rc, err.strip()) if got is None else same(got, want)
                if why:
                    failures.append("GPU %s HDU %d: %s" % (" ".join(extra), index, why))
    total += 1
    p = subprocess.run([BIN, "read", path, "--hdu", "1", "--device", "cuda", "--receipt", "-o",
                        os.path.join(tmp, "o.npy")], capture_output=True, text=True)
    if p.returncode != 0 or "gzip-compressed, decompressed in memory" not in p.stdout:
        failures.append("GPU receipt does not say why cuFile was passed over: %s %s" % (p.stdout, p.stderr))
    total += 1
    why = read_must_fail(path, ["--hdu", "1", "--device", "cuda", "--storage", "cufile"],
                         ["cufile storage cannot read it"])
    if why:
        failures.append("GPU --storage cufile: %s" % why)

shutil.rmtree(tmp)
report(failures, total)
