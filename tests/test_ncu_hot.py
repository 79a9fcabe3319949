"""test_ncu_hot.py - bench/ncu_hot.py groups Nsight Compute's SASS rows into runs executed
equally often and ranks them by their share of the stall samples (a made-up kernel of three
runs; the sums are known by construction)."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import ncu_hot  # noqa: E402

HEADER = ('"Address","Source","Warp Stall Sampling (All Samples)","Instructions Executed",'
          '"Avg. Threads Executed","stall_long_sb","stall_wait","stall_wait (Not Issued)"')
# address, SASS, samples, executed, threads, long_sb, wait, wait (not issued: ignored)
ROWS = [
    ("0x100", "MOV R1, R2", 10, 5, 32.0, 0, 10, 99),          # run 1: executed 5 times
    ("0x110", "@P0 BRA 0x200", 10, 5, 32.0, 0, 10, 99),
    ("0x120", "LDG.E.U8 R3, [R4]", 300, 1000, 1.0, 240, 60, 0),  # run 2: 1000 times, one lane
    ("0x130", "LOP3.LUT R5, R3, R6", 100, 1000, 1.0, 0, 100, 0),
    ("0x140", "LDS.U16 R7, [R8]", 500, 4000, 3.0, 0, 500, 0),    # run 3: 4000 times
    ("0x150", "STG.E.U8 [R9], R7", 80, 4000, 3.0, 0, 80, 0),
]

failures = []


def check(what, got, want):
    if got != want:
        failures.append("%s: got %r, want %r" % (what, got, want))


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "ncu-sass.csv")
    with open(path, "w") as f:
        f.write('"Kernel Name","demo_kernel(int *)",\n' + HEADER + "\n")
        for r in ROWS:
            f.write(",".join('"%s"' % v for v in r) + "\n")
    name, rows = ncu_hot.read(path)
    check("kernel name", name, "demo_kernel")
    check("rows", len(rows), 6)
    groups = ncu_hot.runs(rows)
    check("runs", [len(g) for g in groups], [2, 2, 2])
    total_samples = sum(r[2] for r in ROWS)  # 1000
    total_exec = sum(r[3] for r in ROWS)  # 10010
    d = [ncu_hot.describe(g, total_samples, total_exec) for g in groups]
    check("run 3 samples", round(d[2]["samples"], 3), 0.58)
    check("run 2 samples", round(d[1]["samples"], 3), 0.4)
    check("run 2 executed", round(d[1]["executed"], 4), round(2000 / 10010, 4))
    check("run 2 threads", d[1]["threads"], 1.0)
    check("run 2 stalls", d[1]["stalls"], "long_sb 60%, wait 40%")
    check("run 2 memory", d[1]["ops"], "LDG×1")
    check("run 1 branch (predicated)", d[0]["ops"], "BRA×1")
    lines = ncu_hot.table(path).splitlines()
    ranked = [l.split("|")[1].strip() for l in lines if l.startswith("| 0x")]
    check("ranking by samples", ranked, ["0x140-0x150", "0x120-0x130", "0x100-0x110"])

for f in failures:
    print(f)
print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
