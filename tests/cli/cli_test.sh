#!/usr/bin/env bash
# Behaviour of the gpuplan binary as a user scripts it: exit codes, the one-line error messages,
# and that --json output parses. Usage: cli_test.sh PATH_TO_GPUPLAN
set -uo pipefail
bin=${1:?usage: cli_test.sh GPUPLAN}
source "$(dirname "$0")/checklib.sh"

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

# Bad inputs (the core-level catalogue is tests/core/bad_inputs_test.cpp): exit 1 and one line.
: >"$tmp/empty.json"
expect hf-empty-file 1 "empty.json: file is empty" -- estimate --hf-config "$tmp/empty.json"
truncate -s 100M "$tmp/huge.json"  # sparse, so it costs no disk; rejected by size before reading
expect hf-100mb-file 1 "huge.json: file is 104857600 bytes; the limit is 4194304 bytes" -- estimate --hf-config "$tmp/huge.json"
printf '%.0s[' $(seq 100) >"$tmp/deep.json"
expect hf-deep-nesting 1 "deep.json: nesting deeper than 64 levels" -- estimate --hf-config "$tmp/deep.json"
echo '{"model_type": "llama", "num_hidden_layers": "32"}' >"$tmp/type.json"
expect hf-wrong-type 1 "type.json: num_hidden_layers: expected an integer, got a string" -- estimate --hf-config "$tmp/type.json"
echo '{"model_type": "llama", "num_hidden_layers": -0}' >"$tmp/zero.json"
expect hf-minus-zero 1 "zero.json: num_hidden_layers: 0 is out of range [1, 10000000]" -- estimate --hf-config "$tmp/zero.json"
echo '{"model_type": "llama", "num_hidden_layers": NaN}' >"$tmp/nan.json"
# Python's json module writes NaN; a config.json field gpuplan reads refuses it by name.
expect hf-nan-token 1 "nan.json: num_hidden_layers: expected an integer, got NaN" -- estimate --hf-config "$tmp/nan.json"
echo '{"model_type": "llama", "num_hidden_layers": 1e999}' >"$tmp/overflow.json"
expect hf-number-overflow 1 "overflow.json: not valid JSON at line 1, column 50: the number does not fit a double" -- estimate --hf-config "$tmp/overflow.json"
echo '{"schema_version": 2, "kind": "gpuplan-probe"}' >"$tmp/future.probe.json"
expect probe-unknown-version 1 "payload: schema_version 2 is not supported (this build reads 1)" -- verify "$tmp/future.probe.json"
printf 'id,model,gpu,num_gpus,precision,batch_size_per_gpu,seq_len_or_resolution,task,metric,value\n\xff,gpt2-small,a100-sxm4-80gb,1,fp32,8,1024,train,mfu,0.4\n' >"$tmp/latin1.csv"
expect csv-not-utf8 1 "latin1.csv:2: not valid UTF-8 (save the file as UTF-8)" -- validate "$tmp/latin1.csv"
expect unknown-gpu 1 "--gpu: unknown GPU 'h9000' (run 'gpuplan gpus')" -- estimate --model gpt2-small --gpu h9000
expect batch-overflows-int64 1 "--batch: '9999999999999999999' is not an integer" -- estimate --model gpt2-small --batch 9999999999999999999
expect pp-exceeds-layers 1 "--pp 13 exceeds the 12 layers of model 'gpt2-small'" -- estimate --model gpt2-small --pp 13
expect too-many-gpus 1 "--dp x --tp x --pp x --cp = 1000000000 GPUs; at most 1000000 are modelled (lower --dp, --tp, --pp or --cp)" -- estimate --model gpt2-small --dp 1000 --tp 1000 --pp 1000
expect plan-fits-nowhere 1 "memory binds: no configuration fits in GPU memory; the closest (" -- plan --model llama-2-7b --seq 10000000 --tokens 1e9 --max-nodes 2
expect json-report-not-utf8 0 "" -- estimate --model gpt2-small --lora-targets $'q_proj,\xff' --json
# Hardware, run and planner keys: the core's query parser, so the messages are the share link's
# (tests/core/query_test.cpp asserts the same text for "nodes=0" in a link).
expect nodes-out-of-range 1 "gpuplan: error: --nodes: 0 is out of range [1, 100000]" -- estimate --model gpt2-small --instance aws-p4d.24xlarge --nodes 0
expect max-nodes-out-of-range 1 "gpuplan: error: --max-nodes: 2000 is out of range [1, 1024]" -- plan --model gpt2-small --tokens 1e9 --max-nodes 2000
expect tokens-not-a-number 1 "gpuplan: error: --tokens: 'lots' is not a number" -- estimate --model gpt2-small --tokens lots
expect plan-refuses-gpu 1 "gpuplan: error: --gpu is the estimate's hardware: plan chooses the GPU, instance and nodes itself (--plan-gpu ID keeps one GPU's instances" -- plan --model gpt2-small --tokens 1e9 --gpu a100-sxm4-80gb
expect plan-refuses-nodes 1 "gpuplan: error: --nodes is the estimate's hardware" -- plan --model gpt2-small --tokens 1e9 --nodes 2
expect plan-gpu-unknown 1 "gpuplan: error: --plan-gpu: unknown GPU 'h9000' (run 'gpuplan gpus')" -- plan --model gpt2-small --tokens 1e9 --plan-gpu h9000
# A near miss gets the suggestions --gpu gives; each one a GPU that --plan-gpu then takes.
expect plan-gpu-near-miss 1 "gpuplan: error: --plan-gpu: unknown GPU 'h100'; did you mean one of: " -- plan --model gpt2-small --tokens 1e9 --plan-gpu h100
like=$(sed -n "s/.*did you mean one of: //p" "$tmp/err")
grep -qw 'h100-sxm5-80gb' <<<"$like" && "$bin" plan --model gpt2-small --tokens 1e9 --plan-gpu "${like%%,*}" --top 1 >/dev/null 2>&1 \
  && passed=$((passed + 1)) || { echo "FAIL plan-gpu-near-miss: suggestions '$like' lack h100-sxm5-80gb or the first is refused"; failed=$((failed + 1)); }
