"""test_peer_fits_long_cards.py - a FITS header's long cards read as astropy reads them, through
tsr_array_metadata (`tessera info --attrs`) and `--header`: CONTINUE strings whose quotes reach
column 80 joined whole (their last column was cut, and the string before kept a stray byte),
HIERARCH keywords (ESO's convention) keyed by their words, a failed continuation keeping its
'&'. The corpus file astropy wrote, and cards written here by hand. (Under the PyPI astropy:
Debian's 5.2 drops the blank before a continued string's '&', where CFITSIO and astropy 8
keep it.)"""
import json
import os
import subprocess
import tempfile
import warnings

from astropy.io import fits as afits

BIN = os.environ.get("TSR_BIN", "build/tessera")
CORPUS = os.environ.get("TSR_CORPUS", "../shared/corpus")
failures = 0


def check(what, got, want):
    global failures
    if got != want:
        failures += 1
        print("FAIL %s:\n  got  %r\n  want %r" % (what, got, want))


def cards_of(path):
    out = subprocess.run([BIN, "info", path, "--hdu", "0", "--attrs", "--json"],
                         capture_output=True, text=True)
    doc = json.loads(out.stdout) if out.returncode == 0 else {}
    entries = [e for e in doc.get("entries", []) if "metadata" in e]
    meta = entries[0]["metadata"] if entries else {}
    return [(c["key"], c["value"], c["comment"]) for c in meta.get("header", [])]


def astropy_cards(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with afits.open(path) as hl:
            out = []
            for c in hl[0].header.cards:
                try:
                    commentary = c.keyword in ("COMMENT", "HISTORY", "")
                    out.append((c.keyword, None if commentary else c.value,
                                str(c.value) if commentary else c.comment))
                except afits.VerifyError:  # (a card astropy cannot parse: left out)
                    pass
            return out


def write(path, cards):
    text = "".join(c.ljust(80) for c in cards + ["END"])
    text += " " * (-len(text) % 2880)
    with open(path, "wb") as f:
        f.write(text.encode() + b"\0" * 2880)


corpus = os.path.join(CORPUS, "fits/u_long_header.fits")
check("the corpus file's cards", cards_of(corpus), astropy_cards(corpus))

with tempfile.TemporaryDirectory() as tmp:
    p = os.path.join(tmp, "long.fits")
    a, b = "x" * 67, "y" * 68
    write(p, ["SIMPLE  =                    T", "BITPIX  =                    8",
              "NAXIS   =                    1", "NAXIS1  =                    1",
              "EDGE    = '%s&'" % a,                  # quote at column 80
              "CONTINUE  '%s&'" % b[:67],              # this one's too
              "CONTINUE  'end' / the comment",
              "BROKEN  = 'first&'",
              "CONTINUE  'no closing quote",
              "HIERARCH ESO OBS ID = 12345 / an id",
              "HIERARCH ESO TEL AIRM START = 1.25",
              "HIERARCH = 'odd'"])
    got = {k: (v, c) for k, v, c in cards_of(p)}
    check("a string reaching column 80 on every card", got.get("EDGE"),
          (a + b[:67] + "end", "the comment"))
    check("a continuation that fails keeps its '&'", got.get("BROKEN"), ("first&", ""))
    check("HIERARCH integer", got.get("ESO OBS ID"), (12345, "an id"))
    check("HIERARCH real", got.get("ESO TEL AIRM START"), (1.25, ""))
    hdr = subprocess.run([BIN, "info", p, "--header"], capture_output=True, text=True).stdout
    check("--header writes HIERARCH cards", "HIERARCH ESO OBS ID = 12345 / an id" in hdr, True)
    check("the file's own cards, as astropy reads them",
          [c for c in cards_of(p) if c[0] in ("EDGE", "ESO OBS ID", "ESO TEL AIRM START")],
          [c for c in astropy_cards(p) if c[0] in ("EDGE", "ESO OBS ID", "ESO TEL AIRM START")])

if failures:
    raise SystemExit("%d check(s) failed" % failures)
print("ok")
