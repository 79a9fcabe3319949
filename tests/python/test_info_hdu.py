"""test_info_hdu.py - info() and list_arrays() give "hdu" as the FITS HDU's index, and None for
formats without HDUs (Zarr arrays, OME-Zarr levels, Blosc2 frames), as the CLI's JSON does;
a FITS HDU without an image is listed with its index and its kind."""
import os

import tessera

from conftest import CORPUS


def test_fits_hdu_index():
    path = os.path.join(CORPUS, "fits/fp_rice_i16.fits.fz")
    with tessera.open(path) as a:
        assert a.info()["hdu"] == 1
    listed = tessera.list_arrays(path)
    assert [e["hdu"] for e in listed] == [0, 1]
    assert [e["kind"] for e in listed] == ["empty", "array"]
    assert "error" not in listed[0] and "error" not in listed[1]


def test_no_hdu_elsewhere():
    for rel, kw in (("zarr3/zstd_f4.zarr", {}), ("zarr2/ome_multiscale.zarr", {"level": 2}),
                    ("blosc2/lz4_shuffle_f4_3d.b2nd", {})):
        path = os.path.join(CORPUS, rel)
        with tessera.open(path, **kw) as a:
            assert a.info()["hdu"] is None, rel
        assert all(e.get("hdu") is None for e in tessera.list_arrays(path)), rel