expect objective-unknown 1 "gpuplan: error: --objective: 'speed' is not one of cost, time" -- plan --model gpt2-small --tokens 1e9 --objective speed
expect probe-needs-hardware 2 "estimate: --probe needs --gpu or --instance" -- estimate --model gpt2-small --probe x.json
expect estimate-json-versioned 0 "" -- estimate --model gpt2-small --gpu a100-sxm4-80gb --tokens 1e9 --json
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema_version"] == 1 and d["time"]["step_s"] > 0 and "fit_advice" in d, d' "$tmp/out" \
  && passed=$((passed + 1)) || { echo "FAIL estimate --json: no schema_version, time or fit"; failed=$((failed + 1)); }

# Devices and pipes have no size: every input is read up to its limit + 1 bytes, then refused
# with a one-line error (timeout 120 turns a hang into exit 124, a failure here; it takes well
# under a second, and the bound is far above what a loaded machine or a sanitizer adds).
bounded() {
  local name=$1 want_err=$2
  shift 3
  timeout 120 "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -ne 1 ] || ! grep -qF -- "$want_err" "$tmp/err"; then
    echo "FAIL $name: exit $rc (wanted 1); stderr: $(head -c 300 "$tmp/err")"
    failed=$((failed + 1))
    return
  fi
  passed=$((passed + 1))
}
bounded validate-urandom "gpuplan: error: /dev/urandom: more than 4194304 bytes read (a device or a pipe?); the limit is 4194304 bytes" -- validate /dev/urandom
bounded verify-zero "gpuplan: error: /dev/zero: more than 8388608 bytes read (a device or a pipe?); the limit is 8388608 bytes" -- verify /dev/zero
bounded hf-config-zero "gpuplan: error: /dev/zero: more than 4194304 bytes read (a device or a pipe?); the limit is 4194304 bytes" -- estimate --hf-config /dev/zero
bounded probe-zero "gpuplan: error: /dev/zero: more than 8388608 bytes read" -- estimate --model gpt2-small --gpu a100-sxm4-80gb --probe /dev/zero
bounded directory "gpuplan: error: $tmp: cannot read file (Is a directory)" -- validate "$tmp"
bounded missing-file "gpuplan: error: $tmp/none.csv: cannot open file (No such file or directory)" -- validate "$tmp/none.csv"

