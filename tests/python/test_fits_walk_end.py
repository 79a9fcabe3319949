"""A FITS file's HDUs end where no XTENSION card starts: zeros, blanks or junk after the last
HDU are read past, as astropy reads past zeros and junk (listing, opening by name and `info` worked
only up to them: "card 0 is not ASCII text"); an HDU past them is out of range. An extension
whose header is cut short is listed after the HDUs before it (opening it names the fault),
where the whole listing failed."""
import warnings

import numpy as np
import pytest

import tessera

fits = pytest.importorskip("astropy.io.fits")


def _mef(path):
    a = np.arange(12, dtype="i2").reshape(3, 4)
    b = np.ones((2, 5), "f4")
    fits.HDUList([fits.PrimaryHDU(a), fits.ImageHDU(b, name="SCI")]).writeto(path)
    return open(path, "rb").read(), a, b


@pytest.mark.parametrize("tail", [bytes(2880), b" " * 2880, bytes(range(256)) * 12,
                                  b"\xff" * 100])
def test_after_the_last_hdu(tmp_path, tail):
    p = str(tmp_path / "t.fits")
    raw, a, b = _mef(p)
    open(p, "wb").write(raw + tail)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with fits.open(p) as f:
                assert len(f) == 2
    except OSError:  # (astropy stops at a block of blanks: "Header missing END card")
        assert tail == b" " * 2880
    assert [e["hdu"] for e in tessera.list_arrays(p)] == [0, 1]
    np.testing.assert_array_equal(tessera.read(p, hdu="SCI"), b)
    with pytest.raises(IndexError, match="the file has 2 HDUs"):
        tessera.open(p, hdu=2)
    with pytest.raises(tessera.NotFoundError, match="no HDU with EXTNAME 'ERR'"):
        tessera.open(p, hdu="ERR")


def test_cut_in_the_last_header(tmp_path):
    p = str(tmp_path / "cut.fits")
    raw, a, b = _mef(p)
    third = fits.ImageHDU(np.zeros((2, 2), "i4"), name="VAR")
    extra = bytes(third.header.tostring(), "ascii")[:1000]  # no END
    open(p, "wb").write(raw + extra)
    entries = tessera.list_arrays(p)
    assert [e["hdu"] for e in entries] == [0, 1, 2]
    assert entries[1]["shape"] == (2, 5) and "error" not in entries[1]
    assert "truncated header" in entries[2]["error"] or "no END" in entries[2]["error"]
    np.testing.assert_array_equal(tessera.read(p, hdu=1), b)
    with pytest.raises(tessera.FormatError, match="HDU 2"):
        tessera.open(p, hdu=2)
