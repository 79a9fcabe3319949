"""A Zarr array's attributes come back as the JSON that holds them, whatever that JSON is: any
nesting of objects, arrays, strings, booleans, null, integers of any size and reals, written by
Python's json into a v2 .zattrs and a v3 zarr.json, read by attrs and metadata() equal to
json.loads of the same text, and of the same types (1.0 a float, 1 an int). Strings leave out
U+0000 (cJSON's strings end at it) and lone surrogates (not Unicode: cJSON refuses their escapes,
where Python's json takes them)."""
import json
import os
import shutil

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

import tessera

_text = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)),
                max_size=12)
_scalars = (st.none() | st.booleans() | _text |
            st.integers(-(2 ** 70), 2 ** 70) | st.integers(-(2 ** 10), 2 ** 10) |
            st.floats(allow_nan=False, allow_infinity=False))
_json = st.recursive(_scalars, lambda kids: st.lists(kids, max_size=5) |
                     st.dictionaries(_text, kids, max_size=5), max_leaves=30)


def _same(a, b):
    """Equal, and of the same JSON types all the way down."""
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


def _write(d, version, attrs):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "c"))
    if version == 2:
        meta = {"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "<i2",
                "compressor": None, "fill_value": 0, "order": "C", "filters": None}
        open(os.path.join(d, ".zarray"), "w").write(json.dumps(meta))
        open(os.path.join(d, ".zattrs"), "w").write(json.dumps(attrs))
        open(os.path.join(d, "0"), "wb").write(np.arange(2, dtype="<i2").tobytes())
    else:
        meta = {"zarr_format": 3, "node_type": "array", "shape": [2], "data_type": "int16",
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
                "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                "attributes": attrs}
        open(os.path.join(d, "zarr.json"), "w").write(json.dumps(meta))
        open(os.path.join(d, "c", "0"), "wb").write(np.arange(2, dtype="<i2").tobytes())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(attrs=st.dictionaries(_text, _json, max_size=6))
def test_any_json(tmp_path, attrs):
    for version in (2, 3):
        d = str(tmp_path / ("v%d.zarr" % version))
        _write(d, version, attrs)
        want = json.loads(json.dumps(attrs))
        a = tessera.open(d)
        assert _same(dict(a.attrs), want), (version, dict(a.attrs), want)
        m = a.metadata()
        assert _same(m["attributes"], want)
        if version == 3:
            assert _same(m["metadata"]["attributes"], want)
        np.testing.assert_array_equal(a[...], np.arange(2, dtype="<i2"))
