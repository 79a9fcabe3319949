"""test_cli_info_json.py - `tessera info --json` gives one document schema for FITS (plain and
tile-compressed), Zarr v2, Zarr v3 (sharded) and Blosc2, with the real storage layout: an
uncompressed FITS image is contiguous (no chunk shape; rows per read no more than it has), tiles
and chunks are the file's own, and every key it prints is documented in docs/info-json.md."""
import json
import os
import re
import subprocess
import tempfile

import numpy as np
from astropy.io import fits as afits

from corpus_util import BIN, CORPUS, report

SRC = os.environ.get("TSR_SRC", os.path.join(os.path.dirname(__file__), ".."))
failures = []
total = 0
DOC = open(os.path.join(SRC, "docs", "info-json.md")).read()
documented = set(re.findall(r"`([a-z_]+)`", DOC))
COMMON = {"kind", "hdu", "name", "dtype", "stored_dtype", "dtype_source", "shape", "nchunks", "codec", "reader",
          "scaled", "stored_nbytes", "layout"}


def info(path):
    p = subprocess.run([BIN, "info", path, "--json"], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        failures.append("%s: exit %d: %s" % (path, p.returncode, p.stderr.strip()))
        return None
    return json.loads(p.stdout)


def keys(o, out):
    if isinstance(o, dict):
        for k, v in o.items():
            out.add(k)
            keys(v, out)
    elif isinstance(o, list):
        for v in o:
            keys(v, out)


def check_doc(path, fmt):
    """The document and its first array entry; checks what every format shares."""
    global total
    total += 1
    doc = info(path)
    if doc is None:
        return None
    if set(doc) != {"path", "format", "count", "entries"} or doc["format"] != fmt or \
            doc["count"] != len(doc["entries"]):
        failures.append("%s: top level %r (format %r)" % (path, sorted(doc), doc.get("format")))
        return None
    arrays = [e for e in doc["entries"] if e["kind"] == "array"]
    if not arrays:
        failures.append("%s: no array entry" % path)
        return None
    missing = COMMON - set(arrays[0])
    if missing:
        failures.append("%s: entry lacks %s" % (path, sorted(missing)))
    seen = set()
    keys(doc, seen)
    # documented: every key of the schema (JSON of the file's own metadata, under
    # "metadata", "attributes" and OME "axes", is the file's, not ours)
    undocumented = seen - documented
    if undocumented:
        failures.append("%s: keys not in docs/info-json.md: %s" % (path, sorted(undocumented)))
    return arrays[0]


with tempfile.TemporaryDirectory() as tmp:
    # A small uncompressed image: contiguous, read whole in one block.
    small = os.path.join(tmp, "small.fits")
    afits.PrimaryHDU(np.arange(3000, dtype=">f8").reshape(50, 60)).writeto(small)
    e = check_doc(small, "fits")
    total += 1
    if e and (e["layout"] != {"kind": "contiguous", "chunk_shape": None, "rows_per_read": 50}
              or e["shape"] != [50, 60] or e["compression"] is not None):
        failures.append("uncompressed 50x60: %r" % e)

    # Tile-compressed: the tile shape of the file (ZTILEn, reversed into C order).
    comp = os.path.join(CORPUS, "fits", "c_rice_f32_sd1.fits")
    e = check_doc(comp, "fits")
    with afits.open(comp) as hl:
        h = hl[1]._header
        tiles = [h["ZTILE%d" % i] for i in range(h["ZNAXIS"], 0, -1)]
    total += 1
    if e and (e["layout"] != {"kind": "tiles", "chunk_shape": tiles} or not e["compressed"]
              or e["compression"]["lossy"] is not True):
        failures.append("tile-compressed: %r, want tiles %r" % (e, tiles))

    # Zarr v2 and v3 (sharded): chunks (and shards) as the metadata gives them; stored bytes
    # as the chunk files add up.
    for path, fmtv in ((os.path.join(CORPUS, "zarr2", "zstd_i32_3d.zarr"), 2),
                       (os.path.join(CORPUS, "zarr3", "shard_sparse_i2.zarr"), 3)):
        e = check_doc(path, "zarr")
        stored = 0
        for root, _, files in os.walk(path):
            stored += sum(os.path.getsize(os.path.join(root, f)) for f in files
                          if f not in (".zarray", ".zattrs", ".zgroup", "zarr.json"))
        total += 1
        if fmtv == 2:
            meta = json.load(open(os.path.join(path, ".zarray")))
            want = {"kind": "chunks", "chunk_shape": meta["chunks"], "shard_shape": None}
        else:
            meta = json.load(open(os.path.join(path, "zarr.json")))
            shard = meta["chunk_grid"]["configuration"]["chunk_shape"]
            inner = [c for c in meta["codecs"] if c["name"] == "sharding_indexed"][0]
            want = {"kind": "chunks", "chunk_shape": inner["configuration"]["chunk_shape"],
                    "shard_shape": shard}
        if e and (e["layout"] != want or e["stored_nbytes"] != stored or
                  e["zarr_format"] != fmtv or e["hdu"] is not None):
            failures.append("%s: %r, want layout %r, %d stored bytes" % (path, e, want, stored))

    e = check_doc(os.path.join(CORPUS, "blosc2", "blosclz_shuffle_f4_2d.b2nd"), "blosc2")
    total += 1
    if e and (e["layout"]["kind"] != "chunks" or e["hdu"] is not None or e["shape"] != [100, 130]):
        failures.append("blosc2: %r" % e)

report(failures, total)
