#!/usr/bin/env python3
"""Writes data/published/*.json, one file per source table, from the validation tables.

Inputs (development split, see shared/validation/README.md):
  tests/validation/throughput_dev.csv   NVIDIA DeepLearningExamples rows in gpuplan ids (tools/convert_dle_throughput.py)
  tests/validation/memory_dev.csv       Hugging Face memory rows in gpuplan ids (tools/convert_hf_memory.py)
  SHARED/measured_throughput_dev.csv    the same DLE rows as published: source table, system, notes
  SHARED/measured_llm_dev.csv           MosaicML llm-foundry benchmark rows (MPT, H100/A100, FSDP)

Every row keeps the table it came from (repository, commit, path, section, URL and date). Rows the
converters left out stay out, and each file lists them under "left_out" with the reason. The
output is deterministic (sorted keys within the fixed schema order), so a re-run diffs cleanly.

Usage: tools/convert_published.py SHARED_VALIDATION_DIR [REPO_ROOT]
"""
import csv
import json
import os
import re
import sys

# Full commits and their commit dates, read with `git log -1 --format='%H %cI' <short>` from the
# repositories' mirrors (the tables cite short hashes). The date is the date of the table's text.
COMMITS = {
    "729963dd": ("729963dd47e7c8bd462ad10bfac7a7b0b604e6dd", "2024-04-04"),
    "78ec6802": ("78ec680207ad61bb2644f39dd2f117b80f893fa8", "2021-08-27"),
    "8c8dd48f7216": ("8c8dd48f72168c5d51e2f7b151595892a8fba43d", "2025-07-21"),
}

# DLE systems as the shared table names the GPU: "A100-SXM4-80GB (DGX A100)" -> "DGX A100".
def system_of(gpu_text):
    m = re.search(r"\(([^)]+)\)", gpu_text)
    return m.group(1) if m else "unnamed server"


def source_from_citation(cited):
    """'owner/repo@short [(date)] path (section)' or '... README.md § section' -> source object."""
    m = re.match(r"^([\w.-]+/[\w.-]+)@([0-9a-f]+)(?: \([0-9-]+\))? (\S+)\s*(?:\((.*)\)|§ (.*))?$", cited)
    if not m:
        raise SystemExit(f"cannot read the citation '{cited}'")
    repo, short, path, section = m.group(1), m.group(2), m.group(3), m.group(4) or m.group(5) or ""
    commit, date = COMMITS[short]
    return {
        "repository": repo,
        "commit": commit,
        "path": path,
        "section": section,
        "url": f"https://github.com/{repo}/blob/{commit}/{path}",
        "date": date,
    }


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def dle_table_id(model_dir, section):
    """'resnet50v1.5', 'Training performance results, pytorch:21.11' -> 'dle-resnet50-training-21-11'."""
    model = {"resnet50v1.5": "resnet50", "Transformer-XL": "transformer-xl"}.get(model_dir, model_dir.lower())
    kind = "inference" if "Inference" in section else "training"
    tag = re.search(r"(\d\d)\.(\d\d)", section)
    return "dle-" + model + "-" + kind + (f"-{tag.group(1)}-{tag.group(2)}" if tag else "")


def number(text):
    x = float(text)
    return int(x) if x.is_integer() else x


def read_csv(path):
    with open(path, newline="") as f:
        lines = f.readlines()
    comments = [l[1:].strip() for l in lines if l.startswith("#")]
    rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
    return rows, comments


def left_out_from(comments):
    out = {}
    for c in comments:
        m = re.match(r"skipped (\S+): (.*)", c)
        if m:
            out[m.group(1)] = m.group(2)
    return out


# Validation-table columns a published row states in fields of its own; the other optional columns
# (compile, grad_reduce, attention, ...) go into the row's "setup" object, with the same names.
OWN_FIELDS = {"id", "model", "gpu", "num_gpus", "precision", "batch_size_per_gpu", "seq_len_or_resolution",
              "task", "metric", "value", "memory_format", "batch", "zero", "checkpointing"}


def setup_of(converted):
    """The setup keys a converted validation row states beyond the row's own fields."""
    return {k: v for k, v in converted.items() if k not in OWN_FIELDS and v}


