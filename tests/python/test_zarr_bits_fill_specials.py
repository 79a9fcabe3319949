"""test_zarr_bits_fill_specials.py - Zarr types read as their bits (bfloat16, float8_*) take
the fill values "NaN", "Infinity" and "-Infinity" as ml_dtypes converts them (tensorstore
writes them so: a float8 NaN fill, even one given as bits, is written "NaN"); only bfloat16's
were taken. float8_e8m0fnu (OCP MX's scale type) reads as its bits too: a number fill is the
power of two it holds exactly; 0, negatives and others are refused."""
import json

import numpy as np
import pytest
import tessera

ml_dtypes = pytest.importorskip("ml_dtypes")

TYPES = ["bfloat16", "float8_e3m4", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz",
         "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"]


def store(tmp_path, name, fill, v2=False):
    p = tmp_path / ("v2.zarr" if v2 else "v3.zarr")
    p.mkdir(exist_ok=True)
    if v2:
        doc = {"zarr_format": 2, "shape": [3], "chunks": [3], "dtype": name, "order": "C",
               "fill_value": fill, "filters": None, "compressor": None}
        (p / ".zarray").write_text(json.dumps(doc))
    else:
        doc = {"zarr_format": 3, "node_type": "array", "shape": [3], "data_type": name,
               "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [3]}},
               "chunk_key_encoding": {"name": "default"}, "fill_value": fill,
               "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}
        (p / "zarr.json").write_text(json.dumps(doc))
    return str(p)


def bits(name, value):
    uint = np.uint16 if name == "bfloat16" else np.uint8
    return int(np.array([value]).astype(getattr(ml_dtypes, name)).view(uint)[0]), uint


@pytest.mark.parametrize("name", TYPES)
@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("v2", [False, True])
def test_special_fill(tmp_path, name, text, v2):
    want, uint = bits(name, float(text))
    got = tessera.open(store(tmp_path, name, text, v2), dtype=np.dtype(uint).name)[...]
    assert got.tolist() == [want] * 3, (name, text, hex(int(got[0])), hex(want))


@pytest.mark.parametrize("value", [1.0, 0.5, 2.0 ** -127, 2.0 ** 127, 1024.0])
def test_e8m0_number_fill(tmp_path, value):
    want, _ = bits("float8_e8m0fnu", value)
    got = tessera.open(store(tmp_path, "float8_e8m0fnu", value), dtype="uint8")[...]
    assert got.tolist() == [want] * 3


@pytest.mark.parametrize("value", [0.0, -1.0, 3.0, "Inf", "nan"])
def test_e8m0_refused_fill(tmp_path, value):
    with pytest.raises(NotImplementedError, match="fill_value of a float8_e8m0fnu array"):
        tessera.open(store(tmp_path, "float8_e8m0fnu", value), dtype="uint8")


def test_e8m0_values(tmp_path):
    p = store(tmp_path, "float8_e8m0fnu", 1.0)
    values = np.array([1.0, 2.0, 0.25], dtype=ml_dtypes.float8_e8m0fnu)
    (tmp_path / "v3.zarr" / "c").mkdir()
    (tmp_path / "v3.zarr" / "c" / "0").write_bytes(values.view(np.uint8).tobytes())
    got = tessera.open(p, dtype="uint8")[...]
    assert got.view(ml_dtypes.float8_e8m0fnu).astype(np.float64).tolist() == [1.0, 2.0, 0.25]
