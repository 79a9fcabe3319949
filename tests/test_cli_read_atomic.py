"""test_cli_read_atomic.py - `tessera read -o OUT.npy` writes a whole file or none: a write that
fails part way (here a file size limit, as a full disk would) exits nonzero, leaves an earlier
OUT.npy as it was, creates none where there was none, and leaves no temporary file behind; a
write that succeeds replaces the earlier file (through a symbolic link, the file it names); a path
that is not a regular file (/dev/null) is written in place, not replaced."""
import os
import resource
import signal
import stat
import subprocess
import tempfile

import numpy as np

from corpus_util import BIN, CORPUS, report, same

failures = []
total = 0
src = os.path.join(CORPUS, "fits", "u_i16_primary.fits")  # 100 x 120 int16: 24 KB of values


def limited(nbytes):
    """preexec_fn: files of the child at most nbytes; SIGXFSZ ignored, so write() fails."""
    def setup():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, nbytes))
    return setup


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "out.npy")
    subprocess.run([BIN, "read", src, "-o", out], check=True, timeout=60)
    want = np.load(out)
    earlier = np.arange(6, dtype="<i4")
    np.save(out, earlier)

    total += 1  # a failed write keeps the earlier file
    p = subprocess.run([BIN, "read", src, "-o", out], capture_output=True, timeout=60,
                       preexec_fn=limited(8192))
    if p.returncode == 0:
        failures.append("write past the size limit: exit 0")
    if same(np.load(out), earlier):
        failures.append("the earlier file changed after a failed write")

    total += 1  # a failed write creates no file
    fresh = os.path.join(tmp, "fresh.npy")
    p = subprocess.run([BIN, "read", src, "-o", fresh], capture_output=True, timeout=60,
                       preexec_fn=limited(8192))
    if p.returncode == 0 or os.path.exists(fresh):
        failures.append("failed write to a new path: exit %d, file %s" %
                        (p.returncode, "left" if os.path.exists(fresh) else "absent"))

    total += 1  # a whole write replaces the earlier file
    subprocess.run([BIN, "read", src, "-o", out], check=True, timeout=60)
    err = same(np.load(out), want)
    if err:
        failures.append("replacing write: %s" % err)

    total += 1  # through a symbolic link: its file is replaced, the link stays
    link = os.path.join(tmp, "link.npy")
    np.save(out, earlier)
    os.symlink(out, link)
    subprocess.run([BIN, "read", src, "-o", link], check=True, timeout=60)
    if not os.path.islink(link) or same(np.load(out), want):
        failures.append("write through a link: link %s, file %s" % (
            "kept" if os.path.islink(link) else "replaced", same(np.load(out), want) or "new"))
    os.remove(link)

    total += 1
    left = sorted(f for f in os.listdir(tmp) if f not in ("out.npy",))
    if left:
        failures.append("files left behind: %s" % left)

total += 1  # a device is written in place
p = subprocess.run([BIN, "read", src, "-o", "/dev/null"], capture_output=True, timeout=60)
if p.returncode != 0 or not stat.S_ISCHR(os.stat("/dev/null").st_mode):
    failures.append("-o /dev/null: exit %d, /dev/null %s" % (
        p.returncode, "a device" if stat.S_ISCHR(os.stat("/dev/null").st_mode) else "REPLACED"))

report(failures, total)
