"""A Zarr store holding links back to a directory it is inside (`ln -s . same`, `sub/up ->
..`) lists each array once, promptly: such a link is a loop, not a subtree. Listing followed
them to a depth of 32, the paths doubling at each loop (one loop listed an array 33 times,
two never finished). A link to a directory elsewhere is still walked."""
import os
import subprocess
import sys

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")


def test_loops_left_out(tmp_path):
    s = str(tmp_path / "s.zarr")
    g = zarr.open_group(s, mode="w")
    g.create_array("a", shape=(4,), dtype="i2")[...] = np.arange(4)
    g.create_group("sub")
    other = zarr.open_group(str(tmp_path / "elsewhere.zarr"), mode="w")
    other.create_array("b", shape=(3,), dtype="i2")[...] = np.arange(3)
    os.symlink(".", os.path.join(s, "same"))
    os.symlink("..", os.path.join(s, "sub", "up"))
    os.symlink(str(tmp_path / "elsewhere.zarr"), os.path.join(s, "sub", "linked"))
    code = ("import tessera, sys; print(sorted(e['name'] for e in tessera.list_arrays(sys.argv[1])))")
    out = subprocess.run([sys.executable, "-c", code, s], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['a', 'sub/linked/b']"
