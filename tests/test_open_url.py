"""test_open_url.py - a path that is a URL (s3://, gs://, https://) and names no local file is
refused as not found with a message saying tessera reads local (or mounted) files and folders;
a missing local path, or a local path that merely holds "://", gets the plain message, and an
existing local folder named like a URL still opens."""
import os
import subprocess
import tempfile

from corpus_util import BIN, CORPUS, report

failures = []
total = 0


def info(path, cwd=None):
    return subprocess.run([BIN, "info", path], capture_output=True, text=True, timeout=60,
                          cwd=cwd)


def expect(what, path, rc, holds, lacks=(), cwd=None):
    global total
    total += 1
    p = info(path, cwd)
    bad = [h for h in holds if h not in p.stderr] + [h for h in lacks if h in p.stderr]
    if p.returncode != rc or bad:
        failures.append("%s: exit %d (want %d), stderr %r" % (what, p.returncode, rc,
                                                            p.stderr.strip()))


URL = "a URL: tessera reads local files and folders"
for url in ("s3://bucket/exposures/x.zarr", "gs://b/x.fits", "https://example.org/a.b2nd",
            "file+zip://x"):
    expect(url, url, 1, [url + ": No such file or directory", URL])
expect("missing local", "/no/such/x.fits", 1, ["No such file or directory"], [URL])
expect("a folder with ://", "dir with space://x", 1, ["No such file"], [URL])
with tempfile.TemporaryDirectory() as tmp:
    # a local folder "s3:" holding a store: opened, not refused as a URL
    store = os.path.join(tmp, "s3:", "", "bucket")
    os.makedirs(os.path.dirname(store), exist_ok=True)
    os.symlink(os.path.join(os.path.abspath(CORPUS), "zarr3", "zstd_f4.zarr"), store)
    expect("local s3: folder", "s3://bucket", 0, [], cwd=tmp)
report(failures, total)
