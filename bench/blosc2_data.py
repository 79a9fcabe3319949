"""blosc2_data.py - the float32 field the Blosc2 benchmarks write (blosc2_bench.py,
scripts/gpu-profile-rows): a smooth field with noise in the low bits, compressible but not
trivially."""
import numpy as np


def data(shape):
    y = np.arange(shape[0], dtype=np.float32)[:, None]
    x = np.arange(shape[1], dtype=np.float32)[None, :]
    v = np.sin(y / 300.0) * np.cos(x / 200.0) * 1000.0
    v += np.random.default_rng(0).standard_normal(shape, dtype=np.float32) * 0.01
    return v.astype(np.float32)
