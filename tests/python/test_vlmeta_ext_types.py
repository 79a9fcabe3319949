"""Blosc2 vlmeta values python-blosc2 packs as msgpack extension types come back in attrs as
python-blosc2 gives them: complex numbers, sets and NumPy arrays (codes 44, 45, 46), nested too.
They came back as {"ext_type", "nbytes"} placeholders. metadata() keeps the document's form, now
with each payload's hex; a code tessera does not decode (an NDArray's cframe) stays in it."""
import numpy as np
import pytest

import tessera

blosc2 = pytest.importorskip("blosc2")
pytest.importorskip("msgpack")

VALUES = {
    "c": 1 + 2j,
    "cneg": complex(-0.5, float("inf")),
    "s": {1, 2, 3},
    "st": {"a", (1, "b")},
    "a": np.arange(6, dtype="<f4").reshape(2, 3),
    "abe": np.array([1, 2], dtype=">i8"),
    "arec": np.array([(1, 2.5)], dtype=[("x", "<i2"), ("y", "<f8")]),
    "nest": {"k": [1j, {4, 5}], "t": (np.arange(2, dtype="u1"), 3j)},
}


def _same(a, b):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and \
            a.tobytes() == b.tobytes()
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


def test_ext_types_as_blosc2(tmp_path):
    p = str(tmp_path / "v.b2nd")
    b = blosc2.asarray(np.arange(10), urlpath=p, mode="w")
    for k, v in VALUES.items():
        b.vlmeta[k] = v
    del b
    o = blosc2.open(p)
    t = tessera.open(p)
    for k in VALUES:
        assert _same(t.attrs[k], o.vlmeta[k]), (k, t.attrs[k], o.vlmeta[k])
    doc = t.metadata()["vlmeta"]["c"]
    assert doc["ext_type"] == 44 and doc["nbytes"] == 16
    assert bytes.fromhex(doc["bytes_hex"]) == bytes.fromhex("3ff0000000000000" "4000000000000000")


def test_other_codes_stay(tmp_path):
    p = str(tmp_path / "w.b2nd")
    b = blosc2.asarray(np.arange(10), urlpath=p, mode="w")
    b.vlmeta["arr"] = blosc2.asarray(np.arange(3))  # (code 42: a cframe)
    del b
    v = tessera.open(p).attrs["arr"]
    assert isinstance(v, dict) and v["ext_type"] == 42 and v["nbytes"] > 0
