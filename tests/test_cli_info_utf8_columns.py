"""test_cli_info_utf8_columns.py - `tessera info`'s table pads a UTF-8 array name by the
columns it takes, not its bytes, so the columns after it line up ("nível①" pushed them 3
columns left)."""
import os
import subprocess
import tempfile

from corpus_util import BIN, report

failures = []
with tempfile.TemporaryDirectory() as tmp:
    store = os.path.join(tmp, "u.zarr")
    os.makedirs(store)
    open(os.path.join(store, ".zgroup"), "w").write('{"zarr_format": 2}')
    for name in ("n\u00edvel\u2460", "plain"):
        d = os.path.join(store, name)
        os.makedirs(d)
        open(os.path.join(d, ".zarray"), "w").write(
            '{"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<i2", "compressor": null,'
            ' "fill_value": 0, "order": "C", "filters": null}')
    p = subprocess.run([BIN, "info", store], capture_output=True, text=True, timeout=60)
    rows = [l for l in p.stdout.splitlines() if "int16" in l]
    cols = [r.index("int16") for r in rows]
    if p.returncode or len(rows) != 2 or cols[0] != cols[1]:
        failures.append("rc %d, dtype columns %s:\n%s" % (p.returncode, cols, p.stdout))
report(failures, 1)
