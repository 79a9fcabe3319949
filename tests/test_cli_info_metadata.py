"""test_cli_info_metadata.py - tsr_array_metadata through `tessera info --attrs` / `--header`:
a FITS header's cards come out in order with astropy's keys, values and comments (long strings
joined across CONTINUE, WCS keywords, integers beyond 2^53, COMMENT/HISTORY); the text view
shows EXTNAME, BSCALE/BZERO, BLANK and whether a tile-compressed image is quantized (lossy,
with its dither); a Zarr array gives its attributes, dimension names and fill value (v2 and v3,
written here by hand)."""
import json
import os
import tempfile
import warnings

import numpy as np
from astropy.io import fits as afits

from corpus_util import report, run_info

warnings.simplefilter("ignore")
failures = []
total = 0


def run(*args):
    return run_info(failures, *args)


def check(what, got, want):
    global total
    total += 1
    if got != want:
        failures.append("%s: got %r, want %r" % (what, got, want))


with tempfile.TemporaryDirectory() as tmp:
    # ---- FITS: cards as astropy reads them ----
    path = os.path.join(tmp, "cards.fits")
    hdu = afits.ImageHDU(np.arange(600, dtype=">i2").reshape(20, 30), name="SCI")
    h = hdu.header
    h["EXTVER"] = 2
    h["OBJECT"] = ("it's M31", "a quote inside")
    h["LONGSTR"] = "a string longer than one card can hold, " * 4
    h["FLAG"] = (True, "a logical")
    h["BIGINT"] = 2 ** 60 + 1
    h["EXPTIME"] = (12.5, "[s] exposure")
    h["CTYPE1"], h["CRPIX1"], h["CRVAL1"], h["CDELT1"] = "RA---TAN", 15.5, 10.684, -2.7e-4
    h["CTYPE2"], h["CRPIX2"], h["CRVAL2"], h["CDELT2"] = "DEC--TAN", 10.0, 41.269, 2.7e-4
    h["BSCALE"], h["BZERO"], h["BLANK"] = 2.0, 100.0, -32768
    h.add_comment("a comment card")
    h.add_history("made by test_cli_info_metadata")
    afits.HDUList([afits.PrimaryHDU(), hdu]).writeto(path)
    out = run(path, "--hdu", "1", "--attrs")
    meta = json.loads(out) if out else {}
    with afits.open(path, do_not_scale_image_data=True) as hl:
        want = []
        for c in hl[1].header.cards:
            if c.keyword in ("COMMENT", "HISTORY", ""):
                want.append((c.keyword, None, str(c.value)))
            else:
                want.append((c.keyword, c.value, c.comment))
    got = [(c["key"], c["value"], c["comment"]) for c in meta.get("header", [])]
    check("FITS cards", got, want)
    check("FITS keywords", [meta.get(k) for k in ("extname", "extver", "bscale", "bzero", "blank")],
          ["SCI", 2, 2.0, 100.0, -32768])
    text = run(path) or ""
    row = [l for l in text.splitlines() if l.startswith("1 ")]
    check("text row names EXTNAME", bool(row) and " SCI " in row[0], True)
    check("text shows scaling", all(s in text for s in ("BSCALE 2", "BZERO 100", "BLANK -32768",
                                                        "EXTVER 2")), True)
    hdr = run(path, "--hdu", "1", "--header") or ""
    check("--header shows the WCS card", any(l.startswith("CTYPE1  = 'RA---TAN'")
                                             for l in hdr.splitlines()), True)

    # ---- tile-compressed: lossy quantized floats, and a lossless integer image ----
    comp = os.path.join(tmp, "comp.fits")
    rng = np.random.default_rng(7)
    f32 = afits.CompImageHDU(rng.normal(size=(64, 64)).astype("f4"), name="FLOATS",
                             compression_type="RICE_1", quantize_level=16,
                             quantize_method=1, dither_seed=77)
    i16 = afits.CompImageHDU(np.arange(4096, dtype="i2").reshape(64, 64), name="INTS",
                             compression_type="GZIP_2")
    afits.HDUList([afits.PrimaryHDU(), f32, i16]).writeto(comp)
    j = json.loads(run(comp, "--json") or "{}")
    z = {e["name"]: e["compression"] for e in j.get("entries", []) if e["kind"] == "array"}
    check("quantized floats", z.get("FLOATS"),
          {"zcmptype": "RICE_1", "zbitpix": -32, "tile_shape": [1, 64],
           "quantize": "SUBTRACTIVE_DITHER_1", "dither_seed": 77, "lossy": True})
    check("integers", z.get("INTS"),
          {"zcmptype": "GZIP_2", "zbitpix": 16, "tile_shape": [1, 64], "quantize": None,
           "dither_seed": None, "lossy": False})
    text = run(comp) or ""
    check("text says lossy", "LOSSY: quantized (ZQUANTIZ SUBTRACTIVE_DITHER_1, ZDITHER0 77)" in text,
          True)

    # ---- Zarr v2 and v3: attributes, dimension names, fill value ----
    attrs = {"units": "K", "nested": {"list": [1, 2.5, None, "x"]}, "_ARRAY_DIMENSIONS": ["y", "x"]}
    v2 = os.path.join(tmp, "v2.zarr")
    os.mkdir(v2)
    json.dump({"zarr_format": 2, "shape": [4, 6], "chunks": [2, 3], "dtype": "<i4",
               "compressor": None, "fill_value": -9, "order": "C", "filters": None},
              open(os.path.join(v2, ".zarray"), "w"))
    json.dump(attrs, open(os.path.join(v2, ".zattrs"), "w"))
    np.arange(6, dtype="<i4").tofile(os.path.join(v2, "0.0"))
    m = json.loads(run(v2, "--attrs") or "{}")
    check("v2 metadata", [m.get(k) for k in ("zarr_format", "fill_value", "dimension_names",
                                             "attributes", "stored_nbytes")],
          [2, -9, ["y", "x"], attrs, 24])
    v3 = os.path.join(tmp, "v3.zarr")
    os.mkdir(v3)
    json.dump({"zarr_format": 3, "node_type": "array", "shape": [4, 6], "data_type": "float32",
               "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3]}},
               "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN",
               "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
               "dimension_names": ["lat", None], "attributes": {"title": "v3 array"}},
              open(os.path.join(v3, "zarr.json"), "w"))
    m = json.loads(run(v3, "--attrs") or "{}")
    check("v3 metadata", [m.get(k) for k in ("zarr_format", "fill_value", "dimension_names",
                                             "attributes", "stored_nbytes")],
          [3, "NaN", ["lat", None], {"title": "v3 array"}, 0])
    text = run(v3) or ""
    check("text shows the fill value", 'fill value "NaN"' in text and
          'dimensions ["lat",null]' in text, True)

report(failures, total)
