"""corpus_util.py - shared helpers for the Python tests: run the CLI, compare arrays exactly."""
import os
import subprocess
import sys
import tempfile

import numpy as np

BIN = os.environ.get("TSR_BIN", os.path.join(os.path.dirname(__file__), "..", "build", "tessera"))
CORPUS = os.environ.get("TSR_CORPUS", os.path.join(os.path.dirname(__file__), "..", "..", "shared", "corpus"))


def run_read(path, hdu=None, section=None, raw=False, extra=(), env=None):
    """Runs `tessera read` (env: variables added to the environment); returns (array or None,
    returncode, stderr)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.npy")
        cmd = [BIN, "read", path, "-o", out]
        if hdu is not None:
            cmd += ["--hdu", str(hdu)]
        if section is not None:
            cmd += ["--section", section]
        if raw:
            cmd += ["--raw"]
        cmd += list(extra)
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, **env) if env else None)
        if p.returncode != 0:
            return None, p.returncode, p.stderr
        return np.load(out), 0, p.stderr


def same(a, b):
    """Same dtype, shape and values; NaN equals NaN; otherwise bit for bit (so -0.0 != 0.0)."""
    if a.dtype != b.dtype:
        return "dtype %s != %s" % (a.dtype, b.dtype)
    if a.shape != b.shape:
        return "shape %s != %s" % (a.shape, b.shape)
    if a.dtype.kind in "fc":
        an, bn = np.isnan(a), np.isnan(b)
        if not np.array_equal(an, bn):
            i = np.argwhere(an != bn)[0]
            return "NaN mismatch at %s: %r vs %r" % (tuple(i), a[tuple(i)], b[tuple(i)])
        ai = np.ascontiguousarray(a).view(np.uint8).reshape(a.shape + (a.itemsize,))
        bi = np.ascontiguousarray(b).view(np.uint8).reshape(b.shape + (b.itemsize,))
        diff = np.any(ai != bi, axis=-1) & ~an
    else:
        diff = a != b
    if np.any(diff):
        i = tuple(np.argwhere(diff)[0])
        return "%d values differ, first at %s: %r vs %r" % (int(diff.sum()), i, a[i], b[i])
    return None


def fits_hdus(raw):
    """(header offset, data offset, cards) of each HDU of FITS bytes; cards map keyword to value
    text. A small parser for tests that mutate corpus files, not tessera's own."""
    out, off = [], 0
    while off < len(raw):
        cards, pos = {}, off
        while True:
            card = raw[pos:pos + 80].decode("ascii")
            pos += 80
            if card.startswith("END "):
                break
            if card[8:10] == "= ":
                cards[card[:8].strip()] = card[10:].split("/")[0].strip().strip("'").strip()
        dstart = (pos + 2879) // 2880 * 2880
        bitpix, naxis = abs(int(cards["BITPIX"])), int(cards["NAXIS"])
        n = 1 if naxis else 0
        for i in range(1, naxis + 1):
            n *= int(cards["NAXIS%d" % i])
        n = bitpix // 8 * (n + int(cards.get("PCOUNT", 0)))
        out.append((off, dstart, cards))
        off = dstart + (n + 2879) // 2880 * 2880
    return out


def plain_superchunk(c):
    """Is a corpus case a plain Blosc2 super-chunk (a file that stores no dtype)?"""
    return c.get("format") == "blosc2" and "plain super-chunk" in c.get("notes", "")


def case_args(c):
    """The `tessera read` arguments that pick a corpus case's array (--array, --level) and, for
    a plain super-chunk, which stores no dtype, name the dtype its writer used (--dtype)."""
    args = []
    if plain_superchunk(c):
        args += ["--dtype", c["dtype"]]
    if c.get("array"):
        args += ["--array", c["array"]]
    if c.get("level") is not None:
        args += ["--level", str(c["level"])]
    return args


def check_manifest(manifest, failures, extra=(), only=None):
    """Reads every case of a corpus manifest with `tessera read` (plus extra arguments) and
    appends to failures each case that differs from its expect file (only: the cases for which
    only(case) is true). Returns the case count."""
    import json
    cases = json.load(open(os.path.join(CORPUS, manifest)))
    if only is not None:
        cases = [c for c in cases if only(c)]
    for c in cases:
        args = list(extra) + case_args(c)
        got, rc, err = run_read(os.path.join(CORPUS, c["path"]), c.get("hdu"), c.get("section"),
                                extra=args)
        if got is None:
            failures.append("%s: exit %d: %s" % (c["id"], rc, err.strip()))
            continue
        want = np.load(os.path.join(CORPUS, c["expect"]))
        if want.dtype.str.lstrip("<|") != c["dtype"].lstrip("<|") or list(want.shape) != c["shape"]:
            failures.append("%s: the manifest and its expect file disagree" % c["id"])
            continue
        why = same(got, want)
        if why:
            failures.append("%s: %s" % (c["id"], why))
    return len(cases)


def zarr_uses_blosc(c):
    """Whether a Zarr corpus case's array metadata names the blosc codec."""
    base = os.path.join(CORPUS, c["path"], c.get("array") or "")
    for name in (".zarray", "zarr.json"):
        p = os.path.join(base, name)
        if os.path.exists(p):
            return '"blosc"' in open(p).read()
    return False


# Block tasks at every size: the engine splits a blosc chunk's blocks over threads only when
# each share gets this many decoded bytes (256 KiB unless set), and the corpus's chunks are small.
SPLIT_ALL = {"TSR_CPU_PART_NBYTES": "1"}


def read_must_fail(path, args=(), want=()):
    """Runs `tessera read PATH ARGS`; None when it fails as bad input must (exit 1, one line
    naming the file and containing every string in want), else what went wrong."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [BIN, "read", path, "-o", os.path.join(tmp, "out.npy")] + list(args)
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            return "hung"
    msg = p.stderr.strip()
    if p.returncode != 1:
        return "exit %d (want 1): %s" % (p.returncode, msg)
    if "\n" in msg or not msg:
        return "message is not one line: %r" % msg
    for w in (os.path.basename(path),) + tuple(want):
        if w not in msg:
            return "message lacks %r: %s" % (w, msg)
    return None


def run_info(failures, *args):
    """`tessera info ARGS`: its standard output, or None with the failure noted when it does
    not exit 0."""
    p = subprocess.run([BIN, "info"] + list(args), capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        failures.append("%s: exit %d: %s" % (args, p.returncode, p.stderr.strip()))
        return None
    return p.stdout


def crc32c(data):
    """CRC-32C (Castagnoli), bit by bit: test stores write their own checksums with it."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def cli(*args, timeout=60):
    """`tessera ARGS`: the finished process (returncode; stdout and stderr as text)."""
    return subprocess.run([BIN] + list(args), capture_output=True, text=True, timeout=timeout)


class Checks:
    """Named checks, counted for report(): check(what, cond) notes what where cond is false."""

    def __init__(self):
        self.failures, self.total = [], 0

    def __call__(self, what, cond):
        self.total += 1
        if not cond:
            self.failures.append(what)

    def report(self):
        report(self.failures, self.total)


def report(failures, total):
    for f in failures:
        print("FAIL", f)
    print("%d of %d cases passed" % (total - len(failures), total))
    sys.exit(1 if failures else 0)
