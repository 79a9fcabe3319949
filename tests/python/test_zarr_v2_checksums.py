"""Zarr v2 arrays with numcodecs' crc32 and adler32 filters (4 little-endian checksum bytes at
the start, numcodecs' default, or the end; after any other filter, with or without a
compressor) read as zarr-python reads them, and a damaged chunk fails naming the checksum; they
were refused ("filter 'crc32' is not supported"); so was a checksum as the compressor. A
checksum before another filter is refused (its bytes would be an array filter's input)."""
import glob
import os

import numpy as np
import pytest

import tessera

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")


def _store(tmp_path, filters, comp):
    p = str(tmp_path / "c.zarr")
    d = (np.arange(20 * 13).reshape(20, 13) % 97).astype("i2")
    a = zarr.create_array(p, shape=d.shape, chunks=(6, 5), dtype="i2", zarr_format=2,
                          filters=filters, compressors=comp)
    a[...] = d
    return p, d


@pytest.mark.parametrize("kind", ["CRC32", "Adler32"])
@pytest.mark.parametrize("location", [None, "start", "end"])
@pytest.mark.parametrize("comp", [None, "zstd"])
@pytest.mark.parametrize("delta", [False, True])
def test_as_zarr(tmp_path, kind, location, comp, delta):
    ck = getattr(numcodecs, kind)() if location is None else getattr(numcodecs, kind)(location=location)
    filters = ([numcodecs.Delta("i2")] if delta else []) + [ck]
    p, d = _store(tmp_path, filters, numcodecs.Zstd() if comp else None)
    a = tessera.open(p)
    np.testing.assert_array_equal(a[...], zarr.open_array(p)[...])
    np.testing.assert_array_equal(a[3:17:2, ::-3], d[3:17:2, ::-3])


@pytest.mark.parametrize("kind", ["CRC32", "Adler32"])
def test_damaged_chunk(tmp_path, kind):
    p, _ = _store(tmp_path, [getattr(numcodecs, kind)()], None)
    chunk = os.path.join(p, "1.1")
    b = bytearray(open(chunk, "rb").read())
    b[9] ^= 0x40
    open(chunk, "wb").write(bytes(b))
    with pytest.raises(tessera.CorruptError, match="%s mismatch" % kind.lower()):
        tessera.open(p)[...]


def test_checksum_before_a_filter_refused(tmp_path):
    p, _ = _store(tmp_path, [numcodecs.CRC32(), numcodecs.Delta("i2")], None)
    with pytest.raises(NotImplementedError, match="filter 'crc32' before another filter"):
        tessera.open(p)


@pytest.mark.parametrize("kind", ["CRC32", "Adler32", "Fletcher32", "JenkinsLookup3"])
@pytest.mark.parametrize("delta", [False, True])
def test_as_the_compressor(tmp_path, kind, delta):
    """A checksum as the compressor (compressors=CRC32()) reads as it does among the filters;
    it was refused ("compressor 'crc32' is not supported")."""
    p, d = _store(tmp_path, [numcodecs.Delta("i2")] if delta else None, getattr(numcodecs, kind)())
    np.testing.assert_array_equal(tessera.open(p)[...], zarr.open_array(p)[...])
    np.testing.assert_array_equal(tessera.open(p)[2:19:3, ::-2], d[2:19:3, ::-2])
