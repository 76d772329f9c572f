#!/usr/bin/env python3
"""`gpuplan validate --json` shows why a row is off: each predicted row carries the step it
predicted, part by part (the estimate's `time` object), and that step is the prediction.

Usage: validate_test.py GPUPLAN REPO_ROOT
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, finish, run  # noqa: E402

GPUPLAN, ROOT = sys.argv[1:3]

p = run([GPUPLAN, "validate", os.path.join(ROOT, "tests", "validation", "llm_scale_dev.csv"), "--json"], timeout=120)
rows = json.loads(p.stdout)["rows"] if p.returncode == 0 else []
check("the rows are predicted", len(rows) > 10, p.stderr[-500:])
tokens = [r for r in rows if r["metric"] == "tokens_per_s_per_gpu"]
check("each tokens/s row's prediction is its step's tokens/s over its GPUs",
      tokens and all(abs(r["time"]["tokens_per_s"] / r["ground"]["gpus"] - r["predicted"]) <= 1e-9 * r["predicted"]
                     for r in tokens), [(r["id"], r.get("time", {}).get("tokens_per_s")) for r in tokens[:3]])
parts = ("forward_s", "backward_s", "recompute_s", "tp_comm_s", "dp_comm_exposed_s", "pp_bubble_s", "ep_comm_exposed_s")
check("and its parts are there, none negative, none longer than the step",
      all(all(0 <= r["time"][k] <= r["time"]["step_s"] for k in parts) for r in rows), rows[:1])
moe = [r for r in rows if r["id"].startswith("mlm-qwen3-235b-h100-1")]
check("an expert-parallel row across nodes spends time in its all-to-alls",
      moe and moe[0]["time"]["ep_comm_s"] > 0, moe[:1])
finish("validate_test")
