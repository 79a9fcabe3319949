#!/usr/bin/env python3
"""gen_blosc_fixtures.py - writes the blosc chunk fixtures of tests/data/blosc (run once, by hand).

Needs python-blosc2 and numcodecs (pip install blosc2 numcodecs into a venv); the C test reads
only the files this writes. Blosc1 chunks come from numcodecs' vendored c-blosc 1.x, Blosc2
chunks from python-blosc2's c-blosc2. Each chunk NAME.blosc has its expected decoded bytes in
a shared data file (what the peer itself decodes, so lossy filters are covered too), and
index.tsv lists, per chunk: name, data file, version, codec format, typesize, nbytes,
blocksize, special kind, memcpyed, split, filters, filters_meta, and a note.
"""
import hashlib
import os
import struct
import sys

import blosc2
import numpy as np
from numcodecs import blosc as nblosc

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "blosc")
rows = []
datafiles = {}


def data_file(raw):
    """Stores raw once, named by its hash; returns the file name."""
    h = hashlib.sha1(raw).hexdigest()[:12]
    name = "d_%s.bin" % h
    if name not in datafiles:
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(raw)
        datafiles[name] = len(raw)
    return name


def header_facts(c):
    version, _, flags, typesize = c[0], c[1], c[2], c[3]
    nbytes, blocksize, cbytes = struct.unpack("<iii", c[4:16])
    ext = (flags & 5) == 5
    if ext:
        filters = list(c[16:22])
        meta = list(c[24:30])
        special = (c[31] >> 4) & 7
    else:
        filters = [0] * 6
        meta = [0] * 6
        if flags & 1:
            filters[5] = 1
        if flags & 4:
            filters[5] = 2
        special = 0
    memcpyed = 1 if (flags & 2) and not special else 0
    if version >= 3:
        split = int(not (flags & 0x10))
    else:
        split = int(not (flags & 0x10) and typesize <= 16 and min(blocksize, nbytes) // typesize >= 128)
    if memcpyed or special:
        split = 0
    return version, flags >> 5, typesize, nbytes, min(blocksize, nbytes) if nbytes else 0, special, memcpyed, split, filters, meta


def add(name, chunk, expected, note):
    chunk = bytes(chunk)
    with open(os.path.join(OUT, name + ".blosc"), "wb") as f:
        f.write(chunk)
    v, codec, ts, nbytes, bs, special, memcpyed, split, filters, meta = header_facts(chunk)
    assert nbytes == len(expected), (name, nbytes, len(expected))
    rows.append("\t".join(str(x) for x in [
        name, data_file(bytes(expected)), v, codec, ts, nbytes, bs, special, memcpyed, split,
        ",".join(map(str, filters)), ",".join(map(str, meta)), note]))


def make_data(ts, nbytes, seed):
    """Compressible but not trivial bytes: smooth values on a coarse grid plus a little noise
    (a few random low bits), whole elements or not."""
    rng = np.random.default_rng(seed)
    n = nbytes // ts + 1
    t = np.arange(n)
    if ts == 1:
        a = ((t // 7) % 50 + rng.integers(0, 4, n)).astype(np.uint8)
    elif ts == 2:
        a = (1000 * np.sin(t / 40.0) + rng.integers(-3, 4, n)).astype(np.int16)
    elif ts == 4:
        a = (np.round(np.sin(t / 30.0) * 800) / 8 + rng.integers(0, 2, n) / 4).astype(np.float32)
    elif ts == 8:
        a = np.round(np.cumsum(rng.normal(0, 1, n)) * 16) / 16
    elif ts == 16:
        a = np.round(np.exp(1j * t / 25.0) * 640) / 64
    else:
        a = rng.integers(0, 8, n * ts).astype(np.uint8)
    return a.tobytes()[:nbytes]


def blosc1(name, raw, ts, cname, clevel, shuffle, blocksize, note):
    c = nblosc.compress(raw, cname.encode(), clevel, shuffle, blocksize, ts)
    c = bytes(c)
    dec = nblosc.decompress(c)
    assert dec == raw, name
    add(name, c, dec, note)


def blosc2c(name, raw, note, lossy=False, **kw):
    cp = blosc2.CParams(**kw)
    c = bytes(blosc2.compress2(raw, cparams=cp))
    dec = bytes(blosc2.decompress2(c))
    if not lossy:
        assert dec == raw, name
    add(name, c, dec, note)
    return c


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    sizes = {1: 5001, 2: 5002, 4: 5004, 8: 5000, 16: 5008}

    # ---- Blosc1 (c-blosc 1.x through numcodecs) ----
    for cname in ("blosclz", "lz4", "lz4hc", "zlib", "zstd"):
        for shuffle in (0, 1, 2):
            for ts in (1, 2, 4, 8, 16):
                raw = make_data(ts, sizes[ts], ts)
                blosc1("b1_%s_s%d_t%d" % (cname, shuffle, ts), raw, ts, cname, 5, shuffle,
                       2048, "blosc1 %s shuffle=%d typesize %d blocksize 2048" % (cname, shuffle, ts))
        raw = make_data(4, 3000, 7)
        blosc1("b1_%s_clevel0" % cname, raw, 4, cname, 0, 1, 0, "blosc1 clevel 0: memcpyed")
    blosc1("b1_lz4_tiny", make_data(4, 100, 3), 4, "lz4", 5, 1, 0, "blosc1 under 128 bytes: memcpyed")
    blosc1("b1_lz4_auto_f4", make_data(4, 40000, 11), 4, "lz4", 5, 1, 0,
           "blosc1 lz4 shuffle float32, automatic blocksize")
    blosc1("b1_zstd_auto_f8", make_data(8, 24000, 12), 8, "zstd", 3, 2, 0,
           "blosc1 zstd bitshuffle float64, automatic blocksize")
    # element count per block not a multiple of 8: Blosc1 stores such blocks unbitshuffled
    blosc1("b1_lz4_bitshuffle_n501", make_data(4, 7004, 13), 4, "lz4", 5, 2, 2004,
           "blosc1 bitshuffle with 501-element blocks (not bitshuffled)")
    blosc1("b1_zlib_shuffle_odd", make_data(1, 7003, 14), 4, "zlib", 5, 1, 2048,
           "blosc1 nbytes not a multiple of typesize 4")
    blosc1("b1_lz4_bitshuffle_odd", make_data(1, 7003, 15), 4, "lz4", 5, 2, 2048,
           "blosc1 bitshuffle, nbytes not a multiple of typesize")
    blosc1("b1_lz4_t8_small_blocks", make_data(8, 7000, 16), 8, "lz4", 5, 1, 512,
           "blosc1 blocksize/typesize 64 < 128: unsplit")
    blosc1("b1_lz4_t32", make_data(32, 6400, 17), 32, "lz4", 5, 1, 2048,
           "blosc1 typesize 32 > 16: unsplit")
    blosc1("b1_blosclz_random", np.random.default_rng(18).integers(0, 256, 5000).astype(np.uint8).tobytes(),
           1, "blosclz", 9, 0, 2048, "blosc1 incompressible")

    # ---- Blosc2 (c-blosc2 through python-blosc2) ----
    C = blosc2.Codec
    F = blosc2.Filter
    pipelines = {
        "none": ([F.NOFILTER], [0]),
        "shuf": ([F.SHUFFLE], [0]),
        "bits": ([F.BITSHUFFLE], [0]),
        "dshuf": ([F.DELTA, F.SHUFFLE], [0, 0]),
        "bdelta": ([F.SHUFFLE, F.BYTEDELTA], [0, None]),
        "trunc": ([F.TRUNC_PREC, F.SHUFFLE], [10, 0]),
    }
    for cname, codec in (("blosclz", C.BLOSCLZ), ("lz4", C.LZ4), ("lz4hc", C.LZ4HC),
                         ("zlib", C.ZLIB), ("zstd", C.ZSTD)):
        for pname, (filters, meta) in pipelines.items():
            for ts in (1, 2, 4, 8, 16):
                if pname == "trunc" and ts not in (4, 8):
                    continue
                raw = make_data(ts, sizes[ts], 100 + ts)
                m = [ts if x is None else x for x in meta]
                blosc2c("b2_%s_%s_t%d" % (cname, pname, ts), raw,
                        "blosc2 %s %s typesize %d blocksize 2048" % (cname, pname, ts),
                        lossy=(pname == "trunc"), codec=codec, clevel=5, typesize=ts,
                        blocksize=2048, filters=filters, filters_meta=m)
    S = blosc2.SplitMode
    for mode, mname in ((S.ALWAYS_SPLIT, "always"), (S.NEVER_SPLIT, "never"),
                        (S.FORWARD_COMPAT_SPLIT, "fwd"), (S.AUTO_SPLIT, "auto")):
        for cname, codec in (("zstd", C.ZSTD), ("lz4", C.LZ4)):
            for ts in (2, 8, 16):
                raw = make_data(ts, sizes[ts], 200 + ts)
                blosc2c("b2_split_%s_%s_t%d" % (mname, cname, ts), raw,
                        "blosc2 splitmode %s" % mname, codec=codec, clevel=7, typesize=ts,
                        blocksize=2048, splitmode=mode, filters=[F.SHUFFLE], filters_meta=[0])
    raw = make_data(4, 3000, 300)
    blosc2c("b2_clevel0", raw, "blosc2 clevel 0: memcpyed", codec=C.LZ4, clevel=0, typesize=4)
    blosc2c("b2_tiny", make_data(4, 60, 301), "blosc2 tiny", codec=C.LZ4, clevel=5, typesize=4)
    blosc2c("b2_empty", b"", "blosc2 empty", codec=C.LZ4, clevel=5, typesize=4)
    blosc2c("b2_lz4_auto_f4", make_data(4, 40000, 302), "blosc2 lz4 shuffle automatic blocksize",
            codec=C.LZ4, clevel=5, typesize=4)
    for ts, n in ((4, 7003), (8, 7001), (2, 7001)):
        # (no DELTA here: c-blosc2's delta encoder leaves the partial element at the end
        # unwritten, so such chunks carry whatever its buffer held)
        for pname, (filters, meta) in (("shuf", pipelines["shuf"]), ("bits", pipelines["bits"]),
                                       ("bdelta", pipelines["bdelta"])):
            m = [ts if x is None else x for x in meta]
            blosc2c("b2_odd_%s_t%d" % (pname, ts), make_data(1, n, 310 + ts),
                    "blosc2 nbytes %d not a multiple of typesize %d" % (n, ts), codec=C.ZSTD,
                    clevel=5, typesize=ts, blocksize=2000, filters=filters, filters_meta=m)
    # bitshuffle with element counts per block that are not a multiple of 8
    blosc2c("b2_bits_n501", make_data(4, 7004, 320), "blosc2 bitshuffle 501-element blocks",
            codec=C.LZ4, clevel=5, typesize=4, blocksize=2004, filters=[F.BITSHUFFLE], filters_meta=[0])
    blosc2c("b2_bits_t3_n667", make_data(3, 6003, 321), "blosc2 bitshuffle typesize 3",
            codec=C.ZSTD, clevel=5, typesize=3, blocksize=2001, filters=[F.BITSHUFFLE], filters_meta=[0])
    blosc2c("b2_shuf_meta4_t8", make_data(8, 7000, 322), "blosc2 shuffle meta 4 on typesize 8",
            codec=C.LZ4, clevel=5, typesize=8, blocksize=2048, filters=[F.SHUFFLE], filters_meta=[4])
    blosc2c("b2_bytedelta34_t4", make_data(4, 7004, 323), "blosc2 legacy bytedelta (34)",
            codec=C.ZSTD, clevel=5, typesize=4, blocksize=2048, filters=[F.SHUFFLE, 34],
            filters_meta=[0, 4])
    blosc2c("b2_inttrunc_t4", np.arange(1751, dtype=np.int32).tobytes(), "blosc2 int_trunc (lossy)",
            lossy=True, codec=C.ZSTD, clevel=5, typesize=4, blocksize=2048,
            filters=[36, F.SHUFFLE], filters_meta=[20, 0])
    blosc2c("b2_delta_only_t8", make_data(8, 7000, 324), "blosc2 delta alone", codec=C.ZLIB,
            clevel=5, typesize=8, blocksize=2048, filters=[F.DELTA], filters_meta=[0])
    blosc2c("b2_delta_bits_t2", make_data(2, 7002, 325), "blosc2 delta then bitshuffle",
            codec=C.LZ4, clevel=5, typesize=2, blocksize=2048, filters=[F.DELTA, F.BITSHUFFLE],
            filters_meta=[0, 0])
    blosc2c("b2_delta_t16", make_data(16, 7008, 326), "blosc2 delta typesize 16", codec=C.ZSTD,
            clevel=5, typesize=16, blocksize=2048, filters=[F.DELTA, F.SHUFFLE], filters_meta=[0, 0])
    blosc2c("b2_delta_t3", make_data(3, 7002, 327), "blosc2 delta typesize 3", codec=C.ZSTD,
            clevel=5, typesize=3, blocksize=2001, filters=[F.DELTA, F.SHUFFLE], filters_meta=[0, 0])
    # runs: all-zero and repeated-byte streams
    runs = np.zeros(4000, dtype=np.int64)
    runs[1000:2000] = -1
    runs[2000:3000] = np.arange(1000) % 5
    blosc2c("b2_runs_t8", runs.tobytes(), "blosc2 zero and byte-run streams", codec=C.LZ4, clevel=5,
            typesize=8, blocksize=4096, filters=[F.SHUFFLE], filters_meta=[0])
    # dictionaries
    big = make_data(4, 32768, 330)
    for cname, codec in (("zstd", C.ZSTD), ("lz4", C.LZ4)):
        try:
            blosc2c("b2_dict_%s" % cname, big, "blosc2 %s with dictionary" % cname, codec=codec,
                    clevel=5, typesize=4, blocksize=4096, use_dict=True, filters=[F.SHUFFLE],
                    filters_meta=[0])
        except Exception as e:  # a codec without dictionary support
            print("no dictionary for %s: %s" % (cname, e), file=sys.stderr)
    # special chunks (as a super-chunk holds them in memory)
    SV = blosc2.SpecialValue
    for ts, kind, value, name in ((4, SV.ZERO, None, "zero_t4"), (8, SV.ZERO, None, "zero_t8"),
                                  (4, SV.NAN, None, "nan_t4"), (8, SV.NAN, None, "nan_t8"),
                                  (4, SV.UNINIT, None, "uninit_t4"),
                                  (4, SV.VALUE, np.float32(-2.5), "value_t4"),
                                  (8, SV.VALUE, np.int64(0x0102030405060708), "value_t8"),
                                  (2, SV.VALUE, np.int16(-7), "value_t2"),
                                  (1, SV.VALUE, np.uint8(0xAB), "value_t1")):
        nitems = 3000
        sc = blosc2.SChunk(chunksize=nitems * ts, cparams=blosc2.CParams(typesize=ts))
        if value is None:
            sc.fill_special(nitems, kind)
        else:
            sc.fill_special(nitems, kind, value=value)
        c = bytes(sc.get_chunk(0))
        if kind == SV.UNINIT:
            dec = bytes(nitems * ts)  # tessera decodes undefined contents as zeros
        else:
            dec = bytes(blosc2.decompress2(c))
        add("b2_special_" + name, c, dec, "blosc2 special chunk %s" % name)

    with open(os.path.join(OUT, "index.tsv"), "w") as f:
        f.write("# name\tdata\tversion\tcodec\ttypesize\tnbytes\tblocksize\tspecial\tmemcpyed\tsplit\tfilters\tfilters_meta\tnote\n")
        for r in rows:
            f.write(r + "\n")
    total = sum(os.path.getsize(os.path.join(OUT, x)) for x in os.listdir(OUT))
    print("%d chunks, %d data files, %d bytes" % (len(rows), len(datafiles), total))


if __name__ == "__main__":
    main()
