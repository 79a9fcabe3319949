#!/usr/bin/env python3
"""gen_bfilter_fixtures.py - writes tests/data/blosc-filters (run once, by hand, with the venv's
python-blosc2): c-blosc2 chunks for the GPU filter pass beyond tests/data/blosc's, in the same
layout (gen_blosc_fixtures.py's index.tsv columns, decoded bytes in shared data files).

Blocks of 2 to 8 KiB with a short last block, typesizes 1 to 32 (odd ones too), block
sizes that are no multiple of the typesize, split and unsplit streams, and filter pipelines of
one to six filters (shuffle with and without a meta, bitshuffle, delta, bytedelta and the legacy
one, trunc_prec), mostly through the codecs with a GPU family (lz4, blosclz, zlib), a few zstd.
Chunks c-blosc2 itself does not decode back to their data are left out (it says which): many
with bytedelta or six filters (c-blosc2 3.x through python-blosc2 4.14.1; one and the same
six-filter chunk came out undecodable once, then stored whole, in one process).
"""
import os
import sys

import blosc2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_blosc_fixtures as gen  # noqa: E402

F = blosc2.Filter
C = blosc2.Codec
S = blosc2.SplitMode

PIPELINES = {
    "shuf": [(F.SHUFFLE, 0)],
    "bits": [(F.BITSHUFFLE, 0)],
    "bdelta": [(F.SHUFFLE, 0), (F.BYTEDELTA, None)],
    "bdelta34": [(F.SHUFFLE, 0), (34, None)],
    "bitsbd": [(F.BITSHUFFLE, 0), (F.BYTEDELTA, None)],
    "shufbits": [(F.SHUFFLE, 0), (F.BITSHUFFLE, 0)],
    "delta": [(F.DELTA, 0)],
    "dshuf": [(F.DELTA, 0), (F.SHUFFLE, 0)],
    "dbits": [(F.DELTA, 0), (F.BITSHUFFLE, 0)],
    "dshufbd": [(F.DELTA, 0), (F.SHUFFLE, 0), (F.BYTEDELTA, None)],
    "six": [(F.DELTA, 0), (F.SHUFFLE, 0), (F.BYTEDELTA, None), (F.BITSHUFFLE, 0),
            (F.SHUFFLE, 2), (F.BYTEDELTA, None)],
    "alt6": [(F.SHUFFLE, 0), (F.BITSHUFFLE, 0)] * 3,
}


def try_chunk(name, raw, note, **kw):
    """A chunk whose c-blosc2 round trip gives back the data; others are left out (said)."""
    try:
        gen.blosc2c(name, raw, note, **kw)
    except (AssertionError, ValueError):
        print("left out %s: c-blosc2 does not decode it back to its data" % name)


def main():
    gen.OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "blosc-filters")
    os.makedirs(gen.OUT, exist_ok=True)
    for f in os.listdir(gen.OUT):
        os.remove(os.path.join(gen.OUT, f))
    codecs = (("lz4", C.LZ4), ("blosclz", C.BLOSCLZ), ("zlib", C.ZLIB))
    seed = 1000
    for ts in (1, 2, 3, 4, 5, 7, 8, 12, 16, 32):
        for k, (pname, pipe) in enumerate(PIPELINES.items()):
            cname, codec = codecs[(ts + k) % len(codecs)]
            # blocks of 2 to 8 KiB, a short last one; for odd typesizes, every other pipeline
            # with blocks that are no multiple of the typesize (unsplit: c-blosc2 splits those
            # wrongly); whole elements (c-blosc2 mishandles a partial last element with several
            # filters: tests/data/blosc has partial ones)
            odd = ts % 2 == 1 and ts > 1 and k % 2 == 0
            bs = (2048 << (k % 3)) + odd * 1000
            nbytes = (2 * bs + 333 * ts) // ts * ts
            seed += 1
            raw = gen.make_data(ts if ts in (1, 2, 4, 8, 16) else 3, nbytes, seed)
            try_chunk("bf_%s_%s_t%d" % (cname, pname, ts), raw,
                        "blosc2 %s %s typesize %d blocksize %d" % (cname, pname, ts, bs),
                        codec=codec, clevel=5, typesize=ts, blocksize=bs,
                        splitmode=S.NEVER_SPLIT if odd or k % 3 == 1
                        else S.ALWAYS_SPLIT if k % 3 == 0 else S.AUTO_SPLIT,
                        filters=[f for f, _ in pipe],
                        filters_meta=[ts if m is None else m for _, m in pipe])
    for ts in (4, 8):
        gen.blosc2c("bf_lz4_trunc_bits_t%d" % ts, gen.make_data(ts, 12000, 1900 + ts),
                    "blosc2 trunc_prec then bitshuffle", lossy=True, codec=C.LZ4, clevel=5,
                    typesize=ts, blocksize=4096, filters=[F.TRUNC_PREC, F.BITSHUFFLE],
                    filters_meta=[12, 0])
    # stored whole: the filters in the header but nothing to undo
    gen.blosc2c("bf_lz4_clevel0_bits", gen.make_data(4, 10000, 1950), "blosc2 clevel 0 bitshuffle",
                codec=C.LZ4, clevel=0, typesize=4, filters=[F.BITSHUFFLE], filters_meta=[0])
    # zstd: the pass all the same (the emulator decodes its streams with libzstd)
    for pname in ("bits", "dshufbd", "bdelta34"):
        pipe = PIPELINES[pname]
        try_chunk("bf_zstd_%s_t4" % pname, gen.make_data(4, 20000, 1960),
                  "blosc2 zstd %s" % pname, codec=C.ZSTD, clevel=5, typesize=4, blocksize=8192,
                  filters=[f for f, _ in pipe],
                  filters_meta=[4 if m is None else m for _, m in pipe])
    with open(os.path.join(gen.OUT, "index.tsv"), "w") as f:
        f.write("# name\tdata\tversion\tcodec\ttypesize\tnbytes\tblocksize\tspecial\tmemcpyed\t"
                "split\tfilters\tfilters_meta\tnote\n")
        for r in gen.rows:
            f.write(r + "\n")
    print("%d chunks, %d data files" % (len(gen.rows), len(gen.datafiles)))


if __name__ == "__main__":
    main()
