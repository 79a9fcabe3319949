"""test_peer_zarr_zip.py - zarr-python 3 (PyPI) writes Zarr v2 and v3 arrays into zip files
through its ZipStore (entries stored and deflated; arrays inside groups; sharded arrays; a key
written twice), and the same zips rewritten with zip64 records (every size and offset in the
zip64 extra field, a zip64 end of central directory); tessera reads them in place and must return
what zarr-python reads. TSR_SEED picks another run."""
import os
import random
import shutil
import struct
import tempfile
import warnings
import zipfile

import numpy as np

from corpus_util import report, run_read, same

warnings.filterwarnings("ignore")
import zarr  # noqa: E402
from zarr.storage import ZipStore  # noqa: E402

SEED = int(os.environ.get("TSR_SEED", "20261201"))
rng = random.Random(SEED)
nrng = np.random.default_rng(SEED)
tmp = tempfile.mkdtemp()


def write_store(path, fmt, compression, sharded, array_path):
    shape = (rng.randint(5, 60), rng.randint(1, 40))
    chunks = (rng.randint(1, 12), rng.randint(1, 12))
    dtype = rng.choice(["i2", "f4", "u8", "f8"])
    store = ZipStore(path, mode="w", compression=compression)
    kw = {}
    if sharded:
        kw["shards"] = tuple(c * rng.randint(1, 3) for c in chunks)
    if array_path:
        g = zarr.open_group(store, mode="w", zarr_format=fmt)
        z = g.create_array(array_path, shape=shape, chunks=chunks, dtype=dtype, fill_value=3, **kw)
    else:
        z = zarr.create_array(store, shape=shape, chunks=chunks, dtype=dtype, zarr_format=fmt,
                              fill_value=3, **kw)
    data = (nrng.standard_normal(shape) * 100).astype(dtype)
    a = rng.randint(0, shape[0] - 1)
    z[a:] = data[a:]
    if rng.random() < 0.5:
        z[: a + 1] = data[: a + 1] + 1  # some chunks written twice: the zip has both entries
    store.close()
    desc = "v%d %s %s %s chunks %s%s%s" % (fmt, "deflated" if compression else "stored", dtype,
                                           shape, chunks, " shards %s" % (kw["shards"],)
                                           if sharded else "", " at " + array_path
                                           if array_path else "")
    return desc


def zarr_read(path, array_path):
    store = ZipStore(path, mode="r")
    try:
        return zarr.open_array(store, mode="r", path=array_path or "")[...]
    finally:
        store.close()


def to_zip64(src, dst):
    """Rewrites a zip with every central directory entry's sizes and offset in a zip64 extra
    field (their 32-bit fields all ones) and a zip64 end of central directory record and
    locator, as zip writers do past 4 GiB or 65535 entries. Local headers stay as they are."""
    raw = open(src, "rb").read()
    eocd = raw.rfind(b"PK\x05\x06")
    count, cd_size, cd_off = struct.unpack("<HII", raw[eocd + 10:eocd + 20])
    p, out = cd_off, []
    for _ in range(count):
        fixed = bytearray(raw[p:p + 46])
        nl, xl, cl = struct.unpack("<HHH", fixed[28:34])
        name, extra, comment = (raw[p + 46:p + 46 + nl], raw[p + 46 + nl:p + 46 + nl + xl],
                                raw[p + 46 + nl + xl:p + 46 + nl + xl + cl])
        csize, usize = struct.unpack("<II", fixed[20:28])
        local = struct.unpack("<I", fixed[42:46])[0]
        z64 = struct.pack("<HHQQQ", 1, 24, usize, csize, local)
        fixed[20:28] = struct.pack("<II", 0xFFFFFFFF, 0xFFFFFFFF)
        fixed[42:46] = struct.pack("<I", 0xFFFFFFFF)
        fixed[30:32] = struct.pack("<H", xl + len(z64))
        out.append(bytes(fixed) + name + z64 + extra + comment)
        p += 46 + nl + xl + cl
    cd = b"".join(out)
    body = raw[:cd_off]
    rec_off = len(body) + len(cd)
    rec = struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, 0, 0, count, count, len(cd),
                      len(body))
    loc = struct.pack("<IIQI", 0x07064b50, 0, rec_off, 1)
    end = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    with open(dst, "wb") as f:
        f.write(body + cd + rec + loc + end)


def main():
    failures = []
    total = 0
    for i in range(16):
        fmt = rng.choice([2, 3])
        comp = rng.choice([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
        sharded = fmt == 3 and comp == zipfile.ZIP_STORED and rng.random() < 0.5
        array_path = rng.choice(["", "", "a", "g/h/img"])
        path = os.path.join(tmp, "s%d.zarr.zip" % i)
        desc = write_store(path, fmt, comp, sharded, array_path)
        want = zarr_read(path, array_path)
        variants = [(path, desc)]
        if i % 3 == 0:
            p64 = os.path.join(tmp, "s%d_zip64.zarr.zip" % i)
            to_zip64(path, p64)
            if not np.array_equal(zarr_read(p64, array_path), want, equal_nan=True):
                failures.append("%s: the zip64 rewrite reads differently in zarr-python" % desc)
            variants.append((p64, desc + " zip64"))
        for p, d in variants:
            total += 1
            got, rc, err = run_read(p, extra=["--array", array_path] if array_path else [])
            msg = ("tessera failed: " + err.strip()) if rc else same(got, want)
            if msg:
                failures.append("%s: %s" % (d, msg))
            elif i % 4 == 1:
                # a section too: chunk reads by offset inside the zip
                total += 1
                sec = "%d:, ::2" % (want.shape[0] // 2)
                got, rc, err = run_read(p, section=sec,
                                        extra=["--array", array_path] if array_path else [])
                msg = ("tessera failed: " + err.strip()) if rc else \
                    same(got, want[want.shape[0] // 2:, ::2])
                if msg:
                    failures.append("%s section %s: %s" % (d, sec, msg))
    # shards in deflated entries cannot be read by offset: a clear error, not a wrong read
    total += 1
    path = os.path.join(tmp, "deflated_shards.zarr.zip")
    store = ZipStore(path, mode="w", compression=zipfile.ZIP_DEFLATED)
    z = zarr.create_array(store, shape=(8, 8), chunks=(2, 2), shards=(4, 4), dtype="i4", zarr_format=3)
    z[...] = np.arange(64).reshape(8, 8)
    store.close()
    got, rc, err = run_read(path)
    if rc != 1 or "deflated" not in err or "c/0/0" not in err:
        failures.append("sharded array in deflated entries: exit %d, %s" % (rc, err.strip()))
    shutil.rmtree(tmp, ignore_errors=True)
    print("seed %d" % SEED)
    report(failures, total)


if __name__ == "__main__":
    main()
