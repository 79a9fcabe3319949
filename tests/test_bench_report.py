"""test_bench_report.py - `tessera bench --output-json` writes reports that follow
docs/bench-report.md (checked by hand: jsonschema may be missing), skips CUDA phases with a
reason where no GPU is (and fails where --device cuda asked for nothing else), keeps a failed
phase in the report, and never clobbers a report on an early failure."""
import json
import os
import re
import shutil
import subprocess
import tempfile

from corpus_util import BIN, CORPUS, report

FITS = os.path.join(CORPUS, "fits/c_gzip2_f32_sd1_cksumseed.fits")
ZARR = os.path.join(CORPUS, "zarr2/blosc_lz4_shuffle_i16.zarr")
B2ND = os.path.join(CORPUS, "blosc2/zstd_shuffle_i2_4d.b2nd")
PHASES = ["open_plan", "raw_read", "decode_only", "cuda_decode_only", "cpu", "cpu_batch", "cuda",
          "cuda_batch", "cuda_stream"]
STATUSES = ("ok", "failed", "skipped", "not_implemented")
DTYPE_SIZE = {"bool": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4,
              "uint32": 4, "int64": 8, "uint64": 8, "float16": 2, "float32": 4, "float64": 8,
              "complex64": 8, "complex128": 16}

tmp = tempfile.mkdtemp()
failures = []
total = 0

INT, NUM, STR, BOOL = "int", "num", "str", "bool"


def check_type(errs, where, v, t, nullable=False):
    if v is None:
        if not nullable:
            errs.append("%s: null" % where)
        return
    ok = {INT: isinstance(v, (int, float)) and not isinstance(v, bool) and float(v).is_integer(),
          NUM: isinstance(v, (int, float)) and not isinstance(v, bool),
          STR: isinstance(v, str),
          BOOL: isinstance(v, bool)}[t]
    if not ok:
        errs.append("%s: %r is not %s" % (where, v, t))


def check_keys(errs, where, obj, spec):
    """spec: key -> (type, nullable); every key must be there (unknown keys are allowed)."""
    if not isinstance(obj, dict):
        errs.append("%s: not an object" % where)
        return False
    for k, (t, nullable) in spec.items():
        if k not in obj:
            errs.append("%s.%s: missing" % (where, k))
        else:
            check_type(errs, "%s.%s" % (where, k), obj[k], t, nullable)
    return True


