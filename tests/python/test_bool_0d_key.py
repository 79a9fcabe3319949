"""A 0-d boolean array as a key is a scalar mask, as True is: NotImplementedError, where its
__index__ raised a TypeError about integer scalar arrays."""
import os

import numpy as np
import pytest

import tessera

CORPUS = os.environ.get("TSR_CORPUS", os.path.join(os.path.dirname(__file__), "../../../shared/corpus"))


@pytest.mark.parametrize("key", [True, np.bool_(False), np.array(True), (0, np.array(False))])
def test_scalar_masks(key):
    a = tessera.open(os.path.join(CORPUS, "fits/u_f32_primary.fits"))
    with pytest.raises(NotImplementedError, match="scalar boolean"):
        a[key]


def test_0d_integer_array_still_an_index():
    a = tessera.open(os.path.join(CORPUS, "fits/u_f32_primary.fits"))
    np.testing.assert_array_equal(a[np.array(3)], np.asarray(a)[3])
