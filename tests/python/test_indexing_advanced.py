"""test_indexing_advanced.py - random NumPy keys with integer lists and arrays (negative,
repeated, broadcast together, several dimensions) and boolean masks mixed with basic items, on
FITS, Zarr and b2nd arrays, give what NumPy gives on the same values: values, shape and dtype,
and IndexError where NumPy raises it (out-of-range indices, arrays that do not broadcast, masks
of the wrong shape); batch reads stack them, stream reads refuse them clearly."""
import os

import numpy as np
import pytest
import tessera
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CORPUS, same

FILES = [
    "fits/u_multi_hdu.fits",
    "zarr3/raw_f4.zarr",
    "blosc2/lz4_delta_bitshuffle_i2_3d.b2nd",
    "blosc2/lz4_shuffle_f4_3d.b2nd",
]


@pytest.fixture(scope="module", params=FILES, ids=FILES)
def pair(request):
    a = tessera.open(os.path.join(CORPUS, request.param))
    yield a, a[...]
    a.close()


@st.composite
def adv_key(draw, shape):
    """A key of up to ndim + 1 items: integer lists/arrays (1-D or 2-D, some out of range),
    masks over one axis (sometimes of the wrong length) or over all axes, and basic items."""
    nd = len(shape)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    p = draw(st.sampled_from([0.0, 0.01, 0.5]))
    if draw(st.integers(0, 9)) == 0:  # a mask over every axis
        return (rng.random(shape) < p,)
    items = []
    for ax in range(draw(st.integers(1, nd))):
        n = shape[min(ax, nd - 1)]
        kind = draw(st.integers(0, 5))
        if kind == 0:
            items.append(draw(st.lists(st.integers(-n - 2, n + 1), max_size=5)))
        elif kind == 1:
            k = draw(st.integers(1, 3))
            items.append(np.asarray(draw(st.lists(st.integers(-n, n - 1), min_size=2 * k,
                                                  max_size=2 * k))).reshape(2, k))
        elif kind == 2:
            m = n + draw(st.sampled_from([0, 0, 0, 1]))
            items.append(rng.random(m) < p)
        elif kind == 3:
            items.append(draw(st.integers(-n, n - 1)))
        elif kind == 4:
            items.append(slice(draw(st.integers(-n, n)), None, draw(st.sampled_from([1, 2, -1]))))
        else:
            items.append(slice(None) if any(x is Ellipsis for x in items) else Ellipsis)
    return tuple(items)


def outcome(f):
    try:
        return "ok", f()
    except IndexError as e:
        return "IndexError", str(e)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_advanced_key_like_numpy(pair, data):
    a, full = pair
    key = data.draw(adv_key(full.shape))
    kind_t, got = outcome(lambda: a[key])
    kind_n, want = outcome(lambda: full[key])
    assert kind_t == kind_n, (key, got, want)
    if kind_n != "ok":
        return
    assert type(got) is type(want), key
    assert same(np.asarray(got), np.asarray(want)) is None, key
    r = a.read(key)
    assert same(r, np.asarray(want)) is None, key


def test_fixed_keys(pair):
    a, full = pair
    keys = [([3, 1, 3],), ([-1, 0],), (Ellipsis, [0, 2]), (np.array([[1, 0], [0, 1]]),),
            (full.reshape(-1)[: full.size] == full.reshape(-1)[: full.size],)]
    if full.ndim > 1:
        keys += [([1, 2], slice(None), ), ([0, 1], [1, 0]), (slice(None), [0]), ([0], 0)]
    if full.ndim > 2:
        keys += [([0, 1], slice(None), [1, 0])]  # separated: the broadcast axes go first
    for key in keys:
        if key and isinstance(key[0], np.ndarray) and key[0].dtype == bool:
            key = (np.ones(full.shape, bool),)
        assert same(a[key], full[key]) is None, key


def test_batch_reads_take_arrays(pair):
    """read_batch stacks each file's a[key] for keys with integer arrays and masks too (the
    same file three times here); stream reads refuse them, saying where to go instead."""
    a, full = pair
    keys = [([0, -1, 0],), (full.reshape(-1)[: full.shape[-1]] > 0,) if full.ndim == 1 else
            (slice(None), [1, 0]), (np.asarray(full) == full.flat[0],)]
    for key in keys:
        want = full[key]
        got = tessera.read_batch([a.path] * 3, hdu=a.info()["hdu"] if a.format == "fits"
                                 else None, key=key)
        assert same(got, np.stack([want] * 3)) is None, key
    out = np.empty((2,) + full[keys[0]].shape, full.dtype)
    got, rec = tessera.read_batch([a.path] * 2, hdu=a.info()["hdu"] if a.format == "fits"
                                  else None, key=keys[0], out=out, receipt=True)
    assert got is out and same(out[1], full[keys[0]]) is None
    assert rec["bytes_out"] == out.nbytes
    with pytest.raises(IndexError):
        tessera.read_batch([a.path], key=([10 ** 6],))
    with pytest.raises(NotImplementedError, match="stream reads take basic keys"):
        tessera.stream([a.path], key=([0, 1],))