# Pricing as clouds sell it (issues 13 and 18): currencies, spot only where sold, published spot over
# the rule, reservations charged their term, break-even, spot interruption buckets.
expect gpus-at-least-30 0 "" -- gpus --json
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d) >= 30, len(d)' "$tmp/out" \
  && passed=$((passed + 1)) || { echo "FAIL gpus: fewer than 30"; failed=$((failed + 1)); }
# A GPU without its own FP4 measurement: the B200's measured share of peak (5,239 of 9,000), its donor named.
/usr/bin/python3 - "$tmp/out" <<'PY' && passed=$((passed + 1)) || { echo "FAIL gpus: gb200 fp4 not derived from b200"; failed=$((failed + 1)); }
import json, sys
gpus = {g["id"]: g for g in json.load(open(sys.argv[1]))}
fp4 = gpus["gb200"]["matmul_achievable_flop_per_s"]["fp4"]
assert fp4["derived_from"] == ["b200-sxm"], fp4
assert abs(fp4["value"] - 5239 / 9000 * 10000e12) < 1e6, fp4
assert "source" in gpus["b200-sxm"]["matmul_achievable_flop_per_s"]["fp4"]
PY
# Serving GEMM rates: the H100's measured with TensorRT-LLM's kernels (the table named); an H800,
# with no table, at the H100's and H200's mean shares of spec bandwidth.
/usr/bin/python3 - "$tmp/out" <<'PY' && passed=$((passed + 1)) || { echo "FAIL gpus: serving GEMM rates"; failed=$((failed + 1)); }
import json, sys
gpus = {g["id"]: g for g in json.load(open(sys.argv[1]))}
h100 = gpus["h100-sxm5-80gb"]["serving_gemm"]["trtllm/fp8"]
assert "aiconfigurator" in h100["source"] and "TensorRT-LLM" in h100["source"], h100
h800 = gpus["h800-sxm5-80gb"]["serving_gemm"]["trtllm/fp8"]
assert h800["derived_from"] == ["h100-sxm5-80gb", "h200-sxm-141gb"], h800
bw = gpus["h800-sxm5-80gb"]["memory_bandwidth_bytes_per_s"]["value"]
assert abs(h800["weight_stream_bytes_per_s"] - h800["share_of_bandwidth"] * bw) < 1, h800
PY
# Serving MoE expert rates: vLLM's MXFP4 kernels on the H100, the moe table named; none on an H800.
/usr/bin/python3 - "$tmp/out" <<'PY' && passed=$((passed + 1)) || { echo "FAIL gpus: serving MoE rates"; failed=$((failed + 1)); }
import json, sys
gpus = {g["id"]: g for g in json.load(open(sys.argv[1]))}
moe = gpus["h100-sxm5-80gb"]["serving_moe"]["vllm/mxfp4"]
assert "h100_sxm/moe/vllm/" in moe["source"] and moe["expert_stream_bytes_per_s"] > 1e12, moe
assert gpus["h800-sxm5-80gb"]["serving_moe"] == {}, gpus["h800-sxm5-80gb"]["serving_moe"]
PY
# GB300 is priced by OCI alone; its 4-GPU trays share one 72-GPU NVLink domain, and racks talk over
# the RDMA network, so runs over 16 trays (one rack) and 20 (two racks) both time and cost.
for trays in 16 20; do
  expect "oci-gb300-$trays-trays" 0 "" -- estimate --model qwen3-235b-a22b --instance oci-bm.gpu.gb300.4 \
    --nodes $trays --precision mxfp8 --framework megatron --zero 1 --ep 16 --tokens 1e9 --json
  /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["time"]["step_s"] > 0 and d["time"]["ep_comm_s"] > 0 and d["cost"]["usd_total"] > 0, d["time"]' "$tmp/out" \
    && passed=$((passed + 1)) || { echo "FAIL oci gb300 over $trays trays: not timed and priced"; failed=$((failed + 1)); }
