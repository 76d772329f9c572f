#!/usr/bin/env bash
# Regenerates fixtures/simulated-h100x2.probe.json, the probe file that tests/core/probe_file_test
# verifies natively and in WebAssembly. Run after a payload format change:
#   tests/probe/make_fixture.sh build/native/native_probe/gpuplan-probe
# fixtures/test-probe-key is a throwaway key for tests only (public, so never trust it for real
# files). git stores it as 0644; the probe refuses keys others can read, so a 0600 copy is used.
set -euo pipefail
probe=${1:?usage: make_fixture.sh PATH_TO_GPUPLAN_PROBE}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
install -m 600 "$here/fixtures/test-probe-key" "$tmp/key"
"$probe" --simulate h100-sxm5-80gb:2 --no-metadata --key "$tmp/key" --out "$here/fixtures/simulated-h100x2.probe.json"
