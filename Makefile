# tessera: `make run` sets up, builds and runs the demo; `make test` sets up, builds and tests.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release -DTESSERA_WERROR=ON
SAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan

# Debian packages the library, its tests and benchmarks need.
DEB_PACKAGES = cmake make gcc pkg-config libdeflate-dev libcfitsio-dev libcfitsio-bin \
	libzstd-dev liblz4-dev libbz2-dev liblzma-dev libcjson-dev libmsgpack-dev libblosc-dev python3 python3-numpy \
	python3-astropy python3-dev python3-venv python3-pip python3-matplotlib clang libclang-rt-14-dev \
	ncompress

# What the library alone needs to build and install (make install): no test, benchmark or
# Python package.
LIB_DEB_PACKAGES = cmake make gcc pkg-config libdeflate-dev libcfitsio-dev libzstd-dev \
	liblz4-dev libbz2-dev liblzma-dev libcjson-dev libmsgpack-dev
LIB_BUILD ?= build-lib

# Peers from PyPI that write fresh files in tests and race us in benchmarks (never library
# dependencies), and what builds and tests the Python module: one virtual environment that
# sees no Debian site-packages, so one resolver picks one NumPy for every peer (Debian's
# astropy was built for Debian's NumPy and breaks beside a newer one).
VENV ?= .venv
PEERS = numpy astropy zarr==3.* tensorstore blosc2 numcodecs
PY_TOOLS = pip scikit-build-core pytest hypothesis
# The stamp names the set above: bump it when the set changes, and `make` updates the venv.
VENV_STAMP = $(VENV)/.done-peers2

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Installs the Debian packages of $(1) that are missing (one apt-get for all of them).
define apt_missing
	@missing=""; for p in $(1); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
endef

.PHONY: all run test deps deps-lib venv build python test-python build-asan test-asan build-tsan test-tsan clean install

all: build

deps:
	$(call apt_missing,$(DEB_PACKAGES))

$(VENV_STAMP): | deps
	@# (no --clear: an existing venv, or a worktree's link to one, is converted in place)
	/usr/bin/python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade $(PY_TOOLS)
	$(VENV)/bin/pip install -q $(PEERS)
	touch $@

venv: $(VENV_STAMP)

build: deps venv
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DTSR_VENV_PYTHON=$(CURDIR)/$(VENV)/bin/python
	cmake --build $(BUILD) -j $(JOBS)

# The Python module (python/, pyproject.toml), built by pip through scikit-build-core from this
# tree into .venv; its CMake build folder (build/python/) is kept, so a rebuild is incremental.
python: deps venv
	CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) $(VENV)/bin/pip install -q --no-build-isolation .

# The libraries, tessera.h, the CLI, tessera.pc and the CMake package under PREFIX: the
# library's own Debian packages and a build of it alone (no tests, benchmarks, Python peers).
PREFIX ?= /usr/local
deps-lib:
	$(call apt_missing,$(LIB_DEB_PACKAGES))

install: deps-lib
	cmake -S . -B $(LIB_BUILD) -DCMAKE_BUILD_TYPE=Release -DTESSERA_BUILD_TESTS=OFF -DTESSERA_BUILD_BENCH=OFF
	cmake --build $(LIB_BUILD) -j $(JOBS)
	cmake --install $(LIB_BUILD) --prefix $(PREFIX)

# Its tests (tests/python/, pytest + hypothesis), against the shared corpus and the PyPI peers.
TSR_CORPUS ?= $(CURDIR)/../shared/corpus
test-python: python
	cd tests/python && TSR_CORPUS=$(TSR_CORPUS) $(CURDIR)/$(VENV)/bin/python -m pytest -q -p no:cacheprovider .

run: build python
	./$(BUILD)/tessera demo
	$(VENV)/bin/python -c 'import tessera; print("import tessera:", tessera.__version__, tessera.capabilities())'

# The whole suite, the Python module's tests, then the suite again under AddressSanitizer +
# UndefinedBehaviorSanitizer,
# then the tests of concurrent reads under ThreadSanitizer.
# Each libFuzzer target briefly (scripts/fuzz SECONDS runs them longer).
FUZZ_SECONDS ?= 10

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	$(MAKE) test-python
	$(MAKE) test-asan
	$(MAKE) test-tsan
	scripts/fuzz $(FUZZ_SECONDS)

build-asan: deps venv
	cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTESSERA_SANITIZE=ON -DTESSERA_WERROR=ON -DTESSERA_BUILD_BENCH=OFF -DTSR_VENV_PYTHON=$(CURDIR)/$(VENV)/bin/python
	cmake --build $(SAN_BUILD) -j $(JOBS)

test-asan: build-asan
	cd $(SAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS)

build-tsan: deps
	cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTESSERA_TSAN=ON -DTESSERA_WERROR=ON -DTESSERA_BUILD_BENCH=OFF
	cmake --build $(TSAN_BUILD) -j $(JOBS)

# Only the thread tests (ctest -R threads): TSan slows everything else down for no finding.
test-tsan: build-tsan
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1 TSR_THREAD_ITERS=40 ctest --output-on-failure -R threads

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(TSAN_BUILD) $(LIB_BUILD)
