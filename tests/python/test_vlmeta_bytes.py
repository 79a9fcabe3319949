"""Blosc2 vlmeta bytes come back in attrs as bytes, as python-blosc2's vlmeta gives them (the
metadata document, JSON, writes them as {"bytes_hex": HEX}), nested in maps, lists and tuples
too; metadata() keeps the document's form."""
import numpy as np
import pytest

import tessera

blosc2 = pytest.importorskip("blosc2")


def test_bytes_as_blosc2(tmp_path):
    p = str(tmp_path / "v.b2nd")
    a = blosc2.asarray(np.arange(10), urlpath=p, mode="w")
    a.vlmeta["d"] = b"\x00\xff"
    a.vlmeta["n"] = {"x": b"ab", "l": [b"", (1, b"z")]}
    b = blosc2.open(p)
    want = {k: b.vlmeta[k] for k in ("d", "n")}
    t = tessera.open(p)
    assert t.attrs == want
    assert t.metadata()["vlmeta"]["d"] == {"bytes_hex": "00ff"}
