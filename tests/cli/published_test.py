#!/usr/bin/env python3
"""`gpuplan published` and the published runs `gpuplan estimate` shows beside its prediction: every
row of data/published is listed once, predicted or with a reason, and a matching estimate carries
the measured figure, its source and the difference (text and --json).

Usage: published_test.py GPUPLAN REPO_ROOT
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, finish, run  # noqa: E402

GPUPLAN, ROOT = sys.argv[1:3]


def gpuplan(*args):
    return run([GPUPLAN, *args], timeout=120)


ids = []
for path in glob.glob(os.path.join(ROOT, "data", "published", "*.json")):
    with open(path) as f:
        ids += [r["id"] for r in json.load(f)["rows"]]
p = gpuplan("published", "--json")
doc = json.loads(p.stdout) if p.returncode == 0 else {"rows": []}
rows = {r["id"]: r for r in doc["rows"]}
check("every published row is listed once", sorted(rows) == sorted(ids) and len(doc["rows"]) == len(ids),
      (len(doc["rows"]), len(ids)))
check("each row is predicted or says why not",
      all((r["predicted"] is None) == (r["not_predicted"] is not None) for r in doc["rows"]), doc["rows"][:1])
t002 = rows.get("T002", {})
check("T002 (ResNet-50, 1 x A100 80GB, AMP) measured 2470 img/s, error = (predicted - measured) / measured",
      t002.get("measured") == 2470 and t002.get("unit") == "img/s" and t002.get("predicted")
      and abs(t002["error"] - (t002["predicted"] - 2470) / 2470) < 1e-9, t002)
errors = [abs(r["error"]) for r in doc["rows"] if r["error"] is not None]
check("the summary's mean absolute error is the rows' mean", errors and abs(doc["mape"] - sum(errors) / len(errors)) < 1e-9,
      doc.get("mape"))

RESNET = ["--model", "resnet50", "--gpu", "a100-sxm4-80gb", "--precision", "amp-fp16", "--batch", "256"]
e = json.loads(gpuplan("estimate", *RESNET, "--json").stdout)
pub = e.get("published", [])
check("estimate --json carries the matching run", len(pub) == 1 and pub[0]["id"] == "T002" and pub[0]["measured"] == 2470
      and pub[0]["source_url"].startswith("https://github.com/NVIDIA/DeepLearningExamples/blob/"), pub)
check("and its difference from this very prediction",
      pub and abs(pub[0]["predicted"] - e["time"]["samples_per_s"]) < 1e-6 * e["time"]["samples_per_s"], (pub, e.get("time")))
text = gpuplan("estimate", *RESNET).stdout
check("estimate text shows 'measured: 2,470 img/s (NVIDIA DeepLearningExamples, DGX A100, 1 x ...; link)'",
      "measured: 2,470 img/s (NVIDIA DeepLearningExamples, DGX A100, 1 x a100-sxm4-80gb; https://" in text, text[-400:])
other = json.loads(gpuplan("estimate", *RESNET[:-2], "--batch", "64", "--json").stdout)
check("a batch outside the tolerance matches nothing", other.get("published") == [], other.get("published"))

finish("published_test")
