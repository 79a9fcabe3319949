#!/usr/bin/env python3
"""store_seeds.py - packs the multi-file stores of the corpus (Zarr v2/v3 stores, sparse
Blosc2 frames) and of tests/data-errors into the record form of store_archive.h, one seed per
store, each followed by a tail of section bytes. Usage: store_seeds.py OUT_DIR CORPUS SRC_TOP"""
import hashlib
import os
import struct
import sys

out, corpus, top = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
LIMIT = 200 * 1024  # the fuzz runs use -max_len=262144


def singles():
    """Small FITS files and contiguous frames: the sections target reads them too."""
    for sub, exts in (("fits", (".fits", ".fz")), ("blosc2", (".b2nd", ".b2frame"))):
        d = os.path.join(corpus, sub)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            p = os.path.join(d, name)
            if name.endswith(exts) and os.path.isfile(p) and os.path.getsize(p) <= 64 * 1024:
                yield p


def stores():
    for sub in ("zarr2", "zarr3", "blosc2"):
        d = os.path.join(corpus, sub)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if os.path.isdir(os.path.join(d, name)):
                yield os.path.join(d, name)
    d = os.path.join(top, "tests", "data-errors")
    for name in sorted(os.listdir(d)):
        if os.path.isdir(os.path.join(d, name)) and name != "__pycache__":
            yield os.path.join(d, name)


for root in list(stores()) + list(singles()):
    files = [] if os.path.isdir(root) else [(os.path.basename(root), root)]
    for dp, dns, fns in os.walk(root):
        dns.sort()
        for fn in sorted(fns):
            rel = os.path.relpath(os.path.join(dp, fn), root)
            files.append((rel, os.path.join(dp, fn)))
    # metadata first, so a store cut at LIMIT keeps what describes it
    files.sort(key=lambda f: (not (f[0].endswith("json") or f[0].startswith(".z") or
                                   "/.z" in f[0] or f[0].endswith(".b2frame")), f[0]))
    blob = bytearray()
    for rel, path in files[:60]:
        data = open(path, "rb").read()
        rec = bytes([len(rel)]) + rel.encode() + struct.pack("<I", len(data)) + data
        if len(rel) > 255 or len(blob) + len(rec) > LIMIT:
            continue
        blob += rec
    blob += b"\0"
    blob += hashlib.sha256(root.encode()).digest()[:1]
    # sections: per section a threads byte and 4 bytes per axis (up to 4 axes given)
    h = hashlib.sha256(b"sections" + root.encode()).digest()
    blob += h + h
    name = os.path.basename(os.path.dirname(root)) + "_" + os.path.basename(root)
    with open(os.path.join(out, name), "wb") as f:
        f.write(blob)
