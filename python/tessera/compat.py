"""tessera.compat - the call shapes of the loaders users come from, served by tessera.

    from tessera.compat import read_zarr_to_gpu        # was: linumpy's gpu.zarr_io
    from tessera.compat import batch_to_device         # was: cuPhoton's xdr

Each returns CuPy arrays (CuPy is needed: a RuntimeError names it when it is missing).
"""
import tessera

_PREFER = ("auto", "kvikio", "zarr-gpu")
_DECODERS = {"auto": "auto", "gpu": "gpu", "cpu": "cpu", "nvcomp": "gpu", "libdeflate": "cpu",
             "zlib": "cpu", "host": "cpu", "device": "gpu"}


def _cupy():
    try:
        import cupy
    except ImportError as e:
        raise RuntimeError("tessera.compat returns CuPy arrays: the 'cupy' module is missing "
                           "(%s)" % e) from None
    return cupy


def read_zarr_to_gpu(array_path, *, prefer="auto"):
    """The Zarr array at array_path as a cupy.ndarray of its shape and dtype.

    prefer: "auto" (tessera picks), "kvikio" (raw GPUDirect Storage reads: uncompressed arrays
    only, and an error where GDS does not run natively) or "zarr-gpu" (decode on the host, one
    copy to the device).
    """
    if prefer not in _PREFER:
        raise ValueError("prefer must be one of %s, not %r" % (", ".join(map(repr, _PREFER)), prefer))
    cupy = _cupy()
    with tessera.open(array_path) as a:
        if prefer == "kvikio":
            if a.codec != "none":
                raise ValueError("prefer='kvikio' reads uncompressed arrays only; %s is %s"
                                 % (array_path, a.codec))
            r = a.read(device="cuda", storage="cufile")
        elif prefer == "zarr-gpu":
            r = a.read(device="cuda", decoder="cpu")
        else:
            r = a.read(device="cuda")
    return cupy.asarray(r)


def _section_key(section):
    if section is None:
        return None
    key = tuple(section) if isinstance(section, (tuple, list)) else (section,)
    for s in key:
        if not isinstance(s, slice) or s.step not in (None, 1):
            raise ValueError("section takes slices with unit steps only, got %r" % (s,))
    return key


def _decoder(gzip_decoder, decompression_backend):
    for name in (gzip_decoder, decompression_backend):
        if name not in _DECODERS:
            raise ValueError("unknown decoder %r (one of %s)" % (name, ", ".join(sorted(_DECODERS))))
    chosen = [_DECODERS[n] for n in (gzip_decoder, decompression_backend) if n != "auto"]
    return chosen[0] if chosen else "auto"


def batch_to_device(paths, hdu_indices=(1,), *, section=None, out=None, stream=None,
                    parallel=None, native_read_threads=None, postprocess="auto",
                    gzip_decoder="auto", decompression_backend="auto"):
    """A tuple with one CuPy array per HDU of hdu_indices, each stacked (file, y, x).

    out: preallocated CUDA arrays, one per HDU (written in place); stream: a CuPy or PyTorch
    stream or its int handle; section=(slice(y0, y1), slice(x0, x1)). parallel and
    native_read_threads are accepted for compatibility (tessera's own threads read).
    """
    cupy = _cupy()
    if postprocess not in ("auto", "gpu", "cpu", "device", "host"):
        raise ValueError("unknown postprocess %r" % (postprocess,))
    dec = _decoder(gzip_decoder, decompression_backend)
    key = _section_key(section)
    hdus = [int(h) for h in hdu_indices]
    if out is not None and len(out) != len(hdus):
        raise ValueError("out has %d arrays for %d HDUs" % (len(out), len(hdus)))
    res = tessera.read_batch(list(paths), hdus=hdus, key=key, device="cuda", out=out,
                             stream=stream, decoder=dec)
    return tuple(r if out is not None else cupy.asarray(r) for r in res)


def batch_to_device_stream(paths, hdu_indices=(1,), *, section=None, out=None, stream=None,
                           prefetch_files=None, decode_batch_files=8, queue_depth=None,
                           gzip_decoder="auto", decompression_backend="auto", **ignored):
    """batch_to_device's stacked result, read as a pipeline: decode_batch_files files at a
    time while the next prefetch_files are read ahead."""
    cupy = _cupy()
    dec = _decoder(gzip_decoder, decompression_backend)
    key = _section_key(section)
    paths = list(paths)
    if decode_batch_files < 1:
        raise ValueError("decode_batch_files must be >= 1")
    prefetch = prefetch_files if prefetch_files is not None else (queue_depth or 2) * decode_batch_files
    results = []
    for i, h in enumerate(hdu_indices):
        dst = out[i] if out is not None else None
        view = cupy.asarray(dst) if dst is not None else None  # CuPy or PyTorch, no copy
        done = 0
        with tessera.stream(paths, batch=decode_batch_files, prefetch=prefetch, hdu=int(h),
                            key=key, device="cuda", stream=stream, decoder=dec) as s:
            for b in s:
                b = cupy.asarray(b)
                if view is None:
                    dst = view = cupy.empty((len(paths),) + b.shape[1:], dtype=b.dtype)
                elif view.shape[1:] != b.shape[1:] or view.dtype != b.dtype:
                    raise ValueError("out[%d] has shape %s and dtype %s; the read gives %s and %s"
                                     % (i, view.shape, view.dtype, (len(paths),) + b.shape[1:], b.dtype))
                view[done:done + b.shape[0]] = b
                done += b.shape[0]
        results.append(dst)
    return tuple(results)
