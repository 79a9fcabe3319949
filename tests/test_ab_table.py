"""test_ab_table.py - bench/ab_table.py (scripts/gpu-ab's table): the median GB/s of each side's
rounds and their ratio, and a phase whose receipts name a fallback marked with a numbered note
that quotes it (a mock-device phase of CPU-decoded chunks times no GPU decoder)."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "..", "bench", "ab_table.py")
FB = "blosc2/lz4+shuffle chunks decoded on the CPU (blosc headers are read on the host)"


def phase(pid, ms, fallback=""):
    return {"id": pid, "status": "ok", "bytes_out": 2e9, "elapsed_ms": {"median": ms},
            "receipt": {"fallback": fallback, "decoder": "x"}}


def main():
    d = tempfile.mkdtemp()
    # old: 2 GB in 1000 and 500 ms (median 3 GB/s); new: in 250 ms twice (8 GB/s)
    rounds = {"old": [1000.0, 500.0], "new": [250.0, 250.0]}
    for side, times in rounds.items():
        for k, ms in enumerate(times):
            rep = {"phases": [phase("cuda", ms), phase("cuda_decode_only", ms / 100, FB),
                              {"id": "cpu", "status": "skipped", "bytes_out": 0}]}
            with open(os.path.join(d, "ab-b2_lz4.b2nd-%s-%d.json" % (side, k + 1)), "w") as f:
                json.dump(rep, f)
    out = subprocess.run([sys.executable, TABLE, d], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    fails = []
    cuda = [ln for ln in lines if ln.startswith("| b2_lz4.b2nd | cuda |")]
    if cuda != ["| b2_lz4.b2nd | cuda | 3.00 | 8.00 | 2.67 | 2.00-4.00 | 8.00-8.00 |"]:
        fails.append("the cuda row: %r" % cuda)
    dec = [ln for ln in lines if ln.startswith("| b2_lz4.b2nd | cuda_decode_only [1] |")]
    if len(dec) != 1 or " 300.00 | 800.00 | 2.67 |" not in dec[0]:
        fails.append("the marked cuda_decode_only row: %r" % dec)
    if ("[1] fallback: " + FB) not in lines:
        fails.append("no note quoting the fallback")
    if any(ln.startswith("| b2_lz4.b2nd | cpu") for ln in lines):
        fails.append("a skipped phase has a row")
    if any("[2]" in ln for ln in lines):
        fails.append("a second note for the one fallback")
    for f in fails:
        print("FAIL:", f)
    if fails:
        print(out.stdout)
    print("ab_table: %d checks failed" % len(fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
