"""test_host_cache.py - a large host result's buffer, once its array (and every view of it) is
gone, serves the next read of a like size: that read's array lies where the freed one did and
holds the new values; a live array's buffer is never handed out; a buffer a quarter larger
than the read stays for a larger one; tessera.host_cache(limit) bounds what is kept (0: nothing)
and reports it; a read that fails into a kept buffer gives it back; threads reading and dropping
results at once never get one buffer twice."""
import gc
import threading

import numpy as np
import pytest
import tessera

from conftest import write_zlib_zarr2

ROWS = 64


def addr(a):
    return a.__array_interface__["data"][0]


def read_and_drop(path, want):
    """Reads path into a new array, checks it, drops it; the address its buffer had."""
    a = tessera.read(path)
    where = addr(a)
    assert np.array_equal(a, want)
    del a
    gc.collect()
    return where


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    d = tmp_path_factory.mktemp("hcache")
    rng = np.random.default_rng(5)
    out = {}
    for name, shape in (("a", (1024, 2048)), ("b", (1024, 2048)), ("small", (640, 2048))):
        v = rng.standard_normal(shape).astype(np.float32)  # 8 MiB (small: 5 MiB)
        p = str(d / (name + ".zarr"))
        write_zlib_zarr2(p, v, ROWS)
        out[name] = (p, v)
    bad = str(d / "bad.zarr")
    write_zlib_zarr2(bad, out["a"][1], ROWS, cut=3)
    out["bad"] = (bad, None)
    return out


@pytest.fixture(autouse=True)
def fresh_cache():
    old = tessera.host_cache()["limit"]
    tessera.host_cache(limit=0)  # (empties it)
    tessera.host_cache(limit=old)
    yield
    tessera.host_cache(limit=old)


def test_freed_buffer_serves_next_read(stores):
    pa, va = stores["a"]
    pb, vb = stores["b"]
    where = read_and_drop(pa, va)
    c = tessera.host_cache()
    assert c["buffers"] == 1 and c["bytes"] == va.nbytes
    second = tessera.read(pb)
    assert addr(second) == where  # the kept buffer, not a new one
    assert np.array_equal(second, vb)  # every value the new read's
    assert tessera.host_cache()["buffers"] == 0


def test_live_array_and_views_keep_their_buffer(stores):
    pa, va = stores["a"]
    pb, vb = stores["b"]
    first = tessera.read(pa)
    view = first[10:20]
    del first
    gc.collect()
    assert tessera.host_cache()["buffers"] == 0  # the view holds it
    second = tessera.read(pb)
    assert addr(second) != addr(view) - 10 * 2048 * 4
    assert np.array_equal(view, va[10:20]) and np.array_equal(second, vb)


def test_larger_buffer_stays_for_a_larger_read(stores):
    pa, va = stores["a"]
    ps, vs = stores["small"]
    where = read_and_drop(pa, va)
    small = tessera.read(ps)  # 5 MiB: the 8 MiB buffer is over a quarter larger
    assert addr(small) != where and np.array_equal(small, vs)
    assert tessera.host_cache()["bytes"] == va.nbytes
    again = tessera.read(pa)
    assert addr(again) == where and np.array_equal(again, va)


def test_limit_bounds_and_zero_keeps_none(stores):
    pa, va = stores["a"]
    tessera.host_cache(limit=va.nbytes + 1)
    arrays = [tessera.read(pa) for _ in range(3)]
    del arrays
    gc.collect()
    c = tessera.host_cache()
    assert c["buffers"] == 1 and c["bytes"] == va.nbytes and c["limit"] == va.nbytes + 1
    tessera.host_cache(limit=0)
    assert tessera.host_cache() == {"limit": 0, "bytes": 0, "buffers": 0}
    x = tessera.read(pa)
    del x
    gc.collect()
    assert tessera.host_cache()["bytes"] == 0
    with pytest.raises(ValueError):
        tessera.host_cache(limit=-1)
    with pytest.raises(TypeError):
        tessera.host_cache(limit="1 GiB")


def test_failed_read_gives_the_buffer_back(stores):
    pa, va = stores["a"]
    pbad, _ = stores["bad"]
    where = read_and_drop(pa, va)
    with pytest.raises(tessera.TesseraError, match="bad.zarr"):
        tessera.read(pbad)
    assert tessera.host_cache()["buffers"] == 1
    again = tessera.read(pa)
    assert addr(again) == where and np.array_equal(again, va)


def test_threads_never_share_a_buffer(stores):
    pa, va = stores["a"]
    pb, vb = stores["b"]
    errors, live = [], {}
    lock = threading.Lock()

    def reader(k):
        path, want = (pa, va) if k % 2 else (pb, vb)
        for _ in range(12):
            a = tessera.read(path)
            with lock:  # no other live result may lie where this one does
                if addr(a) in live:
                    errors.append("buffer handed out twice")
                live[addr(a)] = k
            if not np.array_equal(a, want):
                errors.append("thread %d read wrong values" % k)
            with lock:
                del live[addr(a)]
            del a

    threads = [threading.Thread(target=reader, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert tessera.host_cache()["buffers"] <= 4
