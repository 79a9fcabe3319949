"""test_device_names.py - device= names a CUDA device as "cuda" or "cuda:N": malformed names are
ValueError, an ordinal that is not there is NoDeviceError naming it and the device count, on
any machine (tests/python/test_gpu_devices.py reads on the devices that are there)."""
import os

import pytest
import tessera

from conftest import CORPUS

ZARR = os.path.join(CORPUS, "zarr2/zstd_i32_3d.zarr")


def _ndev():
    return tessera.capabilities()["cuda"]["devices"]


@pytest.mark.parametrize("name", ["gpu", "cuda:", "cuda:x", "cuda:-1", "cuda:1:2", "cuda0",
                                  "CUDA:0", "cuda: 1", "cuda:64", "cuda:99999999999"])
def test_malformed_names(name):
    a = tessera.open(ZARR)
    with pytest.raises(ValueError, match="device"):
        a.read(device=name)
    with pytest.raises(ValueError, match="device"):
        tessera.read_batch([ZARR, ZARR], device=name)
    with pytest.raises(ValueError, match="device"):
        tessera.stream([ZARR], device=name)


def test_missing_ordinal():
    n = _ndev()
    a = tessera.open(ZARR)
    with pytest.raises(tessera.NoDeviceError) as e:
        a.read(device="cuda:%d" % n)
    assert "CUDA device %d" % n in str(e.value)
    assert "%d CUDA device" % n in str(e.value)
    with pytest.raises(tessera.NoDeviceError, match="CUDA device %d" % n):
        tessera.read_batch([ZARR, ZARR], device="cuda:%d" % n)
    with pytest.raises(tessera.NoDeviceError, match="CUDA device %d" % n):
        next(iter(tessera.stream([ZARR], device="cuda:%d" % n)))


def test_cpu_is_cpu():
    # "cpu" stays a host read (a NumPy array), whatever devices there are
    a = tessera.open(ZARR)
    assert type(a.read(device="cpu")).__module__ == "numpy"
