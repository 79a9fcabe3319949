"""FITS cards of complex values ("(1.5, -2.0)", integer or real parts, Fortran exponents) come
back in attrs as astropy's header[key] gives them, a complex; they came back as their text, which
a string of the same text could not be told from. metadata() keeps the text as the value and puts
the parts beside it ("complex"); a quoted string that looks like one stays a string."""
import numpy as np
import pytest

import tessera

fits = pytest.importorskip("astropy.io.fits")


def _card(key, text):
    return (key.ljust(8) + "= " + text.rjust(20)).ljust(80).encode()


def test_complex_as_astropy(tmp_path):
    p = str(tmp_path / "c.fits")
    h = fits.PrimaryHDU(np.zeros((2, 3), "i2"))
    h.header["CVAL"] = 1.5 - 2j
    h.header["CINT"] = (3 + 4j)
    h.header["SLOOK"] = "(1.0, 2.0)"
    h.writeto(p)
    raw = bytearray(open(p, "rb").read())
    at = raw.find(b"CINT    =")  # (integer parts and a Fortran exponent, as FITS allows)
    raw[at:at + 80] = _card("CINT", "(3, 4.0D1)")
    open(p, "wb").write(bytes(raw))
    with fits.open(p) as f:
        want = {k: f[0].header[k] for k in ("CVAL", "CINT", "SLOOK")}
    a = tessera.open(p).attrs
    for k, w in want.items():
        assert type(a[k]) is type(w) and a[k] == w, (k, a[k], w)
    cards = {c["key"]: c for c in tessera.open(p).metadata()["header"]}
    assert cards["CVAL"]["complex"] == [1.5, -2.0] and isinstance(cards["CVAL"]["value"], str)
    assert cards["CINT"]["complex"] == [3, 40.0]
    assert "complex" not in cards["SLOOK"]