def dle_tables(root, shared):
    """DeepLearningExamples: one file per (README, section) the rows cite."""
    converted, comments = read_csv(os.path.join(root, "tests/validation/throughput_dev.csv"))
    skipped = left_out_from(comments)
    by_id = {r["id"]: r for r in converted}
    original, _ = read_csv(os.path.join(shared, "measured_throughput_dev.csv"))
    tables = {}
    for o in original:
        src = source_from_citation(o["source"])
        model_dir = src["path"].split("/")[-2]
        key = dle_table_id(model_dir, src["section"])
        t = tables.setdefault(key, {"source": src, "rows": [], "left_out": [], "title": f"{model_dir}: {src['section']}"})
        if o["id"] in skipped or o["id"] not in by_id:
            t["left_out"].append({"id": o["id"], "reason": skipped.get(o["id"], "not in the converted table")})
            continue
        c = by_id[o["id"]]
        image = c["model"] in ("resnet50", "ssd300")
        row = {
            "id": c["id"],
            "model": c["model"],
            "gpu": c["gpu"],
            "system": system_of(o["gpu"]),
            "num_gpus": int(c["num_gpus"]),
            "task": c["task"],
            "precision": c["precision"],
            "micro_batch": int(c["batch_size_per_gpu"]),
            "global_batch": int(c["batch_size_per_gpu"]) * int(c["num_gpus"]),
            ("resolution" if image else "seq_len"): int(c["seq_len_or_resolution"]),
            "metric": c["metric"],
            "value": number(c["value"]),
            "notes": o["notes"],
        }
        if c.get("memory_format"):
            row["memory_format"] = c["memory_format"]
        if setup_of(c):
            row["setup"] = setup_of(c)
        t["rows"].append(row)
    for key, t in tables.items():
        t["publisher"] = "NVIDIA DeepLearningExamples"
        t["caveats"] = [
            "Aggregate throughput over num_gpus on NVIDIA DGX systems (NVLink/NVSwitch, NGC containers, DALI input): "
            "plain PyTorch on cloud VMs is usually slower.",
            "'amp-fp16' is automatic mixed precision; 'tf32' rows are FP32 runs on A100 TF32 tensor cores.",
            "BERT and Transformer-XL rows the tables call mixed precision ran apex amp O2 (fp16 weights, fp32 "
            "masters: 'mixed-fp16'), or model.half() for SQuAD inference ('fp16'), except BERT pre-training in "
            "pytorch:21.11 (autocast); see tools/convert_dle_throughput.py.",
        ]
    return tables


def hf_memory_table(root):
    rows, _ = read_csv(os.path.join(root, "tests/validation/memory_dev.csv"))
    # The English page's nvidia-smi output is dated Tue Jan 11 2022; the commit is the one the
    # stored copy of the page was read at.
    commit = "249ef8164cfbd8e288c2f6d8395539b9e90e8300"
    path = "docs/source/en/model_memory_anatomy.md"
    src = {
        "repository": "huggingface/transformers",
        "commit": commit,
        "path": path,
        "section": "Model training anatomy (V100-SXM2-16GB); technique rows from docs/source/ko/perf_train_gpu_one.md",
        "url": f"https://github.com/huggingface/transformers/blob/{commit}/{path}",
        "date": "2022-01-11",
    }
    out = []
    for r in rows:
        row = {
            "id": r["id"], "model": r["model"], "gpu": r["gpu"], "system": "cloud VM (V100-SXM2-16GB)",
            "num_gpus": 1, "task": r["mode"], "precision": r["precision"], "optimizer": r["optimizer"],
            "micro_batch": int(r["micro_batch"]), "global_batch": int(r["global_batch"]), "seq_len": int(r["seq_len"]),
            "checkpointing": r["checkpointing"], "metric": "peak_memory_bytes", "value": number(r["measured_bytes"]),
            "notes": "nvidia-smi/NVML used memory, CUDA context (about 1.3 GB) included",
        }
        out.append(row)
    return {"hf-memory-anatomy-v100": {
        "title": "BERT-large memory on a V100 16 GB (Hugging Face transformers docs)",
        "publisher": "Hugging Face transformers docs", "source": src, "rows": out, "left_out": [],
        "caveats": ["GPU memory as nvidia-smi reports it: the CUDA context and kernels are included (row M001 is the context alone)."]}}


