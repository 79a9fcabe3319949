"""zarr_attrs_open.py - what a large .zattrs costs a Zarr v2 array's open and read, and its
attributes, in tessera and zarr-python, in one run on the same store. A benchmark, not a test:
it prints seconds (the median of ROUNDS).

Usage: .venv/bin/python bench/zarr_attrs_open.py [N_ATTR_INTEGERS (4000000)] [ROUNDS (3)]
"""
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

import tessera

try:
    import zarr
except ImportError:  # (the peer is optional: its columns print as -)
    zarr = None


def timed(fn, rounds):
    ts = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4_000_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    d = tempfile.mkdtemp()
    p = os.path.join(d, "a.zarr")
    os.makedirs(p)
    json.dump({"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<i4",
               "compressor": None, "fill_value": 0, "order": "C", "filters": None},
              open(os.path.join(p, ".zarray"), "w"))
    open(os.path.join(p, "0"), "wb").write(np.arange(4, dtype="<i4").tobytes())
    json.dump({"big": list(range(n))}, open(os.path.join(p, ".zattrs"), "w"))
    mb = os.path.getsize(os.path.join(p, ".zattrs")) / 1e6
    rows = [("tessera", lambda: tessera.open(p)[...], lambda: tessera.open(p).attrs["big"])]
    if zarr:
        rows.append(("zarr-python", lambda: zarr.open_array(p, mode="r")[...],
                     lambda: zarr.open_array(p, mode="r").attrs["big"]))
    print("| reader (.zattrs %.1f MB) | open + read s | attrs s |" % mb)
    print("|---|---:|---:|")
    for name, read, attrs in rows:
        print("| %s | %.4f | %.3f |" % (name, timed(read, rounds), timed(attrs, rounds)))
    shutil.rmtree(d)


if __name__ == "__main__":
    main()
