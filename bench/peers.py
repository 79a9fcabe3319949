"""peers.py - the standard workloads (bench/workloads.py) read by tessera and by the readers a user
would pick instead, side by side in one run, each reader's values checked equal to tessera's:

  Zarr     tensorstore, zarr-python 3 (whole array)
  FITS     CFITSIO (C, fits_read_img, files over all cores: bench/cfitsio_peer), astropy
           (this interpreter's if it imports, else Debian's /usr/bin/python3; one file after
           another)
  Blosc2   python-blosc2 (whole array)
  tessera  `tessera bench` phases: end-to-end CPU (one file) or CPU batch (a FITS folder), and
           with --gpu the CUDA ones (cuda / cuda_batch); values from `tessera read`
  tessera (Python)  the same reads through `import tessera` (Array.read, or read_batch for a
           FITS folder; with --gpu also device="cuda"), when the module is installed: into a new
           array each read, and into one kept across reads (out=), as tessera bench's are

GB/s are decoded bytes (10^9) per second, best of --reps. Writes one JSON (--out) and prints a
Markdown table. On a GPU machine (--gpu; scripts/gpu-peers there) also:

  KvikIO   raw reads of the workload's stored files into device memory (bench/kvikio_peer:
           I/O only, what any GPU reader must at least spend; bytes checked on the device)
  nvCOMP   batched decompression of the very same compressed chunks (bench/nvcomp_peer: FITS
           GZIP tiles, Zarr zstd/gzip chunks and inner chunks of shards), device to device and
           with the H2D copy; output checked against libdeflate / libzstd

    .venv/bin/python bench/peers.py --dir /tmp/tsr-workloads [--gpu [--kvikio BIN]
        [--nvcomp LIB]] [--out peers.json]
"""
import argparse
import json
import os
import subprocess
import sys
import time
import zlib

import io

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def best(fn, reps, warm=False):
    """The best time of reps calls of fn and the last result; warm: one untimed call first, as
    each `tessera bench` phase has (a process's first CUDA reads set up its context and rings)."""
    t, out = [], fn() if warm else None
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        t.append(time.perf_counter() - t0)
    return min(t), out


def tessera_bench(build, paths, gpu, reps):
    """tessera's phases from `tessera bench` (its JSON report)."""
    out = os.path.join("/tmp", "tsr-peers-%d.json" % os.getpid())
    cmd = [os.path.join(build, "tessera"), "bench", "--iterations", str(reps), "--device",
           "both" if gpu else "cpu", "--output-json", out] + paths
    subprocess.run(cmd, check=False, capture_output=True, text=True)
    with open(out) as f:
        r = json.load(f)
    os.unlink(out)
    phases = {p["id"]: p for p in r["phases"]}
    rows = []
    want = ["cpu_batch", "cuda_batch"] if len(paths) > 1 else ["cpu", "cuda"]
    if gpu:
        want.append("cuda_decode_only")
    names = {"cuda_decode_only": "tessera CUDA decode only (mock-device: no I/O, no H2D)"}
    for pid in want:
        p = phases.get(pid)
        if p and p["status"] == "ok":
            rows.append((names.get(pid, "tessera " + ("CUDA" if pid.startswith("cuda") else "CPU") +
                                    (" batch" if "batch" in pid else "")),
                         "cuda" if "cuda" in pid else "cpu",
                         p["bytes_out"] / (p["elapsed_ms"]["median"] / 1e3) / 1e9))
        elif p and pid.startswith("cpu"):
            raise SystemExit("tessera %s failed on %s: %s" % (pid, paths[0], p["error"]))
    return rows, r["host"], r["capabilities"]["cuda"]


def crc(a):
    a = np.ascontiguousarray(a)
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("="))
    return "%08x" % zlib.crc32(a.tobytes())


ASTROPY = r"""
import sys, time, zlib
import numpy as np
from astropy.io import fits
best = 1e30
for _ in range(int(sys.argv[1])):
    t0 = time.perf_counter()
    crcs = []
    for p in sys.argv[2:]:
        with fits.open(p) as h:
            d = h[1].data if len(h) > 1 and h[1].data is not None else h[0].data
            d = np.ascontiguousarray(d.astype(d.dtype.newbyteorder("=")))
            crcs.append("%08x" % zlib.crc32(d.tobytes()))
    best = min(best, time.perf_counter() - t0)
print(best)
print(" ".join(crcs))
"""


META = {".zarray", ".zattrs", ".zgroup", ".zmetadata", "zarr.json"}


def stored_files(path):
    """The files a reader of this workload reads: a FITS folder's images, a Zarr store's chunk
    (or shard) files, or the one file."""
    if os.path.isfile(path):
        return [path]
    out = []
    for d, _, fs in os.walk(path):
        out += [os.path.join(d, f) for f in fs if f not in META and not f.startswith(".")]
    return sorted(out)


def kv_line(text, first):
    """The key=value line starting with first= of a peer program's output, as a dict."""
    for line in text.split("\n"):
        if line.startswith(first + "="):
            return dict(x.split("=", 1) for x in line.split())
    raise ValueError("no %s= line in: %s" % (first, text.strip()[-300:]))


