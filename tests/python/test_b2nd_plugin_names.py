"""A Blosc2 array of a plugin codec or filter tessera does not decode (ZFP, NDLZ, NDCELL) is
refused naming it as python-blosc2 does (blosc2.Codec, blosc2.Filter), where the message gave
only its number ("user/plugin codec 34")."""
import numpy as np
import pytest

import tessera

blosc2 = pytest.importorskip("blosc2")


def _write(p, **cparams):
    try:
        blosc2.asarray(np.arange(400, dtype="f4").reshape(20, 20), urlpath=p, mode="w",
                       cparams=cparams)
    except Exception as e:  # (a python-blosc2 built without the plugin)
        pytest.skip("python-blosc2 cannot write it: %s" % e)


@pytest.mark.parametrize("codec,meta", [("ZFP_PREC", 10), ("ZFP_ACC", 0), ("ZFP_RATE", 50)])
def test_codecs(tmp_path, codec, meta):
    p = str(tmp_path / "c.b2nd")
    _write(p, codec=getattr(blosc2.Codec, codec), codec_meta=meta,
           filters=[blosc2.Filter.NOFILTER])
    with pytest.raises(NotImplementedError, match=r"codec \d+ \(%s\), a user or plugin codec" % codec):
        tessera.open(p)[...]


def test_filter(tmp_path):
    p = str(tmp_path / "f.b2nd")
    _write(p, filters=[blosc2.Filter.NDCELL], filters_meta=[4])
    with pytest.raises(NotImplementedError, match=r"filter 32 \(NDCELL\)"):
        tessera.open(p)[...]
