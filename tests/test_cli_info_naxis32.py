"""test_cli_info_naxis32.py - `tessera info` describes a valid FITS image of NAXIS = 32 (the most
tessera takes, 1x...x10000x1x1 uint8) whole: its shape text, the widest there is, is printed in
full and nothing is written past a buffer (issue 21 D1: 64-byte stack buffers overflowed; the
ASan suite runs this test too)."""
import json
import os
import subprocess
import tempfile

from corpus_util import BIN, report

failures = []
total = 0


def card(key, value):
    return ("%-8s= %20s" % (key, value)).ljust(80).encode("ascii")


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "naxis32.fits")
    naxis = [1, 1, 10000] + [1] * 29  # NAXIS1 (fastest) first
    cards = [card("SIMPLE", "T"), card("BITPIX", "8"), card("NAXIS", "32")]
    cards += [card("NAXIS%d" % (i + 1), str(n)) for i, n in enumerate(naxis)]
    cards.append(b"END".ljust(80))
    header = b"".join(cards)
    header += b" " * (-len(header) % 2880)
    data = bytes(range(256)) * 39 + bytes(16)
    with open(path, "wb") as f:
        f.write(header + data + bytes(-len(data) % 2880))
    shape = naxis[::-1]
    want = "x".join(str(n) for n in shape)

    total += 1
    p = subprocess.run([BIN, "info", path], capture_output=True, text=True, timeout=60)
    rows = [l for l in p.stdout.splitlines() if l.startswith("0 ")]
    if p.returncode != 0 or len(rows) != 1 or (" %s " % want) not in rows[0]:
        failures.append("text: exit %d, stderr %r, rows %r; want shape %s" % (
            p.returncode, p.stderr, rows, want))

    total += 1
    p = subprocess.run([BIN, "info", path, "--json"], capture_output=True, text=True, timeout=60)
    if p.returncode != 0 or json.loads(p.stdout)["entries"][0]["shape"] != shape:
        failures.append("json: exit %d: %r" % (p.returncode, p.stdout[-300:]))

report(failures, total)
