"""A process forked after `import tessera` (multiprocessing's and PyTorch DataLoader's default
on Linux) reads, with Arrays its parent opened and read: the module's context's workers are
started again in the child. Such reads hung forever (the child waited on the parent's threads)
and a child freeing the context crashed."""
import multiprocessing as mp
import os
import signal
import warnings

import numpy as np
import pytest

import tessera

zarr = pytest.importorskip("zarr")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    p = str(tmp_path_factory.mktemp("fork") / "a.zarr")
    d = (np.arange(96 * 80).reshape(96, 80) % 1009).astype("i4")
    zarr.create_array(p, shape=d.shape, chunks=(16, 16), dtype=d.dtype, zarr_format=2)[...] = d
    return p, d


_ARRAY = None


def _crop(i):
    y, x = (7 * i) % 70, (11 * i) % 60
    return i, _ARRAY[y:y + 26, x:x + 20]


def test_pool_of_forked_workers(store):
    global _ARRAY
    p, d = store
    _ARRAY = tessera.open(p)
    np.testing.assert_array_equal(_ARRAY[...], d)  # the parent's workers started
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # (fork with threads running)
        with mp.get_context("fork").Pool(2) as pool:
            got = pool.map_async(_crop, range(24)).get(timeout=60)
    for i, crop in got:
        y, x = (7 * i) % 70, (11 * i) % 60
        np.testing.assert_array_equal(crop, d[y:y + 26, x:x + 20])


def test_forked_child_reads_then_exits(store):
    p, d = store
    a = tessera.open(p)
    a[...]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: a hang is ended by the alarm (status: the signal)
        signal.alarm(30)
        ok = all(np.array_equal(tessera.read(p), d) for _ in range(3))
        ok = ok and np.array_equal(a[5:90:3, ::-2], d[5:90:3, ::-2])
        os._exit(0 if ok else 3)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
