"""test_errors.py - failures map to the exceptions Python users expect, each carrying the
library's message (file, HDU/array, chunk); bad arguments raise, never crash."""
import os
import shutil

import numpy as np
import pytest
import tessera

from conftest import CORPUS

FITS = os.path.join(CORPUS, "fits/u_u8_primary.fits")
ZARR = os.path.join(CORPUS, "zarr3/raw_f4.zarr")


def test_hierarchy():
    assert issubclass(tessera.FormatError, tessera.TesseraError)
    assert issubclass(tessera.CorruptError, tessera.TesseraError)
    assert issubclass(tessera.NoDeviceError, RuntimeError)


def test_missing_file():
    with pytest.raises(FileNotFoundError) as e:
        tessera.open("/no/such/file.fits")
    assert "/no/such/file.fits" in str(e.value)
    with pytest.raises(FileNotFoundError):
        tessera.read("/no/such/file.fits")
    with pytest.raises(FileNotFoundError):
        tessera.list_arrays("/no/such/store.zarr")


def test_hdu_out_of_range():
    with pytest.raises(IndexError, match="HDU 7"):
        tessera.open(FITS, hdu=7)
    with pytest.raises(tessera.NotFoundError, match="NOPE"):
        tessera.open(FITS, hdu="NOPE")


def test_not_an_array_file(tmp_path):
    p = tmp_path / "x.fits"
    p.write_bytes(b"hello world" * 400)
    with pytest.raises(tessera.FormatError) as e:
        tessera.open(str(p))
    assert "x.fits" in str(e.value) and e.value.status == "TSR_E_FORMAT"


def test_corrupt_chunk(tmp_path):
    src = os.path.join(CORPUS, "blosc2/lz4_shuffle_f4_3d.b2nd")
    dst = str(tmp_path / "c.b2nd")
    shutil.copy(src, dst)
    raw = bytearray(open(dst, "rb").read())
    for i in range(len(raw) // 3, 2 * len(raw) // 3):
        raw[i] ^= 0x5A
    open(dst, "wb").write(raw)
    # Which damaged chunk a threaded read reports first varies with the thread count, and so
    # does its verdict: bad data (CorruptError/FormatError) or a header claiming a newer
    # format (NotImplementedError). Each names the file and the chunk.
    with pytest.raises((tessera.TesseraError, NotImplementedError)) as e:
        tessera.open(dst)[...]
    assert "c.b2nd" in str(e.value) and "chunk" in str(e.value)
    assert isinstance(e.value, (tessera.CorruptError, tessera.FormatError, NotImplementedError))


def test_missing_array_in_store():
    with pytest.raises((tessera.NotFoundError, tessera.FormatError)) as e:
        tessera.open(ZARR, array="nope")
    assert "nope" in str(e.value)


@pytest.mark.parametrize("kw,exc", [
    (dict(hdu=["SCI"]), TypeError), (dict(hdu=-2), IndexError), (dict(hdu=1.0), TypeError),
    (dict(hdu=("SCI",)), TypeError), (dict(hdu=("SCI", 0)), ValueError), (dict(hdu=(1, 1)), TypeError),
    (dict(level="a"), TypeError), (dict(array=3), TypeError), (dict(level=-4), ValueError),
])
def test_bad_open_arguments(kw, exc):
    with pytest.raises(exc):
        tessera.open(FITS, **kw)


def test_bad_read_arguments():
    a = tessera.open(FITS)
    with pytest.raises(ValueError, match="device"):
        a.read(device="tpu")
    with pytest.raises(ValueError, match="decoder"):
        a.read(decoder="fast")
    with pytest.raises(ValueError, match="storage"):
        a.read(storage="cloud")
    with pytest.raises(ValueError, match=r"\(2, 2\).*float64.*\(180, 240\).*uint8"):
        a.read(out=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="uint16"):
        a.read(out=np.zeros((180, 240), np.uint16))
    with pytest.raises(ValueError, match="C-contiguous"):
        a.read(out=np.zeros((240, 180), np.uint8).T)
    with pytest.raises(TypeError):
        a.read(out=[0] * 10)
    with pytest.raises(ValueError, match="stream"):
        a.read(stream=5)
    # Array.read parses its own arguments (vectorcall): the same errors as any C function's
    with pytest.raises(TypeError, match="at most 1 positional"):
        a.read((0, 0), (1, 1))
    with pytest.raises(TypeError, match="multiple values for argument 'key'"):
        a.read((0, 0), key=(1, 1))
    with pytest.raises(TypeError, match="unexpected keyword argument 'devise'"):
        a.read(devise="cpu")
    with pytest.raises(TypeError, match="'device' must be str or None"):
        a.read(device=0)
    with pytest.raises(TypeError, match="'decoder' must be str"):
        a.read(decoder=None)
    with pytest.raises(ValueError, match="embedded null"):
        a.read(storage="real\0x")
    with pytest.raises(ZeroDivisionError):
        a.read(receipt=Falsy())
    assert a.read(key=(0, 0), device=None, receipt=0) == a[0, 0]
    with pytest.raises(TypeError):
        tessera.open(None)
    with pytest.raises(TypeError):
        tessera.read_batch(FITS)
    with pytest.raises(ValueError):
        tessera.read_batch([])
    with pytest.raises(TypeError):
        tessera.read_batch([FITS, None])
    with pytest.raises(ValueError, match="batch"):
        tessera.stream([FITS], batch=0)
    with pytest.raises(IndexError):
        a[(0,) * 100]
    with pytest.raises(IndexError):
        a[10**40]
    assert a[:: -(10**30)].shape == (1, 240)
    assert a[10**30:-(10**30):-1].shape == (180, 240)


def test_out_in_place():
    a = tessera.open(FITS)
    out = np.empty(a.shape, a.dtype)
    r = a.read(out=out)
    assert r is out and np.array_equal(out, a[...])
    part = np.empty((90, 240), a.dtype)
    assert np.array_equal(a.read(np.s_[::2], out=part), a[::2])


def test_closed():
    a = tessera.open(FITS)
    with a:
        assert not a.closed
    assert a.closed
    with pytest.raises(ValueError, match="closed"):
        a[0]
    with pytest.raises(ValueError, match="closed"):
        a.info()
    a.close()  # twice is fine
    assert "closed" in repr(a)


def test_no_device_here():
    if tessera.capabilities()["cuda"]["devices"] > 0:
        pytest.skip("a CUDA device is present: tests/python/test_gpu.py covers it")
    with pytest.raises(tessera.NoDeviceError, match="CUDA"):
        tessera.open(FITS).read(device="cuda")


# Any value for any argument: an exception of the documented kinds, never a crash.
def _junk_values():
    from hypothesis import strategies as st
    return st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(),
                     st.text(max_size=8), st.binary(max_size=8),
                     st.lists(st.integers(-5, 5), max_size=3),
                     st.tuples(st.integers(-3, 3), st.none()), st.just(Ellipsis),
                     st.just(np.zeros(3)), st.just(object()), st.just(slice(None, None, -1)))


try:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    _ALLOWED = (ValueError, TypeError, IndexError, LookupError, NotImplementedError, OSError,
                OverflowError, tessera.TesseraError, RuntimeError)

    @settings(max_examples=300, deadline=None)
    @given(fn=st.sampled_from(["open", "read", "read_batch", "stream", "Array.read", "getitem"]),
           kw=st.dictionaries(st.sampled_from(["hdu", "array", "level", "raw", "key", "device",
                                               "out", "stream", "decoder", "storage", "receipt",
                                               "batch", "prefetch", "hdus"]),
                              _junk_values(), max_size=4))
    def test_junk_arguments_never_crash(fn, kw):
        try:
            if fn == "open":
                kw.pop("key", None)
                tessera.open(FITS, **{k: v for k, v in kw.items() if k in
                                      ("hdu", "array", "level", "raw")})
            elif fn == "read":
                tessera.read(FITS, **{k: v for k, v in kw.items() if k not in
                                      ("batch", "prefetch", "hdus")})
            elif fn == "read_batch":
                tessera.read_batch([FITS, FITS], **{k: v for k, v in kw.items() if k not in
                                                    ("batch", "prefetch")})
            elif fn == "stream":
                list(tessera.stream([FITS], **{k: v for k, v in kw.items() if k not in
                                               ("out", "receipt", "hdus")}))
            elif fn == "Array.read":
                tessera.open(FITS).read(**{k: v for k, v in kw.items() if k in
                                           ("key", "device", "out", "stream", "decoder",
                                            "storage", "receipt")})
            else:
                tessera.open(FITS)[kw.get("key")]
        except _ALLOWED:
            pass
except ImportError:  # hypothesis is part of `make`'s venv; elsewhere the rest still runs
    pass


class Falsy:
    """An object whose truth value raises."""

    def __bool__(self):
        raise ZeroDivisionError("no truth value")
