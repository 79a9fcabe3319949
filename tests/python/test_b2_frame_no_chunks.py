"""A Blosc2 b2nd frame whose header says it holds no chunks (nbytes and chunksize 0) while its
array's grid has some is refused at open, saying both counts; it opened, and every read then
failed with TSR_E_INTERNAL ("chunk 0 of 0")."""
import struct

import numpy as np
import pytest

import tessera

blosc2 = pytest.importorskip("blosc2")


def test_refused_at_open(tmp_path):
    p = str(tmp_path / "z.b2nd")
    blosc2.asarray(np.arange(50 * 40, dtype="i2").reshape(50, 40), urlpath=p, mode="w",
                   chunks=(20, 20), blocks=(10, 10))
    raw = bytearray(open(p, "rb").read())
    # the frame header's nbytes (msgpack int64 at 30) and chunksize (int32 at 58)
    assert raw[29] == 0xd3 and raw[57] == 0xd2
    raw[30:38] = struct.pack(">q", 0)
    raw[58:62] = struct.pack(">i", 0)
    open(p, "wb").write(bytes(raw))
    with pytest.raises(tessera.FormatError, match=r"0 chunks in the frame, 6 in the array's grid"):
        tessera.open(p)
