"""A negative hdu counts from the file's end, as astropy's f[-1] does (open and read): -1 is the
last HDU; past the first, IndexError naming the file and the count. It was refused ("hdu must be
>= 0").
read_batch and stream take indices from the start only (their files may differ in count)."""
import re

import numpy as np
import pytest

import tessera

fits = pytest.importorskip("astropy.io.fits")


def test_from_end(tmp_path):
    p = str(tmp_path / "m.fits")
    imgs = [np.full((2, 3), i, "i2") for i in range(3)]
    fits.HDUList([fits.PrimaryHDU(imgs[0])] +
                 [fits.ImageHDU(a, name="E%d" % i) for i, a in enumerate(imgs[1:], 1)]).writeto(p)
    with fits.open(p) as f:
        want = [f[k].data.copy() for k in (-1, -2, -3)]
    for k, w in zip((-1, -2, -3), want):
        np.testing.assert_array_equal(tessera.open(p, hdu=k)[...], w)
        np.testing.assert_array_equal(tessera.read(p, hdu=k), w)
    assert tessera.open(p, hdu=-1).info()["hdu"] == 2
    with pytest.raises(IndexError, match=re.escape(p) + ": hdu -4 out of range: the file has 3 HDUs"):
        tessera.open(p, hdu=-4)
    with pytest.raises(ValueError, match="hdu must be >= 0"):
        tessera.read_batch([p, p], hdu=-1)
