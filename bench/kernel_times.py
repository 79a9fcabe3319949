"""kernel_times.py - Nsight Compute's CSV (--csv --metrics gpu__time_duration.sum and, where
measured, launch__grid_size, as scripts/gpu-kernel-times runs it) summed by kernel name:
launches, total and largest device time, share of the kernels' total, blocks a launch (least and
most: a batch's large launches apart from a lone read's); largest first."""
import collections
import csv
import sys

UNIT_NS = {"nsecond": 1.0, "ns": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6,
           "second": 1e9, "s": 1e9}


def launches(lines):
    """{launch ID: [kernel name, ns, grid blocks or None]} from the CSV's metric rows."""
    by_id = {}
    for r in csv.DictReader(lines):
        metric, value = r.get("Metric Name"), r.get("Metric Value", "").replace(",", "")
        if metric not in ("gpu__time_duration.sum", "launch__grid_size") or not value:
            continue
        k = by_id.setdefault(r["ID"], [r["Kernel Name"].split("(")[0], 0.0, None])
        if metric == "gpu__time_duration.sum":
            k[1] = float(value) * UNIT_NS.get(r["Metric Unit"], 1.0)
        else:
            k[2] = int(float(value))
    return by_id


def main():
    lines = open(sys.argv[1], errors="replace").read().splitlines()
    # (the program's own output and ncu's ==PROF== lines come before the table)
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        sys.exit("no ncu table in %s" % sys.argv[1])
    tot, n, big = collections.Counter(), collections.Counter(), collections.Counter()
    grids = collections.defaultdict(list)
    for name, ns, grid in launches(lines[start:]).values():
        tot[name] += ns
        n[name] += 1
        big[name] = max(big[name], ns)
        if grid is not None:
            grids[name].append(grid)
    all_ns = sum(tot.values()) or 1.0
    print("| kernel | launches | total ms | largest ms | share | blocks a launch |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, ns in tot.most_common():
        g = grids.get(name)
        span = "%d-%d" % (min(g), max(g)) if g else "?"
        print("| %s | %d | %.3f | %.3f | %.1f%% | %s |" % (name, n[name], ns / 1e6,
                                                          big[name] / 1e6, 100.0 * ns / all_ns,
                                                          span))
    print("| (all) | %d | %.3f | | | |" % (sum(n.values()), all_ns / 1e6))


if __name__ == "__main__":
    main()
