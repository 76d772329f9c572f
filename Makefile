# gpuplan: two commands for a newcomer on Debian 12.
#   make run    install what is missing, build the web calculator, serve it on 127.0.0.1
#   make test   install what is missing, build native and wasm, run every test (also under
#               ASan + UBSan, and each parser's fuzz target briefly)
#   make site   build the documentation site (docs + calculator) into build/site
#   make fuzz   run every parser's fuzz target for FUZZ_SECONDS (default 60) each
# Other targets: make native | wasm | bench | sanitize | desktop | clean

SHELL := /bin/bash
PORT ?= 8000
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60
export NODE_PATH := /usr/share/nodejs
export GPUPLAN_CACHE ?= $(HOME)/.cache/gpuplan

.PHONY: all deps native wasm test test-native test-wasm test-sanitize test-fuzz run bench sanitize fuzz-build fuzz \
        desktop site clean

all: native wasm

deps:
	@scripts/install-deps.sh

native: deps
	cmake --preset native >/dev/null
	cmake --build --preset native -j$(JOBS)

wasm: deps
	cmake --preset wasm >/dev/null
	cmake --build --preset wasm -j$(JOBS)

test: native wasm
	ctest --preset native -j$(JOBS)
	ctest --preset wasm -j$(JOBS)
	@$(MAKE) --no-print-directory test-sanitize test-fuzz

# The core tests and the CLI's behaviour tests under AddressSanitizer + UndefinedBehaviorSanitizer
# (build/sanitize: only core_test and gpuplan are built).
sanitize: deps
	cmake --preset sanitize >/dev/null
	cmake --build --preset sanitize -j$(JOBS)

test-sanitize: sanitize
	ctest --preset sanitize -j$(JOBS)

# libFuzzer targets for every parser (clang, build/fuzz; tests/fuzz). make test replays each seed
# corpus and fuzzes a few seconds (FUZZ_TEST_SECONDS); make fuzz runs each for FUZZ_SECONDS.
fuzz-build: deps
	cmake --preset fuzz >/dev/null
	cmake --build --preset fuzz -j$(JOBS)

test-fuzz: fuzz-build
	ctest --preset fuzz -j$(JOBS)

fuzz: fuzz-build
	@scripts/fuzz-all.sh build/fuzz $(FUZZ_SECONDS) $(JOBS)

run: wasm
	@scripts/serve.sh build/wasm/site $(PORT)

bench: native
	@scripts/run-benches.sh build/native

# The documentation site: site/gen_site.py runs the CLI for every number, stages the pages with
# the calculator (build/wasm/site -> calculator/) and runs mkdocs --strict. Works from a sub-path.
site: native wasm
	@python3 site/gen_site.py --cli build/native/tools/cli/gpuplan --web build/wasm/site --out build/site
	@echo "site: build/site (open it with: python3 -m http.server -d build/site $(PORT))"

desktop: native
	./build/native/web/gpuplan-desktop

clean:
	rm -rf build test-artifacts
