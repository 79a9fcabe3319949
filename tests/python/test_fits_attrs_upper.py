"""A FITS header's lower-case keywords come back in attrs upper-cased, as astropy's header
names them (`attrs['EXPTIME']` raised KeyError where the file wrote "exptime"); HIERARCH
keywords keep their words as written, as astropy keeps them. metadata() keeps each card's key
as the file writes it, and marks HIERARCH cards."""
import warnings

import numpy as np
import pytest

import tessera

fits = pytest.importorskip("astropy.io.fits")


def test_as_astropy(tmp_path):
    p = str(tmp_path / "lower.fits")
    cards = ["SIMPLE  =                    T", "BITPIX  =                   16",
             "NAXIS   =                    1", "NAXIS1  =                    3",
             "exptime =                 12.5 / seconds", "Object  = 'M31'",
             "HIERARCH ESO det Name = 'CCD-42'", "HIERARCH foo = 7", "END"]
    raw = "".join(c.ljust(80) for c in cards).ljust(2880).encode("ascii")
    open(p, "wb").write(raw + np.array([1, 2, 3], ">i2").tobytes().ljust(2880, b"\0"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with fits.open(p) as f:
            want = {k: f[0].header[k] for k in f[0].header.keys()}
    a = tessera.open(p)
    assert dict(a.attrs) == want
    assert a.attrs["EXPTIME"] == 12.5 and a.attrs["ESO det Name"] == "CCD-42"
    doc = {c["key"]: c for c in a.metadata()["header"]}
    assert "exptime" in doc and "hierarch" not in doc["exptime"]
    assert doc["ESO det Name"]["hierarch"] is True and doc["foo"]["hierarch"] is True
