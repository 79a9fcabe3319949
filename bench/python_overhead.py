"""python_overhead.py - what the Python module adds to a small read: a[3, 5, 7] of an on-disk
b2nd array through tessera (Python) against the same read through tsr_read in C
(build/small_read_bench), and python-blosc2's time on the same file.

Usage: .venv/bin/python bench/python_overhead.py [--c-bench build/small_read_bench] [--n 20000]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def best_of(f, n, rounds=10):
    best = 1e30
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--c-bench", default=os.path.join(os.path.dirname(__file__), "..", "build",
                                                      "small_read_bench"))
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--out")
    args = ap.parse_args()
    import blosc2
    import tessera
    from astropy.io import fits
    res = {"n": args.n, "python": sys.version.split()[0], "tessera": tessera.__version__,
           "blosc2": blosc2.__version__, "cases": []}
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as d:
        # python-blosc2's published case: 300x512x512 float32 (here on disk, page cache warm)
        b2 = os.path.join(d, "a.b2nd")
        data = rng.random((300, 512, 512), dtype=np.float32)
        blosc2.asarray(data, urlpath=b2, mode="w")
        # a small uncompressed FITS image: the C read is little more than one pread of its
        # 16 KiB, so the difference is the module's own cost
        ft = os.path.join(d, "a.fits")
        img = rng.random((64, 64), dtype=np.float32)
        fits.PrimaryHDU(img).writeto(ft)
        for path, key, text, peer in [(b2, (3, 5, 7), "3,5,7", blosc2.open(b2)),
                                      (ft, (3, 5), "3,5", None)]:
            a = tessera.open(path)
            c = {"file": os.path.basename(path), "shape": a.shape, "key": text}
            c["tessera_py_us"] = best_of(lambda: a[key], args.n)
            out = np.empty((), a.dtype)
            c["tessera_py_read_out_us"] = best_of(lambda: a.read(key, out=out), args.n)
            if peer is not None:
                assert peer[key] == a[key]
                c["blosc2_us"] = best_of(lambda: peer[key], args.n)
                c["tessera_vs_blosc2"] = c["tessera_py_us"] / c["blosc2_us"]
            if os.path.exists(args.c_bench):
                p = subprocess.run([args.c_bench, path, text, str(args.n)], capture_output=True,
                                   text=True, check=True)
                c["c_us"] = json.loads(p.stdout)["us_per_read"]
                c["python_overhead_us"] = c["tessera_py_us"] - c["c_us"]
                c["python_overhead_read_out_us"] = c["tessera_py_read_out_us"] - c["c_us"]
            res["cases"].append(c)
    print(json.dumps(res, indent=1))
    if args.out:
        json.dump(res, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