def validate(r):
    """Every rule of docs/bench-report.md; returns a list of problems."""
    e = []
    if not check_keys(e, "report", r, {"schema": (STR, False), "schema_version": (INT, False),
                                       "created": (STR, False), "ok": (BOOL, False),
                                       "storage": (STR, False)}):
        return e
    if r.get("schema") != "tessera-bench-report" or r.get("schema_version") != 1:
        e.append("schema/version: %r %r" % (r.get("schema"), r.get("schema_version")))
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", str(r.get("created"))):
        e.append("created: %r" % r.get("created"))
    if r.get("storage") not in ("real", "mock-host", "mock-device"):
        e.append("storage: %r" % r.get("storage"))
    check_keys(e, "host", r.get("host"), {"hostname": (STR, False), "cpus": (INT, False)})
    cmd = r.get("command")
    if not (isinstance(cmd, list) and cmd[:2] == ["tessera", "bench"]
            and all(isinstance(a, str) for a in cmd)):
        e.append("command: %r" % cmd)

    o = r.get("options")
    if check_keys(e, "options", o, {"hdu": (INT, True), "array": (STR, True), "level": (INT, True),
                                    "section": (STR, False), "device": (STR, False),
                                    "iterations": (INT, False), "warmup": (INT, False),
                                    "threads": (INT, False), "threads_used": (INT, False),
                                    "raw_read_block_bytes": (INT, False),
                                    "files_per_batch": (INT, False), "prefetch": (INT, False),
                                    "dir": (STR, True), "max_files": (INT, False),
                                    "decoder": (STR, False)}):
        if o.get("device") not in ("cpu", "cuda", "both"):
            e.append("options.device: %r" % o.get("device"))
        if o.get("decoder") not in ("auto", "cpu", "gpu"):
            e.append("options.decoder: %r" % o.get("decoder"))
        if not (isinstance(o.get("iterations"), int) and o["iterations"] >= 1):
            e.append("options.iterations: %r" % o.get("iterations"))
        if not (isinstance(o.get("threads_used"), int) and o["threads_used"] >= 1):
            e.append("options.threads_used: %r" % o.get("threads_used"))

    v = r.get("versions")
    check_keys(e, "versions", v, {k: (STR, False) for k in (
        "tessera", "libdeflate", "zstd", "lz4", "cfitsio", "cfitsio_runtime", "cjson",
        "cuda_runtime", "cuda_driver")})
    for k in ("tessera", "libdeflate", "zstd", "lz4", "cfitsio"):
        if isinstance(v, dict) and not re.fullmatch(r"\d+\.\d+(\.\d+)?", str(v.get(k))):
            e.append("versions.%s: %r" % (k, v.get(k)))
    for k in ("cuda_runtime", "cuda_driver"):
        if isinstance(v, dict) and not re.fullmatch(r"\d+\.\d+|unavailable", str(v.get(k))):
            e.append("versions.%s: %r" % (k, v.get(k)))

    c = r.get("capabilities")
    cuda_available = False
    if check_keys(e, "capabilities", c, {}):
        cu = c.get("cuda")
        if check_keys(e, "capabilities.cuda", cu, {"available": (BOOL, False),
                                                   "reason": (STR, True)}):
            cuda_available = cu.get("available") is True
            if not cuda_available and not cu.get("reason"):
                e.append("capabilities.cuda: unavailable without a reason")
            devs = cu.get("devices")
            if not isinstance(devs, list):
                e.append("capabilities.cuda.devices: not a list")
            else:
                for i, d in enumerate(devs):
                    check_keys(e, "capabilities.cuda.devices[%d]" % i, d, {
                        "index": (INT, False), "name": (STR, False),
                        "memory_bytes": (INT, False), "compute_capability": (STR, False)})
        g = c.get("gpu_decoders")
        if not (isinstance(g, list) and all(isinstance(x, str) for x in g)):
            e.append("capabilities.gpu_decoders: %r" % g)
        check_keys(e, "capabilities.gds", c.get("gds"), {"native": (BOOL, False),
                                                         "reason": (STR, False)})

    w = r.get("workload")
    if check_keys(e, "workload", w, {"nfiles": (INT, False), "disk_bytes": (INT, False),
                                     "stored_bytes": (INT, False),
                                     "compressed_bytes": (INT, True),
                                     "decoded_bytes": (INT, False), "batchable": (BOOL, False)}):
        files = w.get("files")
        if not isinstance(files, list) or len(files) != w.get("nfiles"):
            e.append("workload.files: not a list of nfiles")
            files = []
        for i, f in enumerate(files):
            where = "workload.files[%d]" % i
            if not check_keys(e, where, f, {
                    "path": (STR, False), "format": (STR, False), "codec": (STR, False),
                    "reader": (STR, False), "dtype": (STR, False), "chunks": (INT, False),
                    "disk_files": (INT, False), "disk_bytes": (INT, False),
                    "stored_bytes": (INT, False), "compressed_bytes": (INT, True),
                    "compressed_bytes_from": (STR, False), "decoded_bytes": (INT, False)}):
                continue
            if f.get("format") not in ("fits", "zarr", "blosc2"):
                e.append("%s.format: %r" % (where, f.get("format")))
            if f.get("compressed_bytes_from") not in ("receipt", "array_info"):
                e.append("%s.compressed_bytes_from: %r" % (where, f.get("compressed_bytes_from")))
            shape = f.get("shape")
            if not (isinstance(shape, list) and all(isinstance(n, int) and n >= 0 for n in shape)):
                e.append("%s.shape: %r" % (where, shape))
            elif f.get("dtype") in DTYPE_SIZE:
                n = DTYPE_SIZE[f["dtype"]]
                for d in shape:
                    n *= d
                if n != f.get("decoded_bytes"):
                    e.append("%s.decoded_bytes %r != shape x dtype %d" % (where, f.get("decoded_bytes"), n))
            else:
                e.append("%s.dtype: %r" % (where, f.get("dtype")))
        for k in ("disk_bytes", "stored_bytes", "decoded_bytes"):
            if files and w.get(k) != sum(f.get(k, 0) for f in files if isinstance(f, dict)):
                e.append("workload.%s is not the sum over files" % k)
        codecs = w.get("codecs")
        if not (isinstance(codecs, list) and all(isinstance(x, str) for x in codecs)):
            e.append("workload.codecs: %r" % codecs)

    ph = r.get("phases")
    if not isinstance(ph, list) or [p.get("id") for p in ph if isinstance(p, dict)] != PHASES:
        e.append("phases: ids %r" % ([p.get("id") for p in ph] if isinstance(ph, list) else ph))
        return e
    any_failed = False
    for p in ph:
        where = "phases[%s]" % p.get("id")
        if not check_keys(e, where, p, {"id": (STR, False), "name": (STR, False),
                                        "status": (STR, False), "ok": (BOOL, False),
                                        "error": (STR, True), "iterations": (INT, False),
                                        "bytes_in": (INT, True), "bytes_out": (INT, True),
                                        "mb_per_s_in": (NUM, True), "mb_per_s_out": (NUM, True)}):
            continue
        for k in ("elapsed_ms", "receipt"):
            if k not in p:
                e.append("%s.%s: missing" % (where, k))
        st = p.get("status")
        if st not in STATUSES:
            e.append("%s.status: %r" % (where, st))
        any_failed |= st == "failed"
        if p.get("ok") != (st == "ok"):
            e.append("%s.ok %r disagrees with status %r" % (where, p.get("ok"), st))
        if st == "ok":
            if p.get("error") is not None:
                e.append("%s: ok with an error" % where)
            em = p.get("elapsed_ms")
            if check_keys(e, where + ".elapsed_ms", em, {"min": (NUM, False),
                                                         "median": (NUM, False),
                                                         "max": (NUM, False)}):
                if not em["min"] <= em["median"] <= em["max"]:
                    e.append("%s.elapsed_ms not ordered: %r" % (where, em))
                if not (isinstance(em.get("all"), list) and len(em["all"]) == p["iterations"]):
                    e.append("%s.elapsed_ms.all: %r" % (where, em.get("all")))
            if p.get("iterations") != r["options"]["iterations"]:
                e.append("%s.iterations %r" % (where, p.get("iterations")))
            for k in ("bytes_in", "bytes_out"):
                if p.get(k) is None:
                    e.append("%s.%s: null for an ok phase" % (where, k))
            for k in ("in", "out"):
                if (p.get("mb_per_s_" + k) is None) != (not p.get("bytes_" + k)):
                    e.append("%s.mb_per_s_%s: %r for bytes %r" % (where, k, p.get("mb_per_s_" + k),
                                                                p.get("bytes_" + k)))
            if p["id"] in ("decode_only", "cuda_decode_only", "cpu", "cpu_batch", "cuda",
                           "cuda_batch", "cuda_stream"):
                check_keys(e, where + ".receipt", p.get("receipt"), {
                    "driver": (STR, False), "backend": (STR, False), "engine": (STR, False),
                    "codec": (STR, False), "reader": (STR, False), "fallback": (STR, False),
                    "nthreads": (INT, False), "chunks_read": (INT, False),
                    "bytes_read": (INT, False), "bytes_decoded": (INT, False),
                    "bytes_out": (INT, False), "plan_ms": (NUM, False), "fetch_ms": (NUM, False),
                    "decode_ms": (NUM, False), "place_ms": (NUM, False),
                    "total_ms": (NUM, False), "wait_ms": (NUM, False),
                    "decoder": (STR, False)})
                rc = p.get("receipt") or {}
                # the plan is part of each read's wall-clock time, so of their sums
                if isinstance(rc.get("total_ms"), (int, float)) and \
                        isinstance(rc.get("plan_ms"), (int, float)) and \
                        not rc["plan_ms"] <= rc["total_ms"] * (1 + 1e-9) + 1e-9:
                    e.append("%s.receipt: plan_ms %r > total_ms %r" % (where, rc["plan_ms"],
                                                                     rc["total_ms"]))
            elif p.get("receipt") is not None:
                e.append("%s: a receipt for a phase that reads no array" % where)
        else:
            if not p.get("error"):
                e.append("%s: status %r without a reason" % (where, st))
            if st != "failed" and p.get("iterations") != 0:
                e.append("%s: %r with iterations" % (where, st))
            for k in ("elapsed_ms", "bytes_in", "bytes_out", "mb_per_s_in", "mb_per_s_out",
                      "receipt"):
                if p.get(k) is not None:
                    e.append("%s.%s: not null for status %r" % (where, k, st))
    # (--device cuda with no CUDA phase run: nothing asked for ran, so not ok either)
    cuda_none = (r.get("options") or {}).get("device") == "cuda" and not any(
        p.get("status") == "ok" for p in r.get("phases", []) if p.get("id", "").startswith("cuda"))
    if r.get("ok") != (not any_failed and not cuda_none):
        e.append("ok %r, but a phase failed: %r, no CUDA phase of --device cuda ran: %r" %
                 (r.get("ok"), any_failed, cuda_none))
    return e


