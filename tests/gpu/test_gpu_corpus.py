"""test_gpu_corpus.py - every corpus case (FITS, Zarr v2/v3, Blosc2) read into GPU memory with
`tessera read --device cuda` equals what the peers read, bit for bit; sections too. FITS GZIP
tiles and Zarr gzip/zlib chunks go through the GPU inflate kernel, Zarr zstd chunks the zstd kernel, Zarr lz4 chunks and blosc
lz4/blosclz streams through the LZ kernels, Blosc2 frames and b2nd arrays (whole chunks, b2nd
blocks placed in blocked mode) through the same blosc families; a few cases again with
`--decoder cpu`; blosc cases with `--decoder cpu` again, their chunks split into block shares;
every case again from mock-device storage (and some from mock-host); receipts say which decoder ran; corrupt GZIP tiles, gzip chunks, blosc zlib/lz4/blosclz
streams, lz4 and zstd chunks fail naming
the file, the HDU or array, and the chunk; random integer-list, mask and --oindex keys, which
the place kernel gathers, equal the CPU engine's reads. Without a CUDA device (or a build without CUDA) it
says so and passes. Each CLI call starts a CUDA context, most of its time: the calls run
TSR_TEST_JOBS at a time (default: the cores, at most 12)."""
import concurrent.futures
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from corpus_util import (BIN, CORPUS, SPLIT_ALL, case_args, report, run_read, same,  # noqa: E402
                         zarr_uses_blosc)

import numpy as np  # noqa: E402

probe = subprocess.run([BIN, "read", os.path.join(CORPUS, "fits", "u_i16_primary.fits"),
                        "--device", "cuda", "-o", "/dev/null"], capture_output=True, text=True)
if probe.returncode != 0 and ("no CUDA" in probe.stderr or "CUDA engine" in probe.stderr):
    print("skipped: no CUDA device (%s)" % probe.stderr.strip())
    sys.exit(0)

JOBS = int(os.environ.get("TSR_TEST_JOBS", "0")) or min(12, os.cpu_count() or 4)


def pmap(fn, items):
    """fn over items, JOBS at a time (threads: each waits on its CLI process); results in
    order."""
    with concurrent.futures.ThreadPoolExecutor(JOBS) as pool:
        return list(pool.map(fn, items))


# Read again with the CPU decoder: GZIP_1/GZIP_2 tiles (one with a section), a quantized GZIP_2
# image, Zarr gzip, zlib (big-endian) and sharded gzip.
CPU_DECODER_CASES = {"fits_c_gzip2_i32_tiles", "fits_c_gzip1_f32_lossless",
                     "fits_fp_gzip2_i16_tiles_sec", "fits_c_gzip2_f32_sd1_cksumseed",
                     "zarr_gzip_u16", "zarr_be_i2", "zarr3-shard_start_gzip_u1"}

# TSR_CUFILE_ALLOW_COMPAT=1 (cuFile's compatibility mode allowed): every case once, through
# cuFile storage only, to test that data path on machines without native GPUDirect Storage.
CUFILE_PASS = os.environ.get("TSR_CUFILE_ALLOW_COMPAT") == "1"

failures, total = [], 0
cases = {}
reads = []  # (name, case, extra): every case read, run together below
# Blosc cases read again with --decoder cpu, every chunk split into block shares (src/engine/
# split.c: TSR_CPU_PART_NBYTES=1), decoded by the pool's threads into the staging slot.
SPLIT = " (decoder cpu, split)"
for manifest in ("manifest-fits.json", "manifest-zarr2.json", "manifest-zarr3.json",
                 "manifest-blosc2.json"):
    path = os.path.join(CORPUS, manifest)
    if not os.path.exists(path):
        continue
    for c in json.load(open(path)):
        cases[c["id"]] = c
        # Every case again from mock-device storage (the chunks replayed from device memory),
        # and the CPU-decoder cases from mock-host storage.
        # (--decoder gpu: the kernels however few the streams; corpus files are small, and
        # auto would decode most of them on the CPU.)
        if CUFILE_PASS:
            variants = [["--device", "cuda", "--storage", "cufile"]]
        else:
            variants = [["--device", "cuda", "--decoder", "gpu"],
                        ["--device", "cuda", "--storage", "mock-device", "--decoder", "gpu"]]
            if c["id"] in CPU_DECODER_CASES:
                variants.append(["--device", "cuda", "--decoder", "cpu"])
                variants.append(["--device", "cuda", "--decoder", "auto"])
                variants.append(["--device", "cuda", "--storage", "mock-host"])
        for extra in variants:
            extra = list(extra) + case_args(c)
            name = c["id"] + "".join(" (%s %s)" % (extra[i], extra[i + 1])
                                     for i in range(2, len(extra) - 1, 2)
                                     if extra[i] in ("--decoder", "--storage"))
            reads.append((name, c, extra))
        if not CUFILE_PASS and (manifest == "manifest-blosc2.json" or
                                (manifest.startswith("manifest-zarr") and zarr_uses_blosc(c))):
            reads.append((c["id"] + SPLIT, c,
                          ["--device", "cuda", "--decoder", "cpu"] + case_args(c)))


