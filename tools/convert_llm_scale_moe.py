#!/usr/bin/env python3
"""The mixture-of-experts rows of shared/validation/measured_llm_scale_dev.csv in the `gpuplan validate`
format. `convert(row)` gives the output rows of one measured MoE row, or the reason it cannot be
expressed; tools/convert_llm_scale.py (the whole file's converter) can call it for its MoE rows, and
run alone this script writes them to their own CSV:

    id,model,gpu,num_gpus,precision,batch_size_per_gpu,seq_len_or_resolution,task,metric,value,
    batch,dp,tp,sp,pp,vp,cp,ep,etp,zero,checkpointing,recompute_modules,attention,dropout,fused_loss,clip_grad_norm,
    overlap_grad_reduce,overlap_param_gather,tp_comm_overlap,quantized_params,optimizer_state_dtype,
    mtp_layers,moe_dispatcher,moe_a2a_overlap,moe_imbalance,gpus_per_node,nvlink_domain_gpus,
    network_gbps_per_node,source

Setup facts, read from the code the rows cite (NVIDIA/Megatron-LM@f13818d69535,
examples/moe-modelzoo: best_practice/qwen3/readme.md, model_configs/benchmarking/Qwen3-235B-A22B.yaml,
runtime_configs/benchmarking/runtime.conf, sbatch_benchmarking.sh):
  - Qwen3-235B-A22B, Megatron-Core with --bf16 (bf16 weights and activations, fp32 main gradients and
    masters: mixed-bf16), the distributed optimizer (zero 1; "Megatron-FSDP On": zero 3), sequence
    parallelism with tp, cuDNN fused attention, no dropout, Transformer Engine's fused cross-entropy, grouped
    GEMMs with fused permutation, expert tensor parallelism 1, auxiliary-loss balancing (1e-3; the
    load-imbalance default is a measurement of that), dropless;
  - attention: the model configs pass --use-flash-attn, which Megatron at f13818d69535 still accepts
    but no longer reads (no use of use_flash_attn under megatron/); TransformerConfig's
    attention_backend stays AttnBackend.auto, so Transformer Engine picks the kernel, cuDNN's fused
    attention on Hopper and Blackwell (gpuplan's Megatron framework default, cited there);
  - 8 H100 per node, InfiniBand 8 x 50 GB/s (3200 Gb/s per node);
  - "DeepEP" is --moe-token-dispatcher-type flex with DeepEP, "A2A" NCCL's all-to-all; "+1f1b overlap"
    is --overlap-moe-expert-parallel-comm --delay-wgrad-compute.
  - recompute "norm, act" is Megatron's selective recompute of the layer norms and the experts'
    activation function (--recompute-granularity selective --recompute-modules layernorm moe_act):
    gpuplan's --checkpointing selective --recompute-modules layernorm,moe_act; the table's other
    module lists map the same way, by Megatron's module names.
  - the model config (Qwen3-235B-A22B.yaml) turns on --use-distributed-optimizer,
    --overlap-grad-reduce, --overlap-param-gather and --clip-grad 1.0 for every row, and
    sbatch_benchmarking.sh adds --tp-comm-overlap at bf16; "mxfp8" adds --fp8-recipe mxfp8
    --fp8-param-gather and the precision-aware optimizer with bf16 Adam moments (fp32 masters and
    main gradients).
  - GB200 / GB300 rows (run_gb200_235b.sh, run_gb300_235b.sh): 4 GPUs per compute tray
    (N_TASKS_PER_NODE=4); Slurm places each --segment of SEGMENT trays in one NVL72 rack, so the
    NVLink domain a row's groups can count on is SEGMENT x 4 GPUs (nvlink_domain_gpus); the
    network between racks is not stated: 400 Gb/s per GPU (1600 per tray) is the GB200 NVL72
    compute tray's four ConnectX-7 (MLPerf Inference v6.1 Crusoe GB200-NVL72 system description:
    "4x ... ConnectX-7" per 4-GPU node; AWS p6e-gb200: 1600 Gbps per 4-GPU host), and 800 Gb/s
    per GPU on GB300 (NVIDIA GB300 NVL72 enterprise reference architecture: 4 ConnectX-8 per
    tray). HybridEP rows keep their dispatcher (moe_dispatcher hybridep: DeepEP's routing, 32 SMs).
  - TFLOPS-only rows: tokens/s per GPU = TFLOPS x 1e12 / Megatron's own FLOPs per token
    (tools/megatron_flops.py), with the make-vocab-size-divisible-by the run sets (Qwen3 1187,
    DeepSeek-V3 3232: neither pads the vocabulary).
  - DeepSeek-V3 on GB200 (docs/discussions/deepseek-v3-gb200-optimization at
    NVIDIA/Megatron-LM@eb0783b6d356, the reproduce guide's launch script): no --mtp-num-layers
    (mtp_layers 0), mxfp8 with --fp8-param-gather and bf16 Adam moments, distributed optimizer
    with both overlaps, --clip-grad 1.0, --cross-entropy-loss-fusion, --segment 8 (32 GPUs per
    NVLink domain), the pipeline layout "Et|(tt|)*30L" (61 layers over 32 virtual stages), the
    selective recompute of moe_act and the 3 dense layers' mlp. Of its 13 cumulative optimisation
    steps only the last is scored:
    the others differ by kernel fusions, CUDA graphs and host-side fixes gpuplan does not model.
  - the H100 long-context rows (the readme's "Long Context" table: TP and CP per row, TFLOPS
    "forced balance" and "dropless"; its command: PP 8, VPP 4, EP 8, DeepEP, A2A_OVERLAP=0,
    --recompute-modules layernorm moe): the command sets no MBS, so runtime.conf's default for
    Qwen3-235B-A22B holds, a micro-batch of 1; "forced balance" is --moe-router-force-load-balancing
    (moe_imbalance 1), "dropless" the real router (gpuplan's measured imbalance default).
  - Qwen3-Next-80B-A3B on H100 (best_practice/qwen3/run_next_80b.sh and
    model_configs/benchmarking/Qwen3-Next-80B-A3B.yaml): --bf16 (mixed-bf16), TP 1, PP 4, VPP 3,
    EP 32, the distributed optimizer without --overlap-grad-reduce or --overlap-param-gather (the
    yaml leaves them out; only the mxfp8 branch of sbatch_benchmarking.sh adds them), --clip-grad
    1.0, fused cross-entropy, cuDNN fused attention, DeepEP (flex), one MTP layer (--mtp-num-layers 1,
    which the HF config does not carry), --moe-router-force-load-balancing (moe_imbalance 1), and
    the selective recompute of moe_act, shared_experts and layernorm; 8 H100 per node.
  - source: the published document (tools/validation_source.py): error bands leave it out.
Usage: tools/convert_llm_scale_moe.py SRC.csv OUT.csv
"""
import csv
import sys

