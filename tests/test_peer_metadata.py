"""test_peer_metadata.py - tsr_array_metadata (through `tessera info --attrs`) on fresh files of
the peers that write the metadata: python-blosc2's vlmeta (msgpack values, nested) and
zarr-python 3's attributes, dimension names and fill values (v2 and v3), compared with what
the peers read back."""
import json
import os
import subprocess
import tempfile

import blosc2
import numpy as np
import zarr

from corpus_util import BIN, report

failures = []
total = 0


def attrs_of(path):
    p = subprocess.run([BIN, "info", path, "--attrs"], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        failures.append("%s: exit %d: %s" % (path, p.returncode, p.stderr.strip()))
        return {}
    return json.loads(p.stdout)


def check(what, got, want):
    global total
    total += 1
    if got != want:
        failures.append("%s: got %r, want %r" % (what, got, want))


with tempfile.TemporaryDirectory() as tmp:
    # python-blosc2: vlmeta values of every msgpack kind python-blosc2 writes
    path = os.path.join(tmp, "vl.b2nd")
    a = blosc2.asarray(np.arange(600, dtype="<i4").reshape(20, 30), urlpath=path, mode="w",
                       chunks=(10, 10), blocks=(5, 5))
    values = {"unit": "K", "n": 2 ** 40 + 3, "neg": -7, "x": 0.125, "ok": True, "none": None,
              "nested": {"list": [1, "two", [3.5, False]], "empty": {}},
              "utf8": "\u00e9t\u00e9", "raw": b"\x00\x01\xff"}
    for k, v in values.items():
        a.vlmeta[k] = v
    back = {k: a.vlmeta[k] for k in values}
    m = attrs_of(path)
    want = dict(back, raw={"bytes_hex": back["raw"].hex()})
    check("b2nd vlmeta", m.get("vlmeta"), want)
    check("b2nd metalayers", m.get("metalayers"), list(a.schunk.meta.keys()))
    check("b2nd layout", m.get("layout"), {"kind": "chunks", "chunk_shape": [10, 10]})

    # zarr-python 3: v3 with dimension names, v2 with xarray's _ARRAY_DIMENSIONS
    for fmt in (3, 2):
        store = os.path.join(tmp, "a%d.zarr" % fmt)
        kw = {"dimension_names": ["time", "y"]} if fmt == 3 else {}
        z = zarr.create_array(store, shape=(6, 8), chunks=(3, 4), dtype="float32",
                              fill_value=-1.5, zarr_format=fmt, **kw)
        z[:] = np.arange(48, dtype="f4").reshape(6, 8)
        attrs = {"title": "peer", "scale": [1, 2.5], "meta": {"k": None}}
        if fmt == 2:
            attrs["_ARRAY_DIMENSIONS"] = ["time", "y"]
        z.attrs.update(attrs)
        m = attrs_of(store)
        reopened = zarr.open_array(store, mode="r")
        check("zarr v%d attributes" % fmt, m.get("attributes"), dict(reopened.attrs))
        check("zarr v%d dimension names" % fmt, m.get("dimension_names"), ["time", "y"])
        check("zarr v%d fill value" % fmt, m.get("fill_value"), float(reopened.fill_value))
        check("zarr v%d format" % fmt, m.get("zarr_format"), fmt)

report(failures, total)
