"""python-blosc2's nans() of any dtype of 4- or 8-byte items (a NaN special chunk): filled with
float32 or float64 NaN's bytes by the item size, as c-blosc2 decodes them (complex64 0+nanj,
int64 9221120237041090560, datetime64, void, structured), where tessera refused every dtype but
float32/64 ("a NaN chunk in a complex64 array") or read raw dtypes as zeros."""
import numpy as np
import pytest

import tessera

blosc2 = pytest.importorskip("blosc2")


@pytest.mark.parametrize("dtype", ["f4", "f8", "c8", "i8", "i4", "u4", "M8[s]", "m8[ns]", "V8",
                                   "S4", "U1", [("a", "f4"), ("b", "f4")]])
def test_bytes_as_blosc2(tmp_path, dtype):
    p = str(tmp_path / "n.b2nd")
    blosc2.nans((6, 5), dtype=dtype, urlpath=p, mode="w")
    want = blosc2.open(p)[...]
    got = tessera.open(p)[...]
    assert got.dtype == want.dtype.newbyteorder("=") or got.dtype == want.dtype
    assert got.tobytes() == want.tobytes()
