"""test_zarr_zip_folder.py - a zip of a store's folder (`zip -r s.zip s.zarr`: every entry under
"s.zarr/") lists its arrays by their paths from the zip's root, as open(array=) takes them: the
listing said "not a Zarr store" though open(zip, array="s.zarr/img") read it."""
import json
import zipfile

import numpy as np
import pytest
import tessera


@pytest.mark.parametrize("version", [2, 3])
def test_zip_of_store_folder(tmp_path, version):
    z = tmp_path / "s.zip"
    values = np.arange(6, dtype="<i4")
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as f:
        if version == 2:
            f.writestr("s.zarr/.zgroup", json.dumps({"zarr_format": 2}))
            f.writestr("s.zarr/img/.zarray", json.dumps({
                "zarr_format": 2, "shape": [6], "chunks": [6], "dtype": "<i4", "order": "C",
                "compressor": None, "fill_value": 0, "filters": None}))
            f.writestr("s.zarr/img/0", values.tobytes())
        else:
            f.writestr("s.zarr/zarr.json", json.dumps({"zarr_format": 3, "node_type": "group"}))
            f.writestr("s.zarr/img/zarr.json", json.dumps({
                "zarr_format": 3, "node_type": "array", "shape": [6], "data_type": "int32",
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [6]}},
                "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}))
            f.writestr("s.zarr/img/c/0", values.tobytes())
    entries = tessera.list_arrays(str(z))
    assert [(e["kind"], e["name"], e.get("error")) for e in entries] == \
        [("array", "s.zarr/img", None)]
    got = [a[...] for a in tessera.iter_arrays(str(z))]
    assert len(got) == 1 and np.array_equal(got[0], values)
    assert np.array_equal(tessera.read(str(z), array="s.zarr/img"), values)
