"""Array.attrs is made from the file at each access, so it refuses changes (TypeError) rather
than taking one the next access loses; it is still a dict for every reader (json.dumps, dict(),
pickle, deepcopy), and a copy of it is a plain dict to change. Blosc2 vlmeta's tuples come back
as python-blosc2 gives them (it stores a tuple as a list headed "__tuple__")."""
import copy
import json
import os
import pickle

import pytest

import tessera

CORPUS = os.environ.get("TSR_CORPUS", os.path.join(os.path.dirname(__file__), "../../../shared/corpus"))
FITS = os.path.join(CORPUS, "fits/u_f32_primary.fits")


@pytest.mark.parametrize("change", [
    lambda d: d.__setitem__("X", 1),
    lambda d: d.__delitem__("BITPIX"),
    lambda d: d.update(X=1),
    lambda d: d.setdefault("X", 1),
    lambda d: d.pop("BITPIX"),
    lambda d: d.popitem(),
    lambda d: d.clear(),
    lambda d: d.__ior__({"X": 1}),
])
def test_changes_refused(change):
    a = tessera.open(FITS)
    d = a.attrs
    with pytest.raises(TypeError, match="read-only"):
        change(d)
    assert a.attrs == d and "X" not in d and "BITPIX" in d


def test_still_a_dict():
    d = tessera.open(FITS).attrs
    assert isinstance(d, dict)
    assert json.loads(json.dumps(d)) == d
    for c in (pickle.loads(pickle.dumps(d)), copy.deepcopy(d), copy.copy(d)):
        assert c == d
    plain = dict(d)
    plain["X"] = 1
    assert type(d.copy()) is dict and (d | {"X": 1})["X"] == 1


def test_blosc2_tuples(tmp_path):
    blosc2 = pytest.importorskip("blosc2")
    import numpy as np
    p = str(tmp_path / "t.b2nd")
    b = blosc2.asarray(np.arange(6, dtype="i4"), urlpath=p, mode="w")
    b.vlmeta["t"] = (1, 2)
    b.vlmeta["nested"] = {"l": [(3, "x"), [4]]}
    want = {k: b.vlmeta[k] for k in ("t", "nested")}
    got = tessera.open(p).attrs
    assert got["t"] == want["t"] and type(got["t"]) is tuple
    assert got["nested"] == want["nested"]
