"""Chains of three or more bytes codecs with a checksum between two of them (zarr-python writes
any order: gzip, crc32c, zstd; crc32c, gzip, crc32c, blosc; v2 filters Delta, Zlib, CRC32 before a
compressor) read as zarr-python reads them. A checksum step passes its input on, and the steps
took two scratch buffers in turn, so the step after a checksum wrote over (and where it grew,
freed) its own input: CorruptError "gzip: bad or truncated data", "zstd: Destination buffer is
too small", found by a probe's 1,100 chains (150 failed). A whole shard's chain after
sharding_indexed failed alike: the slot is now chosen where every step decodes
(tsr_bytes_decode), not by each loop over steps."""
import warnings

import numpy as np
import pytest

import tessera

zarr = pytest.importorskip("zarr")
nz = pytest.importorskip("numcodecs.zarr3")
numcodecs = pytest.importorskip("numcodecs")
zc = zarr.codecs


def _v3(p, compressors, **kw):
    d = (np.arange(40 * 30).reshape(40, 30) % 1000).astype("<u2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        zarr.create_array(p, shape=d.shape, dtype="<u2", compressors=compressors, **kw)[...] = d
    return d


CHAINS = {
    "gzip crc32c zstd, big-endian": (lambda: [zc.GzipCodec(), zc.Crc32cCodec(), zc.ZstdCodec()],
                                     {"serializer": zc.BytesCodec(endian="big")}),
    "gzip crc32c zstd, transposed": (lambda: [zc.GzipCodec(), zc.Crc32cCodec(), zc.ZstdCodec()],
                                     {"filters": [zc.TransposeCodec(order=(1, 0))]}),
    "crc32c gzip crc32c blosc": (lambda: [zc.Crc32cCodec(), zc.GzipCodec(), zc.Crc32cCodec(),
                                          zc.BloscCodec(cname="lz4", shuffle="shuffle")], {}),
    "adler32 zstd adler32 blosc": (lambda: [nz.Adler32(), zc.ZstdCodec(), nz.Adler32(),
                                            zc.BloscCodec(cname="zstd", shuffle="noshuffle")], {}),
    "gzip crc32c zstd crc32c": (lambda: [zc.GzipCodec(), zc.Crc32cCodec(), zc.ZstdCodec(),
                                         zc.Crc32cCodec()], {}),
}


@pytest.mark.parametrize("name", sorted(CHAINS))
@pytest.mark.parametrize("chunks", [(40, 30), (16, 7)])
def test_v3_chain(tmp_path, name, chunks):
    comps, kw = CHAINS[name]
    p = str(tmp_path / "c.zarr")
    d = _v3(p, comps(), chunks=chunks, **kw)
    a = tessera.open(p)
    np.testing.assert_array_equal(a[...], d)
    np.testing.assert_array_equal(a[3:37:4, ::-3], d[3:37:4, ::-3])
    np.testing.assert_array_equal(a[5, 2], d[5, 2])


def test_v2_filters_before_a_compressor(tmp_path):
    p = str(tmp_path / "f.zarr")
    d = np.arange(8, dtype="<u2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z = zarr.create_array(p, shape=(8,), chunks=(8,), dtype="<u2", zarr_format=2,
                              filters=[numcodecs.Delta(dtype="<u2"), numcodecs.Zlib(),
                                       numcodecs.CRC32()],
                              compressors=numcodecs.Zstd())
        z[...] = d
    np.testing.assert_array_equal(tessera.open(p)[...], d)
    np.testing.assert_array_equal(tessera.open(p)[...], z[...])


@pytest.mark.parametrize("name", ["gzip crc32c zstd", "crc32c gzip crc32c zstd"])
def test_whole_shard_chain(tmp_path, name):
    """The same chains after sharding_indexed (a whole shard's codecs) read too: the shard's
    steps took the two scratch slots in turn as a chunk's did."""
    comps = {"gzip crc32c zstd": [zc.GzipCodec(), zc.Crc32cCodec(), zc.ZstdCodec()],
             "crc32c gzip crc32c zstd": [zc.Crc32cCodec(), zc.GzipCodec(), zc.Crc32cCodec(),
                                         zc.ZstdCodec()]}[name]
    p = str(tmp_path / "w.zarr")
    d = _v3(p, comps, chunks=(40, 30),
            serializer=zc.ShardingCodec(chunk_shape=(10, 10),
                                        codecs=[zc.BytesCodec(endian="big")]))
    a = tessera.open(p)
    np.testing.assert_array_equal(a[...], d)
    np.testing.assert_array_equal(a[3:37:4, ::-3], d[3:37:4, ::-3])
