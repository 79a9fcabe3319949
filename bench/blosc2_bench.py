"""blosc2_bench.py - tessera vs python-blosc2 on the same Blosc2 files, in one run: whole reads of
>= 256 MiB arrays (zstd+shuffle, python-blosc2's default; lz4+shuffle; blosclz+shuffle),
single-element median latency over 10 000 random indices (warm page cache), and random-section
throughput from all cores. tessera's side runs through bench/blosc2_latency (C); python-blosc2's
here. Prints a Markdown table.

    .venv/bin/python bench/blosc2_bench.py [--build build] [--dir /tmp/tsr_b2bench] [--mib 256]
                                           [--edge 64] [--seconds 3] [--quick] [--bitshuffle]
                                           [--chunk-rows R --block-rows B]

python-blosc2 picks chunk and block shapes from the machine's caches: a 32 MiB array is one chunk
on a 16-core server but eight on a small machine. --chunk-rows and --block-rows give the arrays
(rows x all columns) chunks and blocks, to measure the server's shapes anywhere.
"""
import argparse
import concurrent.futures as cf
import multiprocessing as mp
import os
import subprocess
import sys
import time

import numpy as np
import blosc2
from blosc2_data import data

ap = argparse.ArgumentParser()
ap.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "..", "build"))
ap.add_argument("--dir", default="/tmp/tsr_b2bench")
ap.add_argument("--mib", type=int, default=256, help="size of the whole-read arrays")
ap.add_argument("--edge", type=int, default=64, help="edge of the random sections")
ap.add_argument("--seconds", type=float, default=3.0)
ap.add_argument("--nelem", type=int, default=10000)
ap.add_argument("--quick", action="store_true", help="small arrays, short runs (a smoke test)")
ap.add_argument("--whole-only", action="store_true",
                help="whole reads alone (no element or section rows): the large arrays' run")
ap.add_argument("--bitshuffle", action="store_true", help="bitshuffle rows too")
ap.add_argument("--chunk-rows", type=int, default=0, help="chunks of this many whole rows")
ap.add_argument("--block-rows", type=int, default=0, help="blocks of this many whole rows")
args = ap.parse_args()
if args.quick:
    args.mib, args.seconds, args.nelem = 16, 0.5, 500
LAT = os.path.join(args.build, "blosc2_latency")
NCPU = os.cpu_count() or 1
os.makedirs(args.dir, exist_ok=True)


side = int(np.sqrt(args.mib * 2**20 / 4))
SHAPE = (side, side)
CONFIGS = [
    ("zstd+shuffle (default)", "zstd", {}),
    ("lz4+shuffle", "lz4", {"codec": blosc2.Codec.LZ4}),
    ("blosclz+shuffle", "blosclz", {"codec": blosc2.Codec.BLOSCLZ}),
]
if args.bitshuffle:
    BIT = {"filters": [blosc2.Filter.BITSHUFFLE], "filters_meta": [0]}
    CONFIGS += [
        ("zstd+bitshuffle", "zstd_bit", dict(BIT)),
        ("lz4+bitshuffle", "lz4_bit", dict(BIT, codec=blosc2.Codec.LZ4)),
        ("blosclz+bitshuffle", "blosclz_bit", dict(BIT, codec=blosc2.Codec.BLOSCLZ)),
    ]
SHAPES = {}
if args.chunk_rows:
    SHAPES = {"chunks": (args.chunk_rows, SHAPE[1]),
              "blocks": (args.block_rows or args.chunk_rows, SHAPE[1])}
# python-blosc2's default blocks for such arrays are 256 KiB: a one-element read decodes one.
# Arrays with small blocks show the per-read floor.
SMALL = ("zstd+shuffle, 8 KiB blocks", "zstd_small", {}, (512, 512), (32, 64))


def make(name, cparams, chunks=None, blocks=None):
    if chunks is None and SHAPES:
        chunks, blocks = SHAPES["chunks"], SHAPES["blocks"]
    tag = "_c%d_b%d" % (chunks[0], blocks[0]) if chunks else ""
    path = os.path.join(args.dir, "%s_%d%s.b2nd" % (name, args.mib, tag))
    if not os.path.exists(path):
        kw = {"chunks": chunks, "blocks": blocks} if chunks else {}
        blosc2.asarray(data(SHAPE), urlpath=path, mode="w", cparams=cparams, **kw)
    return path


def warm(path):
    """Read the file once so that every run finds it in the page cache."""
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def tsr(*a):
    out = subprocess.run([LAT] + [str(x) for x in a], capture_output=True, text=True, check=True)
    return dict(kv.split("=") for kv in out.stdout.split())


def py_whole(path, repeat=3):
    arr = blosc2.open(path)
    arr[...]
    best = 1e30
    for _ in range(repeat):
        t = time.perf_counter()
        x = arr[...]
        best = min(best, time.perf_counter() - t)
    return x.nbytes / best / 1e9


