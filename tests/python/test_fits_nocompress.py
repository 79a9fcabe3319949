"""astropy's NOCOMPRESS tile-compressed images (each tile's pixels as they are, big-endian, in
COMPRESSED_DATA; fpack -d puts them in UNCOMPRESSED_DATA instead) read as astropy reads them,
for every BITPIX and tiles that do not divide the image; tessera refused them ("NOCOMPRESS
tile with COMPRESSED_DATA bytes"). A tile whose byte count is not its pixels' is refused."""
import warnings

import numpy as np
import pytest

import tessera

fits = pytest.importorskip("astropy.io.fits")


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "int64", "float32", "float64"])
def test_as_astropy(tmp_path, dtype):
    d = (np.random.default_rng(3).normal(size=(30, 41)) * 100).astype(dtype)
    p = str(tmp_path / "n.fits")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits.HDUList([fits.PrimaryHDU(),
                      fits.CompImageHDU(d, compression_type="NOCOMPRESS", tile_shape=(7, 41))]
                     ).writeto(p)
        want = fits.open(p)[1].data
    a = tessera.open(p, hdu=1)
    assert a.codec == "NOCOMPRESS"
    got = a[...]
    assert got.dtype == want.dtype.newbyteorder("=")
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(a[3:20:4, ::-3], want[3:20:4, ::-3])


def test_short_tile_refused(tmp_path):
    d = np.arange(12, dtype=np.int16).reshape(3, 4)
    p = str(tmp_path / "n.fits")
    fits.HDUList([fits.PrimaryHDU(),
                  fits.CompImageHDU(d, compression_type="NOCOMPRESS", tile_shape=(1, 4))]).writeto(p)
    # row 0's heap descriptor (1PB: 32-bit count, then offset): 8 bytes (4 int16 pixels) at 0;
    # the headers are ASCII, so these bytes are the table's first row
    raw = bytearray(open(p, "rb").read())
    i = raw.index((8).to_bytes(4, "big") + (0).to_bytes(4, "big"), 2880)
    raw[i:i + 4] = (6).to_bytes(4, "big")
    bad = str(tmp_path / "bad.fits")
    open(bad, "wb").write(bytes(raw))
    with pytest.raises(tessera.FormatError, match="NOCOMPRESS tile holds 6 bytes for 4 pixels"):
        tessera.open(bad, hdu=1)[...]
