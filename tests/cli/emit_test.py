#!/usr/bin/env python3
"""`--emit torchrun|accelerate|deepspeed|megatron` of gpuplan estimate and plan: each config parses
(JSON; YAML with python3-yaml, else a strict line check; Megatron-LM's a shell command) and carries
the numbers of the estimate or plan.

Usage: emit_test.py GPUPLAN
"""
import json
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, finish, run  # noqa: E402

GPUPLAN = sys.argv[1]


def gpuplan(*args):
    return run([GPUPLAN, *args], timeout=120)


def parse_yaml(text):
    try:
        import yaml
        return yaml.safe_load(text)
    except ImportError:  # strict minimal reader: "key: value" and one level of two-space nesting
        doc, section = {}, None
        for line in text.splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = re.fullmatch(r"( {2})?([a-z_]+):(?: (.*))?", line)
            if not m:
                raise ValueError(f"not a YAML mapping line: {line!r}")
            value = m.group(3)
            value = {"true": True, "false": False}.get(value, int(value) if value and value.isdigit() else value)
            if m.group(1):
                doc[section][m.group(2)] = value
            elif value is None:
                section = m.group(2)
                doc[section] = {}
            else:
                doc[m.group(2)] = value
        return doc


# An estimate: GPT-2 small, 8 GPUs, ZeRO-3, bf16 autocast, full checkpointing, global 256, micro 4.
SETUP = ["--model", "gpt2-small", "--gpu", "a100-sxm4-80gb", "--gpus", "8", "--zero", "3", "--precision", "amp-bf16",
         "--checkpointing", "full", "--batch", "256", "--micro-batch", "4"]
est = json.loads(gpuplan("estimate", *SETUP, "--json").stdout)
check("the estimate accumulates 8 micro-batches", est.get("grad_accum_steps") == 8, est.get("grad_accum_steps"))

d = gpuplan("estimate", *SETUP, "--emit", "deepspeed")
ds = json.loads(d.stdout) if d.returncode == 0 else {}
check("deepspeed JSON parses", d.returncode == 0, d.stderr)
check("deepspeed carries the batches", ds.get("train_batch_size") == 256 and ds.get("train_micro_batch_size_per_gpu") == 4
      and ds.get("gradient_accumulation_steps") == 8, ds)
check("deepspeed batch identity", ds.get("train_batch_size") == ds.get("train_micro_batch_size_per_gpu", 0)
      * ds.get("gradient_accumulation_steps", 0) * 8, ds)
check("deepspeed ZeRO 3, bf16 on, fp16 off", ds.get("zero_optimization", {}).get("stage") == 3
      and ds.get("bf16", {}).get("enabled") is True and ds.get("fp16", {}).get("enabled") is False, ds)
check("deepspeed checkpointing section present", "activation_checkpointing" in ds, ds)

a = gpuplan("estimate", *SETUP, "--emit", "accelerate")
acc = parse_yaml(a.stdout) if a.returncode == 0 else {}
check("accelerate YAML parses", a.returncode == 0 and isinstance(acc, dict), a.stdout + a.stderr)
check("accelerate: FSDP FULL_SHARD, bf16, 8 processes on 1 machine",
      acc.get("distributed_type") == "FSDP" and acc.get("mixed_precision") == "bf16" and acc.get("num_processes") == 8
      and acc.get("num_machines") == 1 and acc.get("fsdp_config", {}).get("fsdp_sharding_strategy") == "FULL_SHARD"
      and acc.get("fsdp_config", {}).get("fsdp_activation_checkpointing") is True, acc)
check("accelerate states the accumulation", "gradient_accumulation_steps=8" in a.stdout, a.stdout)

t = gpuplan("estimate", *SETUP, "--emit", "torchrun")
cmd = [l for l in t.stdout.replace("\\\n", " ").splitlines() if l.startswith("torchrun ")]
argv = shlex.split(cmd[0]) if cmd else []
check("torchrun line splits like a shell command", t.returncode == 0 and argv[:1] == ["torchrun"], t.stdout)
check("torchrun: 8 processes, micro 4, accumulation 8, global 256",
      "--nproc_per_node=8" in argv and argv[argv.index("--micro-batch-size") + 1] == "4"
      and argv[argv.index("--gradient-accumulation-steps") + 1] == "8"
      and argv[argv.index("--global-batch-size") + 1] == "256", argv)
