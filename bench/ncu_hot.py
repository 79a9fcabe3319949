"""ncu_hot.py - where a kernel's time goes, from Nsight Compute's SASS page (`ncu --import R
--page source --csv --print-source sass`, as `scripts/gpu-check --ncu` writes ncu-sass.csv):
the kernel's straight runs of instructions (each instruction of a run executed as often as the
next: a basic block, or the part of one between branch targets) ranked by their share of the
warp-stall samples. Each row has its address range, instructions, executions, average active
threads, share of samples and of executed instructions, its two largest stall reasons, and
its memory and branch instructions. A profile read this way named the zstd block kernel's
byte-by-byte refill (issue 15).

Usage: python3 bench/ncu_hot.py ncu-sass.csv [rows]"""
import csv
import sys

SAMPLES = "Warp Stall Sampling (All Samples)"
EXECUTED = "Instructions Executed"
THREADS = "Avg. Threads Executed"


def number(text):
    try:
        return float(text.replace(",", ""))
    except (AttributeError, ValueError):
        return 0.0


def read(path):
    """(kernel name, [row dict]) of the CSV's first kernel."""
    lines = open(path, errors="replace").read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"Address"')), None)
    if start is None:
        raise SystemExit("ncu_hot: no \"Address\" header in %s" % path)
    name = ""
    if start > 0 and lines[start - 1].startswith('"Kernel Name"'):
        name = next(csv.reader([lines[start - 1]]))[1].split("(")[0]
    rows = []
    for r in csv.DictReader(lines[start:]):
        if not (r.get("Address") or "").startswith("0x"):
            break  # (a second kernel's table follows)
        rows.append(r)
    return name, rows


def runs(rows):
    """Consecutive rows executed the same number of times, as lists."""
    out = []
    for r in rows:
        if out and number(out[-1][-1][EXECUTED]) == number(r[EXECUTED]):
            out[-1].append(r)
        else:
            out.append([r])
    return out


def opcode(r):
    words = r["Source"].split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else ""


def describe(run, total_samples, total_exec):
    samples = sum(number(r[SAMPLES]) for r in run)
    executed = sum(number(r[EXECUTED]) for r in run)
    stalls = {}
    for r in run:
        for k, v in r.items():
            if k.startswith("stall_") and "Not Issued" not in k:
                stalls[k[6:]] = stalls.get(k[6:], 0.0) + number(v)
    top = sorted(stalls.items(), key=lambda kv: -kv[1])[:2]
    ops = {}
    for r in run:
        op = opcode(r)
        if op.startswith(("LD", "ST", "ATOM", "RED", "BRA", "BSYNC")):
            ops[op] = ops.get(op, 0) + 1
    return {
        "range": "%s-%s" % (run[0]["Address"][-5:], run[-1]["Address"][-5:]),
        "n": len(run),
        "times": number(run[0][EXECUTED]),
        "threads": number(run[0][THREADS]),
        "samples": samples / total_samples if total_samples else 0.0,
        "executed": executed / total_exec if total_exec else 0.0,
        "stalls": ", ".join("%s %.0f%%" % (k, 100 * v / samples) for k, v in top if samples),
        "ops": " ".join("%s×%d" % (k, v) for k, v in sorted(ops.items())),
    }


def table(path, nrows=12):
    name, rows = read(path)
    total_samples = sum(number(r[SAMPLES]) for r in rows)
    total_exec = sum(number(r[EXECUTED]) for r in rows)
    ranked = sorted((describe(run, total_samples, total_exec) for run in runs(rows)),
                    key=lambda d: -d["samples"])[:nrows]
    out = ["%s: %.3g warp instructions executed, %d stall samples, %d SASS instructions" %
           (name or "kernel", total_exec, total_samples, len(rows)), "",
           "| addresses | instrs | executed | threads | samples | instructions | stalls | memory, branches |",
           "|---|---:|---:|---:|---:|---:|---|---|"]
    for d in ranked:
        out.append("| %s | %d | %.3g | %.1f | %.1f%% | %.1f%% | %s | %s |" %
                   (d["range"], d["n"], d["times"], d["threads"], 100 * d["samples"],
                    100 * d["executed"], d["stalls"], d["ops"]))
    return "\n".join(out)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    print(table(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 12))
