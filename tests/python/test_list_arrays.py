"""list_arrays names every entry as its format's own reader does: a FITS file's HDUs with
EXTNAME, EXTVER, XTENSION and kind (image, empty, table) as astropy reads the headers; a Zarr
store's arrays as zarr-python lists them, with each OME-Zarr level's group and level; and an
array whose metadata does not load is listed with its error, not left out."""
import glob
import os

import numpy as np
import pytest

import tessera

CORPUS = os.environ.get("TSR_CORPUS", os.path.join(os.path.dirname(__file__), "../../../shared/corpus"))
fits = pytest.importorskip("astropy.io.fits")
zarr = pytest.importorskip("zarr")


def astropy_kind(h):
    """What the HDU is: an image with data, an image without, or something else."""
    hdr = h.header
    if hdr.get("ZIMAGE") is True:
        return "array"
    if h.is_image or hdr.get("XTENSION", "").strip() == "IMAGE" or "SIMPLE" in hdr:
        n = hdr.get("NAXIS", 0)
        return "array" if n and all(hdr.get(f"NAXIS{i}", 0) for i in range(1, n + 1)) else "empty"
    return "table"


def check_fits(path):
    got = tessera.list_arrays(path)
    with fits.open(path, disable_image_compression=True) as hdul:
        assert len(got) == len(hdul), path
        for i, (e, h) in enumerate(zip(got, hdul)):
            hdr = h.header
            assert e["format"] == "fits" and e["hdu"] == i
            assert e["kind"] == astropy_kind(h), (path, i)
            assert e["name"] == hdr.get("EXTNAME", "").strip(), (path, i)
            assert e["extver"] == hdr.get("EXTVER"), (path, i)
            x = hdr.get("XTENSION")
            assert e["xtension"] == (x.strip() if x else None), (path, i)
            assert e["compressed"] == (hdr.get("ZIMAGE") is True), (path, i)
            if e["kind"] == "array":
                assert "error" not in e, e
                with tessera.open(path, hdu=i) as a:
                    assert (e["shape"], e["dtype"], e["codec"]) == (a.shape, a.dtype, a.codec)
            else:
                assert "shape" not in e and "error" not in e, e


def test_corpus_fits_hdus_as_astropy():
    files = sorted(glob.glob(os.path.join(CORPUS, "fits", "*.fits*")))
    assert len(files) > 40
    for path in files:
        check_fits(path)


def test_fits_tables_and_names(tmp_path):
    path = str(tmp_path / "mixed.fits")
    table = fits.BinTableHDU.from_columns([fits.Column(name="x", format="J", array=np.arange(5))],
                                          name="CAT")
    img = fits.ImageHDU(np.arange(12, dtype=">i2").reshape(3, 4), name="SCI")
    img.header["EXTVER"] = 2
    empty = fits.ImageHDU(name="NOTHING")
    fits.HDUList([fits.PrimaryHDU(), table, img, empty]).writeto(path)
    check_fits(path)
    got = tessera.list_arrays(path)
    assert [e["kind"] for e in got] == ["empty", "table", "array", "empty"]
    sci = got[2]
    assert (sci["name"], sci["extver"]) == ("SCI", 2)
    # what the listing names opens that HDU
    with tessera.open(path, hdu=(sci["name"], sci["extver"])) as a:
        assert a.shape == sci["shape"] == (3, 4)


def test_zarr_arrays_as_zarr_python():
    for path in sorted(glob.glob(os.path.join(CORPUS, "zarr[23]", "*.zarr"))):
        g = zarr.open(path, mode="r")
        if isinstance(g, zarr.Array):
            want = [""]
        else:
            want = sorted(k for k, v in g.members(max_depth=None) if isinstance(v, zarr.Array))
        got = tessera.list_arrays(path)
        assert [e["array"] for e in got if e["kind"] == "array"] == want, path
        for e in got:
            assert e["format"] == "zarr" and e["hdu"] is None and e["name"] == e["array"]
            if e["kind"] == "array":
                z = g if want == [""] else g[e["array"]]
                assert e["shape"] == z.shape, (path, e)
                with tessera.open(path, array=e["array"]) as a:  # numbers come in native order
                    assert (e["dtype"], e["chunks"]) == (a.dtype, a.chunks), (path, e)


def test_ome_levels_name_their_group():
    path = os.path.join(CORPUS, "zarr2/ome_multiscale.zarr")
    got = tessera.list_arrays(path)
    (group,) = [e for e in got if e["kind"] == "multiscale"]
    datasets = zarr.open_group(path, mode="r").attrs["multiscales"][0]["datasets"]
    assert group["array"] == "" and group["multiscale"] and group["nlevels"] == len(datasets)
    arrays = {e["array"]: e for e in got if e["kind"] == "array"}
    for k, ds in enumerate(datasets):
        e = arrays[ds["path"]]
        assert (e["group"], e["level"]) == ("", k)
        assert group["levels"][k] == e["shape"]
        with tessera.open(path, level=k) as a:
            assert a.shape == e["shape"]
    # a store without multiscales: no group, no level
    for e in tessera.list_arrays(os.path.join(CORPUS, "zarr2/group_consolidated.zarr")):
        assert (e["group"], e["level"]) == (None, None)


@pytest.mark.parametrize("fmt", [2, 3])
def test_broken_array_listed_with_its_error(tmp_path, fmt):
    path = str(tmp_path / "s.zarr")
    g = zarr.open_group(path, mode="w", zarr_format=fmt)
    for name in ("a", "b", "c"):
        g.create_array(name, shape=(6,), dtype="i4")[:] = np.arange(6)
    meta = os.path.join(path, "b", ".zarray" if fmt == 2 else "zarr.json")
    with open(meta, "w") as f:
        f.write('{"zarr_format": %d, "shape": [' % fmt)
    got = tessera.list_arrays(path)
    assert [e["array"] for e in got] == ["a", "b", "c"]
    a, b, c = got
    assert a["shape"] == c["shape"] == (6,) and "error" not in a and "error" not in c
    assert b["status"] == "TSR_E_FORMAT" and "shape" not in b
    assert path in b["error"] and "array b" in b["error"] and "not valid JSON" in b["error"]


def test_blosc2_frame_one_array():
    path = os.path.join(CORPUS, "blosc2/lz4_shuffle_f4_3d.b2nd")
    (e,) = tessera.list_arrays(path)
    assert (e["kind"], e["format"], e["hdu"], e["name"]) == ("array", "blosc2", None, "")
    with tessera.open(path) as a:
        assert e["shape"] == a.shape and e["dtype"] == a.dtype
