"""lz_variants.py - scripts/gpu-lz-kernels' table of its builds (VARIANTS, or one): one row a
kernel, codec, data and shape, a GB/s column a build, each later build's ratio to the first, and
nVCOMP's GB/s and the first build's ratio to it (as its bench printed them) from the first
build's run.

Usage: python3 bench/lz_variants.py ROWS_DIR NAME... (ROWS_DIR/NAME: that build's bench rows,
"| kernel | codec | data | streams x KiB | ratio | tessera GB/s | nVCOMP GB/s | ... |")."""
import os
import sys


def rows(path):
    """The rows of one build: {(kernel, codec, data, shape): (ratio, gbps, nvcomp, gbps/nvcomp)},
    in order."""
    out = {}
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 8:
                continue
            out[tuple(cells[:4])] = (cells[4], cells[5], cells[6], cells[7])
    return out


def ratio(a, b):
    try:
        return "%.2f" % (float(a) / float(b))
    except (ValueError, ZeroDivisionError):
        return "-"


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    d, names = argv[1], argv[2:]
    builds = [rows(os.path.join(d, n)) if os.path.exists(os.path.join(d, n)) else {}
              for n in names]
    keys = list(builds[0])
    for b in builds[1:]:
        keys += [k for k in b if k not in keys]
    head = ["kernel", "codec", "data", "streams x KiB", "ratio"]
    head += ["%s GB/s" % n for n in names] + ["%s / %s" % (n, names[0]) for n in names[1:]]
    head += ["nVCOMP GB/s", "%s / nVCOMP" % names[0]]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for k in keys:
        got = [b.get(k) for b in builds]
        first = next(g for g in got if g)
        gbps = [g[1] if g else "-" for g in got]
        cells = list(k) + [first[0]] + gbps + [ratio(g, gbps[0]) for g in gbps[1:]]
        cells += [got[0][2], got[0][3]] if got[0] else ["-", "-"]
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
