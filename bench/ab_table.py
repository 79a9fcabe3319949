"""ab_table.py - the table of scripts/gpu-ab: for each workload and `tessera bench` phase, the
median GB/s (of output) of the old and the new tree over every round's reports, new/old, and
the range of each side's rounds (the noise a ratio is read against); with a third (mid) tree's
reports, its median, mid/old and its range too. A phase whose receipts name a fallback (chunks the
CPU decoded; on the mock device, their values replayed from device memory, so no GPU decoder
ran) is marked with a numbered note, the fallback's text under the table: its GB/s is not the
GPU decoders'."""
import glob
import json
import os
import re
import statistics
import sys


def main():
    d = sys.argv[1]
    got = {}
    why = {}  # (workload, phase) -> the fallbacks its receipts name
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
            fb = (p.get("receipt") or {}).get("fallback") or ""
            if fb:
                why.setdefault((m.group(1), p["id"]), set()).add(fb)
    sides = ["old", "mid", "new"] if any("mid" in v for v in got.values()) else ["old", "new"]
    pairs = [("mid", "old"), ("new", "old"), ("new", "mid")] if "mid" in sides else [("new", "old")]
    med = lambda xs: statistics.median(xs) if xs else None  # noqa: E731
    span = lambda xs: "%.2f-%.2f" % (min(xs), max(xs)) if xs else "-"  # noqa: E731
    ratio = lambda a, b: "%.2f" % (a / b) if a and b else "-"  # noqa: E731
    head = ["workload", "phase"] + ["%s GB/s" % x for x in sides] + \
        ["%s/%s" % pr for pr in pairs] + ["%s rounds" % x for x in sides]
    print("| " + " | ".join(head) + " |")
    print("|---|---|" + "---:|" * (len(sides) + len(pairs)) + "---|" * len(sides))
    notes = []
    for (w, ph), v in sorted(got.items()):
        m = {x: med(v.get(x)) for x in sides}
        label = ph
        for fb in sorted(why.get((w, ph), ())):
            if fb not in notes:
                notes.append(fb)
            label += " [%d]" % (notes.index(fb) + 1)
        row = [w, label] + ["%.2f" % m[x] if m[x] else "-" for x in sides] + \
            [ratio(m[a], m[b]) for a, b in pairs] + [span(v.get(x)) for x in sides]
        print("| " + " | ".join(row) + " |")
    for i, fb in enumerate(notes):
        print("[%d] fallback: %s" % (i + 1, fb))


if __name__ == "__main__":
    main()
