"""ab_table.py - the table of scripts/gpu-ab: for each workload and `tessera bench` phase, the
median GB/s (of output) of the old and the new tree over every round's reports, new/old, and
the range of each side's rounds (the noise a ratio is read against); with a third (mid) tree's
reports, its median, mid/old and its range too."""
import glob
import json
import os
import re
import statistics
import sys


def main():
    d = sys.argv[1]
    got = {}
    for f in glob.glob(os.path.join(d, "ab-*.json")):
        m = re.match(r"ab-(.*)-(old|mid|new)-(\d+)\.json$", os.path.basename(f))
        try:
            r = json.load(open(f))
        except (OSError, ValueError):
            continue
        for p in r.get("phases", []):
            if p.get("status") != "ok" or not p.get("bytes_out"):
                continue
            gbps = p["bytes_out"] / (p["elapsed_ms"]["median"] / 1e3) / 1e9
            got.setdefault((m.group(1), p["id"]), {}).setdefault(m.group(2), []).append(gbps)
    mid = any("mid" in v for v in got.values())
    med = lambda xs: statistics.median(xs) if xs else None  # noqa: E731
    span = lambda xs: "%.2f-%.2f" % (min(xs), max(xs)) if xs else "-"  # noqa: E731
    num = lambda x: "%.2f" % x if x else "-"  # noqa: E731
    ratio = lambda a, b: "%.2f" % (a / b) if a and b else "-"  # noqa: E731
    if mid:
        print("| workload | phase | old GB/s | mid GB/s | new GB/s | mid/old | new/old | new/mid "
              "| old rounds | mid rounds | new rounds |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---|---|---|")
    else:
        print("| workload | phase | old GB/s | new GB/s | new/old | old rounds | new rounds |")
        print("|---|---|---:|---:|---:|---|---|")
    for (w, ph), v in sorted(got.items()):
        o, m, n = med(v.get("old")), med(v.get("mid")), med(v.get("new"))
        if mid:
            print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                w, ph, num(o), num(m), num(n), ratio(m, o), ratio(n, o), ratio(n, m),
                span(v.get("old")), span(v.get("mid")), span(v.get("new"))))
        else:
            print("| %s | %s | %s | %s | %s | %s | %s |" % (
                w, ph, num(o), num(n), ratio(n, o), span(v.get("old")), span(v.get("new"))))

if __name__ == "__main__":
    main()
