"""blosc_frames.py - the zstd frames of a Blosc2 array's chunks, for gpu_zstd_bench --frames:
`blosc_frames.py ARRAY.b2nd OUT [MAX]` writes (the first MAX of them) each coded stream of its full blocks (a block's one
stream, or its typesize streams where the chunk splits them) as a record of a 32-bit
little-endian decoded size, a 32-bit frame size and the frame (streams stored as they are,
runs and zeros left out, as the GPU decoder never sees them). Prints the count."""
import struct
import sys


def frames(chunk):
    nbytes, bsize, cbytes = struct.unpack_from("<iii", chunk, 4)
    typesize, flags = chunk[3], chunk[2]
    # Blosc2 header (32 bytes): byte 2's bit 4 (0x10) says the blocks are not split
    split = not (flags & 0x10)
    nblocks = nbytes // bsize  # (full blocks only: one decoded size)
    ns = typesize if split else 1
    each = bsize // ns
    for b in range(nblocks):
        p = struct.unpack_from("<i", chunk, 32 + 4 * b)[0]
        for _ in range(ns):
            cs = struct.unpack_from("<i", chunk, p)[0]
            p += 4
            if cs <= 0:  # a run (one token byte) or zeros
                p += 1 if cs < 0 else 0
                continue
            if cs != each:
                yield each, chunk[p:p + cs]
            p += cs


def main(path, out, most=None):
    import blosc2
    s = blosc2.open(path).schunk
    n = 0
    with open(out, "wb") as f:
        for i in range(s.nchunks):
            for each, z in frames(s.get_chunk(i)):
                if most is not None and n == most:
                    break
                f.write(struct.pack("<II", each, len(z)) + z)
                n += 1
    print("%s: %d frames" % (out, n))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else None)
