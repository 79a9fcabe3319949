"""test_selection_advanced.py - NumPy keys with integer lists and boolean masks (and the basic
items mixed in), drawn at random, read from FITS, Zarr and Blosc2 corpus arrays and compared with
NumPy indexing the same data: values, shape and dtype, or, where NumPy raises IndexError, a
tessera error (TSR_E_RANGE or TSR_E_SELECTION). Orthogonal keys (--oindex) are compared with a
reference built from np.take axis by axis. Thousands of keys go through the library (ctypes);
some hundreds through `tessera read --section` as well. TSR_SEL_SEED / TSR_SEL_KEYS change the
draw."""
import ctypes
import json
import os
import random
import subprocess
import sys
import warnings

import numpy as np

from corpus_util import CORPUS, case_args, report, run_read, same

SEED = int(os.environ.get("TSR_SEL_SEED", "20261201"))
NKEYS = int(os.environ.get("TSR_SEL_KEYS", "4000"))
NCLI = max(1, NKEYS // 20)
LIB = os.environ.get("TSR_LIB", "")
TSR_E_RANGE, TSR_E_SELECTION = -7, -8

# (manifest, case id): 1- to 4-D arrays of every format, tiled/chunked/sharded/blocked
ARRAYS = [
    ("manifest-fits.json", "fits_c_gzip2_i32_tiles"),
    ("manifest-fits.json", "fits_c_rice_cube_i16"),
    ("manifest-fits.json", "fits_f32_primary"),
    ("manifest-fits.json", "fits_scaled_blank"),
    ("manifest-fits.json", "fits_u16_bzero"),
    ("manifest-fits.json", "fits_c_gzip1_u8_tiles"),
    ("manifest-fits.json", "fits_c_gzip2_f64_lossless"),
    ("manifest-zarr2.json", "zarr_4d_u16"),
    ("manifest-zarr2.json", "zarr_nested_f32_3d"),
    ("manifest-zarr3.json", "zarr3-transpose_u2"),
    ("manifest-zarr3.json", "zarr3-shard_sparse_i2"),
    ("manifest-blosc2.json", "blosc2-zstd_shuffle_i2_4d"),
    ("manifest-blosc2.json", "blosc2-lz4_shuffle_f4_3d"),
    ("manifest-blosc2.json", "blosc2-bool_lz4_bitshuffle_2d"),
    ("manifest-blosc2.json", "blosc2-zlib_delta_i8_1d"),
    ("manifest-blosc2.json", "blosc2-schunk_sparse_zlib_i2"),
]


class OpenOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("hdu", ctypes.c_int), ("raw", ctypes.c_int),
                ("array", ctypes.c_char_p), ("level", ctypes.c_int), ("hdu_name", ctypes.c_char_p),
                ("hdu_ver", ctypes.c_int), ("dtype", ctypes.c_char_p)]


def load_lib():
    if not LIB or not os.path.exists(LIB):
        return None
    # sanitizer builds need a preload to be loaded into python: then the CLI alone is used
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
else:
    NKEYS = min(NKEYS, 200)  # one process per key: fewer of them (sanitizer builds)


def lib_read(handle, spec, mode, itemsize):
    """(array or None, status, message) of tsr_read_index_alloc with a parsed key."""
    ix = ctypes.c_void_p()
    st = lib.tsr_index_parse(spec.encode(), mode, ctypes.byref(ix))
    if st:
        return None, st, lib.tsr_errmsg().decode()
    data, nbytes, ndim = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_int()
    shape = (ctypes.c_int64 * 32)()
    st = lib.tsr_read_index_alloc(handle, ix, None, ctypes.byref(data), ctypes.byref(nbytes),
                                  ctypes.byref(ndim), shape, None)
    msg = lib.tsr_errmsg().decode() if st else ""
    lib.tsr_index_free(ix)
    if st:
        return None, st, msg
    raw = ctypes.string_at(data, nbytes.value)
    lib.tsr_free(data)
    return (raw, tuple(shape[i] for i in range(ndim.value))), 0, ""


# ---- random keys ----

def fmt_list(v):
    if isinstance(v, list):
        return "[" + ", ".join(fmt_list(x) for x in v) + "]"
    return "True" if v is True else "False" if v is False else str(v)


