"""An integer image's BLANK as astropy (6 and later) applies it, tile-compressed or not: any
BLANK makes an unscaled image float (float32 for 8 and 16 bits, float64 for 32), a non-zero one
marks its pixels NaN (astropy's "if self._blank"), with BSCALE/BZERO or without. tessera read a
compressed image's BLANK as nothing, and a BLANK of 0 on any image as nothing: the integers as
stored, where astropy gives floats."""
import warnings

import numpy as np
import pytest

import tessera

fits = pytest.importorskip("astropy.io.fits")


@pytest.mark.parametrize("dtype", ["int16", "int32", "uint8"])
@pytest.mark.parametrize("blank", [None, 0, 5])
@pytest.mark.parametrize("comp", [None, "RICE_1", "GZIP_1", "GZIP_2", "PLIO_1", "HCOMPRESS_1"])
@pytest.mark.parametrize("scale", [None, (2.0, 1.0)])
def test_blank_as_astropy(tmp_path, dtype, blank, comp, scale):
    if comp == "PLIO_1" and dtype != "int16":
        pytest.skip("PLIO holds at most 24-bit integers; astropy writes it for int16 here")
    d = (np.arange(64).reshape(8, 8) % 13).astype(dtype)
    h = fits.Header()
    if blank is not None:
        h["BLANK"] = blank
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if comp is None:
            hdu = fits.PrimaryHDU(d, header=h)
        else:
            hdu = fits.CompImageHDU(d, header=h, compression_type=comp)
        if scale:
            hdu.header["BSCALE"], hdu.header["BZERO"] = scale
        p = str(tmp_path / "b.fits")
        fits.HDUList([hdu] if comp is None else [fits.PrimaryHDU(), hdu]).writeto(p)
        i = 0 if comp is None else 1
        want = fits.open(p)[i].data
    got = tessera.open(p, hdu=i)[...]
    assert got.dtype == want.dtype.newbyteorder("=")
    np.testing.assert_array_equal(got, want)
