"""test_repr.py - an Array's repr names the format, the path and what picked the array inside
the file where something did (a FITS HDU, an OME-Zarr level), never an HDU of a format that has
none; then shape, dtype and codec."""
import os

import tessera

from conftest import CORPUS


def r(path, **kw):
    with tessera.open(os.path.join(CORPUS, path), **kw) as a:
        return repr(a)


def test_fits_names_its_hdu():
    s = r("fits/fp_rice_i16.fits.fz")
    assert s.startswith("<tessera.Array fits '") and " hdu=1 shape=(200, 300) " in s
    assert s.endswith("dtype=int16 codec=RICE_1>")


def test_zarr_and_blosc2_name_no_hdu():
    for path in ("zarr3/zstd_f4.zarr", "blosc2/lz4_shuffle_f4_3d.b2nd"):
        s = r(path)
        assert "hdu=" not in s and "level=" not in s, s
        assert "' shape=(" in s, s


def test_ome_zarr_names_its_level():
    assert " level=1 shape=(128, 160) " in r("zarr2/ome_multiscale.zarr", level=1)
    assert " level=0 shape=" in r("zarr2/ome_multiscale.zarr", level=0)
    assert "level=" not in r("zarr3/zstd_f4.zarr", level=0)
