"""Ctrl-C stops a long read: the main thread's signal handlers run between chunks while a read
is under way (Array.read, tessera.read, read_batch, a stream), an exception a handler raises
stops the read with chunks left undecoded and is what the call raises, and the handle reads
again after. A handler that returns lets the read finish; one that starts a tessera read in the
middle of another raises RuntimeError rather than waiting forever. Reads from other threads
are not touched."""
import bz2
import json
import os
import signal
import threading

import numpy as np
import pytest

import tessera

NCHUNKS = 100
CHUNK = 512 * 1024  # int32 values: 2 MiB a chunk, bz2 (tens of ms a chunk to decode)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("intr") / "slow.zarr")
    os.makedirs(path)
    v = (np.random.default_rng(7).standard_normal(CHUNK) * 100).astype("<i4")
    blob = bz2.compress(v.tobytes(), 9)
    with open(os.path.join(path, ".zarray"), "w") as f:
        json.dump({"zarr_format": 2, "shape": [NCHUNKS * CHUNK], "chunks": [CHUNK], "dtype": "<i4",
                   "compressor": {"id": "bz2", "level": 9}, "fill_value": 0, "order": "C",
                   "filters": None}, f)
    for c in range(NCHUNKS):
        with open(os.path.join(path, str(c)), "wb") as f:
            f.write(blob)
    return path, v


@pytest.fixture(autouse=True)
def default_sigint():
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def sigint_in(seconds):
    """SIGINT to the main thread after `seconds`, from a timer thread."""
    t = threading.Timer(seconds, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT))
    t.start()
    return t


def interrupted(call, exc=KeyboardInterrupt, match=None):
    """call() with SIGINT sent 0.2 s in: it must raise exc (matching match)."""
    t = sigint_in(0.2)
    with pytest.raises(exc, match=match):
        call()
    t.join()


def untouched(out):
    """Chunks of out the read never wrote (out was filled with -1)."""
    return int((out.reshape(-1, CHUNK) == -1).all(axis=1).sum())


def test_array_read_stops(store):
    path, v = store
    with tessera.open(path) as a:
        out = np.full(a.shape, -1, np.int32)
        interrupted(lambda: a.read(out=out))
        # stopped: chunks were left undecoded, and those written are whole and right
        assert untouched(out) > NCHUNKS // 4
        done = out.reshape(-1, CHUNK)
        for row in done[(done != -1).any(axis=1)]:
            assert np.array_equal(row, v)
        # the handle reads again, all of it
        assert np.array_equal(a[CHUNK * 3:CHUNK * 5], np.concatenate([v, v]))


def test_module_read_and_batch_stop(store):
    path, _ = store
    out = np.full(NCHUNKS * CHUNK, -1, np.int32)
    interrupted(lambda: tessera.read(path, out=out))
    assert untouched(out) > NCHUNKS // 4
    out3 = np.full((3, NCHUNKS * CHUNK), -1, np.int32)
    interrupted(lambda: tessera.read_batch([path, path, path], out=out3))
    assert untouched(out3) > NCHUNKS


def test_stream_stops_and_ends(store):
    path, _ = store
    s = tessera.stream([path] * 4, batch=2)
    interrupted(lambda: next(s))
    with pytest.raises(StopIteration):  # as a generator an exception left
        next(s)


def test_handler_runs_during_the_read(store):
    path, v = store
    seen = []
    with tessera.open(path) as a:
        out = np.full(a.shape, -1, np.int32)
        signal.signal(signal.SIGINT, lambda *_: seen.append(untouched(out)))
        t = sigint_in(0.2)
        a.read(out=out)  # the handler returns: the read goes on to the end
        t.join()
    assert len(seen) == 1 and seen[0] > 0  # it ran while chunks were still to come
    assert untouched(out) == 0 and np.array_equal(out[-CHUNK:], v)


def test_read_inside_a_handler_refused(store):
    path, _ = store

    def handler(*_):
        tessera.read(path, slice(0, 10))

    signal.signal(signal.SIGINT, handler)
    interrupted(lambda: tessera.read(path), RuntimeError, match="signal handler")
    assert tessera.read(path, slice(0, 10)).shape == (10,)


def test_other_threads_reads_untouched(store):
    path, v = store
    seen, got = [], {}
    signal.signal(signal.SIGINT, lambda *_: seen.append(1))

    def worker():
        out = np.full(NCHUNKS * CHUNK, -1, np.int32)
        tessera.read(path, out=out)
        got["out"] = out

    th = threading.Thread(target=worker)
    th.start()
    t = sigint_in(0.2)  # handled by the main thread, waiting in join
    th.join()
    t.join()
    assert seen == [1] and untouched(got["out"]) == 0
    assert np.array_equal(got["out"][-CHUNK:], v)


@pytest.mark.skipif(tessera.capabilities()["cuda"]["devices"] < 1, reason="no CUDA device")
def test_device_read_stops(store):
    """Into device memory: bz2 chunks are decoded by the CPU into the staging slots, and a stop
    is asked before each one's decode and before each slot; the read waits for what it sent."""
    cupy = pytest.importorskip("cupy")
    path, v = store
    with tessera.open(path) as a:
        out = cupy.full(a.shape, -1, cupy.int32)
        interrupted(lambda: a.read(out=out))
        assert untouched(cupy.asnumpy(out)) > NCHUNKS // 4
        got = a.read(slice(CHUNK * 7, CHUNK * 9), device="cuda")
        assert np.array_equal(cupy.asnumpy(got), np.concatenate([v, v]))
