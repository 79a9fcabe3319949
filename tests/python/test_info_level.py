"""test_info_level.py - info() gives "level", the OME-Zarr multiscale level an array was opened
as (its group's dataset, whether named by level= or taken by default), and None for an array
not opened through a multiscale group: a Zarr array by its own path (even that level's own),
a FITS HDU, a Blosc2 frame. repr names the level where there is one, level 0 too."""
import os

import pytest

import tessera

from conftest import CORPUS

OME = os.path.join(CORPUS, "zarr2/ome_multiscale.zarr")


def levels():
    (group,) = [e for e in tessera.list_arrays(OME) if e.get("multiscale")]
    return group["levels"]


@pytest.mark.parametrize("level", [0, 1, 2])
def test_level_opened(level):
    with tessera.open(OME, level=level) as a:
        assert a.info()["level"] == level
        assert a.shape == tuple(levels()[level])
        assert f" level={level} shape=" in repr(a)


def test_default_level_is_zero():
    with tessera.open(OME) as a, tessera.open(OME, level=0) as b:
        assert a.info()["level"] == 0 and a.shape == b.shape


def test_no_level_elsewhere():
    arrays = [e["array"] for e in tessera.list_arrays(OME) if not e.get("multiscale")]
    assert arrays
    cases = [(OME, {"array": arrays[0]})]
    cases += [(os.path.join(CORPUS, rel), kw) for rel, kw in (
        ("zarr3/zstd_f4.zarr", {}), ("zarr3/zstd_f4.zarr", {"level": 0}),
        ("fits/fp_rice_i16.fits.fz", {}), ("blosc2/lz4_shuffle_f4_3d.b2nd", {}))]
    for path, kw in cases:
        with tessera.open(path, **kw) as a:
            assert a.info()["level"] is None, (path, kw)
            assert "level=" not in repr(a), (path, kw)