done
expect rtx4090-amp-fp16 0 "" -- estimate --model gpt2-small --gpu rtx-4090 --precision amp-fp16 --batch 8 --json
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["time"]["step_s"] > 0' "$tmp/out" \
  && passed=$((passed + 1)) || { echo "FAIL rtx-4090 amp-fp16: no step time"; failed=$((failed + 1)); }
expect instances-alibaba 0 "" -- instances --provider alibaba
grep -q '^alibaba-ecs.gn6i-c4g1.xlarge .*CNY/h (.* USD/h at 0.138 USD/CNY).*date unknown, retrieved 2026-12-01 (stale)' "$tmp/out" \
  && passed=$((passed + 1)) || { echo "FAIL instances alibaba: $(head -3 "$tmp/out")"; failed=$((failed + 1)); }
expect instances-tencent 0 "" -- instances --provider tencent
grep -q '^tencent-gn10xp.20xlarge320 .*v100-sxm2-32gb' "$tmp/out" \
  && passed=$((passed + 1)) || { echo "FAIL instances tencent: GN10Xp missing"; failed=$((failed + 1)); }
expect instances-bad-currency 1 "--currency: 'eur' is not usd or cny" -- instances --currency eur
expect no-spot-at-lambda 1 "lambda does not sell spot capacity (instance 'lambda-gpu-1x-a10'" -- estimate --model gpt2-small --batch 8 --instance lambda-gpu-1x-a10 --pricing spot
expect reserved-year-json 0 "" -- estimate --model gpt2-small --batch 8 --instance aws-p4d.24xlarge --region us-east-1 --pricing reserved-1y --tokens 1e8 --json
/usr/bin/python3 - "$tmp/out" <<'PY' && passed=$((passed + 1)) || failed=$((failed + 1))
import json, sys
c = json.load(open(sys.argv[1]))["cost"]
assert c["price_is_published"] is True, c
assert abs(c["usd_total"] - 8760 * 13.921094) < 1e-6, c["usd_total"]  # the whole term, not the run's hours
assert abs(c["break_even_utilisation"] - 13.921094 / 21.957642) < 1e-9, c["break_even_utilisation"]
PY
expect reserved-utilisation-above-1 1 "--reservation-utilisation: 1.5 is out of range [0.001, 1]" -- estimate --model gpt2-small --instance aws-p4d.24xlarge --pricing reserved-1y --reservation-utilisation 1.5
expect published-spot-wins 0 "" -- estimate --model gpt2-small --batch 8 --instance aws-g4dn.xlarge --region us-east-1 --pricing spot --tokens 1e6 --json
/usr/bin/python3 - "$tmp/out" <<'PY' && passed=$((passed + 1)) || failed=$((failed + 1))
import json, sys
c = json.load(open(sys.argv[1]))["cost"]
assert c["instance_usd_per_hour"] == 0.163 and c["price_is_published"] and c["price_rule"] is None, c
PY
expect spot-rule-marked 0 "" -- estimate --model gpt2-small --batch 8 --instance aws-g4dn.xlarge --region eu-west-1 --pricing spot --tokens 1e6 --json
/usr/bin/python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cost"]; assert c["price_rule"] == "seed-guide-spot-70" and not c["price_is_published"], c' "$tmp/out" \
  && passed=$((passed + 1)) || { echo "FAIL spot rule not marked"; failed=$((failed + 1)); }
expect estimate-cny 0 "" -- estimate --model gpt2-small --batch 8 --instance alibaba-ecs.gn7i-c8g1.2xlarge --region cn-hangzhou --tokens 1e6 --currency cny
grep -q 'per instance .* CNY/h (.* USD/h at 0.138 USD/CNY) published' "$tmp/out" \
  && passed=$((passed + 1)) || { echo "FAIL estimate --currency cny: $(grep -A3 '^Price' "$tmp/out")"; failed=$((failed + 1)); }
expect plan-alibaba-cny 0 "" -- plan --model gpt2-small --batch 8 --tokens 1e8 --provider alibaba --currency cny --top 3
grep -q '^1 *alibaba-' "$tmp/out" && grep -q 'CNY total' "$tmp/out" \
  && passed=$((passed + 1)) || { echo "FAIL plan --provider alibaba --currency cny: $(head -3 "$tmp/out")"; failed=$((failed + 1)); }