def bench(*args, timeout=300):
    return subprocess.run([BIN, "bench"] + list(args), capture_output=True, text=True,
                          timeout=timeout)


def case(label, fn):
    global total
    total += 1
    try:
        problems = fn()
    except Exception as ex:  # a crash of the check is a failure of the case, not of the run
        problems = ["%s: %r" % (type(ex).__name__, ex)]
    for p in problems or ():
        failures.append("%s: %s" % (label, p))


def phase(r, pid):
    return next(p for p in r["phases"] if p["id"] == pid)


def corpus_three():
    """FITS + Zarr + Blosc2: valid report; CUDA phases skipped with a reason without a GPU."""
    out = os.path.join(tmp, "r.json")
    p = bench("--iterations", "2", "--output-json", out, FITS, ZARR, B2ND)
    if p.returncode != 0:
        return ["exit %d: %s" % (p.returncode, p.stderr.strip())]
    with open(out) as f:
        r = json.load(f)
    e = validate(r)
    if os.path.exists(out + ".tmp"):
        e.append("FILE.tmp left behind")
    if sorted(f["format"] for f in r["workload"]["files"]) != ["blosc2", "fits", "zarr"]:
        e.append("formats: %r" % [f["format"] for f in r["workload"]["files"]])
    for pid in ("open_plan", "raw_read", "cpu"):
        if phase(r, pid)["status"] != "ok":
            e.append("%s: %r" % (pid, phase(r, pid)))
    if phase(r, "raw_read")["bytes_in"] != r["workload"]["disk_bytes"]:
        e.append("raw read bytes_in %r != disk_bytes %r" % (phase(r, "raw_read")["bytes_in"],
                                                           r["workload"]["disk_bytes"]))
    if phase(r, "cpu")["bytes_out"] != r["workload"]["decoded_bytes"]:
        e.append("cpu bytes_out != workload decoded_bytes")
    if phase(r, "decode_only")["status"] != "ok":
        e.append("decode_only: %r" % phase(r, "decode_only"))
    if phase(r, "decode_only")["bytes_out"] != r["workload"]["decoded_bytes"]:
        e.append("decode_only bytes_out != workload decoded_bytes")
    if (phase(r, "decode_only").get("receipt") or {}).get("backend") != "mock-host":
        e.append("decode_only receipt backend: %r" % phase(r, "decode_only").get("receipt"))
    if phase(r, "cpu_batch")["status"] != "skipped":  # three different shapes
        e.append("cpu_batch: %r" % phase(r, "cpu_batch")["status"])
    cuda = r["capabilities"]["cuda"]
    for pid in ("cuda", "cuda_batch", "cuda_decode_only"):
        ph = phase(r, pid)
        if not cuda["available"]:
            if ph["status"] != "skipped" or not ph["error"]:
                e.append("%s without a GPU: %s %r" % (pid, ph["status"], ph["error"]))
            elif pid == "cuda" and ph["error"] != cuda["reason"]:
                e.append("%s: reason %r, capabilities say %r" % (pid, ph["error"], cuda["reason"]))
        elif pid != "cuda_batch" and ph["status"] != "ok":
            e.append("%s with a GPU: %s %r" % (pid, ph["status"], ph["error"]))
    for name in ("open+plan", "raw read", "end-to-end CPU", "end-to-end CUDA", "skipped"):
        if name not in p.stdout:
            e.append("table lacks %r" % name)
    return e