def check_read(job):
    """One case read: None, or what is wrong."""
    name, c, extra = job
    got, rc, err = run_read(os.path.join(CORPUS, c["path"]), c.get("hdu"), c.get("section"),
                            extra=extra, env=SPLIT_ALL if name.endswith(SPLIT) else None)
    if got is None:
        return "%s: exit %d: %s" % (name, rc, err.strip())
    why = same(got, np.load(os.path.join(CORPUS, c["expect"])))
    return "%s: %s" % (name, why) if why else None


total += len(reads)
failures += [f for f in pmap(check_read, reads) if f]


# The cuFile pass (informational) reads the cases only: the checks below read with the
# default storage, which the ordinary pass covers.
if CUFILE_PASS:
    report(failures, total)


def receipt(case_id, *extra):
    """The --receipt text of a CUDA read of a corpus case."""
    c = cases[case_id]
    if "--decoder" not in extra:
        extra = tuple(extra) + ("--decoder", "gpu")
    cmd = [BIN, "read", os.path.join(CORPUS, c["path"]), "--device", "cuda", "--receipt",
           "-o", "/dev/null"] + list(extra)
    if c.get("hdu") is not None:
        cmd += ["--hdu", str(c["hdu"])]
    if c.get("array"):
        cmd += ["--array", c["array"]]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return p.stdout + p.stderr


