"""An Array opened by a relative path unpickles in a process whose directory is another (Dask,
multiprocessing spawn): the pickle holds the path made absolute at open, against the directory
the open resolved it in."""
import os
import pickle

import numpy as np

import tessera

CORPUS = os.environ.get("TSR_CORPUS", os.path.join(os.path.dirname(__file__), "../../../shared/corpus"))


def test_relative_path_unpickles_elsewhere(tmp_path, monkeypatch):
    monkeypatch.chdir(os.path.join(CORPUS, "zarr2"))
    a = tessera.open("ome_multiscale.zarr", level=1)
    assert a.path == "ome_multiscale.zarr"  # (as given)
    s = pickle.dumps(a)
    want = a[...]
    monkeypatch.chdir(tmp_path)
    b = pickle.loads(s)
    assert os.path.isabs(b.path)
    assert b.info()["level"] == 1
    np.testing.assert_array_equal(b[...], want)
