"""A shard whose index is past tessera's bound is refused naming the index's size, its inner
chunks and the bound (the message named only the size)."""
import json
import os

import pytest

import tessera


def test_message(tmp_path):
    p = str(tmp_path / "s.zarr")
    os.makedirs(p)
    b = [{"name": "bytes", "configuration": {"endian": "little"}}]
    json.dump({"zarr_format": 3, "node_type": "array", "shape": [2**16, 2**16],
               "data_type": "uint8", "fill_value": 7,
               "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2**16, 2**14]}},
               "chunk_key_encoding": {"name": "default"},
               "codecs": [{"name": "sharding_indexed",
                           "configuration": {"chunk_shape": [1, 1], "codecs": b,
                                             "index_codecs": b}}]},
              open(os.path.join(p, "zarr.json"), "w"))
    with pytest.raises(NotImplementedError,
                       match=r"an index of 17179869184 bytes \(1073741824 inner chunks a shard\); "
                             r"tessera reads indexes up to 1073741824 bytes"):
        tessera.open(p)