LLM_GPUS = {"H100 80GB": "h100-sxm5-80gb", "A100 80GB": "a100-sxm4-80gb", "A100 40GB": "a100-sxm4-40gb"}


def llm_precision(text):
    if text.startswith("fp8"):
        return "fp8"
    if "amp_bf16" in text:
        return "amp-bf16"
    if text.startswith("bf16"):
        return "bf16"  # Composer precision 'bf16': pure bf16 parameters (FSDP mixed_precision PURE)
    raise SystemExit(f"unknown llm-foundry precision '{text}'")


def llm_tables(root, shared):
    """llm-foundry: the published figures from the shared table, each run's setup as
    tools/convert_llm_foundry.py wrote it for `gpuplan validate` (tests/validation/llm_dev.csv)."""
    rows, _ = read_csv(os.path.join(shared, "measured_llm_dev.csv"))
    converted, _ = read_csv(os.path.join(root, "tests/validation/llm_dev.csv"))
    by_id = {c["id"][:-len("-tps")]: c for c in converted if c["id"].endswith("-tps")}
    tables = {}
    for r in rows:
        src = source_from_citation(r["source"])
        key = "llm-foundry-" + slug(src["section"].split(" with ")[0].replace("(Large Scale; >= 128 GPUs)", "large-scale"))
        t = tables.setdefault(key, {"source": src, "rows": [], "left_out": [], "title": "MPT training throughput: " + src["section"]})
        sharding = r["zero_or_fsdp"]
        row = {
            "id": r["id"], "model": r["model"].lower(), "gpu": LLM_GPUS[r["gpu"]],
            "system": "MosaicML cluster (" + r["gpu"] + ")", "num_gpus": int(r["num_gpus"]), "task": "train",
            "precision": llm_precision(r["precision"]), "micro_batch": int(r["micro_batch"]),
            "global_batch": int(r["global_batch"]), "seq_len": int(r["seq_len"]),
            # FULL_SHARD shards parameters, gradients and optimizer state (ZeRO-3); SHARD_GRAD_OP
            # gradients and optimizer state (ZeRO-2). PyTorch FSDP docs, ShardingStrategy.
            "zero_stage": 3 if "FULL_SHARD" in sharding else 2,
            "checkpointing": "full" if r["activation_checkpointing"].startswith("full") else "none",
            "metric": "tokens_per_s_per_gpu", "value": number(r["tokens_per_s_per_gpu"]),
            "mfu": round(float(r["mfu_percent"]) / 100, 4),
            "notes": sharding + "; " + r["notes"],
        }
        c = by_id.get(r["id"])
        if c:
            row["precision"] = c["precision"]
            row["checkpointing"] = c["checkpointing"] or row["checkpointing"]
            if setup_of(c):
                row["setup"] = setup_of(c)
        t["rows"].append(row)
    for t in tables.values():
        t["publisher"] = "MosaicML llm-foundry"
        t["caveats"] = [
            "FSDP with Composer; flash or Triton attention, no dropout, no torch.compile (shared/validation/README.md).",
            "MFU counts attention FLOPs against the peak of the precision used (FP8 rows: the FP8 peak).",
        ]
    return tables


def write(root, tables):
    folder = os.path.join(root, "data", "published")
    os.makedirs(folder, exist_ok=True)
    for key, t in sorted(tables.items()):
        if not t["rows"]:
            print(f"{key}: no row gpuplan can describe; not written ({len(t['left_out'])} left out)")
            continue
        doc = {"schema_version": 1, "id": key, "title": t["title"], "publisher": t["publisher"],
               "source": t["source"], "caveats": t["caveats"], "rows": t["rows"], "left_out": t["left_out"]}
        with open(os.path.join(folder, key + ".json"), "w") as f:
            json.dump(doc, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"{key}: {len(t['rows'])} rows, {len(t['left_out'])} left out")


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    shared = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..")
    tables = {}
    tables.update(dle_tables(root, shared))
    tables.update(hf_memory_table(root))
    tables.update(llm_tables(root, shared))
    write(root, tables)


if __name__ == "__main__":
    main()
