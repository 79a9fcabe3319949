"""kernel_times.py - Nsight Compute's CSV (--csv --metrics gpu__time_duration.sum, as
scripts/gpu-kernel-times runs it) summed by kernel name: launches, total and largest device
time, share of the kernels' total; largest first."""
import collections
import csv
import sys

UNIT_NS = {"nsecond": 1.0, "ns": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6,
           "second": 1e9, "s": 1e9}


def main():
    lines = open(sys.argv[1], errors="replace").read().splitlines()
    # (the program's own output and ncu's ==PROF== lines come before the table)
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        sys.exit("no ncu table in %s" % sys.argv[1])
    tot, n, big = collections.Counter(), collections.Counter(), collections.Counter()
    for r in csv.DictReader(lines[start:]):
        if r.get("Metric Name") != "gpu__time_duration.sum":
            continue
        ns = float(r["Metric Value"].replace(",", "")) * UNIT_NS.get(r["Metric Unit"], 1.0)
        name = r["Kernel Name"].split("(")[0]
        tot[name] += ns
        n[name] += 1
        big[name] = max(big[name], ns)
    all_ns = sum(tot.values()) or 1.0
    print("| kernel | launches | total ms | largest ms | share |")
    print("|---|---:|---:|---:|---:|")
    for name, ns in tot.most_common():
        print("| %s | %d | %.3f | %.3f | %.1f%% |" % (name, n[name], ns / 1e6, big[name] / 1e6,
                                                     100.0 * ns / all_ns))
    print("| (all) | %d | %.3f | | |" % (sum(n.values()), all_ns / 1e6))


if __name__ == "__main__":
    main()
