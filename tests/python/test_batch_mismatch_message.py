"""A batch whose file's selection has another shape or dtype than the first file's names both
files with both shapes and dtypes (read_batch, stream), where it said "shape or dtype (float32)
differs from a.fits's (float32)"."""
import numpy as np
import pytest

import tessera

fits = pytest.importorskip("astropy.io.fits")


@pytest.fixture
def files(tmp_path):
    out = []
    for name, shape, dt in (("a", (3, 4), "f4"), ("b", (3, 4), "f4"), ("c", (4, 4), "f4"),
                            ("d", (3, 4), "i2")):
        p = str(tmp_path / (name + ".fits"))
        fits.PrimaryHDU(np.zeros(shape, dt)).writeto(p)
        out.append(p)
    return out


def test_read_batch(files):
    a, b, c, d = files
    with pytest.raises(tessera.FormatError,
                       match=r"c\.fits: its selection is \(4,4\) float32, where the batch's "
                             r"first file's \(.*a\.fits\) is \(3,4\) float32"):
        tessera.read_batch([a, b, c])
    with pytest.raises(tessera.FormatError, match=r"d\.fits: its selection is \(3,4\) int16"):
        tessera.read_batch([a, d])
    with pytest.raises(tessera.FormatError, match=r"is \(2,4\) float32, where .* is \(1,4\)"):
        tessera.read_batch([a, c], key=np.s_[2:])


def test_stream(files):
    a, b, c, _ = files
    s = tessera.stream([a, b, c], batch=2)
    next(s)
    with pytest.raises(tessera.FormatError, match=r"\(4,4\) float32, where .* \(3,4\) float32"):
        next(s)
