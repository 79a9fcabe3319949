"""A v2 array whose .zattrs does not load (nested past the JSON parser's 1,000 levels, or not
JSON) opens and reads, as zarr-python's array does, which reads attributes only when asked;
its attrs and metadata() raise, naming the file and, for nesting, the depth. It failed to open
with "not valid JSON". A group's .zattrs still must load (its multiscales may be needed)."""
import json
import os

import numpy as np
import pytest

import tessera


def write(p, attrs_text):
    os.makedirs(p)
    json.dump({"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<i4",
               "compressor": None, "fill_value": 0, "order": "C", "filters": None},
              open(os.path.join(p, ".zarray"), "w"))
    open(os.path.join(p, "0"), "wb").write(np.arange(1, 5, dtype="<i4").tobytes())
    open(os.path.join(p, ".zattrs"), "w").write(attrs_text)


def test_deep(tmp_path):
    p = str(tmp_path / "deep.zarr")
    write(p, '{"tree": ' + "[" * 1500 + "]" * 1500 + ', "units": "m"}')
    a = tessera.open(p)
    np.testing.assert_array_equal(a[...], [1, 2, 3, 4])
    with pytest.raises(NotImplementedError, match=r"\.zattrs: JSON nested 1501 levels deep, "
                                                  r"past the 1000 its parser takes"):
        a.attrs
    with pytest.raises(NotImplementedError, match="nested"):
        a.metadata()


def test_broken(tmp_path):
    p = str(tmp_path / "bad.zarr")
    write(p, '{"units": ')
    a = tessera.open(p)
    np.testing.assert_array_equal(a[...], [1, 2, 3, 4])
    with pytest.raises(tessera.FormatError, match=r"\.zattrs: not valid JSON"):
        a.attrs


def test_group_still_strict(tmp_path):
    g = str(tmp_path / "g.zarr")
    write(os.path.join(g, "a"), "{}")
    json.dump({"zarr_format": 2}, open(os.path.join(g, ".zgroup"), "w"))
    open(os.path.join(g, ".zattrs"), "w").write("{")
    with pytest.raises(tessera.FormatError, match=r"\.zattrs: not valid JSON"):
        tessera.open(g, level=0)
