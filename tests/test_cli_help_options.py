"""test_cli_help_options.py - `tessera --help` names every option a command's own --help
gives in its usage lines: the top-level help left out info's --level, bench's --decoder,
--storage, --level, --files-per-batch, --prefetch, --dir and --max-files, and demo's --size."""
import re

from corpus_util import Checks, cli

check = Checks()

top = cli("--help")
check("tessera --help: rc %d" % top.returncode, top.returncode == 0)
for cmd in ("info", "read", "bench", "demo"):
    r = cli(cmd, "--help")
    check("%s --help: rc %d" % (cmd, r.returncode), r.returncode == 0)
    usage = []  # the usage lines: "usage: ..." and the indented lines that go on from it
    for line in r.stdout.splitlines():
        if line.startswith("usage:") or (usage and line.startswith(" ")):
            usage.append(line)
        elif usage:
            break
    opts = set(re.findall(r"--[a-z][a-z-]*", " ".join(usage))) - {"--help"}
    check("%s: usage names options (%d)" % (cmd, len(opts)), len(opts) > 0)
    # the command's entry in the top-level help: from "  CMD " to the next command's entry
    m = re.search(r"^  %s .*?(?=^  [a-z]+ |^\s*$)" % cmd, top.stdout, re.S | re.M)
    entry = m.group(0) if m else ""
    missing = sorted(o for o in opts if not re.search(re.escape(o) + r"\b", entry))
    check("%s: tessera --help lacks %s" % (cmd, missing), entry and not missing)

check.report()
