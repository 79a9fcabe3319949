"""test_peer_blosc2_roundtrip.py - python-blosc2 (PyPI, bundling C-Blosc2) writes fresh frames at
test time: codecs x filter pipelines x dtypes x chunk/block shapes, contiguous and sparse, b2nd
arrays (some starting as zeros/full/nans chunks) and plain super-chunks. tessera reads each whole
and in random sections and must return what python-blosc2 reads: its own partial read for
step-1 sections, NumPy's indexing of its whole read otherwise, and for DELTA pipelines always
the whole read (C-Blosc2's partial reads of DELTA chunks can be wrong).

Sections go through the CLI; when the shared library loads into this Python (not in sanitizer
builds) many more small sections go through ctypes, the case tiny reads take (part fetch of a
few blocks). TSR_SEED picks another run; TSR_B2_CASES sets how many arrays."""
import ctypes
import os
import random
import shutil
import subprocess
import sys
import tempfile
import warnings

import numpy as np

from corpus_util import BIN, report, run_read, same

warnings.filterwarnings("ignore")
import blosc2  # noqa: E402

SEED = int(os.environ.get("TSR_SEED", "20261129"))
NCASES = int(os.environ.get("TSR_B2_CASES", "90"))
rng = random.Random(SEED)
nrng = np.random.default_rng(SEED)
tmp = tempfile.mkdtemp()
LIB = os.environ.get("TSR_LIB", "")

F = blosc2.Filter
CODECS = [blosc2.Codec.BLOSCLZ, blosc2.Codec.LZ4, blosc2.Codec.LZ4HC, blosc2.Codec.ZLIB,
          blosc2.Codec.ZSTD]
DTYPES = ["bool", "i1", "u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f2", "<f4", "<f8",
          "<c8", "<c16", ">i2", ">i4", ">f4", ">f8", ">u8"]
# tessera's enum tsr_dtype, in order
TSR_DTYPES = [None, "bool", "i1", "<i2", "<i4", "<i8", "u1", "<u2", "<u4", "<u8", "<f2", "<f4",
              "<f8", "<c8", "<c16"]
# plain super-chunks store no dtype: the CLI reads name the one written (--dtype, byte order
# included), the library reads name none and get the unsigned integers of the item size
SCHUNK_DTYPE = {1: "u1", 2: "<u2", 4: "<u4", 8: "<u8"}


