"""test_gpu.py - device reads on a CUDA machine: CuPy results, the DeviceArray's hand-over to
CuPy, PyTorch and JAX without copies (CUDA Array Interface, DLPack) and its lifetime, out= into
CuPy and PyTorch arrays on non-default streams, batches and streams on the device, and the
compat helpers against the corpus. Skipped where there is no CUDA device (tessera says why)."""
import gc
import json
import os

import numpy as np
import pytest
import tessera

from conftest import CORPUS, corpus_cases, file_dtype, same, section_key

_caps = tessera.capabilities()
if _caps["cuda"]["devices"] < 1:
    pytest.skip("no CUDA device: %s" % _caps["cuda"]["reason"], allow_module_level=True)
cupy = pytest.importorskip("cupy")

CASES = [c for c in corpus_cases()]
# FITS HDU 1 images whose dtype PyTorch has too (it lacks most unsigned types)
FITS1 = sorted([c for c in CASES if c["format"] == "fits" and c.get("hdu") == 1
                and not c.get("section") and c["dtype"] in ("<f4", "<i2", "<i4", "<f8")],
               key=lambda c: c["dtype"] != "<f4")


@pytest.fixture
def raw_results():
    prev = tessera.set_cupy_results(False)
    yield
    tessera.set_cupy_results(prev)


def open_case(c):
    return tessera.open(os.path.join(CORPUS, c["path"]), hdu=c.get("hdu"),
                        array=c.get("array") or None, level=c.get("level"),
                        dtype=file_dtype(c))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_corpus_on_device(case):
    want = np.load(os.path.join(CORPUS, case["expect"]))
    with open_case(case) as a:
        got = a.read(section_key(case.get("section")), device="cuda")
        assert isinstance(got, cupy.ndarray)
        assert same(cupy.asnumpy(got), want) is None


def test_cuda_array_interface_and_lifetime(raw_results):
    a = open_case(FITS1[0])
    host = a[...]
    dev = a.read(device="cuda")
    assert isinstance(dev, tessera.DeviceArray)
    cai = dev.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == host.shape and cai["strides"] is None
    assert np.dtype(cai["typestr"]) == host.dtype and cai["data"][0] == dev.ptr
    c = cupy.asarray(dev)
    assert c.data.ptr == dev.ptr  # no copy
    del dev
    gc.collect()
    junk = [cupy.ones(1 << 20, cupy.float32) for _ in range(8)]  # reuse freed memory, if any
    assert same(cupy.asnumpy(c), host) is None
    del junk
    assert same(np.asarray(a.read(device="cuda")), host) is None  # __array__: a host copy


def test_dlpack_torch_and_jax(raw_results):
    torch = pytest.importorskip("torch")
    a = open_case(FITS1[0])
    host = a[...]
    dev = a.read(device="cuda")
    assert dev.__dlpack_device__() == (2, 0)
    t = torch.from_dlpack(dev)
    assert t.is_cuda and t.data_ptr() == dev.ptr
    t2 = torch.as_tensor(a.read(device="cuda"), device="cuda")  # through the CAI
    del dev
    gc.collect()
    torch.cuda.synchronize()
    assert same(t.cpu().numpy(), host) is None and same(t2.cpu().numpy(), host) is None
    cap = a.read(device="cuda").__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(cap)
    del cap  # an unconsumed capsule frees its tensor
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        pytest.skip("no JAX")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX sees no GPU")
    j = jax.dlpack.from_dlpack(a.read(device="cuda"))
    assert same(np.asarray(jnp.asarray(j)), host) is None


