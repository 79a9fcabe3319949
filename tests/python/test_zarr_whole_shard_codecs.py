"""Zarr v3 arrays whose bytes codecs follow sharding_indexed (the whole shard compressed:
zarr-python writes its default compressor there when the serializer is a ShardingCodec) read as
zarr-python reads them: each shard is decoded once into a memory file, its index and inner
chunks read from there. They were refused ("codec 'zstd' after sharding_indexed"). A damaged
shard fails naming its chunk; a missing one is fill; the memory files go with the Array."""
import os
import warnings

import numpy as np
import pytest

import tessera

zarr = pytest.importorskip("zarr")
from zarr.codecs import (BytesCodec, Crc32cCodec, GzipCodec, ShardingCodec,  # noqa: E402
                         ZstdCodec)

D = (np.arange(23 * 17).reshape(23, 17) * 7 % 251).astype("<u2")


def _write(p, compressors, inner=(ZstdCodec(),), data=D):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = zarr.create_array(p, shape=data.shape, dtype=data.dtype, chunks=(12, 9),
                              serializer=ShardingCodec(chunk_shape=(4, 3),
                                                       codecs=[BytesCodec(), *inner]),
                              compressors=compressors, fill_value=7)
        a[...] = data
    return p


@pytest.mark.parametrize("comps,label", [([ZstdCodec()], "zstd(shard/zstd)"),
                                         ([GzipCodec(), Crc32cCodec()],
                                          "gzip+crc32c(shard/zstd)")])
def test_as_zarr(tmp_path, comps, label):
    p = _write(str(tmp_path / "w.zarr"), comps)
    a = tessera.open(p)
    assert a.codec == label
    np.testing.assert_array_equal(a[...], zarr.open_array(p)[...])
    np.testing.assert_array_equal(a[3:20:2, ::-3], D[3:20:2, ::-3])
    np.testing.assert_array_equal(a[[0, 22, 5], 16], D[[0, 22, 5], 16])


def test_missing_shard_is_fill(tmp_path):
    data = D.copy()
    data[12:, 9:] = 7
    p = _write(str(tmp_path / "w.zarr"), [ZstdCodec()], data=data)
    gone = os.path.join(p, "c", "1", "1")
    if os.path.exists(gone):  # (zarr-python writes no shard of fill values alone)
        os.remove(gone)
    np.testing.assert_array_equal(tessera.open(p)[...], zarr.open_array(p)[...])


def test_damaged_shard(tmp_path):
    p = _write(str(tmp_path / "w.zarr"), [GzipCodec(), Crc32cCodec()], inner=())
    shard = os.path.join(p, "c", "0", "1")
    b = bytearray(open(shard, "rb").read())
    b[len(b) // 2] ^= 0x40
    open(shard, "wb").write(bytes(b))
    with pytest.raises(tessera.CorruptError, match=r"whole shard: crc32c mismatch"):
        tessera.open(p)[...]
    np.testing.assert_array_equal(tessera.open(p)[:, :9], D[:, :9])


def test_memory_files_closed(tmp_path):
    p = _write(str(tmp_path / "w.zarr"), [ZstdCodec()])
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        with tessera.open(p) as a:
            a[...]
    assert len(os.listdir("/proc/self/fd")) <= before + 1
