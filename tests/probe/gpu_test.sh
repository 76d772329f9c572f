#!/usr/bin/env bash
# A real --quick run on this machine's GPUs (ctest label gpu). Exit 77 (skipped) when the probe
# finds no usable GPU (its exit code 3). Checks the file verifies, is not simulated, and has the
# headline figures; prints the summary. Usage: gpu_test.sh GPUPLAN_PROBE GPUPLAN
set -uo pipefail
probe=${1:?usage: gpu_test.sh GPUPLAN_PROBE GPUPLAN}
gpuplan=${2:?usage: gpu_test.sh GPUPLAN_PROBE GPUPLAN}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
"$probe" --quick --no-metadata --key "$tmp/key" --out "$tmp/real.json"
rc=$?
if [ "$rc" -eq 3 ]; then
  echo "SKIP: no usable GPU here"
  exit 77
fi
echo "probe exit $rc after $(( $(date +%s) - start )) s"
[ "$rc" -le 1 ] || exit 1
"$gpuplan" verify "$tmp/real.json" || exit 1
"$gpuplan" verify "$tmp/real.json" --json >"$tmp/v.json" || exit 1
/usr/bin/python3 - "$tmp/v.json" "$tmp/real.json" <<'PY'
import base64, json, sys
v = json.load(open(sys.argv[1]))
assert v["signature"] == "valid" and v["simulated"] is False, v
s = v["summary"]
assert s["gpu_count"] >= 1 and s["memory_bytes"] > 0, s
assert s["gemm_flop_per_s"]["fp32"], "fp32 GEMM not measured"
assert s["hbm_copy_bytes_per_s"] and s["h2d_pinned_bytes_per_s"], s
payload = json.loads(base64.b64decode(json.load(open(sys.argv[2]))["payload"]))
failed = [(r["case"], r["gpu"], r["reason"]) for r in payload["results"] if r["status"] == "failed"]
assert not failed, failed
print(json.dumps(s, indent=2))
PY
