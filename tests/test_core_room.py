"""test_core_room.py - src/core imports nothing above it (DESIGN.md section 2): its files include only core and tessera.h, and its objects call no function another room defines."""
import os
import re
import subprocess
import sys

SRC = os.environ["TSR_SRC"]
CORE = os.path.join(SRC, "src", "core")
# The compiler's search order for the library's sources: a quoted name next to the including
# file first, then the -I directories (include/, src/); an angled name only in the latter.
SEARCH = [os.path.join(SRC, "include"), os.path.join(SRC, "src")]
ALLOWED = [CORE + os.sep, os.path.join(SRC, "include") + os.sep]
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)

bad = []
nfiles = ninc = 0
for name in sorted(os.listdir(CORE)):
    if not name.endswith((".c", ".h")):
        continue
    nfiles += 1
    path = os.path.join(CORE, name)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for quote, inc in INCLUDE.findall(text):
        dirs = ([CORE] if quote == '"' else []) + SEARCH
        found = next((os.path.realpath(os.path.join(d, inc)) for d in dirs
                      if os.path.isfile(os.path.join(d, inc))), None)
        if found is None:
            if quote == '"':
                bad.append("%s: #include \"%s\" found nowhere in the tree" % (name, inc))
            continue  # a system header
        ninc += 1
        if not any(found.startswith(a) for a in ALLOWED):
            bad.append("%s includes %s" % (name, os.path.relpath(found, SRC)))

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

print("%d core files, %d tree includes; %d core objects, %d undefined symbols checked"
      % (nfiles, ninc, len(core_objs), nsym))
if nfiles == 0 or ninc == 0 or not core_objs or nsym == 0:
    print("nothing checked")
    sys.exit(1)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
