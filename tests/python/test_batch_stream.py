"""test_batch_stream.py - read_batch stacks many files (one HDU or several), stream yields the
same stack batch by batch, list_arrays and capabilities describe without reading pixels."""
import os

import numpy as np
import pytest
import tessera

from conftest import CORPUS, same


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    fits = pytest.importorskip("astropy.io.fits")
    d = tmp_path_factory.mktemp("batch")
    rng = np.random.default_rng(7)
    paths, sci, err = [], [], []
    for i in range(7):
        s = rng.integers(0, 1000, (40, 50)).astype(np.int16)
        e = rng.normal(size=(40, 50)).astype(np.float32)
        p = str(d / ("f%d.fits" % i))
        fits.HDUList([fits.PrimaryHDU(), fits.CompImageHDU(s, compression_type="RICE_1"),
                      fits.ImageHDU(e)]).writeto(p)
        paths.append(p), sci.append(s), err.append(e)
    return paths, np.stack(sci), np.stack(err)


def test_read_batch(files):
    paths, sci, err = files
    got = tessera.read_batch(paths, hdu=1)
    assert same(got, sci) is None
    got = tessera.read_batch(paths, hdu=2, key=np.s_[5:30, ::-3])
    assert same(got, err[:, 5:30, ::-3]) is None
    a, b = tessera.read_batch(paths, hdus=[1, 2])
    assert same(a, sci) is None and same(b, err) is None
    out = (np.empty_like(sci), np.empty_like(err))
    (r1, r2), (rc1, rc2) = tessera.read_batch(paths, hdus=[1, 2], out=out, receipt=True)
    assert r1 is out[0] and r2 is out[1] and same(out[1], err) is None
    assert rc1["bytes_out"] == sci.nbytes


def test_read_batch_mismatch(files, tmp_path):
    fits = pytest.importorskip("astropy.io.fits")
    paths, _, _ = files
    odd = str(tmp_path / "odd.fits")
    fits.HDUList([fits.PrimaryHDU(), fits.ImageHDU(np.zeros((3, 3), np.int16))]).writeto(odd)
    with pytest.raises(tessera.FormatError, match="odd.fits"):
        tessera.read_batch(paths + [odd], hdu=1)


def test_read_batch_index_mismatch(files, tmp_path):
    """An integer-array key stacks when every file gives the same result, and a file that
    gives another shape fails naming it."""
    fits = pytest.importorskip("astropy.io.fits")
    paths, sci, _ = files
    key = ([3, 0, 39], np.s_[::7])
    assert same(tessera.read_batch(paths, hdu=1, key=key), sci[(slice(None),) + key]) is None
    odd = str(tmp_path / "odd.fits")
    fits.HDUList([fits.PrimaryHDU(), fits.ImageHDU(np.zeros((40, 20), np.int16))]).writeto(odd)
    with pytest.raises(tessera.FormatError, match="odd.fits"):
        tessera.read_batch(paths + [odd], hdu=1, key=key)


@pytest.mark.parametrize("batch", [1, 3, 7, 10])
def test_stream(files, batch):
    paths, sci, _ = files
    parts = list(tessera.stream(paths, batch=batch, prefetch=2, hdu=1))
    assert [len(p) for p in parts] == [min(batch, 7 - i) for i in range(0, 7, batch)]
    assert same(np.concatenate(parts), sci) is None


def test_stream_section_and_close(files):
    paths, sci, _ = files
    with tessera.stream(paths, batch=2, hdu=1, key=np.s_[::2, 3]) as s:
        first = next(s)
        assert same(first, sci[:2, ::2, 3]) is None
        assert s.receipt["bytes_out"] == first.nbytes
    with pytest.raises(StopIteration):
        next(s)


def test_list_arrays(files):
    paths, sci, err = files
    hdus = tessera.list_arrays(paths[0])
    assert [h["hdu"] for h in hdus] == [0, 1, 2]
    assert hdus[0]["kind"] == "empty" and hdus[1]["shape"] == (40, 50) and hdus[1]["codec"] == "RICE_1"
    assert hdus[2]["dtype"] == np.float32
    z = tessera.list_arrays(os.path.join(CORPUS, "zarr3/raw_f4.zarr"))
    assert len(z) == 1 and z[0]["array"] == "" and z[0]["shape"] == (12, 70, 45)
    ome = tessera.list_arrays(os.path.join(CORPUS, "zarr2/ome_multiscale.zarr"))
    assert [e["array"] for e in ome if not e.get("multiscale")] == ["0", "1", "2"]
    (group,) = [e for e in ome if e.get("multiscale")]
    assert group["array"] == "" and group["levels"] == [e["shape"] for e in ome[1:]]
    g = tessera.list_arrays(os.path.join(CORPUS, "zarr2/group_consolidated.zarr"))
    assert [e["array"] for e in g] == ["labels/ids", "labels/mask", "meta/vector", "raw"]
    b = tessera.list_arrays(os.path.join(CORPUS, "blosc2/lz4_shuffle_f4_3d.b2nd"))
    assert len(b) == 1 and b[0]["format"] == "blosc2"


def test_capabilities_and_version():
    c = tessera.capabilities()
    assert c["version"] == tessera.__version__
    assert set(c["formats"]) == {"fits", "zarr", "blosc2"} and c["nthreads"] >= 1
    assert isinstance(c["cuda"]["devices"], int)


def test_array_attributes():
    a = tessera.open(os.path.join(CORPUS, "zarr3/raw_f4.zarr"))
    assert a.shape == (12, 70, 45) and a.ndim == 3 and a.size == 12 * 70 * 45
    assert a.dtype == np.float32 and a.nbytes == a.size * 4 and len(a) == 12
    info = a.info()
    assert info["format"] == "zarr" and info["shape"] == a.shape and info["chunks"] == a.chunks
    assert a.format == "zarr" and isinstance(a.codec, str)
    assert np.asarray(a, dtype=np.float64).dtype == np.float64
    assert "zarr" in repr(a)
