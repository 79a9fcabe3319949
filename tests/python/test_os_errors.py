"""test_os_errors.py - an OS error opening a file comes to Python as Python's own open() gives
it: the OSError subclass of its errno (NotADirectoryError, ...), e.errno and e.filename set.
Only a missing file did (FileNotFoundError); ENOTDIR, ENAMETOOLONG and EMFILE were a bare
OSError with errno None, so `e.errno == errno.EMFILE` retry logic never matched."""
import errno
import subprocess
import sys

import numpy as np
import pytest
import tessera


def fits_file(tmp_path):
    # a minimal FITS image: one header block and one data block
    cards = ["SIMPLE  =                    T", "BITPIX  =                    8",
             "NAXIS   =                    1", "NAXIS1  =                    4", "END"]
    head = "".join(c.ljust(80) for c in cards).ljust(2880).encode()
    p = tmp_path / "f.fits"
    p.write_bytes(head + bytes(range(4)).ljust(2880, b"\0"))
    return str(p)


def test_not_a_directory(tmp_path):
    f = fits_file(tmp_path)
    assert tessera.read(f).tolist() == [0, 1, 2, 3]
    with pytest.raises(NotADirectoryError) as e:
        tessera.open(f + "/x")
    assert e.value.errno == errno.ENOTDIR and e.value.filename == f + "/x"


def test_name_too_long(tmp_path):
    p = str(tmp_path / ("y" * 300))
    with pytest.raises(OSError) as e:
        tessera.open(p)
    assert e.value.errno == errno.ENAMETOOLONG and e.value.filename == p


def test_too_many_open_files(tmp_path):
    f = fits_file(tmp_path)
    child = """
import errno, os, resource, sys, tessera
resource.setrlimit(resource.RLIMIT_NOFILE, (32, 32))
held = []
try:
    while True:
        held.append(os.open("/dev/null", os.O_RDONLY))
except OSError:
    pass
try:
    tessera.open(sys.argv[1])
except OSError as e:
    print(e.errno == errno.EMFILE, e.filename == sys.argv[1], type(e).__name__)
"""
    r = subprocess.run([sys.executable, "-c", child, f], capture_output=True, text=True,
                       timeout=60)
    assert r.stdout.split() == ["True", "True", "OSError"], r.stdout + r.stderr