# Receipts name the decoder that ran, and every CPU fallback with its reason.
RECEIPTS = [
    ("fits_c_gzip2_i32_tiles", (), "GZIP_2 tiles decoded on the GPU (tessera inflate kernel)"),
    ("fits_c_gzip1_i16_rows", (), "GZIP_1 tiles decoded on the GPU (tessera inflate kernel)"),
    ("fits_c_gzip2_i32_tiles", ("--decoder", "cpu"), "decoded on the CPU (decoder option cpu)"),
    # a handful of tiles: auto leaves them to the CPU's threads, and says why
    ("fits_c_gzip2_i32_tiles", ("--decoder", "auto"),
     "GZIP_2 tiles decoded on the CPU (decoder auto: too few, large streams"),
    ("fits_c_gzip2_f32_sd1_cksumseed", (), "GZIP_2 tiles decoded on the GPU (tessera inflate"),
    ("fits_c_gzip1_f64_sd1", (), "GZIP_1 tiles decoded on the GPU (tessera inflate kernel)"),
    ("fits_c_rice_f32_sd1", (), "RICE_1 tiles decoded on the GPU (tessera rice kernel)"),
    ("fits_c_rice_i16_tiles", (), "RICE_1 tiles decoded on the GPU (tessera rice kernel)"),
    ("fits_c_rice_u8_rows", (), "RICE_1 tiles decoded on the GPU (tessera rice kernel)"),
    ("fits_c_rice_i32_rows", (), "RICE_1 tiles decoded on the GPU (tessera rice kernel)"),
    ("fits_c_rice_u16_bzero", (), "RICE_1 tiles decoded on the GPU (tessera rice kernel)"),
    ("zarr_gzip_u16", (), "chunks decoded on the GPU (tessera inflate kernel)"),
    ("zarr_zlib_i8", (), "chunks decoded on the GPU (tessera inflate kernel)"),
    # blosc chunks: zlib, lz4 and blosclz streams and byte shuffle on the GPU
    ("zarr_blosc_zlib_shuffle_f64", (), "blosc/zlib chunks decoded on the GPU (tessera inflate"),
    ("zarr_nested_f32_3d", (), "blosc/zlib chunks decoded on the GPU (tessera inflate kernel)"),
    ("zarr_blosc_lz4_shuffle_i16", (), "blosc/lz4 chunks decoded on the GPU (tessera lz4 kernel)"),
    ("zarr_blosc_blosclz_noshuffle_u8", (),
     "blosc/blosclz chunks decoded on the GPU (tessera blosclz kernel)"),
    ("zarr_lz4_f32", (), "chunks decoded on the GPU (tessera lz4 kernel)"),
    ("zarr3-blosc_lz4_shuffle_float32", (), "blosc/lz4 chunks decoded on the GPU (tessera lz4"),
    # bit shuffle (the filter pass), memcpyed chunks (device copies)
    ("zarr_blosc_lz4hc_bitshuffle_f32", (), "blosc/lz4 chunks decoded on the GPU (tessera lz4"),
    ("zarr_blosc_lz4_bitshuffle_bool", (), "blosc/lz4 chunks decoded on the GPU (tessera lz4"),
    ("zarr_1d_i16", (), "blosc/lz4 chunks decoded on the GPU (tessera lz4 kernel)"),
    # zstd: Zarr v2 numcodecs Zstd, v3 zstd, a shard's inner chunks, blosc zstd streams (with
    # bit shuffle too: the zstd kernel, then the filter pass)
    ("zarr_zstd_i32_3d", (), "chunks decoded on the GPU (tessera zstd kernel)"),
    ("zarr3-zstd_f4", (), "chunks decoded on the GPU (tessera zstd kernel)"),
    ("zarr3-shard_end_zstd_f4", (), "chunks decoded on the GPU (tessera zstd kernel)"),
    ("zarr_blosc_zstd_noshuffle_u32_blocks", (),
     "blosc/zstd chunks decoded on the GPU (tessera zstd kernel)"),
    ("zarr_blosc_zstd_bitshuffle_i64", (),
     "blosc/zstd chunks decoded on the GPU (tessera zstd kernel)"),
    ("zarr_blosc_zlib_shuffle_f64", ("--decoder", "cpu"), "decoded on the CPU (decoder option cpu)"),
    ("fits_c_gzip2_i32_tiles", ("--storage", "mock-device"), "backend mock-device"),
    ("fits_c_rice_f32_sd1", ("--storage", "mock-device"), "backend mock-device"),
]
RECEIPTS = [r for r in RECEIPTS if r[0] in cases]
total += len(RECEIPTS)
for (case_id, extra, want), text in zip(RECEIPTS, pmap(lambda r: receipt(r[0], *r[1]),
                                                       RECEIPTS)):
    if want not in text:
        failures.append("receipt of %s %s lacks %r: %s" % (case_id, " ".join(extra), want,
                                                            text.strip()))
    # the read's own thread waited (t_wait) for no longer than the read took
    m = re.search(r"total ([0-9.]+) s  wait ([0-9.]+) s", text)
    if not m or not 0 <= float(m.group(2)) <= float(m.group(1)) + 1e-6:
        failures.append("receipt of %s %s: no wait within the total: %s" % (
            case_id, " ".join(extra), text.strip()))

# Every Zarr blosc case whose codec has a GPU family (blosclz, lz4, lz4hc, zlib, zstd) is
# decoded on the GPU whatever its filters, memcpyed chunks and edge chunks: its values are
# checked above against the peers' (and so the CPU engine's), its receipt names no CPU decoding.
all_gpu = []  # (case id, blosc codec name)
for case_id, c in cases.items():
    if c.get("format") not in ("zarr2", "zarr3"):
        continue
    base = os.path.join(CORPUS, c["path"], c.get("array") or "")
    meta = os.path.join(base, ".zarray")
    meta = meta if os.path.exists(meta) else os.path.join(base, "zarr.json")
    text = open(meta).read() if os.path.exists(meta) else ""
    m = re.search(r'"cname": *"(\w+)"', text)
    if not m or m.group(1) not in ("blosclz", "lz4", "lz4hc", "zlib", "zstd") or \
            "sharding" in text:
        continue  # (blosc inside shards: the CPU's, for now)
    # a permutation (order F) or numcodecs filters are steps the GPU path does not do yet:
    # the receipt says so, naming that reason, not a missing decoder
    steps = re.search(r'"order":\s*"F"', text) or re.search(r'"filters":\s*\[\s*\{', text) or \
        re.search(r'"name":\s*"transpose"', text)
    all_gpu.append((case_id, "blosc/%s" % ("lz4" if m.group(1) == "lz4hc" else m.group(1)),
                    bool(steps)))
