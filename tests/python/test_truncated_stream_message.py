"""test_truncated_stream_message.py - a zlib, gzip or bz2 chunk cut short by a few bytes (its
trailer gone) fails saying it may be cut short: with the output full when the stream was cut,
the message said only "decodes to more bytes than expected", the opposite of what happened."""
import bz2
import gzip
import json
import os
import zlib

import numpy as np
import pytest
import tessera

COMPRESS = {"zlib": zlib.compress, "gzip": gzip.compress, "bz2": bz2.compress}


@pytest.mark.parametrize("codec", sorted(COMPRESS))
@pytest.mark.parametrize("cut", [1, 3, 9])
def test_cut_short(tmp_path, codec, cut):
    values = np.arange(16, dtype="<i4")
    store = tmp_path / "a.zarr"
    store.mkdir()
    (store / ".zarray").write_text(json.dumps({
        "zarr_format": 2, "shape": [16], "chunks": [16], "dtype": "<i4", "order": "C",
        "fill_value": 0, "filters": None, "compressor": {"id": codec, "level": 3}}))
    stream = COMPRESS[codec](values.tobytes())
    (store / "0").write_bytes(stream)
    assert np.array_equal(tessera.open(str(store))[...], values)
    (store / "0").write_bytes(stream[:-cut])
    with pytest.raises(tessera.CorruptError) as e:
        tessera.open(str(store))[...]
    msg = str(e.value)
    assert "chunk 0" in msg and os.path.basename(str(store)) in msg
    assert "cut short" in msg or "truncated" in msg, msg
