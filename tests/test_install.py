"""test_install.py - `cmake --install` into a temporary prefix puts the shared and static
libraries, tessera.h, the CLI, tessera.pc and the CMake package there, and the README's C
example builds against that prefix four ways and reads a file: pkg-config shared and static
(libtessera.a with `pkg-config --static --libs`), CMake tessera::tessera and
tessera::tessera_static. Nothing of the build tree is used but what was installed."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from corpus_util import BIN, CORPUS, report

SRC = os.environ.get("TSR_SRC", os.path.join(os.path.dirname(__file__), ".."))
BUILD = os.path.dirname(os.path.abspath(BIN))
failures = []
total = 0
CC = os.environ.get("CC", "cc")
SAMPLE = os.path.join(CORPUS, "fits", "c_rice_i16_tiles.fits")


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    if p.returncode != 0:
        failures.append("%s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout[-3000:],
                                               p.stderr[-3000:]))
    return p


def check_example(what, exe):
    """The example reads the sample whole: the file's int16 image, 2 bytes a pixel."""
    global total
    total += 1
    if not os.path.exists(exe):
        failures.append("%s: not built" % what)
        return
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    p = subprocess.run([exe, SAMPLE, "10:20,::3"], capture_output=True, text=True, timeout=60,
                       env=env)
    m = re.match(r"fits int16: (\d+) bytes", p.stdout)
    if p.returncode != 0 or not m:
        failures.append("%s: exit %d, %r %r" % (what, p.returncode, p.stdout, p.stderr))
        return
    info = subprocess.run([BIN, "info", SAMPLE, "--json"], capture_output=True, text=True)
    import json
    shape = [e for e in json.loads(info.stdout)["entries"] if e["kind"] == "array"][0]["shape"]
    want = 10 * ((shape[1] + 2) // 3) * 2
    if int(m.group(1)) != want:
        failures.append("%s: read %s bytes, want %d" % (what, m.group(1), want))


readme = open(os.path.join(SRC, "README.md")).read()
example = re.search(r"## The C API in short\s+```c\n(.*?)```", readme, re.S).group(1)

with tempfile.TemporaryDirectory() as tmp:
    prefix = os.path.join(tmp, "prefix")
    run(["cmake", "--install", BUILD, "--prefix", prefix])
    total += 1
    libdir = None
    for root, _, files in os.walk(prefix):
        if "libtessera.a" in files:
            libdir = root
    for rel in ("include/tessera.h", "bin/tessera"):
        if not os.path.exists(os.path.join(prefix, rel)):
            failures.append("not installed: %s" % rel)
    if not libdir or not os.path.exists(os.path.join(libdir, "libtessera.so")) or \
            not os.path.exists(os.path.join(libdir, "pkgconfig", "tessera.pc")) or \
            not os.path.exists(os.path.join(libdir, "cmake", "tessera", "tesseraConfig.cmake")):
        failures.append("libraries, tessera.pc or the CMake package not installed (libdir %s)"
                        % libdir)
        report(failures, total)
    total += 1
    p = subprocess.run([os.path.join(prefix, "bin", "tessera"), "--version"],
                       capture_output=True, text=True)
    if p.returncode != 0 or not p.stdout.startswith("tessera "):
        failures.append("installed CLI: %r" % p.stdout)

    src = os.path.join(tmp, "example.c")
    with open(src, "w") as f:
        f.write(example)
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(libdir, "pkgconfig"))

    def pc(*args):
        return run(["pkg-config"] + list(args) + ["tessera"], env=env).stdout.split()

    # pkg-config, shared: the installed libtessera.so, found through its rpath
    exe = os.path.join(tmp, "ex_pc_shared")
    run([CC, "-std=c17", "-Wall", "-Werror", src, "-o", exe] + pc("--cflags") + pc("--libs") +
        ["-Wl,-rpath," + libdir])
    check_example("pkg-config shared", exe)
    total += 1
    ldd = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
    if os.path.join(libdir, "libtessera.so") not in ldd:
        failures.append("pkg-config shared: not linked to the installed library:\n%s" % ldd)

    # pkg-config, static: libtessera.a in place of -ltessera, and what --static adds
    exe = os.path.join(tmp, "ex_pc_static")
    libs = [os.path.join(libdir, "libtessera.a") if a == "-ltessera" else a
            for a in pc("--static", "--libs")]
    run([CC, "-std=c17", "-Wall", "-Werror", src, "-o", exe] + pc("--cflags") + libs)
    check_example("pkg-config static", exe)
    total += 1
    needed = subprocess.run(["readelf", "-d", exe], capture_output=True, text=True).stdout
    if "libtessera" in needed:
        failures.append("pkg-config static: still needs a shared libtessera")

    # CMake: find_package(tessera) with both targets
    proj = os.path.join(tmp, "proj")
    os.mkdir(proj)
    shutil.copy(src, proj)
    with open(os.path.join(proj, "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.25)\nproject(example C)\n"
                "find_package(tessera 0.1 REQUIRED)\n"
                "add_executable(ex_shared example.c)\n"
                "target_link_libraries(ex_shared PRIVATE tessera::tessera)\n"
                "add_executable(ex_static example.c)\n"
                "target_link_libraries(ex_static PRIVATE tessera::tessera_static)\n")
    pb = os.path.join(tmp, "proj-build")
    cfg = run(["cmake", "-S", proj, "-B", pb, "-DCMAKE_PREFIX_PATH=" + prefix,
               "-DCMAKE_BUILD_TYPE=Release"])
    if cfg.returncode == 0:
        run(["cmake", "--build", pb])
    check_example("CMake tessera::tessera", os.path.join(pb, "ex_shared"))
    check_example("CMake tessera::tessera_static", os.path.join(pb, "ex_static"))

report(failures, total)