def rand_index(rng, n):
    if rng.random() < 0.04:
        return rng.choice([n, n + 3, -n - 1, -n - 7])  # out of range
    return rng.randint(-n, n - 1) if n else rng.choice([0, -1])


def rand_item(rng, shape, axis, mode):
    """One item for the axis (or the axes from it on, for a mask): (text, axes used)."""
    n = shape[axis]
    r = rng.random()
    if r < 0.18:
        return str(rand_index(rng, n)), 1
    if r < 0.40:
        a = rng.choice(["", str(rng.randint(-n - 2, n + 2))])
        b = rng.choice(["", str(rng.randint(-n - 2, n + 2))])
        c = rng.choice(["", "", "1", "2", "3", "-1", "-2"])
        return "%s:%s%s" % (a, b, ":" + c if c else ""), 1
    if r < 0.75:
        # an integer list: mostly 1-D (length 0..6), some 2-D in NumPy mode
        if mode == 0 and rng.random() < 0.2:
            rows, cols = rng.randint(1, 3), rng.randint(1, 3)
            return fmt_list([[rand_index(rng, n) for _ in range(cols)] for _ in range(rows)]), 1
        return fmt_list([rand_index(rng, n) for _ in range(rng.randint(0, 6))]), 1
    # a mask: of this axis (sometimes of the wrong length), or of this and the next axis
    if mode == 0 and axis + 1 < len(shape) and shape[axis] * shape[axis + 1] <= 4000 and \
            rng.random() < 0.3:
        m = [[rng.random() < 0.05 for _ in range(shape[axis + 1])] for _ in range(n)]
        return fmt_list(m), 2
    length = n if rng.random() < 0.93 else n + rng.choice([-1, 1])
    length = max(length, 0)
    density = rng.choice([0.02, 0.1, 0.5])
    return fmt_list([rng.random() < density for _ in range(length)]), 1


def rand_key(rng, shape, mode):
    nd = len(shape)
    items, axis = [], 0
    nidx = rng.randint(0, nd + (1 if rng.random() < 0.05 else 0))
    ell_at = rng.randint(0, nidx) if rng.random() < 0.3 else -1
    while axis < nidx:
        if len(items) == ell_at:
            items.append("...")
        if rng.random() < 0.08:
            items.append("None")
        if axis >= nd:  # one index too many: an error
            items.append("0")
            axis += 1
            continue
        text, used = rand_item(rng, shape, axis, mode)
        if axis + used > nidx:
            text, used = rand_item(rng, shape, axis, 1)  # 1 = only one-axis items
        items.append(text)
        axis += used
    if ell_at >= len(items):
        items.append("...")
    spec = ", ".join(items)
    if "[" not in spec:  # make it advanced
        spec = fmt_list([rand_index(rng, shape[0])] if nd else [0]) + (", " + spec if spec else "")
    return spec


# ---- what NumPy says ----

def numpy_vector(x, spec):
    return eval("x[" + spec + "]", {"x": x, "None": None})


class KeyOf:
    def __getitem__(self, key):
        return key


def numpy_oindex(x, spec):
    """zarr's oindex on NumPy: each list or mask taken along its own axis (np.take)."""
    key = eval("K[" + spec + "]", {"K": KeyOf(), "None": None})
    key = key if isinstance(key, tuple) else (key,)
    nidx = sum(1 for k in key if k is not None and k is not Ellipsis)
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis")
    if nidx > x.ndim:
        raise IndexError("too many indices")
    out, ax = x, 0
    for k in key:
        if k is Ellipsis:
            ax += x.ndim - nidx
        elif k is None:
            out = np.expand_dims(out, ax)
            ax += 1
        elif isinstance(k, slice):
            out = out[(slice(None),) * ax + (k,)]
            ax += 1
        else:
            a = np.asarray(k)
            n = out.shape[ax]
            if a.dtype == bool:
                if a.ndim != 1:
                    raise IndexError("oindex masks are 1-D")
                if a.shape[0] != n:
                    raise IndexError("boolean index did not match")
                a = np.nonzero(a)[0]
            else:
                a = a.astype(np.int64)
                if a.ndim > 1:
                    raise IndexError("oindex arrays are 1-D")
                if np.any((a < -n) | (a >= n)):
                    raise IndexError("out of bounds")
            out = np.take(out, a, axis=ax)
            if a.ndim == 1:
                ax += 1
    return out


