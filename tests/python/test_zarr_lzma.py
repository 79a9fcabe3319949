"""Zarr arrays compressed with numcodecs' LZMA (liblzma) read as zarr-python reads them: v2's
compressor in .xz (its default, with a custom filter chain too), .lzma and either format, as a
filter, v3's numcodecs.lzma codec, inside shards; a damaged chunk fails naming its chunk;
format 3 (raw streams, their filters in the metadata) is refused. They were refused
("compressor 'lzma' is not supported")."""
import json
import lzma
import os
import warnings

import numpy as np
import pytest

import tessera

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")

D = (np.arange(23 * 7).reshape(23, 7) * 7919 % 251).astype("<f4")


def _v2(p, compressor, filters=None):
    zarr.create_array(p, shape=D.shape, chunks=(6, 5), dtype=D.dtype, zarr_format=2,
                      compressors=compressor, filters=filters)[...] = D
    return p


def _set_format(p, fmt):
    m = json.load(open(os.path.join(p, ".zarray")))
    m["compressor"]["format"] = fmt
    json.dump(m, open(os.path.join(p, ".zarray"), "w"))


@pytest.mark.parametrize("fmt,filters", [
    (1, None),
    (1, [dict(id=lzma.FILTER_DELTA, dist=4), dict(id=lzma.FILTER_LZMA2, preset=1)]),
    (2, None),
])
def test_v2_as_zarr(tmp_path, fmt, filters):
    p = _v2(str(tmp_path / "c.zarr"), numcodecs.LZMA(format=fmt, filters=filters))
    a = tessera.open(p)
    assert a.codec == "lzma"
    # (with a filter chain numcodecs' own decode fails: lzma.decompress takes filters only for
    # raw streams; the .xz stream names them itself)
    np.testing.assert_array_equal(a[...], D if filters else zarr.open_array(p)[...])
    np.testing.assert_array_equal(a[21:2:-3, 1::2], D[21:2:-3, 1::2])


@pytest.mark.parametrize("written", [1, 2])
def test_format_auto_takes_either(tmp_path, written):
    p = _v2(str(tmp_path / "c.zarr"), numcodecs.LZMA(format=written))
    _set_format(p, lzma.FORMAT_AUTO)
    np.testing.assert_array_equal(tessera.open(p)[...], D)


def test_as_a_filter(tmp_path):
    p = _v2(str(tmp_path / "c.zarr"), numcodecs.Zstd(), filters=[numcodecs.LZMA(preset=0)])
    np.testing.assert_array_equal(tessera.open(p)[...], zarr.open_array(p)[...])


@pytest.mark.parametrize("shards", [None, (12, 7)])
def test_v3_as_zarr(tmp_path, shards):
    zc = pytest.importorskip("zarr.codecs.numcodecs")
    p = str(tmp_path / "c.zarr")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        zarr.create_array(p, shape=D.shape, dtype=D.dtype, chunks=(4, 7) if shards else (6, 5),
                          shards=shards, compressors=[zc.LZMA(preset=9)])[...] = D
    np.testing.assert_array_equal(tessera.open(p)[...], D)
    np.testing.assert_array_equal(tessera.open(p)[5:19, ::-2], D[5:19, ::-2])


def test_damaged_chunk(tmp_path):
    p = _v2(str(tmp_path / "c.zarr"), numcodecs.LZMA())
    chunk = os.path.join(p, "2.0")
    b = bytearray(open(chunk, "rb").read())
    b[len(b) // 2] ^= 0x5a
    open(chunk, "wb").write(bytes(b))
    with pytest.raises(tessera.CorruptError, match=r"chunk 2\.0: lzma: "):
        tessera.open(p)[...]
    np.testing.assert_array_equal(tessera.open(p)[:12], D[:12])


def test_raw_format_refused(tmp_path):
    p = _v2(str(tmp_path / "c.zarr"), numcodecs.LZMA())
    _set_format(p, lzma.FORMAT_RAW)
    with pytest.raises(NotImplementedError, match=r"'lzma' with format 3 \(raw\)"):
        tessera.open(p)
