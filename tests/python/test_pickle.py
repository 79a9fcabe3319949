"""An Array pickles as the arguments that open it again (path, the HDU index it was found at,
array path, level, raw, dtype), so it crosses to worker processes as zarr-python's arrays do
(multiprocessing, Dask's distributed workers) and copy.copy gives a handle of its own: the
unpickled Array reads the same values. A closed Array refuses."""
import copy
import multiprocessing as mp
import os
import pickle

import numpy as np
import pytest

import tessera

# (absolute: a pickle holds the path made absolute, so its repr and info() name it so;
# test_pickle_cwd.py covers an Array opened by a relative path)
CORPUS = os.path.abspath(os.environ.get("TSR_CORPUS", os.path.join(os.path.dirname(__file__), "../../../shared/corpus")))

CASES = [
    ("fits/fp_multi.fits.fz", {"hdu": "EXT1"}),
    ("fits/u_scaled_i16.fits", {}),
    ("fits/u_scaled_i16.fits", {"raw": True, "dtype": np.dtype("u2")}),
    ("zarr2/ome_multiscale.zarr", {"level": 2}),
    ("zarr2/group_consolidated.zarr", {"array": "labels/mask"}),
    ("zarr3/raw_f4.zarr", {}),
    ("blosc2/lz4_shuffle_f4_3d.b2nd", {}),
]


@pytest.mark.parametrize("rel,kw", CASES)
def test_round_trip(rel, kw):
    path = os.path.join(CORPUS, rel)
    with tessera.open(path, **kw) as a:
        for b in (pickle.loads(pickle.dumps(a)), copy.copy(a)):
            assert repr(b) == repr(a) and b.info() == a.info()
            assert np.array_equal(b[...], a[...], equal_nan=True)
            b.close()
            assert not a.closed  # a handle of its own


def test_iter_arrays_pickle():
    path = os.path.join(CORPUS, "zarr2/group_consolidated.zarr")
    for a in tessera.iter_arrays(path):
        b = pickle.loads(pickle.dumps(a))
        assert b.info() == a.info() and np.array_equal(b[...], a[...])


def test_closed_refuses():
    a = tessera.open(os.path.join(CORPUS, "zarr3/raw_f4.zarr"))
    a.close()
    with pytest.raises(ValueError, match="closed"):
        pickle.dumps(a)


def _rows(args):
    a, lo, hi = args
    return a[lo:hi]


def test_worker_processes():
    path = os.path.join(CORPUS, "zarr2/ome_multiscale.zarr")
    with tessera.open(path, level=0) as a:
        want = a[...]
        with mp.get_context("spawn").Pool(2) as pool:
            parts = pool.map(_rows, [(a, i, i + 64) for i in range(0, a.shape[0], 64)])
    assert np.array_equal(np.concatenate(parts), want)
