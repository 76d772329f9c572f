#!/usr/bin/env bash
# The real gpuplan-probe with no usable GPU (no driver here; CUDA_VISIBLE_DEVICES= hides GPUs
# elsewhere) exits 3 with a one-line reason and writes nothing: no file, no key.
# Usage: no_gpu_test.sh GPUPLAN_PROBE
set -uo pipefail
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir "$d/home" "$d/out"
HOME=$d/home CUDA_VISIBLE_DEVICES= "${1:?usage: no_gpu_test.sh GPUPLAN_PROBE}" --no-metadata --out "$d/out/x.json" 2>"$d/err"
rc=$?
cat "$d/err"
[ "$rc" -eq 3 ] || { echo "FAIL: exit $rc, wanted 3"; exit 1; }
grep -q '^gpuplan-probe: no usable GPU: ' "$d/err" || { echo "FAIL: no reason printed"; exit 1; }
left=$(find "$d/out" "$d/home" -mindepth 1)
[ -z "$left" ] || { echo "FAIL: wrote $left"; exit 1; }
echo "ok: exit 3, nothing written"
