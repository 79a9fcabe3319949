"""b2nd arrays of structured dtypes with bool fields read as python-blosc2 reads them. python-blosc2
keeps the dtype as NumPy's str(dtype), which spells a bool field '?' where other fields have a
typestr ('<i4'); tessera refused them ("structured dtype ... is not one tessera reads")."""
import numpy as np
import pytest

import tessera

blosc2 = pytest.importorskip("blosc2")

DTYPES = [
    [("a", "<i4"), ("ok", "?")],
    [("ok", "?"), ("b", ">f8")],
    [("m", "?", (2,)), ("c", "S3")],
    [("p", [("q", "?"), ("r", "<u2")]), ("s", "<i8")],
]


@pytest.mark.parametrize("k", range(len(DTYPES)))
def test_struct_bool(tmp_path, k):
    dt = np.dtype(DTYPES[k])
    x = np.zeros(11, dtype=dt)
    raw = x.view(np.uint8).reshape(11, dt.itemsize)
    raw[...] = np.random.default_rng(k).integers(0, 2, raw.shape)  # (bools: 0 or 1 bytes)
    p = str(tmp_path / "s.b2nd")
    blosc2.asarray(x, urlpath=p, mode="w", chunks=(4,), blocks=(2,))
    want = blosc2.open(p)[...]
    got = tessera.read(p)
    assert got.dtype == want.dtype == dt
    assert got.tobytes() == want.tobytes()
    assert tessera.open(p)[3:9:2].tobytes() == want[3:9:2].tobytes()
