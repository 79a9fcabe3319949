"""test_gpu_devices.py - device="cuda:N" on a CUDA machine: every corpus case read on "cuda:0"
equals the read on "cuda" bit for bit (batches and streams too), results report the device
their memory is on (DeviceArray.device_id, __dlpack_device__), an ordinal that is not there is
NoDeviceError; with two GPUs, reads on "cuda:1" and into CuPy/PyTorch out= arrays on device 1.
Skipped where there is no CUDA device."""
import os

import numpy as np
import pytest
import tessera

from conftest import CORPUS, corpus_cases, file_dtype, section_key

_caps = tessera.capabilities()
NDEV = _caps["cuda"]["devices"]
if NDEV < 1:
    pytest.skip("no CUDA device: %s" % _caps["cuda"]["reason"], allow_module_level=True)
cupy = pytest.importorskip("cupy")

CASES = [c for c in corpus_cases()]
ZARR = os.path.join(CORPUS, "zarr2/zstd_i32_3d.zarr")
two = pytest.mark.skipif(NDEV < 2, reason="needs two GPUs")


@pytest.fixture(autouse=True)
def raw_results():
    prev = tessera.set_cupy_results(False)
    yield
    tessera.set_cupy_results(prev)


def open_case(c):
    return tessera.open(os.path.join(CORPUS, c["path"]), hdu=c.get("hdu"),
                        array=c.get("array") or None, level=c.get("level"),
                        dtype=file_dtype(c))


def _bytes(dev):
    return np.asarray(dev).tobytes()


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_ordinal_zero_is_the_default_device(case):
    try:
        a = open_case(case)
    except tessera.TesseraError:
        pytest.skip("an error case: the GPU corpus test covers it")
    key = section_key(case.get("section"))
    with a:
        try:
            want = a.read(key, device="cuda")
        except (tessera.TesseraError, ValueError, NotImplementedError) as e:
            with pytest.raises(type(e)):
                a.read(key, device="cuda:0")
            return
        got = a.read(key, device="cuda:0")
        assert got.device_id == 0 and got.__dlpack_device__() == (2, 0)
        assert "cuda:0" in repr(got)
        assert _bytes(got) == _bytes(want)


def test_batch_and_stream_on_ordinal_zero():
    paths = [ZARR] * 5
    want = tessera.read_batch(paths, device="cuda")
    got = tessera.read_batch(paths, device="cuda:0")
    assert got.device_id == 0 and _bytes(got) == _bytes(want)
    batches = [_bytes(b) for b in tessera.stream(paths, batch=2, device="cuda:0")]
    assert b"".join(batches) == _bytes(want)


def test_missing_ordinal():
    with pytest.raises(tessera.NoDeviceError) as e:
        tessera.open(ZARR).read(device="cuda:%d" % NDEV)
    assert "CUDA device %d" % NDEV in str(e.value) and "%d CUDA device" % NDEV in str(e.value)


def test_out_on_device_zero():
    a = tessera.open(ZARR)
    host = a[...]
    out = cupy.zeros(host.shape, host.dtype)
    assert a.read(out=out, device="cuda:0") is out
    assert cupy.asnumpy(out).tobytes() == host.tobytes()


@two
def test_ordinal_one():
    a = tessera.open(ZARR)
    host = a[...]
    got = a.read(device="cuda:1")
    assert got.device_id == 1 and got.__dlpack_device__() == (2, 1)
    assert cupy.cuda.runtime.pointerGetAttributes(got.ptr).device == 1
    assert _bytes(got) == host.tobytes()
    b = tessera.read_batch([ZARR] * 3, device="cuda:1")
    assert b.device_id == 1 and _bytes(b) == host.tobytes() * 3


@two
def test_out_on_device_one():
    a = tessera.open(ZARR)
    host = a[...]
    with cupy.cuda.Device(1):
        out = cupy.zeros(host.shape, host.dtype)
    a.read(out=out)  # no device named: the out array's
    assert cupy.asnumpy(out).tobytes() == host.tobytes()
    with pytest.raises(ValueError, match="CUDA device 1"):
        a.read(out=out, device="cuda:0")
    torch = pytest.importorskip("torch")
    t = torch.zeros(host.shape, dtype=getattr(torch, host.dtype.name), device="cuda:1")
    assert a.read(out=t, device="cuda:1") is t
    assert t.cpu().numpy().tobytes() == host.tobytes()
