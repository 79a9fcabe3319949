"""test_gpu_cupy_pool.py - a device read's new array comes from CuPy's memory pool, on the
device the read names: the pool's used bytes grow by the array's, the array's memory goes back to
the pool with it (the next read of that size gets the same block, the pool holds no more), the
values equal the host read's; with set_cupy_results(False) the read gives a DeviceArray and the
pool is left alone; a device stream's short last batch is the head of its batch array, CuPy's
or a DeviceArray. Skipped where there is no CUDA device."""
import json
import os

import numpy as np
import pytest
import tessera

_caps = tessera.capabilities()
if _caps["cuda"]["devices"] < 1:
    pytest.skip("no CUDA device: %s" % _caps["cuda"]["reason"], allow_module_level=True)
cupy = pytest.importorskip("cupy")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A Zarr v2 store of uncompressed float32 chunks, and its values."""
    path = str(tmp_path_factory.mktemp("pool") / "a.zarr")
    a = np.random.default_rng(5).random((512, 384), dtype=np.float32)
    os.makedirs(path)
    with open(os.path.join(path, ".zarray"), "w") as f:
        json.dump({"zarr_format": 2, "shape": [512, 384], "chunks": [128, 384], "dtype": "<f4",
                   "compressor": None, "fill_value": 0, "order": "C", "filters": None}, f)
    for i in range(4):
        with open(os.path.join(path, "%d.0" % i), "wb") as f:
            f.write(a[i * 128:(i + 1) * 128].tobytes())
    return path, a


@pytest.mark.parametrize("device", ["cuda", "cuda:0"])
def test_new_arrays_from_the_pool(store, device):
    path, a = store
    pool = cupy.get_default_memory_pool()
    pool.free_all_blocks()
    used = pool.used_bytes()
    r = tessera.read(path, device=device)
    assert isinstance(r, cupy.ndarray) and r.device.id == 0
    assert pool.used_bytes() - used >= a.nbytes
    assert np.array_equal(cupy.asnumpy(r), a)
    ptr, held = r.data.ptr, pool.total_bytes()
    del r
    assert pool.used_bytes() == used
    r = tessera.read(path, device=device)
    assert r.data.ptr == ptr and pool.total_bytes() == held
    assert np.array_equal(cupy.asnumpy(r), a)


def test_device_arrays_leave_the_pool_alone(store):
    path, a = store
    pool = cupy.get_default_memory_pool()
    prev = tessera.set_cupy_results(False)
    try:
        held = pool.total_bytes()
        dev = tessera.read(path, device="cuda")
        assert isinstance(dev, tessera.DeviceArray)
        assert pool.total_bytes() == held
        assert np.array_equal(np.asarray(dev), a)
    finally:
        tessera.set_cupy_results(prev)


@pytest.mark.parametrize("cupy_results", [True, False])
def test_stream_short_last_batch(store, cupy_results):
    """A device stream's batches come from the pool too, and its short last batch is the
    batch array's head, whichever kind of array the batch is."""
    path, a = store
    prev = tessera.set_cupy_results(cupy_results)
    try:
        parts = list(tessera.stream([path] * 5, batch=2, device="cuda"))
    finally:
        tessera.set_cupy_results(prev)
    kind = cupy.ndarray if cupy_results else tessera.DeviceArray
    assert [type(p) for p in parts] == [kind] * 3
    assert [tuple(p.shape) for p in parts] == [(2,) + a.shape, (2,) + a.shape, (1,) + a.shape]
    got = np.concatenate([cupy.asnumpy(cupy.asarray(p)) for p in parts])
    assert np.array_equal(got, np.stack([a] * 5))
