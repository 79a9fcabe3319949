"""bool(a) of an Array is NumPy's bool of the array it reads: a one-element array's value (0-d
or not), ValueError for an empty array or one of more elements. It was len()'s: an empty array
False, a 0-d one a TypeError, any other True."""
import numpy as np
import pytest

import tessera

blosc2 = pytest.importorskip("blosc2")


@pytest.mark.parametrize("data", [np.array(0, "i4"), np.array(7, "i4"), np.array([[0.0]]),
                                  np.array([2.5]), np.zeros(0, "u1"), np.zeros((2, 3), "i2"),
                                  np.ones((0, 4)), np.array([True, False])])
def test_bool_as_numpy(tmp_path, data):
    p = str(tmp_path / "b.b2nd")
    blosc2.asarray(data, urlpath=p, mode="w")
    a = tessera.open(p)
    try:
        want = bool(data)
    except ValueError as e:
        with pytest.raises(ValueError, match=str(e).split(".")[0]):
            bool(a)
    else:
        assert bool(a) is want


def test_bool_after_close(tmp_path):
    p = str(tmp_path / "c.b2nd")
    blosc2.asarray(np.array([1]), urlpath=p, mode="w")
    a = tessera.open(p)
    a.close()
    with pytest.raises(ValueError):
        bool(a)
