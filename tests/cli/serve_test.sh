#!/usr/bin/env bash
# gpuplan serve and gpuplan validate on a serving CSV, as a user scripts them: exit codes, the
# one-line error messages, and that --json output parses with the fields the page and site use.
# Usage: serve_test.sh PATH_TO_GPUPLAN REPO_ROOT
# SERVE_VALIDATE_EVERY=N validates every Nth row of the serving table only (plus the rows the checks
# below name): the sanitizer build, 20x slower, sets it.
set -uo pipefail
bin=${1:?usage: serve_test.sh GPUPLAN REPO_ROOT}
root=${2:?usage: serve_test.sh GPUPLAN REPO_ROOT}
source "$(dirname "$0")/checklib.sh"

ex=(serve --model llama-3-8b --rate 30 --prompt-tokens 1500 --output-tokens 300 --ttft-ms 1000 --tpot-ms 50)
expect serve-text 0 "" -- "${ex[@]}" --instance aws-p5.48xlarge
grep -q 'replicas per hour' "$tmp/out" || { echo "FAIL serve-text: no replicas per hour"; failed=$((failed + 1)); }
expect serve-json 0 "" -- "${ex[@]}" --gpu h100-sxm5-80gb --load-curve diurnal --json
/usr/bin/python3 - "$tmp/out" <<'PY' && passed=$((passed + 1)) || failed=$((failed + 1))
import json, sys
d = json.load(open(sys.argv[1]))
o = d["options"][0]
assert len(o["replicas_per_hour"]) == 24
assert o["replica_max_rate_per_s"] > 0
assert o["at_max_rate"]["ttft_s"]["p90"] <= 1.0 and o["at_max_rate"]["tpot_s"]["p90"] <= 0.050
# Autoscaled replicas cover every hour of the curve at the per-replica rate they were sized for.
assert all(r >= 1 for r in o["replicas_per_hour"])
assert o["costs"][0]["pricing"] == "on-demand"
assert o["costs"][0]["usd_per_month_autoscaled"] <= o["costs"][0]["usd_per_month_fixed"]
PY
# --currency cny: the same plan, each cost also in CNY at pricing_rules.json's one rate, stated with
# its source and date; the default stays USD (no shown_* cost fields, the currency block says USD);
# a third currency is refused.
expect serve-json-cny 0 "" -- "${ex[@]}" --gpu h100-sxm5-80gb --load-curve diurnal --json --currency cny
/usr/bin/python3 - "$tmp/out" "$root/data/pricing_rules.json" <<'PY' && passed=$((passed + 1)) || failed=$((failed + 1))
import json, sys
d = json.load(open(sys.argv[1]))
rules = json.load(open(sys.argv[2]))
rate = rules["usd_per_cny"]["value"]
source = rules["sources"][rules["usd_per_cny"]["source"]]
s = d["shown_currency"]
assert s["currency"] == "CNY" and s["usd_per_unit"] == rate, s
assert s["rate_source"] == source["title"] and s["rate_date"] == source["date"] and s["rate_url"] == source["url"], s
c = d["options"][0]["costs"][0]
assert c["shown_currency"] == "CNY", c
for f in ("per_month_fixed", "per_month_autoscaled", "per_million_output_tokens"):
    assert abs(c["shown_" + f] - c["usd_" + f] / rate) <= 1e-9 * c["shown_" + f], (f, c)
PY
cp "$tmp/out" "$tmp/cny.json"
expect serve-json-usd 0 "" -- "${ex[@]}" --gpu h100-sxm5-80gb --load-curve diurnal --json
/usr/bin/python3 - "$tmp/out" "$tmp/cny.json" <<'PY' && passed=$((passed + 1)) || failed=$((failed + 1))
import json, sys
usd, cny = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert usd["shown_currency"] == {"currency": "USD", "usd_per_unit": 1, "rate_source": None, "rate_url": None, "rate_date": None}, usd["shown_currency"]
assert not any(k.startswith("shown_") for o in usd["options"] for c in o["costs"] for k in c), usd["options"][0]["costs"]
# The currency changes how costs are shown, never the plan: same options, same USD amounts, and
# the same fields besides the currency block.
strip = lambda d: [{k: v for k, v in c.items() if not k.startswith("shown_")} for o in d["options"] for c in o["costs"]]
assert strip(usd) == strip(cny)
assert list(usd) == list(cny), (list(usd), list(cny))
PY
expect serve-text-cny 0 "" -- "${ex[@]}" --instance aws-p5.48xlarge --currency cny
grep -q 'CNY /mo fixed' "$tmp/out" && grep -q '^amounts in CNY at 0.138 USD/CNY (.*, 20[0-9-]*)$' "$tmp/out" \
  && passed=$((passed + 1)) || { echo "FAIL serve-text-cny: $(head -2 "$tmp/out"; tail -3 "$tmp/out")"; failed=$((failed + 1)); }
