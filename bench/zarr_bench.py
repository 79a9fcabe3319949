"""zarr_bench.py - Zarr reads, tessera vs tensorstore vs zarr-python 3, in GB/s of decoded output.

Runs under the PyPI venv (.venv/bin/python: zarr 3, numcodecs, tensorstore). Writes with
zarr-python, once per workload (kept in --dir between runs):
  v2 float32 2-D and 3-D arrays: blosc-lz4-shuffle, zstd, gzip, none
  v3 uint16 3-D (the zarr_benchmarks workload, scaled to --size-mib): zstd level 0, plain
    (chunks 1/4 of each axis) and sharded (shard = that chunk, inner chunks 1/4 of it)
and reads each whole and as a section that cuts chunks on every axis.

How each reader is timed (best of --reps, page cache warm, decoded output bytes / seconds):
  tessera      libtessera in this process through ctypes: tsr_open + tsr_read into a fresh
               NumPy array, all cores (the context's default)
  tessera-cli  `tessera read STORE --section S -o /dev/null` as a process: wall clock including
               process start, open, reading into a buffer it allocates, and writing the NPY to
               /dev/null
  tensorstore  ts.open(...).result() + [section].read().result() (its default thread pools)
  zarr-python  zarr.open_array(...)[section] (its default config)
"""
import argparse
import ctypes
import os
import shutil
import subprocess
import sys
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore")
import numcodecs  # noqa: E402
import tensorstore as ts  # noqa: E402
import zarr  # noqa: E402
from zarr.codecs import BloscCodec, BytesCodec, ShardingCodec, ZstdCodec  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size-mib", type=int, default=256, help="decoded size of each array (256)")
    p.add_argument("--dir", default="/tmp/tessera-zarr-bench", help="where the arrays are written")
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="tessera build folder")
    p.add_argument("--reps", type=int, default=3, help="repetitions; the best counts (3)")
    p.add_argument("--only", default="", help="run workloads whose name contains this")
    p.add_argument("--no-zarr-python", action="store_true", help="skip zarr-python (slow)")
    p.add_argument("--keep", action="store_true", help="keep the arrays afterwards")
    return p.parse_args()


# ---- tessera through ctypes ----

class OpenOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("hdu", ctypes.c_int), ("raw", ctypes.c_int),
                ("array", ctypes.c_char_p), ("level", ctypes.c_int)]


class ContextOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("nthreads", ctypes.c_int)]


class Buffer(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("nbytes", ctypes.c_size_t), ("mem", ctypes.c_int),
                ("cuda_stream", ctypes.c_void_p)]


class Tessera:
    def __init__(self, build):
        self.lib = ctypes.CDLL(os.path.join(build, "libtessera.so"))
        self.lib.tsr_errmsg.restype = ctypes.c_char_p
        self.ctx = ctypes.c_void_p()
        co = ContextOptions(ctypes.sizeof(ContextOptions), 0)
        self.check(self.lib.tsr_context_create(ctypes.byref(co), ctypes.byref(self.ctx)))
        self.lib.tsr_context_nthreads.argtypes = [ctypes.c_void_p]
        self.nthreads = self.lib.tsr_context_nthreads(self.ctx)

    def check(self, st):
        if st:
            raise RuntimeError(self.lib.tsr_errmsg().decode())

    def read(self, path, spec, shape, dtype):
        """Opens and reads the section into a fresh array (the timed unit)."""
        arr = ctypes.c_void_p()
        oo = OpenOptions(ctypes.sizeof(OpenOptions), -1, 0, None, -1)
        self.check(self.lib.tsr_open(self.ctx, path.encode(), ctypes.byref(oo), ctypes.byref(arr)))
        sel = ctypes.create_string_buffer(8192)  # struct tsr_selection (2.6 KB) with room
        self.check(self.lib.tsr_selection_parse(spec.encode(), sel))
        out = np.empty(shape, dtype)
        buf = Buffer(out.ctypes.data, out.nbytes, 0, None)
        st = self.lib.tsr_read(arr, sel, ctypes.byref(buf), None, None)
        self.lib.tsr_array_free(arr)
        self.check(st)
        return out


# ---- data ----

