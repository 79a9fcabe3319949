"""test_zarr_fill_exact.py - integer fill values beyond 2^53 read exactly, from each array's
own document: two uint64 arrays of one consolidated store whose fills round to the same
double (2^64 - 1, 2^64 - 2) each read their own, as zarr-python reads them (the reader once
took the first "fill_value" of the consolidated text whose value rounded alike); int64 extremes
too, v2 and v3."""
import os

import numpy as np
import pytest

import tessera

FILLS = {"a": ("u8", 2 ** 64 - 1), "b": ("u8", 2 ** 64 - 2), "c": ("i8", -(2 ** 63) + 1),
         "d": ("i8", 2 ** 63 - 2), "e": ("i8", 2 ** 53 + 1)}


@pytest.mark.parametrize("fmt, consolidated_only", [(2, False), (2, True), (3, False)])
def test_fills(tmp_path, fmt, consolidated_only):
    zarr = pytest.importorskip("zarr")
    store = str(tmp_path / "s.zarr")
    g = zarr.open_group(store, mode="w", zarr_format=fmt)
    for name, (dtype, fill) in FILLS.items():
        g.create_array(name, shape=(3,), chunks=(3,), dtype=dtype, fill_value=fill)
    zarr.consolidate_metadata(store)
    if consolidated_only:  # each array's .zarray gone: only .zmetadata names it
        for name in FILLS:
            os.unlink(os.path.join(store, name, ".zarray"))
    peer = zarr.open_consolidated(store, mode="r", zarr_format=fmt)
    for name, (dtype, fill) in FILLS.items():
        want = peer[name][...]
        assert want.tolist() == [fill] * 3, name
        got = tessera.read(store, array=name)
        assert got.dtype == np.dtype(dtype) and got.tolist() == want.tolist(), name
