"""A FITS header with bytes outside printable ASCII (a Latin-1 name in a string or comment, as
archives hold) reads as astropy reads it: the HDU and those after it open, their pixels as
astropy's, and attrs has '?' for each such byte (astropy's replacement). Every HDU from the
first such header on was refused ("card 6 is not ASCII text")."""
import warnings

import numpy as np
import pytest

import tessera

fits = pytest.importorskip("astropy.io.fits")


def _write(path):
    a = np.arange(30, dtype="i2").reshape(5, 6)
    b = np.linspace(0, 1, 12, dtype="f4").reshape(3, 4)
    hdr = fits.Header()
    hdr["OBSERVER"] = ("Jorg Muller", "cafe")
    fits.HDUList([fits.PrimaryHDU(a, header=hdr), fits.ImageHDU(b, name="SCI")]).writeto(path)
    raw = bytearray(open(path, "rb").read())
    for word, latin in ((b"Jorg", "Jörg"), (b"Muller", "Müller"), (b"cafe", "café")):
        i = raw.index(word)
        raw[i:i + len(word)] = latin.encode("latin-1")
    open(path, "wb").write(bytes(raw))
    return a, b


def test_as_astropy(tmp_path):
    p = str(tmp_path / "latin.fits")
    a, b = _write(p)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with fits.open(p) as f:
            want0, want1 = f[0].data.copy(), f[1].data.copy()
            observer = f[0].header["OBSERVER"]
    assert observer == "J?rg M?ller"
    np.testing.assert_array_equal(tessera.read(p, hdu=0), want0)
    np.testing.assert_array_equal(tessera.read(p, hdu="SCI"), want1)
    np.testing.assert_array_equal(want0, a)
    assert tessera.open(p).attrs["OBSERVER"] == observer
    assert [e["name"] for e in tessera.list_arrays(p)] == ["", "SCI"]
