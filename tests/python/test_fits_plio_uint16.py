"""PLIO_1 tiles of a uint16 image (BITPIX 16, BZERO 32768; fpack -p) read as funpack reads them,
pixels of 32768 and up too: PLIO stores the unsigned pixels as they are, and tessera checked
them against int16 and refused the tile ("pixel 4 = 40000 does not fit int16")."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import tessera

fits = pytest.importorskip("astropy.io.fits")
pytestmark = pytest.mark.skipif(not (shutil.which("fpack") and shutil.which("funpack")),
                                reason="fpack/funpack (libcfitsio-bin) not installed")


@pytest.mark.parametrize("top", [65535, 32767])
def test_as_funpack(tmp_path, top):
    # (runs, as PLIO's masks hold: fpack -p crashes on noise of large values, "malloc():
    # corrupted top size")
    vals = [5, 40000, top, 32768, 0, 100] if top > 32767 else [5, 32767, 0, 100, 7, 1]
    d = np.repeat(np.array(vals, np.uint16), 40).reshape(20, 12)
    src, fz, unp = (str(tmp_path / n) for n in ("s.fits", "s.fits.fz", "u.fits"))
    fits.PrimaryHDU(d).writeto(src)
    subprocess.run(["fpack", "-p", "-O", fz, src], check=True)
    subprocess.run(["funpack", "-O", unp, fz], check=True)
    want = fits.getdata(unp)
    np.testing.assert_array_equal(want, d)  # (funpack, the reference, gives the pixels back)
    got = tessera.read(fz, hdu=1)
    assert got.dtype == np.uint16
    np.testing.assert_array_equal(got, d)
    np.testing.assert_array_equal(tessera.open(fz, hdu=1)[1:19:2, ::-3], d[1:19:2, ::-3])
