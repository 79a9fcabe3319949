"""test_cli_info_count.py - `tessera info PATH --hdu N` (or --array NAME) titles the listing
with what PATH holds, not with what the option kept: a two-HDU file shown at --hdu 1 was "1
HDU". The JSON document's "count" gives the same number."""
import json
import os
import tempfile

import numpy as np
from astropy.io import fits

from corpus_util import Checks, cli

check = Checks()

with tempfile.TemporaryDirectory() as tmp:
    p = os.path.join(tmp, "three.fits")
    fits.HDUList([fits.PrimaryHDU(), fits.ImageHDU(np.zeros((2, 3), np.int16), name="A"),
                  fits.ImageHDU(np.ones(4, np.float32), name="B")]).writeto(p)
    for args in ([], ["--hdu", "1"], ["--hdu", "B"]):
        r = cli("info", p, *args)
        title = r.stdout.splitlines()[0] if r.stdout else r.stderr
        check("%s: %s" % (args, title), r.returncode == 0 and title.endswith("(FITS file, 3 HDUs)"))
        r = cli("info", p, "--json", *args)
        doc = json.loads(r.stdout) if r.returncode == 0 else {}
        kept = 3 if not args else 1
        check("%s json: count %s, %d entries" % (args, doc.get("count"), len(doc.get("entries", []))),
              doc.get("count") == 3 and len(doc.get("entries", [])) == kept)

check.report()
