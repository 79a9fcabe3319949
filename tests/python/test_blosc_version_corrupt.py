"""A blosc chunk whose header's format version is far past any blosc's (random bytes over the
chunk) is corrupt (CorruptError naming the chunk), not "newer than this reader"
(NotImplementedError); a version just past the reader's is still taken for a newer blosc."""
import os

import numpy as np
import pytest

import tessera

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")


@pytest.mark.parametrize("version,error", [(168, tessera.CorruptError), (255, tessera.CorruptError),
                                           (7, NotImplementedError)])
def test_version(tmp_path, version, error):
    p = str(tmp_path / "b.zarr")
    z = zarr.create_array(p, shape=(8,), chunks=(4,), dtype="i4", zarr_format=2,
                          compressors=numcodecs.Blosc("lz4"))
    z[...] = np.arange(8, dtype="i4")
    chunk = os.path.join(p, "1")
    d = bytearray(open(chunk, "rb").read())
    d[0] = version
    open(chunk, "wb").write(bytes(d))
    a = tessera.open(p)
    np.testing.assert_array_equal(a[:4], np.arange(4))
    with pytest.raises(error) as e:
        a[...]
    assert "chunk 1" in str(e.value) and "format version %d" % version in str(e.value)
