"""A Zarr store's listing keeps each group's arrays right after it: paths sort component by
component ("cell", "cell/0", "cell/1", "cell-2", ...), where a byte order put "cell-2" and its
levels between "cell" and its own levels ('-', '.', ' ' sort before '/')."""
import numpy as np
import pytest

import tessera

zarr = pytest.importorskip("zarr")


def _multiscale(g, name):
    img = g.create_group(name)
    for lv in range(2):
        img.create_array(str(lv), shape=(8 >> lv, 8 >> lv), dtype="u1")[...] = lv
    img.attrs["multiscales"] = [{"version": "0.4", "axes": [{"name": "y"}, {"name": "x"}],
                                 "datasets": [{"path": str(lv), "coordinateTransformations":
                                               [{"type": "scale", "scale": [2.0 ** lv] * 2}]}
                                              for lv in range(2)]}]


@pytest.mark.parametrize("fmt", [2, 3])
def test_groups_then_their_levels(tmp_path, fmt):
    p = str(tmp_path / "s.zarr")
    g = zarr.open_group(p, mode="w", zarr_format=fmt)
    for name in ("cell", "cell-2", "cell.b", "cell 3"):
        _multiscale(g, name)
    g.create_array("cella", shape=(2,), dtype="u1")
    names = [e["name"] for e in tessera.list_arrays(p)]
    assert names == ["cell", "cell/0", "cell/1", "cell 3", "cell 3/0", "cell 3/1",
                     "cell-2", "cell-2/0", "cell-2/1", "cell.b", "cell.b/0", "cell.b/1", "cella"]
    assert [a.info()["name"] for a in tessera.iter_arrays(p)] == [n for n in names if "/" in n or n == "cella"]
