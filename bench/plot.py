"""plot.py - a PNG bar chart of decoded GB/s per workload and reader from `tessera bench` JSON reports.

    python3 bench/plot.py -o chart.png r1.json r2.json ...   [--label r1.json=NAME ...]

It also takes bench/peers.py JSON files (schema "tessera-peers"): each of their workloads is
one group of bars, one per reader (tessera and its peers), with the reader's device.

Each report is one workload (its FILEs); each phase of it that ran is one reader (tessera's
end-to-end CPU and CUDA reads, single and batched, and raw storage reads for reference).
Bars are decoded output bytes per second at the median iteration (raw read: file bytes per
second, since it decodes nothing), in GB/s (10^9 bytes). Phases that were skipped, failed or
are not implemented are left out and named under the chart, with the machines and dates the
reports came from. Needs Debian's python3-matplotlib (in the Makefile's DEB_PACKAGES).
"""
import argparse
import json
import os
import re
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")  # no display on the benchmark machines
import matplotlib.pyplot as plt  # noqa: E402

# Readers in the order they are drawn; raw read is storage alone, for scale.
READERS = [("raw_read", "raw read (storage)"), ("cpu", "tessera CPU"),
           ("cpu_batch", "tessera CPU batch"), ("cuda", "tessera CUDA"),
           ("cuda_batch", "tessera CUDA batch"), ("cuda_stream", "tessera CUDA stream")]


def workload_label(report, path, labels):
    if path in labels:
        return labels[path]
    w = report["workload"]
    names = [os.path.basename(f["path"].rstrip("/")) for f in w["files"]]
    if len(set(names)) > 1:
        head = "%s +%d" % (names[0], len(names) - 1)
    else:
        head = names[0] if len(names) == 1 else "%d x %s" % (len(names), names[0])
    n = w["decoded_bytes"]
    size = "%.1f MB" % (n / 1e6) if n >= 1e5 else "%.1f kB" % (n / 1e3)
    return "%s\n%s, %s" % (head, "+".join(w["codecs"]), size)


def machine(report):
    cuda = report["capabilities"]["cuda"]
    gpu = ", ".join(d["name"] for d in cuda.get("devices", [])) or "no GPU"
    return "%s (%d CPUs, %s), %s" % (report["host"]["hostname"], report["host"]["cpus"], gpu,
                                     report["created"][:10])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("reports", nargs="+", help="tessera bench --output-json files")
    ap.add_argument("-o", "--output", required=True, help="PNG to write")
    ap.add_argument("--label", action="append", default=[],
                    help="REPORT=NAME: the workload name of one report on the chart")
    ap.add_argument("--log", action="store_true", help="logarithmic GB/s axis")
    ap.add_argument("--title", default="tessera: decoded GB/s per workload and reader")
    args = ap.parse_args()
    labels = dict(x.split("=", 1) for x in args.label)

    rows, missing, machines = [], {}, []
    readers_all = list(READERS)
    for path in args.reports:
        with open(path) as f:
            r = json.load(f)
        if r.get("schema") == "tessera-peers":
            groups = {}
            for x in r["results"]:
                # one reader across workloads: "(64 streams)" and such stay in the JSON
                name = "%s (%s)" % (re.sub(r" \(\d+ streams\)", "", x["reader"]), x["device"])
                if (name, name) not in readers_all:
                    readers_all.append((name, name))
                if x["gb_per_s"]:
                    groups.setdefault(x["workload"], {})[name] = x["gb_per_s"]
            rows += [("%s\n%.0f MB" % (w, next(y["decoded_bytes"] for y in r["results"]
                                               if y["workload"] == w) / 1e6), sp)
                     for w, sp in groups.items()]
            devs = ", ".join(d["name"] for d in r["cuda"].get("devices", [])) or "no GPU"
            m = "%s (%d CPUs, %s), %s" % (r["host"]["hostname"], r["host"]["cpus"], devs,
                                         r["created"][:10])
            if m not in machines:
                machines.append(m)
            continue
        if r.get("schema") != "tessera-bench-report" or r.get("schema_version") != 1:
            sys.exit("plot.py: %s is not a schema 1 tessera bench report" % path)
        label = workload_label(r, path, labels)
        speeds = {}
        for p in r["phases"]:
            if p["id"] not in dict(READERS):
                continue
            rate = p["mb_per_s_out"] if p["id"] != "raw_read" else p["mb_per_s_in"]
            if p["ok"] and rate:
                speeds[p["id"]] = rate / 1e3
            elif p["status"] != "not_implemented":
                key = "%s (%s)" % (p["name"], p["status"])
                missing[key] = missing.get(key, 0) + 1
        rows.append((label, speeds))
        if machine(r) not in machines:
            machines.append(machine(r))

    readers = [(rid, name) for rid, name in readers_all if any(rid in s for _, s in rows)]
    if not readers:
        sys.exit("plot.py: no phase in these reports ran")
    # Each workload's group holds only the readers that ran on it, side by side; a reader has
    # one colour throughout.
    most = max(sum(1 for rid, _ in readers if rid in sp) for _, sp in rows)
    width = 0.84 / most
    cmap = plt.get_cmap("tab20" if len(readers) > 10 else "tab10")
    colour = {rid: cmap(k % cmap.N) for k, (rid, _) in enumerate(readers)}
    fig, ax = plt.subplots(figsize=(min(26, max(7, 0.9 * len(rows) * max(1, most / 3) + 4)),
                                    5.6))
    shown = set()
    for i, (_, sp) in enumerate(rows):
        here = [(rid, name) for rid, name in readers if rid in sp]
        for k, (rid, name) in enumerate(here):
            x = i + (k - (len(here) - 1) / 2) * width
            y = sp[rid]
            ax.bar(x, y, width, color=colour[rid], label=None if rid in shown else name)
            shown.add(rid)
            ax.annotate("%.2f" % y, (x, y), ha="center", va="bottom", fontsize=6,
                        rotation=90 if most > 6 else 0)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([lab for lab, _ in rows], fontsize=7, rotation=20, ha="right")
    if args.log:
        ax.set_yscale("log")
    ax.set_ylabel("GB/s (decoded output; raw read: file bytes)")
    ax.set_title(args.title)
    handles, names = ax.get_legend_handles_labels()
    order = [names.index(name) for _, name in readers if name in names]
    ax.legend([handles[j] for j in order], [names[j] for j in order], fontsize=7,
              loc="upper left", bbox_to_anchor=(1.0, 1.0))
    note = "measured on " + "; ".join(machines)
    if missing:
        note += "\nnot measured: " + "; ".join(
            "%s in %d of %d" % (k, n, len(rows)) for k, n in missing.items())
    note = "\n".join(textwrap.fill(line, int(fig.get_figwidth() * 16)) for line in note.split("\n"))
    fig.text(0.01, 0.01, note, fontsize=7, va="bottom")
    fig.tight_layout(rect=(0, 0.08 + 0.03 * note.count("\n"), 1, 1))
    fig.savefig(args.output, dpi=120)
    print("wrote %s" % args.output)


if __name__ == "__main__":
    main()
