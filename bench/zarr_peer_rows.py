"""zarr_peer_rows.py - a Zarr store's peer rows for the GPU end-to-end tables: tensorstore's host
read, and that read copied into device memory with CuPy (the fallback a CuPy user has without a
GPU decoder), in MB/s of decoded output at the median of --iterations after one warm-up.

Prints one line a row, "PEER ROW: NAME MB/s", NAME "tensorstore" or "tensorstore+cupy"; the
second only where CuPy finds a device. Usage: python3 bench/zarr_peer_rows.py STORE [-n N]"""
import argparse
import os
import statistics
import time

import tensorstore as ts


def spec(path):
    """The tensorstore spec of the store at path (Zarr v3 where zarr.json is, else v2)."""
    driver = "zarr3" if os.path.exists(os.path.join(path, "zarr.json")) else "zarr"
    return {"driver": driver, "kvstore": {"driver": "file", "path": path}}


def median_ms(fn, n):
    fn()
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("store")
    p.add_argument("-n", "--iterations", type=int, default=5)
    a = p.parse_args()
    s = spec(os.path.abspath(a.store))

    def host():
        return ts.open(s, open=True).result().read().result()

    arr = host()
    print("PEER ROW: tensorstore %.1f" % (arr.nbytes / median_ms(host, a.iterations) / 1e6))
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # no CuPy or no device: the row is left out, and why
        print("PEER ROW: tensorstore+cupy skipped (%s)" % type(e).__name__)
        return

    def copied():
        d = cupy.asarray(host())
        cupy.cuda.Device().synchronize()
        return d

    d = copied()
    if cupy.asnumpy(d).tobytes() != arr.tobytes():  # (bit for bit: NaN payloads too)
        raise SystemExit("tensorstore+cupy: the device copy differs from the host read")
    print("PEER ROW: tensorstore+cupy %.1f" % (arr.nbytes / median_ms(copied, a.iterations) / 1e6))


if __name__ == "__main__":
    main()
