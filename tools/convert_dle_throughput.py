#!/usr/bin/env python3
"""Converts shared/validation/measured_throughput_dev.csv (NVIDIA DeepLearningExamples tables)
into the `gpuplan validate` format:

    id,model,gpu,num_gpus,precision,batch_size_per_gpu,seq_len_or_resolution,task,metric,value,memory_format,compile,
    optimizer,optimizer_loop,clip_grad_norm,source

source is the row's published document (tools/validation_source.py): error bands leave it out.
Rows whose model or GPU gpuplan does not describe are left out and listed, with the reason, in
comment lines at the top of the output, so the conversion is reproducible and nothing is hidden.

Usage: tools/convert_dle_throughput.py SRC.csv OUT.csv
"""
import csv
import sys

from validation_source import source_key

# DeepLearningExamples model names -> gpuplan zoo ids.
MODELS = {
    "ResNet-50 v1.5": "resnet50",        # torchvision's ResNet-50 is v1.5 (stride on the 3x3 conv)
    "BERT-large": "bert-large",          # pre-training: MLM head (and NSP, negligible)
    "BERT-large (SQuAD v1.1 fine-tune)": "bert-large-qa",
    "BERT-large (SQuAD v1.1)": "bert-large-qa",
    "SSD300 v1.1 (ResNet-50 backbone)": "ssd300",  # DLE ssd/model.py, COCO (81 classes)
    "SSD300 v1.1": "ssd300",
    "Transformer-XL base (WikiText-103)": "transformer-xl-base",  # pytorch/wt103_base.yaml
    "Transformer-XL large (WikiText-103)": "transformer-xl-large",  # pytorch/wt103_large.yaml
}
# GPU names as the tables print them -> gpuplan catalog ids.
GPUS = {
    "A100-SXM4-80GB (DGX A100)": "a100-sxm4-80gb",
    "A100-SXM4-40GB (DGX A100)": "a100-sxm4-40gb",
    "V100-SXM2-16GB (DGX-1)": "v100-sxm2-16gb",
    "V100-SXM2-32GB (DGX-1)": "v100-sxm2-32gb",
    "T4": "t4",
}
# Tensor layout of the convolutional runs, from each recipe's defaults: ConvNets configs.yml sets
# memory_format nhwc for AMP only (TF32/FP32 keep PyTorch's NCHW); SSD's main.py defaults
# --data-layout to channels_last for every precision. Empty: not a convolutional model.
def memory_format(model, precision):
    if model == "resnet50":
        return "channels-last" if precision == "amp-fp16" else "nchw"
    if model == "ssd300":
        return "channels-last"
    return ""


# DLE "tf32" rows are fp32 runs on A100, which use TF32 tensor cores.
PRECISIONS = {"tf32": "tf32", "fp32": "fp32", "amp-fp16": "amp-fp16"}


# BERT's precision recipe and kernel fusion, read from the code of the container that measured
# each row (NVIDIA/DeepLearningExamples, PyTorch/LanguageModeling/BERT):
# - pre-training in pytorch:21.11 (run_pretraining.py@729963dd): torch.jit.script(model) with
#   nvFuser enabled, so the element-wise kernels are fused (gpuplan's compile column), and
#   torch.cuda.amp.autocast: amp-fp16;
# - pre-training in pytorch:19.07 (run_pretraining.py@8b249efa): apex amp opt_level O2 (fp16
#   weights and activations, fp32 master weights in the optimizer: gpuplan's mixed-fp16); the model
#   is not scripted (only bias + GELU is a TorchScript function), so kernels stay unfused;
# - SQuAD fine-tuning in both containers (run_squad.py@f8b3a63f and @729963dd): apex amp O2 with
#   keep_batchnorm_fp32=False (mixed-fp16), the model not scripted; apex's FusedLayerNorm is one
#   kernel as PyTorch's own LayerNorm is, and the attention's scale, mask add, softmax and dropout
#   run as separate eager kernels;
# - SQuAD inference: run_squad.py calls model.half() when it does not train: pure fp16.
# Transformer-XL (pytorch/train.py@f838cf32, the code of the pytorch-20.06 tables: --amp_mode
# default O2; README: "Apex AMP, with O2 optimization level") is plain eager PyTorch under apex amp
# O2: mixed-fp16, unfused. TF32/FP32 rows keep their precision.
def recipe(model, row):
    precision = PRECISIONS[row["precision"]]
    if model.startswith("transformer-xl"):
        return ("mixed-fp16" if precision == "amp-fp16" else precision), ""
    if not model.startswith("bert"):
        return precision, ""
    if model == "bert-large" and "pytorch:21.11" in row["source"]:
        return precision, "1"
    if precision == "amp-fp16":
        precision = "fp16" if row["task"] == "infer" else "mixed-fp16"
    return precision, ""