check("torchrun states FSDP FULL_SHARD with bf16 mixed precision",
      "ShardingStrategy.FULL_SHARD" in t.stdout and "param_dtype=torch.bfloat16" in t.stdout
      and "apply_activation_checkpointing" in t.stdout, t.stdout)

bad = gpuplan("estimate", "--model", "gpt2-small", "--gpu", "a100-sxm4-80gb", "--gpus", "8", "--tp", "2", "--emit", "deepspeed")
check("tensor parallel is refused with the reason", bad.returncode == 1 and "tensor parallel 2" in bad.stderr, bad.stderr)
unk = gpuplan("estimate", *SETUP, "--emit", "slurm")
check("an unknown format is a usage error", unk.returncode == 2 and "'slurm' is not torchrun" in unk.stderr, unk.stderr)

# A plan: the top choice's own numbers.
PLAN = ["--model", "gpt2-small", "--tokens", "1e9", "--precision", "amp-bf16", "--batch", "64", "--top", "1"]
plan = json.loads(gpuplan("plan", *PLAN, "--json").stdout)
top = plan["plans"][0]
p = gpuplan("plan", *PLAN, "--emit", "deepspeed")
pd = json.loads(p.stdout) if p.returncode == 0 else {}
check("plan --emit deepspeed parses", p.returncode == 0, p.stderr)
setup = top.get("setup", {})  # the request keys that differ from the defaults, as strings
if setup.get("tp", "1") != "1" or setup.get("pp", "1") != "1":
    check("a tensor/pipeline-parallel plan is refused", p.returncode == 1 and "tensor parallel" in p.stderr, p.stderr)
else:
    check("plan config carries the plan's micro-batch, ZeRO stage and GPU count",
          pd.get("train_batch_size") == 64 and pd.get("train_micro_batch_size_per_gpu") == int(setup.get("micro-batch", 0))
          and pd.get("zero_optimization", {}).get("stage") == int(setup.get("zero", 0))
          and pd["train_batch_size"] == pd["train_micro_batch_size_per_gpu"] * pd["gradient_accumulation_steps"] * top["gpus"],
          (pd, top))

# A workload the planner may split (LLaMA-2-70B at batch 64 over up to 4 nodes): without --emit
# it also tries tensor/pipeline parallelism; with --emit it searches only the layouts the
# launcher expresses (data parallelism with ZeRO/FSDP), so the config it prints is of a plan it ranked.
SPLIT = ["--model", "llama-2-70b", "--seq", "4096", "--batch", "64", "--tokens", "1e10", "--max-nodes", "4", "--top", "3"]
free = json.loads(gpuplan("plan", *SPLIT, "--json").stdout)
for fmt in ("deepspeed", "torchrun", "accelerate"):
    e = gpuplan("plan", *SPLIT, "--emit", fmt)
    check(f"plan --emit {fmt} emits a config for a plan it can express", e.returncode == 0 and "tensor parallel" not in e.stderr,
          e.stderr)
narrowed = json.loads(gpuplan("plan", *SPLIT, "--tp", "1", "--pp", "1", "--json").stdout)
ds = json.loads(gpuplan("plan", *SPLIT, "--emit", "deepspeed").stdout or "{}")
n_top = narrowed["plans"][0]
check("without --emit the search also tries split layouts (the case --emit must handle)",
      free["candidates"] > narrowed["candidates"], (free["candidates"], narrowed["candidates"]))
check("--emit deepspeed's plan is the best data-parallel plan (--tp 1 --pp 1)",
      ds.get("train_batch_size") == 64 and ds.get("train_micro_batch_size_per_gpu") == int(n_top["setup"].get("micro-batch", 0))
      and ds.get("zero_optimization", {}).get("stage") == int(n_top["setup"].get("zero", 0))
      and ds["train_batch_size"] == ds["train_micro_batch_size_per_gpu"] * ds["gradient_accumulation_steps"] * n_top["gpus"],
      (ds, n_top))