def py_elem(path, n):
    arr = blosc2.open(path)
    rng = np.random.default_rng(1)
    idx = [tuple(int(rng.integers(0, s)) for s in arr.shape) for _ in range(n)]
    for i in idx:  # warm, untimed
        arr[i]
    t = np.empty(n)
    for k, i in enumerate(idx):
        t0 = time.perf_counter()
        arr[i]
        t[k] = time.perf_counter() - t0
    return np.median(t) * 1e6


def _sections(path, edge, seconds, seed, arr=None):
    arr = arr if arr is not None else blosc2.open(path)
    rng = np.random.default_rng(seed)
    n, nbytes, end = 0, 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        sl = tuple(slice(a, a + edge) for a in (int(rng.integers(0, s - edge + 1)) for s in arr.shape))
        nbytes += arr[sl].nbytes
        n += 1
    return n, nbytes


def py_sections_threads(path, edge, seconds):
    arr = blosc2.open(path)  # one handle shared, as tessera's threads share one
    with cf.ThreadPoolExecutor(NCPU) as ex:
        t0 = time.perf_counter()
        res = list(ex.map(lambda s: _sections(path, edge, seconds, s, arr), range(NCPU)))
        dt = time.perf_counter() - t0
    return sum(r[0] for r in res) / dt, sum(r[1] for r in res) / dt / 1e6


def py_sections_procs(path, edge, seconds):
    with mp.get_context("fork").Pool(NCPU) as pool:
        t0 = time.perf_counter()
        res = pool.starmap(_sections, [(path, edge, seconds, s) for s in range(NCPU)])
        dt = time.perf_counter() - t0
    return sum(r[0] for r in res) / dt, sum(r[1] for r in res) / dt / 1e6


if not os.path.exists(LAT):
    sys.exit("no %s: build first (cmake --build %s)" % (LAT, args.build))
print("python-blosc2 %s (C-Blosc2 %s), %d CPUs, arrays float32 %s = %d MiB, data in %s" % (
    blosc2.__version__, blosc2.blosclib_version, NCPU, SHAPE, SHAPE[0] * SHAPE[1] * 4 >> 20,
    args.dir), flush=True)
# Write every file first and let the kernel flush them: writeback running under a measurement
# slows it several times over.
paths = [make(name, cp) for _, name, cp in CONFIGS]
label, name, cp, ch, bl = SMALL
small_path = None if args.whole_only else make(name, cp, ch, bl)
os.sync()
time.sleep(2)
rows = []
for (label, name, cp), path in zip(CONFIGS, paths):
    warm(path)
    arr = blosc2.open(path)
    stored = os.path.getsize(path)
    w_t = float(tsr("whole", path, 3)["gbps"])
    w_tf = float(tsr("whole", path, 3, "fresh")["gbps"])
    w_p = py_whole(path)
    nan = float("nan")
    if args.whole_only:
        e_t = e_p = nan
        s_t, s_pt, s_pp = {"reads_per_s": nan}, (nan,), (nan,)
    else:
        e_t = float(tsr("elem", path, args.nelem)["median_us"])
        e_p = py_elem(path, args.nelem)
        s_t = tsr("sections", path, args.edge, NCPU, args.seconds)
        s_pt = py_sections_threads(path, args.edge, args.seconds)
        s_pp = py_sections_procs(path, args.edge, args.seconds)
    rows.append((label, "%s / %s" % (arr.chunks, arr.blocks), SHAPE[0] * SHAPE[1] * 4 / stored,
                 w_t, w_tf, w_p, e_t, e_p, float(s_t["reads_per_s"]), s_pt[0], s_pp[0]))
    # (each row as it is made: a run cut short keeps what it measured)
    print("done: | %s | %s | %.2f | %.2f / %.2f | %.2f | %.1f | %.1f | %.0f | %.0f | %.0f |" %
          rows[-1], flush=True)

label, name, cp, ch, bl = SMALL
small = None
if not args.whole_only:
    warm(small_path)
    small = (label, "%s / %s" % (ch, bl), float(tsr("elem", small_path, args.nelem)["median_us"]),
             py_elem(small_path, args.nelem))

print()
print("| array (float32 %dx%d, %d MiB) | chunks / blocks | ratio | whole GB/s tessera (reused buf / fresh) "
      "| whole GB/s python-blosc2 | 1 element median µs tessera | python-blosc2 | %dx%d sections/s "
      "tessera, %d threads | python-blosc2 %d threads | python-blosc2 %d processes |" % (
          SHAPE[0], SHAPE[1], args.mib, args.edge, args.edge, NCPU, NCPU, NCPU))
print("|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    print("| %s | %s | %.2f | %.2f / %.2f | %.2f | %.1f | %.1f | %.0f | %.0f | %.0f |" % r)
if small:
    print("| %s | %s | | | | %.1f | %.1f | | | |" % small)
