"""test_indexing.py - random NumPy basic-indexing keys (integers, slices with any step, ...,
None) on FITS, Zarr and b2nd arrays give what NumPy gives on the same values: the same values,
shape, dtype, scalars where NumPy returns scalars, and the same IndexError message."""
import os

import numpy as np
import pytest
import tessera
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CORPUS, same

FILES = [
    ("fits/u_u8_primary.fits", {}),
    ("zarr3/raw_f4.zarr", {}),
    ("blosc2/lz4_delta_bitshuffle_i2_3d.b2nd", {}),
    ("blosc2/lz4_shuffle_f4_3d.b2nd", {}),
]


@pytest.fixture(scope="module", params=FILES, ids=[f for f, _ in FILES])
def pair(request):
    path, kw = request.param
    a = tessera.open(os.path.join(CORPUS, path), **kw)
    yield a, a[...]
    a.close()


def bound():
    return st.one_of(st.none(), st.integers(-80, 80), st.integers(-10**20, 10**20))


def item():
    return st.one_of(
        st.integers(-300, 300),
        st.builds(slice, bound(), bound(), st.one_of(st.none(), st.integers(-9, 9).filter(bool),
                                                     st.integers(-10**20, 10**20).filter(bool))),
        st.just(Ellipsis),
        st.just(None),
    )


keys = st.one_of(item(), st.lists(item(), max_size=6).map(tuple))


def outcome(f):
    try:
        return "ok", f()
    except (IndexError, ValueError) as e:
        return type(e).__name__, str(e)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=keys)
def test_key_like_numpy(pair, key):
    a, full = pair
    kind_t, got = outcome(lambda: a[key])
    kind_n, want = outcome(lambda: full[key])
    assert kind_t == kind_n, (key, got, want)
    if kind_n != "ok":
        assert got == want, key
        return
    assert type(got) is type(want), key
    if isinstance(want, np.ndarray):
        assert same(got, want) is None, key
    else:
        assert same(np.asarray(got), np.asarray(want)) is None, key
    # read() gives the same values, always as an ndarray (read(None) reads everything, so a
    # bare None goes in as (None,))
    r = a.read((None,) if key is None else key)
    assert isinstance(r, np.ndarray) and same(r, np.asarray(want)) is None


def test_scalar_and_zero_d(pair):
    a, full = pair
    k = (0,) * a.ndim
    assert type(a[k]) is type(full[k]) and a[k] == full[k]
    assert a[k + (Ellipsis,)].shape == () and isinstance(a[k + (Ellipsis,)], np.ndarray)
    assert a[None].shape == (1,) + a.shape


def test_numpy_integer_keys(pair):
    a, full = pair
    k = (np.int64(1), np.uint8(0)) [: a.ndim]
    assert same(np.asarray(a[k]), np.asarray(full[k])) is None
    assert same(np.asarray(a[np.array(1)]), np.asarray(full[np.array(1)])) is None


@pytest.mark.parametrize("key", [1.5, "a", b"x", object(), (1.0,), (slice(0, 1.5),)])
def test_bad_key_types(pair, key):
    a, full = pair
    with pytest.raises((IndexError, TypeError)) as e1:
        a[key]
    with pytest.raises((IndexError, TypeError)) as e2:
        full[key]
    assert type(e1.value) is type(e2.value)


@pytest.mark.parametrize("key", [True, np.bool_(False), (0, True)])
def test_scalar_booleans_say_so(pair, key):
    a, _ = pair
    with pytest.raises(NotImplementedError, match="scalar boolean"):
        a[key]