# The optimizer step, where it costs host time per parameter tensor: Transformer-XL trains with
# DeepLearningExamples' JIT LAMB (pytorch/wt103_base.yaml and wt103_large.yaml@f838cf32:
# `optim: jitlamb`; pytorch/lamb.py: a Python loop over the parameters calling a TorchScript
# function per tensor), after torch.nn.utils.clip_grad_norm_ (train.py@f838cf32: `--clip`
# default 0.25, over amp.master_params under apex O2), whose PyTorch 1.6 version visits each
# tensor too; train.py calls loss.float().item() after backward, so the loop starts on an idle
# GPU. The other models' optimizers are multi-tensor (apex FusedLAMB/FusedAdam) or overlap
# the GPU's work: left at gpuplan's default.
def optimizer_step(model):
    if model.startswith("transformer-xl"):
        return ["lamb", "for-loop", "1"]
    return ["", "", ""]


def main(src, out):
    kept, skipped = [], []
    with open(src, newline="") as f:
        for row in csv.DictReader(f):
            rid = row["id"]
            model = MODELS.get(row["model"])
            gpu = GPUS.get(row["gpu"])
            size = row["seq_len_or_resolution"]
            side = size.split("x")
            if len(side) == 2 and side[0] == side[1] and side[0].isdigit():
                size = side[0]  # square images: "300x300" -> 300
            metric = row["metric"]
            if model is None:
                skipped.append((rid, f"model '{row['model']}' is not in the gpuplan zoo"))
                continue
            if gpu is None:
                skipped.append((rid, f"GPU '{row['gpu']}' is not in the gpuplan catalog"))
                continue
            if not row["batch_size_per_gpu"].isdigit():
                skipped.append((rid, "batch size per GPU not given in the source"))
                continue
            if not size.isdigit():
                skipped.append((rid, f"input size '{size}' is not a single number"))
                continue
            if model == "ssd300" and row["task"] == "infer":
                # ssd/train.py benchmark_inference_loop starts its timer before next(val_datas):
                # each timed iteration loads and decodes the validation batch, which gpuplan does
                # not model (its training loop prefetches with DALI, outside the timer).
                skipped.append((rid, "SSD inference timing includes loading the validation batch"))
                continue
            if model == "bert-large" and row["task"] == "train" and size == "512" \
                    and gpu.startswith("a100"):
                # 110 seq/s (TF32) and 210 seq/s (AMP) on one A100 at 1.1e12 training FLOPs per
                # padded sample are 78 % and 74 % of the dense peak for the whole step, about what
                # the A100's matmuls reach alone (0.80 of peak, data/gpus). These runs (container
                # 21.11) cannot have computed 512 tokens per sample: they skip padding, by an
                # amount the table does not give. The V100 phase-2 row (T053, older container)
                # implies 22 % of peak and is kept.
                skipped.append((rid, "BERT phase-2 pre-training on A100 skips padding; the table "
                                "gives no real tokens per sample (at 512 tokens the rate would be "
                                "74-78 % of the dense peak)"))
                continue
            if int(row["num_gpus"]) > 16:
                skipped.append((rid, "multi-node run (validate models one node)"))
                continue
            if metric.startswith("images/s") or metric.startswith("sequences/s"):
                ours, value = "samples_per_s_total", row["value"]
            elif metric.startswith("tokens/s (aggregate)"):
                ours, value = "tokens_per_s_per_gpu", f'{float(row["value"]) / int(row["num_gpus"]):g}'
            else:
                skipped.append((rid, f"metric '{metric}' has no gpuplan equivalent"))
                continue
            precision, compiled = recipe(model, row)
            kept.append([rid, model, gpu, row["num_gpus"], precision,
                         row["batch_size_per_gpu"], size, row["task"], ours,
                         value, memory_format(model, precision), compiled]
                        + optimizer_step(model) + [source_key(row["source"])])
    with open(out, "w", newline="") as f:
        f.write("# Generated by tools/convert_dle_throughput.py from shared/validation/measured_throughput_dev.csv\n")
        f.write("# (NVIDIA DeepLearningExamples PyTorch performance tables; sources per row in the original).\n")
        for rid, why in skipped:
            f.write(f"# skipped {rid}: {why}\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "model", "gpu", "num_gpus", "precision", "batch_size_per_gpu",
                    "seq_len_or_resolution", "task", "metric", "value", "memory_format", "compile",
                    "optimizer", "optimizer_loop", "clip_grad_norm", "source"])
        w.writerows(kept)
    print(f"kept {len(kept)} rows, skipped {len(skipped)}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
