"""A key NumPy makes an array of (an object with only __array__, a buffer such as bytearray or
memoryview) indexes as that array does (only integers, slices, ... were taken before)."""
import os

import numpy as np
import pytest

import tessera

CORPUS = os.environ.get("TSR_CORPUS", os.path.join(os.path.dirname(__file__), "../../../shared/corpus"))


class Idx:
    def __init__(self, v):
        self.v = v

    def __array__(self, dtype=None, copy=None):
        return np.array(self.v)


class Iface:
    def __init__(self, v):
        self.keep = np.array(v)
        self.__array_interface__ = self.keep.__array_interface__


@pytest.mark.parametrize("key", [
    Idx([0, 2]), (slice(None), Idx([1, 0, 1])), Idx(np.arange(256) % 3 == 0),
    bytearray(b"\x01\x02"), memoryview(np.array([2, 0])), Iface([1, 1])])
def test_array_likes(key):
    a = tessera.open(os.path.join(CORPUS, "fits/u_f32_primary.fits"))
    want = np.asarray(a)[key]
    got = a[key]
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_float_array_like_refused():
    a = tessera.open(os.path.join(CORPUS, "fits/u_f32_primary.fits"))
    with pytest.raises(IndexError):
        np.asarray(a)[Idx([0.5])]
    with pytest.raises(IndexError):
        a[Idx([0.5])]
