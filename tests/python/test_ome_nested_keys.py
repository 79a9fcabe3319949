"""A v2 array that an OME-NGFF 0.2-0.4 multiscales group lists as a dataset, and whose .zarray
names no dimension_separator (zarr-python before 2.8 wrote none), has '/'-separated chunk keys,
as those versions require and ome-zarr-py reads them; opened by level or by path alike. It read
as fill values, silently. Other arrays keep zarr's '.' default, and a separator the .zarray
names is kept."""
import json
import os

import numpy as np
import pytest

import tessera


def write(root, version, sep_in_meta, nested_files, ds="0"):
    """An image group at root whose dataset ds is 2x4 int16 in 1x2 chunks, chunk files named
    with '/' (nested_files) or '.'."""
    os.makedirs(os.path.join(root, ds))
    json.dump({"zarr_format": 2}, open(os.path.join(root, ".zgroup"), "w"))
    ms = {"datasets": [{"path": ds}], "axes": ["y", "x"] if version == "0.4" else None}
    if version is not None:
        ms["version"] = version
    json.dump({"multiscales": [ms]}, open(os.path.join(root, ".zattrs"), "w"))
    meta = {"zarr_format": 2, "shape": [2, 4], "chunks": [1, 2], "dtype": "<i2",
            "compressor": None, "fill_value": 0, "order": "C", "filters": None}
    if sep_in_meta:
        meta["dimension_separator"] = sep_in_meta
    json.dump(meta, open(os.path.join(root, ds, ".zarray"), "w"))
    want = np.arange(1, 9, dtype="<i2").reshape(2, 4)
    for i in range(2):
        for j in range(2):
            key = "%d/%d" % (i, j) if nested_files else "%d.%d" % (i, j)
            f = os.path.join(root, ds, key)
            os.makedirs(os.path.dirname(f), exist_ok=True)
            open(f, "wb").write(want[i, 2 * j:2 * j + 2].tobytes())
    return want


@pytest.mark.parametrize("version", ["0.2", "0.3", "0.4"])
def test_nested_by_version(tmp_path, version):
    root = str(tmp_path / "img.zarr")
    want = write(root, version, None, True)
    np.testing.assert_array_equal(tessera.open(root, level=0)[...], want)
    np.testing.assert_array_equal(tessera.open(root, array="0")[...], want)


def test_dataset_below_the_group(tmp_path):
    root = str(tmp_path / "img.zarr")
    want = write(root, "0.3", None, True, ds="s/0")
    np.testing.assert_array_equal(tessera.open(root, level=0)[...], want)
    np.testing.assert_array_equal(tessera.open(root, array="s/0")[...], want)


@pytest.mark.parametrize("version", ["0.1", None])
def test_dotted_otherwise(tmp_path, version):
    root = str(tmp_path / "img.zarr")
    want = write(root, version, None, False)
    np.testing.assert_array_equal(tessera.open(root, level=0)[...], want)


def test_named_separator_kept(tmp_path):
    root = str(tmp_path / "img.zarr")
    want = write(root, "0.4", ".", False)
    np.testing.assert_array_equal(tessera.open(root, level=0)[...], want)
