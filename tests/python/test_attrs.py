"""test_attrs.py - Array.attrs is what the format's own reader calls the user's metadata, and
metadata() the whole document (tsr_array_metadata): zarr-python's attrs (v2 .zattrs, v3
attributes), python-blosc2's vlmeta, and a FITS HDU's header keywords as astropy's header gives
them (each key's first card, commentary left out; a tile-compressed image's image header, not
its table's). A closed Array refuses both."""
import glob
import os
import warnings

import numpy as np
import pytest

import tessera

from conftest import CORPUS

ATTRS = {"units": "K", "nested": {"list": [1, 2.5, None, "x"], "flag": True},
         "big": 2 ** 60 + 1, "name": "t\u00e9st"}


@pytest.mark.parametrize("fmt", [2, 3])
def test_zarr_attrs(tmp_path, fmt):
    zarr = pytest.importorskip("zarr")
    path = str(tmp_path / "a.zarr")
    z = zarr.create_array(path, shape=(4, 6), chunks=(2, 3), dtype="i4", zarr_format=fmt)
    z[:] = np.arange(24, dtype="i4").reshape(4, 6)
    z.attrs.update(ATTRS)
    want = dict(zarr.open_array(path, mode="r").attrs)
    with tessera.open(path) as a:
        assert a.attrs == want == ATTRS
        meta = a.metadata()
        assert meta["format"] == "zarr" and meta["attributes"] == want
        assert meta["zarr_format"] == fmt


def test_zarr_without_attrs():
    with tessera.open(os.path.join(CORPUS, "zarr3/zstd_f4.zarr")) as a:
        assert a.attrs == {}


def test_blosc2_vlmeta(tmp_path):
    blosc2 = pytest.importorskip("blosc2")
    path = str(tmp_path / "a.b2nd")
    b = blosc2.asarray(np.arange(1000, dtype="f4").reshape(10, 100), urlpath=path, mode="w")
    b.schunk.vlmeta["units"] = "m/s"
    b.schunk.vlmeta["calib"] = {"gain": 1.5, "ids": [1, 2, 3]}
    want = {k: b.schunk.vlmeta[k] for k in b.schunk.vlmeta.getall()}
    with tessera.open(path) as a:
        assert a.attrs == want
        assert a.metadata()["format"] == "blosc2"


def astropy_keys(header):
    out = {}
    for c in header.cards:
        if c.keyword not in ("COMMENT", "HISTORY", ""):
            out.setdefault(c.keyword, c.value)
    return out


def test_fits_headers_as_astropy():
    fits = pytest.importorskip("astropy.io.fits")
    n = ncomp = 0
    for path in sorted(glob.glob(os.path.join(CORPUS, "fits", "*"))):
        if path.endswith(".npy") or os.path.isdir(path):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                hl = fits.open(path)
            except Exception:
                continue
            with hl:
                for i, h in enumerate(hl):
                    try:
                        a = tessera.open(path, hdu=i)
                    except tessera.TesseraError:
                        continue  # (no image in it)
                    with a:
                        assert a.attrs == astropy_keys(h.header), (path, i)
                    n += 1
                    ncomp += isinstance(h, fits.CompImageHDU)
    assert n >= 50 and ncomp >= 20, (n, ncomp)


def test_compressed_image_header(tmp_path):
    fits = pytest.importorskip("astropy.io.fits")
    path = str(tmp_path / "c.fits")
    hdu = fits.CompImageHDU(np.arange(600, dtype="i2").reshape(20, 30), name="SCI",
                            compression_type="RICE_1", tile_shape=(5, 30))
    hdu.header["EXPTIME"] = (12.5, "[s]")
    fits.HDUList([fits.PrimaryHDU(), hdu]).writeto(path)
    with tessera.open(path, hdu=1) as a:
        h = a.attrs
        assert (h["XTENSION"], h["BITPIX"], h["NAXIS"], h["NAXIS1"], h["NAXIS2"]) == \
            ("IMAGE", 16, 2, 30, 20)
        assert h["EXTNAME"] == "SCI" and h["EXPTIME"] == 12.5
        assert not any(k.startswith(("ZTILE", "ZCMPTYPE", "TFORM", "TTYPE")) for k in h), h
        cards = [c["key"] for c in a.metadata()["header"]]
        assert "ZCMPTYPE" in cards and "ZBITPIX" in cards  # (the table's, in metadata())


def test_closed():
    a = tessera.open(os.path.join(CORPUS, "zarr3/zstd_f4.zarr"))
    a.close()
    with pytest.raises(ValueError):
        a.attrs
    with pytest.raises(ValueError):
        a.metadata()
