# gpu-env.sh - sourced by the GPU machine scripts: the carried Debian packages unpacked into a
# private prefix, a CUDA build of the named targets, and the KvikIO peer built from its wheels.
# Sets ROOT, BUILD, PREFIX; tsr_gpu_build TARGET..., tsr_py_wheels (the Python peers' wheels)
# and tsr_kvikio_build (sets KVIKIO_BIN and the environment KvikIO runs with). Without
# .gpu-debs/*.deb, the system's packages (a machine that has them); GPU_CHECK_CUDA=OFF builds
# without CUDA (the host parts, on a machine with no GPU).
ROOT=$(pwd)
BUILD=${GPU_CHECK_BUILD:-/tmp/tessera-gpu-build}
PREFIX=${GPU_CHECK_PREFIX:-/tmp/tessera-gpu-prefix}
export PATH="$PATH:/usr/local/cuda/bin"
# The machine lacks libdeflate, CFITSIO, cJSON and msgpack-c: the carried .debs go into a
# private prefix (kept between calls on a warm machine).
. scripts/gpu-debs.sh
if ls .gpu-debs/*.deb >/dev/null 2>&1; then
	[ -d "$PREFIX/usr" ] || tsr_unpack_debs "$PREFIX" || return 1
	LIBDIR="$PREFIX/usr/lib/x86_64-linux-gnu"
	export PKG_CONFIG_PATH="$LIBDIR/pkgconfig:$PREFIX/usr/share/pkgconfig"
	export LIBRARY_PATH="$LIBDIR"
	export LD_LIBRARY_PATH="$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
elif ! pkg-config --exists libdeflate cfitsio libzstd liblz4 liblzma libcjson 2>/dev/null; then
	echo "gpu-env.sh: no .gpu-debs/*.deb carried, and the system lacks libdeflate, CFITSIO," \
		"zstd, lz4 or cJSON" >&2
	return 1
fi
PCBIN=$(command -v pkg-config || echo "$PREFIX/usr/bin/pkgconf")

# Configures (Release, CUDA on, tests on) and builds the given targets; logs beside $BUILD.
tsr_gpu_build()
{
	cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTESSERA_CUDA="${GPU_CHECK_CUDA:-ON}" -DTESSERA_BUILD_TESTS=ON \
		-DPKG_CONFIG_EXECUTABLE="$PCBIN" -DCMAKE_PREFIX_PATH="$PREFIX/usr" \
		-DTSR_CORPUS_DIR="$ROOT/corpus-gpu" -DTSR_PYTHON="$(command -v python3)" \
		>"$BUILD.configure.log" 2>&1 || { tail -30 "$BUILD.configure.log"; return 1; }
	cmake --build "$BUILD" -j "$(nproc)" --target "$@" >"$BUILD.build.log" 2>&1 \
		|| { grep -B2 -A10 -i error "$BUILD.build.log" | head -60; return 1; }
}

# The Python peers' wheels carried in .whl/ (zarr-python, numcodecs, python-blosc2 and their
# needs) installed into /tmp/site and put first on PYTHONPATH; pip's output to the file $1 if
# given (else to stderr). Returns 1 when no wheels were carried, 2 when pip fails.
tsr_py_wheels()
{
	ls .whl/*.whl >/dev/null 2>&1 || return 1
	python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
		--target /tmp/site .whl/*.whl >"${1:-/dev/stderr}" 2>&1 || return 2
	export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
}

# Writes the bench/zarr_bench.py workload named $3 ("v2 f32 2D blosc-lz4", "v3 u16 zstd", ...)
# at $2 MiB as the Zarr store $1 with zarr-python (tsr_py_wheels first); kept when already there.
tsr_zarr_store()
{
	PYTHONPATH="bench:${PYTHONPATH:-}" python3 - "$1" "$2" "$3" <<'PY'
import sys
from zarr_bench import workloads, write
w = [w for w in workloads(int(sys.argv[2])) if w["name"] == sys.argv[3]][0]
write(w, sys.argv[1])
PY
}

# Runs a command (its arguments) under Nsight Compute, each kernel's device time
# (gpu__time_duration.sum, clocks left alone) and grid into the CSV file $1 (NAME.csv; ncu's
# messages to NAME.log), then sums them by kernel into NAME.md (bench/kernel_times.py).
# NCU_KERNEL: a kernel-name regex to profile alone.
# Nsight Compute's ncu, on the PATH or where the CUDA toolkit puts it; empty when absent.
tsr_ncu_bin()
{
	command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1
}

# tsr_ncu_hot STEM ROWS REGEX COMMAND...: COMMAND's first launch of a kernel REGEX names under
# Nsight Compute's source counters (and the warp state, throughput, memory and scheduler
# sections): STEM.csv (its SASS page), STEM.md (bench/ncu_hot.py's top ROWS runs of instructions),
# STEM-details.txt, STEM.log. Returns nonzero when any of them could not be made.
tsr_ncu_hot()
{
	local stem=$1 rows=$2 regex=$3 ncu rep
	shift 3
	ncu=$(tsr_ncu_bin)
	[ -n "$ncu" ] || { echo "no ncu here" >&2; return 2; }
	rep=/tmp/ncu-hot-$(basename "$stem")
	"$ncu" --clock-control none -k "regex:$regex" --launch-count 1 \
		--section SourceCounters --section WarpStateStats --section SpeedOfLight \
		--section MemoryWorkloadAnalysis --section SchedulerStats -f -o "$rep" "$@" \
		>"$stem.log" 2>&1 &&
		"$ncu" --import "$rep.ncu-rep" --page source --csv --print-source sass \
			>"$stem.csv" 2>>"$stem.log" &&
		python3 bench/ncu_hot.py "$stem.csv" "$rows" >"$stem.md" &&
		"$ncu" --import "$rep.ncu-rep" --page details >"$stem-details.txt" 2>>"$stem.log"
}

# What bounds a kernel tsr_ncu_hot profiled (STEM): its throughputs (% of peak) and the
# schedulers' issue, a line each.
tsr_ncu_bounds()
{
	grep -E "^ +(Duration|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|DRAM Throughput|Issued Warp Per Scheduler|No Eligible|Active Warps Per Scheduler|Eligible Warps Per Scheduler|Mem Busy|Max Bandwidth|Mem Pipes Busy) " \
		"$1-details.txt" | sed "s/^ */  /"
}

