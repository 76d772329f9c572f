#!/usr/bin/env bash
# The desktop build of the calculator in a real X window (Xvfb): it starts from a query given on
# the command line, draws frames, publishes the same results the CLI computes, and comes to rest
# (draws no more frames with no input: GPUPLAN_MAX_FRAMES stops it there, saying so).
# Usage: desktop_smoke.sh PATH_TO_gpuplan-desktop PATH_TO_gpuplan
set -euo pipefail
app=${1:?app}; cli=${2:?cli}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GPUPLAN_MAX_FRAMES=300 GPUPLAN_STATE_FILE="$tmp/state.json" \
  xvfb-run -a -s "-screen 0 1280x800x24" "$app" "model=resnet50&batch=64&precision=amp-fp16" | tee "$tmp/out.txt"
grep -q "gpuplan: at rest after" "$tmp/out.txt" || { echo "desktop: never came to rest in 300 frames"; exit 1; }
# The same in Chinese: the desktop reads lang=zh too, loads the CJK subset, and keeps the numbers.
GPUPLAN_MAX_FRAMES=300 GPUPLAN_STATE_FILE="$tmp/zh.json" \
  xvfb-run -a -s "-screen 0 1280x800x24" "$app" "model=resnet50&batch=64&precision=amp-fp16&lang=zh"
"$cli" estimate --model resnet50 --batch 64 --precision amp-fp16 --json >"$tmp/cli.json"
/usr/bin/python3 - "$tmp/state.json" "$tmp/cli.json" "$tmp/zh.json" <<'PY'
import json, sys
page = json.load(open(sys.argv[1]))
cli = json.load(open(sys.argv[2]))
zh = json.load(open(sys.argv[3]))
assert zh["lang"] == "zh" and zh["cjk_font"] is True, (zh["lang"], zh["cjk_font"])
assert zh["estimate"] == page["estimate"], "numbers differ between English and Chinese"
assert page["error"] == "", page["error"]
assert page["estimate"]["params"] == cli["params"] == 25557032, (page["estimate"]["params"], cli["params"])
assert page["estimate"]["memory_bytes"] == cli["memory_bytes"], "memory differs from the CLI"
print("desktop: 1 passed, 0 failed")
PY
