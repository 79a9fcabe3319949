"""test_roundtrip.py - fresh files written by astropy (plain and tile-compressed FITS),
zarr-python (v2 and v3) and python-blosc2 read back through tessera equal what the writer's
own reader gives."""
import numpy as np
import pytest
import tessera

from conftest import same

rng = np.random.default_rng(1234)


def image(shape, dtype):
    if np.dtype(dtype).kind == "f":
        return rng.normal(0, 100, shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -30000), min(info.max, 30000), shape).astype(dtype)


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "float32", "float64"])
@pytest.mark.parametrize("comp", [None, "RICE_1", "GZIP_2"])
def test_astropy(tmp_path, dtype, comp):
    fits = pytest.importorskip("astropy.io.fits")
    data = image((67, 45), dtype)
    if comp == "RICE_1" and data.dtype.kind == "f":
        comp = "GZIP_1"
    path = str(tmp_path / "a.fits")
    if comp:
        hdu = fits.CompImageHDU(data, compression_type=comp, tile_shape=(16, 45),
                                quantize_level=0.0 if data.dtype.kind == "f" else None) \
            if data.dtype.kind == "f" else fits.CompImageHDU(data, compression_type=comp,
                                                             tile_shape=(16, 45))
        fits.HDUList([fits.PrimaryHDU(), hdu]).writeto(path)
    else:
        fits.HDUList([fits.PrimaryHDU(), fits.ImageHDU(data)]).writeto(path)
    with fits.open(path) as f:
        want = np.asarray(f[1].data)
    want = want.astype(want.dtype.newbyteorder("="))
    with tessera.open(path, hdu=1) as a:
        assert same(a[...], want) is None
        assert same(a[5:60:3, ::-2], want[5:60:3, ::-2]) is None
    listed = tessera.list_arrays(path)
    assert [e["hdu"] for e in listed] == [0, 1] and listed[1]["shape"] == want.shape


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("dtype", ["int16", "float32", "uint64"])
def test_zarr(tmp_path, zarr_format, dtype):
    zarr = pytest.importorskip("zarr")
    data = image((30, 41, 7), dtype)
    path = str(tmp_path / "s.zarr")
    root = zarr.open_group(path, mode="w", zarr_format=zarr_format)
    z = root.create_array("grp/x", shape=data.shape, chunks=(8, 16, 7), dtype=dtype)
    z[...] = data
    want = zarr.open_array(path, path="grp/x", mode="r")[...]
    with tessera.open(path, array="grp/x") as a:
        assert a.format == "zarr" and a.chunks == (8, 16, 7)
        assert same(a[...], want) is None
        assert same(a[-1, 3:40:5, None], want[-1, 3:40:5, None]) is None
    assert [e["array"] for e in tessera.list_arrays(path)] == ["grp/x"]


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float64"])
def test_blosc2(tmp_path, dtype):
    blosc2 = pytest.importorskip("blosc2")
    data = image((50, 33, 9), dtype)
    path = str(tmp_path / "a.b2nd")
    blosc2.asarray(data, urlpath=path, mode="w", chunks=(20, 16, 9), blocks=(5, 8, 9))
    want = blosc2.open(path)[...]
    with tessera.open(path) as a:
        assert a.format == "blosc2"
        assert same(a[...], want) is None
        assert same(a[3, 5, 7], want[3, 5, 7]) is None
        assert same(a[::-7, 2], want[::-7, 2]) is None


def test_astropy_extname(tmp_path):
    fits = pytest.importorskip("astropy.io.fits")
    p = str(tmp_path / "named.fits")
    sci1, sci2, err = image((5, 6), "int16"), image((5, 6), "int16"), image((5, 6), "float32")
    fits.HDUList([fits.PrimaryHDU(), fits.ImageHDU(sci1, name="SCI", ver=1),
                  fits.ImageHDU(err, name="ERR"), fits.ImageHDU(sci2, name="SCI", ver=2)]).writeto(p)
    assert same(tessera.read(p, hdu="SCI"), sci1) is None
    assert same(tessera.read(p, hdu="err"), err) is None  # case ignored, as astropy
    assert same(tessera.read(p, hdu=("SCI", 2)), sci2) is None
    assert same(tessera.read_batch([p, p], hdus=["ERR", ("SCI", 2)])[1], np.stack([sci2] * 2)) is None


def test_whole_file_gzip(tmp_path):
    """A .fits.gz as archives ship them: read in place, sections too."""
    import gzip
    fits = pytest.importorskip("astropy.io.fits")
    data = image((40, 30), "float32")
    p = str(tmp_path / "a.fits")
    fits.HDUList([fits.PrimaryHDU(), fits.ImageHDU(data, name="SCI")]).writeto(p)
    with open(p, "rb") as f, gzip.open(p + ".gz", "wb") as g:
        g.write(f.read())
    with tessera.open(p + ".gz", hdu="SCI") as a:
        assert same(a[...], data) is None and same(a[::-3, 5], data[::-3, 5]) is None
