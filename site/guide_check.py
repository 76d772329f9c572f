"""Recomputes each numeric claim of the original Chinese seed guide with the gpuplan core.

The claims' own numbers (3.8e9 FLOPs, 900 GB/s, ...) are typed here, once, as the guide states
them: they are the input being checked. Everything they are compared with is computed by the CLI
or read from data/ at build time, and the verdict follows from that comparison in code, so a
change to the core or the catalog changes the page. Used by gen_site.py.
"""

import csv
import json
import os
import re

from gen_site import (BERT_FINETUNE_EPOCHS, IMAGENET_TRAIN_IMAGES, MNLI_TRAIN_EXAMPLES, ROOT, BuildError,
                      duration, gb, pct, sig, table, tflops)

VERDICTS = {
    "correct": ("Correct", "正确"),
    "qualified": ("Correct, with a qualification", "基本正确，但需加限定"),
    "misleading": ("Misleading", "有误导"),
    "wrong": ("Wrong", "错误"),
    "catalog": ("Checked against the catalog", "已对照目录"),
    "unknown": ("Cannot be checked", "无法核实"),
}
# Symbols that common text fonts have (no colour emoji needed).
ICONS = {"correct": "✔", "qualified": "✔", "misleading": "⚠", "wrong": "✘", "catalog": "☰", "unknown": "?"}

TITLES = {
    1: ("ResNet-50 on an A100", "A100 上的 ResNet-50"),
    2: ("A100 memory bandwidth", "A100 显存带宽"),
    3: ("T4 FP16 peak", "T4 的 FP16 峰值"),
    4: ("H100 FP8 peak", "H100 的 FP8 峰值"),
    5: ("Mixed precision on an A100", "A100 上的混合精度"),
    6: ("A 100B model on one H100", "单张 H100 训练 1000 亿参数模型"),
    7: ("GPT-3 on an A100 cluster", "A100 集群上的 GPT-3"),
    8: ("ResNet-18 on a T4", "T4 上的 ResNet-18"),
    9: ("BERT-base on GLUE on an A40", "A40 上用 GLUE 微调 BERT-base"),
    10: ("Alibaba Cloud GN6i", "阿里云 GN6i"),
    11: ("Tencent Cloud GN10Xp", "腾讯云 GN10Xp"),
    12: ("AWS P4d", "AWS P4d"),
}


class Claim:
    def __init__(self, cid, anchor, claim_en, claim_zh):
        self.id = cid
        self.anchor = anchor
        self.claim = {"en": claim_en, "zh": claim_zh}
        self.verdict = "unknown"
        self.short = {"en": "", "zh": ""}
        self.reason = {"en": "", "zh": ""}
        self.facts = []      # (label_en, label_zh, value)
        self.commands = []   # exact CLI command lines

    def fact(self, en, zh, value):
        self.facts.append((en, zh, value))


