"""ab_table.py - the table of scripts/gpu-ab: for each workload and `tessera bench` phase, the
median GB/s (of output) of the old and the new tree over every round's reports, new/old, and
the range of each side's rounds (the noise a ratio is read against)."""
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
        m = re.match(r"ab-(.*)-(old|new)-(\d+)\.json$", os.path.basename(f))
        try:
            r = json.load(open(f))
        except (OSError, ValueError):
            continue
        for p in r.get("phases", []):
            if p.get("status") != "ok" or not p.get("bytes_out"):
                continue
            gbps = p["bytes_out"] / (p["elapsed_ms"]["median"] / 1e3) / 1e9
            got.setdefault((m.group(1), p["id"]), {}).setdefault(m.group(2), []).append(gbps)
    print("| workload | phase | old GB/s | new GB/s | new/old | old rounds | new rounds |")
    print("|---|---|---:|---:|---:|---|---|")
    for (w, ph), v in sorted(got.items()):
        o = statistics.median(v["old"]) if "old" in v else None
        n = statistics.median(v["new"]) if "new" in v else None
        span = lambda xs: "%.2f-%.2f" % (min(xs), max(xs)) if xs else "-"  # noqa: E731
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            w, ph, "%.2f" % o if o else "-", "%.2f" % n if n else "-",
            "%.2f" % (n / o) if o and n else "-", span(v.get("old")), span(v.get("new"))))


if __name__ == "__main__":
    main()
