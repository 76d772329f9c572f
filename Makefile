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

.PHONY: all deps native wasm test test-native test-wasm test-sanitize test-fuzz run bench sanitize fuzz \
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

# One clang build (build/sanitize, -O1, AddressSanitizer + UndefinedBehaviorSanitizer) holds the
# core tests, the CLI and a libFuzzer target for every parser (tests/fuzz). make test runs the core
# tests and the CLI's behaviour tests there, replays each seed corpus and fuzzes a few seconds
# (FUZZ_TEST_SECONDS); make fuzz runs each target for FUZZ_SECONDS.
sanitize: deps
	cmake --preset sanitize >/dev/null
	cmake --build --preset sanitize -j$(JOBS)

test-sanitize: sanitize
	ctest --preset sanitize -j$(JOBS)

test-fuzz: sanitize
	ctest --preset fuzz -j$(JOBS)

fuzz: sanitize
	@scripts/fuzz-all.sh build/sanitize $(FUZZ_SECONDS) $(JOBS)

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
