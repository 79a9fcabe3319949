"""A Blosc2 frame holds one array, so its errors name the file and the chunk ("f.b2nd: chunk
0: ..."), not an "array 0" the file has no name or number for."""
import numpy as np
import pytest

import tessera

blosc2 = pytest.importorskip("blosc2")


def test_corrupt_chunk_message(tmp_path):
    p = str(tmp_path / "c.b2nd")
    blosc2.asarray(np.arange(100000, dtype="f4").reshape(100, 1000), chunks=(50, 1000),
                   blocks=(10, 1000), urlpath=p, mode="w")
    with open(p, "rb") as f:
        d = bytearray(f.read())
    n = len(d) // 2  # inside the first chunk's blocks: the frame's header stays whole
    for i in range(n, n + 400):
        d[i] ^= 0x5A
    bad = str(tmp_path / "bad.b2nd")
    with open(bad, "wb") as f:
        f.write(d)
    with pytest.raises(tessera.TesseraError) as e:
        tessera.read(bad)
    msg = str(e.value)
    assert msg.startswith(bad + ": chunk "), msg
    assert "array 0" not in msg
