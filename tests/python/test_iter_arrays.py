"""iter_arrays(path) opens each array list_arrays names, in its order, as open() opens it by
HDU index or array path (the same shape, dtype, index and values), with raw and dtype passed on;
an array that does not open raises at its turn and the iteration goes on after it; a missing path
is FileNotFoundError."""
import glob
import os

import numpy as np
import pytest

import tessera

CORPUS = os.environ.get("TSR_CORPUS", os.path.join(os.path.dirname(__file__), "../../../shared/corpus"))


def corpus_files():
    files = sorted(glob.glob(os.path.join(CORPUS, "fits", "*.fits*")))
    files += sorted(glob.glob(os.path.join(CORPUS, "zarr[23]", "*.zarr")))
    files += sorted(glob.glob(os.path.join(CORPUS, "blosc2", "*.b2nd")))
    return files


def test_as_listed_and_opened():
    files = corpus_files()
    assert len(files) > 80
    for path in files:
        listed = [e for e in tessera.list_arrays(path) if e["kind"] == "array" and "error" not in e]
        got = list(tessera.iter_arrays(path))
        assert len(got) == len(listed), path
        for e, a in zip(listed, got):
            kw = {"hdu": e["hdu"]} if e["format"] == "fits" else (
                {"array": e["array"]} if e["format"] == "zarr" else {})
            with tessera.open(path, **kw) as b:
                assert (a.shape, a.dtype, a.info()["hdu"]) == (b.shape, b.dtype, b.info()["hdu"]), path
                if a.nbytes < (1 << 20):
                    assert np.array_equal(a[...], b[...], equal_nan=a.dtype.kind in "fc"), path
            a.close()


def test_raw_and_dtype_passed_on():
    path = os.path.join(CORPUS, "fits", "u_scaled_i16.fits")
    (scaled,) = tessera.iter_arrays(path)
    (raw,) = tessera.iter_arrays(path, raw=True)
    assert scaled.dtype.kind == "f" and raw.dtype == np.int16
    assert np.array_equal(raw[...], tessera.read(path, raw=True))
    (view,) = tessera.iter_arrays(path, raw=True, dtype="u2")
    assert view.dtype == np.uint16


def test_broken_array_raises_in_turn(tmp_path):
    zarr = pytest.importorskip("zarr")
    path = str(tmp_path / "s.zarr")
    g = zarr.open_group(path, mode="w", zarr_format=3)
    for name in ("a", "b", "c"):
        g.create_array(name, shape=(3,), dtype="i2")[:] = [1, 2, 3]
    with open(os.path.join(path, "b", "zarr.json"), "w") as f:
        f.write("{")
    it = tessera.iter_arrays(path)
    assert next(it).shape == (3,)
    with pytest.raises(tessera.FormatError, match="array b"):
        next(it)
    assert np.array_equal(next(it)[...], [1, 2, 3])  # c, after the failure
    with pytest.raises(StopIteration):
        next(it)


def test_missing_path():
    with pytest.raises(FileNotFoundError):
        tessera.iter_arrays("/no/such/file.fits")


def test_multiscale_levels_say_their_level():
    """A listed OME-Zarr level opens as open(array=group, level=k) opens it: it says its
    level, and a pickled one opens again as that level."""
    import pickle

    stores = [p for p in corpus_files() if "ome" in os.path.basename(p)]
    assert stores
    seen = 0
    for path in stores:
        listed = [e for e in tessera.list_arrays(path) if e["kind"] == "array" and "error" not in e]
        for e, a in zip(listed, tessera.iter_arrays(path)):
            if e.get("level") is None:
                a.close()
                continue
            with tessera.open(path, array=e["group"] or None, level=e["level"]) as b:
                assert a.info()["level"] == b.info()["level"] == e["level"], path
                assert a.info()["name"] == b.info()["name"], path
            again = pickle.loads(pickle.dumps(a))
            assert again.info()["level"] == e["level"] and again.shape == a.shape, path
            again.close()
            a.close()
            seen += 1
    assert seen >= 3
