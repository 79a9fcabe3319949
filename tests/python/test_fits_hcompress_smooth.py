"""HCOMPRESS_1 tiles written with smoothing as astropy writes it (ZNAME = 'SMOOTH', ZVAL a
logical T) read as astropy and funpack read them. tessera took only an integer 1 as "smooth"
and decoded T as no smoothing: lossy tiles came back off by about one, silently. A SMOOTH value
that is neither an integer nor a logical is refused, not read as no smoothing."""
import warnings

import numpy as np
import pytest

import tessera

fits = pytest.importorskip("astropy.io.fits")


def _write(p, d, smooth):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits.HDUList([fits.PrimaryHDU(), fits.CompImageHDU(
            d, compression_type="HCOMPRESS_1", hcomp_scale=4.0,
            hcomp_smooth=smooth)]).writeto(p, overwrite=True)
        return fits.getdata(p, 1)


@pytest.mark.parametrize("dtype", ["i2", "i4", "u2"])
@pytest.mark.parametrize("smooth", [True, False])
def test_as_astropy(tmp_path, dtype, smooth):
    rng = np.random.default_rng(7)
    d = rng.normal(1000, 50, size=(32, 40)).astype(dtype)
    p = str(tmp_path / "h.fits")
    want = _write(p, d, smooth)
    got = tessera.read(p, hdu=1)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(tessera.open(p, hdu=1)[5:30:3, ::-2], want[5:30:3, ::-2])


def test_smooth_not_a_number_or_logical_refused(tmp_path):
    p = str(tmp_path / "h.fits")
    _write(p, np.arange(32 * 40, dtype="i2").reshape(32, 40), True)
    raw = bytearray(open(p, "rb").read())
    card = b"ZVAL2   =                    T"
    at = raw.find(card)
    assert at > 0
    raw[at:at + len(card)] = b"ZVAL2   = 'YES'              ".ljust(len(card))
    open(p, "wb").write(bytes(raw))
    with pytest.raises(tessera.FormatError, match="ZVAL2"):
        tessera.read(p, hdu=1)
