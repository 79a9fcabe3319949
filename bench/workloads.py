"""workloads.py - writes the standard benchmark workloads with the peers' own writers, sized by
--scale (1 = the full sizes below; 2-core machines use 1/64 or less):

  zarr2_<codec>.zarr     Zarr v2, float32, 2 GiB, 1024x1024 chunks: blosc-lz4-shuffle,
                         blosc-zlib-shuffle, zstd, gzip, none (zarr-python 3 + numcodecs)
  zarr3_u16_zstd.zarr    the zarr_benchmarks v3 workload: 1024^3 uint16, 256^3 chunks, zstd
  zarr3_u16_sharded.zarr the same in 256^3 shards of 64^3 inner chunks (zarr-python 3)
  fits_gzip2_f32/        64 GZIP_2 float32 images of 64 MiB (lossless), CFITSIO (bench/fits_write)
  fits_rice_i16/         64 RICE_1 int16 images of 64 MiB, CFITSIO
  fits_rice_qf32/        64 RICE_1 quantized float32 images of 64 MiB (q=4, dither 1), CFITSIO
  b2_<codec>.b2nd        Blosc2, float32, 256 MiB: zstd+shuffle (python-blosc2's default),
                         lz4+shuffle, blosclz+shuffle (python-blosc2, default chunks and blocks)
  b2_<codec>_bit.b2nd    the same three with bitshuffle (issue 16's rows: shuffle and bitshuffle)

Run with the PyPI venv (.venv/bin/python). Existing workloads of the same size are kept, so a
second run only adds what is missing; one of another size (another --scale) is written again.

    .venv/bin/python bench/workloads.py --dir /tmp/tsr-workloads --scale 0.015625
"""
import argparse
import os
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zarr_bench import f32_block, u16_block, write as zarr_write  # noqa: E402

try:
    import blosc2  # noqa: E402
except ImportError:  # only the Blosc2 workloads need python-blosc2 (left out without it)
    blosc2 = None
import numcodecs  # noqa: E402
from zarr.codecs import BytesCodec, ShardingCodec, ZstdCodec  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def plan(scale):
    """The workloads at this scale: (name, kind, parameters)."""
    out = []
    n = int(2 ** 31 * scale) // 4                       # float32 elements of 2 GiB
    side = max(256, int(np.sqrt(n)) // 256 * 256)
    chunk = min(1024, side)
    v2 = {"blosc-lz4": numcodecs.Blosc(cname="lz4", clevel=5, shuffle=1),
          "blosc-zlib": numcodecs.Blosc(cname="zlib", clevel=5, shuffle=1),
          "zstd": numcodecs.Zstd(level=1), "gzip": numcodecs.GZip(level=1), "none": None}
    for cname, comp in v2.items():
        out.append(("zarr2_%s.zarr" % cname, "zarr", dict(
            fmt=2, shape=(side, side), chunks=(chunk, chunk), dtype="float32", gen=f32_block,
            kw=dict(compressors=comp))))
    edge = max(64, int(round(1024 * scale ** (1 / 3))) // 64 * 64)
    c3 = min(256, edge)
    out.append(("zarr3_u16_zstd.zarr", "zarr", dict(
        fmt=3, shape=(edge,) * 3, chunks=(c3,) * 3, dtype="uint16", gen=u16_block,
        kw=dict(serializer=BytesCodec(), compressors=[ZstdCodec(level=0)]))))
    out.append(("zarr3_u16_sharded.zarr", "zarr", dict(
        fmt=3, shape=(edge,) * 3, chunks=(c3,) * 3, dtype="uint16", gen=u16_block,
        kw=dict(serializer=ShardingCodec(chunk_shape=(min(64, c3),) * 3,
                                         codecs=[BytesCodec(), ZstdCodec(level=0)]),
                compressors=None))))
    rows = max(16, int(4096 * scale) // 16 * 16)        # 64 MiB: 4096 x 4096 float32
    out.append(("fits_gzip2_f32", "fits", dict(kind="gzip2_f32", n=64, rows=rows, cols=4096)))
    out.append(("fits_rice_i16", "fits", dict(kind="rice_i16", n=64, rows=2 * rows, cols=4096)))
    out.append(("fits_rice_qf32", "fits", dict(kind="rice_qf32", n=64, rows=rows, cols=4096)))
    b2 = int(2 ** 28 * scale) // 4
    b2side = max(64, int(np.sqrt(b2)))
    if blosc2 is None:
        print("b2_*.b2nd: left out (python-blosc2 is not installed)", file=sys.stderr)
        return out
    bit = {"filters": [blosc2.Filter.BITSHUFFLE], "filters_meta": [0]}
    for name, cparams in (("zstd", {}), ("lz4", {"codec": blosc2.Codec.LZ4}),
                          ("blosclz", {"codec": blosc2.Codec.BLOSCLZ})):
        out.append(("b2_%s.b2nd" % name, "blosc2", dict(shape=(b2side, b2side), cparams=cparams)))
    for name, cparams in (("zstd", {}), ("lz4", {"codec": blosc2.Codec.LZ4}),
                          ("blosclz", {"codec": blosc2.Codec.BLOSCLZ})):
        out.append(("b2_%s_bit.b2nd" % name, "blosc2",
                    dict(shape=(b2side, b2side), cparams=dict(cparams, **bit))))
    return out


def write(d, name, kind, p, build):
    path = os.path.join(d, name)
    if kind == "zarr":
        zarr_write(p, path)
    elif kind == "fits":
        # fits_write keeps the files it finds: images of another --scale go first
        stamp = os.path.join(path, ".params")
        want = "%d x %d x %d %s" % (p["n"], p["rows"], p["cols"], p["kind"])
        if os.path.isdir(path) and (not os.path.exists(stamp) or open(stamp).read() != want):
            shutil.rmtree(path)
        subprocess.run([os.path.join(build, "fits_write"), path, str(p["n"]), str(p["rows"]),
                        str(p["cols"]), p["kind"]], check=True)
        with open(stamp, "w") as f:
            f.write(want)
    elif not os.path.exists(path) or blosc2.open(path).shape != tuple(p["shape"]):
        v = f32_block(0, p["shape"][0], p["shape"])
        blosc2.asarray(v, urlpath=path, mode="w", cparams=p["cparams"])
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default="/tmp/tsr-workloads")
    ap.add_argument("--scale", type=float, default=1.0, help="size factor (1: full sizes)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="for bench/fits_write")
    ap.add_argument("--only", default="", help="write only workloads whose name has this")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    for name, kind, p in plan(a.scale):
        if a.only in name:
            path = write(a.dir, name, kind, p, a.build)
            # python-blosc2 picks a b2nd file's chunk shape from the writing machine when the
            # writer gives none (a 256 MiB array: 32 chunks here, two a 128 MiB CUDA slot on an
            # H100 host; design-notes, "The feed rule settled on the device"), so say it
            shape = " chunks %s" % (blosc2.open(path).chunks,) if kind == "blosc2" else ""
            print("%-24s %s%s" % (name, path, shape), flush=True)
    # The files just written go to disk now, not during the reads measured next: the kernel's
    # writeback of a gigabyte of dirty pages would share the memory and cores those reads use.
    # (A GPU machine read the b2nd rows at 18-31 GB/s in the run right after writing them and
    # 27-34 in the next; not measured with this in place.)
    os.sync()


if __name__ == "__main__":
    main()
