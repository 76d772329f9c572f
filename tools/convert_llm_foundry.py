#!/usr/bin/env python3
"""Converts shared/validation/measured_llm_dev.csv (MosaicML llm-foundry benchmark tables) into
the `gpuplan validate` format, with the optional columns that describe each run's setup:

    id,model,gpu,num_gpus,precision,batch_size_per_gpu,seq_len_or_resolution,task,metric,value,
    batch,zero,checkpointing,grad_reduce,attention,dropout,fused_loss,max_positions,gpus_per_node,
    network_gbps_per_node,flops_attention,source

Each measured row gives two rows, tokens/s per GPU and MFU (as a fraction). How the runs were
configured is read from the benchmark scripts and Composer (shared/validation/README.md):
  - FSDP with Composer's mixed precision DEFAULT (amp_bf16 rows): bf16 compute parameters,
    gradients reduced in fp32, fp32 master weights and Adam states -> mixed-bf16, grad_reduce fp32;
    PURE (Composer precision 'bf16') reduces in bf16 -> grad_reduce bf16; fp8 rows keep the same
    FSDP recipe with TransformerEngine linears -> fp8.
  - FULL_SHARD -> zero 3, SHARD_GRAD_OP -> zero 2; no dropout;
    learned positions sized to the run's sequence (max_seq_len = seq_len); the pretraining yamls
    set loss_fn: fused_crossentropy (flash-attn's cross-entropy) -> fused_loss 1.
  - attention: the kernel each run used, from its notes' attn_impl (submit_benchmarks.py's default
    'triton' at b2a43a14 for the Oct 2023 tables, which sweep.sh leaves; sweep.py's per-model
    --attn_impl at 5e85bd62 for the large-scale H100 table: flash for 1b/3b/7b/70b, triton for
    13b/30b). The A100 tables (notes: 'attn_impl not determinable', older runs) take triton too:
    submit_benchmarks.py defaults to it in every version since those tables appeared (300cc5c5,
    May 2023) and the pretraining yamls set it. triton -> FlashAttention in Triton (llmfoundry/models/layers/flash_attn_triton.py
    on triton-pre-mlir); flash -> FlashAttention-2 (the gpu-flash2 install, flash-attn 2.x).
  - MFU: the README's formula counts attention over the whole seq x seq square
    (attn_flops_per_seq = n_layers * 2 * 2 * d_model * seq_len**2), not the causal half gpuplan
    counts -> flops_attention full, so the MFU rows are predicted on the README's count.
  - 8 GPUs per node. The A100 tables state 1600 Gb/s between nodes (RoCE); the H100 tables state
    none, so the DGX H100 reference design's 8 x 400 Gb/s InfiniBand (3200 Gb/s per node) is
    assumed for them and said so in the output.
  - source: the published document (tools/validation_source.py): error bands leave it out.
Rows that cannot be expressed are listed with the reason in comment lines at the top.

Usage: tools/convert_llm_foundry.py SRC.csv OUT.csv
"""
import csv
import re
import sys

from validation_csv import convert_rows, write_csv
from validation_source import source_key

GPUS = {"H100 80GB": "h100-sxm5-80gb", "A100 80GB": "a100-sxm4-80gb", "A100 40GB": "a100-sxm4-40gb"}
NETWORK_GBPS = {"a100-sxm4-80gb": 1600, "a100-sxm4-40gb": 1600, "h100-sxm5-80gb": 3200}
COLUMNS = ["id", "model", "gpu", "num_gpus", "precision", "batch_size_per_gpu", "seq_len_or_resolution", "task",
           "metric", "value", "batch", "zero", "checkpointing", "grad_reduce", "attention", "dropout", "fused_loss",
           "max_positions", "gpus_per_node", "network_gbps_per_node", "flops_attention", "source"]


def recipe(row):
    """(precision, grad_reduce) for a row, or a reason it cannot be expressed."""
    p, sharding = row["precision"], row["zero_or_fsdp"]
    if p.startswith("fp8"):
        return ("fp8", ""), None
    if "PURE" in sharding:
        return ("mixed-bf16", "bf16"), None
    if "DEFAULT" in sharding:
        return ("mixed-bf16", "fp32"), None
    return None, "precision recipe '%s' / '%s' not expressible" % (p, sharding)


def attention_kernel(row):
    """gpuplan's --attention for a row's attn_impl (in its notes), or None when unstated."""
    m = re.search(r"attn_impl=(\w+)", row["notes"])
    if m:
        return {"triton": "triton", "flash": "flash"}.get(m.group(1))
    # Older A100 runs: the scripts' default since the tables appeared (300cc5c5) is triton.
    return "triton" if "submit_benchmarks default was triton" in row["notes"] else None


def convert(row):
    """Output rows for one measured row, or (None, reason)."""
    gpu = GPUS.get(row["gpu"])
    if not gpu:
        return None, "GPU '%s' not in the catalog" % row["gpu"]
    r, why = recipe(row)
    if why:
        return None, why
    zero = {"FULL_SHARD": "3", "SHARD_GRAD_OP": "2"}
    stage = next((v for k, v in zero.items() if k in row["zero_or_fsdp"]), None)
    if stage is None:
        return None, "sharding '%s' not expressible" % row["zero_or_fsdp"]
    kernel = attention_kernel(row)
    if kernel is None:
        return None, "attention kernel (attn_impl) not stated"
    ckpt = "full" if row["activation_checkpointing"].startswith("full") else "none"
    base = {"model": row["model"].lower(), "gpu": gpu, "num_gpus": row["num_gpus"], "precision": r[0],
            "batch_size_per_gpu": row["micro_batch"], "seq_len_or_resolution": row["seq_len"], "task": "train",
            "batch": row["global_batch"], "zero": stage, "checkpointing": ckpt, "grad_reduce": r[1],
            "attention": kernel, "dropout": "0", "fused_loss": "1", "max_positions": row["seq_len"], "gpus_per_node": "8",
            "network_gbps_per_node": str(NETWORK_GBPS[gpu]) if int(row["num_gpus"]) > 8 else "",
            "flops_attention": "full", "source": source_key(row["source"])}
    out = [dict(base, id=row["id"] + "-tps", metric="tokens_per_s_per_gpu", value=row["tokens_per_s_per_gpu"])]
    out.append(dict(base, id=row["id"] + "-mfu", metric="mfu", value="%.4f" % (float(row["mfu_percent"]) / 100)))
    return out, None


def main(src, dst):
    with open(src, newline="") as f:
        converted, skipped = convert_rows(csv.DictReader(f), convert)
    write_csv(dst, [
        "Generated by tools/convert_llm_foundry.py from shared/validation/measured_llm_dev.csv",
        "(mosaicml/llm-foundry scripts/train/benchmarking/README.md tables; sources per row in the original).",
        "Assumed: H100 rows over 8 GPUs use 3200 Gb/s per node (DGX H100: 8 x 400 Gb/s InfiniBand);",
        "the source states 1600 Gb/s RoCE for the A100 tables and nothing for the H100 ones.",
        "attention: the kernel each run used (attn_impl): triton = FlashAttention in Triton",
        "(submit_benchmarks.py default at b2a43a14, Oct 2023 tables; sweep.py at 5e85bd62 for 13b/30b",
        "of the large-scale H100 table; A100 tables: the default since 300cc5c5, May 2023),",
        "flash = FlashAttention-2 (sweep.py at 5e85bd62: 1b/3b/7b/70b of the large-scale H100 table).",
    ], skipped, COLUMNS, converted)
    print("%d rows converted, %d skipped" % (len(converted), len(skipped)), file=sys.stderr)

if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
