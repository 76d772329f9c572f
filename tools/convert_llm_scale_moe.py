#!/usr/bin/env python3
"""The mixture-of-experts rows of shared/validation/measured_llm_scale_dev.csv in the `gpuplan validate`
format. `convert(row)` gives the output rows of one measured MoE row, or the reason it cannot be
expressed; tools/convert_llm_scale.py (the whole file's converter) can call it for its MoE rows, and
run alone this script writes them to their own CSV:

    id,model,gpu,num_gpus,precision,batch_size_per_gpu,seq_len_or_resolution,task,metric,value,
    batch,dp,tp,sp,pp,vp,ep,etp,zero,checkpointing,attention,dropout,fused_loss,moe_dispatcher,
    moe_a2a_overlap,moe_imbalance,gpus_per_node,network_gbps_per_node,source

Setup facts, read from the code the rows cite (NVIDIA/Megatron-LM@f13818d69535,
examples/moe-modelzoo: best_practice/qwen3/readme.md, model_configs/benchmarking/Qwen3-235B-A22B.yaml,
runtime_configs/benchmarking/runtime.conf, sbatch_benchmarking.sh):
  - Qwen3-235B-A22B, Megatron-Core with --bf16 (bf16 weights and activations, fp32 main gradients and
    masters: mixed-bf16), the distributed optimizer (zero 1; "Megatron-FSDP On": zero 3), sequence
    parallelism with tp, flash attention, no dropout, Transformer Engine's fused cross-entropy, grouped
    GEMMs with fused permutation, expert tensor parallelism 1, auxiliary-loss balancing (1e-3; the
    load-imbalance default is a measurement of that), dropless;
  - 8 H100 per node, InfiniBand 8 x 50 GB/s (3200 Gb/s per node);
  - "DeepEP" is --moe-token-dispatcher-type flex with DeepEP, "A2A" NCCL's all-to-all; "+1f1b overlap"
    is --overlap-moe-expert-parallel-comm --delay-wgrad-compute.
  - recompute "norm, act" is Megatron's selective recompute of the layer norms and the experts'
    activation function (--recompute-modules layernorm moe_act): a few memory-bound kernels run again
    in backward. gpuplan has no such mode; those rows are predicted without recomputation (their
    time is short by that recomputation, their memory is not checked here).
  - source: the published document (tools/validation_source.py): error bands leave it out.
Usage: tools/convert_llm_scale_moe.py SRC.csv OUT.csv
"""
import csv
import sys

from validation_csv import convert_rows, write_csv
from validation_source import source_key

COLUMNS = ["id", "model", "gpu", "num_gpus", "precision", "batch_size_per_gpu", "seq_len_or_resolution", "task",
           "metric", "value", "batch", "dp", "tp", "sp", "pp", "vp", "ep", "etp", "zero", "checkpointing", "attention",
           "dropout", "fused_loss", "moe_dispatcher", "moe_a2a_overlap", "moe_imbalance", "gpus_per_node",
           "network_gbps_per_node", "source"]

# Why the other MoE rows cannot be expressed, by id prefix.
NOT_EXPRESSIBLE = [
    ("mlm-moe-mixtral8x7b", "the README's headline TFLOPS has no run configuration attached (the reference "
                            "mapping beside it is probably, not stated to be, the run)"),
    ("mlm-dsv3-gb200", "HybridEP dispatch (not modelled), without the multi-token prediction module the zoo's "
                       "DeepSeek-V3 trains, and Megatron's selective recompute of mlp/mla_up_proj/moe_act"),
    ("mlm-qwen3-235b-gb", "HybridEP dispatch (not modelled); throughput stated only as Megatron-counted TFLOPS, "
                          "whose MoE FLOPs formula is not reproduced here"),
    ("mlm-qwen3-next", "Qwen3-Next-80B-A3B (gated DeltaNet linear attention) is not in the zoo"),
    ("mlm-qwen3-235b-h100-lc", "Megatron's selective recompute of whole MoE blocks (--recompute-modules layernorm "
                               "moe) has no gpuplan mode; TFLOPS only"),
    ("tt-llama4-scout", "DOUBTFUL GPU count (not for scoring); GB200"),
    ("ds-moe-nlg", "sequence length, batch, precision and expert-parallel degree not stated"),
]

# The H100 rows of the Qwen3 table: dispatcher, 1F1B all-to-all overlap, recompute.
QWEN3_H100 = {
    "mlm-qwen3-235b-h100-1": ("deepep", False),
    "mlm-qwen3-235b-h100-2": ("deepep", True),
    "mlm-qwen3-235b-h100-3": ("deepep", False),
    "mlm-qwen3-235b-h100-4": ("alltoall", False),
    "mlm-qwen3-235b-h100-5": ("deepep", False),
}


def checkpointing(cell):
    """gpuplan's mode for the row's recompute, or None."""
    cell = cell.strip()
    if cell in ("", "none listed", "none"):
        return "none"
    if cell == "full":
        return "full"
    if cell == "selective: norm, act":
        return "none"  # layer norms and the experts' activation recomputed: see the module docstring
    return None


def convert(row):
    """Output rows for one measured MoE row, or (None, reason)."""
    for prefix, why in NOT_EXPRESSIBLE:
        if row["id"].startswith(prefix):
            return None, why
    if row["id"] not in QWEN3_H100:
        return None, "not a mixture-of-experts row this converter knows"
    dispatcher, overlap = QWEN3_H100[row["id"]]
    ckpt = checkpointing(row["activation_checkpointing"])
    if ckpt is None:
        return None, "recompute '%s' not expressible" % row["activation_checkpointing"]
    fsdp = row["zero_or_fsdp"].startswith("Megatron-FSDP")
    tp, vp = int(row["tp"]), int(row["vp"] or "1")
    out = {"id": row["id"], "model": "qwen3-235b-a22b", "gpu": "h100-sxm5-80gb", "num_gpus": row["num_gpus"],
           "precision": "mixed-bf16", "batch_size_per_gpu": row["micro_batch"], "seq_len_or_resolution": row["seq_len"],
           "task": "train", "metric": "tokens_per_s_per_gpu", "value": row["tokens_per_s_per_gpu"],
           "batch": row["global_batch"], "dp": row["dp"], "tp": row["tp"], "sp": "1" if tp > 1 else "",
           "pp": row["pp"], "vp": str(vp) if vp > 1 else "", "ep": row["ep"], "etp": row["etp"],
           "zero": "3" if fsdp else "1", "checkpointing": ckpt, "attention": "flash", "dropout": "0",
           "fused_loss": "1", "moe_dispatcher": dispatcher, "moe_a2a_overlap": "1" if overlap else "",
           "moe_imbalance": "", "gpus_per_node": "8", "network_gbps_per_node": "3200",
           "source": source_key(row["source"])}
    return [out], None


def is_moe(row):
    return bool(row["ep"]) or any(k in row["model"] for k in ("MoE", "Mixtral", "DeepSeek", "A22B", "A3B", "Scout"))


def main(src, dst):
    with open(src, newline="") as f:
        rows = [r for r in csv.DictReader(f) if is_moe(r)]
    converted, skipped = convert_rows(rows, convert)
    write_csv(dst, [
        "Generated by tools/convert_llm_scale_moe.py from shared/validation/measured_llm_scale_dev.csv",
        "(the mixture-of-experts rows; sources per row in the original).",
        "Rows with a recompute of layer norms and activations ('norm, act') are predicted without it.",
    ], skipped, COLUMNS, converted, listed_as="not expressible:")
    print("%d MoE rows: %d converted, %d not expressible" % (len(rows), len(converted), len(skipped)))

if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
