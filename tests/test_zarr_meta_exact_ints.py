"""test_zarr_meta_exact_ints.py - a Zarr document's integers beyond 2^53 come out of
tsr_array_metadata and tsr_listing_metadata (`tessera info --attrs`) as written, not rounded
through a double: attributes (v2 .zattrs, v3 attributes, consolidated .zmetadata) and the
metadata document's uint64 fill value, with strings that hold digits, escaped quotes and
numbers in keys around them."""
import json
import os
import subprocess
import tempfile

BIN = os.environ.get("TSR_BIN", "build/tessera")
failures = 0

ATTRS_TEXT = ('{"id": 1152921504606846977, "neg": -9223372036854775808, "max": '
              '18446744073709551615, "s": "a \\" 12345678901234567890 \\\\", "12345678901234567891":'
              ' [9007199254740993, 1.5e300, -0.0, 7], "small": 42, "f": 0.1}')
ATTRS = json.loads(ATTRS_TEXT)


def check(what, got, want):
    global failures
    if got != want:
        failures += 1
        print("FAIL %s:\n  got  %r\n  want %r" % (what, got, want))


def info(path, *args):
    p = subprocess.run([BIN, "info", path, "--attrs", "--json"] + list(args),
                       capture_output=True, text=True)
    return json.loads(p.stdout) if p.returncode == 0 else {"error": p.stderr}


def arrays(doc):
    return [e for e in doc.get("entries", []) if e.get("kind") == "array"]


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


with tempfile.TemporaryDirectory() as tmp:
    v2 = os.path.join(tmp, "v2.zarr")
    os.mkdir(v2)
    zarray = ('{"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "<u8", "compressor": '
              'null, "fill_value": 18446744073709551615, "order": "C", "filters": null}')
    write(os.path.join(v2, ".zarray"), zarray)
    write(os.path.join(v2, ".zattrs"), ATTRS_TEXT)
    e = arrays(info(v2))
    m = e[0]["metadata"] if e else {}
    check("v2 attributes", m.get("attributes"), ATTRS)
    check("v2 fill value", (m.get("fill_value"), (m.get("metadata") or {}).get("fill_value")),
          (2 ** 64 - 1, 2 ** 64 - 1))

    v3 = os.path.join(tmp, "v3.zarr")
    os.mkdir(v3)
    write(os.path.join(v3, "zarr.json"),
          '{"zarr_format": 3, "node_type": "array", "shape": [2], "data_type": "int64", '
          '"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}}, '
          '"chunk_key_encoding": {"name": "default"}, "fill_value": -9223372036854775807, '
          '"codecs": [{"name": "bytes", "configuration": {"endian": "little"}}], '
          '"attributes": ' + ATTRS_TEXT + '}')
    e = arrays(info(v3))
    m = e[0]["metadata"] if e else {}
    check("v3 attributes", m.get("attributes"), ATTRS)
    check("v3 fill value", m.get("fill_value"), -(2 ** 63) + 1)

    # consolidated: the array's documents only in the root's .zmetadata
    cons = os.path.join(tmp, "cons.zarr")
    os.mkdir(cons)
    write(os.path.join(cons, ".zgroup"), '{"zarr_format": 2}')
    write(os.path.join(cons, ".zmetadata"),
          '{"zarr_consolidated_format": 1, "metadata": {".zgroup": {"zarr_format": 2}, '
          '"a/.zarray": ' + zarray + ', "a/.zattrs": ' + ATTRS_TEXT + '}}')
    os.mkdir(os.path.join(cons, "a"))
    e = [x for x in arrays(info(cons)) if x.get("name") == "a"]
    m = e[0]["metadata"] if e else {}
    check("consolidated attributes", m.get("attributes"), ATTRS)

if failures:
    raise SystemExit("%d check(s) failed" % failures)
print("ok")