def values(dtype, shape):
    """Runs (compressible), smooth ramps and noise; NaN/inf for floats, extremes for ints."""
    n = int(np.prod(shape))
    dt = np.dtype(dtype)
    if dt.byteorder == ">":
        return values(dt.newbyteorder("="), shape).astype(dt)
    if dt.kind == "b":
        v = nrng.random(n) < 0.2
        v[: n // 2] = (np.arange(n // 2) // 13) % 2 == 0
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        v = nrng.integers(info.min, info.max, size=n, dtype=dt, endpoint=True)
        v[: n // 2] = (np.arange(n // 2) // 7).astype(dt)
        v[n // 2: 3 * n // 4] = (np.arange(3 * n // 4 - n // 2) % 50).astype(dt)
        if n > 4:
            v[1], v[3] = info.min, info.max
    else:
        real = np.dtype(dt.str[0] + ("f4" if dt.itemsize == 8 else "f8")) if dt.kind == "c" else dt
        v = (np.sin(np.arange(n) / 50.0) * 1000).astype(real)
        v[n // 2:] = (nrng.standard_normal(n - n // 2) * 1000).astype(real)
        v[: n // 4] = np.round(v[: n // 4] / 100)
        if n > 8:
            v[2], v[5], v[7] = np.nan, np.inf, -0.0
        if dt.kind == "c":
            v = v + 1j * np.cos(np.arange(n) / 30.0).astype(real)
        v = v.astype(dt)
    return v.reshape(shape)


def random_geometry(big):
    if big:
        # chunks of several hundred KiB, so that small sections fetch only a few blocks
        nd = rng.choice([1, 2, 3])
        if nd == 1:
            shape = (rng.randint(150000, 400000),)
            chunks = (rng.randint(60000, 150000),)
            blocks = (rng.choice([1000, 4096, 5000, 8192, 30000]),)
        elif nd == 2:
            shape = (rng.randint(200, 700), rng.randint(300, 700))
            chunks = (rng.randint(100, 300), shape[1] if rng.random() < 0.5 else rng.randint(200, 600))
            blocks = (rng.randint(4, 20), chunks[1] if rng.random() < 0.5 else rng.randint(20, 100))
        else:
            shape = (rng.randint(20, 50), rng.randint(60, 120), rng.randint(60, 120))
            chunks = (rng.randint(10, 25), shape[1], rng.randint(50, shape[2]))
            blocks = (rng.randint(1, 5), rng.randint(8, 40), rng.randint(8, chunks[2]))
        return shape, tuple(min(c, s) if rng.random() < 0.2 else c for c, s in zip(chunks, shape)), blocks
    nd = rng.choice([1, 1, 2, 2, 2, 3, 3, 4, 5, 16 if rng.random() < 0.5 else rng.randint(6, 15)])
    top = {1: 5000, 2: 120, 3: 30, 4: 12, 5: 7}.get(nd, 3)
    shape = tuple(rng.randint(1, top) for _ in range(nd))
    chunks = tuple(rng.randint(1, s + 2) for s in shape)
    blocks = tuple(rng.randint(1, c) for c in chunks)
    return shape, chunks, blocks


def random_pipeline(dtype):
    dt = np.dtype(dtype)
    choices = [[], [F.SHUFFLE], [F.BITSHUFFLE], [F.DELTA], [F.DELTA, F.SHUFFLE],
               [F.DELTA, F.BITSHUFFLE], [F.SHUFFLE, F.BYTEDELTA]]
    if dt.kind == "f" and dt.itemsize in (4, 8):
        choices.append([F.TRUNC_PREC, F.SHUFFLE])
    p = rng.choice(choices)
    filters = [F.NOFILTER] * (6 - len(p)) + p
    meta = [0] * 6
    for i, f in enumerate(filters):
        if f == F.TRUNC_PREC:
            meta[i] = rng.choice([4, 10, 20])
        if f == F.BYTEDELTA:
            meta[i] = dt.itemsize
    return filters, meta


def random_section(shape, small):
    """A NumPy basic index as (spec for tessera, tuple for Python, all steps 1?)."""
    spec, py, plain = [], [], True
    for s in shape:
        r = rng.random()
        if small:
            if r < 0.6:
                i = rng.randrange(-s, s)
                spec.append(str(i))
                py.append(i)
            else:
                a = rng.randrange(0, s)
                b = min(s, a + rng.randint(1, 6))
                spec.append("%d:%d" % (a, b))
                py.append(slice(a, b))
            continue
        if r < 0.15:
            i = rng.randrange(-s, s)
            spec.append(str(i))
            py.append(i)
        elif r < 0.3:
            spec.append(":")
            py.append(slice(None))
        else:
            a, b = sorted(rng.randrange(0, s + 1) for _ in range(2))
            step = rng.choice([1, 1, 1, 1, 2, 3, 7, -1, -2])
            if step < 0:
                a, b = b, a
                a = min(a, s - 1)
            if step != 1:
                plain = False
            spec.append("%d:%d:%d" % (a, b, step) if step != 1 else "%d:%d" % (a, b))
            py.append(slice(a, b, step))
    return ",".join(spec), tuple(py), plain


# ---- ctypes access to the library, when it loads here (sanitizer builds need a preload) ----

class SelItem(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("start", ctypes.c_int64), ("stop", ctypes.c_int64),
                ("step", ctypes.c_int64), ("has_start", ctypes.c_ubyte),
                ("has_stop", ctypes.c_ubyte), ("has_step", ctypes.c_ubyte)]


class Selection(ctypes.Structure):
    _fields_ = [("nitems", ctypes.c_int), ("items", SelItem * 64)]


class ArrayInfo(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("format", ctypes.c_char_p),
                ("path", ctypes.c_char_p), ("index", ctypes.c_int), ("dtype", ctypes.c_int),
                ("stored_dtype", ctypes.c_int), ("ndim", ctypes.c_int),
                ("shape", ctypes.c_int64 * 32), ("chunk_shape", ctypes.c_int64 * 32),
                ("nchunks", ctypes.c_int64), ("codec", ctypes.c_char_p),
                ("reader", ctypes.c_char_p), ("stored_nbytes", ctypes.c_uint64),
                ("scaled", ctypes.c_int)]


def load_lib():
    if not LIB or not os.path.exists(LIB):
        return None
    probe = subprocess.run([sys.executable, "-c", "import ctypes,sys; ctypes.CDLL(sys.argv[1])", LIB],
                           capture_output=True)
    if probe.returncode != 0:
        return None
    lib = ctypes.CDLL(LIB)
    lib.tsr_errmsg.restype = ctypes.c_char_p
    return lib


lib = load_lib()
ctx = ctypes.c_void_p()
if lib is not None:
    assert lib.tsr_context_create(None, ctypes.byref(ctx)) == 0


class Handle:
    def __init__(self, path):
        self.a = ctypes.c_void_p()
        if lib.tsr_open(ctx, path.encode(), None, ctypes.byref(self.a)) != 0:
            raise RuntimeError(lib.tsr_errmsg().decode())
        info = ArrayInfo()
        info.struct_size = ctypes.sizeof(info)
        assert lib.tsr_array_info(self.a, ctypes.byref(info)) == 0
        self.dtype = np.dtype(TSR_DTYPES[info.dtype])

    def read(self, spec):
        sel = Selection()
        if lib.tsr_selection_parse(spec.encode(), ctypes.byref(sel)) != 0:
            raise RuntimeError(lib.tsr_errmsg().decode())
        data, nbytes, ndim = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_int()
        shape = (ctypes.c_int64 * 32)()
        if lib.tsr_read_alloc(self.a, ctypes.byref(sel), None, ctypes.byref(data),
                              ctypes.byref(nbytes), ctypes.byref(ndim), shape, None) != 0:
            raise RuntimeError(lib.tsr_errmsg().decode())
        raw = ctypes.string_at(data, nbytes.value)
        lib.tsr_free(data)
        return np.frombuffer(raw, dtype=self.dtype).reshape(tuple(shape[i] for i in range(ndim.value)))

    def close(self):
        lib.tsr_array_free(self.a)


def native(a):
    return a.astype(a.dtype.newbyteorder("=")) if a.dtype.byteorder == ">" else a


failures = []
counts = {"arrays": 0, "cli_reads": 0, "lib_reads": 0, "sparse": 0, "schunk": 0, "special": 0,
          "part_fetch_checked": 0, "peer_wrong": 0}
total = 0


def check(label, got, want):
    global total
    total += 1
    why = same(got, native(want))
    if why:
        failures.append("%s: %s" % (label, why))


def cli_read(label, path, spec, want, extra=()):
    got, rc, err = run_read(path, section=spec, extra=extra)
    counts["cli_reads"] += 1
    if got is None:
        global total
        total += 1
        failures.append("%s [%s]: exit %d: %s" % (label, spec, rc, err.strip()))
        return
    check("%s [%s]" % (label, spec), got, want)


for case in range(NCASES):
    big = case % 5 == 4
    dtype = rng.choice(DTYPES)
    dt = np.dtype(dtype)
    shape, chunks, blocks = random_geometry(big)
    codec = rng.choice(CODECS)
    clevel = rng.choice([0, 1, 3, 5, 5, 9]) if not big else rng.choice([1, 5])
    filters, fmeta = random_pipeline(dtype)
    use_dict = codec in (blosc2.Codec.ZSTD, blosc2.Codec.LZ4, blosc2.Codec.LZ4HC) and rng.random() < 0.2
    cparams = {"codec": codec, "clevel": clevel, "filters": filters, "filters_meta": fmeta,
               "splitmode": rng.choice(list(blosc2.SplitMode)), "use_dict": use_dict,
               "nthreads": rng.choice([1, 2])}
    sparse = rng.random() < 0.25
    kind = rng.choice(["data"] * 6 + ["zeros", "full", "nans", "schunk"])
    if kind == "nans" and (dt.kind != "f" or dt.byteorder == ">"):
        # c-blosc2 fills big-endian NaN arrays with its native NaN bytes: no NaN there
        kind = "zeros"
    if kind == "schunk" and dt.itemsize not in SCHUNK_DTYPE:
        kind = "data"
    delta = F.DELTA in filters
    lossy = F.TRUNC_PREC in filters
    if lossy:
        cparams["use_dict"] = use_dict = False
    label = "case %d (%s %s %s chunks %s blocks %s %s clevel %d filters %s dict %d %s)" % (
        case, kind, dtype, shape, chunks, blocks, codec.name, clevel,
        [f.name for f in filters if f], use_dict, "sparse" if sparse else "contiguous")
    path = os.path.join(tmp, "a%d.%s" % (case, "b2frame" if kind == "schunk" else "b2nd"))
    data = values(dtype, shape)
    try:
        arr = None
        if kind == "schunk":
            flat = data.reshape(-1)
            cp = dict(cparams, typesize=dt.itemsize)
            sc = blosc2.SChunk(chunksize=chunks[0] * dt.itemsize, data=flat, urlpath=path,
                               mode="w", contiguous=not sparse, cparams=cp)
            counts["schunk"] += 1
            # the bytes as python-blosc2 stored them (a '>i4' array's big-endian bytes too)
            truth = np.frombuffer(flat.tobytes(), dtype=dt)
        elif kind == "data":
            arr = blosc2.asarray(data, chunks=chunks, blocks=blocks, cparams=cparams, urlpath=path,
                                 mode="w", contiguous=not sparse)
            truth = data
        else:
            kw = dict(chunks=chunks, blocks=blocks, cparams=cparams, urlpath=path, mode="w",
                      contiguous=not sparse, dtype=dt)
            if kind == "zeros":
                arr = blosc2.zeros(shape, **kw)
                truth = np.zeros(shape, dt)
            elif kind == "nans":
                arr = blosc2.nans(shape, **kw)
                truth = np.full(shape, np.nan, dt)
            else:
                v = data.reshape(-1)[-1]
                arr = blosc2.full(shape, v, **kw)
                truth = np.full(shape, v, dt)
            counts["special"] += 1
            # write one box so that some chunks hold data and the rest stay special
            box = tuple(slice(s // 3, s // 3 + max(1, s // 3)) for s in shape)
            arr[box] = np.ascontiguousarray(data[box])
            truth[box] = data[box]
    except Exception as e:  # a configuration python-blosc2 itself refuses: not ours to test
        print("skip %s: python-blosc2: %s" % (label, e))
        continue
    try:
        if arr is not None:
            peer_full = arr[...]
        else:
            peer_full = np.frombuffer(sc[:], dtype=dt)
    except Exception as e:  # python-blosc2 cannot read what it wrote: expect the data written
        print("note %s: python-blosc2 cannot read it back: %s" % (label, e))
        peer_full = None
        if lossy:
            continue
    counts["arrays"] += 1
    counts["sparse"] += sparse
    # The values to expect: what python-blosc2 reads, except where it reads back something
    # else than it wrote (its partial reads of DELTA chunks, some dictionary chunks): there the
    # data as written. Lossy pipelines (TRUNC_PREC) have only python-blosc2's read.
    peer_ok = peer_full is not None and np.array_equal(native(peer_full), native(truth),
                                                       equal_nan=dt.kind in "fc")
    if lossy:
        truth = peer_full
    elif peer_full is not None and not peer_ok:
        counts["peer_wrong"] += 1
    want_full = truth
    peer_sections = arr is not None and (peer_ok or lossy) and not delta and not use_dict
    full_shape = want_full.shape

    # the dtype written, as the caller names it to a plain super-chunk (which stores none)
    dt_args = ["--dtype", dt.str] if kind == "schunk" else []
    cli_read(label, path, None, want_full, dt_args)
    nsec = 3 if not big else 4
    for k in range(nsec):
        spec, py, plain = random_section(full_shape, small=k % 2 == 1)
        if peer_sections and plain:
            want = arr[py]  # python-blosc2's own partial read
        else:
            want = want_full[py]
        cli_read(label, path, spec, np.asarray(want), dt_args)
    if big:
        # a one-element read of a large chunk must fetch only a few blocks
        spec = ",".join(str(s // 2) for s in full_shape)
        p = subprocess.run([BIN, "read", path, "--section", spec, "--receipt", "-o",
                            os.path.join(tmp, "r.npy")], capture_output=True, text=True)
        line = [x for x in p.stdout.splitlines() if x.startswith("chunks")]
        if p.returncode == 0 and line:
            nread = int(line[0].split("read ")[1].split(" B")[0])
            counts["part_fetch_checked"] += 1
            # the header, block table, a dictionary and the block (plus block 0 under DELTA)
            padded = [-(-c // b) * b for c, b in zip(chunks, blocks)]
            chunk_raw = int(np.prod(padded)) * dt.itemsize
            block_raw = int(np.prod(blocks)) * dt.itemsize
            if kind == "schunk":
                chunk_raw, block_raw = chunks[0] * dt.itemsize, 1 << 20
            bound = 32 + 4 * (chunk_raw // block_raw + 1) + 4 + (128 << 10) + 2 * block_raw
            # (chunks stored raw, "memcpyed", are read whole: their reads exceed chunk_raw)
            if bound < nread < chunk_raw:
                failures.append("%s: one element read %d bytes of a %d-byte chunk" % (
                    label, nread, chunk_raw))
    if lib is not None:
        try:
            h = Handle(path)
        except RuntimeError as e:
            failures.append("%s: open: %s" % (label, e))
            continue
        for k in range(60 if big else 25):
            spec, py, plain = random_section(full_shape, small=k % 3 != 0)
            want = arr[py] if peer_sections and plain else want_full[py]
            try:
                got = h.read(spec)
            except RuntimeError as e:
                failures.append("%s [%s]: %s" % (label, spec, e))
                continue
            counts["lib_reads"] += 1
            want = np.asarray(want)
            if kind == "schunk":
                # no dtype named: the bytes written, as unsigned integers of the item size
                # (a one-element section is a native-order scalar: back to dt's order first)
                want = np.frombuffer(np.ascontiguousarray(want.astype(dt)).tobytes(),
                                     dtype=SCHUNK_DTYPE[dt.itemsize]).reshape(want.shape)
            check("%s [%s]" % (label, spec), got, want)
        h.close()

shutil.rmtree(tmp, ignore_errors=True)
print("seed %d: %s" % (SEED, ", ".join("%s %d" % kv for kv in counts.items())))
if lib is None:
    print("(library not loadable here: sections went through the CLI only)")
report(failures, total)
