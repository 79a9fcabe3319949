"""blosc2_data.py - the float32 field the Blosc2 benchmarks write (blosc2_bench.py,
scripts/gpu-profile-rows): a smooth field with noise in the low bits,
compressible but not trivially. As a script, `blosc2_data.py PATH MIB NAME` writes it as a
python-blosc2 b2nd array of about MIB MiB with the defaults but the codec and filter NAME says
(zstd, zstd_bit, lz4, lz4_bit: zstd or LZ4, byte shuffle or bitshuffle)."""
import sys

import numpy as np


def data(shape):
    y = np.arange(shape[0], dtype=np.float32)[:, None]
    x = np.arange(shape[1], dtype=np.float32)[None, :]
    v = np.sin(y / 300.0) * np.cos(x / 200.0) * 1000.0
    v += np.random.default_rng(0).standard_normal(shape, dtype=np.float32) * 0.01
    return v.astype(np.float32)


def write(path, mib, name):
    import blosc2

    side = int(np.sqrt(mib * 2**20 / 4))
    cp = {"codec": blosc2.Codec.LZ4 if name.startswith("lz4") else blosc2.Codec.ZSTD}
    if name.endswith("_bit"):
        cp.update(filters=[blosc2.Filter.BITSHUFFLE], filters_meta=[0])
    blosc2.asarray(data((side, side)), urlpath=path, mode="w", cparams=cp)


if __name__ == "__main__":
    write(sys.argv[1], int(sys.argv[2]), sys.argv[3])