def kvikio_rows(a, files):
    """KvikIO (POSIX mode, all threads) reading the workload's stored bytes into device memory:
    I/O only, nothing decoded; the bytes on the device are checked against the files'."""
    p = subprocess.run([a.kvikio] + files, capture_output=True, text=True)
    try:
        kv = kv_line(p.stdout, "files")
    except ValueError as e:
        return [("KvikIO raw read -> device (stored bytes, no decode)", "cuda", None, str(e))]
    return [("KvikIO raw read -> device (stored bytes, no decode)", "cuda", float(kv["gbps"]),
             kv["equal"] == "1")]


def nvcomp_codec(name, path):
    """nvcomp_peer's arguments for a workload nvCOMP can decode chunk by chunk, else None."""
    if name.startswith("fits_gzip"):
        return ["--codec", "gzip"]
    if name.startswith("zarr2_zstd") or name.startswith("zarr2_gzip"):
        return ["--codec", name.split("_")[1].split(".")[0]]
    if name.startswith("zarr3"):
        with open(os.path.join(path, "zarr.json")) as f:
            meta = json.load(f)
        codecs = meta["codecs"]
        if codecs[0]["name"] == "sharding_indexed":
            outer = meta["chunk_grid"]["configuration"]["chunk_shape"]
            inner = codecs[0]["configuration"]["chunk_shape"]
            n = 1
            for o, i in zip(outer, inner):
                n *= o // i
            return ["--codec", "zstd", "--shard-inner", str(n)]
        return ["--codec", "zstd"]
    return None


def nvcomp_rows(a, name, path, files):
    """nvCOMP's batched decompression of the workload's own compressed chunks (FITS tiles, Zarr
    chunks or inner chunks of shards): device to device, and with the H2D copy of the
    compressed bytes; its output checked byte for byte against libdeflate / libzstd, whose
    output tessera's decode equals."""
    args = nvcomp_codec(name, path)
    if args is None:
        return []
    p = subprocess.run([a.nvcomp_peer, "--nvcomp", a.nvcomp, "-k", str(a.reps)] + args + files,
                       capture_output=True, text=True)
    try:
        kv = kv_line(p.stdout, "streams")
    except ValueError:
        err = (p.stderr.strip().split("\n") or [""])[-1]
        return [("nvCOMP batched decode", "cuda", None, "failed: %s" % err)]
    ok = kv["equal"] == "1"
    return [("nvCOMP batched decode, device -> device (%s streams)" % kv["streams"], "cuda",
             float(kv["decode_gbps"]), ok),
            ("nvCOMP H2D copy + batched decode", "cuda", float(kv["e2e_gbps"]), ok)]


def astropy_python():
    """The interpreter whose astropy works: this one (wheels carried to the GPU machine), else
    Debian's (python3-astropy, on the development machines: the venv sees Debian's astropy
    too, but it is built against Debian's numpy, not the venv's)."""
    p = subprocess.run([sys.executable, "-c", "import astropy.io.fits"], capture_output=True)
    return sys.executable if p.returncode == 0 else "/usr/bin/python3"


def tessera_values(build, path):
    """tessera's values of the array at path (`tessera read`, NPY on stdout)."""
    p = subprocess.run([os.path.join(build, "tessera"), "read", path, "-o", "/dev/stdout"],
                       capture_output=True, check=True)
    return np.load(io.BytesIO(p.stdout))


def python_rows(paths, ref, nbytes, gpu, reps):
    """The workload through the Python module (host, and device with --gpu), values checked."""
    try:
        import tessera
    except ImportError:
        return []
    many = len(paths) > 1

    def read(device, out=None):
        if many:
            return tessera.read_batch(paths, device=device, out=out)
        with tessera.open(paths[0]) as arr:
            return arr.read(device=device, out=out)

    def check(got):
        got = np.asarray(got)
        return [crc(g) for g in got] == ref if many else crc(got) == ref[0]

    # A new array per read (first-touch page faults included), and out= an array kept across
    # reads, as `tessera bench`'s phases keep theirs: the row to hold beside the C figure.
    rows = []
    t, got = best(lambda: read("cpu"), reps, warm=True)
    rows.append(("tessera (Python)", "cpu", nbytes / t / 1e9, check(got)))
    t, got = best(lambda: read("cpu", out=got), reps)
    rows.append(("tessera (Python) out=", "cpu", nbytes / t / 1e9, check(got)))
    if gpu and tessera.capabilities()["cuda"]["devices"]:
        prev = tessera.set_cupy_results(False)  # DeviceArray: no CuPy import in the timing
        try:
            t, got = best(lambda: read("cuda"), reps, warm=True)
            rows.append(("tessera (Python) CUDA", "cuda", nbytes / t / 1e9, check(got)))
            t, got = best(lambda: read("cuda", out=got), reps)
            rows.append(("tessera (Python) CUDA out=", "cuda", nbytes / t / 1e9, check(got)))
        finally:
            tessera.set_cupy_results(prev)
    return rows


