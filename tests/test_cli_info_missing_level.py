"""test_cli_info_missing_level.py - `tessera info` of an OME-Zarr group one of whose levels has
no array says which: it said "3 levels (--level 0..2)" and listed two, with nothing about the
third. A whole group says nothing more."""
import json
import os
import shutil
import tempfile

from corpus_util import Checks, cli

check = Checks()


def array(d, n):
    os.makedirs(d)
    with open(os.path.join(d, ".zarray"), "w") as f:
        json.dump({"zarr_format": 2, "shape": [n], "chunks": [n], "dtype": "|u1",
                   "compressor": None, "fill_value": 0, "order": "C", "filters": None}, f)


with tempfile.TemporaryDirectory() as tmp:
    s = os.path.join(tmp, "ome.zarr")
    os.makedirs(s)
    with open(os.path.join(s, ".zgroup"), "w") as f:
        f.write('{"zarr_format": 2}')
    with open(os.path.join(s, ".zattrs"), "w") as f:
        json.dump({"multiscales": [{"version": "0.4", "axes": [{"name": "x"}], "datasets": [
            {"path": str(k), "coordinateTransformations": [{"type": "scale", "scale": [2.0 ** k]}]}
            for k in range(3)]}]}, f)
    for k in range(3):
        array(os.path.join(s, str(k)), 8 >> k)
    r = cli("info", s)
    line = next((x for x in r.stdout.splitlines() if "multiscale group:" in x), "")
    check("whole: %r" % line, r.returncode == 0 and line.endswith("(--level 0..2)"))
    shutil.rmtree(os.path.join(s, "1"))
    r = cli("info", s)
    line = next((x for x in r.stdout.splitlines() if "multiscale group:" in x), "")
    check("missing: %r" % line, line.endswith("(--level 0..2); no array for level 1"))
check.report()
