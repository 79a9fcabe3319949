#!/usr/bin/python3
# gen_selection_cases.py - writes NumPy's answers for selection cases into tests/selection_cases.h (test_selection.c includes it).
#
# Run it with Debian's python3 (which has numpy) after changing the cases:
#     /usr/bin/python3 tests/gen_selection_cases.py
# It rewrites selection_cases.h, which test_selection.c includes. The seed is
# fixed, so the output only changes when this script or NumPy changes. CTest does not run it.
import os
import random
import sys

import numpy as np

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)
MAX_DIM = 32
BIG = [INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, 10**18, -(10**18), 2**62, -(2**62)]


def numpy_answer(shape, spec):
    """(status, out_shape, flat indices) of np.arange(prod).reshape(shape)[spec]."""
    size = int(np.prod(shape, dtype=np.int64))
    if len(shape) > 4:
        # Many dims (all of size 1 here): a view of one element keeps memory small.
        x = np.lib.stride_tricks.as_strided(np.arange(max(size, 1)), shape=shape,
                                            strides=(0,) * len(shape))
    else:
        x = np.arange(size).reshape(shape)
    try:
        r = eval("x[" + spec + "]") if spec.strip() else x[()]
    except IndexError as e:
        msg = str(e)
        if "out of bounds" in msg:
            return "TSR_E_RANGE", None, None
        if ("single ellipsis" in msg or "too many indices" in msg
                or "number of dimensions must be within" in msg):
            return "TSR_E_SELECTION", None, None
        raise
    except ValueError as e:
        if "step cannot be zero" in str(e):
            return "TSR_E_SELECTION", None, None
        raise
    r = np.asarray(r)
    return "TSR_OK", tuple(int(v) for v in r.shape), [int(v) for v in r.ravel()]


def sp(rng):
    """Optional whitespace, since the parser must tolerate it anywhere between tokens."""
    return rng.choice(["", "", "", "", " ", "  ", "\t"])


def rand_int(rng, n, lo_pad=2, hi_pad=1):
    if rng.random() < 0.05:
        return rng.choice(BIG)
    return rng.randint(-n - lo_pad, n + hi_pad)


def fmt_int(rng, v):
    s = str(v)
    if v >= 0 and rng.random() < 0.05:
        s = "+" + s
    elif v < 0 and rng.random() < 0.05:
        s = "- " + s[1:]
    return s


def rand_slice(rng, n):
    parts = []
    for which in range(3):
        r = rng.random()
        if which == 2:
            if r < 0.35:
                parts.append(None)
            elif r < 0.04 + 0.35:
                parts.append(0)
            elif r < 0.08 + 0.35:
                parts.append(rng.choice(BIG))
            else:
                parts.append(rng.choice([1, 2, 3, -1, -2, -3, 4, -4]))
        elif r < 0.4:
            parts.append(None)
        else:
            parts.append(rand_int(rng, n, 3, 3))
    texts = []
    for v in parts:
        if v is None:
            texts.append("None" if rng.random() < 0.05 else "")
        else:
            texts.append(sp(rng) + fmt_int(rng, v) + sp(rng))
    if parts[2] is None and texts[2] == "" and rng.random() < 0.5:
        return texts[0] + ":" + texts[1]
    return texts[0] + ":" + texts[1] + ":" + texts[2]


def rand_spec(rng, shape):
    ndim = len(shape)
    items = []
    nidx = rng.randint(0, ndim + (1 if rng.random() < 0.1 else 0))
    axis = 0
    for _ in range(nidx):
        n = shape[axis] if axis < ndim else 3
        if rng.random() < 0.3:
            items.append(fmt_int(rng, rand_int(rng, n)))
        else:
            items.append(rand_slice(rng, n))
        axis += 1
    nell = 0
    r = rng.random()
    if r < 0.3:
        nell = 1
    elif r < 0.33:
        nell = 2
    for _ in range(nell):
        items.insert(rng.randint(0, len(items)), "...")
    for _ in range(rng.choice([0, 0, 0, 1, 1, 2])):
        items.insert(rng.randint(0, len(items)), "None")
    spec = ",".join(sp(rng) + t + sp(rng) for t in items)
    if items and rng.random() < 0.08:
        spec += ","
    return spec