def batch_same_file():
    """The same file twice stacks: the CPU batch runs; --device cpu skips CUDA with that reason."""
    out = os.path.join(tmp, "batch.json")
    p = bench("--iterations", "2", "--device", "cpu", "--section", "10:100,::3",
              "--output-json", out, FITS, FITS)
    if p.returncode != 0:
        return ["exit %d: %s" % (p.returncode, p.stderr.strip())]
    with open(out) as f:
        r = json.load(f)
    e = validate(r)
    if not r["workload"]["batchable"] or phase(r, "cpu_batch")["status"] != "ok":
        e.append("cpu_batch: %r" % phase(r, "cpu_batch"))
    if r["workload"]["files"][0]["shape"] != [90, 64]:
        e.append("selected shape %r" % r["workload"]["files"][0]["shape"])
    for pid in ("cuda", "cuda_batch"):
        if phase(r, pid)["status"] != "skipped" or "--device cpu" not in phase(r, pid)["error"]:
            e.append("%s: %r" % (pid, phase(r, pid)))
    return e


def decoder_option():
    """--decoder cpu is recorded in the options; host reads decode on the CPU as before."""
    out = os.path.join(tmp, "decoder.json")
    p = bench("--iterations", "1", "--device", "cpu", "--decoder", "cpu", "--output-json", out,
              FITS)
    if p.returncode != 0:
        return ["exit %d: %s" % (p.returncode, p.stderr.strip())]
    with open(out) as f:
        r = json.load(f)
    e = validate(r)
    if r["options"]["decoder"] != "cpu":
        e.append("options.decoder: %r" % r["options"]["decoder"])
    if phase(r, "cpu")["status"] != "ok":
        e.append("cpu: %r" % phase(r, "cpu"))
    return e


