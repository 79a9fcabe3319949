"""Zarr data types NumPy has no dtype for (bfloat16, float8_*), as tensorstore writes them in v2
and v3, read as their bits under the dtype the caller names (uint16 / uint8; ml_dtypes and
torch view them); without one, or with one of another size, the refusal says what to give. Fill
values are the type's own bits (numbers it holds exactly, bfloat16's NaN and infinities, or
"0x..."). They were refused with no way through."""
import json
import os
import shutil

import numpy as np
import pytest

import tessera

ts = pytest.importorskip("tensorstore")

CASES = [("zarr3", "bfloat16", None), ("zarr3", "bfloat16", 1.5), ("zarr3", "bfloat16", "NaN"),
         ("zarr", "bfloat16", None), ("zarr3", "float8_e4m3fn", None),
         ("zarr3", "float8_e4m3fn", -448.0), ("zarr3", "float8_e5m2", 2.0),
         ("zarr3", "float8_e4m3fnuz", 0.25), ("zarr3", "float8_e5m2fnuz", -3.0),
         ("zarr3", "float8_e4m3b11fnuz", 0.0)]


def make(tmp_path, drv, dt, fv, big=False):
    p = str(tmp_path / ("%s_%s_%s.zarr" % (drv, dt, fv)))
    shutil.rmtree(p, ignore_errors=True)
    if drv == "zarr":
        md = {"shape": [6, 5], "chunks": [4, 3], "dtype": dt}
    else:
        md = {"shape": [6, 5], "data_type": dt,
              "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 3]}}}
        if big:
            md["codecs"] = [{"name": "bytes", "configuration": {"endian": "big"}}]
    if fv is not None:
        md["fill_value"] = fv
    t = ts.open({"driver": drv, "kvstore": {"driver": "file", "path": p}, "metadata": md},
                create=True).result()
    vals = np.array([[1.0, -2.5, 0.5], [3.0, -0.25, 8.0]])
    t[1:3, 1:4].write(vals.astype(t.dtype.numpy_dtype)).result()  # other chunks: fill
    return p, t


@pytest.mark.parametrize("drv,dt,fv", CASES)
def test_bits(tmp_path, drv, dt, fv):
    p, t = make(tmp_path, drv, dt, fv)
    bits = "uint16" if dt == "bfloat16" else "uint8"
    want = t.read().result().view(bits)
    a = tessera.open(p, dtype=bits)
    assert a.dtype == np.dtype(bits) and a.info()["dtype_source"] == "caller"
    np.testing.assert_array_equal(a[...], want)
    np.testing.assert_array_equal(a[1:3, 2], want[1:3, 2])


def test_big_endian_v3(tmp_path):
    p, t = make(tmp_path, "zarr3", "bfloat16", 1.5, big=True)
    np.testing.assert_array_equal(tessera.read(p, dtype="uint16"), t.read().result().view("uint16"))


def test_refusals(tmp_path):
    p, _ = make(tmp_path, "zarr3", "bfloat16", None)
    with pytest.raises(NotImplementedError, match=r"data_type 'bfloat16' has no NumPy dtype: "
                                                  r"give a dtype of 2-byte items"):
        tessera.open(p)
    with pytest.raises(ValueError, match="dtype uint8 has 1-byte items, the bfloat16 array"):
        tessera.open(p, dtype="uint8")
    meta = os.path.join(p, "zarr.json")
    m = json.load(open(meta))
    m["fill_value"] = 0.1  # not a bfloat16 exactly
    json.dump(m, open(meta, "w"))
    with pytest.raises(NotImplementedError, match="fill_value of a bfloat16 array"):
        tessera.open(p, dtype="uint16")
    m["fill_value"] = "0x3dcd"
    json.dump(m, open(meta, "w"))
    assert tessera.open(p, dtype="uint16")[5, 4] == 0x3DCD
