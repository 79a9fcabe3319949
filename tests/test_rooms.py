"""test_rooms.py - the one-way rule of DESIGN.md section 2 for the lower rooms: each file of core, formats, codecs, io and plan includes only its own room and the rooms below it (core imports nothing; formats, codecs and io import core; plan imports formats, codecs and io), and the crossings still named in CROSSINGS below."""
import os
import re
import sys

SRC = os.environ["TSR_SRC"]
ROOT = os.path.join(SRC, "src")
BELOW = {
    "core": [],
    "formats": ["core"],
    "codecs": ["core"],
    "io": ["core"],
    "plan": ["core", "formats", "codecs", "io"],
}
# Crossings the code has and the design does not yet give a piece for (each names why); a new
# one fails the test, and one that goes away must be struck from here (also a failure).
CROSSINGS = {
    # mock-device storage allocates and copies device memory through the C helpers of src/cuda
    ("io/mock_device.c", "cuda/tsr_cuda.h"),
    # whole-file compressed FITS (.fits.gz, .fits.Z, .fits.bz2) is unpacked in memory at open
    ("formats/open.c", "io/unpack.h"),
    # Blosc2 drivers read chunk headers (sizes, special chunks) with the blosc codec's parser
    ("formats/blosc2/frame.c", "codecs/blosc.h"),
    ("formats/blosc2/metadata.c", "codecs/blosc.h"),
    # Zarr drivers name codec ids and parameters in chunk descriptions (codecs.h's enums)
    ("formats/zarr/shard.c", "codecs/codecs.h"),
    ("formats/zarr/zip.c", "codecs/codecs.h"),
    ("formats/zarr/v3.c", "codecs/codecs.h"),
    ("formats/zarr/filters.c", "codecs/codecs.h"),
}
# The compiler's search order: a quoted name next to the including file first, then the -I
# directories (include/, src/); an angled name only in the latter.
SEARCH = [os.path.join(SRC, "include"), ROOT]
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)

bad, seen = [], set()
nfiles = ninc = 0
for room, below in BELOW.items():
    allowed = [os.path.join(ROOT, r) + os.sep for r in [room] + below]
    allowed.append(os.path.join(SRC, "include") + os.sep)
    for d, _, names in os.walk(os.path.join(ROOT, room)):
        for name in sorted(names):
            if not name.endswith((".c", ".h")):
                continue
            nfiles += 1
            path = os.path.join(d, name)
            rel = os.path.relpath(path, ROOT)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for quote, inc in INCLUDE.findall(text):
                dirs = ([d] if quote == '"' else []) + SEARCH
                found = next((os.path.realpath(os.path.join(x, inc)) for x in dirs
                              if os.path.isfile(os.path.join(x, inc))), None)
                if found is None:
                    if quote == '"':
                        bad.append("%s: #include \"%s\" found nowhere in the tree" % (rel, inc))
                    continue  # a system header
                ninc += 1
                if any(found.startswith(a) for a in allowed):
                    continue
                target = os.path.relpath(found, ROOT)
                if (rel, target) in CROSSINGS:
                    seen.add((rel, target))
                else:
                    bad.append("%s (room %s) includes %s" % (rel, room, target))
for gone in sorted(CROSSINGS - seen):
    bad.append("listed crossing %s -> %s no longer exists: strike it from CROSSINGS" % gone)
if nfiles == 0 or ninc == 0:
    print("test_rooms: found no sources or includes under %s" % ROOT)
    sys.exit(1)
for b in bad:
    print("FAIL", b)
print("test_rooms: %d files of %d rooms, %d library includes, %d listed crossings, %d failures"
      % (nfiles, len(BELOW), ninc, len(seen), len(bad)))
sys.exit(1 if bad else 0)
