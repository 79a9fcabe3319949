"""test_host_cache_nomem.py - a result buffer kept by the host cache (host_cache.c) for reuse
does not cost a later read its memory: a read that finds no memory frees the kept buffers and
tries once more. With the address space limited, a freed 200 MB result kept in the cache made
the next 260 MB read raise MemoryError, which host_cache(0) then let through."""
import json
import subprocess
import sys

CHILD = r"""
import json, os, resource, sys
import tessera
store = sys.argv[1]
os.makedirs(store)
with open(os.path.join(store, ".zarray"), "w") as f:
    json.dump({"zarr_format": 2, "shape": [4096, 65536], "chunks": [256, 65536], "dtype": "<f4",
               "compressor": None, "fill_value": 3.0, "filters": None, "order": "C"}, f)
a = tessera.open(store)
x = a[:800]  # the engine's threads, their stacks and arenas made before the limit
del x
limit = tessera.host_cache()["limit"]
tessera.host_cache(0)
tessera.host_cache(limit)
vm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmSize"))
resource.setrlimit(resource.RLIMIT_AS, ((vm << 10) + (360 << 20),) * 2)
x = a[:800]  # 200 MiB
del x
assert tessera.host_cache()["bytes"] >= 200 << 20, tessera.host_cache()
y = a[:1040]  # 260 MiB: with the kept 200 MiB, past the limit
assert y.shape == (1040, 65536) and float(y[-1, -1]) == 3.0
assert tessera.host_cache()["bytes"] == 0
print("ok")
"""


def test_read_frees_kept_buffers(tmp_path):
    r = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "fill.zarr")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
