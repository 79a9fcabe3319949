"""test_io_room.py - src/io imports only core (DESIGN.md section 2: io imports core; plan imports io's read planning, never the reverse): io's files include io, core and tessera.h, and src/cuda/tsr_cuda.h, the C helpers through which the device backends (mock-device) allocate and copy device memory."""
import os
import re
import sys

SRC = os.environ["TSR_SRC"]
IO = os.path.join(SRC, "src", "io")
# The compiler's search order: a quoted name next to the including file first, then the -I
# directories (include/, src/); an angled name only in the latter.
SEARCH = [os.path.join(SRC, "include"), os.path.join(SRC, "src")]
ALLOWED = [IO + os.sep, os.path.join(SRC, "src", "core") + os.sep,
           os.path.join(SRC, "include") + os.sep,
           os.path.join(SRC, "src", "cuda", "tsr_cuda.h")]
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)

bad = []
nfiles = ninc = 0
for name in sorted(os.listdir(IO)):
    if not name.endswith((".c", ".h")):
        continue
    nfiles += 1
    with open(os.path.join(IO, name), encoding="utf-8") as f:
        text = f.read()
    for quote, inc in INCLUDE.findall(text):
        dirs = ([IO] if quote == '"' else []) + SEARCH
        found = next((os.path.realpath(os.path.join(d, inc)) for d in dirs
                      if os.path.isfile(os.path.join(d, inc))), None)
        if found is None:
            if quote == '"':
                bad.append("%s: #include \"%s\" found nowhere in the tree" % (name, inc))
            continue  # a system header
        ninc += 1
        if not any(found == a or found.startswith(a) for a in ALLOWED):
            bad.append("%s includes %s" % (name, os.path.relpath(found, SRC)))

if nfiles == 0 or ninc == 0:
    print("test_io_room: found no io sources or includes under %s" % IO)
    sys.exit(1)
for b in bad:
    print("FAIL", b)
print("test_io_room: %d files, %d library includes, %d outside io, core, tessera.h" % (
    nfiles, ninc, len(bad)))
sys.exit(1 if bad else 0)
