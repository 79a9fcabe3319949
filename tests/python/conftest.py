"""conftest.py - what the Python module's tests share: the corpus, its manifests, exact
comparison, and sections written as the CLI writes them turned into Python keys."""
import json
import os
import sys

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


@pytest.fixture(scope="session")
def corpus():
    return CORPUS