expect serve-bad-currency 1 "--currency: 'eur' is not one of usd, cny" -- "${ex[@]}" --currency eur
expect serve-no-model 2 "--model is required" -- serve --rate 3 --prompt-tokens 100 --output-tokens 10
expect serve-bad-runtime 1 "--runtime: 'tgi' is not one of vllm, trtllm, sglang, hf" -- "${ex[@]}" --runtime tgi
expect serve-bad-weights 1 "--weights: 'fp4' is not one of" -- "${ex[@]}" --weights fp4
expect serve-bad-curve 1 "--load-curve: 'weekly' is not flat, business-hours, diurnal or a file" -- "${ex[@]}" --load-curve weekly
expect serve-typed-curve 0 "" -- "${ex[@]}" --gpu h100-sxm5-80gb --json \
  --load-curve 5,5,5,5,5,5,10,20,30,30,30,30,30,30,30,30,30,30,20,10,5,5,5,5
/usr/bin/python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["load_curve_per_s"]; assert c[6:9] == [10, 20, 30] and len(c) == 24, c' \
  "$tmp/out" && passed=$((passed + 1)) || { echo "FAIL serve-typed-curve: not the plan's curve"; failed=$((failed + 1)); }
expect serve-typed-curve-short 1 "expected 24 hourly rates (requests/s), got 3" -- "${ex[@]}" --load-curve 1,2,3
printf '1 2 3\n' >"$tmp/short.txt"
expect serve-short-curve 1 "expected 24 hourly rates (requests/s), got 3" -- "${ex[@]}" --load-curve "$tmp/short.txt"
# A file of 24 rates; a preset's name is the preset even beside a file of that name.
printf '# a day\n5 5 5 5 5 5 10 20 30 30 30 30\n30 30 30 30 30 30 20 10 5 5 5 5\n' >"$tmp/day.txt"
expect serve-file-curve 0 "" -- "${ex[@]}" --gpu h100-sxm5-80gb --json --load-curve "$tmp/day.txt"
/usr/bin/python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["load_curve_per_s"]; assert c[6:9] == [10, 20, 30] and len(c) == 24, c' \
  "$tmp/out" && passed=$((passed + 1)) || { echo "FAIL serve-file-curve: not the file's curve"; failed=$((failed + 1)); }
mkdir "$tmp/cwd" && cp "$tmp/short.txt" "$tmp/cwd/diurnal"
pushd "$tmp/cwd" >/dev/null
expect serve-preset-not-file 0 "" -- "${ex[@]}" --gpu h100-sxm5-80gb --load-curve diurnal
popd >/dev/null
expect serve-bad-typed-curve 1 "--load-curve:1: 'x' is not a request rate" -- "${ex[@]}" --load-curve 1,x,3
expect serve-does-not-fit 1 "does not fit on l4 at TP 1" -- serve --model llama-3-70b --rate 1 --prompt-tokens 100 --output-tokens 10 --gpu l4 --tp 1
expect serve-slo-unreachable 1 "SLO unreachable: the first token takes" -- serve --model llama-3-70b --rate 1 --prompt-tokens 100000 --output-tokens 10 --ttft-ms 10 --gpu h100-sxm5-80gb --tp 8
expect serve-gpu-auto 0 "" -- "${ex[@]}" --gpu auto --top 2
grep -q '^best: ' "$tmp/out" || { echo "FAIL serve-gpu-auto: no best option"; failed=$((failed + 1)); }
expect serve-unknown-gpu 1 "--gpu: unknown GPU 'z100'" -- "${ex[@]}" --gpu z100
expect serve-unknown-model 1 "--model: unknown model 'zzqq-9b' (run 'gpuplan models' for the list)" -- serve --model zzqq-9b --rate 3 --prompt-tokens 100 --output-tokens 10
expect serve-unknown-instance 1 "--instance: unknown instance 'aws-zz' (run 'gpuplan instances')" -- "${ex[@]}" --instance aws-zz
# Serving features: the inputs and what they do, in --json; bad values name their key.
expect serve-features-json 0 "" -- "${ex[@]}" --gpu h100-sxm5-80gb --tp 1 --json --prefix-hit-rate 0.5 \
  --spec-method eagle --spec-tokens 4 --spec-acceptance 0.8
