"""An uncompressed chunk whose file is not the size its elements take is corrupt, and says so
before the chunk it claims is allocated: a 3-byte file of a 64 GiB chunk raised MemoryError
(and a 16 GiB one allocated it first). The array's other chunks still read."""
import json
import os

import numpy as np
import pytest

import tessera


@pytest.mark.parametrize("n", [16, 2**34, 2**36, 2**40])
def test_claim(tmp_path, n):
    p = str(tmp_path / "r.zarr")
    os.makedirs(p)
    json.dump({"zarr_format": 2, "shape": [2 * n], "chunks": [n], "dtype": "|u1",
               "compressor": None, "fill_value": 7, "order": "C", "filters": None},
              open(os.path.join(p, ".zarray"), "w"))
    open(os.path.join(p, "0"), "wb").write(b"\x01\x02\x03")
    a = tessera.open(p)
    with pytest.raises(tessera.CorruptError,
                       match=r"chunk 0: none: decodes to 3 bytes, expected %d" % n):
        a[0]
    np.testing.assert_array_equal(a[n:n + 4], [7, 7, 7, 7])  # chunk 1: none stored, fill
