"""test_threads.py - one Array read from 16 Python threads at once gives what serial reads
give, and reads release the GIL (a thread spinning in Python keeps running meanwhile)."""
import os
import threading

import numpy as np
import tessera

from conftest import CORPUS, same

KEYS = [(slice(None),), (slice(3, None, 2), slice(None, None, -1)), (5,), (-1, slice(10, 20)),
        (Ellipsis, None), (slice(None, None, -3),)]


def test_sixteen_threads_one_array():
    path = os.path.join(CORPUS, "fits/u_u8_primary.fits")
    for p in ["fits/u_u8_primary.fits", "zarr3/raw_f4.zarr", "blosc2/lz4_shuffle_f4_3d.b2nd"]:
        a = tessera.open(os.path.join(CORPUS, p))
        serial = [a[k] for k in KEYS]
        results = {}
        errors = []
        start = threading.Barrier(16)

        def work(t):
            try:
                start.wait()
                for rep in range(20):
                    i = (t + rep) % len(KEYS)
                    results[(t, rep)] = (i, a[KEYS[i]])
            except Exception as e:  # reported below
                errors.append(repr(e))

        threads = [threading.Thread(target=work, args=(t,)) for t in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        assert len(results) == 16 * 20
        for i, r in results.values():
            assert same(r, serial[i]) is None
        a.close()
    assert path


def test_read_releases_gil(tmp_path):
    """A thread running Python records the time of each step; the main thread times its
    reads. With the GIL held through a read no step could fall strictly inside one; tessera
    releases it, so some must."""
    blosc2 = __import__("pytest").importorskip("blosc2")
    import time
    path = str(tmp_path / "big.b2nd")
    blosc2.asarray(np.arange(3000 * 2000, dtype=np.float64).reshape(3000, 2000), urlpath=path,
                   mode="w", chunks=(500, 2000))
    a = tessera.open(path)
    stop = threading.Event()
    stamps = []

    def spin():
        while not stop.is_set():
            stamps.append(time.perf_counter())

    t = threading.Thread(target=spin)
    t.start()
    windows = []
    try:
        for _ in range(10):
            t0 = time.perf_counter()
            a.read()
            windows.append((t0, time.perf_counter()))
    finally:
        stop.set()
        t.join()
    inside = sum(1 for s in stamps for (t0, t1) in windows if t0 < s < t1)
    assert inside > 0


def test_close_during_reads_is_refused_not_a_crash():
    a = tessera.open(os.path.join(CORPUS, "zarr3/raw_f4.zarr"))
    go = threading.Event()
    errs = []

    def reader():
        go.wait()
        try:
            for _ in range(200):
                a.read()
        except ValueError:
            pass  # closed under us, between reads: fine
        except Exception as e:
            errs.append(repr(e))

    ts = [threading.Thread(target=reader) for _ in range(4)]
    for t in ts:
        t.start()
    go.set()
    closed = False
    while not closed:
        try:
            a.close()
            closed = True
        except RuntimeError:
            pass
    for t in ts:
        t.join()
    assert not errs, errs
    assert a.closed
    assert isinstance(np.zeros(1), np.ndarray)
