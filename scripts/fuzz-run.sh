#!/usr/bin/env bash
# Runs one fuzz target (tests/fuzz) for SECONDS over its seed corpus (scripts/fuzz-corpus.sh).
#   --fresh (CTest's short runs): new inputs go to a scratch folder emptied first;
#   otherwise (make fuzz) they accumulate in DIR/corpus/<target> across runs.
# Crashes, leaks and timeouts land in DIR/artifacts/<target>-*; the exit status is libFuzzer's.
# Usage: scripts/fuzz-run.sh FUZZER DIR SECONDS [--fresh] [extra libFuzzer flags...]
set -euo pipefail
bin=${1:?usage: fuzz-run.sh FUZZER DIR SECONDS [--fresh] [flags...]}
dir=${2:?}
seconds=${3:?}
shift 3
fresh=0
if [ "${1:-}" = --fresh ]; then
  fresh=1
  shift
fi
root=$(cd "$(dirname "$0")/.." && pwd)
name=$(basename "$bin")
target=${name#fuzz_}
seeds=$dir/seeds/$target
if [ ! -d "$seeds" ]; then
  echo "fuzz-run: no seeds in $seeds (run scripts/fuzz-corpus.sh $dir)" >&2
  exit 1
fi
if [ "$fresh" = 1 ]; then
  work=$dir/scratch/$target
  rm -rf "$work"
else
  work=$dir/corpus/$target
fi
mkdir -p "$work" "$dir/artifacts"
max_len=32768
[ "$target" = probe_file ] && max_len=131072  # the probe fixture is 67 kB
flags=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=$max_len -print_final_stats=1
       -artifact_prefix="$dir/artifacts/$target-")
case $target in
  share_link) dict=$root/tests/fuzz/share_link.dict ;;
  measured_csv) dict=$root/tests/fuzz/measured_csv.dict ;;
  *) dict=$root/tests/fuzz/json.dict ;;
esac
flags+=(-dict="$dict")
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
echo "fuzz-run: $name for ${seconds}s, seeds $seeds, corpus $work"
exec "$bin" "${flags[@]}" "$@" "$work" "$seeds"
