"""A zipped Zarr store (zarr-python's ZipStore, entries stored or deflated) lists and describes
itself as the same store in a folder does: list_arrays (tsr_list: it once said "not a Zarr
store"), each array's attrs and metadata() (they once read the folder's paths, not the zip's
entries), OME levels; stored_nbytes counts the chunk entries' stored bytes."""
import os
import warnings
import zipfile

import numpy as np
import pytest

import tessera

zarr = pytest.importorskip("zarr")
from zarr.storage import ZipStore  # noqa: E402


def fill(root, fmt):
    g = zarr.open_group(root, mode="w", zarr_format=fmt)
    g.attrs["title"] = "zipped"
    a = g.create_array("raw", shape=(20, 30), chunks=(8, 8), dtype="u2", fill_value=5)
    a[:] = np.arange(600, dtype="u2").reshape(20, 30)
    a.attrs["unit"] = "counts"
    img = g.create_group("img")
    for k, shape in enumerate([(16, 16), (8, 8)]):
        img.create_array(str(k), shape=shape, chunks=(8, 8), dtype="f4")[:] = np.ones(shape, "f4") * k
    img.attrs["multiscales"] = [{"version": "0.4", "axes": [{"name": "y"}, {"name": "x"}],
                                 "datasets": [{"path": "0"}, {"path": "1"}]}]
    if fmt == 3:
        img.attrs["ome"] = {"version": "0.5", "multiscales": img.attrs["multiscales"]}


def chunk_bytes(path, zipped):
    """The stored bytes of the chunks of array "raw", as the store holds them."""
    meta = {".zarray", ".zattrs", ".zgroup", ".zmetadata", "zarr.json"}
    if zipped:
        with zipfile.ZipFile(path) as z:
            return sum(i.compress_size for i in z.infolist()
                       if i.filename.startswith("raw/") and i.filename.split("/")[-1] not in meta)
    total = 0
    for d, _, files in os.walk(os.path.join(path, "raw")):
        total += sum(os.path.getsize(os.path.join(d, f)) for f in files if f not in meta)
    return total


@pytest.mark.parametrize("fmt", [2, 3])
@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_zip_lists_as_its_folder(tmp_path, fmt, compression):
    folder = str(tmp_path / "s.zarr")
    zpath = str(tmp_path / "s.zip")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fill(folder, fmt)
        store = ZipStore(zpath, mode="w", compression=compression)
        fill(store, fmt)
        store.close()

    def strip(entries):
        return [{k: v for k, v in e.items() if k != "stored_nbytes"} for e in entries]

    listed_dir = tessera.list_arrays(folder)
    listed_zip = tessera.list_arrays(zpath)
    assert strip(listed_zip) == strip(listed_dir)
    assert [e["array"] for e in listed_zip if e["kind"] == "array"] == ["img/0", "img/1", "raw"]
    (group,) = [e for e in listed_zip if e["kind"] == "multiscale"]
    assert group["array"] == "img" and group["levels"] == [(16, 16), (8, 8)]
    for name in ("raw", "img/0", "img/1"):
        with tessera.open(folder, array=name) as d, tessera.open(zpath, array=name) as z:
            assert z.attrs == d.attrs
            md, mz = d.metadata(), z.metadata()
            assert mz["attributes"] == md["attributes"] and mz["metadata"] == md["metadata"]
            assert mz["multiscale"] == md["multiscale"]
            assert np.array_equal(z[...], d[...])
    with tessera.open(zpath, array="raw") as z:
        assert z.attrs == {"unit": "counts"}
        assert z.metadata()["stored_nbytes"] == chunk_bytes(zpath, True) > 0
    with tessera.open(folder, array="raw") as d:
        assert d.metadata()["stored_nbytes"] == chunk_bytes(folder, False)
    with tessera.open(zpath, array="img", level=1) as z:
        assert z.shape == (8, 8) and z.info()["level"] == 1