class Checker:
    def __init__(self, site):
        self.site = site
        self.cli = site.cli

    def run(self, claim, args):
        claim.commands.append(self.cli.display(args) + " --json")
        return self.cli.json(args)

    def gpu_peak(self, gid, prec):
        g = self.site.gpus[gid]
        f = g.get("peak_dense_flop_per_s", {}).get(prec)
        if not f:
            raise BuildError(f"guide check: GPU {gid} has no dense {prec} peak in the catalog")
        return f["value"]

    def sparse_peak(self, gid, prec):
        f = self.site.gpus_data[gid]["specs"].get("peak_sparse_tflops", {}).get(prec)
        return f["value"] * 1e12 if f else None

    def bandwidth(self, gid):
        return self.site.gpus[gid]["memory_bandwidth_bytes_per_s"]["value"]

    def measured_rows(self):
        path = os.path.join(ROOT, "tests", "validation", "throughput_dev.csv")
        if not os.path.exists(path):
            return []
        with open(path, encoding="utf-8") as f:
            return list(csv.DictReader(ln for ln in f if not ln.startswith("#")))

    # -----------------------------------------------------------------------------------------
    def resnet50(self):
        c = Claim(1, "resnet-50-on-an-a100", "ResNet-50 needs 3.8×10⁹ FLOPs per iteration, so an A100 at 19.5 TFLOPS "
                  "runs one iteration in 0.2 ms.",
                  "ResNet-50 每次迭代需要 3.8×10⁹ 次浮点运算，因此 A100（19.5 TFLOPS）一次迭代只需 0.2 ms。")
        claimed_flops, claimed_peak = 3.8e9, 19.5e12
        e1 = self.run(c, ["estimate", "--model", "resnet50", "--batch", "1"])
        fwd = e1["flops"]["forward_per_sample"]
        macs = e1["flops"]["forward_matmul_per_sample"] / 2
        gid = "a100-sxm4-40gb"
        fp32 = self.gpu_peak(gid, "fp32")
        tf32 = self.gpu_peak(gid, "tf32")
        e256 = self.run(c, ["estimate", "--model", "resnet50", "--batch", "256", "--gpu", gid])
        eb1 = self.run(c, ["estimate", "--model", "resnet50", "--batch", "1", "--gpu", gid])
        step = e256["time"]["step_s"]
        res = e1["resolution"]
        bwd = e256["flops"]["backward_per_step"] / e256["flops"]["forward_per_step"]
        per_image_train = e256["flops"]["train_per_step"] / 256
        guide_time = claimed_flops / claimed_peak
        c.fact("forward FLOPs per image (multiply-add = 2)", "每张图前向浮点运算（乘加 = 2 次）", sig(fwd))
        c.fact("forward multiply-adds per image (convolutions + fc)", "每张图前向乘加次数（卷积 + 全连接）", sig(macs))
        c.fact("training FLOPs per image (forward + backward)", "每张图训练浮点运算（前向 + 反向）", sig(per_image_train))
        c.fact(f"`{gid}` dense FP32 / TF32 peak", f"`{gid}` FP32 / TF32 稠密峰值", f"{tflops(fp32)} / {tflops(tf32)}")
        c.fact("the guide's arithmetic, 3.8×10⁹ / 19.5×10¹²", "指南的算式 3.8×10⁹ / 19.5×10¹²", duration(guide_time))
        c.fact("forward of one image at the FP32 peak", "单张图前向按 FP32 峰值计算", duration(fwd / fp32))
        c.fact("predicted training step, batch 256", "预测的训练步时间（batch 256）",
               f"{duration(step)} ({duration(step / 256)} per image)")
        c.fact("predicted training step, batch 1", "预测的训练步时间（batch 1）", duration(eb1["time"]["step_s"]))
        counts_macs = abs(claimed_flops / macs - 1) < 0.15
        c.verdict = "wrong" if step / 256 > 2 * guide_time else "qualified"
        c.short["en"] = (f"3.8×10⁹ counts multiply-adds of one image's forward pass; a training iteration over a batch "
                         f"costs far more: {duration(step)} for 256 images.")
        c.short["zh"] = (f"3.8×10⁹ 是单张图前向的乘加次数；一次训练迭代远不止于此：256 张图一步约 {duration(step)}。")
        c.reason["en"] = (
            f"The core counts {sig(macs)} multiply-adds for one {res}×{res} image's forward pass, "
            f"{'close to the guide’s 3.8×10⁹: that figure counts multiply-adds, not FLOPs' if counts_macs else 'not 3.8×10⁹'} "
            f"(one multiply-add is 2 FLOPs, so {sig(fwd)} FLOPs). It is one image and the forward pass only: training "
            f"adds a backward pass of {sig(bwd, 2)}× the forward, {sig(per_image_train)} FLOPs per image in all, and an "
            f"iteration processes a whole batch. Peak FLOP/s are never reached, and on an A100 PyTorch runs FP32 convolutions on "
            f"TF32 tensor cores (peak {tflops(tf32)}). gpuplan predicts {duration(step)} per step at batch 256, i.e. "
            f"{duration(step / 256)} per image — {sig(step / 256 / guide_time, 2)}× the guide's per-iteration figure — "
            f"and {duration(eb1['time']['step_s'])} for a batch of one.")
        c.reason["zh"] = (
            f"核心算得 {res}×{res} 单张图前向共 {sig(macs)} 次乘加，"
            f"{'与指南的 3.8×10⁹ 接近：这个数是乘加次数，不是浮点运算次数' if counts_macs else '与 3.8×10⁹ 不符'}"
            f"（一次乘加算 2 次浮点运算，即 {sig(fwd)} FLOPs）。而且这只是一张图的前向：训练还有 {sig(bwd, 2)} 倍于前向的反向，"
            f"每张图合计 {sig(per_image_train)} FLOPs，一次迭代处理整个 batch。峰值算力达不到；在 A100 上 PyTorch 的 FP32 卷积"
            f"默认走 TF32 张量核（峰值 {tflops(tf32)}）。gpuplan 预测 batch 256 每步 {duration(step)}，"
            f"即每张图 {duration(step / 256)}，是指南数字的 {sig(step / 256 / guide_time, 2)} 倍；batch 1 每步 "
            f"{duration(eb1['time']['step_s'])}。")
        return c

    def a100_bandwidth(self):
        c = Claim(2, "a100-memory-bandwidth", "The A100's memory bandwidth is 900 GB/s.", "A100 的显存带宽是 900 GB/s。")
        c.commands.append(self.cli.display(["gpus"]) + " --json")
        a100 = {gid: self.bandwidth(gid) for gid in self.site.gpus if gid.startswith("a100")}
        at900 = sorted(gid for gid in self.site.gpus if abs(self.bandwidth(gid) - 900e9) < 1e9)
        for gid, bw in sorted(a100.items()):
            c.fact(f"`{gid}` memory bandwidth", f"`{gid}` 显存带宽", f"{sig(bw / 1e9, 4)} GB/s")
        c.fact("catalog GPUs with 900 GB/s", "目录中带宽为 900 GB/s 的 GPU", ", ".join(f"`{g}`" for g in at900) or "none")
        ok = any(abs(bw - 900e9) < 1e9 for bw in a100.values())
        c.verdict = "correct" if ok else "wrong"
        lo, hi = min(a100.values()), max(a100.values())
        c.short["en"] = (f"Every A100 in the catalog has {sig(lo / 1e9, 4)}–{sig(hi / 1e9, 4)} GB/s; 900 GB/s is "
                         f"{'the V100’s' if at900 and all(g.startswith('v100') for g in at900) else 'another GPU’s'} figure.")
        c.short["zh"] = (f"目录中所有 A100 的带宽为 {sig(lo / 1e9, 4)}–{sig(hi / 1e9, 4)} GB/s；900 GB/s 是 "
                         f"{'V100' if at900 and all(g.startswith('v100') for g in at900) else '其他 GPU'} 的数字。")
        c.reason["en"] = (f"The catalog's A100 entries list {sig(lo / 1e9, 4)} to {sig(hi / 1e9, 4)} GB/s depending on "
                          f"memory size and form factor. 900 GB/s belongs to {', '.join(at900) or 'no catalog GPU'}. "
                          f"Memory bandwidth bounds every elementwise kernel and small-batch GEMM in the time model, so "
                          f"using the V100's figure for an A100 makes such steps look {sig(lo / 900e9, 2)}× or more slower "
                          f"than they are.")
        c.reason["zh"] = (f"目录中各型号 A100 的带宽为 {sig(lo / 1e9, 4)} 到 {sig(hi / 1e9, 4)} GB/s（取决于显存容量和外形规格）。"
                          f"900 GB/s 属于 {', '.join(at900) or '目录中没有的 GPU'}。时间模型里逐元素算子和小 batch 矩阵乘都受带宽限制，"
                          f"把 V100 的带宽用在 A100 上会把这些步骤算慢 {sig(lo / 900e9, 2)} 倍以上。")
        return c

    def t4_fp16(self):
        c = Claim(3, "t4-fp16-peak", "The T4 delivers 65 TFLOPS at FP16.", "T4 的 FP16 算力为 65 TFLOPS。")
        c.commands.append(self.cli.display(["gpus"]) + " --json")
        fp16 = self.gpu_peak("t4", "fp16")
        fp32 = self.gpu_peak("t4", "fp32")
        eff = self.site.assumptions["assumptions"]["gemm_efficiency"]["value"]
        c.fact("`t4` dense FP16 peak (tensor cores)", "`t4` FP16 稠密峰值（张量核）", tflops(fp16))
        c.fact("`t4` FP32 peak", "`t4` FP32 峰值", tflops(fp32))
        c.fact("GEMM efficiency gpuplan assumes", "gpuplan 假设的矩阵乘效率", pct(eff))
        ok = abs(fp16 / 65e12 - 1) < 0.02
        c.verdict = "qualified" if ok else "wrong"
        c.short["en"] = (f"Matches the catalog's dense FP16 tensor-core peak ({tflops(fp16)}); FP32 code gets "
                         f"{tflops(fp32)}." if ok else f"The catalog says {tflops(fp16)}.")
        c.short["zh"] = (f"与目录中的 FP16 张量核稠密峰值一致（{tflops(fp16)}）；FP32 只有 {tflops(fp32)}。" if ok else
                         f"目录中的数字为 {tflops(fp16)}。")
        c.reason["en"] = (f"The catalog's T4 entry gives {tflops(fp16)} dense at FP16, a tensor-core peak that only "
                          f"FP16 matrix multiplies reach (in PyTorch: `torch.autocast` or `.half()`); FP32 work runs at "
                          f"{tflops(fp32)}. gpuplan assumes real GEMMs reach {pct(eff)} of a peak (data/assumptions.json), "
                          f"and the T4's {sig(self.bandwidth('t4') / 1e9, 3)} GB/s memory bandwidth limits everything "
                          f"that is not a large matrix multiply.")
        c.reason["zh"] = (f"目录中 T4 的 FP16 稠密峰值为 {tflops(fp16)}，这是张量核峰值，只有 FP16 矩阵乘能接近（PyTorch 中用 "
                          f"`torch.autocast` 或 `.half()`）；FP32 只有 {tflops(fp32)}。gpuplan 假设实际矩阵乘能达到峰值的 "
                          f"{pct(eff)}（data/assumptions.json），而 T4 只有 {sig(self.bandwidth('t4') / 1e9, 3)} GB/s 的显存带宽，"
                          f"大矩阵乘以外的计算都受它限制。")
        return c

    def h100_fp8(self):
        c = Claim(4, "h100-fp8-peak", "The H100 reaches 1979 TFLOPS at FP8.", "H100 的 FP8 算力为 1979 TFLOPS。")
        c.commands.append(self.cli.display(["gpus"]) + " --json")
        rows = {}
        for gid in sorted(g for g in self.site.gpus if g.startswith("h100")):
            dense = self.site.gpus[gid].get("peak_dense_flop_per_s", {}).get("fp8", {}).get("value")
            sparse = self.sparse_peak(gid, "fp8")
            rows[gid] = (dense, sparse)
            c.fact(f"`{gid}` FP8 dense / with sparsity", f"`{gid}` FP8 稠密 / 稀疏",
                   f"{tflops(dense, 4) if dense else '–'} / {tflops(sparse, 4) if sparse else 'not in catalog'}")
        dense_match = [g for g, (d, s) in rows.items() if d and abs(d / 1979e12 - 1) < 0.01]
        sparse_match = [g for g, (d, s) in rows.items() if s and abs(s / 1979e12 - 1) < 0.01]
        if dense_match:
            c.verdict = "qualified"
            g = dense_match[0]
            others = ", ".join(f"`{k}` {tflops(d, 4)}" for k, (d, s) in rows.items() if k != g and d)
            c.short["en"] = f"Dense, and only for the SXM board (`{g}`); with sparsity it is {tflops(rows[g][1], 4)}."
            c.short["zh"] = f"这是稠密算力，且只对 SXM 版（`{g}`）成立；稀疏算力为 {tflops(rows[g][1], 4)}。"
            c.reason["en"] = (f"1979 TFLOPS is the dense FP8 peak of `{g}` in the catalog; the catalog also lists "
                              f"{sig(rows[g][1] / rows[g][0], 2)}× that with sparsity, {tflops(rows[g][1], 4)}, which needs 2:4 structured sparsity that training does "
                              f"not use. Other H100 boards are lower ({others}). FP8 training also needs Transformer "
                              f"Engine-style scaling, and gpuplan's fp8 precision keeps 16-bit weights with fp32 masters, "
                              f"so memory does not shrink in proportion.")
            c.reason["zh"] = (f"1979 TFLOPS 是目录中 `{g}` 的 FP8 稠密峰值；目录中还列有其 {sig(rows[g][1] / rows[g][0], 2)} 倍的稀疏算力 {tflops(rows[g][1], 4)}，"
                              f"那需要 2:4 结构化稀疏，训练时用不上。其他 H100 版本更低（{others}）。FP8 训练还需要 Transformer "
                              f"Engine 式的缩放；gpuplan 的 fp8 精度保留 16 位权重和 fp32 主权重，显存不会按比例减少。")
        elif sparse_match:
            c.verdict = "misleading"
            c.short["en"] = "That is the sparse figure; dense is half."
            c.short["zh"] = "这是稀疏算力；稠密只有一半。"
            c.reason["en"] = c.short["en"]
            c.reason["zh"] = c.short["zh"]
        else:
            c.verdict = "wrong"
            c.short["en"] = c.reason["en"] = "No H100 in the catalog has 1979 TFLOPS at FP8, dense or sparse."
            c.short["zh"] = c.reason["zh"] = "目录中没有任何 H100 的 FP8 算力（稠密或稀疏）是 1979 TFLOPS。"
        return c

    def amp(self):
        c = Claim(5, "amp-on-an-a100", "Mixed precision (AMP) makes training on an A100 3× faster and uses 50 % less "
                  "memory.", "混合精度（AMP）让 A100 上的训练快 3 倍、显存省 50 %。")
        gid = "a100-sxm4-80gb"
        workloads = [("resnet50", ["--batch", "256"]), ("bert-large", ["--batch", "64", "--seq", "128"]),
                     ("gpt2-small", ["--batch", "8", "--seq", "1024"])]
        speed_fp32, speed_tf32, savings = [], [], []
        for mid, extra in workloads:
            r = {}
            for prec in ("fp32", "tf32", "amp-bf16"):
                r[prec] = self.run(c, ["estimate", "--model", mid] + extra + ["--precision", prec, "--gpu", gid])
            s32 = r["fp32"]["time"]["step_s"] / r["amp-bf16"]["time"]["step_s"]
            stf = r["tf32"]["time"]["step_s"] / r["amp-bf16"]["time"]["step_s"]
            sav = 1 - r["amp-bf16"]["memory_bytes"]["total"] / r["fp32"]["memory_bytes"]["total"]
            speed_fp32.append(s32)
            speed_tf32.append(stf)
            savings.append(sav)
            c.fact(f"`{mid}` {' '.join(extra)}: speed-up vs fp32 / vs tf32; memory saved",
                   f"`{mid}` {' '.join(extra)}：相对 fp32 / tf32 的加速；显存节省",
                   f"{sig(s32, 3)}× / {sig(stf, 3)}×; {pct(sav, 2)} ({gb(r['fp32']['memory_bytes']['total'])} → "
                   f"{gb(r['amp-bf16']['memory_bytes']['total'])})")
        measured = []
        rows = self.measured_rows()
        for a in rows:
            if a["gpu"].startswith("a100") and a["num_gpus"] == "1" and a["precision"] == "tf32" and a["task"] == "train":
                for b in rows:
                    if (b["model"], b["gpu"], b["num_gpus"], b["task"], b["seq_len_or_resolution"]) == \
                            (a["model"], a["gpu"], a["num_gpus"], a["task"], a["seq_len_or_resolution"]) and \
                            b["precision"] == "amp-fp16":
                        ratio = float(b["value"]) / float(a["value"])
                        measured.append(ratio)
                        c.fact(f"measured {a['id']}/{b['id']}: `{a['model']}` on `{a['gpu']}`, AMP vs TF32 (samples/s)",
                               f"实测 {a['id']}/{b['id']}：`{a['model']}` 在 `{a['gpu']}` 上 AMP 相对 TF32（样本/秒）",
                               f"{sig(ratio, 3)}× ({a['value']} → {b['value']}; NVIDIA DeepLearningExamples)")
        speeds = speed_fp32 + speed_tf32
        speed_in = min(speeds) <= 3 <= max(speeds)
        mem_in = min(savings) <= 0.5 <= max(savings)
        c.verdict = "qualified" if speed_in and mem_in and max(speed_tf32) >= 3 else "misleading"
        rng = lambda xs, f: f"{f(min(xs))}–{f(max(xs))}"  # noqa: E731
        x = lambda v: f"{sig(v, 2)}×"  # noqa: E731
        p = lambda v: pct(v, 2)  # noqa: E731
        c.short["en"] = (f"One number does not fit: gpuplan predicts {rng(speed_tf32, x)} against TF32 and "
                         f"{rng(speed_fp32, x)} against plain FP32, saving {rng(savings, p)} of memory.")
        c.short["zh"] = (f"一个数字概括不了：gpuplan 预测相对 TF32 快 {rng(speed_tf32, x)}、相对纯 FP32 快 {rng(speed_fp32, x)}，"
                         f"显存节省 {rng(savings, p)}。")
        meas = f" Published measurements (NVIDIA DeepLearningExamples, DGX A100) show {rng(measured, x)} against TF32." \
            if measured else ""
        meas_zh = f"公开实测（NVIDIA DeepLearningExamples，DGX A100）相对 TF32 为 {rng(measured, x)}。" if measured else ""
        c.reason["en"] = (
            f"The speed-up depends on the baseline. PyTorch runs FP32 convolutions on TF32 tensor cores by default but "
            f"FP32 `nn.Linear` matmuls on CUDA cores, so transformers gain much more from AMP than CNNs: "
            f"{rng(speed_fp32, x)} against FP32 and {rng(speed_tf32, x)} against TF32 for the three workloads above."
            f"{meas} Memory falls by {rng(savings, p)}, not by half: AMP halves the saved activations but keeps FP32 "
            f"weights, gradients and optimizer states and adds a 16-bit copy of the weights, so the saving is large "
            f"only when activations dominate.")
        c.reason["zh"] = (
            f"加速比取决于基准。PyTorch 默认让 FP32 卷积走 TF32 张量核，但 FP32 的 `nn.Linear` 矩阵乘走 CUDA 核，因此 "
            f"Transformer 从 AMP 得到的加速远大于 CNN：上面三个负载相对 FP32 为 {rng(speed_fp32, x)}，相对 TF32 为 "
            f"{rng(speed_tf32, x)}。{meas_zh}显存节省 {rng(savings, p)}，并非一半：AMP 让保存的激活减半，但权重、梯度"
            f"和优化器状态仍是 FP32，还多了一份 16 位权重副本，只有激活占大头时才省得多。")
        return c

    def h100_100b(self):
        c = Claim(6, "a-100b-model-on-one-h100", "An 80 GB H100 can train a 100-billion-parameter model on one card.",
                  "一张 80 GB 的 H100 就能训练 1000 亿参数的模型。")
        cfg = {"_name_or_path": "llama-like-100b", "architectures": ["LlamaForCausalLM"], "model_type": "llama",
               "hidden_size": 10240, "intermediate_size": 27648, "num_hidden_layers": 96, "num_attention_heads": 80,
               "num_key_value_heads": 8, "vocab_size": 32000, "max_position_embeddings": 4096,
               "tie_word_embeddings": False}
        path = os.path.join(self.site.args.work, "llama-like-100b.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(cfg, f, indent=2)
        self.config_100b = cfg
        rel = "llama-like-100b.json"
        gid = "h100-sxm5-80gb"
        base = ["estimate", "--hf-config", path, "--seq", "2048"]

        def run(extra):
            r = self.cli.json(base + extra)
            c.commands.append(self.cli.display(["estimate", "--hf-config", rel, "--seq", "2048"] + extra) + " --json")
            return r
        full = run(["--batch", "1", "--precision", "amp-bf16", "--optimizer", "adamw", "--checkpointing", "full",
                    "--gpu", gid])
        infer = run(["--batch", "1", "--mode", "infer", "--precision", "bf16", "--gpu", gid])
        qlora = run(["--batch", "1", "--precision", "bf16", "--lora-rank", "16", "--qlora", "--checkpointing", "full",
                     "--gpu", gid])
        n_params = full["params"]
        cap = full["gpu_memory_bytes"]
        need_gpus = None
        for n in (2, 4, 8, 16, 32, 64, 128, 256):
            z = run(["--batch", str(n), "--micro-batch", "1", "--precision", "amp-bf16", "--checkpointing", "full",
                     "--dp", str(n), "--zero", "3", "--gpu", gid, "--gpus", str(n)])
            if z["fits"]:
                need_gpus = (n, z["memory_bytes"]["total"])
                break
        c.fact("parameters of the LLaMA-like config (computed)", "类 LLaMA 配置的参数量（计算）", sig(n_params, 4))
        c.fact(f"`{gid}` memory", f"`{gid}` 显存", gb(cap))
        c.fact("full training, AMP + AdamW, batch 1, full checkpointing", "全量训练，AMP + AdamW，batch 1，完全重计算",
               f"{gb(full['memory_bytes']['total'])} ({'fits' if full['fits'] else 'does not fit'})")
        c.fact("  of which weights + gradients + optimizer states", "  其中权重 + 梯度 + 优化器状态",
               gb(sum(full["memory_bytes"][k] for k in ("weights", "gradients", "optimizer"))))
        c.fact("inference in bf16, batch 1", "bf16 推理，batch 1",
               f"{gb(infer['memory_bytes']['total'])} ({'fits' if infer['fits'] else 'does not fit'})")
        c.fact("QLoRA fine-tuning (4-bit base, rank 16)", "QLoRA 微调（4 位底座，rank 16）",
               f"{gb(qlora['memory_bytes']['total'])} ({'fits' if qlora['fits'] else 'does not fit'})")
        if need_gpus:
            c.fact("fewest GPUs for full training with ZeRO-3 (powers of two)", "ZeRO-3 全量训练所需最少 GPU 数（2 的幂）",
                   f"{need_gpus[0]} ({gb(need_gpus[1])} per GPU)")
        c.verdict = "wrong" if not full["fits"] else "correct"
        ratio = full["memory_bytes"]["total"] / cap
        states = sum(full["memory_bytes"][k] for k in ("weights", "gradients", "optimizer")) / n_params
        layers, hidden = cfg["num_hidden_layers"], cfg["hidden_size"]
        n_txt = f"{need_gpus[0]}" if need_gpus else "more than 256"
        c.short["en"] = (f"Full training needs {gb(full['memory_bytes']['total'])}, {sig(ratio, 2)}× the card; "
                         f"even bf16 inference needs {gb(infer['memory_bytes']['total'])}. "
                         f"{'Only QLoRA fine-tuning fits.' if qlora['fits'] else ''}")
        c.short["zh"] = (f"全量训练需要 {gb(full['memory_bytes']['total'])}，是显存的 {sig(ratio, 2)} 倍；连 bf16 推理也要 "
                         f"{gb(infer['memory_bytes']['total'])}。{'只有 QLoRA 微调放得下。' if qlora['fits'] else ''}")
        c.reason["en"] = (
            f"A LLaMA-style configuration with {sig(n_params, 3)} parameters (shown below; {layers} layers, hidden size "
            f"{hidden}, grouped-query attention) needs {gb(full['memory_bytes']['total'])} per GPU to train with AMP and AdamW "
            f"even at batch 1 with full activation checkpointing: FP32 weights and gradients, AdamW's two states and the "
            f"16-bit weight copy come to {sig(states, 3)} bytes per parameter. The weights alone in bf16 "
            f"({gb(infer['memory_bytes']['weights'])}) exceed {gb(cap)}. With ZeRO-3 sharding the model states, "
            f"gpuplan finds the first power of two that fits at {n_txt} H100s. What does fit on one card is QLoRA "
            f"fine-tuning: a frozen 4-bit base with small adapters, {gb(qlora['memory_bytes']['total'])} — that is "
            f"fine-tuning, not training the model.")
        c.reason["zh"] = (
            f"一个 {sig(n_params, 3)} 参数的类 LLaMA 配置（见下文；{layers} 层、隐藏维 {hidden}、分组查询注意力）用 AMP 和 AdamW 训练，"
            f"即使 batch 1 并开启完全激活重计算，每张卡也需要 {gb(full['memory_bytes']['total'])}：FP32 权重和梯度、AdamW 的两个"
            f"状态以及 16 位权重副本合计每参数 {sig(states, 3)} 字节。光是 bf16 权重（{gb(infer['memory_bytes']['weights'])}）就超过了 "
            f"{gb(cap)}。用 ZeRO-3 切分模型状态后，gpuplan 在 2 的幂中找到的最少卡数是 {n_txt} 张 H100。单卡能放下的是 "
            f"QLoRA 微调：冻结的 4 位底座加小适配器，{gb(qlora['memory_bytes']['total'])}——那是微调，不是训练整个模型。")
        return c

    def gpt3(self):
        c = Claim(7, "gpt-3-on-an-a100-cluster", "GPT-3 trains on an A100 cluster at 120 TFLOPS per node.",
                  "在 A100 集群上训练 GPT-3，每个节点 120 TFLOPS。")
        inst = "aws-p4de.24xlarge"
        if inst not in self.site.instances:
            raise BuildError(f"guide check: instance {inst} is not in the catalog")
        per_node = self.site.instances[inst]["gpu_count"]
        nodes, tp, pp = 16, 8, 16
        args = ["estimate", "--model", "gpt3-175b", "--instance", inst, "--nodes", str(nodes), "--tp", str(tp), "--pp",
                str(pp), "--batch", "1536", "--micro-batch", "1", "--seq", "2048", "--precision", "amp-bf16",
                "--checkpointing", "full"]
        e = self.run(c, args)
        t = e["time"]
        per_gpu = t["mfu"] * t["peak_flop_per_s"]
        node = per_gpu * per_node
        c.fact("setup", "配置", f"{nodes} × `{inst}` ({nodes * per_node} GPUs), tensor ×{tp}, pipeline ×{pp}, "
               f"batch 1536 × 2048 tokens (Brown et al. 2020, table 2.1)")
        c.fact("fits in memory", "显存是否放得下", "yes" if e["fits"] else "no")
        c.fact("predicted step time", "预测的步时间", duration(t["step_s"]))
        c.fact("model FLOPs utilisation", "模型算力利用率（MFU）", pct(t["mfu"]))
        c.fact("model FLOP/s per GPU", "每张 GPU 的模型算力", tflops(per_gpu))
        c.fact(f"model FLOP/s per node ({per_node} GPUs)", f"每节点（{per_node} 张 GPU）的模型算力", tflops(node))
        per_gpu_ok = abs(per_gpu / 120e12 - 1) < 0.25
        c.verdict = "qualified" if per_gpu_ok else "wrong"
        c.short["en"] = (f"Plausible per GPU (gpuplan: {tflops(per_gpu)}), not per node: an {per_node}-GPU node "
                         f"delivers about {tflops(node)}.")
        c.short["zh"] = (f"按每张 GPU 算是合理的（gpuplan：{tflops(per_gpu)}），按节点算则不对：{per_node} 卡节点约为 "
                         f"{tflops(node)}。")
        c.reason["en"] = (
            f"For a Megatron-style 3D-parallel run of the {sig(e['params'], 3)}-parameter model on {nodes} p4de nodes, gpuplan "
            f"predicts an MFU of {pct(t['mfu'])} of the A100's dense BF16 peak, i.e. {tflops(per_gpu)} of model FLOPs per "
            f"GPU. 120 TFLOPS is therefore a fair per-GPU figure, but a node holds {per_node} GPUs and delivers about "
            f"{tflops(node)}; using 120 TFLOPS per node would overstate training time about {sig(node / 120e12, 2)}-fold.")
        c.reason["zh"] = (
            f"在 {nodes} 个 p4de 节点上以 Megatron 式三维并行训练 {sig(e['params'], 3)} 参数的模型，gpuplan 预测 MFU 为 A100 BF16 稠密峰值的 "
            f"{pct(t['mfu'])}，即每张 GPU {tflops(per_gpu)} 的模型算力。所以 120 TFLOPS 作为每卡数字是合理的，但一个节点有 "
            f"{per_node} 张 GPU，约 {tflops(node)}；按每节点 120 TFLOPS 估算会把训练时间高估约 {sig(node / 120e12, 2)} 倍。")
        return c

    def resnet18_t4(self):
        c = Claim(8, "resnet-18-on-a-t4", "One ImageNet epoch of ResNet-18 takes 4 hours on a T4.",
                  "在 T4 上用 ImageNet 训练 ResNet-18，一个 epoch 需要 4 小时。")
        inst = "aws-g4dn.xlarge"
        common = ["estimate", "--model", "resnet18", "--batch", "256", "--instance", inst, "--epochs", "1",
                  "--dataset-size", str(IMAGENET_TRAIN_IMAGES)]
        fp32 = self.run(c, common + ["--precision", "fp32"])
        amp = self.run(c, common + ["--precision", "amp-fp16"])
        vcpus = self.site.instances[inst]["vcpus"]
        claimed_h = 4.0
        need_rate = IMAGENET_TRAIN_IMAGES / (claimed_h * 3600)
        c.fact("ImageNet-1k training images (ILSVRC-2012; Russakovsky et al. 2015)", "ImageNet-1k 训练图片数（ILSVRC-2012；Russakovsky 等 2015）",
               f"{IMAGENET_TRAIN_IMAGES:,}")
        c.fact(f"`{inst}`: 1 × T4, vCPUs", f"`{inst}`：1 × T4，vCPU 数", str(vcpus))
        for name, e in (("FP32", fp32), ("AMP (FP16)", amp)):
            t = e["time"]
            c.fact(f"{name}: images/s the GPU could take / the vCPUs decode",
                   f"{name}：GPU 能处理 / vCPU 能解码的图片数每秒",
                   f"{sig(t['input_needed_samples_per_s'], 4)} / {sig(t['input_capacity_samples_per_s'], 4)}"
                   f"{' (input-bound)' if t['input_bound'] else ''}")
            c.fact(f"{name}: predicted epoch", f"{name}：预测的一个 epoch", duration(e["cost"]["hours"] * 3600))
        c.fact("images/s that 4 h per epoch implies", "4 小时一个 epoch 对应的图片数每秒", sig(need_rate, 3))
        errs = [r["error"] for r in (self.site.validation or {}).get("rows", []) if r["model"] in ("resnet50", "resnet18")]
        slow = fp32["cost"]["hours"]
        ratio = claimed_h / slow
        c.verdict = "wrong" if ratio > 2 or ratio < 0.5 else "qualified"
        c.short["en"] = (f"gpuplan predicts {duration(slow * 3600)} in FP32 and {duration(amp['cost']['hours'] * 3600)} "
                         f"with AMP; 4 h is {sig(ratio, 2)}× the FP32 prediction.")
        c.short["zh"] = (f"gpuplan 预测 FP32 为 {duration(slow * 3600)}，AMP 为 {duration(amp['cost']['hours'] * 3600)}；"
                         f"4 小时是 FP32 预测的 {sig(ratio, 2)} 倍。")
        err_txt = (f" On the published ResNet-50 measurements, gpuplan's throughput error ranges from "
                   f"{pct(min(errs), 2)} to {pct(max(errs), 2)}, so treat these as optimistic estimates." if errs else "")
        err_zh = (f"在已公开的 ResNet-50 实测数据上，gpuplan 的吞吐误差在 {pct(min(errs), 2)} 到 {pct(max(errs), 2)} 之间，"
                  f"这些数字应视为偏乐观的估计。" if errs else "")
        c.reason["en"] = (
            f"At batch 256 on a g4dn.xlarge (one T4, {vcpus} vCPUs) gpuplan predicts an epoch of "
            f"{duration(slow * 3600)} in FP32 and {duration(amp['cost']['hours'] * 3600)} with AMP; with AMP the GPU "
            f"outruns JPEG decoding on {vcpus} vCPUs, which then sets the pace. Four hours per epoch means "
            f"{sig(need_rate, 3)} images/s, {sig(ratio, 2)}× slower than the FP32 prediction: it fits a slow input "
            f"pipeline (few workers, data read from network storage), not the GPU.{err_txt}")
        c.reason["zh"] = (
            f"在 g4dn.xlarge（1 张 T4、{vcpus} 个 vCPU）上以 batch 256 训练，gpuplan 预测一个 epoch FP32 需 {duration(slow * 3600)}，"
            f"AMP 需 {duration(amp['cost']['hours'] * 3600)}；开 AMP 后 GPU 比 {vcpus} 个 vCPU 的 JPEG 解码更快，瓶颈变成数据管道。"
            f"4 小时一个 epoch 相当于每秒 {sig(need_rate, 3)} 张图，比 FP32 预测慢 {sig(ratio, 2)} 倍：这对应的是很慢的数据管道"
            f"（worker 太少、从网络存储读数据），而不是 GPU 本身。{err_zh}")
        return c

    def bert_glue(self):
        c = Claim(9, "bert-base-glue-on-an-a40", "Fine-tuning BERT-base on GLUE takes 12 hours on an A40.",
                  "在 A40 上用 GLUE 微调 BERT-base 需要 12 小时。")
        inst = "runpod-secure-cloud-1x-a40-48gb"
        if inst not in self.site.instances:
            raise BuildError(f"guide check: instance {inst} is not in the catalog")
        common = ["estimate", "--model", "bert-base", "--batch", "32", "--seq", "128", "--instance", inst, "--epochs",
                  str(BERT_FINETUNE_EPOCHS), "--dataset-size", str(MNLI_TRAIN_EXAMPLES)]
        fp32 = self.run(c, common + ["--precision", "fp32"])
        amp = self.run(c, common + ["--precision", "amp-fp16"])
        claimed_h = 12.0
        c.fact("MNLI training examples, GLUE's largest task (Williams et al. 2018)", "MNLI 训练样本数（GLUE 最大的任务；Williams 等 2018）",
               f"{MNLI_TRAIN_EXAMPLES:,}")
        c.fact("epochs, batch (Devlin et al. 2018, sec. 4.1), sequence length", "epoch 数、batch（Devlin 等 2018）、序列长度",
               f"{BERT_FINETUNE_EPOCHS}, 32, 128")
        for name, e in (("FP32", fp32), ("AMP (FP16)", amp)):
            c.fact(f"{name}: predicted samples/s and time", f"{name}：预测的样本每秒与总时间",
                   f"{sig(e['time']['samples_per_s'], 4)}; {duration(e['cost']['hours'] * 3600)} "
                   f"({'$' + format(e['cost']['usd_total'], ',.2f') if 'usd_total' in e['cost'] else 'no price'})")
        epochs_in_12h = claimed_h * 3600 * fp32["time"]["samples_per_s"] / MNLI_TRAIN_EXAMPLES
        c.fact("MNLI epochs that 12 h buys in FP32", "12 小时在 FP32 下能跑的 MNLI epoch 数", sig(epochs_in_12h, 3))
        ratio = claimed_h / fp32["cost"]["hours"]
        c.verdict = "wrong" if ratio > 2 or ratio < 0.5 else "qualified"
        c.short["en"] = (f"The largest GLUE task, MNLI, takes {duration(fp32['cost']['hours'] * 3600)} (FP32) or "
                         f"{duration(amp['cost']['hours'] * 3600)} (AMP) for {BERT_FINETUNE_EPOCHS} epochs.")
        c.short["zh"] = (f"GLUE 最大的任务 MNLI 跑 {BERT_FINETUNE_EPOCHS} 个 epoch 需 {duration(fp32['cost']['hours'] * 3600)}"
                         f"（FP32）或 {duration(amp['cost']['hours'] * 3600)}（AMP）。")
        c.reason["en"] = (
            f"Fine-tuning as in the BERT paper ({BERT_FINETUNE_EPOCHS} epochs, batch 32, 128 tokens) on MNLI, which holds "
            f"most of GLUE's training data, takes {duration(fp32['cost']['hours'] * 3600)} in FP32 and "
            f"{duration(amp['cost']['hours'] * 3600)} with AMP on one A40 by gpuplan's estimate. In 12 hours the FP32 run "
            f"could make {sig(epochs_in_12h, 2)} passes over MNLI. gpuplan models BERT-base with its masked-LM head, "
            f"which costs more than GLUE's small classifier head, so the real runs are, if anything, a little faster. "
            f"12 hours would fit running every GLUE task several times (a hyper-parameter search), not one fine-tuning.")
        c.reason["zh"] = (
            f"按 BERT 论文的做法（{BERT_FINETUNE_EPOCHS} 个 epoch、batch 32、128 个 token）在 MNLI（占 GLUE 训练数据的大部分）上微调，"
            f"gpuplan 估计单张 A40 FP32 需 {duration(fp32['cost']['hours'] * 3600)}，AMP 需 {duration(amp['cost']['hours'] * 3600)}。"
            f"12 小时内 FP32 能把 MNLI 跑 {sig(epochs_in_12h, 2)} 遍。gpuplan 按带掩码语言模型头的 BERT-base 计算，"
            f"比 GLUE 的小分类头更耗算力，所以实际只会更快一些。12 小时对应的是把所有 GLUE 任务各跑多次（超参数搜索），而不是一次微调。")
        return c

    def instance(self, cid, provider, family, name_en, name_zh):
        c = Claim(cid, f"instance-{family.lower()}", f"{name_en} is a GPU instance to rent for training.",
                  f"{name_zh} 是可以租来训练的 GPU 实例。")
        c.commands.append(self.cli.display(["instances", "--provider", provider]) + " --json")

        def fam(instance_type):
            t = instance_type.lower()
            t = t[4:] if t.startswith("ecs.") else t
            return re.split(r"[.\-]", t)[0]
        found = sorted(i for i in self.site.instances.values()
                       if i["provider"] == provider and fam(i["instance_type"]) == family.lower())
        if not found:
            c.verdict = "unknown"
            c.fact("instances of this family in the catalog", "目录中该系列的实例", "none (not in catalog)")
            c.short["en"] = "Not in catalog: gpuplan has no sourced facts about this instance family."
            c.short["zh"] = "目录中没有：gpuplan 没有关于该实例系列的有出处的数据。"
            c.reason["en"] = (f"`data/instances/` has no {provider} instance of the {family} family, so gpuplan cannot "
                              f"say which GPU it carries or what it costs. Check the provider's own instance page.")
            c.reason["zh"] = (f"`data/instances/` 中没有 {provider} 的 {family} 系列实例，gpuplan 无法说明它搭载哪种 GPU、"
                              f"价格多少。请查看云厂商自己的实例说明页。")
            return c
        c.verdict = "catalog"
        parts_en, parts_zh = [], []
        for i in found:
            gpu = self.site.gpus[i["gpu"]]
            gname = gpu["name"]
            src = self.site.instances_data[i["id"]]
            sref = src.get("sources", {}).get(src.get("gpu_source", ""), {})
            c.fact(f"`{i['id']}`", f"`{i['id']}`",
                   f"{i['gpu_count']} × {gname}, {i['vcpus']} vCPUs (source: {sref.get('title', '?')}, {sref.get('date', '?')})")
            parts_en.append(f"`{i['instance_type']}` carries {i['gpu_count']} × {gname}")
            parts_zh.append(f"`{i['instance_type']}` 搭载 {i['gpu_count']} × {gname}")
        c.short["en"] = "; ".join(parts_en) + "."
        c.short["zh"] = "；".join(parts_zh) + "。"
        c.reason["en"] = ("In the catalog: " + "; ".join(parts_en) + ". Its prices are on the Data page, with their "
                          "dates.")
        c.reason["zh"] = "目录中有：" + "；".join(parts_zh) + "。价格及日期见“数据”页（英文）。"
        return c


def check_all(site):
    ch = Checker(site)
    claims = [ch.resnet50(), ch.a100_bandwidth(), ch.t4_fp16(), ch.h100_fp8(), ch.amp(), ch.h100_100b(), ch.gpt3(),
              ch.resnet18_t4(), ch.bert_glue(),
              ch.instance(10, "alibaba", "GN6i", "Alibaba Cloud GN6i", "阿里云 GN6i"),
              ch.instance(11, "tencent", "GN10Xp", "Tencent Cloud GN10Xp", "腾讯云 GN10Xp"),
              ch.instance(12, "aws", "P4d", "AWS P4d", "AWS P4d")]
    site.config_100b = ch.config_100b
    return claims


def render_table(claims, lang):
    head = {"en": ["#", "the guide says", "verdict", "why"], "zh": ["#", "指南原文", "结论", "原因"]}[lang]
    rows = []
    for c in claims:
        v = VERDICTS[c.verdict][0 if lang == "en" else 1]
        rows.append([f"[{c.id}](#{c.anchor})", c.claim[lang], f"{ICONS[c.verdict]} {v}", c.short[lang]])
    return table(head, rows)


def render_details(claims, lang):
    out = []
    for c in claims:
        v = VERDICTS[c.verdict][0 if lang == "en" else 1]
        title = TITLES[c.id][0 if lang == "en" else 1]
        out.append(f"### {c.id}. {title} {{ #{c.anchor} }}\n")
        quote = "The guide says: " if lang == "en" else "指南原文："
        out.append(f"> {quote}{c.claim[lang]}\n")
        out.append(f"**{ICONS[c.verdict]} {v}{'.' if lang == 'en' else '。'}** {c.reason[lang]}\n")
        rows = [[en if lang == "en" else zh, val] for en, zh, val in c.facts]
        out.append(table(["computed" if lang == "en" else "计算结果", "value" if lang == "en" else "数值"], rows))
        if c.commands:
            cmds = "\n".join(dict.fromkeys(c.commands))
            label = "Commands" if lang == "en" else "所用命令"
            out.append(f'\n??? note "{label}"\n' + "\n".join("    " + ln for ln in
                                                            ("```sh\n" + cmds + "\n```").splitlines()) + "\n")
        out.append("")
    return "\n".join(out)
