"""An array opened by its path in a store whose root holds no metadata (zarr-python writes
arrays by path alone, v2 and v3) opens as zarr.open_array(store, path=...) does, where tessera
said "not a Zarr store"; a path that holds no array still says so."""
import numpy as np
import pytest

import tessera

zarr = pytest.importorskip("zarr")


@pytest.mark.parametrize("version", [2, 3])
def test_open_by_path(tmp_path, version):
    p = str(tmp_path / "s.zarr")
    zarr.create_array(p + "/arr", shape=(3,), chunks=(3,), dtype="u1", zarr_format=version)[...] = [1, 2, 3]
    zarr.create_array(p + "/g/sub", shape=(2, 2), chunks=(1, 2), dtype="f4",
                      zarr_format=version)[...] = [[1, 2], [3, 4]]
    for name in ("arr", "g/sub", "/arr/"):
        want = zarr.open_array(p, path=name.strip("/"))[...]
        a = tessera.open(p, array=name)
        np.testing.assert_array_equal(a[...], want)
        assert a.info()["name"] == name.strip("/")
        assert a.metadata()["zarr_format"] == version
    with pytest.raises(tessera.FormatError, match="not a Zarr store"):
        tessera.open(p, array="nope")
    with pytest.raises(tessera.FormatError, match="not a Zarr store"):
        tessera.open(p)
