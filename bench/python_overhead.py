"""python_overhead.py - what the Python module adds to a small read: a[3, 5, 7] of an on-disk
b2nd array through tessera (Python) against the same read through tsr_read in C
(build/small_read_bench), and python-blosc2's time on the same file; then random elements of
it (each in another block than the last), tessera against python-blosc2. Times are us per
read, best and median (_median) of 10 rounds.

Usage: .venv/bin/python bench/python_overhead.py [--c-bench build/small_read_bench] [--n 20000]
       .venv/bin/python bench/python_overhead.py --instructions   # valgrind: counts, not time

--instructions counts instructions per read (callgrind; the difference of two run lengths, so
start-up cancels out) of the small FITS read in C and through Python: a measure that a busy
machine cannot blur.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np


def rounds_of(f, n, rounds=10):
    """us per call in each of `rounds` runs of n calls."""
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        out.append((time.perf_counter() - t0) / n * 1e6)
    return out


def best_of(f, n, rounds=10):
    return min(rounds_of(f, n, rounds))


def timed(c, name, f, n):
    """c[name] = best of 10 rounds, c[name + '_median'] = their median (us per call)."""
    r = rounds_of(f, n)
    c[name] = min(r)
    c[name + "_median"] = statistics.median(r)


def random_keys(shape, n, seed=1):
    """n random full-integer keys: nearly every one in another block than the last."""
    rng = np.random.default_rng(seed)
    return [tuple(int(rng.integers(0, s)) for s in shape) for _ in range(n)]


LOOP = """
import sys, numpy as np, tessera
a = tessera.open(sys.argv[1]); n = int(sys.argv[2])
out = np.empty((), a.dtype)
if sys.argv[3] == "getitem":
    for _ in range(n): a[3, 5]
else:
    for _ in range(n): a.read((3, 5), out=out)
"""


def callgrind(cmd):
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + cmd,
                       capture_output=True, text=True, check=True)
    return int([l for l in p.stderr.splitlines() if "Collected" in l][0].split()[-1])


def instructions(args):
    from astropy.io import fits
    with tempfile.TemporaryDirectory() as d:
        ft = os.path.join(d, "a.fits")
        fits.PrimaryHDU(np.random.default_rng(0).random((64, 64), dtype=np.float32)).writeto(ft)
        # small_read_bench does 10 rounds of N reads
        c = (callgrind([args.c_bench, ft, "3,5", "200"]) -
             callgrind([args.c_bench, ft, "3,5", "100"])) / 1000
        res = {"file": "64x64 float32 FITS", "key": "3,5", "c_instructions_per_read": c}
        for kind in ("getitem", "read_out"):
            py = (callgrind([sys.executable, "-c", LOOP, ft, "2000", kind]) -
                  callgrind([sys.executable, "-c", LOOP, ft, "1000", kind])) / 1000
            res["python_%s_instructions_per_read" % kind] = py
            res["python_%s_added_instructions" % kind] = py - c
    print(json.dumps(res, indent=1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--c-bench", default=os.path.join(os.path.dirname(__file__), "..", "build",
                                                      "small_read_bench"))
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--out")
    ap.add_argument("--b2nd", help="an existing b2nd file to time instead of writing one")
    ap.add_argument("--instructions", action="store_true")
    args = ap.parse_args()
    if args.instructions:
        return instructions(args)
    import blosc2
    import tessera
    from astropy.io import fits
    res = {"n": args.n, "python": sys.version.split()[0], "tessera": tessera.__version__,
           "blosc2": blosc2.__version__, "cases": []}
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as d:
        # python-blosc2's published case: 300x512x512 float32 (here on disk, page cache warm)
        b2 = args.b2nd or os.path.join(d, "a.b2nd")
        if not args.b2nd:
            data = rng.random((300, 512, 512), dtype=np.float32)
            blosc2.asarray(data, urlpath=b2, mode="w")
            del data
        # a small uncompressed FITS image: the C read is little more than one pread of its
        # 16 KiB, so the difference is the module's own cost
        ft = os.path.join(d, "a.fits")
        img = rng.random((64, 64), dtype=np.float32)
        fits.PrimaryHDU(img).writeto(ft)
        for path, key, text, peer in [(b2, (3, 5, 7), "3,5,7", blosc2.open(b2)),
                                      (ft, (3, 5), "3,5", None)]:
            a = tessera.open(path)
            c = {"file": os.path.basename(path), "shape": a.shape, "key": text}
            timed(c, "tessera_py_us", lambda: a[key], args.n)
            out = np.empty((), a.dtype)
            timed(c, "tessera_py_read_out_us", lambda: a.read(key, out=out), args.n)
            if peer is not None:
                assert peer[key] == a[key]
                timed(c, "blosc2_us", lambda: peer[key], args.n)
                c["tessera_vs_blosc2"] = c["tessera_py_us"] / c["blosc2_us"]
                c["tessera_vs_blosc2_median"] = (c["tessera_py_us_median"] /
                                                 c["blosc2_us_median"])
                # random elements: each read lands in another block (no block reuse)
                keys = random_keys(a.shape, 200)
                assert all(peer[k] == a[k] for k in keys[:20])
                it = iter(keys * 1000)
                timed(c, "random_tessera_py_us", lambda: a[next(it)], len(keys) // 2)
                it = iter(keys * 1000)
                timed(c, "random_blosc2_us", lambda: peer[next(it)], len(keys) // 2)
                c["random_tessera_vs_blosc2_median"] = (c["random_tessera_py_us_median"] /
                                                        c["random_blosc2_us_median"])
            if os.path.exists(args.c_bench):
                p = subprocess.run([args.c_bench, path, text, str(args.n)], capture_output=True,
                                   text=True, check=True)
                c["c_us"] = json.loads(p.stdout)["us_per_read"]
                c["c_us_median"] = json.loads(p.stdout).get("us_per_read_median")
                c["python_overhead_us"] = c["tessera_py_us"] - c["c_us"]
                c["python_overhead_read_out_us"] = c["tessera_py_read_out_us"] - c["c_us"]
            res["cases"].append(c)
    print(json.dumps(res, indent=1))
    if args.out:
        json.dump(res, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
