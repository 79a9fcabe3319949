"""test_compat.py - tessera.compat keeps its callers' argument checks on any machine: unknown
choices are ValueErrors before anything is read, and a missing CuPy is a RuntimeError naming it
(the device results themselves: test_gpu.py)."""
import os

import pytest
from tessera import compat

from conftest import CORPUS

ZARR = os.path.join(CORPUS, "zarr3/raw_f4.zarr")


def test_unknown_prefer():
    with pytest.raises(ValueError, match="prefer"):
        compat.read_zarr_to_gpu(ZARR, prefer="fastest")


def test_unknown_decoder():
    with pytest.raises((ValueError, RuntimeError)) as e:
        compat.batch_to_device([ZARR], gzip_decoder="magic")
    if isinstance(e.value, RuntimeError):
        assert "cupy" in str(e.value)


def test_cupy_missing_or_device_missing():
    try:
        import cupy  # noqa: F401
    except ImportError:
        with pytest.raises(RuntimeError, match="cupy"):
            compat.read_zarr_to_gpu(ZARR)
        return
    import tessera
    if tessera.capabilities()["cuda"]["devices"] == 0:
        with pytest.raises(tessera.NoDeviceError):
            compat.read_zarr_to_gpu(ZARR)
