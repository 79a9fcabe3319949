"""points_bench.py - scattered points: 10 000 random (y, x) of a 4096x4096 float32 image, read
by tessera's vectorised selection (tsr_read_index) from a GZIP_2 FITS file (CFITSIO's one-row
tiles) and from a Zarr v2 array (256x256 chunks, gzip), beside tessera's basic read of the
whole image (the same chunks: scattered points touch nearly all) and zarr-python's vindex on the
same store. Prints the median of --repeat warm runs of each (wall and CPU seconds) and the chunks
each read touched.

    .venv/bin/python bench/points_bench.py --dir /tmp/tsr-points [--lib build/libtessera.so]
        [--fits-write build/fits_write] [--points 10000] [--repeat 5]
"""
import argparse
import ctypes
import os
import statistics
import subprocess
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Receipt(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("driver", ctypes.c_char * 16),
                ("backend", ctypes.c_char * 16), ("engine", ctypes.c_char * 16),
                ("codec", ctypes.c_char * 32), ("reader", ctypes.c_char * 16),
                ("fallback", ctypes.c_char * 160), ("nthreads", ctypes.c_int),
                ("chunks_total", ctypes.c_int64), ("chunks_read", ctypes.c_int64),
                ("bytes_read", ctypes.c_uint64), ("bytes_decoded", ctypes.c_uint64),
                ("bytes_out", ctypes.c_uint64), ("t_plan", ctypes.c_double),
                ("t_fetch", ctypes.c_double), ("t_decode", ctypes.c_double),
                ("t_place", ctypes.c_double), ("t_total", ctypes.c_double)]


class Tessera:
    def __init__(self, lib):
        self.lib = ctypes.CDLL(lib)
        self.lib.tsr_errmsg.restype = ctypes.c_char_p
        self.ctx = ctypes.c_void_p()
        assert self.lib.tsr_context_create(None, ctypes.byref(self.ctx)) == 0

    def check(self, st):
        if st:
            raise RuntimeError(self.lib.tsr_errmsg().decode())

    def open(self, path):
        a = ctypes.c_void_p()
        self.check(self.lib.tsr_open(self.ctx, path.encode(), None, ctypes.byref(a)))
        return a

    def points(self, a, ys, xs):
        """(values, receipt) of a[ys, xs]."""
        ix = ctypes.c_void_p()
        self.check(self.lib.tsr_index_create(0, ctypes.byref(ix)))
        n = (ctypes.c_int64 * 1)(len(ys))
        for v in (ys, xs):
            v = np.ascontiguousarray(v, dtype=np.int64)
            self.check(self.lib.tsr_index_add_array(ix, 1, n, v.ctypes.data_as(ctypes.c_void_p)))
        out = self._read(self.lib.tsr_read_index_alloc, a, ix)
        self.lib.tsr_index_free(ix)
        return out

    def whole(self, a):
        return self._read(self.lib.tsr_read_alloc, a, None)

    def _read(self, fn, a, sel):
        data, nbytes, ndim = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_int()
        shape = (ctypes.c_int64 * 32)()
        r = Receipt()
        r.struct_size = ctypes.sizeof(r)
        self.check(fn(a, sel, None, ctypes.byref(data), ctypes.byref(nbytes), ctypes.byref(ndim),
                      shape, ctypes.byref(r)))
        vals = np.frombuffer(ctypes.string_at(data, nbytes.value), dtype=np.float32)
        self.lib.tsr_free(data)
        return vals, r


def median_time(fn, repeat):
    """Median wall seconds of repeat runs (and the last result); median_time.cpu gets the
    median CPU seconds of the process (all threads): on a machine shared with other work a
    reader's wall time is mostly its wait for cores, its CPU time is what it costs."""
    times, cpu = [], []
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    median_time.cpu = statistics.median(cpu)
    return statistics.median(times), out


def image(n):
    y, x = np.mgrid[0:n, 0:n].astype(np.float32)
    return (np.sin(x / 37.0) * np.cos(y / 23.0) * 1000).astype(np.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="/tmp/tsr-points")
    ap.add_argument("--lib", default=os.path.join(ROOT, "build", "libtessera.so"))
    ap.add_argument("--fits-write", default=os.path.join(ROOT, "build", "fits_write"))
    ap.add_argument("--points", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--side", type=int, default=4096)
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    side = args.side

    fits_dir = os.path.join(args.dir, "fits")
    fits = os.path.join(fits_dir, "img_0000.fits")
    if not os.path.exists(fits):
        subprocess.run([args.fits_write, fits_dir, "1", str(side), str(side), "gzip2_f32"],
                       check=True)
        if not os.path.exists(fits):  # the writer's own naming
            fits = os.path.join(fits_dir, sorted(os.listdir(fits_dir))[0])
    import zarr
    import numcodecs
    store = os.path.join(args.dir, "img.zarr")
    if not os.path.exists(store):
        z = zarr.create_array(store, shape=(side, side), chunks=(256, 256), dtype="float32",
                              zarr_format=2, compressors=numcodecs.GZip(level=1))
        z[:] = image(side)

    rng = np.random.default_rng(1)
    ys = rng.integers(0, side, args.points)
    xs = rng.integers(0, side, args.points)
    t = Tessera(args.lib)
    print("%d scattered points of a %dx%d float32 image; median of %d warm runs" % (
        args.points, side, side, args.repeat))
    for name, path in (("FITS GZIP_2 (one-row tiles)", fits), ("Zarr v2 gzip 256x256", store)):
        a = t.open(path)
        t.points(a, ys, xs)  # warm: page cache, worker states
        tp, (pv, pr) = median_time(lambda: t.points(a, ys, xs), args.repeat)
        cp = median_time.cpu
        tw, (wv, wr) = median_time(lambda: t.whole(a), args.repeat)
        ok = np.array_equal(pv, wv.reshape(side, side)[ys, xs], equal_nan=True)
        print("%-28s tessera points %.4f s, CPU %.4f s (%d of %d chunks)   tessera whole image "
              "%.4f s (%d chunks)   points/whole %.2f   values %s" % (
                  name, tp, cp, pr.chunks_read, pr.chunks_total, tw, wr.chunks_read, tp / tw,
                  "match" if ok else "DIFFER"))
        if path == store:
            z = zarr.open_array(store, mode="r")
            z.vindex[ys[:10], xs[:10]]
            tz, zv = median_time(lambda: z.vindex[ys, xs], args.repeat)
            cz = median_time.cpu
            print("%-28s zarr-python vindex %.4f s, CPU %.4f s   tessera is %.1fx faster "
                  "(%.1fx less CPU)   values %s" % (
                      "", tz, cz, tz / tp, cz / cp,
                      "match" if np.array_equal(zv, pv) else "DIFFER"))
        t.lib.tsr_array_free(a)


if __name__ == "__main__":
    main()
