#!/usr/bin/env bash
# Runs every benchmark binary in BUILD_DIR/bench (bench_*) and prints what each measures.
set -euo pipefail
build=${1:-build/native}
shopt -s nullglob
benches=("$build"/bench/bench_*)
if [ ${#benches[@]} -eq 0 ]; then
  echo "no benchmarks built yet"
  exit 0
fi
for b in "${benches[@]}"; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  (cd "$(dirname "$0")/.." && "$b")
done
