"""test_first_chunk_error.py - a multi-threaded read of an array with several bad chunks reports
the first failing chunk in C order, every time: chunk 0.0, whose stream decodes whole before
its checksum fails, and not chunks 3.0-7.0, which are garbage and fail at once on the other
threads (issue 20 item 4: the same input must always give the same message); also when the
section runs backwards (a negative step takes the chunks in descending order), on 1 and 4
threads."""
import json
import os
import subprocess
import tempfile
import zlib

import numpy as np

from corpus_util import BIN, report

failures = []
total = 0
ROWS, COLS, NCHUNKS = 512, 1024, 8

with tempfile.TemporaryDirectory() as tmp:
    store = os.path.join(tmp, "bad.zarr")
    os.mkdir(store)
    with open(os.path.join(store, ".zarray"), "w") as f:
        json.dump({"zarr_format": 2, "shape": [ROWS * NCHUNKS, COLS], "chunks": [ROWS, COLS],
                   "dtype": "<f8", "compressor": {"id": "zlib", "level": 1},
                   "fill_value": 0.0, "order": "C", "filters": None}, f)
    data = np.arange(ROWS * COLS, dtype="<f8").tobytes()
    good = zlib.compress(data, 1)
    # chunk 0.0: a whole, valid DEFLATE stream with its Adler-32 trailer flipped
    first = good[:-1] + bytes([good[-1] ^ 0xFF])
    for c in range(NCHUNKS):
        blob = first if c == 0 else good if c < 3 else b"\x00garbage"
        with open(os.path.join(store, "%d.0" % c), "wb") as f:
            f.write(blob)
    out = os.path.join(tmp, "out.npy")
    named = {}
    for i in range(24):
        total += 1
        args = ["--threads", "1" if i % 6 == 5 else "4"]
        if i % 3 == 2:
            args += ["--section", "::-1"]  # the chunks in descending order
        p = subprocess.run([BIN, "read", store, "-o", out] + args,
                           capture_output=True, text=True, timeout=120)
        msg = p.stderr.strip()
        if p.returncode != 1:
            failures.append("run %d: exit %d, want 1: %r" % (i, p.returncode, msg))
            continue
        key = "chunk 0.0:" if "chunk 0.0:" in msg else msg
        named[key] = named.get(key, 0) + 1
    if list(named) != ["chunk 0.0:"]:
        failures.append("messages named other chunks than 0.0: %r" % named)

report(failures, total)
