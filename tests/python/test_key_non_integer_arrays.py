"""An array of another dtype than integer or bool as a key is NumPy's IndexError ("arrays used
as indices must be of integer (or boolean) type"), empty or 0-d too: an empty float or string
array read as an empty selection, and a 0-d float raised __index__'s TypeError. An empty list
stays an empty integer index, as in NumPy."""
import os

import numpy as np
import pytest

import tessera

CORPUS = os.environ.get("TSR_CORPUS", os.path.join(os.path.dirname(__file__), "../../../shared/corpus"))
WORDS = "arrays used as indices must be of integer (or boolean) type"


@pytest.mark.parametrize("key", [
    np.array([]), (slice(None), np.array([])), np.array([], "U1"), np.array([], object),
    np.array([], "m8[s]"), np.array([], complex), np.array([0.5]), np.array(1.0),
    (0, np.array(1.0)), np.array("a"), np.array(3, object)])
def test_refused_as_numpy(key):
    a = tessera.open(os.path.join(CORPUS, "fits/u_f32_primary.fits"))
    ref = np.asarray(a)
    with pytest.raises(IndexError) as want:
        ref[key]
    assert str(want.value) == WORDS
    with pytest.raises(IndexError) as got:
        a[key]
    assert str(got.value).endswith(WORDS)


@pytest.mark.parametrize("key", [[], [[]], (slice(None), [])])
def test_empty_lists_index(key):
    a = tessera.open(os.path.join(CORPUS, "fits/u_f32_primary.fits"))
    want = np.asarray(a)[key]
    got = a[key]
    assert got.shape == want.shape and got.dtype == want.dtype
