"""test_trim.py - tessera.trim() gives back what the module's context keeps between reads, and
reads after it (or beside it, on other threads) equal their data; on a CUDA machine the device's
free memory after a trim is at least a staging slot's 16 MiB above what it was before it."""
import threading

import numpy as np
import pytest
import tessera

from conftest import write_zlib_zarr2


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    d = tmp_path_factory.mktemp("trim")
    v = np.random.default_rng(11).integers(0, 1000, (2048, 1024)).astype(np.int32)  # 8 MiB
    p = str(d / "a.zarr")
    write_zlib_zarr2(p, v, 128)
    return p, v


def test_trim_between_reads(store):
    p, v = store
    assert tessera.trim() is None
    for _ in range(3):
        assert np.array_equal(tessera.read(p), v)
        tessera.trim()
    with pytest.raises(TypeError):
        tessera.trim(1)


def test_trim_beside_reads(store):
    p, v = store
    done = threading.Event()
    bad = []

    def reader():
        for _ in range(10):
            if not np.array_equal(tessera.read(p), v):
                bad.append("values")

    def trimmer():
        while not done.is_set():
            tessera.trim()

    t = threading.Thread(target=trimmer)
    t.start()
    rs = [threading.Thread(target=reader) for _ in range(3)]
    for r in rs:
        r.start()
    for r in rs:
        r.join()
    done.set()
    t.join()
    assert bad == []


def test_trim_gives_device_memory_back(store):
    caps = tessera.capabilities()
    if caps["cuda"]["devices"] < 1:
        pytest.skip("no CUDA device: %s" % caps["cuda"]["reason"])
    cupy = pytest.importorskip("cupy")
    p, v = store
    assert np.array_equal(cupy.asnumpy(tessera.read(p, device="cuda")), v)
    cupy.cuda.runtime.deviceSynchronize()
    before = cupy.cuda.runtime.memGetInfo()[0]
    tessera.trim()
    after = cupy.cuda.runtime.memGetInfo()[0]
    assert after >= before + (16 << 20), (before >> 20, after >> 20)
    assert np.array_equal(cupy.asnumpy(tessera.read(p, device="cuda")), v)
