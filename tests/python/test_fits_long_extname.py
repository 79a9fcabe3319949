"""An EXTNAME past 68 characters, which astropy writes over CONTINUE cards, is listed, named and
opened whole, as astropy's f[name] opens it (it was cut at 71 characters and could not be
opened by name)."""
import numpy as np
import pytest

import tessera

fits = pytest.importorskip("astropy.io.fits")


def test_long_extname(tmp_path):
    p = str(tmp_path / "long.fits")
    names = ["CAL_" + "X" * 90 + "_A", "CAL_" + "X" * 90 + "_B"]
    fits.HDUList([fits.PrimaryHDU()] +
                 [fits.ImageHDU(np.full((2, 3), k, "i2"), name=n)
                  for k, n in enumerate(names, 1)]).writeto(p)
    with fits.open(p) as f:
        assert [h.name for h in f[1:]] == names  # astropy's own reading
        want = {n: f[n].data.copy() for n in names}
    assert [e["name"] for e in tessera.list_arrays(p)[1:]] == names
    for n in names:
        with tessera.open(p, hdu=n) as a:
            assert a.info()["name"] == n
            np.testing.assert_array_equal(a[...], want[n])
        np.testing.assert_array_equal(tessera.read(p, hdu=n.lower()), want[n])
    with pytest.raises(tessera.NotFoundError):
        tessera.open(p, hdu=names[0][:70])
