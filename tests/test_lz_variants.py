"""test_lz_variants.py - bench/lz_variants.py (scripts/gpu-lz-kernels with VARIANTS): each
build's GB/s in its own column on the row of its kernel, codec, data and shape, its ratio to the
first build's, nVCOMP's and the first build's ratio to it from the first build, a row one
build lacks shown as "-"; and with one build, the table the script printed before VARIANTS."""
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
        "nVCOMP GB/s | off / nVCOMP |",
        "|---|---|---|---|---|---|---|---|---|---|",
        "| few | lz4 | shuffled-floats | 2048 x 128 | 1.35 | 200.0 | 210.0 | 1.05 | 261.3 | 0.77 |",
        "| few | lz4hc-9 | shuffled-floats | 2048 x 128 | 1.43 | 120.0 | 150.0 | 1.25 | - | - |",
        "| many | lz4 | floats | 10000 x 64 | 1.00 | - | 500.0 | - | - | - |",
    ]
    bad = 0
    if out != want:
        print("got:\n" + "\n".join(out) + "\nwanted:\n" + "\n".join(want))
        bad = 1
    os.rename(os.path.join(d, "off"), os.path.join(d, "tessera"))
    one = subprocess.run([sys.executable, TABLE, d, "tessera"], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    want1 = [
        "| kernel | codec | data | streams x KiB | ratio | tessera GB/s | nVCOMP GB/s | "
        "tessera / nVCOMP |",
        "|---|---|---|---|---|---|---|---|",
        "| few | lz4 | shuffled-floats | 2048 x 128 | 1.35 | 200.0 | 261.3 | 0.77 |",
        "| few | lz4hc-9 | shuffled-floats | 2048 x 128 | 1.43 | 120.0 | - | - |",
    ]
    if one != want1:
        print("got:\n" + "\n".join(one) + "\nwanted:\n" + "\n".join(want1))
        bad = 1
    if not bad:
        print("lz_variants: %d rows of two builds and %d of one as wanted"
              % (len(want) - 2, len(want1) - 2))
    return bad


if __name__ == "__main__":
    sys.exit(main())
