"""test_fits_roundtrip.py - Debian's astropy writes fresh FITS files (plain and tile-compressed,
random shapes, dtypes, tiles, quantization); tessera must read what astropy reads, whole and in
random sections. Seed: TSR_SEED or time; printed for reproducing a failure."""
import os
import random
import shutil
import tempfile
import time
import warnings

import numpy as np
from astropy.io import fits

from corpus_util import report, run_read, same

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
        r = rng.random()
        if r < 0.15 and n > 0:
            items.append(str(rng.randrange(-n, n)))
        elif r < 0.3:
            items.append(":")
        else:
            a, b = rng.randrange(-n - 2, n + 3), rng.randrange(-n - 2, n + 3)
            step = rng.choice([1, 1, 1, 2, 3, -1, -2, 7])
            items.append("%d:%d:%d" % (a, b, step))
    if rng.random() < 0.2 and len(items) > 1:
        items = ["..."] + items[1:]
    if rng.random() < 0.1:
        items.insert(rng.randrange(len(items) + 1), "None")
    return ",".join(items)


def make_data(dtype, shape):
    if dtype.kind == "f":
        d = nprng.normal(1000, 30, shape).astype(dtype)
        if rng.random() < 0.3 and d.size:
            d.flat[nprng.integers(0, d.size, max(1, d.size // 50))] = np.nan
        return d
    info = np.iinfo(dtype)
    if rng.random() < 0.5:
        lo, hi = max(info.min, -5000), min(info.max, 5000)
        return nprng.integers(lo, hi, shape, dtype=dtype, endpoint=True)
    return nprng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def check(path, hdu, label):
    global total
    with fits.open(path) as hl:
        want = hl[hdu].data
        want = np.ascontiguousarray(want).astype(want.dtype.newbyteorder("="))
    for sec in [None] + [rand_section(want.shape) for _ in range(3)]:
        total += 1
        if sec is not None:
            try:
                w = np.array(want[eval("np.s_[" + sec + "]", {"np": np})], order="C")
            except IndexError:
                continue
        else:
            w = want
        got, rc, err = run_read(path, hdu, sec)
        if got is None:
            failures.append("%s section %s: exit %d: %s" % (label, sec, rc, err.strip()))
            continue
        why = same(got, w)
        if why:
            failures.append("%s section %s: %s" % (label, sec, why))


for i in range(40):
    ndim = rng.choice([1, 2, 2, 2, 3])
    shape = tuple(rng.randrange(1, 90) for _ in range(ndim))
    comp = rng.choice(["none", "none", "GZIP_1", "GZIP_2", "RICE_1", "RICE_1", "HCOMPRESS_1"])
    if comp == "HCOMPRESS_1" and (ndim != 2 or min(shape) < 4):
        comp = "RICE_1"
    dts = ["uint8", "int16", "int32", "float32", "float64", "uint16", "uint32"]
    if comp == "none":
        dts += ["int64", "int8", "uint64"]
    dtype = np.dtype(rng.choice(dts))
    if comp == "HCOMPRESS_1" and dtype.kind == "f":
        dtype = np.dtype("int16")
    data = make_data(dtype, shape)
    path = os.path.join(tmp, "f%d.fits" % i)
    label = "case %d (%s %s %s)" % (i, comp, dtype, shape)
    try:
        if comp == "none":
            hdus = [fits.PrimaryHDU(data)]
            if rng.random() < 0.3 and dtype.kind in "iu" and dtype.itemsize <= 2:
                hdus[0] = fits.PrimaryHDU(data.astype(np.int16))
                hdus[0].scale("float32", bscale=rng.choice([0.5, 2.0, 0.1]), bzero=rng.choice([0.0, 100.0, -3.5]))
            hdu = 0
        else:
            tile = tuple(rng.choice([n, rng.randrange(1, n + 1), 1]) for n in shape)
            if comp == "HCOMPRESS_1":
                tile = (max(4, min(shape[0], rng.choice([4, 16, shape[0]]))), shape[1])
            kw = dict(compression_type=comp, tile_size=list(tile[::-1]))
            if dtype.kind == "f":
                q = rng.choice([0, 4, 16, -0.01])
                kw["quantize_level"] = q if q else 0.0
                kw["quantize_method"] = rng.choice([-1, 1, 2]) if q else -1
                kw["dither_seed"] = rng.randrange(1, 10000)
                if q == 0 and comp == "RICE_1":
                    kw["compression_type"] = "GZIP_2"
            hdus = [fits.PrimaryHDU(), fits.CompImageHDU(data, **kw)]
            hdu = 1
        # astropy 5.2.1's compressor corrupts its heap on some quantized inputs: write in a
        # child process, and skip the case when the peer itself crashes.
        pid = os.fork()
        if pid == 0:
            try:
                fits.HDUList(hdus).writeto(path, overwrite=True)
                os._exit(0)
            except Exception:
                os._exit(3)
        _, status = os.waitpid(pid, 0)
        if status != 0:
            print("skip", label, "astropy could not write it (status %d)" % status)
            continue
    except Exception as e:  # astropy refuses some combinations; that is not our failure
        print("skip", label, type(e).__name__, e)
        continue
    print(label, flush=True)
    check(path, hdu, label)

shutil.rmtree(tmp)
report(failures, total)
