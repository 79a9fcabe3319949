"""test_cli_info_level.py - `tessera info STORE --array GROUP --level K` lists that one level of
an OME-Zarr multiscale group (the root's without --array), as `tessera read` takes the same
options; a level the group lacks exits 1 saying so. info had no --level ("unexpected
argument"). Level 0 of what is no multiscale group (a plain array, a FITS file, a frame) is
the array itself, as read takes it; a level past that is refused saying what the path is."""
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
    check("level 3: %s" % p.stderr, "no level 3 of multiscale group 'img' (it has 3 levels)"
          in p.stderr)
    plain = os.path.join(tmp, "plain.zarr")
    array(plain, [3, 5])
    for args in ([], ["--array", "/"]):
        r0 = info(plain, "--json", "--level", "0", *args)
        doc = json.loads(r0.stdout) if r0.returncode == 0 else {}
        got = [(e["name"], e["shape"]) for e in doc.get("entries", [])]
        check("plain --level 0 %s: %s" % (args, got or r0.stderr), got == [("", [3, 5])])
        rd = cli("read", plain, "--level", "0", "-o", os.path.join(tmp, "p.npy"), *args)
        check("plain read --level 0 %s: rc %d" % (args, rd.returncode), rd.returncode == 0)
    r1 = info(plain, "--level", "1")
    check("plain --level 1: rc %d %s" % (r1.returncode, r1.stderr), r1.returncode == 1 and
          "level 1: the store's root is not an OME-Zarr multiscale group" in r1.stderr)
    f = os.path.join(os.environ.get("TSR_CORPUS", ""), "fits", "c_cube_3d.fits")
    check("corpus file %s" % f, os.path.exists(f))
    if os.path.exists(f):
        r0 = info(f, "--json", "--level", "0", "--hdu", "1")
        doc = json.loads(r0.stdout) if r0.returncode == 0 else {}
        check("FITS --level 0 --hdu 1: %s" % (r0.stderr or [e["hdu"] for e in doc["entries"]]),
              [e["hdu"] for e in doc.get("entries", [])] == [1])
        r2 = info(f, "--level", "2")
        check("FITS --level 2: rc %d %s" % (r2.returncode, r2.stderr), r2.returncode == 1 and
              "a FITS file is not an OME-Zarr multiscale group" in r2.stderr)
    p = info(s, "--level", "x")
    check("level x: rc %d" % p.returncode, p.returncode == 2)

check.report()
