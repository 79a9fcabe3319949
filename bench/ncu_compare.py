"""ncu_compare.py - kernels side by side from Nsight Compute's raw page (`ncu --import R --page
raw --csv`): a column a profiled launch, its time, warp instructions, threads an instruction,
issue, occupancy, registers, and the stall reasons that cost most cycles per issued instruction.
Written to tell where tessera's LZ4 kernels and nVCOMP's differ on the same streams (issue 16).

Usage: python3 bench/ncu_compare.py raw.csv [LABEL ...] (one label a launch, in order)"""
import csv
import sys

ROWS = [
    ("time", "gpu__time_duration.sum", 1),
    ("warp instructions (M)", "smsp__inst_executed.sum", 1e-6),
    ("threads an instruction", "smsp__thread_inst_executed_per_inst_executed.ratio", 1),
    ("issue active (%)", "smsp__issue_active.avg.pct_of_peak_sustained_active", 1),
    ("warps active an SM (%)", "sm__warps_active.avg.pct_of_peak_sustained_active", 1),
    ("registers", "launch__registers_per_thread", 1),
    ("grid x block", None, 1),
    ("cycles an issue", "smsp__average_warp_latency_per_inst_issued.ratio", 1),
]
STALL = "smsp__average_warps_issue_stalled_"
STALL_END = "_per_issue_active.ratio"


def number(text):
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return None


def short(name):
    """A kernel's name without its arguments, return type or namespaces."""
    name = name.split("(")[0]
    if name.startswith("void "):
        name = name[len("void "):]
    base, tmpl = (name.split("<", 1) + [""])[:2]
    return (base.split("::")[-1] + ("<" + tmpl if tmpl else ""))[:40]


def main():
    rows = list(csv.reader(open(sys.argv[1], errors="replace")))
    head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if head is None:
        sys.exit("ncu_compare.py: no kernel in %s" % sys.argv[1])
    names, units = rows[head], rows[head + 1]
    launches = [r for r in rows[head + 2:] if len(r) == len(names)]
    col = {n: i for i, n in enumerate(names)}
    labels = sys.argv[2:] + [""] * len(launches)
    heads = [labels[j] or short(launches[j][col["Kernel Name"]]) for j in range(len(launches))]
    print("| metric | " + " | ".join(heads) + " |")
    print("|---|" + "---:|" * len(launches))
    for text, metric, scale in ROWS:
        cells = []
        for r in launches:
            if metric is None:
                cells.append("%s x %s" % (r[col.get("launch__grid_size", 0)],
                                          r[col.get("launch__block_size", 0)]))
                continue
            v = number(r[col[metric]]) if metric in col else None
            cells.append("-" if v is None else "%.2f" % (v * scale))
        unit = units[col[metric]] if metric in col and text == "time" else ""
        print("| %s%s | %s |" % (text, " (%s)" % unit if unit else "", " | ".join(cells)))
    stalls = [n for n in names if n.startswith(STALL) and n.endswith(STALL_END)
              and "_not_issued" not in n]
    cost = {n: sum(number(r[col[n]]) or 0 for r in launches) for n in stalls}
    for n in sorted(stalls, key=lambda n: -cost[n])[:8]:
        cells = ["%.2f" % (number(r[col[n]]) or 0) for r in launches]
        print("| stall: %s | %s |" % (n[len(STALL):-len(STALL_END)], " | ".join(cells)))


if __name__ == "__main__":
    main()
