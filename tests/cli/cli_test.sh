#!/usr/bin/env bash
# Behaviour of the gpuplan binary as a user scripts it: exit codes, the one-line error messages,
# and that --json output parses. Usage: cli_test.sh PATH_TO_GPUPLAN
set -uo pipefail
bin=${1:?usage: cli_test.sh GPUPLAN}
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect NAME WANT_EXIT WANT_STDERR_SUBSTRING -- ARGS...
expect() {
  local name=$1 want_rc=$2 want_err=$3
  shift 4
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -ne "$want_rc" ]; then
    echo "FAIL $name: exit $rc, wanted $want_rc; stderr: $(cat "$tmp/err")"
    failed=$((failed + 1))
    return
  fi
  if [ -n "$want_err" ] && ! grep -qF -- "$want_err" "$tmp/err"; then
    echo "FAIL $name: stderr lacks '$want_err': $(cat "$tmp/err")"
    failed=$((failed + 1))
    return
  fi
  if [ "$rc" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -gt 2 ]; then
    echo "FAIL $name: error is not one line: $(cat "$tmp/err")"
    failed=$((failed + 1))
    return
  fi
  passed=$((passed + 1))
}

expect models-lists-gpt2 0 "" -- models
grep -q '^gpt2-small ' "$tmp/out" || { echo "FAIL models: gpt2-small missing"; failed=$((failed + 1)); }
expect models-json 0 "" -- models --json
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert any(m["id"]=="resnet50" for m in d)' "$tmp/out" \
  && passed=$((passed + 1)) || { echo "FAIL models --json: not a list with resnet50"; failed=$((failed + 1)); }

expect estimate-json 0 "" -- estimate --model gpt2-small --batch 8 --json
/usr/bin/python3 - "$tmp/out" <<'PY' && passed=$((passed + 1)) || failed=$((failed + 1))
import json, sys
d = json.load(open(sys.argv[1]))
assert d["params"] == 124439808, d["params"]
m = d["memory_bytes"]
terms = ["weights", "gradients", "optimizer", "activations", "kv_cache", "workspace", "context", "fragmentation"]
assert abs(sum(m[t] for t in terms) - m["total"]) < 1.0, "memory terms do not add up to total"
assert d["flops"]["train_per_step"] > 3 * d["flops"]["forward_per_step"] * 0.99
PY

expect unknown-model 1 "unknown model 'gpt5'" -- estimate --model gpt5
expect zero-batch 1 "--batch: 0 is out of range" -- estimate --model gpt2-small --batch 0
expect negative-seq 1 "--seq: -5 is out of range" -- estimate --model gpt2-small --seq -5
expect nan-batch 1 "--batch: 'NaN' is not an integer" -- estimate --model gpt2-small --batch NaN
expect batch-not-divisible 1 "not divisible by --dp" -- estimate --model gpt2-small --batch 10 --dp 4
expect tp-not-dividing-heads 1 "--tp 5 does not divide the attention heads" -- estimate --model gpt2-small --tp 5
expect seq-too-long 1 "exceeds model 'gpt2-small' max_positions 1024" -- estimate --model gpt2-small --seq 4096
expect bad-precision 1 "--precision: 'fp12' is not one of" -- estimate --model gpt2-small --precision fp12
expect unknown-option 1 "--colour: unknown option" -- estimate --model gpt2-small --colour red
expect missing-model 2 "--model ID or --hf-config FILE is required" -- estimate
expect unknown-command 2 "unknown command 'frobnicate'" -- frobnicate
echo '{"model_type": "llama", "hidden_size": 4096}' >"$tmp/bad.json"
expect hf-missing-field 1 "num_hidden_layers: missing required field" -- estimate --hf-config "$tmp/bad.json"
echo '{not json' >"$tmp/broken.json"
expect hf-malformed 1 "not valid JSON at line 1" -- estimate --hf-config "$tmp/broken.json"
expect hf-missing-file 1 "cannot open file" -- estimate --hf-config "$tmp/nope.json"

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
