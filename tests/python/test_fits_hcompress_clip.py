"""Lossy HCOMPRESS_1 (fpack -h -s N) of 16-bit images near their range's ends decodes to values
past it: tessera clips them, as CFITSIO does (funpack's output, read back), where it refused the
tile ("does not fit int16"); 8-bit images past their range are still refused, as CFITSIO
refuses them (status 412)."""
import os
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import tessera

fits = pytest.importorskip("astropy.io.fits")
pytestmark = pytest.mark.skipif(not (shutil.which("fpack") and shutil.which("funpack")),
                                reason="fpack/funpack (libcfitsio-bin) not installed")


def _packed(tmp_path, d, bzero=None):
    p = str(tmp_path / "h.fits")
    h = fits.PrimaryHDU(d)
    if bzero is not None:
        h.scale("int16", bzero=bzero)
    h.writeto(p)
    subprocess.run(["fpack", "-h", "-s", "4", p], check=True, cwd=str(tmp_path))
    return p + ".fz"


@pytest.mark.parametrize("kind", ["int16-top", "int16-bottom", "uint16-top"])
def test_16bit_clipped_as_cfitsio(tmp_path, kind):
    rng = np.random.default_rng(7)
    if kind == "int16-top":
        d, bz = rng.integers(32000, 32768, (64, 80)).astype(np.int16), None
    elif kind == "int16-bottom":
        d, bz = rng.integers(-32768, -32000, (64, 80)).astype(np.int16), None
    else:
        d, bz = rng.integers(65000, 65536, (64, 80)).astype(np.uint16), 32768
    fz = _packed(tmp_path, d, bz)
    out = str(tmp_path / "u.fits")
    subprocess.run(["funpack", "-O", out, fz], check=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = fits.open(out)[0].data
    got = tessera.open(fz, hdu=1)[...]
    assert got.dtype == want.dtype.newbyteorder("=")
    np.testing.assert_array_equal(got, want)
    lim = np.iinfo(got.dtype)
    assert (got == lim.max).any() or (got == lim.min).any()  # (values were clipped)


def test_8bit_refused(tmp_path):
    d = np.random.default_rng(0).integers(0, 256, (61, 83)).astype(np.uint8)
    fz = _packed(tmp_path, d)
    with pytest.raises(tessera.CorruptError, match="does not fit uint8"):
        tessera.open(fz, hdu=1)[...]