import megatron_flops
from validation_csv import convert_rows, write_csv
from validation_source import source_key

COLUMNS = ["id", "model", "gpu", "num_gpus", "precision", "batch_size_per_gpu", "seq_len_or_resolution", "task",
           "metric", "value", "batch", "dp", "tp", "sp", "pp", "vp", "cp", "ep", "etp", "zero", "checkpointing",
           "recompute_modules", "attention", "dropout", "fused_loss", "clip_grad_norm", "overlap_grad_reduce", "overlap_param_gather",
           "tp_comm_overlap", "quantized_params", "optimizer_state_dtype", "mtp_layers", "moe_dispatcher",
           "moe_a2a_overlap", "moe_imbalance", "offload_modules", "cuda_graph_modules", "gpus_per_node", "nvlink_domain_gpus",
           "network_gbps_per_node", "source"]

# Why the other MoE rows cannot be expressed, by id prefix.
NOT_EXPRESSIBLE = [
    ("mlm-moe-mixtral8x7b", "the README's headline TFLOPS has no run configuration attached (the reference "
                            "mapping beside it is probably, not stated to be, the run)"),
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


# The table's names for Megatron's --recompute-modules.
RECOMPUTE_MODULES = {"norm": "layernorm", "layernorm": "layernorm", "act": "moe_act", "moe_act": "moe_act",
                     "mlp": "mlp", "moe": "moe", "mla_up_proj": "mla_up_proj", "shared_expert": "shared_experts",
                     "core_attn": "core_attn"}


# The table's words for Megatron's --fine-grained-activation-offloading --offload-modules.
OFFLOAD_PREFIX = "fine-grained activation offloading of "


def offloading(cell):
    """The offload_modules of a recompute cell's '; fine-grained activation offloading of A and B'."""
    for part in cell.split(";")[1:]:
        part = part.strip()
        if part.startswith(OFFLOAD_PREFIX):
            return ",".join(n.strip() for n in part[len(OFFLOAD_PREFIX):].replace(" and ", ",").split(","))
    return ""


def checkpointing(cell):
    """gpuplan's (checkpointing, recompute_modules) for the row's recompute, or None."""
    cell = cell.split(";")[0].strip()
    if cell in ("", "none listed", "none"):
        return "none", ""
    if cell == "full":
        return "full", ""
    if not cell.startswith("selective:"):
        return None
    names = [n.strip() for n in cell[len("selective:"):].split(",")]
    if any(n not in RECOMPUTE_MODULES for n in names):
        return None
    return "selective", ",".join(RECOMPUTE_MODULES[n] for n in names)


# Blackwell rows: (model, gpu, SEGMENT trays per rack, network Gb/s per tray, 1F1B overlap) from
# run_gb200_235b.sh / run_gb300_235b.sh and the DeepSeek-V3 reproduce guide (module docstring); all
# four ran HybridEP (the readme tables' 'Dispatcher: HybridEP', the optimisation table's last rows).
# Per row: the model, GPU, NVLink segment (trays), network per tray (Gb/s), the EP all-to-all
# overlap, and the CUDA graphs its command captures (--cuda-graph-impl transformer_engine
# --cuda-graph-scope attn moe_router moe_preprocess in the readme's commands and the DeepSeek-V3
# reproduce guide; the 128k command sets none).
GRAPHS = "attn,moe_router,moe_preprocess"
BLACKWELL = {
    "mlm-qwen3-235b-gb200-bf16-4k": ("qwen3-235b-a22b", "gb200", 2, 1600, False, GRAPHS),
    "mlm-qwen3-235b-gb200-mxfp8-128k": ("qwen3-235b-a22b", "gb200", 8, 1600, False, ""),
    "mlm-qwen3-235b-gb300-mxfp8-4k": ("qwen3-235b-a22b", "gb300", 16, 3200, True, GRAPHS),
    "mlm-qwen3-235b-gb200-mxfp8-4k": ("qwen3-235b-a22b", "gb200", 16, 1600, True, GRAPHS),
    "mlm-dsv3-gb200-step13": ("deepseek-v3", "gb200", 8, 1600, False, GRAPHS),
}


def blackwell(row):
    """The GB200 / GB300 rows: tokens/s from Megatron's TFLOPS, the rack's NVLink segment."""
    model, gpu, segment, network, overlap, graphs = BLACKWELL[row["id"]]
    dispatcher = "hybridep"
    tp, vp, seq = int(row["tp"]), int(row["vp"] or "1"), int(row["seq_len"])
    mxfp8 = row["precision"] == "mxfp8"
    tokens = megatron_flops.tokens_per_s_per_gpu(float(row["tflops_per_gpu"]), model, seq, tp)
    ckpt, modules = checkpointing(row.get("activation_checkpointing", ""))
    offload = offloading(row.get("activation_checkpointing", ""))
    return {"id": row["id"], "model": model, "gpu": gpu, "num_gpus": row["num_gpus"],
            "precision": "mxfp8" if mxfp8 else "mixed-bf16", "batch_size_per_gpu": row["micro_batch"],
            "seq_len_or_resolution": row["seq_len"], "task": "train", "metric": "tokens_per_s_per_gpu",
            "value": "%.1f" % tokens, "batch": row["global_batch"], "dp": row["dp"], "tp": row["tp"],
            "sp": "1" if tp > 1 else "", "pp": row["pp"], "vp": str(vp) if vp > 1 else "",
            "cp": row["cp"] if int(row["cp"] or "1") > 1 else "", "ep": row["ep"], "etp": row["etp"] or "1",
            "zero": "1", "checkpointing": ckpt, "recompute_modules": modules, "attention": "cudnn", "dropout": "0", "fused_loss": "1",
            "clip_grad_norm": "1", "overlap_grad_reduce": "1", "overlap_param_gather": "1",
            "tp_comm_overlap": "1" if tp > 1 and not mxfp8 else "", "quantized_params": "1" if mxfp8 else "",
            "optimizer_state_dtype": "bf16" if mxfp8 else "", "mtp_layers": "0" if model == "deepseek-v3" else "",
            "moe_dispatcher": dispatcher, "moe_a2a_overlap": "1" if overlap else "", "moe_imbalance": "1",
            "offload_modules": offload, "cuda_graph_modules": graphs,
            "gpus_per_node": "4", "nvlink_domain_gpus": str(4 * segment), "network_gbps_per_node": str(network),
            "source": source_key(row["source"])}


def qwen3_next(row):
    """The Qwen3-Next-80B-A3B H100 row, set up as run_next_80b.sh runs it (module docstring)."""
    ckpt, modules = checkpointing(row["activation_checkpointing"])
    return {"id": row["id"], "model": "qwen3-next-80b-a3b", "gpu": "h100-sxm5-80gb", "num_gpus": row["num_gpus"],
            "precision": "mixed-bf16", "batch_size_per_gpu": row["micro_batch"],
            "seq_len_or_resolution": row["seq_len"], "task": "train", "metric": "tokens_per_s_per_gpu",
            "value": row["tokens_per_s_per_gpu"], "batch": row["global_batch"], "dp": row["dp"], "tp": row["tp"],
            "pp": row["pp"], "vp": row["vp"], "ep": row["ep"], "etp": row["etp"] or "1", "zero": "1",
            "checkpointing": ckpt, "recompute_modules": modules, "attention": "cudnn", "dropout": "0",
            "fused_loss": "1", "clip_grad_norm": "1", "mtp_layers": "1", "moe_dispatcher": "deepep",
            "moe_imbalance": "1", "gpus_per_node": "8", "network_gbps_per_node": "3200",
            "source": source_key(row["source"])}


def qwen3_long_context(row):
    """The H100 long-context rows (the readme's "Long Context" table and its command): TFLOPS only."""
    forced = "forced balance" in row["notes"]
    seq, tp = int(row["seq_len"]), int(row["tp"])
    tokens = megatron_flops.tokens_per_s_per_gpu(float(row["tflops_per_gpu"]), "qwen3-235b-a22b", seq, tp)
    ckpt, modules = checkpointing(row["activation_checkpointing"])
    return {"id": row["id"], "model": "qwen3-235b-a22b", "gpu": "h100-sxm5-80gb", "num_gpus": row["num_gpus"],
            "precision": "mixed-bf16", "batch_size_per_gpu": "1", "seq_len_or_resolution": row["seq_len"],
            "task": "train", "metric": "tokens_per_s_per_gpu", "value": "%.1f" % tokens,
            "batch": row["global_batch"], "dp": row["dp"], "tp": row["tp"], "sp": "1" if tp > 1 else "",
            "pp": row["pp"], "vp": row["vp"], "cp": row["cp"] if int(row["cp"] or "1") > 1 else "",
            "ep": row["ep"], "etp": "1", "zero": "1", "checkpointing": ckpt, "recompute_modules": modules,
            "attention": "cudnn", "dropout": "0", "fused_loss": "1", "clip_grad_norm": "1",
            "overlap_grad_reduce": "1", "overlap_param_gather": "1", "tp_comm_overlap": "1" if tp > 1 else "",
            "moe_dispatcher": "deepep", "moe_imbalance": "1" if forced else "", "gpus_per_node": "8",
            "network_gbps_per_node": "3200", "source": source_key(row["source"])}


def convert(row):
    """Output rows for one measured MoE row, or (None, reason)."""
    for prefix, why in NOT_EXPRESSIBLE:
        if row["id"].startswith(prefix):
            return None, why
    if row["id"] == "mlm-qwen3-next-80b-h100":
        return [qwen3_next(row)], None
    if row["id"] in BLACKWELL:
        return [blackwell(row)], None
    if row["id"].startswith("mlm-qwen3-235b-h100-lc-"):
        return [qwen3_long_context(row)], None
    if row["id"].startswith("mlm-dsv3-gb200"):
        return None, ("an intermediate step of NVIDIA's DeepSeek-V3 optimisation history (kernel fusions, CUDA "
                      "graphs, host-side fixes gpuplan does not model); step 13 is scored")
    if row["id"] not in QWEN3_H100:
        return None, "not a mixture-of-experts row this converter knows"
    dispatcher, overlap = QWEN3_H100[row["id"]]
    recompute = checkpointing(row["activation_checkpointing"])
    if recompute is None:
        return None, "recompute '%s' not expressible" % row["activation_checkpointing"]
    ckpt, modules = recompute
    fsdp = row["zero_or_fsdp"].startswith("Megatron-FSDP")
    tp, vp = int(row["tp"]), int(row["vp"] or "1")
    out = {"id": row["id"], "model": "qwen3-235b-a22b", "gpu": "h100-sxm5-80gb", "num_gpus": row["num_gpus"],
           "precision": "mixed-bf16", "batch_size_per_gpu": row["micro_batch"], "seq_len_or_resolution": row["seq_len"],
           "task": "train", "metric": "tokens_per_s_per_gpu", "value": row["tokens_per_s_per_gpu"],
           "batch": row["global_batch"], "dp": row["dp"], "tp": row["tp"], "sp": "1" if tp > 1 else "",
           "pp": row["pp"], "vp": str(vp) if vp > 1 else "", "ep": row["ep"], "etp": row["etp"],
           "zero": "3" if fsdp else "1", "checkpointing": ckpt, "recompute_modules": modules,
           "attention": "cudnn", "dropout": "0",
           "fused_loss": "1", "clip_grad_norm": "1", "overlap_grad_reduce": "1", "overlap_param_gather": "1",
           "tp_comm_overlap": "1" if tp > 1 else "", "moe_dispatcher": dispatcher, "moe_a2a_overlap": "1" if overlap else "",
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
    ], skipped, COLUMNS, converted, listed_as="not expressible:")
    print("%d MoE rows: %d converted, %d not expressible" % (len(rows), len(converted), len(skipped)))

if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