def run(a):
    results = []
    names = sorted(os.listdir(a.dir))
    for name in names:
        path = os.path.join(a.dir, name)
        if a.only and a.only not in name:
            continue
        if name.startswith("fits_"):
            files = sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".fits"))
            ref = {}
            nbytes = 0
            for f in files:
                v = tessera_values(a.build, f)
                ref[f] = crc(v)
                nbytes += v.nbytes
            rows, host, cuda = tessera_bench(a.build, files, a.gpu, a.reps)
            rows += python_rows(files, [ref[f] for f in files], nbytes, a.gpu, a.reps)
            p = subprocess.run([os.path.join(a.build, "cfitsio_peer"), "-k", str(a.reps)] + files,
                               capture_output=True, text=True, check=True)
            kv = dict(x.split("=") for x in p.stdout.split("\n")[0].split())
            ok = all(line.split()[2] == ref[line.split()[1]]
                     for line in p.stdout.split("\n")[1:] if line.startswith("crc"))
            rows.append(("CFITSIO (C, %s threads)" % kv["threads"], "cpu", float(kv["gbps"]), ok))
            p = subprocess.run([astropy_python(), "-c", ASTROPY, str(a.reps)] + files,
                               capture_output=True, text=True)
            if p.returncode == 0:
                sec, crcs = p.stdout.split("\n")[:2]
                rows.append(("astropy", "cpu", nbytes / float(sec) / 1e9,
                             crcs.split() == [ref[f] for f in files]))
            else:
                rows.append(("astropy", "cpu", None, p.stderr.strip().split("\n")[-1]))
            label = "%s (%d files)" % (name, len(files))
        else:
            v = tessera_values(a.build, path)
            nbytes = v.nbytes
            rows, host, cuda = tessera_bench(a.build, [path], a.gpu, a.reps)
            rows += python_rows([path], [crc(v)], nbytes, a.gpu, a.reps)
            if name.startswith("zarr"):
                import tensorstore as ts
                import zarr
                drv = "zarr3" if name.startswith("zarr3") else "zarr"
                t, got = best(lambda: ts.open({"driver": drv, "kvstore": {
                    "driver": "file", "path": path}}).result().read().result(), a.reps)
                rows.append(("tensorstore", "cpu", nbytes / t / 1e9, bool(np.array_equal(got, v))))
                t, got = best(lambda: zarr.open_array(path, mode="r")[...], a.reps)
                rows.append(("zarr-python", "cpu", nbytes / t / 1e9, bool(np.array_equal(got, v))))
            elif name.endswith(".b2nd"):
                import blosc2
                t, got = best(lambda: blosc2.open(path)[...], a.reps)
                rows.append(("python-blosc2", "cpu", nbytes / t / 1e9,
                             bool(np.array_equal(got, v))))
            label = name
        if a.gpu and (a.kvikio or a.nvcomp):
            files = stored_files(path)
            if a.kvikio:
                rows += kvikio_rows(a, files)
            if a.nvcomp:
                rows += nvcomp_rows(a, name, path, files)
        rows = [r if len(r) == 4 else r + (True,) for r in rows]
        for reader, device, gbps, ok in rows:
            results.append(dict(workload=label, decoded_bytes=nbytes, reader=reader, device=device,
                                gb_per_s=gbps, equal_to_tessera=ok))
        print_rows(label, nbytes, rows)
    return results, host, cuda


HEADER = False


def print_rows(label, nbytes, rows):
    global HEADER
    if not HEADER:
        print("| workload | decoded MB | reader | device | GB/s | equal to tessera |")
        print("|---|---:|---|---|---:|---|")
        HEADER = True
    for reader, device, gbps, ok in rows:
        print("| %s | %.1f | %s | %s | %s | %s |" % (
            label, nbytes / 1e6, reader, device, "%.2f" % gbps if gbps else "-",
            "yes" if ok is True else ("NO" if ok is False else ok)), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default="/tmp/tsr-workloads")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--gpu", action="store_true", help="tessera's CUDA phases too")
    ap.add_argument("--only", default="")
    ap.add_argument("--kvikio", default="", help="with --gpu: bench/kvikio_peer built against "
                    "KvikIO (scripts/gpu-peers builds it)")
    ap.add_argument("--nvcomp", default="", help="with --gpu: libnvcomp.so.N for nvcomp_peer")
    ap.add_argument("--nvcomp-peer", default="", help="default: BUILD/nvcomp_peer")
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    a.nvcomp_peer = a.nvcomp_peer or os.path.join(a.build, "nvcomp_peer")
    results, host, cuda = run(a)
    bad = [r for r in results if r["equal_to_tessera"] is False]
    if a.out:
        with open(a.out, "w") as f:
            json.dump(dict(schema="tessera-peers", created=time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                         time.gmtime()),
                           host=host, cuda=cuda, reps=a.reps, results=results), f, indent=1)
    if bad:
        sys.exit("values differ from tessera's: %s" % ", ".join(
            "%s/%s" % (r["workload"], r["reader"]) for r in bad))


if __name__ == "__main__":
    main()