def options_storage_dir():
    """--dir/--max-files pick files by name; --storage mock-host runs the end-to-end CPU phase
    from handles kept open (receipt backend mock-host) and skips the batch phases with the
    reason; --files-per-batch splits the CPU batch."""
    d = os.path.join(tmp, "dir")
    os.makedirs(d, exist_ok=True)
    for name in ("b.fits", "a.fits", "c.fits", ".hidden.fits"):
        shutil.copy(FITS, os.path.join(d, name))
    e = []
    out = os.path.join(tmp, "dir.json")
    p = bench("--iterations", "2", "--device", "cpu", "--dir", d, "--max-files", "2",
              "--storage", "mock-host", "--output-json", out)
    if p.returncode != 0:
        return ["exit %d: %s" % (p.returncode, p.stderr.strip())]
    with open(out) as f:
        r = json.load(f)
    e += validate(r)
    if [os.path.basename(f["path"]) for f in r["workload"]["files"]] != ["a.fits", "b.fits"]:
        e.append("--dir files: %r" % [f["path"] for f in r["workload"]["files"]])
    if r["storage"] != "mock-host" or r["options"]["max_files"] != 2 or r["options"]["dir"] != d:
        e.append("storage/options: %r %r" % (r["storage"], r["options"]))
    if (phase(r, "cpu").get("receipt") or {}).get("backend") != "mock-host":
        e.append("cpu receipt with --storage mock-host: %r" % phase(r, "cpu"))
    if phase(r, "cpu_batch")["status"] != "skipped" or "--storage" not in phase(r, "cpu_batch")["error"]:
        e.append("cpu_batch with mock storage: %r" % phase(r, "cpu_batch"))
    p = bench("--iterations", "1", "--device", "cpu", "--dir", d, "--files-per-batch", "2",
              "--output-json", out)
    if p.returncode != 0:
        return e + ["exit %d: %s" % (p.returncode, p.stderr.strip())]
    with open(out) as f:
        r = json.load(f)
    e += validate(r)
    cb = phase(r, "cpu_batch")
    if cb["status"] != "ok" or cb["bytes_out"] != r["workload"]["decoded_bytes"] or \
            (cb.get("receipt") or {}).get("bytes_out") != r["workload"]["decoded_bytes"]:
        e.append("cpu_batch in batches of 2 over 3 files: %r" % cb)
    if r["options"]["decoder"] != "auto":
        e.append("options.decoder without --decoder: %r" % r["options"]["decoder"])
    if r["options"]["files_per_batch"] != 2 or r["workload"]["nfiles"] != 3:
        e.append("options %r, nfiles %r" % (r["options"], r["workload"]["nfiles"]))
    for args in (["--max-files", "2", FITS], ["--storage", "disk", FITS],
                 ["--dir", os.path.join(tmp, "nodir")]):
        if bench(*args).returncode == 0:
            e.append("%r: exit 0" % args)
    return e


