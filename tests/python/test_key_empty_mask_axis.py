"""A boolean mask axis of length 0 matches any axis and selects nothing, as NumPy's check passes
it over (it raised "boolean index did not match"); a mask axis of another length is still
refused."""
import os

import numpy as np
import pytest

import tessera

CORPUS = os.environ.get("TSR_CORPUS", os.path.join(os.path.dirname(__file__), "../../../shared/corpus"))


@pytest.mark.parametrize("key", [
    np.zeros(0, bool), (slice(None), np.zeros(0, bool)), (Ellipsis, np.zeros(0, bool)),
    np.zeros((0, 0), bool), (np.zeros(0, bool), np.zeros(0, bool)), ([], np.zeros(0, bool))])
def test_empty_mask_axis(key):
    a = tessera.open(os.path.join(CORPUS, "fits/u_f32_primary.fits"))
    assert a.ndim == 2
    want = np.asarray(a)[key]
    got = a[key]
    assert got.shape == want.shape and got.dtype == want.dtype


@pytest.mark.parametrize("key", [np.zeros((0, 3), bool), np.zeros((1, 0), bool), np.zeros(3, bool)])
def test_other_lengths_refused(key):
    a = tessera.open(os.path.join(CORPUS, "fits/u_f32_primary.fits"))
    with pytest.raises(IndexError) as want:
        np.asarray(a)[key]
    with pytest.raises(IndexError, match="boolean index did not match") as got:
        a[key]
    assert str(got.value).endswith(str(want.value))
