"""A python-blosc2 lazy expression saved to a file (LazyExpr.save: a frame with a 'b2o'
metalayer whose chunks are a placeholder) is refused, naming what it is, where tessera read the
placeholder's zeros as the array's values."""
import numpy as np
import pytest

import tessera

blosc2 = pytest.importorskip("blosc2")


def test_lazy_expression_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    a = blosc2.asarray(np.arange(100.0).reshape(10, 10), urlpath="op.b2nd", mode="w")
    (a * 2 + 1).save(urlpath="lazy.b2nd")
    assert blosc2.open("lazy.b2nd")[0, 1] == 3.0
    with pytest.raises(NotImplementedError, match="python-blosc2 lazy object"):
        tessera.open("lazy.b2nd")
    np.testing.assert_array_equal(tessera.open("op.b2nd")[...], a[...])  # (its operand reads)
