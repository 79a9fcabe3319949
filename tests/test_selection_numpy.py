#!/usr/bin/python3
# test_selection_numpy.py - fresh random selections, answered by NumPy and by tessera, compared.
#
# The C side is test_selection --eval (built next to the CLI, in <build>/tests/); the cases
# come from gen_selection_cases.py's generator. One run uses a fixed seed and a time-based
# one; the latter is printed, and TSR_SEL_SEED=<seed> replays it.
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_selection_cases as gen  # noqa: E402

NCASES = 1500


def find_harness():
    if os.environ.get("TSR_SEL_HARNESS"):
        return os.environ["TSR_SEL_HARNESS"]
    cli = os.environ.get("TSR_BIN")
    if not cli:
        sys.exit("TSR_BIN is not set (run through CTest, or set TSR_SEL_HARNESS)")
    return os.path.join(os.path.dirname(cli), "tests", "test_selection")


def draw(seed):
    rng = gen.random.Random(seed)
    cases = []
    for _ in range(NCASES):
        ndim = rng.randint(0, 4)
        shape = tuple(rng.randint(0, 7) for _ in range(ndim))
        cases.append((shape, gen.rand_spec(rng, shape)))
    return cases


def run(harness, cases):
    text = "".join("%d %s|%s\n" % (len(s), " ".join(str(v) for v in s), spec)
                   for s, spec in cases)
    p = subprocess.run([harness, "--eval"], input=text, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("%s --eval failed (%d): %s" % (harness, p.returncode, p.stderr))
    return p.stdout.splitlines()


def expected_line(shape, spec):
    status, oshape, flat = gen.numpy_answer(shape, spec)
    if status != "TSR_OK":
        return status
    return "TSR_OK %d%s | %d |%s" % (len(oshape), "".join(" %d" % v for v in oshape), len(flat),
                                      "".join(" %d" % v for v in flat))


def main():
    harness = find_harness()
    if not os.path.exists(harness):
        sys.exit("no selection harness at %s (build the test_selection target)" % harness)
    seed = int(os.environ.get("TSR_SEL_SEED", "0")) or int(time.time())
    print("seeds: 1 and %d (TSR_SEL_SEED=%d replays the second)" % (seed, seed))
    failures = 0
    for s in (1, seed):
        cases = draw(s)
        got = run(harness, cases)
        if len(got) != len(cases):
            sys.exit("seed %d: %d answers for %d cases" % (s, len(got), len(cases)))
        for (shape, spec), line in zip(cases, got):
            want = expected_line(shape, spec)
            if line != want:
                failures += 1
                if failures <= 20:
                    print("seed %d: shape %s, %r:\n  tessera %s\n  numpy   %s" %
                          (s, shape, spec, line[:200], want[:200]))
    if failures:
        sys.exit("%d selection(s) differ from NumPy" % failures)
    print("%d cases agree with NumPy" % (2 * NCASES))


if __name__ == "__main__":
    main()