total += len(all_gpu)
for (case_id, name, steps), text in zip(all_gpu, pmap(lambda a: receipt(a[0]), all_gpu)):
    if steps:
        if "decoded on the CPU (steps with no GPU kernel yet)" not in text:
            failures.append("receipt of %s: order F / filters not named as the reason: %s" % (
                case_id, text.strip()))
        continue
    if "%s chunks decoded on the GPU" % name not in text or "decoded on the CPU" in text:
        failures.append("receipt of %s: not all its blosc chunks on the GPU: %s" % (
            case_id, text.strip()))

# Every Blosc2 case (b2nd arrays, plain super-chunk frames) whose codec has a GPU family is
# decoded on the GPU whatever its filters, block layout and edge chunks: whole chunks (a
# section's too), b2nd blocks placed by the place kernel's blocked mode; its values are checked
# above. Its receipt says its blosc chunks were decoded on the GPU, and names no CPU decoding
# but of chunks with dictionaries, for that reason. The codec is the frame's, from the receipt
# (as the Zarr list reads the metadata); one receipt a file (its sections share its chunks).
B2_FAMILY = {"blosclz": "blosclz", "lz4": "lz4", "lz4hc": "lz4", "zlib": "zlib", "zstd": "zstd"}
b2_cases, b2_paths = [], set()
for case_id, c in cases.items():
    if c.get("format") == "blosc2" and c["path"] not in b2_paths:
        b2_paths.add(c["path"])
        b2_cases.append(case_id)
total += len(b2_cases)
n_b2_gpu = 0
for case_id, text in zip(b2_cases, pmap(lambda i: receipt(i, *case_args(cases[i])), b2_cases)):
    c = cases[case_id]
    m = re.search(r"codec blosc2/(\w+)", text)
    if not m:
        failures.append("receipt of %s names no blosc2 codec: %s" % (case_id, text.strip()))
        continue
    if m.group(1) not in B2_FAMILY:
        continue
    name = "blosc/%s" % B2_FAMILY[m.group(1)]
    dt = np.dtype(c["dtype"])
    if dt.itemsize not in (1, 2, 4, 8) or dt.kind in "cVSUO":
        # elements the place kernel does not take: steps, named as the reason
        if "decoded on the CPU (steps with no GPU kernel yet)" not in text:
            failures.append("receipt of %s: %s elements not named as the reason: %s" % (
                case_id, dt, text.strip()))
        continue
    stored = re.search(r"\bread (\d+) B", text)
    cpu = re.findall(r"decoded on the CPU \(([^)]*)\)", text)
    other = [w for w in cpu if not w.startswith("blosc dictionaries")]
    on_gpu = "%s chunks decoded on the GPU" % name in text
    # (a file of fill chunks alone reads no bytes and decodes nothing)
    if other or (not on_gpu and not cpu and (not stored or int(stored.group(1)) > 0)):
        failures.append("receipt of %s: not all its blosc chunks on the GPU: %s" % (
            case_id, text.strip()))
    n_b2_gpu += on_gpu
if b2_cases and not n_b2_gpu:
    failures.append("no Blosc2 case decoded on the GPU")

