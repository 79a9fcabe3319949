"""Zarr v3 arrays with zarr-python's numcodecs.crc32 and numcodecs.adler32 codecs (checksum at
the start, their default, or the end; after a compressor; inside a shard) read as zarr-python
reads them; they were refused ("codec 'numcodecs.crc32' is not supported"). numcodecs.crc32c
with its checksum at the start is refused saying so, where a read would have failed its
checksum."""
import warnings

import numpy as np
import pytest

import tessera

zarr = pytest.importorskip("zarr")
nz = pytest.importorskip("numcodecs.zarr3")


def _write(p, compressors, **kw):
    d = (np.arange(20 * 13).reshape(20, 13) % 97).astype("i2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        zarr.create_array(p, shape=d.shape, dtype="i2", compressors=compressors, **kw)[...] = d
    return d


@pytest.mark.parametrize("kind", ["CRC32", "Adler32"])
@pytest.mark.parametrize("location", [None, "start", "end"])
@pytest.mark.parametrize("zstd", [False, True])
def test_as_zarr(tmp_path, kind, location, zstd):
    ck = getattr(nz, kind)() if location is None else getattr(nz, kind)(location=location)
    comps = ([zarr.codecs.ZstdCodec()] if zstd else []) + [ck]
    p = str(tmp_path / "c.zarr")
    d = _write(p, comps, chunks=(6, 5))
    np.testing.assert_array_equal(tessera.open(p)[...], d)
    np.testing.assert_array_equal(tessera.open(p)[2:19:3, ::-2], d[2:19:3, ::-2])


def test_in_a_shard(tmp_path):
    p = str(tmp_path / "s.zarr")
    d = _write(p, [nz.Adler32(location="end")], chunks=(10, 13), shards=(20, 13))
    np.testing.assert_array_equal(tessera.open(p)[...], d)


def test_crc32c_at_start_refused(tmp_path):
    p = str(tmp_path / "c.zarr")
    _write(p, [nz.CRC32C(location="start")], chunks=(6, 5))
    with pytest.raises(NotImplementedError, match="checksum at the start"):
        tessera.open(p)
