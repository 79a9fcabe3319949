"""test_gpu_blosc_filters.py - every blosc filter and chunk kind decoded on the GPU: each
c-blosc/c-blosc2 fixture chunk of tests/data/blosc and blosc-filters (shuffle by any width,
bitshuffle, delta, bytedelta and legacy bytedelta, trunc_prec, int_trunc, filter pipelines,
split and unsplit streams, memcpyed chunks, zero/NaN/uninitialised/repeated-value special
chunks, odd typesizes, partial last blocks) made the three chunks of a Zarr v2 array, read with
`tessera read --device cuda --decoder gpu`, whole and in a strided section, must equal the
fixture's decoded bytes (what the peer decodes) and the CPU engine's read; the receipt must say
the GPU decoded the chunks (codecs with a GPU family: blosclz, lz4, zlib). Without a CUDA device
it says so and passes."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from corpus_util import BIN, CORPUS, report, run_read  # noqa: E402

import numpy as np  # noqa: E402

probe = subprocess.run([BIN, "read", os.path.join(CORPUS, "fits", "u_i16_primary.fits"),
                        "--device", "cuda", "-o", "/dev/null"], capture_output=True, text=True)
if probe.returncode != 0 and ("no CUDA" in probe.stderr or "CUDA engine" in probe.stderr):
    print("skipped: no CUDA device (%s)" % probe.stderr.strip())
    sys.exit(0)

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
GPU_CODECS = {0: "blosclz", 1: "lz4", 3: "zlib"}  # header codec formats with a GPU family
NCHUNKS = 3

failures, total, on_gpu = [], 0, 0
rows = [[os.path.join(DATA, d)] + line.rstrip("\n").split("\t")
        for d in ("blosc", "blosc-filters")
        for line in open(os.path.join(DATA, d, "index.tsv")) if not line.startswith("#")]
with tempfile.TemporaryDirectory() as tmp:
    for row in rows:
        fix, name, data = row[0], row[1], row[2]
        codec, typesize, nbytes = int(row[4]), int(row[5]), int(row[6])
        if nbytes == 0:
            continue
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
        for sec in (None, "%d:%d:3" % (n // 2, NCHUNKS * n - 1)):
            total += 1
            label = "%s (%s)%s" % (name, dtype, " [%s]" % sec if sec else "")
            got, rc, err = run_read(store, None, sec,
                                    extra=["--device", "cuda", "--decoder", "gpu"])
            cpu, rc2, err2 = run_read(store, None, sec, extra=["--device", "cpu"])
            if got is None or cpu is None:
                failures.append("%s: exit %d/%d: %s %s" % (label, rc, rc2, err.strip(),
                                                           err2.strip()))
                continue
            e = expect if sec is None else expect[n // 2:NCHUNKS * n - 1:3]
            if got.tobytes() != e.tobytes():
                failures.append("%s: GPU values differ from the fixture's" % label)
            if got.tobytes() != cpu.tobytes():
                failures.append("%s: GPU values differ from the CPU engine's" % label)
        if codec in GPU_CODECS:
            total += 1
            p = subprocess.run([BIN, "read", store, "--device", "cuda", "--decoder", "gpu",
                                "--receipt", "-o", "/dev/null"], capture_output=True, text=True)
            text = p.stdout + p.stderr
            if "blosc/%s chunks decoded on the GPU" % GPU_CODECS[codec] not in text or \
                    "decoded on the CPU" in text:
                failures.append("%s: receipt: %s" % (name, text.strip()))
            else:
                on_gpu += 1
print("%d fixture chunks as Zarr arrays, %d of them decoded on the GPU" % (len(rows), on_gpu))
report(failures, total)
