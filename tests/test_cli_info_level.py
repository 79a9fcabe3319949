"""test_cli_info_level.py - `tessera info STORE --array GROUP --level K` lists that one level of
an OME-Zarr multiscale group (the root's without --array), as `tessera read` takes the same
options; a level the group lacks exits 1 saying so. info had no --level ("unexpected
argument")."""
import json
import os
import tempfile

from corpus_util import Checks, cli

check = Checks()


def info(*args):
    return cli("info", *args)


def array(d, shape):
    os.makedirs(d)
    open(os.path.join(d, ".zarray"), "w").write(json.dumps(
        {"zarr_format": 2, "shape": shape, "chunks": shape, "dtype": "|u1", "compressor": None,
         "fill_value": 0, "order": "C", "filters": None}))


with tempfile.TemporaryDirectory() as tmp:
    s = os.path.join(tmp, "ms.zarr")
    for g in ("", "img"):
        os.makedirs(os.path.join(s, g), exist_ok=True)
        open(os.path.join(s, g, ".zgroup"), "w").write('{"zarr_format": 2}')
        for lv in range(3):
            array(os.path.join(s, g, "L%d" % lv), [8 >> lv, 8 >> lv])
        ms = [{"version": "0.4", "axes": [{"name": "y"}, {"name": "x"}],
               "datasets": [{"path": "L%d" % lv, "coordinateTransformations":
                             [{"type": "scale", "scale": [2.0 ** lv] * 2}]} for lv in range(3)]}]
        open(os.path.join(s, g, ".zattrs"), "w").write(json.dumps({"multiscales": ms}))
    for args, name, shape in ((["--array", "img", "--level", "1"], "img/L1", [4, 4]),
                              (["--level=2"], "L2", [2, 2])):
        p = info(s, "--json", *args)
        doc = json.loads(p.stdout) if p.returncode == 0 else {}
        got = [(e["name"], e["shape"]) for e in doc.get("entries", [])]
        check("%s: %s" % (args, got or p.stderr), got == [(name, shape)])
    p = info(s, "--array", "img", "--level", "3")
    check("level 3: rc %d" % p.returncode, p.returncode == 1)
    check("level 3: %s" % p.stderr, "no level 3 of a multiscale group 'img'" in p.stderr)
    p = info(s, "--level", "x")
    check("level x: rc %d" % p.returncode, p.returncode == 2)

check.report()
