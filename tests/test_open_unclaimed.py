"""test_open_unclaimed.py - a file that no format claims is refused with a message saying what
tessera reads (FITS, Blosc2 frames, Zarr stores), and a path to a Zarr store's metadata file
(zarr.json, .zarray, .zgroup, .zattrs, .zmetadata) names the folder to open instead; a FITS file
and a gzipped one are still claimed by the FITS driver whatever their names."""
import gzip
import os
import subprocess
import tempfile

from corpus_util import BIN, report

failures = []
total = 0


def expect(what, path, holds, rc=1):
    global total
    total += 1
    try:
        p = subprocess.run([BIN, "info", path], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        failures.append("%s: still running after 60 s" % what)
        return
    if p.returncode != rc:
        failures.append("%s: exit %d, want %d (stderr %r)" % (what, p.returncode, rc,
                                                             p.stderr.strip()))
        return
    lacks = [h for h in holds if h not in p.stderr]
    if lacks:
        failures.append("%s: stderr %r lacks %r" % (what, p.stderr.strip(), lacks))


def card(key, value):
    return ("%-8s= %20s" % (key, value)).ljust(80).encode()


with tempfile.TemporaryDirectory() as tmp:
    npy = os.path.join(tmp, "a.npy")
    with open(npy, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + b"x" * 4000)
    expect("a .npy file", npy, [npy + ": not a file tessera reads", "not a FITS file",
                                "Blosc2 frame", "Zarr store"])
    short = os.path.join(tmp, "two")
    with open(short, "wb") as f:
        f.write(b"ab")
    expect("a 2-byte file", short, [short + ": not a file tessera reads"])

    store = os.path.join(tmp, "s.zarr")
    os.makedirs(os.path.join(store, "g", "arr"))
    for rel in ("zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata",
                os.path.join("g", "arr", "zarr.json")):
        meta = os.path.join(store, rel)
        with open(meta, "w") as f:
            f.write("{}")
        folder = os.path.dirname(meta)
        expect("metadata file " + rel, meta,
               [meta + ": a Zarr metadata file, not an array",
                "open the folder it describes, " + folder])
    cwd = os.getcwd()
    os.chdir(store)
    try:
        expect("a bare zarr.json", "zarr.json", ["open the folder it describes, ."])
    finally:
        os.chdir(cwd)

    # a file named like no format that starts as FITS does is still FITS, gzipped too
    hdr = card("SIMPLE", "T") + card("BITPIX", "8") + card("NAXIS", "1") + \
        card("NAXIS1", "4") + b"END".ljust(80)
    body = hdr.ljust(2880) + b"\x01\x02\x03\x04".ljust(2880, b"\0")
    plain = os.path.join(tmp, "image.dat")
    with open(plain, "wb") as f:
        f.write(body)
    expect("FITS under another name", plain, [], rc=0)
    gz = os.path.join(tmp, "image.zarray")
    with open(gz, "wb") as f:
        f.write(gzip.compress(body))
    expect("gzipped FITS", gz, [], rc=0)
    # a FITS file whose first card is damaged: no driver claims it, and the message says so
    bad = os.path.join(tmp, "bad.fits")
    with open(bad, "wb") as f:
        f.write(b"SIMPLX" + body[6:])
    expect("damaged first card", bad, [bad + ": not a file tessera reads",
                                       "does not start with SIMPLE"])

report(failures, total)
