#!/usr/bin/env python3
"""Converts shared/validation/measured_llm_scale_dev.csv (published training runs at scale, dense
and MoE) into the `gpuplan validate` format, and lists every row it cannot express with the reason.

    id,model,gpu,num_gpus,precision,batch_size_per_gpu,seq_len_or_resolution,task,metric,value,
    batch,dp,tp,pp,vp,cp,ep,etp,zero,optimizer,clip_grad_norm,checkpointing,recompute_modules,attention,fused_loss,
    fused_kernels,framework,max_positions,gpus_per_node,network_gbps_per_node,config_json

Only what a row states is used (shared/validation/README.md, "LLM training at scale"): a row
whose precision, micro-batch or parallel split the source leaves out is listed, not filled in from
other rows; rows marked APPROXIMATE or DOUBTFUL are listed; MoE rows are tools/convert_llm_scale_moe.py's.

The rows it expresses, FlashAttention's `training/README.md` GPT runs (one node of 8 A100 80GB
SXM4), are set up as their configs at Dao-AILab/flash-attention@0251105a2fb1 run them:
  - PyTorch Lightning with trainer precision bf16 (GPT-3 on the Pile) or 16 (GPT-2 on
    OpenWebText): torch.autocast over fp32 weights -> amp-bf16 / amp-fp16; gradient_clip_val 1.0;
    apex FusedAdam (multi-tensor) -> adamw, foreach.
  - flash-attn's GPT model (GPT-2 layout: learned positions n_positions = max_length, LayerNorm,
    GELU MLP, tied embeddings, vocab padded to a multiple of 8) with use_flash_attn,
    fused_mlp, fused_bias_fc and fused_dropout_add_ln -> attention flash1 (below), fused_kernels 1;
    CrossEntropyLossApex (fused) -> fused_loss 1. The config.json each row names
    (tests/validation/configs/) writes that model as a Hugging Face GPT-2 config.
  - DDP over the 8 GPUs; ZeRO-1 optimizer sharding where the row says so; no checkpointing.
  - tokens/s: the GPT-3 rows state it (the README's table, per GPU); the GPT-2 rows give model
    TFLOPs only, which the README counts as Megatron's formula x 3/4 (no recompute):
    72 s l h^2 (1 + s / (6 h) + V / (16 l h)) per sequence, so tokens/s per GPU =
    TFLOPs x 1e12 / (72 l h^2 (1 + s / (6 h) + V / (16 l h))).
  - attention flash1: the results were added on 2022-11-29 (commit 4a6eaa9f "Update configs, add
    results"), before FlashAttention-2 (July 2023); the FlashAttention-2 paper's Table 1 gives the
    same 189 TFLOPs/s for GPT3-1.3B and 2.7B under "FlashAttention".

Usage: tools/convert_llm_scale.py SRC.csv OUT.csv
"""
import csv
import sys

import convert_llm_scale_moe
from validation_csv import convert_rows, write_csv
from validation_source import source_key

COLUMNS = ["id", "model", "gpu", "num_gpus", "precision", "batch_size_per_gpu", "seq_len_or_resolution", "task",
           "metric", "value", "batch", "dp", "tp", "pp", "vp", "cp", "ep", "etp", "zero", "optimizer",
           "clip_grad_norm", "checkpointing", "recompute_modules", "attention", "fused_loss", "fused_kernels", "framework",
           "max_positions", "gpus_per_node", "network_gbps_per_node", "config_json", "sp", "dropout",
           "moe_dispatcher", "moe_a2a_overlap", "moe_imbalance", "overlap_grad_reduce", "overlap_param_gather",
           "tp_comm_overlap", "quantized_params", "optimizer_state_dtype", "mtp_layers", "nvlink_domain_gpus",
           "offload_modules", "cuda_graph_modules", "source"]

# The GPT shapes flash-attn's configs train (layers, hidden, heads); vocab 50257 padded to 50264.
FLASH_GPT = {
    "GPT3-125M": ("flash-gpt3-125m", 12, 768, 12),
    "GPT3-355M": ("flash-gpt3-355m", 24, 1024, 16),
    "GPT3-760M": ("flash-gpt3-760m", 24, 1536, 16),
    "GPT3-1.3B": ("flash-gpt3-1.3b", 24, 2048, 16),
    "GPT3-2.7B": ("flash-gpt3-2.7b", 32, 2560, 20),
    "GPT2-355M": ("flash-gpt2-355m", 24, 1024, 16),
    "GPT2-760M": ("flash-gpt2-760m", 36, 1280, 20),
    "GPT2-1.6B": ("flash-gpt2-1.6b", 48, 1600, 25),
}
VOCAB = 50257
MOE_MARKERS = ("DeepSeek-V3", "Qwen3-235B", "Qwen3-Next", "Mixtral", "Llama 4", "MoE")


def moe(row):
    return any(m in row["model"] for m in MOE_MARKERS)


def megatron_tokens_per_s(tflops, layers, hidden, seq, vocab):
    """Tokens/s per GPU from model TFLOPs counted as the README counts them: Megatron's formula
    (Narayanan et al. 2021, sec. 5.1: 96 B s l h^2 (1 + s / (6 h) + V / (16 l h))) scaled by 3/4,
    the vocabulary term included. Checked at the cited commit: the GPT-3 figure's TFLOPs and the
    README table's tokens/s agree to 0.5 % on this count, and owt/base.yaml's comment (GPT2-medium,
    972 ms per 512 x 1024-token step on 8 A100s: 67.4k tokens/s per GPU) matches the GPT-2
    figure's 159 TFLOPs (67.8k)."""
    per_token = 72 * layers * hidden ** 2 * (1 + seq / (6 * hidden) + vocab / (16 * layers * hidden))
    return tflops * 1e12 / per_token


