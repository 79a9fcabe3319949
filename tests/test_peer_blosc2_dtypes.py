"""test_peer_blosc2_dtypes.py - python-blosc2 (PyPI) writes fresh b2nd arrays of fixed-length
bytes and unicode strings (both byte orders), raw bytes, datetime64/timedelta64 and structured
dtypes (nested, subarray fields, elements over 16 bytes; some chunks all zeros or one repeated
value); tessera must read back what python-blosc2 reads, with its dtype in the NPY (datetimes
in native byte order, as all numbers). TSR_SEED picks another run."""
import os
import random
import shutil
import tempfile
import warnings

import numpy as np

from corpus_util import report, run_read, same

warnings.filterwarnings("ignore")
import blosc2  # noqa: E402

SEED = int(os.environ.get("TSR_SEED", "20261201"))
rng = random.Random(SEED)
nrng = np.random.default_rng(SEED)
tmp = tempfile.mkdtemp()

WORDS = ["", "a", "hé", "b2nd", "日本語", "tessera!"]


def words(n, width):
    return [rng.choice(WORDS)[:width] for _ in range(n)]


def arrays(n):
    st = np.dtype([("a", "<i4"), ("b", ">f8"), ("c", "S3"), ("d", "<U2", (2,)),
                   ("n", [("x", "<i2"), ("y", "|u1")])])
    s = np.zeros(n, dtype=st)
    s["a"] = nrng.integers(-99, 99, n)
    s["b"] = nrng.standard_normal(n)
    s["c"] = [w.encode("utf-8")[:3] for w in words(n, 3)]
    s["d"] = np.array(words(2 * n, 2)).reshape(n, 2)
    s["n"]["x"] = nrng.integers(-9, 9, n)
    out = [
        ("S7", np.array([w.encode("utf-8")[:7] for w in words(n, 7)], dtype="S7")),
        ("<U5", np.array(words(n, 5), dtype="<U5")),
        (">U3", np.array(words(n, 3), dtype=">U3")),
        ("V24", np.frombuffer(nrng.bytes(24 * n), dtype="V24").copy()),
        ("<M8[ns]", nrng.integers(-10 ** 18, 10 ** 18, n).astype("<M8[ns]")),
        (">M8[D]", nrng.integers(-10 ** 5, 10 ** 5, n).astype(">M8[D]")),
        ("<m8[us]", nrng.integers(-10 ** 9, 10 ** 9, n).astype("<m8[us]")),
        ("structured", s),
    ]
    for _, a in out:
        k = n // 3
        a[:k] = np.zeros(1, dtype=a.dtype)[0] if rng.random() < 0.5 else a[k]  # zero or repeated runs
    return out


def main():
    failures = []
    total = 0
    for rep in range(2):
        n = rng.randint(30, 400)
        for name, data in arrays(n):
            path = os.path.join(tmp, "%d_%s.b2nd" % (rep, name.replace("<", "l").replace(">", "b")))
            chunks = (rng.randint(4, max(5, n // 3)),)
            blocks = (rng.randint(1, chunks[0]),)
            blosc2.asarray(data, urlpath=path, mode="w", chunks=chunks, blocks=blocks,
                           cparams={"clevel": rng.choice([0, 1, 5])})
            want = blosc2.open(path)[:]
            if want.dtype.kind in "mM":
                want = want.astype(want.dtype.newbyteorder("=")).view("i8")
            total += 1
            desc = "%s n %d chunks %s blocks %s" % (name, n, chunks, blocks)
            got, rc, err = run_read(path)
            if rc:
                failures.append("%s: tessera failed: %s" % (desc, err.strip()))
                continue
            if got.dtype.kind in "mM":
                got = got.view("i8")  # NaT == NaT, bit for bit
            msg = same(got, want)
            if msg:
                failures.append("%s: %s" % (desc, msg))
    shutil.rmtree(tmp, ignore_errors=True)
    print("seed %d" % SEED)
    report(failures, total)


if __name__ == "__main__":
    main()