tsr_ncu_times()
{
	local csv=$1 ncu
	local stem=${csv%.csv}
	shift
	ncu=$(tsr_ncu_bin)
	[ -n "$ncu" ] || { echo "no ncu here" >&2; return 2; }
	"$ncu" --clock-control none --metrics gpu__time_duration.sum,launch__grid_size --csv \
		--print-units base ${NCU_KERNEL:+-k "regex:$NCU_KERNEL"} "$@" >"$csv" 2>"$stem.log" ||
		{ tail -20 "$stem.log" >&2; return 1; }
	python3 bench/kernel_times.py "$csv" >"$stem.md"
}

# KvikIO (libkvikio and its needs from the wheels in .gpu-wheels/) and bench/kvikio_peer.cpp
# against it; KvikIO's POSIX path, since this machine has no GPUDirect Storage. Earlier runs:
# with the wheel's libcufile its FileHandle failed "Operation not permitted" unless in
# compatibility mode with direct I/O off.
tsr_kvikio_build()
{
	KVIKIO_BIN=""
	ls .gpu-wheels/libkvikio*.whl >/dev/null 2>&1 || return 1
	local kv=/tmp/kvikio-peer
	rm -rf "$kv" && mkdir -p "$kv"
	for w in .gpu-wheels/*.whl; do python3 -m zipfile -e "$w" "$kv" >/dev/null; done
	local cufile_dir
	cufile_dir=$(dirname "$(find "$kv" -name 'libcufile.so.0' | head -1)")
	nvcc -std=c++17 -O2 -DKVIKIO_CUFILE_FOUND -DKVIKIO_CUFILE_VERSION_API_FOUND \
		-DKVIKIO_CUFILE_BATCH_API_FOUND -DKVIKIO_CUFILE_STREAM_API_FOUND -I"$kv/nvidia/cu13/include" \
		bench/kvikio_peer.cpp -o "$kv/kvikio_peer" -I"$kv/libkvikio/include" \
		-I"$kv/rapids_logger/include" -L"$kv/libkvikio/lib64" -lkvikio \
		-L"$kv/rapids_logger/lib64" -lrapids_logger >"$kv/build.log" 2>&1 \
		|| { tail -20 "$kv/build.log"; return 1; }
	export LD_LIBRARY_PATH="$kv/libkvikio/lib64:$kv/rapids_logger/lib64:$cufile_dir:$kv/libkvikio_cu13.libs:$LD_LIBRARY_PATH"
	export KVIKIO_COMPAT_MODE=ON KVIKIO_AUTO_DIRECT_IO_READ=OFF KVIKIO_NTHREADS=$(nproc)
	KVIKIO_BIN="$kv/kvikio_peer"
}
