"""test_zarr_list_structure.py - a Zarr store's listing holds what zarr-python's group tree
holds: nodes whose names start with a dot (the walk skipped every dot-named folder, so a store
listed them only once consolidated), arrays under deep groups (the walk stopped at 32), and a
node whose metadata is there but cannot be read (a folder named .zarray), listed with its error
rather than left out, and a broken group's children. A dot-named folder that is no node is not
walked as an implicit group.
OME-Zarr dataset paths written "./0" name the group's "0" (the levels were left unattached)."""
import json
import os

import numpy as np
import pytest
import tessera


def v2_array(d, value):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, ".zarray"), "w") as f:
        json.dump({"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "|u1",
                   "compressor": None, "fill_value": value, "filters": None, "order": "C"}, f)


def v3_array(d, value):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "zarr.json"), "w") as f:
        json.dump({"zarr_format": 3, "node_type": "array", "shape": [2], "data_type": "uint8",
                   "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
                   "chunk_key_encoding": {"name": "default"}, "fill_value": value,
                   "codecs": [{"name": "bytes"}]}, f)


def group(d, version):
    os.makedirs(d, exist_ok=True)
    name, doc = ((".zgroup", {"zarr_format": 2}) if version == 2 else
                 ("zarr.json", {"zarr_format": 3, "node_type": "group"}))
    with open(os.path.join(d, name), "w") as f:
        json.dump(doc, f)


def names(store):
    return sorted(e["name"] for e in tessera.list_arrays(store) if e["kind"] == "array")


@pytest.mark.parametrize("version", [2, 3])
def test_dot_names_and_depth(tmp_path, version):
    s, arr = str(tmp_path / "s.zarr"), v2_array if version == 2 else v3_array
    group(s, version)
    arr(os.path.join(s, ".hidden"), 7)
    group(os.path.join(s, ".cache"), version)
    arr(os.path.join(s, ".cache", "x"), 1)
    arr(os.path.join(s, "visible"), 2)
    deep = "/".join("g%d" % i for i in range(40))
    for k in range(40):
        group(os.path.join(s, *deep.split("/")[:k + 1]), version)
    arr(os.path.join(s, deep, "leaf"), 3)
    # a dot-named folder without metadata (a tool's) is not walked for implicit groups
    arr(os.path.join(s, ".git", "objects", "a"), 4)
    assert names(s) == sorted([".cache/x", ".hidden", "visible", deep + "/leaf"])
    assert tessera.read(s, array=".hidden").tolist() == [7, 7]
    assert tessera.read(s, array=deep + "/leaf").tolist() == [3, 3]


def test_metadata_not_a_file_listed(tmp_path):
    s = str(tmp_path / "s.zarr")
    group(s, 2)
    v2_array(os.path.join(s, "good"), 1)
    os.makedirs(os.path.join(s, "bad", ".zarray"))
    got = {e["name"]: e.get("error") for e in tessera.list_arrays(s)}
    assert set(got) == {"good", "bad"} and got["good"] is None
    assert "bad/.zarray" in got["bad"] and "not a regular file" in got["bad"]


@pytest.mark.parametrize("version", [2, 3])
def test_ome_dot_slash_paths(tmp_path, version):
    s, arr = str(tmp_path / "ome.zarr"), v2_array if version == 2 else v3_array
    group(s, version)
    for k in range(2):
        arr(os.path.join(s, str(k)), k + 5)
    ms = [{"version": "0.4" if version == 2 else "0.5", "axes": [{"name": "x", "type": "space"}],
           "datasets": [{"path": "./%d" % k, "coordinateTransformations":
                         [{"type": "scale", "scale": [2.0 ** k]}]} for k in range(2)]}]
    if version == 2:
        with open(os.path.join(s, ".zattrs"), "w") as f:
            json.dump({"multiscales": ms}, f)
    else:
        with open(os.path.join(s, "zarr.json"), "w") as f:
            json.dump({"zarr_format": 3, "node_type": "group",
                       "attributes": {"ome": {"version": "0.5", "multiscales": ms}}}, f)
    levels = {e["name"]: e["level"] for e in tessera.list_arrays(s) if e["kind"] == "array"}
    assert levels == {"0": 0, "1": 1}
    assert tessera.read(s, level=1).tolist() == [6, 6]


@pytest.mark.parametrize("version", [2, 3])
def test_broken_group_keeps_children(tmp_path, version):
    """A group whose metadata does not parse is listed with its error, and its children are
    listed too (they were hidden, though they open by their paths)."""
    s, arr = str(tmp_path / "s.zarr"), v2_array if version == 2 else v3_array
    group(s, version)
    group(os.path.join(s, "grp"), version)
    arr(os.path.join(s, "grp", "inner"), 5)
    with open(os.path.join(s, "grp", ".zgroup" if version == 2 else "zarr.json"), "w") as f:
        f.write('{"zarr_format": ')
    got = {e["name"]: e.get("error") for e in tessera.list_arrays(s)}
    assert set(got) == {"grp", "grp/inner"} and got["grp/inner"] is None
    assert "not valid JSON" in got["grp"]
    assert tessera.read(s, array="grp/inner").tolist() == [5, 5]
