"""A primary HDU of random groups (UVFITS: NAXIS1 = 0, GROUPS = T, a parameter block beside
each group's array) is not an image: opening it says so, the listing calls it a table, and
opening the file without an HDU picks the first image after it. It opened as an empty array
of shape (1,2,3,0) and read nothing, silently."""
import numpy as np
import pytest

import tessera

fits = pytest.importorskip("astropy.io.fits")


def _uvfits(path):
    data = np.arange(4 * 6, dtype="f4").reshape(4, 1, 2, 3)
    pars = np.arange(8, dtype="f4").reshape(4, 2)
    gd = fits.GroupData(data, parnames=["UU", "VV"], pardata=[pars[:, 0], pars[:, 1]],
                        bitpix=-32)
    img = np.arange(6, dtype="i2").reshape(2, 3)
    fits.HDUList([fits.GroupsHDU(gd), fits.ImageHDU(img, name="IMG")]).writeto(path)
    return img


def test_groups_refused_and_listed_as_table(tmp_path):
    p = str(tmp_path / "uv.fits")
    img = _uvfits(p)
    with fits.open(p) as f:
        assert isinstance(f[0], fits.GroupsHDU)
    with pytest.raises(NotImplementedError, match="HDU 0 holds random groups"):
        tessera.open(p, hdu=0)
    entries = tessera.list_arrays(p)
    assert [e["kind"] for e in entries] == ["table", "array"]
    np.testing.assert_array_equal(tessera.read(p), img)  # the first image
    np.testing.assert_array_equal(tessera.read(p, hdu="IMG"), img)
