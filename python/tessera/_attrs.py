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
        return {k: _vlmeta(x) for k, x in v.items()}
    return v


def make(d, fmt):
    """Array.attrs of d (a dict from the metadata document) for an array of format fmt."""
    if fmt == "blosc2":
        d = {k: _vlmeta(v) for k, v in d.items()}
    return Attrs(d)
