"""info()["name"] is the array's name in its file as list_arrays names it (a Zarr array's path
in its store, an OME level's own path, a FITS HDU's EXTNAME, "" where there is none), however it
was opened; a Zarr array opened by its path shows it in its repr."""
import glob
import os

import tessera

CORPUS = os.environ.get("TSR_CORPUS", os.path.join(os.path.dirname(__file__), "../../../shared/corpus"))


def test_names_as_listed():
    files = sorted(glob.glob(os.path.join(CORPUS, "fits", "*.fits*")))
    files += sorted(glob.glob(os.path.join(CORPUS, "zarr[23]", "*.zarr")))
    files += sorted(glob.glob(os.path.join(CORPUS, "blosc2", "*.b2nd")))
    seen = set()
    for path in files:
        listed = [e for e in tessera.list_arrays(path) if e["kind"] == "array" and "error" not in e]
        for e, a in zip(listed, tessera.iter_arrays(path)):
            assert a.info()["name"] == e["name"], (path, e)
            seen.add(e["name"] != "")
            kw = {"hdu": e["hdu"]} if e["format"] == "fits" else (
                {"array": e["array"]} if e["format"] == "zarr" else {})
            with tessera.open(path, **kw) as b:
                assert b.info()["name"] == e["name"], (path, e)
            a.close()
    assert seen == {True, False}


def test_ome_level_and_repr():
    path = os.path.join(CORPUS, "zarr2/ome_multiscale.zarr")
    with tessera.open(path, level=2) as a:
        assert a.info()["name"] == "2" and "array=" not in repr(a) and " level=2 " in repr(a)
    path = os.path.join(CORPUS, "zarr2/group_consolidated.zarr")
    with tessera.open(path, array="labels/ids") as a:
        assert a.info()["name"] == "labels/ids" and " array='labels/ids' shape=" in repr(a)
    with tessera.open(os.path.join(CORPUS, "fits/fp_multi.fits.fz"), hdu="EXT2") as a:
        assert a.info()["name"] == "EXT2" and a.info()["hdu"] == 3
