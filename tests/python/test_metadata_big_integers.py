"""Integers past 2^31 and up to 2^53 keep every digit in the metadata document and in attrs
(Zarr attributes and fill values, FITS cards, Blosc2 vlmeta): cJSON wrote them in 15
significant digits, so 5000000000000001 came back as 5e+15. A Zarr extent past 2^53 that rounds
to it (2^53 + 1) is refused as the larger ones are, where it opened as 2^53."""
import json
import os
import subprocess

import numpy as np
import pytest

import tessera

BIG = [2**31 + 1, -(2**31) - 7, 10**15 + 1, 5000000000000001, 2**53 - 1, -(2**53) + 1, 2**53]


def test_zarr(tmp_path):
    zarr = pytest.importorskip("zarr")
    p = str(tmp_path / "z.zarr")
    z = zarr.create_array(p, shape=(2,), chunks=(2,), dtype="i8", fill_value=2**53 - 1,
                          zarr_format=2)
    z.attrs.update({"big": BIG, "one": 5000000000000001})
    a = tessera.open(p)
    assert a.attrs["big"] == BIG and a.attrs["one"] == 5000000000000001
    assert all(type(v) is int for v in a.attrs["big"])
    assert a.metadata()["fill_value"] == 2**53 - 1
    assert a[0] == 2**53 - 1
    bin_ = os.environ.get("TSR_BIN", os.path.join(os.path.dirname(__file__), "../../build/tessera"))
    if os.path.exists(bin_):
        out = subprocess.run([bin_, "info", "--json", "--attrs", p], capture_output=True, text=True).stdout
        assert "5000000000000001" in out and "9007199254740991" in out


def test_fits(tmp_path):
    fits = pytest.importorskip("astropy.io.fits")
    p = str(tmp_path / "f.fits")
    h = fits.PrimaryHDU(np.zeros((2, 2), "f4"))
    for k, v in enumerate(BIG):
        h.header["BIG%d" % k] = v
    h.writeto(p)
    attrs = tessera.open(p).attrs
    assert [attrs["BIG%d" % k] for k in range(len(BIG))] == BIG


def test_blosc2(tmp_path):
    blosc2 = pytest.importorskip("blosc2")
    p = str(tmp_path / "b.b2nd")
    b = blosc2.asarray(np.arange(6, dtype="i4"), urlpath=p, mode="w")
    b.vlmeta["big"] = BIG
    assert tessera.open(p).attrs["big"] == BIG


def test_extent_past_2_53_refused(tmp_path):
    for n in (2**53 + 1, 2**53 + 2):
        p = tmp_path / ("e%d.zarr" % n)
        p.mkdir()
        (p / ".zarray").write_text(json.dumps({
            "zarr_format": 2, "shape": [n], "chunks": [2**40], "dtype": "|u1",
            "compressor": None, "fill_value": 1, "order": "C", "filters": None}))
        with pytest.raises(NotImplementedError, match=r"= %d is above 2\^53" % n):
            tessera.open(str(p))
    p = tmp_path / "max.zarr"
    p.mkdir()
    (p / ".zarray").write_text(json.dumps({
        "zarr_format": 2, "shape": [2**53], "chunks": [2**40], "dtype": "|u1",
        "compressor": None, "fill_value": 1, "order": "C", "filters": None}))
    assert tessera.open(str(p)).shape == (2**53,)
