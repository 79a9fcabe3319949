"""Every public function and Array method has a signature inspect reads (Jupyter's and IDEs'
call hints), and its parameters are the keywords the function takes."""
import inspect
import os

import pytest

import tessera

CORPUS = os.environ.get("TSR_CORPUS", os.path.join(os.path.dirname(__file__), "../../../shared/corpus"))
FITS = os.path.join(CORPUS, "fits/u_f32_primary.fits")

FUNCS = ["open", "read", "read_batch", "stream", "list_arrays", "iter_arrays",
         "set_cupy_results", "capabilities", "trim", "host_cache"]
METHODS = ["read", "info", "metadata", "close", "__array__", "__enter__", "__exit__",
           "__reduce__"]
# the other public classes' methods (inspect.signature raised ValueError for these)
OTHER = [("Stream", "close"), ("Stream", "__enter__"), ("Stream", "__exit__"),
         ("DeviceArray", "get"), ("DeviceArray", "__dlpack__"),
         ("DeviceArray", "__dlpack_device__")]


@pytest.mark.parametrize("name", FUNCS)
def test_functions(name):
    sig = inspect.signature(getattr(tessera, name))
    assert getattr(tessera, name).__doc__.strip()


@pytest.mark.parametrize("name", METHODS)
def test_methods(name):
    sig = inspect.signature(getattr(tessera.Array, name))
    assert list(sig.parameters)[0] == "self"


@pytest.mark.parametrize("cls,name", OTHER)
def test_other_methods(cls, name):
    sig = inspect.signature(getattr(getattr(tessera, cls), name))
    assert list(sig.parameters)[0] == "self"


def _call_with_defaults(fn, sig, first):
    kw = {n: p.default for n, p in sig.parameters.items()
          if p.default is not inspect.Parameter.empty}
    return fn(first, **kw)


def test_keywords_are_accepted():
    # each keyword the signature names, given its default, is one the function takes
    for fn, first in ((tessera.open, FITS), (tessera.read, FITS), (tessera.read_batch, [FITS]),
                      (tessera.list_arrays, FITS), (tessera.iter_arrays, FITS)):
        r = _call_with_defaults(fn, inspect.signature(fn), first)
        if fn is tessera.iter_arrays:
            list(r)
    s = tessera.stream([FITS], **{n: p.default for n, p in
                                  inspect.signature(tessera.stream).parameters.items()
                                  if p.default is not inspect.Parameter.empty})
    assert len(list(s)) == 1
    a = tessera.open(FITS)
    sig = inspect.signature(tessera.Array.read)
    a.read(**{n: p.default for n, p in sig.parameters.items()
              if p.default is not inspect.Parameter.empty})
