"""tessera: FITS images, Zarr v2/v3 arrays and Blosc2 arrays into NumPy or GPU memory.

    >>> import tessera
    >>> with tessera.open("image.fits.fz", hdu=1) as a:
    ...     cut = a[10:50, ::-2]                  # numpy.ndarray, NumPy basic indexing
    ...     gpu = a.read(device="cuda")           # cupy.ndarray (tessera.DeviceArray without CuPy)

Every read runs in C (libtessera) with the GIL released; one Array may be read from many
threads at once. A large host result's buffer is kept once its array is gone, for the next
read of a like size (tessera.host_cache).
"""
from ._tessera import (  # noqa: F401
    Array,
    CorruptError,
    DeviceArray,
    FormatError,
    NoDeviceError,
    NotFoundError,
    Stream,
    TesseraError,
    __version__,
    capabilities,
    host_cache,
    iter_arrays,
    list_arrays,
    open,
    read,
    read_batch,
    set_cupy_results,
    stream,
    trim,
)

__all__ = [
    "Array", "DeviceArray", "Stream", "TesseraError", "FormatError", "CorruptError",
    "NoDeviceError", "NotFoundError", "open", "read", "read_batch", "stream", "list_arrays", "iter_arrays",
    "capabilities", "host_cache", "set_cupy_results", "trim", "__version__",
]
