"""tessera._attrs - Array.attrs: the user's metadata as a dict that refuses changes."""

_READ_ONLY = ("tessera.Array.attrs is read-only: tessera reads files and never writes them "
              "(dict(a.attrs) is a copy to change)")


class Attrs(dict):
    """A dict of an array's attributes (Zarr attributes, Blosc2 vlmeta, FITS header keys).

    It is made anew from the file at each access of Array.attrs, so a change made to it would
    be lost at the next access; it refuses changes instead (TypeError). dict(attrs) or
    attrs.copy() is a plain dict to change; json.dumps and every dict reader take it as is.
    """

    __slots__ = ()

    def _refuse(self, *args, **kwargs):
        raise TypeError(_READ_ONLY)

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self):
        return (Attrs, (dict(self),))


def _vlmeta(v):
    """A vlmeta value as python-blosc2 gives it back: a list whose first item is "__tuple__"
    is a tuple (python-blosc2 packs tuples so, and unpacks such lists as tuples), and msgpack
    bytes, which the metadata document (JSON) writes as {"bytes_hex": HEX}, are bytes."""
    if isinstance(v, list):
        items = [_vlmeta(x) for x in v]
        if items and items[0] == "__tuple__":
            return tuple(items[1:])
        return items
    if isinstance(v, dict):
        h = v.get("bytes_hex")
        if len(v) == 1 and isinstance(h, str):
            try:
                return bytes.fromhex(h)
            except ValueError:
                pass
        if set(v) == {"ext_type", "nbytes", "bytes_hex"} and isinstance(h, str):
            x = _ext(v["ext_type"], h)
            if x is not _ext:
                return x
        return {k: _vlmeta(x) for k, x in v.items()}
    return v


# python-blosc2's msgpack extension types (blosc2/msgpack_utils.py): a complex number as two
# big-endian doubles, a set as the msgpack of its items' list, a NumPy array as the msgpack of
# {"dtype": {"str"} or {"descr"}, "shape", "data"} (or {"values", "shape"}: object arrays).
_B2_COMPLEX, _B2_SET, _B2_NDARRAY = 44, 45, 46


def _ext(code, hex_payload):
    """The value python-blosc2 gives an extension type's payload back as; _ext itself where
    tessera does not decode it (another code, or msgpack not installed for a set or array:
    the document's form stays)."""
    try:
        data = bytes.fromhex(hex_payload)
    except ValueError:
        return _ext
    if code == _B2_COMPLEX and len(data) == 16:
        import struct
        return complex(*struct.unpack(">dd", data))
    if code not in (_B2_SET, _B2_NDARRAY):
        return _ext
    try:
        import msgpack
    except ImportError:
        return _ext

    def hook(c, d):
        x = _ext(c, d.hex())
        return msgpack.ExtType(c, d) if x is _ext else x
    try:
        p = _vlmeta(msgpack.unpackb(data, ext_hook=hook, strict_map_key=False))
        if code == _B2_SET:
            return set(p)
        import numpy as np
        if "values" in p:
            a = np.empty(p["shape"], dtype=object)
            for i, x in enumerate(p["values"]):
                a.reshape(-1)[i] = x
            return a
        return np.frombuffer(p["data"], dtype=_np_dtype(p["dtype"])).reshape(p["shape"])
    except Exception:  # (a payload that is not what python-blosc2 writes: left as it is)
        return _ext


def _np_dtype(v):
    """The NumPy dtype of python-blosc2's {"str": typestr} or {"descr": dtype.descr} (its
    tuples as python-blosc2 packs them, back as tuples; a titled field's (title, name) may be a
    list)."""
    import numpy as np
    if "str" in v:
        return np.dtype(v["str"])

    def field(f):
        name, spec, *shape = f
        name = tuple(name) if isinstance(name, list) else name
        spec = [field(x) for x in spec] if isinstance(spec, (list, tuple)) else spec
        return (name, spec, tuple(shape[0])) if shape else (name, spec)
    return np.dtype([field(f) for f in v["descr"]])


def make(d, fmt):
    """Array.attrs of d (a dict from the metadata document) for an array of format fmt."""
    if fmt == "blosc2":
        d = {k: _vlmeta(v) for k, v in d.items()}
    return Attrs(d)