def why_not(row):
    """The reason a row cannot be expressed, or None."""
    notes = row["notes"]
    if "APPROXIMATE" in notes or "DOUBTFUL" in notes:
        return "marked %s in the source table's notes" % ("APPROXIMATE" if "APPROXIMATE" in notes else "DOUBTFUL")
    missing = [name for name, key in (("precision", "precision"), ("micro-batch", "micro_batch"),
                                      ("sequence length", "seq_len"), ("tensor-parallel size", "tp"))
               if not row[key] and (key != "tp" or row["framework"] == "megatron-lm")]
    if missing and row["model"] not in FLASH_GPT:
        why = "not stated: " + ", ".join(missing)
        if row["framework"] == "megatron-lm" and "micro-batch" in missing:
            why += " (Megatron's --micro-batch-size has no default)"
        return why
    if row["model"] not in FLASH_GPT:
        if "Blackwell SM100" in row["gpu"]:
            return "GPU model not stated (a Blackwell SM100 part)"
        if "CPU offload" in row["zero_or_fsdp"]:
            return "ZeRO-3 with CPU offload is not modelled"
        return "setup not expressible"
    if not row["precision"]:
        return "precision and setup not stated (a baseline bar)"
    if not row["tokens_per_s_per_gpu"] and not row["tflops_per_gpu"]:
        return "no throughput stated"
    return None


def precision(row):
    return "amp-bf16" if row["precision"].startswith("bf16") else "amp-fp16"


def convert(row):
    """(output row, None) or (None, reason). MoE rows are convert_llm_scale_moe's."""
    if moe(row) or convert_llm_scale_moe.is_moe(row):
        notes = row["notes"]
        if "APPROXIMATE" in notes or "DOUBTFUL" in notes:
            return None, "marked %s in the source table's notes" % ("APPROXIMATE" if "APPROXIMATE" in notes else "DOUBTFUL")
        rows, why = convert_llm_scale_moe.convert(row)
        if not rows:
            return None, why
        out = {c: "" for c in COLUMNS}
        out.update(rows[0])
        out["framework"] = "megatron"
        return out, None
    why = why_not(row)
    if why:
        return None, why
    name, layers, hidden, _heads = FLASH_GPT[row["model"]]
    seq = int(row["seq_len"])
    if row["tokens_per_s_per_gpu"]:
        value = row["tokens_per_s_per_gpu"]
    else:
        value = "%.1f" % megatron_tokens_per_s(float(row["tflops_per_gpu"]), layers, hidden, seq, VOCAB)
    zero = "1" if ("ZeRO-1" in row["zero_or_fsdp"] and zero_one(row)) else "0"
    out = {c: "" for c in COLUMNS}
    out.update({"id": row["id"], "model": name, "gpu": "a100-sxm4-80gb", "num_gpus": row["num_gpus"],
                "precision": precision(row), "batch_size_per_gpu": row["micro_batch"],
                "seq_len_or_resolution": row["seq_len"], "task": "train", "metric": "tokens_per_s_per_gpu",
                "value": value, "batch": row["global_batch"], "dp": row["dp"], "tp": "1", "pp": "1",
                "zero": zero, "optimizer": "adamw", "clip_grad_norm": "1", "checkpointing": "none",
                "attention": "flash1", "fused_loss": "1", "fused_kernels": "1",
                "config_json": "configs/%s.json" % name, "source": source_key(row["source"])})
    return out, None


def zero_one(row):
    """ZeRO-1 where the row says: the GPT-3 configs from 760M up, GPT-2 large, and GPT-2 XL,
    whose config (owt/gpt2xl-flash.yaml) builds on gpt2l-flash.yaml's DDPStrategyZero1."""
    if row["model"].startswith("GPT3"):
        return row["model"] in ("GPT3-760M", "GPT3-1.3B", "GPT3-2.7B")
    return row["model"] in ("GPT2-760M", "GPT2-1.6B")


def config_json(name):
    """The Hugging Face GPT-2 config.json of one flash-attn GPT shape."""
    model = next(v for v in FLASH_GPT.values() if v[0] == name)
    _name, layers, hidden, heads = model
    positions = 1024 if "gpt2" in name else 2048
    return ('{\n  "model_type": "gpt2",\n  "n_layer": %d,\n  "n_embd": %d,\n  "n_head": %d,\n'
            '  "n_positions": %d,\n  "vocab_size": 50264,\n  "tie_word_embeddings": true\n}\n'
            % (layers, hidden, heads, positions))


def write_configs(folder):
    """Writes each flash-attn GPT shape's config.json into `folder`."""
    import os
    os.makedirs(folder, exist_ok=True)
    for name, *_ in FLASH_GPT.values():
        with open(os.path.join(folder, name + ".json"), "w") as f:
            f.write(config_json(name))


def main(src, dst):
    import os
    write_configs(os.path.join(os.path.dirname(os.path.abspath(dst)), "configs"))
    with open(src, newline="") as f:
        converted, skipped = convert_rows(csv.DictReader(f), convert)
    write_csv(dst, [
        "Generated by tools/convert_llm_scale.py from shared/validation/measured_llm_scale_dev.csv",
        "(published training runs at scale; sources per row in the original). Setup facts per",
        "source are in the converter's docstring; config_json paths are relative to this file.",
    ], skipped, COLUMNS, converted)
    print("%d rows converted, %d listed" % (len(converted), len(skipped)), file=sys.stderr)

if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
