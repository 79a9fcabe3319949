"""python_large.py - a large read through the Python module against the same read in C: the
whole of a >= 256 MiB array (python-blosc2's 300x512x512 float32 by default, or FILE) by
tessera.read(path) into a new NumPy array, into a reused one (out=), and in C by `tessera
bench`'s end-to-end CPU phase (open + tsr_read + close into a reused buffer) and, into host
memory, bench/blosc2_latency's open + tsr_read_alloc + close into a new buffer (first-touch
page faults in both new-buffer figures). A Python new array's buffer comes from the module's
host cache after the first read (each result is dropped before the next read, so the next reuses
its buffer: tessera.host_cache); the same reads with the cache off (limit 0) are reported beside
them. The C and Python runs alternate, ROUNDS times, so a busy machine blurs both alike; medians
of all their iterations.
--device cuda: the same into device memory: tessera.read(path, device="cuda") into a new CuPy
array and into a reused one (out=), each followed by a device synchronize, against `tessera
bench`'s end-to-end CUDA phase (open + tsr_read + close into a reused device buffer).

Usage: .venv/bin/python bench/python_large.py [--cli build/tessera] [--rounds 3]
       [--iterations 5] [--device cpu|cuda] [FILE]
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


def c_times(cli, path, iterations, device="cpu"):
    with tempfile.TemporaryDirectory() as d:
        rep = os.path.join(d, "r.json")
        subprocess.run([cli, "bench", "--device", device, "--iterations", str(iterations),
                        "--output-json", rep, path], check=True, capture_output=True)
        r = json.load(open(rep))
    for ph in r["phases"]:
        if ph["id"] == device:  # "cpu" or "cuda": the end-to-end phase
            if ph["status"] != "ok":
                raise SystemExit("tessera bench %s phase: %s" % (device, ph["error"]))
            return ph["elapsed_ms"]["all"], (ph.get("receipt") or {}).get("total_ms")
    raise SystemExit("no end-to-end %s phase in the report" % device)


def c_fresh_times(lat, path, iterations):
    """tsr_open + tsr_read_alloc into a new buffer + close each time, as tessera.read(path)
    does: one process, a warm-up call first, then `iterations` calls, each timed alone
    (blosc2_latency's read_s: the buffer's free after the call is not in it, as a Python
    array's is not), as py_times times Python's new arrays."""
    p = subprocess.run([lat, "whole", path, str(iterations + 1), "fresh-open"], check=True,
                       capture_output=True, text=True)
    rd = p.stdout.split("read_s=")[1].split()[0].split(",")
    return [float(x) * 1e3 for x in rd[1:]]


def py_times(path, iterations, out=None, device="cpu", cache=True):
    import tessera
    limit = tessera.host_cache()["limit"]
    if not cache:
        tessera.host_cache(limit=0)
    try:
        return py_timed(tessera, path, iterations, out, device)
    finally:
        tessera.host_cache(limit=limit)


def py_timed(tessera, path, iterations, out, device):
    sync = lambda: None  # noqa: E731
    if device == "cuda":
        # the values are there when the time stops, whatever the call leaves in flight
        import cupy
        sync = cupy.cuda.runtime.deviceSynchronize
    tessera.read(path, out=out, device=device)  # warm-up, as the C phases have
    sync()
    ms = []
    for _ in range(iterations):
        t0 = time.perf_counter()
        r = tessera.read(path, out=out, device=device)
        sync()
        ms.append((time.perf_counter() - t0) * 1e3)
        del r
    return ms


def py_receipt_ms(path, iterations, out=None, device="cpu"):
    """The library's own time (the receipt's t_total) of reads as py_times makes them: where it
    is near the C receipt's, Python's extra time lies outside the read."""
    import tessera
    ms = []
    for _ in range(iterations):
        r, rec = tessera.read(path, out=out, device=device, receipt=True)
        ms.append(rec["t_total"] * 1e3)
        del r
    return statistics.median(ms)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file", nargs="?")
    ap.add_argument("--cli", default=os.path.join(os.path.dirname(__file__), "..", "build",
                                                  "tessera"))
    ap.add_argument("--latency", default=os.path.join(os.path.dirname(__file__), "..", "build",
                                                      "blosc2_latency"),
                    help="bench/blosc2_latency.c, for C reads into new buffers (tsr_read_alloc; "
                         "any format, the name notwithstanding)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    args = ap.parse_args()
    import tessera
    with tempfile.TemporaryDirectory() as d:
        path = args.file
        if not path:
            import blosc2
            path = os.path.join(d, "a.b2nd")
            data = np.random.default_rng(0).random((300, 512, 512), dtype=np.float32)
            blosc2.asarray(data, urlpath=path, mode="w")
            del data
        with tessera.open(path) as a:
            if args.device == "cuda":
                import cupy
                out = cupy.empty(a.shape, a.dtype)
            else:
                out = np.empty(a.shape, a.dtype)
            desc = {"file": path, "shape": a.shape, "dtype": str(a.dtype), "codec": a.codec,
                    "nbytes": a.nbytes}
        c, cf, fresh, uncached, reused, c_rec = [], [], [], [], [], []
        fresh_c = args.device == "cpu" and os.path.exists(args.latency)
        for _ in range(args.rounds):
            ct, crec = c_times(args.cli, path, args.iterations, args.device)
            c += ct
            if crec is not None:
                c_rec.append(crec)
            if fresh_c:
                cf += c_fresh_times(args.latency, path, args.iterations)
            fresh += py_times(path, args.iterations, device=args.device)
            if args.device == "cpu":
                uncached += py_times(path, args.iterations, device=args.device, cache=False)
            reused += py_times(path, args.iterations, out, args.device)
        med = {k: statistics.median(v) for k, v in
               (("c_ms", c), ("c_new_buffer_ms", cf), ("python_new_array_ms", fresh),
                ("python_new_array_no_host_cache_ms", uncached), ("python_out_ms", reused)) if v}
        res = dict(desc, device=args.device, python=sys.version.split()[0], n=len(c), **med)
        # (not timed rounds: what the library itself says it took, C and Python)
        if c_rec:
            res["c_receipt_total_ms"] = statistics.median(c_rec)
        res["python_receipt_total_ms"] = py_receipt_ms(path, args.iterations, out, args.device)
        res["python_new_array_vs_c"] = med["python_new_array_ms"] / med["c_ms"]
        res["python_out_vs_c"] = med["python_out_ms"] / med["c_ms"]
        if cf:
            res["python_new_array_vs_c_new_buffer"] = (med["python_new_array_ms"] /
                                                       med["c_new_buffer_ms"])
        print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
