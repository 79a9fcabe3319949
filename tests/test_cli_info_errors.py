"""test_cli_info_errors.py - `tessera info` stops with a message on standard error and a non-zero
exit when the path, or what --hdu / --array ask for, is not there or cannot be read (text and
--json alike): a missing path, an HDU or array that does not exist, a bad --hdu value, an
array of a store that cannot be opened. It never lists forever, and never reports what it was
not asked (a group that is not multiscale reported as a multiscale level)."""
import json
import os
import re
import subprocess
import tempfile

from corpus_util import BIN, CORPUS, report

SRC = os.environ.get("TSR_SRC", os.path.join(os.path.dirname(__file__), ".."))
failures = []
total = 0


def info(*args):
    try:
        return subprocess.run([BIN, "info"] + list(args), capture_output=True, text=True,
                              timeout=60)
    except subprocess.TimeoutExpired:
        return None


def expect_error(what, args, rc, holds):
    """Exit status rc, every string of holds on standard error."""
    global total
    total += 1
    p = info(*args)
    if p is None:
        failures.append("%s: still running after 60 s" % what)
    elif p.returncode != rc:
        failures.append("%s: exit %d, want %d (stdout %r)" % (what, p.returncode, rc,
                                                             p.stdout[:200]))
    else:
        for h in holds:
            if h not in p.stderr:
                failures.append("%s: stderr %r lacks %r" % (what, p.stderr.strip(), h))


fits = os.path.join(CORPUS, "fits", "u_multi_hdu.fits")
group = os.path.join(CORPUS, "zarr2", "group_consolidated.zarr")
ome = os.path.join(CORPUS, "zarr2", "ome_multiscale.zarr")

with tempfile.TemporaryDirectory() as tmp:
    missing = os.path.join(tmp, "no-such-file.fits")
    for mode in ([], ["--json"]):
        expect_error("missing path %s" % mode, [missing] + mode, 1,
                     [missing, "No such file"])
        expect_error("HDU past the end %s" % mode, [fits, "--hdu", "6"] + mode, 1,
                     ["HDU 6 out of range", "6 HDUs"])
        expect_error("absent array %s" % mode, [group, "--array", "nope"] + mode, 1,
                     ["no array or group 'nope'", "labels/ids"])
        expect_error("--hdu on a store %s" % mode, [group, "--hdu", "0"] + mode, 1,
                     ["--hdu is for FITS"])
    for bad in ("1x", "", "-1", "+1", "SCI,0", "SCI,x"):
        expect_error("--hdu %r" % bad, [fits, "--hdu", bad], 2, ["--hdu is an index"])
    expect_error("--hdu with an absent EXTNAME", [fits, "--hdu", "SCI"], 1,
                 ["no HDU with EXTNAME 'SCI'", "4 F32"])

    # A store whose array cannot be opened: the message on standard error, exit 1, in both
    # views (and the JSON still says which array failed).
    # (what the golden input's message holds comes from its row in data-errors/README.md)
    broken = os.path.join(SRC, "tests", "data-errors", "zarr_unsupported_dtype.zarr")
    row = [l for l in open(os.path.join(SRC, "tests", "data-errors", "README.md"))
           if l.startswith("| `zarr_unsupported_dtype.zarr`")][0]
    cell = re.split(r"(?<!\\)\|", row)[4]
    holds = [h.replace("\\|", "|") for h in re.findall(r"`([^`]*)`", cell)]
    if len(holds) < 2:
        failures.append("data-errors/README.md: no message strings for the broken store")
    expect_error("broken store", [broken], 1, holds)
    total += 1
    p = info(broken, "--json")
    if p is None or p.returncode != 1 or not all(h in p.stderr for h in holds):
        failures.append("broken store --json: exit %s, stderr %r" % (
            p and p.returncode, p and p.stderr))
    else:
        doc = json.loads(p.stdout)
        if "not supported" not in doc["entries"][0].get("error", ""):
            failures.append("broken store --json: entry %r has no error" % doc["entries"][0])

    # A file that is not FITS at all.
    junk = os.path.join(tmp, "junk.fits")
    with open(junk, "wb") as f:
        f.write(b"x" * 5000)
    expect_error("not FITS", [junk], 1, ["not a FITS file"])

# --hdu EXTNAME[,EXTVER] shows the HDU that name selects, the same as its index.
for name, index in (("F32", "4"), ("i32", "2"), ("B8,1", "1")):
    total += 1
    by_name, by_index = info(fits, "--hdu", name, "--json"), info(fits, "--hdu", index, "--json")
    if not by_name or by_name.returncode or not by_index or by_name.stdout != by_index.stdout or \
            [e["hdu"] for e in json.loads(by_name.stdout)["entries"]] != [int(index)]:
        failures.append("--hdu %s: %r, --hdu %s: %r" % (name, by_name and by_name.stdout[:200],
                                                       index, by_index and by_index.stdout[:200]))

# A plain group is no multiscale image; an OME-Zarr image group is, with its levels.
total += 1
p = info(group, "--json")
doc = json.loads(p.stdout) if p and p.returncode == 0 else None
if not doc:
    failures.append("group --json failed: %r" % (p and p.stderr))
elif any(e["kind"] == "multiscale" or e.get("level") is not None for e in doc["entries"]):
    failures.append("a plain group reported as multiscale: %r" % doc["entries"])
total += 1
p = info(group, "--array", "raw")
if not p or p.returncode != 0 or "multiscale" in p.stdout or "raw" not in p.stdout:
    failures.append("--array raw: exit %s, %r" % (p and p.returncode, p and p.stdout))
total += 1
p = info(ome, "--json")
doc = json.loads(p.stdout) if p and p.returncode == 0 else None
levels = [(e["name"], e["level"]) for e in doc["entries"] if e.get("level") is not None] if doc else []
groups = [(e["name"], e["nlevels"]) for e in doc["entries"] if e["kind"] == "multiscale"] if doc else []
if levels != [("0", 0), ("1", 1), ("2", 2)] or groups != [("", 3)]:
    failures.append("OME levels %r, groups %r" % (levels, groups))

report(failures, total)
