"""`value in a` is NumPy's answer (some element equal), where Python fell back to iterating rows
and raised "truth value of an array is ambiguous"."""
import os

import numpy as np

import tessera

CORPUS = os.environ.get("TSR_CORPUS", os.path.join(os.path.dirname(__file__), "../../../shared/corpus"))


def test_contains_as_numpy():
    for rel in ("fits/u_f32_primary.fits", "zarr2/zstd_i32_3d.zarr"):
        a = tessera.open(os.path.join(CORPUS, rel))
        v = np.asarray(a)
        for x in (v.flat[0], v.flat[-1], v.max().item() + 1, -12345.5):
            assert (x in a) == (x in v)