def test_out_cupy_and_torch_on_streams():
    a = open_case(FITS1[0])
    host = a[...]
    s = cupy.cuda.Stream(non_blocking=True)
    out = cupy.zeros(host.shape, host.dtype)
    assert a.read(out=out, stream=s) is out
    s.synchronize()
    assert same(cupy.asnumpy(out), host) is None
    out2 = cupy.zeros(host.shape, host.dtype)
    a.read(out=out2, stream=s.ptr, device="cuda")
    assert same(cupy.asnumpy(out2), host) is None
    torch = pytest.importorskip("torch")
    ts = torch.cuda.Stream()
    tt = torch.zeros(host.shape, dtype=getattr(torch, host.dtype.name), device="cuda")
    assert a.read(out=tt, stream=ts) is tt
    ts.synchronize()
    assert same(tt.cpu().numpy(), host) is None
    sub = torch.zeros(((host.shape[0] + 1) // 2,) + host.shape[1:], dtype=tt.dtype, device="cuda")
    a.read(np.s_[::2], out=sub, stream=ts.cuda_stream)
    ts.synchronize()
    assert same(sub.cpu().numpy(), host[::2]) is None


def test_out_mismatches_name_both():
    a = open_case(FITS1[0])
    host = a[...]
    with pytest.raises(ValueError, match="shape"):
        a.read(out=cupy.zeros((1, 2), host.dtype))
    other = np.float64 if host.dtype != np.float64 else np.float32
    with pytest.raises(ValueError, match=np.dtype(other).name):
        a.read(out=cupy.zeros(host.shape, other))
    with pytest.raises(ValueError, match="CUDA array but device='cpu'"):
        a.read(out=cupy.zeros(host.shape, host.dtype), device="cpu")
    with pytest.raises(ValueError, match="host array but device='cuda'"):
        a.read(out=np.zeros(host.shape, host.dtype), device="cuda")
    with pytest.raises(TypeError, match="stream"):
        a.read(device="cuda", stream="x")


def test_batch_and_stream_on_device():
    c = FITS1[0]
    path = os.path.join(CORPUS, c["path"])
    want = np.load(os.path.join(CORPUS, c["expect"]))
    got = tessera.read_batch([path] * 5, hdu=1, device="cuda")
    assert same(cupy.asnumpy(got), np.stack([want] * 5)) is None
    parts = list(tessera.stream([path] * 5, batch=2, hdu=1, device="cuda"))
    assert [p.shape[0] for p in parts] == [2, 2, 1]
    assert same(cupy.asnumpy(cupy.concatenate(parts)), np.stack([want] * 5)) is None


def test_batch_advanced_key_and_raw_dtypes_on_device(tmp_path):
    """read_batch of an integer-array key onto the device: each file gathered on the host and
    copied into its slot; strings and structured dtypes refuse device reads."""
    c = FITS1[0]
    path = os.path.join(CORPUS, c["path"])
    want = np.load(os.path.join(CORPUS, c["expect"]))
    key = ([2, 0, -1], slice(None, None, 3))
    got = tessera.read_batch([path] * 3, hdu=1, key=key, device="cuda")
    assert same(cupy.asnumpy(got), np.stack([want[key]] * 3)) is None
    blosc2 = pytest.importorskip("blosc2")
    b2 = str(tmp_path / "s.b2nd")
    blosc2.asarray(np.array([b"ab", b"cd"], dtype="S2"), urlpath=b2, mode="w")
    with pytest.raises(NotImplementedError, match="device reads of dtype"):
        tessera.read(b2, device="cuda")
    with pytest.raises(NotImplementedError, match="device reads of dtype"):
        tessera.read(b2, out=cupy.empty(2, dtype=np.uint16))


def test_compat_read_zarr_to_gpu():
    from tessera.compat import read_zarr_to_gpu
    for c in [c for c in CASES if c["format"].startswith("zarr") and not c.get("section")
              and not c.get("array") and c.get("level") is None][:12]:
        want = np.load(os.path.join(CORPUS, c["expect"]))
        for prefer in ("auto", "zarr-gpu"):
            got = read_zarr_to_gpu(os.path.join(CORPUS, c["path"]), prefer=prefer)
            assert isinstance(got, cupy.ndarray) and same(cupy.asnumpy(got), want) is None


def test_compat_batch_to_device():
    from tessera.compat import batch_to_device, batch_to_device_stream
    c = FITS1[0]
    path = os.path.join(CORPUS, c["path"])
    want = np.load(os.path.join(CORPUS, c["expect"]))
    (got,) = batch_to_device([path] * 3, hdu_indices=[1])
    assert same(cupy.asnumpy(got), np.stack([want] * 3)) is None
    sec = (slice(1, 7), slice(2, 9))
    (got,) = batch_to_device([path] * 3, hdu_indices=[1], section=sec)
    assert same(cupy.asnumpy(got), np.stack([want[sec]] * 3)) is None
    out = cupy.zeros((3,) + want.shape, want.dtype)
    (got,) = batch_to_device([path] * 3, hdu_indices=[1], out=[out], stream=cupy.cuda.Stream())
    assert got is out and same(cupy.asnumpy(out), np.stack([want] * 3)) is None
    (got,) = batch_to_device_stream([path] * 5, hdu_indices=[1], decode_batch_files=2)
    assert same(cupy.asnumpy(got), np.stack([want] * 5)) is None
    with pytest.raises(ValueError, match="unit steps"):
        batch_to_device([path], hdu_indices=[1], section=(slice(0, 4, 2),))