/usr/bin/python3 - "$tmp/out" <<'PY' && passed=$((passed + 1)) || failed=$((failed + 1))
import json, sys
d = json.load(open(sys.argv[1]))
assert d["prefix_caching"] == {"prefix_hit_rate": 0.5, "prefill_computed_share": 0.5}, d["prefix_caching"]
s = d["speculative_decoding"]
assert (s["method"], s["tokens"], s["acceptance"]) == ("eagle", 4, 0.8), s
assert abs(s["tokens_per_step"] - 3.3616) < 1e-12, s  # (1 - 0.8^5) / (1 - 0.8)
o = d["options"][0]
assert abs(o["itl_s"] - o["decode_step_s"] / 3.3616) < 1e-12 and o["spec_weight_bytes_per_gpu"] > 0
PY
expect serve-spec-acceptance-range 1 "--spec-acceptance: 1.5 is out of range [0.001, 1]" -- "${ex[@]}" \
  --spec-method eagle --spec-tokens 4 --spec-acceptance 1.5
expect serve-spec-acceptance-missing 1 "--spec-acceptance: --spec-method eagle needs the measured per-token acceptance rate" \
  -- "${ex[@]}" --spec-method eagle --spec-tokens 4
expect serve-spec-unknown-draft 1 "--spec-draft-model: unknown model 'zzqq-1b'" -- "${ex[@]}" \
  --spec-method draft --spec-tokens 4 --spec-acceptance 0.7 --spec-draft-model zzqq-1b

pp=(serve --model llama-3.1-405b --gpu rtx-pro-6000-blackwell-server --weights nvfp4 --runtime trtllm --rate 1)
expect serve-pp 0 "" -- "${pp[@]}" --tp 1 --pp 8
grep -q '8 GPU(s) per replica (8 pipeline stages of 1)' "$tmp/out" || { echo "FAIL serve-pp: no pipeline layout"; failed=$((failed + 1)); }
expect serve-pp-one-machine 0 "" -- serve --model llama-3-70b --gpu l40s --tp 1 --pp 8 --rate 20
grep -q 'coreweave-l40s-8x' "$tmp/out" || { echo "FAIL serve-pp-one-machine: no 8-GPU machine"; failed=$((failed + 1)); }
! grep -q '1x-l40s' "$tmp/out" || { echo "FAIL serve-pp-one-machine: stages on single-GPU machines"; failed=$((failed + 1)); }
expect serve-pp-domain 1 "--tp 2 --pp 8: no matching instance joins that many GPUs in one machine or NVLink domain (the largest joins 8), nor holds whole stages on machines with a known network to hand over between them" -- serve --model llama-3-70b --instance coreweave-l40s-8x --tp 2 --pp 8 --rate 20
# Stages over networked machines (vLLM: tensor parallel in a node, pipeline across nodes): Llama 3
# 405B at 16 bits fills no 8-GPU H100 machine; two of them, one stage each, hold it.
expect serve-pp-machines 0 "" -- serve --model llama-3-405b --gpu h100-sxm5-80gb --rate 1
grep -q '16 GPU(s) per replica (2 pipeline stages of 8, over 2 machines)' "$tmp/out" || { echo "FAIL serve-pp-machines: no 2-machine replica"; failed=$((failed + 1)); }
expect serve-pp-range 1 "--pp: 200 is out of range [0, 64]" -- "${pp[@]}" --tp 1 --pp 200