failures = []
total = 0
rng = random.Random(SEED)
cases = {}
for manifest, cid in ARRAYS:
    for c in json.load(open(os.path.join(CORPUS, manifest))):
        if c["id"] == cid:
            cases[cid] = c
missing = [cid for _, cid in ARRAYS if cid not in cases]
if missing:
    failures.append("corpus lacks %s" % missing)

counts = {"lib": 0, "cli": 0, "errors": 0, "oindex": 0, "empty": 0}
handles = {}
for cid, c in cases.items():
    path = os.path.join(CORPUS, c["path"])
    truth = np.load(os.path.join(CORPUS, c["expect"]))
    args = case_args(c)
    if lib is not None:
        h = ctypes.c_void_p()
        oo = OpenOptions(ctypes.sizeof(OpenOptions), c.get("hdu") if c.get("hdu") is not None else -1,
                         0, (c.get("array") or "").encode(), -1, None, 0,
                         c["dtype"].encode() if "--dtype" in args else None)
        if lib.tsr_open(ctx, path.encode(), ctypes.byref(oo), ctypes.byref(h)) != 0:
            failures.append("%s: open: %s" % (cid, lib.tsr_errmsg().decode()))
            continue
        handles[cid] = h
    for k in range(NKEYS // len(cases) + 1):
        mode = 1 if rng.random() < 0.3 else 0
        spec = rand_key(rng, truth.shape, mode)
        label = "%s [%s]%s" % (cid, spec, " oindex" if mode else "")
        try:
            # NumPy < 2 ignores out-of-range indices when the result is empty, with a
            # DeprecationWarning that it will raise IndexError; tessera raises now
            with warnings.catch_warnings():
                warnings.simplefilter("error", DeprecationWarning)
                want = numpy_oindex(truth, spec) if mode else numpy_vector(truth, spec)
            want = np.asarray(want)
            err = None
        except DeprecationWarning as e:
            if "Out of bound index" not in str(e):
                raise
            want, err = None, IndexError("out of bounds (%s)" % e)
        except (IndexError, ValueError) as e:
            want, err = None, e
        via_cli = (lib is None or k % 20 == 0) and len(spec) < 60000
        if lib is None and not via_cli:
            continue  # too long for a command line
        total += 1
        counts["oindex"] += mode
        counts["errors"] += err is not None
        counts["empty"] += want is not None and want.size == 0
        if via_cli:
            counts["cli"] += 1
            extra = list(args) + (["--oindex"] if mode else [])
            got, rc, msg = run_read(path, c.get("hdu"), spec, extra=extra)
            if err is not None:
                if got is not None or rc != 1 or os.path.basename(path) not in msg and \
                        "selection" not in msg:
                    failures.append("%s (cli): NumPy raised %r, tessera exit %d %s" % (
                        label, err, rc, msg.strip()))
                continue
            if got is None:
                failures.append("%s (cli): exit %d: %s" % (label, rc, msg.strip()))
                continue
        else:
            counts["lib"] += 1
            res, st, msg = lib_read(handles[cid], spec, mode, truth.itemsize)
            if err is not None:
                if st not in (TSR_E_RANGE, TSR_E_SELECTION):
                    failures.append("%s: NumPy raised %r, tessera status %d %s" % (
                        label, err, st, msg))
                elif "out of bounds" in str(err) and st != TSR_E_RANGE and \
                        "broadcast" not in msg:
                    failures.append("%s: NumPy: %s; tessera %d: %s" % (label, err, st, msg))
                continue
            if res is None:
                failures.append("%s: status %d: %s" % (label, st, msg))
                continue
            raw, shape = res
            got = np.frombuffer(raw, dtype=truth.dtype).reshape(shape)
        why = same(got, want.astype(want.dtype.newbyteorder("=")))
        if why:
            failures.append("%s: %s" % (label, why))

for h in handles.values():
    lib.tsr_array_free(h)
print("seed %d: %d keys: %s" % (SEED, total, ", ".join("%s %d" % kv for kv in counts.items())))
if lib is None:
    print("(library not loadable here: every key went through the CLI)")
if len(failures) > 50:
    print("(%d failures; the first 50:)" % len(failures))
    for f in failures[50:]:
        pass
    shown, failures[:] = failures[:50], failures
    for f in shown:
        print("FAIL", f)
    print("%d of %d cases passed" % (total - len(failures), total))
    sys.exit(1)
report(failures, total)
