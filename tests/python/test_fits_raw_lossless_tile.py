"""raw=True of a quantized float image refuses, naming the tile, where a tile holds the floats
themselves (fpack -d's UNCOMPRESSED_DATA, a GZIP_COMPRESSED_DATA fallback): there are no stored
integers to give. The UNCOMPRESSED_DATA case failed with "scale to int32"."""
import os
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import tessera

fits = pytest.importorskip("astropy.io.fits")


@pytest.mark.skipif(not shutil.which("fpack"), reason="fpack (libcfitsio-bin) not installed")
def test_uncompressed_data_tiles(tmp_path):
    p = str(tmp_path / "f.fits")
    fits.PrimaryHDU(np.random.default_rng(0).normal(100, 5, (20, 30)).astype(np.float32)).writeto(p)
    subprocess.run(["fpack", "-d", p], check=True, cwd=str(tmp_path))
    fz = p + ".fz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = fits.open(fz)[1].data
    np.testing.assert_array_equal(tessera.open(fz, hdu=1)[...], want)
    with pytest.raises(NotImplementedError, match="tile 0: raw read of a tile stored losslessly "
                                                  r"\(UNCOMPRESSED_DATA\)"):
        tessera.open(fz, hdu=1, raw=True)[...]
