# tessera: `make run` sets up, builds and runs the demo; `make test` sets up, builds and tests.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release -DTESSERA_WERROR=ON
SAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan

# Debian packages the library, its tests and benchmarks need.
DEB_PACKAGES = cmake make gcc pkg-config libdeflate-dev libcfitsio-dev libcfitsio-bin \
	libzstd-dev liblz4-dev libbz2-dev libcjson-dev libmsgpack-dev libblosc-dev python3 python3-numpy \
	python3-astropy python3-venv python3-pip python3-matplotlib clang libclang-rt-14-dev ncompress

# Peers from PyPI that write fresh files in tests and race us in benchmarks (never library
# dependencies): a virtual environment on top of Debian's python3.
VENV ?= .venv
PEERS = zarr==3.* tensorstore blosc2 numcodecs

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all run test deps venv build build-asan test-asan build-tsan test-tsan clean install

all: build

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

$(VENV)/.done: deps
	/usr/bin/python3 -m venv --system-site-packages $(VENV)
	$(VENV)/bin/pip install -q $(PEERS)
	touch $@

venv: $(VENV)/.done

build: deps venv
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DTSR_VENV_PYTHON=$(CURDIR)/$(VENV)/bin/python
	cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/tessera demo

# The libraries, tessera.h, the CLI, tessera.pc and the CMake package under PREFIX.
PREFIX ?= /usr/local
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# The whole suite, then the suite again under AddressSanitizer + UndefinedBehaviorSanitizer,
# then the tests of concurrent reads under ThreadSanitizer.
# Each libFuzzer target briefly (scripts/fuzz SECONDS runs them longer).
FUZZ_SECONDS ?= 10

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
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
	rm -rf $(BUILD) $(SAN_BUILD) $(TSAN_BUILD)
