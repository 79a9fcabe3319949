"""listing_scale.py - what a file of many HDUs and a consolidated store of many arrays cost to
list and describe: `tessera info`, `tessera.list_arrays` and every array's `attrs`, beside
astropy's `fits.info` / header reads and zarr-python's member listing and attrs, in one run on
the same files. A benchmark, not a test: it prints a table of seconds.

Usage: python bench/listing_scale.py [--hdus N] [--arrays N] [--dir DIR] [--bin build/tessera]
"""
import argparse
import io
import os
import subprocess
import tempfile
import time
import warnings

import numpy as np

import tessera


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hdus", type=int, default=2000)
    ap.add_argument("--arrays", type=int, default=2000)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", "build", "tessera"))
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    from astropy.io import fits
    import zarr

    d = a.dir or tempfile.mkdtemp()
    os.makedirs(d, exist_ok=True)
    fpath = os.path.join(d, "many_hdus.fits")
    if not os.path.exists(fpath):
        hdus = [fits.PrimaryHDU()] + [fits.ImageHDU(np.zeros((4, 4), "i2"), name="E%d" % i)
                                      for i in range(a.hdus)]
        fits.HDUList(hdus).writeto(fpath)
    zpath = os.path.join(d, "many_arrays.zarr")
    if not os.path.exists(zpath):
        g = zarr.open_group(zpath, mode="w", zarr_format=2)
        for i in range(a.arrays):
            g.create_array("a%05d" % i, shape=(4,), dtype="i4").attrs["i"] = i
        zarr.consolidate_metadata(zpath)

    rows = []

    def cli():
        subprocess.run([a.bin, "info", fpath], check=True, stdout=subprocess.DEVNULL)
    rows.append(("FITS, %d HDUs" % (a.hdus + 1), "tessera info", timed(cli)))
    rows.append(("", "tessera.list_arrays", timed(lambda: tessera.list_arrays(fpath))))

    def tsr_headers():
        for e in tessera.list_arrays(fpath):
            if e["kind"] == "array":
                with tessera.open(fpath, hdu=e["hdu"]) as x:
                    x.attrs
    rows.append(("", "tessera: every HDU's attrs (open by index)", timed(tsr_headers)))

    def tsr_iter():
        for x in tessera.iter_arrays(fpath):
            x.attrs
    rows.append(("", "tessera: every HDU's attrs (iter_arrays)", timed(tsr_iter)))
    rows.append(("", "astropy fits.info", timed(lambda: fits.info(fpath, output=io.StringIO()))))

    def astropy_headers():
        with fits.open(fpath) as h:
            for x in h:
                dict(x.header)
    rows.append(("", "astropy: every HDU's header", timed(astropy_headers)))

    def zcli():
        subprocess.run([a.bin, "info", zpath], check=True, stdout=subprocess.DEVNULL)
    rows.append(("Zarr v2 consolidated, %d arrays" % a.arrays, "tessera info", timed(zcli)))
    rows.append(("", "tessera.list_arrays", timed(lambda: tessera.list_arrays(zpath))))

    def tsr_attrs():
        for e in tessera.list_arrays(zpath):
            with tessera.open(zpath, array=e["array"]) as x:
                x.attrs
    rows.append(("", "tessera: every array's attrs", timed(tsr_attrs)))

    def zarr_attrs():
        g = zarr.open_group(zpath, mode="r")
        for _, v in g.members():
            dict(v.attrs)
    rows.append(("", "zarr-python: members and attrs", timed(zarr_attrs)))

    print("| files | what | seconds |")
    print("|---|---|---:|")
    for f, w, s in rows:
        print("| %s | %s | %.3f |" % (f, w, s))


if __name__ == "__main__":
    main()
