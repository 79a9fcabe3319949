"""test_info_stored.py - info() and list_arrays() give "stored_nbytes" where opening knows it
(a FITS HDU's data, a Blosc2 frame's chunks) and None for Zarr, where it would take listing
every chunk, not a 0 that reads as an empty store; metadata() counts a Zarr array's chunk
files."""
import os

import tessera

from conftest import CORPUS

META = {".zarray", ".zattrs", ".zgroup", ".zmetadata", "zarr.json"}


def chunk_bytes(store):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(store)
               for f in fs if f not in META)


def test_zarr_unknown_at_open():
    for rel in ("zarr3/zstd_f4.zarr", "zarr3/shard_end_zstd_f4.zarr", "zarr2/1d_i16.zarr"):
        path = os.path.join(CORPUS, rel)
        with tessera.open(path) as a:
            assert a.info()["stored_nbytes"] is None, rel
            assert a.metadata()["stored_nbytes"] == chunk_bytes(path) > 0, rel
        assert all(e["stored_nbytes"] is None for e in tessera.list_arrays(path)), rel


def test_known_elsewhere():
    for rel in ("fits/fp_rice_i16.fits.fz", "blosc2/lz4_shuffle_f4_3d.b2nd"):
        with tessera.open(os.path.join(CORPUS, rel)) as a:
            n = a.info()["stored_nbytes"]
            assert isinstance(n, int) and 0 < n < os.path.getsize(a.path), rel
