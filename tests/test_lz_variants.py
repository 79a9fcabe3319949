"""test_lz_variants.py - bench/lz_variants.py (scripts/gpu-lz-kernels with VARIANTS): each
build's GB/s in its own column on the row of its kernel, codec, data and shape, its ratio to the
first build's, nVCOMP's from the first build, and a row one build lacks shown as "-"."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "..", "bench", "lz_variants.py")


def main():
    d = tempfile.mkdtemp()
    with open(os.path.join(d, "off"), "w") as f:
        f.write("| few | lz4 | shuffled-floats | 2048 x 128 | 1.35 | 200.0 | 261.3 | 0.77 |\n")
        f.write("| few | lz4hc-9 | shuffled-floats | 2048 x 128 | 1.43 | 120.0 | - | - |\n")
    with open(os.path.join(d, "on"), "w") as f:
        f.write("| few | lz4hc-9 | shuffled-floats | 2048 x 128 | 1.43 | 150.0 | - | - |\n")
        f.write("| few | lz4 | shuffled-floats | 2048 x 128 | 1.35 | 210.0 | 262.0 | 0.80 |\n")
        f.write("| many | lz4 | floats | 10000 x 64 | 1.00 | 500.0 | 600.0 | 0.83 |\n")
    out = subprocess.run([sys.executable, TABLE, d, "off", "on"], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    want = [
        "| kernel | codec | data | streams x KiB | ratio | off GB/s | on GB/s | on / off | "
        "nVCOMP GB/s |",
        "|---|---|---|---|---|---|---|---|---|",
        "| few | lz4 | shuffled-floats | 2048 x 128 | 1.35 | 200.0 | 210.0 | 1.05 | 261.3 |",
        "| few | lz4hc-9 | shuffled-floats | 2048 x 128 | 1.43 | 120.0 | 150.0 | 1.25 | - |",
        "| many | lz4 | floats | 10000 x 64 | 1.00 | - | 500.0 | - | - |",
    ]
    if out != want:
        print("got:\n" + "\n".join(out) + "\nwanted:\n" + "\n".join(want))
        return 1
    print("lz_variants: %d rows joined as wanted" % (len(want) - 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
