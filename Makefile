# gpuplan: two commands for a newcomer on Debian 12.
#   make run    install what is missing, build the web calculator, serve it on 127.0.0.1
#   make test   install what is missing, build native and wasm, run every test
# Other targets: make native | wasm | bench | sanitize | desktop | clean

SHELL := /bin/bash
PORT ?= 8000
JOBS ?= $(shell nproc)
export NODE_PATH := /usr/share/nodejs
export GPUPLAN_CACHE ?= $(HOME)/.cache/gpuplan

.PHONY: all deps native wasm test test-native test-wasm run bench sanitize desktop clean

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

run: wasm
	@scripts/serve.sh build/wasm/site $(PORT)

bench: native
	@scripts/run-benches.sh build/native

desktop: native
	./build/native/web/gpuplan-desktop

clean:
	rm -rf build test-artifacts
