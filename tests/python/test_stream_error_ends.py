"""A stream that raised is over, as a generator is: the next call stops the iteration, where it
raised the same error again (a loop that skips errors ended only by running out of files)."""
import os

import pytest

import tessera

CORPUS = os.environ.get("TSR_CORPUS", os.path.join(os.path.dirname(__file__), "../../../shared/corpus"))
GOOD = os.path.join(CORPUS, "fits/u_f32_primary.fits")


def test_error_ends_the_stream(tmp_path):
    s = tessera.stream([GOOD, GOOD, str(tmp_path / "gone.fits"), GOOD], batch=1)
    got = [next(s), next(s)]
    assert all(b.shape == (1, 256, 256) for b in got)
    with pytest.raises(FileNotFoundError):
        next(s)
    with pytest.raises(StopIteration):
        next(s)
    assert list(s) == []
