"""Zarr arrays with numcodecs' Fletcher32 and JenkinsLookup3 filters (HDF5's chunk checksums:
4 little-endian bytes after the payload; lookup3 from its initval) read as zarr-python reads
them, as v2 filters and as v3 numcodecs.* codecs, inside shards too, chunks of odd byte
lengths included; a damaged chunk fails naming the checksum; a lookup3 prefix (bytes JSON
cannot hold) is refused. They were refused ("filter 'fletcher32' is not supported")."""
import json
import os
import warnings

import numpy as np
import pytest

import tessera

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")


def _data(dtype):
    # 23 x 7 chunks of 6 x 5: edge chunks too, and an odd byte count a chunk for int8
    return (np.arange(23 * 7).reshape(23, 7) * 7919 % 251).astype(dtype)


def _codec(kind, initval):
    if kind == "Fletcher32":
        return numcodecs.Fletcher32()
    return numcodecs.JenkinsLookup3(initval=initval)


@pytest.mark.parametrize("kind,initval", [("Fletcher32", 0), ("JenkinsLookup3", 0),
                                          ("JenkinsLookup3", 0xdeadbeef)])
@pytest.mark.parametrize("dtype", ["i1", "<f8"])
@pytest.mark.parametrize("comp", [None, "zstd"])
def test_v2_as_zarr(tmp_path, kind, initval, dtype, comp):
    p = str(tmp_path / "c.zarr")
    d = _data(dtype)
    filters = ([numcodecs.Delta(dtype)] if comp else []) + [_codec(kind, initval)]
    a = zarr.create_array(p, shape=d.shape, chunks=(6, 5), dtype=dtype, zarr_format=2,
                          filters=filters, compressors=numcodecs.Zstd() if comp else None)
    a[...] = d
    np.testing.assert_array_equal(tessera.open(p)[...], zarr.open_array(p)[...])
    np.testing.assert_array_equal(tessera.open(p)[21:2:-3, 1::2], d[21:2:-3, 1::2])


@pytest.mark.parametrize("kind,initval", [("Fletcher32", 0), ("JenkinsLookup3", 7)])
@pytest.mark.parametrize("shards", [None, (12, 7)])
def test_v3_as_zarr(tmp_path, kind, initval, shards):
    zc = pytest.importorskip("zarr.codecs.numcodecs")
    ck = zc.Fletcher32() if kind == "Fletcher32" else zc.JenkinsLookup3(initval=initval)
    p = str(tmp_path / "c.zarr")
    d = _data("<u2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        zarr.create_array(p, shape=d.shape, dtype=d.dtype, chunks=(6, 5) if not shards else (4, 7),
                          shards=shards, compressors=[zarr.codecs.ZstdCodec(), ck])[...] = d
    np.testing.assert_array_equal(tessera.open(p)[...], d)
    np.testing.assert_array_equal(tessera.open(p)[5:19, ::-2], d[5:19, ::-2])


@pytest.mark.parametrize("kind,name", [("Fletcher32", "fletcher32"),
                                       ("JenkinsLookup3", "jenkins_lookup3")])
def test_damaged_chunk(tmp_path, kind, name):
    p = str(tmp_path / "c.zarr")
    d = _data("i1")
    zarr.create_array(p, shape=d.shape, chunks=(6, 5), dtype="i1", zarr_format=2,
                      filters=[_codec(kind, 0)], compressors=None)[...] = d
    chunk = os.path.join(p, "1.1")
    b = bytearray(open(chunk, "rb").read())
    b[3] ^= 0x10
    open(chunk, "wb").write(bytes(b))
    with pytest.raises(tessera.CorruptError, match=r"chunk 1\.1: %s mismatch" % name):
        tessera.open(p)[...]
    np.testing.assert_array_equal(tessera.open(p)[:6, :5], d[:6, :5])


def test_wrong_initval_fails(tmp_path):
    # the hash depends on initval: a store whose metadata names another fails every chunk
    p = str(tmp_path / "c.zarr")
    d = _data("i1")
    zarr.create_array(p, shape=d.shape, chunks=(6, 5), dtype="i1", zarr_format=2,
                      filters=[numcodecs.JenkinsLookup3(initval=3)], compressors=None)[...] = d
    meta = json.load(open(os.path.join(p, ".zarray")))
    meta["filters"][0]["initval"] = 4
    json.dump(meta, open(os.path.join(p, ".zarray"), "w"))
    with pytest.raises(tessera.CorruptError, match="jenkins_lookup3 mismatch"):
        tessera.open(p)[...]


def test_prefix_refused(tmp_path):
    p = str(tmp_path / "c.zarr")
    d = _data("i1")
    zarr.create_array(p, shape=d.shape, chunks=(6, 5), dtype="i1", zarr_format=2,
                      filters=[numcodecs.JenkinsLookup3()], compressors=None)[...] = d
    meta = json.load(open(os.path.join(p, ".zarray")))
    meta["filters"][0]["prefix"] = [97, 98]
    json.dump(meta, open(os.path.join(p, ".zarray"), "w"))
    with pytest.raises(NotImplementedError, match="'jenkins_lookup3' with a 'prefix'"):
        tessera.open(p)
