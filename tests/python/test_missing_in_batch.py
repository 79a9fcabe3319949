"""A missing file among several (read_batch, stream) raises FileNotFoundError naming it, wherever
it stands in the list, as open() and read() of that file alone do; the message names the path
once, as OSError's own do."""
import os

import pytest

import tessera

CORPUS = os.environ.get("TSR_CORPUS", os.path.join(os.path.dirname(__file__), "../../../shared/corpus"))
GOOD = os.path.join(CORPUS, "fits/u_f32_primary.fits")


def _missing(tmp_path):
    return str(tmp_path / "gone.fits")


@pytest.mark.parametrize("at", [0, 1, 3])
def test_read_batch(tmp_path, at):
    paths = [GOOD] * 4
    paths[at] = _missing(tmp_path)
    with pytest.raises(FileNotFoundError) as e:
        tessera.read_batch(paths)
    assert e.value.filename == paths[at]
    assert str(e.value) == "[Errno 2] No such file or directory: '%s'" % paths[at]


@pytest.mark.parametrize("at", [0, 2, 3])
def test_stream(tmp_path, at):
    paths = [GOOD] * 4
    paths[at] = _missing(tmp_path)
    with pytest.raises(FileNotFoundError) as e:
        list(tessera.stream(paths))
    assert e.value.filename == paths[at]


def test_open_message_names_path_once(tmp_path):
    p = _missing(tmp_path)
    with pytest.raises(FileNotFoundError) as e:
        tessera.open(p)
    assert str(e.value).count(p) == 1
    assert e.value.errno == 2 and e.value.filename == p


def test_other_errors_keep_their_type(tmp_path):
    # a file that exists but is no array: not a FileNotFoundError, though another path of the
    # list is missing (the error is the bad file's, and it comes first)
    bad = tmp_path / "bad.fits"
    bad.write_bytes(b"not a fits file" * 300)
    with pytest.raises(tessera.FormatError):
        tessera.read_batch([GOOD, str(bad), _missing(tmp_path)])


@pytest.mark.parametrize("at", [0, 1, 3])
@pytest.mark.parametrize("how", ["read_batch", "stream"])
def test_name_not_utf8(tmp_path, at, how):
    """A missing file whose name is not UTF-8 (its message escapes the bytes) is still the
    FileNotFoundError of that file, wherever it stands; it was a NotFoundError without a
    filename past the first place."""
    missing = os.fsdecode(os.fsencode(str(tmp_path)) + b"/x\xff.fits")
    paths = [GOOD] * 4
    paths[at] = missing
    with pytest.raises(FileNotFoundError) as e:
        tessera.read_batch(paths) if how == "read_batch" else list(tessera.stream(paths))
    assert e.value.filename == missing
