"""test_cli_info_packed.py - `tessera info` (tsr_list, tsr_listing_metadata, tsr_array_metadata)
describes a FITS file compressed whole (.fits.gz, .fits.bz2) exactly as it describes the file
itself: the same HDUs, names, shapes, layouts and header cards."""
import bz2
import gzip
import json
import os
import subprocess
import tempfile

from corpus_util import BIN, CORPUS, report

failures = []
total = 0


def info(path, *args):
    p = subprocess.run([BIN, "info", path, "--json"] + list(args), capture_output=True,
                       text=True, timeout=60)
    if p.returncode != 0:
        failures.append("%s %s: exit %d: %s" % (path, args, p.returncode, p.stderr.strip()))
        return None
    doc = json.loads(p.stdout)
    doc.pop("path")
    for e in doc["entries"]:
        if "metadata" in e:
            e["metadata"].pop("path", None)
    return doc


with tempfile.TemporaryDirectory() as tmp:
    for name in ("u_multi_hdu.fits", "fp_multi.fits.fz", "u_scaled_blank.fits"):
        src = os.path.join(CORPUS, "fits", name)
        raw = open(src, "rb").read()
        for ext, pack in ((".gz", gzip.compress), (".bz2", bz2.compress)):
            dst = os.path.join(tmp, name + ext)
            with open(dst, "wb") as f:
                f.write(pack(raw))
            for args in ((), ("--header",)):
                total += 1
                want, got = info(src, *args), info(dst, *args)
                if want is None or got != want:
                    failures.append("%s%s %s: differs from the file itself:\n%r\n%r" % (
                        name, ext, args, got, want))

report(failures, total)
