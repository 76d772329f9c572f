#!/usr/bin/env bash
# Runs every fuzz target of a GPUPLAN_FUZZ build for SECONDS each, JOBS at a time (make fuzz).
# New inputs accumulate in BUILD/fuzz/corpus/<target>; each run's log is BUILD/fuzz/logs/<target>.log,
# findings land in BUILD/fuzz/artifacts. Prints one line per target; fails if any target failed.
# Usage: scripts/fuzz-all.sh BUILD SECONDS [JOBS]
set -uo pipefail
build=${1:?usage: fuzz-all.sh BUILD SECONDS [JOBS]}
seconds=${2:?}
jobs=${3:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$build/fuzz
"$root/scripts/fuzz-corpus.sh" "$dir" >/dev/null || exit 1
mkdir -p "$dir/logs"
shopt -s nullglob
targets=("$build"/tests/fuzz/fuzz_*)
[ ${#targets[@]} -gt 0 ] || { echo "fuzz-all: no fuzz targets in $build/tests/fuzz" >&2; exit 1; }
echo "fuzz-all: ${#targets[@]} targets, ${seconds}s each, $jobs at a time"
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c '
  bin=$1 dir=$2 seconds=$3 root=$4
  t=$(basename "$bin"); t=${t#fuzz_}
  "$root/scripts/fuzz-run.sh" "$bin" "$dir" "$seconds" >"$dir/logs/$t.log" 2>&1
  rc=$?
  runs=$(sed -n "s/^stat::number_of_executed_units: *//p" "$dir/logs/$t.log" | tail -1)
  if [ $rc -eq 0 ]; then echo "  $t: ${runs:-?} runs, no findings"; else echo "  $t: FAILED (exit $rc, see $dir/logs/$t.log)"; fi
  exit $rc' _ {} "$dir" "$seconds" "$root"
