"""test_cli_info_nonfinite.py - `tessera info` on metadata holding what strict JSON does not:
a Zarr array's bare NaN / Infinity / -Infinity (attributes and fill value, as Python's json
writes them) opens, and --json, --attrs and the table print them (and reals such as 1.0 and
-0.0, and integers beyond 2^53) as the library's document has them, where the CLI's re-parse of
that document failed ("out of memory", exit 1) or printed 1.0 as 1."""
import json
import math
import os
import tempfile

from corpus_util import report, run_info

failures = []
total = 0


def run(*args):
    return run_info(failures, *args)


def check(what, ok):
    global total
    total += 1
    if not ok:
        failures.append(what)


def same(a, b):
    """Equal values of equal types, NaN equal to NaN, -0.0 apart from 0.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


ATTRS = {"nodata": float("nan"), "hi": float("inf"), "lo": float("-inf"),
         "reals": [1.0, -0.0, 1e-300], "big": 2**63 + 5, "text": "NaN"}

with tempfile.TemporaryDirectory() as tmp:
    store = os.path.join(tmp, "nan.zarr")
    os.mkdir(store)
    with open(os.path.join(store, ".zarray"), "w") as f:
        f.write('{"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<f8", '
                '"compressor": null, "filters": null, "order": "C", "fill_value": NaN}')
    with open(os.path.join(store, ".zattrs"), "w") as f:
        json.dump(ATTRS, f)  # (Python's json writes the bare tokens)
    with open(os.path.join(store, "0"), "wb") as f:
        f.write(bytes(8 * 4))

    out = run(store)
    check("table names the NaN fill value: %r" % out, out is not None and "fill value NaN" in out)
    out = run("--json", store)
    if out is not None:
        e = json.loads(out)["entries"][0]
        check("--json fill_value %r" % e.get("fill_value"), same(e.get("fill_value"), float("nan")))
    out = run("--attrs", store)
    if out is not None:
        d = json.loads(out)
        check("--attrs attributes %r" % d.get("attributes"), same(d.get("attributes"), ATTRS))

report(failures, total)