def early_failures_keep_report():
    """A nonexistent FILE or a bad argument: exit non-zero, the previous report untouched."""
    out = os.path.join(tmp, "keep.json")
    with open(out, "w") as f:
        f.write('{"previous": true}\n')
    e = []
    for args in (["--iterations", "2", "--output-json", out, FITS, os.path.join(tmp, "nope.fits")],
                 ["--iterations", "0", "--output-json", out, FITS],
                 ["--device", "tpu", "--output-json", out, FITS],
                 ["--decoder", "fast", "--output-json", out, FITS],
                 ["--output-json", out]):
        p = bench(*args)
        if p.returncode == 0:
            e.append("%r: exit 0" % args)
        if not p.stderr.strip():
            e.append("%r: no message" % args)
        with open(out) as f:
            if f.read() != '{"previous": true}\n':
                e.append("%r: previous report changed" % args)
        if os.path.exists(out + ".tmp"):
            e.append("%r: FILE.tmp left behind" % args)
    return e


def phase_failure_still_reports():
    """A chunk that fails to decode: exit 1, a report with ok=false naming the chunk."""
    store = os.path.join(tmp, "bad.zarr")
    shutil.copytree(os.path.join(CORPUS, "zarr2/gzip_u16.zarr"), store)
    with open(os.path.join(store, "0.0"), "wb") as f:
        f.write(b"not gzip at all")
    out = os.path.join(tmp, "bad.json")
    with open(out, "w") as f:
        f.write("old")
    p = bench("--iterations", "2", "--output-json", out, store)
    e = []
    if p.returncode != 1:
        e.append("exit %d (want 1)" % p.returncode)
    with open(out) as f:
        r = json.load(f)
    e += validate(r)
    if r["ok"] is not False:
        e.append("report ok: %r" % r["ok"])
    cpu = phase(r, "cpu")
    if cpu["status"] != "failed" or "0.0" not in (cpu["error"] or ""):
        e.append("cpu phase: %r" % cpu)
    if phase(r, "raw_read")["status"] != "ok":
        e.append("raw read should still run: %r" % phase(r, "raw_read"))
    return e


def cuda_only_without_a_gpu():
    """--device cuda where no CUDA phase can run: exit 1, "ok": false, and a line saying why
    (it exited 0 with "ok": true, though nothing asked for ran); with a GPU, exit 0."""
    out = os.path.join(tmp, "c.json")
    p = bench("--iterations", "1", "--device", "cuda", "--output-json", out, FITS)
    with open(out) as f:
        r = json.load(f)
    e = validate(r)
    if r["capabilities"]["cuda"]["available"]:
        if p.returncode != 0 or not r["ok"]:
            e.append("with a GPU: exit %d, ok %r" % (p.returncode, r["ok"]))
        return e
    if p.returncode != 1 or r["ok"] is not False:
        e.append("without a GPU: exit %d, ok %r" % (p.returncode, r["ok"]))
    if "--device cuda: no CUDA phase ran" not in p.stderr:
        e.append("stderr: %r" % p.stderr)
    return e


def self_check():
    """The validator rejects what the page forbids (else the cases above prove nothing)."""
    out = os.path.join(tmp, "r.json")
    if not os.path.exists(out):
        return ["no report from corpus_three to mutate"]
    with open(out) as f:
        good = json.load(f)
    e = []
    bad = [("no schema_version", lambda r: r.pop("schema_version")),
           ("skipped without a reason", lambda r: phase(r, "cuda").update(error=None, status="skipped", ok=False)),
           ("ok disagrees", lambda r: phase(r, "cpu").update(ok=False)),
           ("unordered times", lambda r: phase(r, "cpu")["elapsed_ms"].update(min=1e9)),
           ("a phase missing", lambda r: r["phases"].pop()),
           ("plan longer than the read", lambda r: phase(r, "cpu")["receipt"].update(plan_ms=1e9)),
           ("bad decoded bytes", lambda r: r["workload"]["files"][0].update(decoded_bytes=1))]
    for label, mutate in bad:
        r = json.loads(json.dumps(good))
        mutate(r)
        if not validate(r):
            e.append("validator accepts: %s" % label)
    return e


case("corpus FITS + Zarr + Blosc2", corpus_three)
case("batch of one file twice", batch_same_file)
case("--decoder", decoder_option)
case("--dir, --max-files, --storage, --files-per-batch", options_storage_dir)
case("early failures keep the previous report", early_failures_keep_report)
case("phase failure still writes a report", phase_failure_still_reports)
case("--device cuda without a GPU fails", cuda_only_without_a_gpu)
case("validator self-check", self_check)
shutil.rmtree(tmp, ignore_errors=True)
report(failures, total)