# Disaggregated prefill and decode (--disaggregate): two pools on the best option's instance, the
# prompt's KV cache over NVLink inside the 8-GPU host; a 1-GPU machine without a sourced network
# says why it cannot time the transfer, and the co-located plan still stands.
expect serve-disagg 0 "" -- serve --model llama-3-70b --rate 20 --prompt-tokens 2000 --output-tokens 200 \
  --ttft-ms 1000 --tpot-ms 50 --instance aws-p5.48xlarge --tp 4 --disaggregate --decode-tp 2 --json
/usr/bin/python3 - "$tmp/out" <<'PY' && passed=$((passed + 1)) || { echo "FAIL serve-disagg: $(head -c 300 "$tmp/out")"; failed=$((failed + 1)); }
import json, sys
d = json.load(open(sys.argv[1]))["disaggregated"]
assert d["prefill"]["tp"] == 4 and d["decode"]["tp"] == 2, d
assert d["kv_link"] == "NVLink" and d["kv_bytes_per_request"] == 2000 * 327680, d
assert d["prefill"]["fixed_replicas"] > 0 and d["decode"]["fixed_replicas"] > 0, d
assert d["gpus_fixed"] == 4 * d["prefill"]["fixed_replicas"] + 2 * d["decode"]["fixed_replicas"], d
PY
expect serve-disagg-no-network 0 "" -- serve --model llama-3-8b --rate 1 --instance runpod-community-cloud-1x-h100-sxm-80gb --disaggregate
grep -q '^disaggregated: --disaggregate: runpod-community-cloud-1x-h100-sxm-80gb has no sourced network bandwidth' "$tmp/out" || { echo "FAIL serve-disagg-no-network: $(tail -3 "$tmp/out")"; failed=$((failed + 1)); }

# One answer: estimate --mode infer --generate times prefill and a decode step as serve does for the
# same model, GPU, tp, runtime and lengths (issue 29: the two faces disagreed on MoE decode).
expect serve-one-answer 0 "" -- serve --model mixtral-8x7b --gpu h100-sxm5-80gb --tp 2 --rate 1 --prompt-tokens 512 --output-tokens 256 --top 1 --json
cp "$tmp/out" "$tmp/serve_one.json"
expect estimate-one-answer 0 "" -- estimate --model mixtral-8x7b --gpu h100-sxm5-80gb --gpus 2 --tp 2 --mode infer --precision bf16 --seq 512 --generate 256 --runtime vllm --json
/usr/bin/python3 - "$tmp/serve_one.json" "$tmp/out" <<'PY' && passed=$((passed + 1)) || failed=$((failed + 1))
import json, sys
o = json.load(open(sys.argv[1]))["options"][0]
t = json.load(open(sys.argv[2]))["time"]
assert t["decode_token_s"] == o["decode_step_s"] and t["prefill_s"] == o["prefill_s"], (t, o)
PY
# Its text shows inference's FLOPs and time terms, not a training step's.
expect estimate-infer-text 0 "" -- estimate --model llama-3-8b --mode infer --precision bf16 --seq 512 --generate 64 --gpu h100-sxm5-80gb
grep -q '^  decode per token (batch)' "$tmp/out" && grep -q '^    decode step' "$tmp/out" && ! grep -q 'train per step\|    backward' "$tmp/out" || { echo "FAIL estimate-infer-text: $(sed -n '/^FLOPs/,$p' "$tmp/out" | head -30)"; failed=$((failed + 1)); }

table=$root/tests/validation/serving_dev.csv
every=${SERVE_VALIDATE_EVERY:-1}
if [ "$every" -gt 1 ]; then
  awk -v n="$every" 'NR == 1 || NR % n == 0 || /Hunyuan Hy3|Nemotron-3-Super|gpt-fast/' "$table" >"$tmp/serving_sample.csv"
  table=$tmp/serving_sample.csv
fi
expect validate-serving 0 "" -- validate "$table"
grep -q 'MAPE by group  batch-1 decode tokens/s' "$tmp/out" || { echo "FAIL validate-serving: no batch-1 MAPE"; failed=$((failed + 1)); }
grep -q "skipped: GPU 'DGX Spark (GB10)' is not in the catalog" "$tmp/out" || { echo "FAIL validate-serving: skip reason missing"; failed=$((failed + 1)); }
grep -q "skipped: input length not stated: a decode step's time depends on the context it reads" "$tmp/out" || { echo "FAIL validate-serving: unstated input not named"; failed=$((failed + 1)); }

echo "serve CLI: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
