"""test_peer_zarr_new_codecs.py - zarr-python 3 (PyPI) writes fresh Zarr arrays with the codecs
tessera took up in its sixteenth session, read back through the CLI (so that make test-asan
runs them under AddressSanitizer): numcodecs' LZMA (.xz and .lzma, as a compressor and a v3
codec), Fletcher32 and JenkinsLookup3 checksums, and bytes codecs on whole shards (zstd;
gzip then crc32c), each with sections; a damaged whole shard and a damaged LZMA chunk fail
their read naming the chunk."""
import os
import shutil
import tempfile
import warnings

import numpy as np

from corpus_util import report, run_read, same

warnings.filterwarnings("ignore")
import numcodecs as nc  # noqa: E402
import zarr  # noqa: E402
from zarr.codecs import (BytesCodec, Crc32cCodec, GzipCodec, ShardingCodec,  # noqa: E402
                         ZstdCodec)
from zarr.codecs import numcodecs as zn  # noqa: E402

tmp = tempfile.mkdtemp()
failures = []
total = 0
D = (np.arange(37 * 29).reshape(37, 29) * 7919 % 65521).astype("<u2")


def v2(name, compressor=None, filters=None):
    p = os.path.join(tmp, name)
    zarr.create_array(p, shape=D.shape, chunks=(10, 8), dtype=D.dtype, zarr_format=2,
                      compressors=compressor, filters=filters)[...] = D
    return p


def v3(name, **kw):
    p = os.path.join(tmp, name)
    zarr.create_array(p, shape=D.shape, dtype=D.dtype, **kw)[...] = D
    return p


stores = [
    v2("lzma_xz.zarr", nc.LZMA()),
    v2("lzma_alone.zarr", nc.LZMA(format=2)),
    v2("fletcher.zarr", nc.Zstd(), [nc.Fletcher32()]),
    v2("lookup3.zarr", None, [nc.JenkinsLookup3(initval=99)]),
    v3("lzma_v3.zarr", chunks=(10, 8), compressors=[zn.LZMA(preset=1)]),
    v3("lookup3_v3.zarr", chunks=(10, 8), compressors=[ZstdCodec(), zn.JenkinsLookup3()]),
    v3("whole_zstd.zarr", chunks=(20, 16),
       serializer=ShardingCodec(chunk_shape=(5, 4), codecs=[BytesCodec(), ZstdCodec()]),
       compressors=[ZstdCodec()]),
    v3("whole_gzip.zarr", chunks=(20, 16),
       serializer=ShardingCodec(chunk_shape=(5, 4), codecs=[BytesCodec()]),
       compressors=[GzipCodec(), Crc32cCodec()]),
]
for p in stores:
    for section in (None, "3:33:4,::-3", "-1,5:"):
        total += 1
        got, rc, err = run_read(p, section=section)
        want = D if section is None else eval("D[%s]" % section)
        if rc:
            failures.append("%s %s: exit %d: %s" % (os.path.basename(p), section, rc, err.strip()))
        elif same(got, np.asarray(want)):
            failures.append("%s %s: %s" % (os.path.basename(p), section, same(got, want)))

for p, chunk, key in ((stores[0], "1.2", "chunk 1.2"), (stores[7], os.path.join("c", "0", "1"),
                                                        "whole shard")):
    f = os.path.join(p, chunk)
    b = bytearray(open(f, "rb").read())
    b[len(b) // 2] ^= 0x21
    open(f, "wb").write(bytes(b))
    total += 1
    got, rc, err = run_read(p)
    if rc != 1 or key not in err:
        failures.append("damaged %s: exit %d, %r" % (os.path.basename(p), rc, err.strip()))

shutil.rmtree(tmp)
report(failures, total)
