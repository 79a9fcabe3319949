"""test_venv.py - the virtual environment `make` prepares holds every peer from PyPI with one
consistent NumPy (issue 20, item 10): astropy, zarr, tensorstore, blosc2 and numcodecs import
from the venv itself (not Debian's site-packages), and pip finds no broken requirement."""
import importlib
import os
import subprocess
import sys

import pytest

# The venv `make venv` makes (other virtual environments, such as the GPU machine's, hold
# what their owner put there).
MAKE_VENV = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "..", ".venv"))
IN_MAKE_VENV = os.path.realpath(sys.prefix) == MAKE_VENV

PEERS = ["numpy", "astropy", "zarr", "tensorstore", "blosc2", "numcodecs", "hypothesis"]


@pytest.mark.skipif(not IN_MAKE_VENV, reason="not running in the venv make prepares")
@pytest.mark.parametrize("name", PEERS)
def test_peer_from_the_venv(name):
    mod = importlib.import_module(name)
    assert os.path.realpath(mod.__file__).startswith(os.path.realpath(sys.prefix)), mod.__file__


@pytest.mark.skipif(not IN_MAKE_VENV, reason="not running in the venv make prepares")
def test_pip_check():
    p = subprocess.run([sys.executable, "-m", "pip", "check"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_astropy_reads_with_this_numpy(tmp_path):
    fits = pytest.importorskip("astropy.io.fits")
    import numpy as np
    p = str(tmp_path / "a.fits")
    fits.PrimaryHDU(np.arange(12, dtype=np.int16).reshape(3, 4)).writeto(p)
    with fits.open(p) as f:
        assert np.array_equal(f[0].data, np.arange(12).reshape(3, 4))
