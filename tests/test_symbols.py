"""test_symbols.py - libtessera.so exports only tsr_-prefixed symbols."""
import os
import subprocess
import sys

lib = os.environ["TSR_LIB"]
out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
bad, n = [], 0
for line in out.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[1] in "TDBRVW":
        n += 1
        if not parts[2].startswith("tsr_"):
            bad.append(parts[2])
print("%d exported symbols" % n)
if bad or n == 0:
    print("not tsr_-prefixed:", " ".join(bad))
    sys.exit(1)
