"""test_corpus.py - every case of the shared corpus, read through the Python API (open, a[key],
read, tessera.read), equals its expect file."""
import os

import numpy as np
import pytest
import tessera

from conftest import CORPUS, corpus_cases, file_dtype, same, section_key

CASES = corpus_cases()


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case):
    want = np.load(os.path.join(CORPUS, case["expect"]))
    path = os.path.join(CORPUS, case["path"])
    key = section_key(case.get("section"))
    with tessera.open(path, hdu=case.get("hdu"), array=case.get("array") or None,
                      level=case.get("level"), dtype=file_dtype(case)) as a:
        got = a[key] if key is not None else a[...]
        assert same(np.asarray(got), want) is None, same(np.asarray(got), want)
        if key is None:
            assert a.shape == want.shape and a.dtype == want.dtype
            assert same(np.asarray(a), want) is None
        r, receipt = a.read(key, receipt=True)
        assert same(r, want) is None
        assert receipt["bytes_out"] == want.nbytes
    got = tessera.read(path, key, hdu=case.get("hdu"), array=case.get("array") or None,
                       level=case.get("level"), dtype=file_dtype(case))
    assert same(got, want) is None
