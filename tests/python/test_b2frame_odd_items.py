"""A plain super-chunk of 10-byte items (no number has them) is refused saying so, where the
message asked for "a dtype of that size" that no caller could give (dtype= takes numbers)."""
import numpy as np
import pytest

import tessera

blosc2 = pytest.importorskip("blosc2")


def test_refused_saying_why(tmp_path):
    p = str(tmp_path / "s.b2frame")
    s = blosc2.SChunk(chunksize=400, urlpath=p, mode="w", cparams=dict(typesize=10))
    s.append_data(np.array([b"hello%d" % i for i in range(40)], "S10"))
    with pytest.raises(NotImplementedError, match="no numeric dtype has that size"):
        tessera.open(p)


@pytest.mark.parametrize("dt", ["S10", "V10", [("a", "<i4"), ("b", "S6")]])
def test_a_bytes_dtype_refused_saying_so(tmp_path, dt):
    """dtype= names numbers only, and its refusal says so (it said the dtype was "not one
    tessera knows", though b2nd arrays of such dtypes read)."""
    p = str(tmp_path / "s.b2frame")
    s = blosc2.SChunk(chunksize=400, urlpath=p, mode="w", cparams=dict(typesize=10))
    s.append_data(np.array([b"hello%d" % i for i in range(40)], "S10"))
    with pytest.raises(ValueError, match="a caller's dtype is a number's or bool .* read only "
                                         "as a file names them"):
        tessera.open(p, dtype=dt)