# plan --json states its currency as serve and estimate do: in CNY each cost also in CNY at
# pricing_rules.json's one rate, stated with its source and date; in USD the block says USD. The
# USD fields stay the same in both, and the CNY totals are the text table's.
cp "$tmp/out" "$tmp/plan-cny.txt"
expect plan-json-cny 0 "" -- plan --model gpt2-small --batch 8 --tokens 1e8 --provider alibaba --currency cny --top 3 --json
cp "$tmp/out" "$tmp/plan-cny.json"
expect plan-json-usd 0 "" -- plan --model gpt2-small --batch 8 --tokens 1e8 --provider alibaba --top 3 --json
/usr/bin/python3 - "$tmp/plan-cny.json" "$tmp/out" "$tmp/plan-cny.txt" "$(dirname "$0")/../../data/pricing_rules.json" <<'PY' && passed=$((passed + 1)) || failed=$((failed + 1))
import json, sys
cny, usd = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read().splitlines()
rules = json.load(open(sys.argv[4]))
rate = rules["usd_per_cny"]["value"]
source = rules["sources"][rules["usd_per_cny"]["source"]]
s = cny["shown_currency"]
assert s["currency"] == "CNY" and s["usd_per_unit"] == rate, s
assert s["rate_source"] == source["title"] and s["rate_url"] == source["url"] and s["rate_date"] == source["date"], s
assert usd["shown_currency"] == {"currency": "USD", "usd_per_unit": 1, "rate_source": None, "rate_url": None, "rate_date": None}, usd["shown_currency"]
assert len(cny["plans"]) == 3 and cny["pareto"], (len(cny["plans"]), len(cny["pareto"]))
for p in cny["plans"] + cny["pareto"]:
    c = p["cost"]
    assert c["shown_currency"] == "CNY", c
    assert abs(c["total_in_shown_currency"] - c["usd_total"] / rate) <= 1e-9 * c["total_in_shown_currency"], c
for p in usd["plans"] + usd["pareto"]:
    assert p["cost"]["shown_currency"] == "USD" and p["cost"]["total_in_shown_currency"] == p["cost"]["usd_total"], p["cost"]
# The currency changes how costs are shown, never the plans: same plans, same USD amounts.
strip = lambda d: [{k: v for k, v in p["cost"].items() if k not in ("shown_currency", "total_in_shown_currency")} | {"instance": p["instance"]} for p in d["plans"] + d["pareto"]]
assert strip(usd) == strip(cny)
# `plan --currency cny`'s table (rank, instance, GPUs, hours, CNY total): the same totals.
rows = [l.split() for l in text if l[:1].isdigit()]
assert [r[1] for r in rows] == [p["instance"] for p in cny["plans"]], rows
for r, p in zip(rows, cny["plans"]):
    t = p["cost"]["total_in_shown_currency"]
    assert abs(float(r[4]) - t) <= 1e-5 * t, (r, t)
PY
# serve --json states its currency in the same place and the same way as plan --json, USD included.
cp "$tmp/out" "$tmp/plan-usd.json"
expect serve-json-usd 0 "" -- serve --model gpt2-small --rate 1 --gpu a10 --json
/usr/bin/python3 - "$tmp/plan-usd.json" "$tmp/out" <<'PY' && passed=$((passed + 1)) || failed=$((failed + 1))
import json, sys
plan, serve = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
usd = {"currency": "USD", "usd_per_unit": 1, "rate_source": None, "rate_url": None, "rate_date": None}
assert serve["options"], "serve found no option"
assert plan.get("shown_currency") == usd, plan.get("shown_currency")
assert serve.get("shown_currency") == usd, serve.get("shown_currency")
PY
expect plan-marks-assumed 0 "" -- plan --model gpt2-small --batch 8 --tokens 1e8 --pricing spot --provider runpod --top 2
grep -q '^1 .* ~$' "$tmp/out" && grep -q '~ assumed price (a pricing rule, not a published price)' "$tmp/out" \
  && passed=$((passed + 1)) || { echo "FAIL plan text does not mark assumed prices: $(head -4 "$tmp/out")"; failed=$((failed + 1)); }
