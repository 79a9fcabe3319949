"""test_core_room.py - src/core imports nothing above it (DESIGN.md section 2) at link level: its objects use no function or variable another room defines (test_rooms.py checks its includes)."""
import os
import subprocess
import sys

bad = []

# Symbols: a core object may need a function or variable only core or outside libraries
# define, never one of formats, codecs, io, engine, ...
with open(os.environ["TSR_OBJECTS"], encoding="utf-8") as f:
    objects = [line.strip() for line in f if line.strip()]
core_objs = [o for o in objects if "/src/core/" in o]
defined = {}
for o in objects:
    if "/src/core/" in o:
        continue
    out = subprocess.run(["nm", "--defined-only", "-g", o], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            defined.setdefault(parts[2], o)
nsym = 0
for o in core_objs:
    out = subprocess.run(["nm", "-u", o], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        sym = line.split()[-1]
        nsym += 1
        if sym in defined:
            bad.append("%s uses %s, defined in %s" % (os.path.basename(o), sym,
                                                      defined[sym].split("/src/", 1)[-1]))

print("%d core objects, %d undefined symbols checked" % (len(core_objs), nsym))
if not core_objs or nsym == 0:
    print("nothing checked")
    sys.exit(1)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
