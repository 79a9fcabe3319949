"""test_cli_read_cuda_names_file.py - `tessera read --device cuda` that cannot read into device
memory (no driver, no device) says which file it was reading: the CLI's own device allocation
failed with "no CUDA device: ..." alone. Where a device is there, the read equals the CPU's."""
import os
import tempfile

import numpy as np

from corpus_util import Checks, cli

check = Checks()
f = os.path.join(os.environ["TSR_CORPUS"], "fits", "c_cube_3d.fits")
with tempfile.TemporaryDirectory() as tmp:
    host, dev = os.path.join(tmp, "h.npy"), os.path.join(tmp, "d.npy")
    r = cli("read", f, "-o", host)
    check("cpu read: rc %d %s" % (r.returncode, r.stderr), r.returncode == 0)
    r = cli("read", f, "--device", "cuda", "-o", dev)
    if r.returncode == 0:
        check("cuda read equals the cpu read", np.array_equal(np.load(host), np.load(dev)))
    else:
        check("rc %d: %s" % (r.returncode, r.stderr.strip()),
              r.returncode == 1 and r.stderr.startswith("tessera read: %s: " % f))
check.report()
