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


def best_of(f, n, rounds=5):
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
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "a.b2nd")
        # python-blosc2's published case: 300x512x512 float32 (here on disk, page cache warm)
        data = np.random.default_rng(0).random((300, 512, 512), dtype=np.float32)
        blosc2.asarray(data, urlpath=path, mode="w")
        a = tessera.open(path)
        b = blosc2.open(path)
        assert a[3, 5, 7] == data[3, 5, 7] == b[3, 5, 7]
        res = {"file": "300x512x512 float32 b2nd (python-blosc2 defaults)", "n": args.n,
               "python": sys.version.split()[0], "tessera": tessera.__version__,
               "blosc2": blosc2.__version__}
        res["tessera_py_us"] = best_of(lambda: a[3, 5, 7], args.n)
        out = np.empty((), np.float32)
        res["tessera_py_read_out_us"] = best_of(lambda: a.read((3, 5, 7), out=out), args.n)
        res["blosc2_us"] = best_of(lambda: b[3, 5, 7], args.n)
        if os.path.exists(args.c_bench):
            p = subprocess.run([args.c_bench, path, "3,5,7", str(args.n)], capture_output=True,
                               text=True, check=True)
            res["c_us"] = json.loads(p.stdout)["us_per_read"]
            res["python_overhead_us"] = res["tessera_py_us"] - res["c_us"]
        res["tessera_vs_blosc2"] = res["tessera_py_us"] / res["blosc2_us"]
    print(json.dumps(res, indent=1))
    if args.out:
        json.dump(res, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
