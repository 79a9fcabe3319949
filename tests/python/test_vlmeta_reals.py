"""test_vlmeta_reals.py - a Blosc2 frame's vlmeta floats come back through Array.attrs as
python-blosc2's vlmeta gives them: 1.0 a float (not the int 1), -0.0 with its sign, float32
values as the double they widen to, NaN and the infinities as themselves (not None): the
metadata document writes reals with a '.0' or exponent and the bare NaN, Infinity, -Infinity
tokens Python's json reads."""
import math
from collections.abc import Mapping

import numpy as np
import pytest

import tessera

blosc2 = pytest.importorskip("blosc2")

VALUES = {"one": 1.0, "negzero": -0.0, "tenth": 0.1, "huge": 1e300, "tiny": 5e-324,
          "nan": float("nan"), "inf": float("inf"), "ninf": float("-inf"),
          "f32": float(np.float32(1.1)), "mixed": [1.0, 2, 2.5, float("nan")],
          "nested": {"gain": 3.0, "offset": -1e-3, "count": 4}}


def same(a, b):
    """Equal values of the same types; NaN equals NaN, -0.0 differs from 0.0."""
    if isinstance(a, Mapping) or isinstance(b, Mapping):  # (attrs: a mapping, maybe no dict)
        return (isinstance(a, Mapping) and isinstance(b, Mapping) and
                set(a) == set(b) and all(same(a[k], b[k]) for k in a))
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return a == b


def test_vlmeta_reals(tmp_path):
    path = str(tmp_path / "a.b2nd")
    b = blosc2.asarray(np.arange(100, dtype="f8"), urlpath=path, mode="w")
    for k, v in VALUES.items():
        b.schunk.vlmeta[k] = v
    want = {k: b.schunk.vlmeta[k] for k in b.schunk.vlmeta.getall()}
    with tessera.open(path) as a:
        got = dict(a.attrs)
        assert same(got, want), (got, want)
        assert same(a.metadata()["vlmeta"], want)
