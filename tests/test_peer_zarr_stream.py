"""test_peer_zarr_stream.py - Zarr chunks of 2 MiB and more whose last codec is zstd, which the CPU
engine reads, decodes and places a piece at a time (cpu.c, tsr_cpu_stream): reads match NumPy
whole, in sections (steps of both signs, integer indices, prefixes of a chunk, single values),
for big-endian, complex, crc32c-checked (v3) and 1-D arrays; and frames with bytes after them,
cut short or doubled get the verdict that decoding the chunk whole gives."""
import os
import random
import shutil
import tempfile
import warnings

import numpy as np

from corpus_util import read_must_fail, report, run_read, same

warnings.filterwarnings("ignore")
import numcodecs  # noqa: E402
import zarr  # noqa: E402
from zarr.codecs import BytesCodec, Crc32cCodec, ZstdCodec  # noqa: E402

rng = random.Random(20250301)
nrng = np.random.default_rng(20250301)
tmp = tempfile.mkdtemp()
failures = []
total = 0


def data(dtype, shape):
    """Smooth values with noise: compressible, and every position different."""
    n = int(np.prod(shape))
    v = np.sin(np.arange(n) / 91.0) * 1000 + nrng.standard_normal(n)
    if np.dtype(dtype).kind == "c":
        v = v + 1j * np.cos(np.arange(n) / 37.0)
    return v.astype(dtype).reshape(shape)


def v2(name, dtype, shape, chunks):
    path = os.path.join(tmp, name)
    z = zarr.create_array(path, shape=shape, chunks=chunks, dtype=dtype, zarr_format=2,
                          compressors=numcodecs.Zstd(level=1), fill_value=0)
    d = data(dtype, shape)
    z[...] = d
    return path, d


def v3_crc(name, dtype, shape, chunks):
    path = os.path.join(tmp, name)
    z = zarr.create_array(path, shape=shape, chunks=chunks, dtype=dtype, zarr_format=3,
                          serializer=BytesCodec(), compressors=[ZstdCodec(level=0), Crc32cCodec()],
                          fill_value=0)
    d = data(dtype, shape)
    z[...] = d
    return path, d


def sections(shape):
    """Whole, one value, a chunk's first row, and random slices with steps of both signs."""
    out = [None, ",".join("0" for _ in shape), ",".join(["0:1"] * len(shape))]
    for _ in range(6):
        spec = []
        for s in shape:
            r = rng.random()
            if r < 0.15:
                spec.append(str(rng.randint(-s, s - 1)))
            elif r < 0.3:
                spec.append(":")
            else:
                step = rng.choice([1, 1, 2, 3, -1, -2])
                spec.append("%d:%d:%d" % (rng.randint(-s, s), rng.randint(-s, s), step))
        out.append(",".join(spec))
    return out


def index(spec):
    idx = []
    for part in spec.split(","):
        if ":" in part:
            idx.append(slice(*[int(x) if x else None for x in part.split(":")]))
        else:
            idx.append(int(part))
    return tuple(idx)


def check(label, path, d):
    global total
    for spec in sections(d.shape):
        total += 1
        want = np.asarray(d if spec is None else d[index(spec)])
        got, rc, err = run_read(path, section=spec)
        why = "exit %d: %s" % (rc, err.strip()) if got is None else \
            same(got, want.astype(want.dtype.newbyteorder("="), order="C"))
        if why:
            failures.append("%s section %r: %s" % (label, spec, why))


# Chunks of 2 MiB and more (TSR_CPU_STREAM_MIN_NBYTES), cut by the array's edges (edge chunks are stored whole).
check("v2 <f4 2-D", *v2("f4.zarr", "<f4", (1000, 1500), (768, 700)))
check("v2 >f8 3-D", *v2("f8be.zarr", ">f8", (70, 90, 100), (64, 64, 64)))
check("v2 >c8 1-D", *v2("c8be.zarr", ">c8", (700000,), (300000,)))
check("v2 <u2 4-D", *v2("u2.zarr", "<u2", (5, 40, 130, 140), (2, 33, 128, 128)))
check("v3 u2 zstd+crc32c", *v3_crc("crc.zarr", "uint16", (40, 300, 300), (32, 200, 200)))

# Bad frames, in a copy of the 2-D store: chunk 0.0 is not contiguous in the output, so it
# streams; each verdict is the one the whole-chunk decoder gives.
src, d = v2("bad.zarr", "<f4", (1000, 1500), (768, 700))
frame = open(os.path.join(src, "0.0"), "rb").read()


def variant(name, chunk):
    path = os.path.join(tmp, name)
    shutil.copytree(src, path)
    with open(os.path.join(path, "0.0"), "wb") as f:
        f.write(chunk)
    return path


skippable = bytes([0x50, 0x2A, 0x4D, 0x18]) + (3).to_bytes(4, "little") + b"abc"
for label, chunk in (("bytes after the frame", frame + b"\x01\x02\x03\x04\x05"),
                     ("frame cut short", frame[:-3]),
                     ("frame cut in half", frame[:len(frame) // 2]),
                     ("two frames", frame + frame)):
    total += 1
    why = read_must_fail(variant(label.replace(" ", "_") + ".zarr", chunk),
                         want=("chunk 0.0", "zstd"))
    if why:
        failures.append("%s: %s" % (label, why))
total += 1
got, rc, err = run_read(variant("skippable.zarr", frame + skippable))
why = "exit %d: %s" % (rc, err.strip()) if got is None else same(got, d)
if why:
    failures.append("a skippable frame after the frame: %s" % why)

shutil.rmtree(tmp, ignore_errors=True)
report(failures, total)
