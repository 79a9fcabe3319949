"""test_gpu_stream_ahead.py - a stream into device memory reads its next batches ahead, as one
batch read into a buffer of its own, and hands them over by copies on the device: every batch
equals the host read of its files (distinct files, zlib chunks the GPU inflates; batches of 1, 2
and 3, a short last one), each batch's receipt within itself (the reading thread's wait no longer
than its total: a batch served from the read-ahead waited for nothing), and a corrupt file read ahead fails the call whose batch holds it,
naming it, after the batches before it came right. Skipped where there is no CUDA device."""
import numpy as np
import pytest
import tessera

from conftest import write_zlib_zarr2

_caps = tessera.capabilities()
if _caps["cuda"]["devices"] < 1:
    pytest.skip("no CUDA device: %s" % _caps["cuda"]["reason"], allow_module_level=True)
cupy = pytest.importorskip("cupy")

SHAPE, ROWS = (64, 50), 16  # int16, chunks of 16 rows


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    d = tmp_path_factory.mktemp("ahead")
    rng = np.random.default_rng(11)
    paths, arrays = [], []
    for i in range(7):
        a = rng.integers(-30000, 30000, SHAPE).astype(np.int16)
        p = str(d / ("s%d.zarr" % i))
        write_zlib_zarr2(p, a, ROWS)
        paths.append(p), arrays.append(a)
    bad = str(d / "bad.zarr")
    write_zlib_zarr2(bad, arrays[0], ROWS, cut=2)
    return paths, np.stack(arrays), bad


@pytest.mark.parametrize("batch", [1, 2, 3])
def test_device_stream_equals_host(stores, batch):
    paths, want, _ = stores
    parts = list(tessera.stream(paths, batch=batch, device="cuda"))
    assert [p.shape[0] for p in parts] == [min(batch, 7 - i) for i in range(0, 7, batch)]
    got = cupy.asnumpy(cupy.concatenate(parts))
    assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize("batch", [1, 3])
def test_device_stream_receipts(stores, batch):
    paths, _, _ = stores
    with tessera.stream(paths, batch=batch, device="cuda") as s:
        for part in s:
            r = s.receipt
            assert r["bytes_out"] == part.nbytes
            assert 0 <= r["t_wait"] <= r["t_total"], r


def test_device_stream_error_in_read_ahead(stores):
    paths, want, bad = stores
    seq = paths[:3] + [bad] + paths[3:]
    it = iter(tessera.stream(seq, batch=1, device="cuda"))
    for i in range(3):
        assert np.array_equal(cupy.asnumpy(next(it))[0], want[i])
    with pytest.raises(Exception) as e:
        next(it)
    assert "bad.zarr" in str(e.value)