expect plan-no-spot-at-lambda 1 "no priced instance matches the filters" -- plan --model gpt2-small --batch 8 --tokens 1e8 --pricing spot --provider lambda
expect bad-spot-bucket 1 "--spot-interruption-bucket: spot interruption bucket 'aws-99' is not in pricing_rules.json" -- estimate --model gpt2-small --gpu a10 --tokens 1e6 --pricing spot --spot-interruption-bucket aws-99
expect bucket-and-rate 1 "give --spot-interruption-bucket or --spot-interruptions-per-hour, not both" -- estimate --model gpt2-small --spot-interruption-bucket aws-lt5 --spot-interruptions-per-hour 0.1
expect optimizer-for-loop 0 "" -- estimate --model transformer-xl-base --gpu a100-sxm4-40gb --precision mixed-fp16 --micro-batch 32 --optimizer lamb --optimizer-loop for-loop --clip-grad-norm --json
/usr/bin/python3 - "$tmp/out" <<'PY' && passed=$((passed + 1)) || failed=$((failed + 1))
import json, sys
j = json.load(open(sys.argv[1]))
e = j.get("estimate", j)
assert e["param_tensors_trainable"] == 182, e["param_tensors_trainable"]
# 182 tensors x (AdamW's 164 us + clipping's 20 us per tensor), data/assumptions.json
t = j["time"] if "time" in j else j["step_time"]
assert abs(t["optimizer_s"] - 182 * (1.64e-4 + 2.0e-5)) < 1e-9, t["optimizer_s"]
PY
expect bad-optimizer-loop 1 "--optimizer-loop: 'fused' is not one of foreach, for-loop" -- estimate --model gpt2-small --optimizer-loop fused

# The key table (gpuplan keys): every option of estimate, plan and serve once, with its bounds and
# default; --help is generated from it, and its switches are the flags given bare.
expect keys-json 0 "" -- keys --json
/usr/bin/python3 - "$tmp/out" <<'PY' && passed=$((passed + 1)) || failed=$((failed + 1))
import json, sys
keys = json.load(open(sys.argv[1]))
estimate = {k["name"]: k for k in keys if k["commands"] != "serve"}
serve = {k["name"]: k for k in keys if k["commands"] == "serve"}
assert len(estimate) + len(serve) == len(keys), "a key twice"
assert estimate["batch"]["min"] == 1 and estimate["batch"]["max"] == 100000000, estimate["batch"]
assert estimate["precision"]["default"] == "fp32", estimate["precision"]
assert "amp-bf16" in estimate["precision"]["choices"]
assert estimate["sp"]["switch"] and not estimate["tp"]["switch"]
assert estimate["gpu"]["commands"] == "estimate" and estimate["plan-gpu"]["commands"] == "plan", (estimate["gpu"], estimate["plan-gpu"])
assert all(k["help"] and k["help_zh"] for k in keys)
assert serve["prompt-tokens"]["default"] == "1000", serve["prompt-tokens"]
PY
expect help-from-the-table 0 "" -- --help
grep -q -- '--precision fp32|tf32|fp16|bf16|amp-fp16|amp-bf16|mixed-fp16|mixed-bf16|fp8' "$tmp/out" \
  && grep -q -- '(default: adamw)' "$tmp/out" && grep -q -- '--reservation-utilisation X' "$tmp/out" \
  && passed=$((passed + 1)) || { echo "FAIL --help: the key table's lines are missing"; failed=$((failed + 1)); }
# A switch of the table is given bare; a key that is not one still needs its value.
expect switch-bare 0 "" -- estimate --model gpt2-small --compile --fused-loss --json
expect value-needed 2 "--seq needs a value" -- estimate --model gpt2-small --seq
# The planner's batch when none is given is resolve_defaults' (256), as before.
expect plan-default-batch 0 "" -- plan --model gpt2-small --tokens 1e8 --top 1 --json
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["plans"][0]["setup"]["batch"] == "256", d["plans"][0]["setup"]' "$tmp/out" \
  && passed=$((passed + 1)) || { echo "FAIL plan: default batch is not 256"; failed=$((failed + 1)); }

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
