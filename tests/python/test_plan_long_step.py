"""A slice whose step is long beside its chunks plans only the chunks its positions touch: a
row of 1,024 points taken every 2^30 elements of an array of 2^40 one-element chunks is read
at once (it planned every chunk the slice spans and failed "plan: out of memory"; smaller
spans cost time in proportion to the span)."""
import json
import os

import numpy as np

import tessera


def _huge(tmp_path):
    p = str(tmp_path / "huge.zarr")
    os.makedirs(p)
    with open(os.path.join(p, "zarr.json"), "w") as f:
        json.dump({"zarr_format": 3, "node_type": "array", "shape": [2 ** 40, 1024],
                   "data_type": "int16", "fill_value": 7,
                   "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1, 1]}},
                   "chunk_key_encoding": {"name": "default"},
                   "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}, f)
    # one chunk written, so the read is not all fill: element (3 * 2**30, 0)
    c = os.path.join(p, "c", str(3 * 2 ** 30))
    os.makedirs(c)
    with open(os.path.join(c, "0"), "wb") as f:
        f.write(np.array([-5], "<i2").tobytes())
    return p


def test_long_steps(tmp_path):
    a = tessera.open(_huge(tmp_path))
    got = a[:: 2 ** 30, 0]
    want = np.full(1024, 7, "i2")
    want[3] = -5
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(a[2 ** 40 - 1 :: -(2 ** 31), 0][-1:], [7])
    np.testing.assert_array_equal(a[3 * 2 ** 30, ::300], [-5, 7, 7, 7])