# --tp and --pp fix the planner's degrees.
fixed = json.loads(gpuplan("plan", *SPLIT, "--tp", "4", "--pp", "2", "--json").stdout)
check("--tp 4 --pp 2: every plan has them", all(p["setup"].get("tp") == "4" and p["setup"].get("pp") == "2"
                                                for p in fixed["plans"]), [p["setup"] for p in fixed["plans"]])
bad = gpuplan("plan", *SPLIT, "--tp", "2", "--emit", "deepspeed")
check("--tp 2 with --emit is refused, naming the key", bad.returncode == 1
      and "--emit deepspeed: --tp 2 cannot be expressed" in bad.stderr, bad.stderr)
# A long sequence: the free search splits it over context-parallel ranks; --emit keeps whole
# sequences per GPU (cp 1), and a fixed --cp with --emit is refused.
LONG = ["--model", "llama-3-8b", "--seq", "131072", "--precision", "amp-bf16", "--batch", "64", "--tokens", "1e9",
        "--max-nodes", "2", "--top", "3"]
long_free = json.loads(gpuplan("plan", *LONG, "--json").stdout)
check("a 128k-token plan splits the sequence (cp > 1)", any(p["setup"].get("cp", "1") != "1" for p in long_free["plans"]),
      [p["setup"] for p in long_free["plans"]])
long_ds = gpuplan("plan", *LONG, "--emit", "deepspeed")
check("plan --emit deepspeed searches whole sequences per GPU only: none fits 128k tokens here", long_ds.returncode == 1
      and "memory binds: no configuration fits in GPU memory" in long_ds.stderr, long_ds.stderr)
bad_cp = gpuplan("plan", *LONG, "--cp", "2", "--emit", "deepspeed")
check("--cp 2 with --emit is refused, naming the key", bad_cp.returncode == 1
      and "--emit deepspeed: --cp 2 cannot be expressed" in bad_cp.stderr, bad_cp.stderr)
wide = gpuplan("plan", "--model", "gpt2-small", "--tokens", "1e9", "--batch", "64", "--tp", "12")
check("a degree no instance can lay out says so", wide.returncode == 1
      and "no instance can run --tp 12 --pp 1" in wide.stderr, wide.stderr)
unk_plan = gpuplan("plan", *PLAN, "--emit", "slurm")
check("plan: an unknown format is a usage error before any search", unk_plan.returncode == 2
      and "'slurm' is not torchrun" in unk_plan.stderr, unk_plan.stderr)

# Megatron-LM: the layout the estimate times, as one shell command (shlex parses it).
MOE = ["--model", "mixtral-8x7b", "--instance", "aws-p5.48xlarge", "--nodes", "2", "--precision", "mixed-bf16",
       "--batch", "64", "--micro-batch", "1", "--tp", "2", "--sp", "--pp", "2", "--ep", "4", "--zero", "1"]
mg = gpuplan("estimate", *MOE, "--emit", "megatron")
words = shlex.split(mg.stdout.replace("\\\n", " "), comments=True) if mg.returncode == 0 else []
pairs = {words[i]: words[i + 1] for i in range(len(words) - 1) if words[i].startswith("--")}
check("estimate --emit megatron: a pretrain_gpt.py command on 2 nodes x 8 GPUs", mg.returncode == 0
      and words[:3] == ["torchrun", "--nnodes=2", "--nproc_per_node=8"] and "pretrain_gpt.py" in words, mg.stdout + mg.stderr)
check("it carries tp, pp, ep and the batches the estimate resolved",
      [pairs.get(k) for k in ("--tensor-model-parallel-size", "--pipeline-model-parallel-size",
                              "--expert-model-parallel-size", "--micro-batch-size", "--global-batch-size")]
      == ["2", "2", "4", "1", "64"] and "--sequence-parallel" in words and "--use-distributed-optimizer" in words,
      mg.stdout)
top = gpuplan("plan", "--model", "mixtral-8x7b", "--tokens", "1e9", "--precision", "mixed-bf16", "--batch", "256",
              "--plan-gpu", "h100-sxm5-80gb", "--emit", "megatron")
check("plan --emit megatron prints the top plan's command", top.returncode == 0
      and "pretrain_gpt.py" in top.stdout and "--moe-grouped-gemm" in top.stdout, top.stdout + top.stderr)

finish("emit_test")
