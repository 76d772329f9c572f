#!/usr/bin/env bash
# Runs every benchmark: the native bench_* binaries in BUILD_DIR/bench, then the page benchmark
# when the wasm build exists. Run from anywhere; benches read files relative to the repo root.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/native}
shopt -s nullglob
for b in "$build"/bench/bench_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b"
done
if [ -f build/wasm/site/index.wasm ]; then
  echo "== bench_web"
  NODE_PATH="$PWD/node_modules" node bench/bench_web.mjs build/wasm/site
fi
