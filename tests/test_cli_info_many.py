"""test_cli_info_many.py - `tessera info` takes several paths (a shell's `*.fits`): each one's
listing in turn, as one run of each would print it; with --json a list of their documents in
the order given, a path that does not list as {"path", "error"} there; exit 1 when any fails.
It took one path ("unexpected argument")."""
import json
import os
import tempfile

import numpy as np
from astropy.io import fits as afits

from corpus_util import Checks, cli

check = Checks()


def info(*args):
    return cli("info", *args)


with tempfile.TemporaryDirectory() as tmp:
    paths = []
    for i in range(3):
        p = os.path.join(tmp, "f%d.fits" % i)
        afits.PrimaryHDU(np.zeros((2 + i, 3), "i2")).writeto(p)
        paths.append(p)
    each = "\n".join(info(p).stdout for p in paths)
    together = info(*paths)
    check("text: rc %d" % together.returncode, together.returncode == 0)
    check("text: each listing in turn", together.stdout == each)

    docs = json.loads(info("--json", *paths).stdout)
    check("json: a list of 3", isinstance(docs, list) and len(docs) == 3)
    check("json: each as alone", docs == [json.loads(info("--json", p).stdout) for p in paths])

    missing = os.path.join(tmp, "none.fits")
    p = info("--json", paths[0], missing, paths[1])
    check("missing: rc %d" % p.returncode, p.returncode == 1)
    docs = json.loads(p.stdout)
    check("missing: its place", [d["path"] for d in docs] == [paths[0], missing, paths[1]])
    check("missing: its error", "error" in docs[1] and "none.fits" in docs[1]["error"])
    check("missing: on stderr", "none.fits" in p.stderr)
    check("missing: the others listed", docs[2]["entries"][0]["shape"] == [3, 3])

check.report()