def f32_block(lo, hi, shape):
    """Smooth field plus a little noise, rounded to 1/100: compresses like measured data."""
    idx = np.indices((hi - lo,) + tuple(shape[1:]), dtype=np.float32)
    idx[0] += lo
    v = np.float32(100) * np.sin(idx[0] / 37) * np.cos(idx[-1] / 53)
    for k in range(1, len(shape) - 1):
        v += idx[k] / 10
    v += np.random.default_rng(lo).standard_normal(v.shape).astype(np.float32)
    return np.round(v * 100) / 100


def u16_block(lo, hi, shape):
    """zarr_benchmarks' generate_benchmark_array: (x + y*y/32 + z*z*z) % 65536."""
    z, y, x = np.indices((hi - lo,) + tuple(shape[1:]), dtype=np.uint64)
    z += np.uint64(lo)
    return ((x + y * y // 32 + z * z * z) % 65536).astype(np.uint16)


def workloads(size_mib):
    n4 = size_mib * 2 ** 20 // 4
    side2 = int(np.sqrt(n4)) // 256 * 256
    side3 = int(round((n4 / 4) ** (1 / 3))) // 64 * 64
    shape2, chunk2 = (side2, side2), (side2 // 8, side2 // 8)
    shape3, chunk3 = (side3, 2 * side3, 2 * side3), (side3 // 4, side3 // 4, side3 // 4)
    sec2 = "%d:%d,%d:%d" % (side2 // 10 + 3, side2 * 9 // 10 - 5, side2 // 7 + 1, side2 - 11)
    sec3 = "%d:%d,%d:%d,%d:%d" % (3, side3 - 7, side3 // 5, 2 * side3 - 9, side3 // 3 + 1, 2 * side3 - 5)
    n2 = size_mib * 2 ** 20 // 2
    s = int(round(n2 ** (1 / 3))) // 16 * 16
    shape_u, chunk_u = (s, s, s), (s // 4,) * 3
    secu = "%d:%d,%d:%d,%d:%d" % (s // 13, s - s // 9, 5, s - 3, s // 5, s * 4 // 5 + 1)
    v2 = {
        "blosc-lz4": dict(compressors=numcodecs.Blosc(cname="lz4", clevel=5, shuffle=1)),
        "zstd": dict(compressors=numcodecs.Zstd(level=1)),
        "gzip": dict(compressors=numcodecs.GZip(level=1)),
        "none": dict(compressors=None),
    }
    out = []
    for nd, shape, chunks, sec in ((2, shape2, chunk2, sec2), (3, shape3, chunk3, sec3)):
        for cname, kw in v2.items():
            out.append(dict(name="v2 f32 %dD %s" % (nd, cname), fmt=2, shape=shape, chunks=chunks,
                            dtype="float32", gen=f32_block, kw=kw, section=sec))
    out.append(dict(name="v3 u16 zstd", fmt=3, shape=shape_u, chunks=chunk_u, dtype="uint16",
                    gen=u16_block, section=secu,
                    kw=dict(serializer=BytesCodec(), compressors=[ZstdCodec(level=0)])))
    inner = tuple(c // 4 for c in chunk_u)
    out.append(dict(name="v3 u16 zstd sharded", fmt=3, shape=shape_u, chunks=chunk_u, dtype="uint16",
                    gen=u16_block, section=secu,
                    kw=dict(serializer=ShardingCodec(chunk_shape=inner,
                                                     codecs=[BytesCodec(), ZstdCodec(level=0)]),
                            compressors=None)))
    return out


def write(w, path):
    stamp = os.path.join(path, ".bench-done")
    # A finished array is kept only if it is this size (runs with another --size-mib share the
    # folder): a stale one would be read into a buffer of the wrong shape.
    if os.path.exists(stamp) and tuple(zarr.open_array(path, mode="r").shape) == tuple(w["shape"]):
        return
    shutil.rmtree(path, ignore_errors=True)
    z = zarr.create_array(path, shape=w["shape"], chunks=w["chunks"], dtype=w["dtype"],
                          zarr_format=w["fmt"], fill_value=0, **w["kw"])
    step = w["chunks"][0]
    for lo in range(0, w["shape"][0], step):
        hi = min(lo + step, w["shape"][0])
        z[lo:hi] = w["gen"](lo, hi, w["shape"])
    open(stamp, "w").close()


def section_tuple(spec):
    return tuple(slice(*[int(x) if x else None for x in part.split(":")]) for part in spec.split(","))


def best(fn, reps):
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t)


def du(path):
    n = 0
    for root, _, files in os.walk(path):
        for f in files:
            n += os.path.getsize(os.path.join(root, f))
    return n


def main():
    a = parse_args()
    os.makedirs(a.dir, exist_ok=True)
    tsr = Tessera(a.build)
    cli = os.path.join(a.build, "tessera")
    rows = []
    print("tessera %d threads, tensorstore %s, zarr-python %s, numcodecs %s; %d MiB arrays, best "
          "of %d" % (tsr.nthreads, ts.__version__ if hasattr(ts, "__version__") else
                     __import__("importlib.metadata").metadata.version("tensorstore"),
                     zarr.__version__, numcodecs.__version__, a.size_mib, a.reps))
    for w in workloads(a.size_mib):
        if a.only and a.only not in w["name"]:
            continue
        path = os.path.join(a.dir, w["name"].replace(" ", "_") + ".zarr")
        write(w, path)
        tstore = ts.open({"driver": "zarr" if w["fmt"] == 2 else "zarr3",
                          "kvstore": {"driver": "file", "path": path}}, read=True).result()
        for spec in (None, w["section"]):
            full = ":" + ",:" * (len(w["shape"]) - 1)
            sec = section_tuple(spec or full)
            want = np.empty(w["shape"], w["dtype"])[sec]
            nbytes = want.nbytes
            # Same values from everyone (checked once, outside the timing).
            got = tsr.read(path, spec or "", want.shape, w["dtype"])
            ref = tstore[sec].read().result()
            if not np.array_equal(got, ref):
                sys.exit("%s %s: tessera and tensorstore disagree" % (w["name"], spec))
            del got, ref
            r = {"name": w["name"] + (" section" if spec else " whole"), "nbytes": nbytes,
                 "ratio": np.prod(w["shape"]) * np.dtype(w["dtype"]).itemsize / du(path)}
            r["tessera"] = best(lambda: tsr.read(path, spec or "", want.shape, w["dtype"]), a.reps)
            r["tessera-cli"] = best(lambda: subprocess.run(
                [cli, "read", path, "--section", spec or "", "-o", "/dev/null"], check=True),
                a.reps)
            r["tensorstore"] = best(lambda: ts.open(
                {"driver": "zarr" if w["fmt"] == 2 else "zarr3",
                 "kvstore": {"driver": "file", "path": path}}, read=True).result()[sec].read().result(),
                a.reps)
            if not a.no_zarr_python:
                r["zarr-python"] = best(lambda: zarr.open_array(path, mode="r")[sec],
                                        max(1, a.reps - 1))
            rows.append(r)
            print_row(r, header=len(rows) == 1)
    if not a.keep:
        shutil.rmtree(a.dir, ignore_errors=True)
    print()
    print("GB/s = decoded output bytes / best seconds; ratio = the array's compression ratio; "
          "vs = tessera (in-process) speed over the peer's")


COLS = ["tessera", "tessera-cli", "tensorstore", "zarr-python"]


def print_row(r, header):
    if header:
        print("| workload | MiB out | ratio | " + " | ".join("%s GB/s" % c for c in COLS) +
              " | vs tensorstore | vs zarr-python |")
        print("|---" * (5 + len(COLS)) + "|")
    gbs = {c: r["nbytes"] / r[c] / 1e9 for c in COLS if c in r}
    cells = ["%.2f" % gbs[c] if c in gbs else "-" for c in COLS]
    vs_ts = "%.2fx" % (gbs["tessera"] / gbs["tensorstore"])
    vs_zp = "%.2fx" % (gbs["tessera"] / gbs["zarr-python"]) if "zarr-python" in gbs else "-"
    print("| %s | %.0f | %.2f | %s | %s | %s |" % (r["name"], r["nbytes"] / 2 ** 20, r["ratio"],
                                                " | ".join(cells), vs_ts, vs_zp), flush=True)


if __name__ == "__main__":
    main()