# Forced cuFile storage: the values where GPUDirect Storage runs, else an error saying why and
# naming the file; auto storage says in the receipt why it read with posix.
if "fits_c_gzip2_i32_tiles" in cases:
    c = cases["fits_c_gzip2_i32_tiles"]
    total += 1
    got, rc, err = run_read(os.path.join(CORPUS, c["path"]), c.get("hdu"), None,
                            extra=["--device", "cuda", "--storage", "cufile"])
    if got is None and not ("GPUDirect Storage cannot run here" in err and c["path"] in err):
        failures.append("--storage cufile: exit %d without the reason: %s" % (rc, err.strip()))
    elif got is not None:
        why = same(got, np.load(os.path.join(CORPUS, c["expect"])))
        if why:
            failures.append("--storage cufile: %s" % why)
        print("note: cuFile storage ran (GPUDirect Storage is usable here)")
    else:
        total += 1
        text = receipt("fits_c_gzip2_i32_tiles")
        if "backend posix" not in text or "storage posix, not cuFile:" not in text:
            failures.append("auto storage receipt lacks the posix reason: %s" % text.strip())


corrupt = []  # (label, path, extra, wants, decoder): run before their files go


def expect_failure(label, path, extra, wants):
    """Both decoders must refuse a corrupt input, naming where it is (queued in corrupt)."""
    for dec in ("gpu", "cpu"):
        corrupt.append((label, path, extra, wants, dec))


def check_corrupt(job):
    """One queued corrupt read: None, or what is wrong."""
    label, path, extra, wants, dec = job
    p = subprocess.run([BIN, "read", path, "--device", "cuda", "--decoder", dec,
                        "-o", "/dev/null"] + list(extra),
                       capture_output=True, text=True, timeout=300)
    if p.returncode == 0:
        return "%s (--decoder %s): corrupt input read without an error" % (label, dec)
    missing = [w for w in wants if w not in p.stderr]
    if missing:
        return "%s (--decoder %s): message lacks %s: %s" % (label, dec, missing,
                                                            p.stderr.strip())
    return None


def store_copy(tmp, store, name, key):
    """A copy of a corpus Zarr store in tmp, and the path and bytes of its chunk key."""
    copy = os.path.join(tmp, name)
    shutil.copytree(store, copy)
    chunk = os.path.join(copy, key)
    return copy, chunk, bytearray(open(chunk, "rb").read())