HAND = [
    # (shape, spec)
    ((5,), ""), ((5,), "  "), ((5,), ":"), ((5,), "::"), ((5,), "::-1"), ((5,), "::2"),
    ((5,), "5:"), ((5,), ":-1"), ((5,), "-1"), ((5,), "-5"), ((5,), "-6"), ((5,), "5"),
    ((5,), "4,"), ((5,), "10:2:-3"), ((5,), "2:10:-1"), ((5,), "3:3"), ((5,), "4:1"),
    ((5,), "-100:100"), ((5,), "100:-100:-1"), ((5,), "-100:100:-1"), ((5,), "::0"),
    ((5,), "1:2:0"), ((5,), "None"), ((5,), "..."), ((5,), "...,None"), ((5,), "None,..."),
    ((5,), "None,None,3"), ((5,), "3,None"), ((5,), "...,3"), ((5,), "3,..."),
    ((5,), "...,..."), ((5,), "1,2"), ((5,), "...,1,2"), ((5,), "None:None:None"),
    ((5,), "None:3"), ((5,), "-9223372036854775808:9223372036854775807:-1"),
    ((5,), "9223372036854775807:-9223372036854775808:-1"),
    ((5,), "-9223372036854775808:9223372036854775807"),
    ((5,), "::-9223372036854775808"), ((5,), "::9223372036854775807"),
    ((5,), "::-9223372036854775807"), ((5,), "-9223372036854775808"),
    ((5,), "9223372036854775807"), ((5,), "2::-9223372036854775808"),
    ((5,), "1::9223372036854775807"),
    ((0,), ""), ((0,), ":"), ((0,), "::-1"), ((0,), "0"), ((0,), "-1"), ((0,), "None"),
    ((0,), "5:1:-1"), ((0,), "-1:"),
    ((4, 5), "0,None"), ((4, 5), "None,...,None"), ((4, 5), "...,None"), ((4, 5), "None"),
    ((4, 5), "::-1,::-2"), ((4, 5), "1"), ((4, 5), "1,"), ((4, 5), "-1,-1"),
    ((4, 5), "...,-1"), ((4, 5), "1:3,...,None"), ((4, 5), "None,1,None,2,None"),
    ((4, 5), "1,2,3"), ((4, 5), "4,0"), ((4, 5), "0,5"), ((4, 5), "0,-6"), ((4, 5), ":,::0"),
    ((4, 5), "::0,9"), ((4, 5), "9,::0"), ((4, 5), "...,None,...,"), ((4, 5), "2:2,1"),
    ((4, 0), "1"), ((4, 0), "1,:"), ((4, 0), "...,::-1"), ((4, 0), ":,0"),
    ((2, 3, 4), "...,1,..."), ((2, 3, 4), "1,...,1"), ((2, 3, 4), ":,None,:,None,:"),
    ((2, 3, 4), "None,None,None,None,None,None"), ((2, 3, 4), "-2,::-1,1::2"),
    ((2, 3, 4, 5), "...,::-1,None"), ((2, 3, 4, 5), "1,...,None,2"),
    ((7, 7, 7, 7), "::3,-1,1:-1:2,::-4"),
    ((), ""), ((), "..."), ((), "None"), ((), "None,...,None"), ((), "...,None"),
    ((), "0"), ((), ":"), ((), "...,..."),
    # NumPy allows at most 32 result dimensions.
    ((1,) * 32, "..."), ((1,) * 32, "None"), ((1,) * 32, "0,None"), ((1,) * 32, "...,None"),
    ((1,) * 31, "None"), ((1,) * 31, "None,None"), ((1,) * 31, "None,None,0"),
    ((1,) * 30, "None,None,None,None,...,0,0"), ((1,) * 30, "None,None,None,...,0,5"),
    ((), ",".join(["None"] * 32)), ((), ",".join(["None"] * 33)),
    ((1,) * 32, ",".join(["0"] * 32)), ((1,) * 32, ",".join(["0"] * 33)),
    ((1,) * 32, ",".join(["-1"] * 31 + ["1"])),
]

# Slices of one huge axis, answered by Python's own slice.indices (no array is made).
BIG_N = [0, 1, 2, 3, 10, 2**31, 2**32 + 1, 2**62, INT64_MAX - 1, INT64_MAX]


