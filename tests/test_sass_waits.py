"""test_sass_waits.py - scripts/sass-waits: each instruction's scoreboard waits read from the
control bits of nvdisasm -hex output (the wait mask at bits 116-121, the scoreboard a result sets
at 110-112), with each scoreboard's last setter, on a made-up listing of two functions whose
control words are built here."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "scripts", "sass-waits")


def hi_word(wr=7, rd=7, waits=0, stall=1):
    """The high 64 bits of an instruction whose control bits are these (its opcode bits 0)."""
    ctrl = stall | wr << 5 | rd << 8 | waits << 11
    return ctrl << 41


def listing(func, rows):
    out = [".text.%s:" % func]
    for addr, text, hi in rows:
        out.append("        /*%04x*/                   %s ;   /* 0x%016x */" % (addr, text, 0x1234))
        out.append("                                                  /* 0x%016x */" % hi)
    return out


def main():
    lines = listing("_Z1av", [
        (0x00, "LDG.E R2, desc[UR4][R2.64]", hi_word(wr=5)),
        (0x10, "LDS R4, [R5]", hi_word(wr=1)),
        (0x20, "LDC R6, c[0x3][R7]", hi_word(wr=5)),          # SB5 set again: the later one
        (0x30, "BRA.DIV UR4, `(.L_x_1)", hi_word(waits=1 << 5 | 1 << 1)),
        (0x40, "@!P0 BRA.DIV UR4, `(.L_x_2)", hi_word(waits=0)),
        (0x50, "IADD3 R1, R2, R4, RZ", hi_word(waits=1 << 1)),
    ]) + listing("_Z1bv", [
        (0x00, "LD.E R8, desc[UR4][R8.64]", hi_word(wr=3)),
        (0x10, "BRA.DIV UR4, `(.L_x_3)", hi_word(waits=1 << 3 | 1 << 1)),
    ])
    d = tempfile.mkdtemp()
    path = os.path.join(d, "k.sass")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")

    def run(*extra):
        return subprocess.run([sys.executable, TOOL, path, *extra], capture_output=True,
                              text=True, check=True).stdout.splitlines()

    out = run()
    assert len(out) == 3, out
    assert out[0].split()[1] == "30" and out[0].endswith("waits: SB1 <- 10 LDS; SB5 <- 20 LDC"), out
    assert out[1].split()[1] == "40" and out[1].endswith("waits: none"), out
    # a new function starts with no setters known: _Z1bv's SB1 was set only in _Z1av
    assert out[2].startswith("_Z1bv") and out[2].endswith("waits: SB1 <- ?; SB3 <- 0 LD.E"), out
    # a function and another opcode
    out = run("_Z1av", "IADD3")
    assert len(out) == 1 and out[0].endswith("waits: SB1 <- 10 LDS"), out
    print("sass-waits: 4 instructions' waits as their control bits say")


if __name__ == "__main__":
    main()
