"""test_cli_info_wide_columns.py - `tessera info`'s table widens a column to its longest field
(a long array path, shape or codec), so every row's columns line up under the header's; a
field past the fixed width pushed the rest of its row right."""
import os
import tempfile

from corpus_util import Checks, cli

check = Checks()
with tempfile.TemporaryDirectory() as tmp:
    store = os.path.join(tmp, "w.zarr")
    os.makedirs(store)
    open(os.path.join(store, ".zgroup"), "w").write('{"zarr_format": 2}')
    names = ("a_rather_long_group/" * 3 + "cells", "short")
    shapes = ("[" + ", ".join(["10"] * 10) + "]", "[4]")  # "10x10x...": past 20 and 30
    for name, shape in zip(names, shapes):
        d = os.path.join(store, name)
        os.makedirs(d)
        for g in range(1, name.count("/") + 1):  # the groups on the way
            open(os.path.join(store, *name.split("/")[:g], ".zgroup"), "w").write(
                '{"zarr_format": 2}')
        open(os.path.join(d, ".zarray"), "w").write(
            '{"zarr_format": 2, "shape": %s, "chunks": %s, "dtype": "<i2", "compressor": null,'
            ' "fill_value": 0, "order": "C", "filters": null}' % (shape, shape))
    p = cli("info", store)
    lines = p.stdout.splitlines()
    head = [l for l in lines if l.startswith("array")]
    rows = [l for l in lines if "int16" in l]
    check("rc %d" % p.returncode, p.returncode == 0)
    check("a header and two rows:\n" + p.stdout, len(head) == 1 and len(rows) == 2)
    if len(head) == 1 and len(rows) == 2:
        for word in ("dtype", "stored", "shape", "layout", "codec", "stored bytes"):
            h = (head[0] + " ").index(" " + word + " ") + 1  # (each field starts under its word)
            at = [len(r) > h and r[h - 1] == " " and r[h] != " " for r in rows]
            check("%s at column %d in both rows:\n%s" % (word, h, p.stdout), all(at))
check.report()