def big_slice_cases(rng):
    vals = [None, 0, 1, -1, 2, -2, 5, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1,
            2**62, -(2**62), 2**32, -(2**32)]
    steps = [None, 1, -1, 2, -2, 3, -7, INT64_MAX, INT64_MIN, INT64_MIN + 1, INT64_MAX - 1,
             2**62, -(2**62)]
    cases = []
    fixed = [(INT64_MAX, INT64_MIN, INT64_MAX, -1), (INT64_MAX, INT64_MAX, INT64_MIN, -1),
             (INT64_MAX, INT64_MIN, INT64_MAX, None), (INT64_MAX, None, None, -1),
             (INT64_MAX, None, None, INT64_MIN), (INT64_MAX, None, None, None),
             (INT64_MAX, 1, None, 2), (INT64_MAX, None, None, -2),
             (INT64_MAX - 1, None, None, -3), (INT64_MAX, -1, None, INT64_MIN),
             (INT64_MAX, INT64_MIN, None, INT64_MIN), (INT64_MAX, 0, INT64_MAX, INT64_MAX),
             (INT64_MAX, 0, INT64_MAX, INT64_MAX - 1), (INT64_MAX, INT64_MAX, None, INT64_MIN)]
    for n, a, b, c in fixed:
        cases.append((n, a, b, c))
    for _ in range(120):
        cases.append((rng.choice(BIG_N), rng.choice(vals), rng.choice(vals), rng.choice(steps)))
    out = []
    for n, a, b, c in cases:
        spec = ("" if a is None else str(a)) + ":" + ("" if b is None else str(b)) + ":" + \
            ("" if c is None else str(c))
        r = range(*slice(a, b, c).indices(n))
        out.append((n, spec, r.start, r.step, len(r)))
    return out


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t") + '"'


def main():
    rng = random.Random(20240611)
    cases = list(HAND)
    for _ in range(400):
        ndim = rng.randint(1, 4)
        shape = tuple(rng.randint(0, 7) for _ in range(ndim))
        cases.append((shape, rand_spec(rng, shape)))

    lines = []
    idx = []
    rows = []
    for shape, spec in cases:
        status, oshape, flat = numpy_answer(shape, spec)
        sh = "{" + ", ".join(str(v) for v in shape) + "}" if shape else "{0}"
        if status == "TSR_OK":
            os_ = "{" + ", ".join(str(v) for v in oshape) + "}" if oshape else "{0}"
            rows.append("\t{%s, %d, %s, %s, %d, %s, %d, %d}," %
                        (c_str(spec), len(shape), sh, status, len(oshape), os_, len(flat),
                         len(idx)))
            idx.extend(flat)
        else:
            rows.append("\t{%s, %d, %s, %s, 0, {0}, 0, 0}," % (c_str(spec), len(shape), sh,
                                                              status))
    lines.append("/* %d cases: %d hand-picked, the rest random (seed 20240611). */" %
                 (len(cases), len(HAND)))
    lines.append("static const int np_idx[] = {")
    for i in range(0, len(idx), 20):
        lines.append("\t" + ", ".join(str(v) for v in idx[i:i + 20]) + ",")
    if not idx:
        lines.append("\t0,")
    lines.append("};")
    lines.append("")
    lines.append("static const struct np_case np_cases[] = {")
    lines.extend(rows)
    lines.append("};")
    lines.append("")
    big = big_slice_cases(rng)
    lines.append("/* Slices of one axis of n elements, from Python's slice(...).indices(n). */")
    lines.append("static const struct big_case big_cases[] = {")
    for n, spec, start, step, count in big:
        lines.append("\t{INT64_C(%d), %s, %s, %s, INT64_C(%d)}," %
                     (n, c_str(spec), c_int64(start), c_int64(step), count))
    lines.append("};")

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "selection_cases.h")
    head = ("/* selection_cases.h - NumPy's answers for test_selection.c, written by "
            "gen_selection_cases.py\n * (regenerate with /usr/bin/python3 "
            "tests/gen_selection_cases.py; do not edit by hand). */\n")
    with open(path, "w") as f:
        f.write(head + "\n".join(lines) + "\n")
    print("%s: %d numpy cases (%d indices), %d big-slice cases" %
          (path, len(cases), len(idx), len(big)), file=sys.stderr)


def c_int64(v):
    # INT64_MIN has no literal of its own in C.
    if v == INT64_MIN:
        return "INT64_MIN"
    return "INT64_C(%d)" % v


if __name__ == "__main__":
    main()
