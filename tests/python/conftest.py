"""conftest.py - what the Python module's tests share: the corpus, its manifests, exact
comparison, sections written as the CLI writes them turned into Python keys, zlib Zarr v2
stores written by hand, and the process's resident set."""
import json
import os
import sys
import zlib

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import corpus_util  # noqa: E402

CORPUS = os.path.abspath(corpus_util.CORPUS)
MANIFESTS = ["manifest-fits.json", "manifest-zarr2.json", "manifest-zarr3.json",
             "manifest-blosc2.json"]
same = corpus_util.same


def corpus_cases():
    out = []
    for m in MANIFESTS:
        for c in json.load(open(os.path.join(CORPUS, m))):
            out.append(c)
    return out


def file_dtype(case):
    """A plain Blosc2 super-chunk stores no dtype: the caller names the one its writer used."""
    plain = case.get("format") == "blosc2" and "plain super-chunk" in case.get("notes", "")
    return case["dtype"] if plain else None


def section_key(text):
    """'1:19:4,-5,...,None' -> (slice(1, 19, 4), -5, Ellipsis, None): the Python key of a
    section in the CLI's syntax, so the corpus goes through the Python key translation."""
    if text is None:
        return None
    items = []
    for part in text.split(","):
        part = part.strip()
        if part == "...":
            items.append(Ellipsis)
        elif part == "None":
            items.append(None)
        elif ":" in part:
            bits = [int(b) if b.strip() else None for b in part.split(":")]
            items.append(slice(*bits))
        else:
            items.append(int(part))
    return tuple(items)


def write_zlib_zarr2(path, a, rows, cut=None):
    """A Zarr v2 store of a (C order, its dtype) in chunks of `rows` whole rows, each a zlib
    stream; chunk number `cut`'s stream cut to half its length (a corrupt chunk)."""
    os.makedirs(path)
    chunks = [rows] + list(a.shape[1:])
    with open(os.path.join(path, ".zarray"), "w") as f:
        json.dump({"zarr_format": 2, "shape": list(a.shape), "chunks": chunks,
                   "dtype": a.dtype.str, "compressor": {"id": "zlib", "level": 1},
                   "fill_value": 0, "order": "C", "filters": None}, f)
    for i in range(a.shape[0] // rows):
        z = zlib.compress(a[i * rows:(i + 1) * rows].tobytes(), 1)
        key = ".".join([str(i)] + ["0"] * (a.ndim - 1))
        with open(os.path.join(path, key), "wb") as f:
            f.write(z[:len(z) // 2] if i == cut else z)


def rss_kib():
    """The process's resident set (VmRSS), KiB; the test skips where /proc has no status."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    pytest.skip("no /proc/self/status")


@pytest.fixture(scope="session")
def corpus():
    return CORPUS
