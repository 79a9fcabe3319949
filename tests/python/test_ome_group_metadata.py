"""An OME-Zarr level's metadata()["multiscale"] carries the multiscale's own
coordinateTransformations (applied after each level's, as NGFF says: the voxel size needs both;
it was left out) and the group's attributes document (omero channel names and colours, which
Python could not reach), NGFF 0.4 (Zarr v2) and 0.5 (Zarr v3, under "ome") alike."""
import numpy as np
import pytest

import tessera

zarr = pytest.importorskip("zarr")


@pytest.mark.parametrize("fmt", [2, 3])
def test_group_transform_and_attrs(tmp_path, fmt):
    p = str(tmp_path / "img.zarr")
    g = zarr.open_group(p, mode="w", zarr_format=fmt)
    for lv in range(2):
        g.create_array(str(lv), shape=(4, 8 >> lv, 8 >> lv), dtype="u2")[...] = lv
    ms = [{"version": "0.4" if fmt == 2 else "0.5",
           "axes": [{"name": "z", "type": "space"}, {"name": "y", "type": "space"},
                    {"name": "x", "type": "space"}],
           "datasets": [{"path": str(lv), "coordinateTransformations":
                         [{"type": "scale", "scale": [1.0, 2.0 ** lv, 2.0 ** lv]}]}
                        for lv in range(2)],
           "coordinateTransformations": [{"type": "scale", "scale": [0.5, 0.1, 0.1]}]}]
    omero = {"channels": [{"label": "DAPI", "color": "0000FF"}]}
    if fmt == 2:
        g.attrs.update({"multiscales": ms, "omero": omero})
    else:
        g.attrs["ome"] = {"version": "0.5", "multiscales": ms, "omero": omero}
    m = tessera.open(p, level=1).metadata()["multiscale"]
    assert m["level"] == 1
    assert m["coordinateTransformations"] == [{"type": "scale", "scale": [1.0, 2.0, 2.0]}]
    assert m["groupCoordinateTransformations"] == [{"type": "scale", "scale": [0.5, 0.1, 0.1]}]
    assert m["attributes"] == dict(zarr.open_group(p).attrs)
    ome = m["attributes"] if fmt == 2 else m["attributes"]["ome"]
    assert ome["omero"]["channels"][0]["label"] == "DAPI"