with tempfile.TemporaryDirectory() as tmp:
    # A GZIP_2 tile with a damaged DEFLATE body: the 3rd gzip member of the heap.
    src = os.path.join(CORPUS, "fits", "c_gzip2_i32_tiles.fits")
    if os.path.exists(src):
        data = bytearray(open(src, "rb").read())
        at, k = -1, 0
        for _ in range(3):
            at = data.find(b"\x1f\x8b\x08", at + 1)
        if at > 0:
            for k in range(24, 40):
                data[at + k] ^= 0x5A
            bad = os.path.join(tmp, "bad_gzip2.fits")
            open(bad, "wb").write(bytes(data))
            expect_failure("corrupt GZIP_2 tile", bad, ["--hdu", "1"],
                           ["bad_gzip2.fits", "HDU 1", "tile "])
    # A RICE_1 tile whose bits run out: the 5th tile's bytes, found through the binary table's
    # heap descriptors, rewritten as one block code 1 (split 0) then zeros: a unary run that
    # ends past the stream, on both decoders.
    src = os.path.join(CORPUS, "fits", "c_rice_i16_tiles.fits")
    if os.path.exists(src):
        data = bytearray(open(src, "rb").read())
        def cards(at):
            """The cards of the header at `at` (a dict), and where its data starts."""
            kv = {}
            while True:
                card = data[at:at + 80].decode("ascii")
                at += 80
                if card.startswith("END"):
                    return kv, (at + 2879) // 2880 * 2880
                if card[8:10] == "= ":
                    kv[card[:8].strip()] = card[10:].split("/")[0].strip().strip("'").strip()
        h0, at = cards(0)
        h1, data_at = cards(at)
        forms = [h1.get("TFORM%d" % k, "") for k in range(1, int(h1["TFIELDS"]) + 1)]
        if h1.get("TTYPE1") != "COMPRESSED_DATA" or not forms[0].startswith("1P"):
            failures.append("bad_rice: unexpected table layout %s" % forms)
        else:
            width, rows = int(h1["NAXIS1"]), int(h1["NAXIS2"])
            heap = data_at + int(h1.get("THEAP", width * rows))
            n, off = struct.unpack(">ii", bytes(data[data_at + 4 * width:data_at + 4 * width + 8]))
            at = heap + off
            data[at + 2] = 0x10
            data[at + 3:at + n] = b"\x00" * (n - 3)
            bad = os.path.join(tmp, "bad_rice.fits")
            open(bad, "wb").write(bytes(data))
            expect_failure("corrupt RICE_1 tile", bad, ["--hdu", "1"],
                           ["bad_rice.fits", "HDU 1", "tile "])
    # A Zarr v2 gzip chunk whose CRC-32 no longer matches (a flipped byte in the trailer).
    store = os.path.join(CORPUS, "zarr2", "gzip_u16.zarr")
    if os.path.isdir(store):
        copy, chunk, data = store_copy(tmp, store, "bad_gzip.zarr", "1.1")
        data[-6] ^= 0xFF
        open(chunk, "wb").write(bytes(data))
        expect_failure("corrupt gzip chunk", copy, [], ["bad_gzip.zarr", "array", "chunk 1.1"])
    # Blosc chunks with a damaged stream, the first compressed stream of block 0 of the first
    # chunk that has one: zlib (a byte flipped: Adler-32 then fails, as on the CPU); lz4 and
    # blosclz (every byte 0xFF: lengths that run past the end of the input, on both decoders).
    def first_stream(data):
        """Where the first compressed stream of block 0 is (offset of its size), and its size."""
        flags, typesize = data[2], data[3]
        nbytes, blocksize = struct.unpack("<ii", bytes(data[4:12]))
        if flags & 0x02:  # stored whole (memcpyed)
            return None
        split = not flags & 0x10  # (blosc1: the dont-split flag)
        each = blocksize // typesize if split else blocksize
        p = struct.unpack("<i", bytes(data[16:20]))[0]  # block 0 starts here
        for _ in range(typesize if split else 1):
            cs = struct.unpack("<i", bytes(data[p:p + 4]))[0]
            if 0 < cs < each:  # (cs == each: stored as is; <= 0: a run)
                return p, cs
            p += 4 + (cs if cs > 0 else 1 if cs < 0 else 0)
        return None

    for name, how in (("blosc_zlib_shuffle_f64", "flip"), ("blosc_lz4_shuffle_i16", "ff"),
                      ("blosc_blosclz_noshuffle_u8", "ff"),
                      ("blosc_lz4hc_bitshuffle_f32", "ff")):  # (and the filter pass)
        store = os.path.join(CORPUS, "zarr2", name + ".zarr")
        if not os.path.isdir(store):
            continue
        keys = sorted(k for k in os.listdir(store) if not k.startswith("."))
        found = [(k, first_stream(bytearray(open(os.path.join(store, k), "rb").read())))
                 for k in keys]
        found = [(k, f) for k, f in found if f]
        if not found:
            failures.append("bad_%s: no chunk with a compressed stream in block 0" % name)
            continue
        key, (p, cs) = found[-1]
        copy, chunk, data = store_copy(tmp, store, "bad_%s.zarr" % name, key)
        if how == "flip":
            data[p + 4 + cs // 2] ^= 0xFF
        else:
            data[p + 4:p + 4 + cs] = b"\xff" * cs
        open(chunk, "wb").write(bytes(data))
        expect_failure("corrupt %s stream" % name, copy, [],
                       ["bad_%s.zarr" % name, "array", "chunk " + key])
    # A numcodecs LZ4 chunk whose block is all 0xFF.
    store = os.path.join(CORPUS, "zarr2", "lz4_f32.zarr")
    if os.path.isdir(store):
        key = sorted(k for k in os.listdir(store) if not k.startswith("."))[0]
        copy, chunk, data = store_copy(tmp, store, "bad_lz4.zarr", key)
        data[4:] = b"\xff" * (len(data) - 4)
        open(chunk, "wb").write(bytes(data))
        expect_failure("corrupt lz4 chunk", copy, [], ["bad_lz4.zarr", "array", "chunk " + key])
    # A Zarr v2 zstd chunk cut short (its frame's last block ends past the input).
    store = os.path.join(CORPUS, "zarr2", "zstd_i32_3d.zarr")
    if os.path.isdir(store):
        copy, chunk, data = store_copy(tmp, store, "bad_zstd.zarr", "0.1.0")
        open(chunk, "wb").write(bytes(data[:len(data) - 10]))
        expect_failure("corrupt zstd chunk", copy, [], ["bad_zstd.zarr", "array", "chunk 0.1.0"])
    total += len(corrupt)
    failures += [f for f in pmap(check_corrupt, corrupt) if f]

# Quantized floats in GZIP tiles, fresh from CFITSIO (bench/fits_write, TSR_FITS_WRITE names
# it): dithering 1 and 2 (exact zeros), no dithering, NaNs (ZBLANK), float32 and float64,
# one-row and square tiles (dither runs that wrap inside a tile). The GPU dequantizes them
# after its inflate; every value must equal the CPU engine's (which equals CFITSIO's: the
# corpus cases above and tests/test_dither.c), whole and in sections.
FITS_WRITE = os.environ.get("TSR_FITS_WRITE", "")


def check_written(tmp, kind, rows, cols):
    """One fits_write kind's reads: (failures, checks)."""
    fails, n = [], 0
    w = subprocess.run([FITS_WRITE, tmp, "1", str(rows), str(cols), kind],
                       capture_output=True, text=True)
    path = os.path.join(tmp, "%s_000.fits" % kind)
    if w.returncode != 0:
        return ["fits_write %s: %s" % (kind, w.stderr.strip())], n
    for sec in (None, "7:290:3,::-2", "100:101,5:200"):
        want, rc, err = run_read(path, 1, sec, extra=[])  # the CPU engine's values
        for extra in (["--device", "cuda", "--decoder", "gpu"],
                      ["--device", "cuda", "--storage", "mock-device", "--decoder", "gpu"]):
            n += 1
            label = "%s%s %s" % (kind, " [%s]" % sec if sec else "", " ".join(extra[2:]))
            got, rc2, err2 = run_read(path, 1, sec, extra=extra)
            if want is None or got is None:
                fails.append("%s: exit %d/%d: %s %s" % (label, rc, rc2, err.strip(),
                                                        err2.strip()))
                continue
            if want.dtype != got.dtype or want.tobytes() != got.tobytes():
                fails.append("%s: GPU values differ from the CPU engine's" % label)
    n += 1
    p = subprocess.run([BIN, "read", path, "--hdu", "1", "--device", "cuda", "--decoder",
                        "gpu", "--receipt", "-o", "/dev/null"], capture_output=True,
                       text=True)
    if "decoded on the GPU" not in p.stdout + p.stderr or \
            "decoded on the CPU" in p.stdout + p.stderr:
        fails.append("%s: receipt: %s" % (kind, (p.stdout + p.stderr).strip()))
    return fails, n


if FITS_WRITE:
    with tempfile.TemporaryDirectory() as tmp:
        for fails, n in pmap(lambda k: check_written(tmp, *k),
                             (("gzip1_f32_sd1", 300, 700), ("gzip2_f32_sd2", 300, 500),
                              ("gzip2_f64_nodither", 64, 333), ("gzip1_f64_sd1", 250, 260),
                              ("rice_qf32", 300, 555), ("rice_i16", 64, 4096))):
            failures += fails
            total += n

# Advanced selections (integer lists, masks, --oindex) into GPU memory: the chunks the points
# touch decode on the device (or on the CPU, --decoder cpu) and the place kernel gathers the
# points (src/engine/gather.c, src/cuda/place_core.h); values, dtype and shape equal the CPU
# engine's read of the same key. Random keys (integer lists of 1 and 2 dims with negative
# indices and repeats, masks, integers, slices, ...; NumPy's form and --oindex) over cases of
# every route: GZIP byte planes, RICE and GZIP dequantization (whose dither walk needs each
# point's place in its tile), BSCALE/BLANK, BZERO, blosc, lz4, zstd, big-endian, complex, fill
# chunks, shards, Blosc2 frames, 1 to 4 dims.
GATHER_CASES = ("fits_c_gzip2_i32_tiles", "fits_c_rice_f32_sd1", "fits_c_gzip1_f64_sd1",
                "fits_scaled_blank", "fits_u16_bzero", "fits_cube_3d", "fits_c_rice_cube_i16",
                "zarr_blosc_lz4_shuffle_i16", "zarr_4d_u16", "zarr_nested_f32_3d", "zarr_be_i2",
                "zarr_fill_missing_i32", "zarr_zstd_c64", "zarr_none_f64", "zarr_lz4_f32",
                "zarr_gzip_u16", "zarr_1d_i16", "zarr3-blosc_lz4_shuffle_float32",
                "zarr3-shard_end_zstd_f4", "zarr3-u8_4d", "blosc2-lz4_shuffle_f4_3d",
                "blosc2-lz4hc_bitshuffle_i2_2d", "blosc2-zlib_delta_i8_1d")


def gather_key(rng, shape):
    """A random advanced key for `--section` and whether it is an --oindex key."""
    oindex = rng.random() < 0.35
    b = rng.randint(1, 6)
    items, advanced = [], False
    for d, n in enumerate(shape):
        r = rng.random()
        last = d == len(shape) - 1
        if r < 0.3 and not (last and not advanced):
            start, stop, step = rng.randint(-n, n - 1), rng.randint(0, n), rng.choice((1, 2, 3, -1, -2))
            items.append("%d:%d:%d" % (start, stop, step) if rng.random() < 0.5 else "::%d" % step)
        elif r < 0.4:
            items.append(str(rng.randint(-n, n - 1)))
        elif r < 0.55 and n <= 2000 and (oindex or b <= n):
            m = [False] * n
            want = rng.randint(1, n) if oindex else b
            for i in rng.sample(range(n), want):
                m[i] = True
            items.append("[%s]" % ",".join("True" if x else "False" for x in m))
            advanced = True
        else:
            cnt = rng.randint(1, 7) if oindex else b
            items.append("[%s]" % ",".join(str(rng.randint(-n, n - 1)) for _ in range(cnt)))
            advanced = True
    return ",".join(items), oindex


def check_gather(job):
    """One random key of a case, read by the CPU engine and three CUDA ways (and, for the
    case's last key, its receipt): (failures, checks)."""
    case_id, key, oindex, last = job
    c = cases[case_id]
    path = os.path.join(CORPUS, c["path"])
    fails, n = [], 0
    extra = (["--oindex"] if oindex else []) + case_args(c)
    want, rc, err = run_read(path, c.get("hdu"), key, extra=extra)
    if want is None:
        fails.append("%s [%s]: CPU engine: exit %d: %s" % (case_id, key, rc, err.strip()))
    else:
        for variant in (["--device", "cuda", "--decoder", "gpu"],
                        ["--device", "cuda", "--storage", "mock-device", "--decoder", "gpu"],
                        ["--device", "cuda", "--decoder", "cpu"]):
            n += 1
            label = "%s [%s]%s %s" % (case_id, key, " --oindex" if oindex else "",
                                      " ".join(variant[2:]))
            got, rc2, err2 = run_read(path, c.get("hdu"), key, extra=extra + variant)
            if got is None:
                fails.append("%s: exit %d: %s" % (label, rc2, err2.strip()))
            elif want.dtype != got.dtype or want.shape != got.shape or \
                    want.tobytes() != got.tobytes():
                fails.append("%s: values differ from the CPU engine's" % label)
    if last:
        # the receipt: the CUDA engine ran the read (no host gather and copy)
        n += 1
        hdu = ["--hdu", str(c["hdu"])] if c.get("hdu") is not None else []
        p = subprocess.run([BIN, "read", path, "--section", key, "--device", "cuda",
                            "--receipt", "-o", "/dev/null"] + hdu + extra,
                           capture_output=True, text=True)
        if p.returncode != 0 or "engine cuda" not in p.stdout + p.stderr or \
                "gathered by the CPU" in p.stdout + p.stderr:
            fails.append("%s [%s]: receipt: %s" % (case_id, key,
                                                   (p.stdout + p.stderr).strip()))
    return fails, n


# (the keys drawn in order first, so that they do not depend on how the reads interleave)
gather_rng = __import__("random").Random(19)
gathers = []
for case_id in GATHER_CASES:
    if case_id not in cases:
        continue
    for k in range(4):
        key, oindex = gather_key(gather_rng, cases[case_id]["shape"])
        gathers.append((case_id, key, oindex, k == 3))
for fails, n in pmap(check_gather, gathers):
    failures += fails
    total += n

report(failures, total)
