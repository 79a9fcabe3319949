"""Strings of a file that are not UTF-8 (a Blosc2 vlmeta string, a Zarr attribute) come out of
metadata() and attrs with U+FFFD for each such byte, as Python's errors="replace" gives them:
the metadata document is valid UTF-8 (they raised UnicodeDecodeError naming no file, and
`tessera info --attrs` printed invalid JSON). A path or array name that is not UTF-8 (legal on
Linux) comes back from info() as os.fsdecode gives it, and error messages name the path once
(twice, when it held such bytes)."""
import json
import os

import numpy as np
import pytest

import tessera

zarr = pytest.importorskip("zarr")


def _zarr_with_attr(p, zarr_format):
    zarr.create_array(p, shape=(4,), chunks=(2,), dtype="i4", zarr_format=zarr_format)[...] = 1
    meta = os.path.join(p, ".zattrs" if zarr_format == 2 else "zarr.json")
    doc = json.load(open(meta)) if os.path.exists(meta) else {}
    if zarr_format == 2:
        doc = {"note": "MARKxyz"}
    else:
        doc["attributes"] = {"note": "MARKxyz"}
    raw = json.dumps(doc).encode().replace(b"MARKxyz", b"MARK\xffyz")
    open(meta, "wb").write(raw)


@pytest.mark.parametrize("fmt", [2, 3])
def test_zarr_attribute_bytes(tmp_path, fmt):
    p = str(tmp_path / "a.zarr")
    _zarr_with_attr(p, fmt)
    a = tessera.open(p)
    assert a.attrs["note"] == "MARK\ufffdyz"
    assert a.metadata()["attributes"]["note"] == "MARK\ufffdyz"
    np.testing.assert_array_equal(a[...], [1, 1, 1, 1])


def test_blosc2_vlmeta_bytes(tmp_path):
    blosc2 = pytest.importorskip("blosc2")
    p = str(tmp_path / "v.b2nd")
    b = blosc2.asarray(np.arange(10, dtype="i2"), urlpath=p, mode="w")
    b.schunk.vlmeta["k"] = "MARKxyz"
    del b
    raw = open(p, "rb").read()
    assert raw.count(b"MARKxyz") == 1
    open(p, "wb").write(raw.replace(b"MARKxyz", b"MARK\xfeyz"))
    a = tessera.open(p)
    assert a.attrs["k"] == "MARK\ufffdyz"
    np.testing.assert_array_equal(a[...], np.arange(10))


def test_non_utf8_paths(tmp_path):
    d = os.path.join(os.fsencode(str(tmp_path)), b"dir\xff")
    os.makedirs(d)
    store = os.path.join(d, b"g.zarr")
    g = zarr.open_group(os.fsdecode(store), mode="w", zarr_format=2)
    g.create_array("plain", shape=(3,), dtype="u1")[...] = 2
    os.rename(os.path.join(store, b"plain"), os.path.join(store, b"arr\xfe"))
    name = os.fsdecode(b"arr\xfe")
    a = tessera.open(os.fsdecode(store), array=name)
    assert a.info()["name"] == name
    assert a.metadata()["format"] == "zarr" and a.attrs == {}
    np.testing.assert_array_equal(a[...], [2, 2, 2])
    bad = os.path.join(d, b"bad.fits")
    open(bad, "wb").write(b"SIMPLE  =                    T".ljust(2880))
    with pytest.raises(tessera.FormatError) as e:
        tessera.open(os.fsdecode(bad))
    assert str(e.value).count("bad.fits") == 1, str(e.value)
