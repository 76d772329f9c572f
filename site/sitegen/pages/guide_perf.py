"""The guide's performance claims (FLOPs, peaks, memory, bandwidth, times, speed-ups), each
recomputed with the CLI. Numbers typed here are the guide's own; see guide.py."""

import json
import os

from .. import BuildError
from ..facts import BERT_FINETUNE_EPOCHS, IMAGENET_TRAIN_IMAGES, MNLI_TRAIN_EXAMPLES, measured_rows
from ..format import duration, gb, pct, sig, tflops, times

A100_40 = "a100-sxm4-40gb"
A100_80 = "a100-sxm4-80gb"
H100 = "h100-sxm5-80gb"


def close(value, claimed, tol):
    return value is not None and abs(value / claimed - 1) <= tol


def span(values, f):
    return f"{f(min(values))}–{f(max(values))}"


class Checks:
    def __init__(self, site, claim_type):
        self.site, self.cat, self.cli = site, site.cat, site.cli
        self.Claim = claim_type
        self.config_100b = None

    def claim(self, key):
        return self.Claim(key, self.cli)

    def peak(self, gid, prec):
        v = self.cat.dense_peak(gid, prec)
        if v is None:
            raise BuildError(f"guide check: GPU {gid} has no dense {prec} peak in the catalog")
        return v

    def resnet50(self):
        c = self.claim("resnet50-flops")
        claimed_flops, claimed_peak = 3.8e9, 19.5e12
        e1 = c.run(["estimate", "--model", "resnet50", "--batch", "1"])
        e256 = c.run(["estimate", "--model", "resnet50", "--batch", "256", "--gpu", A100_40])
        eb1 = c.run(["estimate", "--model", "resnet50", "--batch", "1", "--gpu", A100_40])
        fwd = e1["flops"]["forward_per_sample"]
        macs = e1["flops"]["forward_matmul_per_sample"] / 2
        fp32, tf32 = self.peak(A100_40, "fp32"), self.peak(A100_40, "tf32")
        step = e256["time"]["step_s"]
        guide_s = claimed_flops / claimed_peak
        c.fact("fwd", sig(fwd))
        c.fact("macs", sig(macs))
        c.fact("train", sig(e256["flops"]["train_per_step"] / 256))
        c.fact("peaks", f"{tflops(fp32)} / {tflops(tf32)}", gpu=A100_40)
        c.fact("guide", duration(guide_s))
        c.fact("fwd_at_peak", duration(fwd / fp32))
        c.fact("step256", f"{duration(step)} ({duration(step / 256)} / image)")
        c.fact("step1", duration(eb1["time"]["step_s"]))
        c.verdict = "wrong" if step / 256 > 2 * guide_s else "qualified"
        c.ctx = dict(fwd=fwd, macs=macs, counts_macs=close(macs, claimed_flops, 0.15), res=e1["resolution"],
                     bwd=e256["flops"]["backward_per_step"] / e256["flops"]["forward_per_step"],
                     per_image=e256["flops"]["train_per_step"] / 256, tf32=tf32, step=step,
                     ratio=step / 256 / guide_s, step1=eb1["time"]["step_s"])
        return c

    def bert_large_memory(self):
        """Training BERT-large at the batch sizes and lengths its papers use, against 20 GB."""
        c = self.claim("bert-large-memory")
        setups = [("8", "128", "amp-fp16"), ("32", "128", "amp-fp16"), ("32", "512", "amp-fp16"),
                  ("32", "512", "fp32")]
        totals = []
        for batch, seq, prec in setups:
            e = c.run(["estimate", "--model", "bert-large", "--batch", batch, "--seq", seq, "--precision", prec,
                       "--optimizer", "adamw"])
            totals.append(e["memory_bytes"]["total"])
            c.fact("setup", gb(e["memory_bytes"]["total"]), batch=batch, seq=seq, prec=prec)
        states = e["memory_bytes"]["weights"] + e["memory_bytes"]["gradients"] + e["memory_bytes"]["optimizer"]
        c.fact("states", gb(states))
        over = [t > 20e9 for t in totals]
        c.verdict = "correct" if all(over) else "qualified" if any(over) else "wrong"
        c.ctx = dict(lo=min(totals), hi=max(totals), states=states, params=e["params"], n_over=sum(over),
                     n=len(totals))
        return c

    def h100_100b(self):
        c = self.claim("h100-100b")
        cfg = {"_name_or_path": "llama-like-100b", "architectures": ["LlamaForCausalLM"], "model_type": "llama",
               "hidden_size": 10240, "intermediate_size": 27648, "num_hidden_layers": 96, "num_attention_heads": 80,
               "num_key_value_heads": 8, "vocab_size": 32000, "max_position_embeddings": 4096,
               "tie_word_embeddings": False}
        path = os.path.join(self.site.args.work, "llama-like-100b.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(cfg, f, indent=2)
        self.config_100b = cfg

        def run(extra):
            c.commands.append(self.cli.display(["estimate", "--hf-config", "llama-like-100b.json", "--seq", "2048"] +
                                               extra) + " --json")
            return self.cli.json(["estimate", "--hf-config", path, "--seq", "2048"] + extra)
        full = run(["--batch", "1", "--precision", "amp-bf16", "--optimizer", "adamw", "--checkpointing", "full",
                    "--gpu", H100])
        infer = run(["--batch", "1", "--mode", "infer", "--precision", "bf16", "--gpu", H100])
        qlora = run(["--batch", "1", "--precision", "bf16", "--lora-rank", "16", "--qlora", "--checkpointing", "full",
                     "--gpu", H100])
        need = None
        for n in (2, 4, 8, 16, 32, 64, 128, 256):
            z = run(["--batch", str(n), "--micro-batch", "1", "--precision", "amp-bf16", "--checkpointing", "full",
                     "--dp", str(n), "--zero", "3", "--gpu", H100, "--gpus", str(n)])
            if z["fits"]:
                need = (n, z["memory_bytes"]["total"])
                break
        cap = self.cat.memory(H100)
        mem = full["memory_bytes"]
        states = sum(mem[k] for k in ("weights", "gradients", "optimizer"))
        c.fact("params", sig(full["params"], 4))
        c.fact("capacity", f"{gb(cap)} ({sig(cap / 2**30, 3)} GiB)", gpu=H100)
        c.fact("full", gb(mem["total"]), fits=full["fits"])
        c.fact("states", gb(states))
        c.fact("infer", gb(infer["memory_bytes"]["total"]), fits=infer["fits"])
        c.fact("qlora", gb(qlora["memory_bytes"]["total"]), fits=qlora["fits"])
        if need:
            c.fact("zero3", f"{need[0]} ({gb(need[1])} / GPU)")
        c.verdict = "correct" if full["fits"] else "wrong"
        c.ctx = dict(params=full["params"], cap=cap, cap_gib=cap / 2**30, full=mem["total"], ratio=mem["total"] / cap,
                     infer=infer["memory_bytes"]["total"], weights=infer["memory_bytes"]["weights"],
                     qlora=qlora["memory_bytes"]["total"], qlora_fits=qlora["fits"], need=need[0] if need else None,
                     per_param=states / full["params"], layers=cfg["num_hidden_layers"], hidden=cfg["hidden_size"],
                     capacity_ok=close(cap / 2**30, 80, 0.03) or close(cap / 1e9, 80, 0.03))
        return c

    def a100_bandwidth(self):
        c = self.claim("a100-bandwidth")
        c.commands.append(self.cli.display(["gpus"]) + " --json")
        a100 = {gid: self.cat.bandwidth(gid) for gid in sorted(self.cat.gpus)
                if gid.startswith("a100") and self.cat.bandwidth(gid)}
        at900 = sorted(gid for gid in self.cat.gpus if close(self.cat.bandwidth(gid), 900e9, 0.01))
        for gid, bw in a100.items():
            c.fact("bw", f"{sig(bw / 1e9, 4)} GB/s", gpu=gid)
        c.fact("at900", ", ".join(f"`{g}`" for g in at900) or "–")
        c.fact("need", f"{sig(1.8e12 / 900e9, 2)}×")
        lo, hi = min(a100.values()), max(a100.values())
        c.verdict = "correct" if any(close(bw, 900e9, 0.01) for bw in a100.values()) else "wrong"
        c.ctx = dict(lo=lo, hi=hi, at900=at900, v100=bool(at900) and all(g.startswith("v100") for g in at900),
                     reach_18=[g for g, bw in a100.items() if bw >= 1.8e12])
        return c

    def t4_fp16(self):
        c = self.claim("t4-fp16")
        c.commands.append(self.cli.display(["gpus"]) + " --json")
        fp16, fp32 = self.peak("t4", "fp16"), self.peak("t4", "fp32")
        eff = self.cat.assumption("gemm_efficiency")
        c.fact("fp16", tflops(fp16))
        c.fact("fp32", tflops(fp32))
        c.fact("eff", pct(eff))
        c.verdict = "qualified" if close(fp16, 65e12, 0.02) else "wrong"
        c.ctx = dict(fp16=fp16, fp32=fp32, eff=eff, bw=self.cat.bandwidth("t4"))
        return c

    def a40_fp32(self):
        c = self.claim("a40-fp32")
        c.commands.append(self.cli.display(["gpus"]) + " --json")
        fp32, tf32, bf16 = (self.cat.dense_peak("a40", p) for p in ("fp32", "tf32", "bf16"))
        c.fact("fp32", tflops(fp32))
        c.fact("tf32", tflops(tf32) if tf32 else "–")
        c.fact("bf16", tflops(bf16) if bf16 else "–")
        e = c.run(["estimate", "--model", "bert-base", "--batch", "32", "--seq", "128", "--gpu", "a40",
                   "--precision", "fp32"])
        c.fact("mfu", f"{pct(e['time']['mfu'])} ({tflops(e['time']['mfu'] * e['time']['peak_flop_per_s'])})")
        c.verdict = "qualified" if close(fp32, 37.4e12, 0.02) else "wrong"
        c.ctx = dict(fp32=fp32, tf32=tf32, bf16=bf16, mfu=e["time"]["mfu"],
                     achieved=e["time"]["mfu"] * e["time"]["peak_flop_per_s"])
        return c

    def h100_fp8(self):
        c = self.claim("h100-fp8")
        c.commands.append(self.cli.display(["gpus"]) + " --json")
        rows = {gid: (self.cat.dense_peak(gid, "fp8"), self.cat.sparse_peak(gid, "fp8"))
                for gid in sorted(g for g in self.cat.gpus if g.startswith("h100"))}
        for gid, (dense, sparse) in rows.items():
            c.fact("fp8", f"{tflops(dense, 4) if dense else '–'} / {tflops(sparse, 4) if sparse else '–'}", gpu=gid)
        dense_match = [g for g, (d, s) in rows.items() if close(d, 1979e12, 0.01)]
        sparse_match = [g for g, (d, s) in rows.items() if close(s, 1979e12, 0.01)]
        c.verdict = "qualified" if dense_match else "misleading" if sparse_match else "wrong"
        g = (dense_match or [None])[0]
        c.ctx = dict(gpu=g, dense=rows[g][0] if g else None, sparse=rows[g][1] if g else None,
                     others=[(k, d) for k, (d, s) in rows.items() if k != g and d])
        return c

    def amp(self):
        c = self.claim("amp")
        workloads = [("resnet50", ["--batch", "256"]), ("bert-large", ["--batch", "64", "--seq", "128"]),
                     ("gpt2-small", ["--batch", "8", "--seq", "1024"])]
        vs_fp32, vs_tf32, saved = [], [], []
        for mid, extra in workloads:
            r = {p: c.run(["estimate", "--model", mid] + extra + ["--precision", p, "--gpu", A100_80])
                 for p in ("fp32", "tf32", "amp-bf16")}
            step = {p: r[p]["time"]["step_s"] for p in r}
            mem = {p: r[p]["memory_bytes"]["total"] for p in r}
            vs_fp32.append(step["fp32"] / step["amp-bf16"])
            vs_tf32.append(step["tf32"] / step["amp-bf16"])
            saved.append(1 - mem["amp-bf16"] / mem["fp32"])
            c.fact("workload", f"{times(vs_fp32[-1], 3)} / {times(vs_tf32[-1], 3)}; {pct(saved[-1], 2)} "
                   f"({gb(mem['fp32'])} → {gb(mem['amp-bf16'])})", model=mid, setup=" ".join(extra))
        measured = self.measured_amp(c)
        speeds = vs_fp32 + vs_tf32
        ok = min(speeds) <= 3 <= max(speeds) and min(saved) <= 0.5 <= max(saved) and max(vs_tf32) >= 3
        c.verdict = "qualified" if ok else "misleading"
        c.ctx = dict(vs_fp32=span(vs_fp32, times), vs_tf32=span(vs_tf32, times), saved=span(saved, lambda v: pct(v, 2)),
                     measured=span(measured, times) if measured else None)
        return c

    def measured_amp(self, c):
        """AMP over TF32 on one A100 in the published measurements (NVIDIA DeepLearningExamples)."""
        rows, out = measured_rows(), []
        same = ("model", "gpu", "num_gpus", "task", "seq_len_or_resolution")
        for a in rows:
            if not (a["gpu"].startswith("a100") and a["num_gpus"] == "1" and a["precision"] == "tf32"
                    and a["task"] == "train"):
                continue
            for b in rows:
                if all(a[k] == b[k] for k in same) and b["precision"] == "amp-fp16":
                    out.append(float(b["value"]) / float(a["value"]))
                    c.fact("measured", f"{times(out[-1], 3)} ({a['value']} → {b['value']})", a=a["id"], b=b["id"],
                           model=a["model"], gpu=a["gpu"])
        return out

    def h100_vs_v100(self):
        """The same 8-GPU data-parallel training on an H100 node and a V100 node (AMP FP16, which
        both support), step time against step time."""
        c = self.claim("h100-vs-v100")
        base = ["estimate", "--model", "gpt2-medium", "--batch", "64", "--micro-batch", "8", "--seq", "1024",
                "--precision", "amp-fp16", "--dp", "8"]
        nodes = {"h100": "aws-p5.48xlarge", "v100": "aws-p3dn.24xlarge"}
        step = {}
        for key, inst in nodes.items():
            e = c.run(base + ["--instance", inst])
            step[key] = e["time"]["step_s"]
            c.fact("step", f"{duration(step[key])} (MFU {pct(e['time']['mfu'])})", inst=inst)
        ratio = step["v100"] / step["h100"]
        peak = self.peak(H100, "fp16") / self.peak("v100-sxm2-32gb", "fp16")
        c.fact("ratio", times(ratio))
        c.fact("peak_ratio", times(peak))
        c.verdict = "correct" if close(ratio, 6, 0.25) else "qualified" if close(ratio, 6, 0.5) else "wrong"
        c.ctx = dict(ratio=ratio, peak=peak, bw=self.cat.bandwidth(H100) / self.cat.bandwidth("v100-sxm2-32gb"),
                     nodes=nodes)
        return c

    def dali(self):
        """DALI decodes JPEGs on the GPU. Faster input helps training only where the step waits for
        input, and at most by the ratio of what the GPU could take to what the CPUs decode."""
        c = self.claim("dali")
        bounds = []
        for inst in ("aws-g4dn.xlarge", "aws-g6.xlarge", "aws-p3.2xlarge", "aws-p4d.24xlarge"):
            for model in ("resnet50", "resnet18"):
                e = c.run(["estimate", "--model", model, "--batch", "256", "--precision", "amp-fp16",
                           "--instance", inst])
                t = e["time"]
                bound = max(1.0, t["input_needed_samples_per_s"] / t["input_capacity_samples_per_s"])
                bounds.append(bound)
                c.fact("inst", f"{sig(t['input_needed_samples_per_s'], 4)} / "
                       f"{sig(t['input_capacity_samples_per_s'], 4)} → ≤ {times(bound)}", inst=inst, model=model)
        c.verdict = "qualified" if max(bounds) >= 5 else "misleading"
        c.ctx = dict(lo=min(bounds), hi=max(bounds), rate=self.cat.assumption("jpeg_decode_images_per_s_per_core"))
        return c

    def gpt3(self):
        c = self.claim("gpt3-120")
        inst = "aws-p4de.24xlarge"
        if inst not in self.cat.instances:
            raise BuildError(f"guide check: instance {inst} is not in the catalog")
        per_node = self.cat.instances[inst]["gpu_count"]
        e = c.run(["estimate", "--model", "gpt3-175b", "--instance", inst, "--nodes", "16", "--tp", "8", "--pp", "16",
                   "--batch", "1536", "--micro-batch", "1", "--seq", "2048", "--precision", "amp-bf16",
                   "--checkpointing", "full"])
        t = e["time"]
        per_gpu = t["mfu"] * t["peak_flop_per_s"]
        c.fact("setup", "16 × 8, TP 8, PP 16, 1536 × 2048", inst=inst)
        c.fact("fits", "✔" if e["fits"] else "✘")
        c.fact("step", duration(t["step_s"]))
        c.fact("mfu", pct(t["mfu"]))
        c.fact("per_gpu", tflops(per_gpu))
        c.fact("per_node", tflops(per_gpu * per_node), n=per_node)
        c.verdict = "qualified" if close(per_gpu, 120e12, 0.25) else "wrong"
        c.ctx = dict(per_gpu=per_gpu, node=per_gpu * per_node, per_node=per_node, params=e["params"], mfu=t["mfu"])
        return c

    def resnet18_t4(self):
        c = self.claim("resnet18-t4")
        inst = "aws-g4dn.xlarge"
        common = ["estimate", "--model", "resnet18", "--batch", "256", "--instance", inst, "--epochs", "1",
                  "--dataset-size", str(IMAGENET_TRAIN_IMAGES)]
        runs = {"FP32": c.run(common + ["--precision", "fp32"]), "AMP": c.run(common + ["--precision", "amp-fp16"])}
        vcpus = self.cat.instances[inst]["vcpus"]
        c.fact("images", f"{IMAGENET_TRAIN_IMAGES:,}")
        c.fact("vcpus", str(vcpus), inst=inst)
        for name, e in runs.items():
            t = e["time"]
            c.fact("rates", f"{sig(t['input_needed_samples_per_s'], 4)} / {sig(t['input_capacity_samples_per_s'], 4)}"
                   + (" (input-bound)" if t["input_bound"] else ""), prec=name)
            c.fact("epoch", duration(e["cost"]["hours"] * 3600), prec=name)
        need_rate = IMAGENET_TRAIN_IMAGES / (4 * 3600)
        c.fact("need", sig(need_rate, 3))
        rows = (self.site.validation or {}).get("rows", [])
        errs = [r["error"] for r in rows if r["model"] in ("resnet50", "resnet18")]
        slow = runs["FP32"]["cost"]["hours"]
        ratio = 4 / slow
        c.verdict = "wrong" if ratio > 2 or ratio < 0.5 else "qualified"
        c.ctx = dict(fp32_s=slow * 3600, amp_s=runs["AMP"]["cost"]["hours"] * 3600, ratio=ratio, vcpus=vcpus,
                     need_rate=need_rate, errs=(min(errs), max(errs)) if errs else None)
        return c

    def bert_glue(self):
        c = self.claim("bert-glue")
        inst = "runpod-secure-cloud-1x-a40-48gb"
        if inst not in self.cat.instances:
            raise BuildError(f"guide check: instance {inst} is not in the catalog")
        common = ["estimate", "--model", "bert-base", "--batch", "32", "--seq", "128", "--instance", inst, "--epochs",
                  str(BERT_FINETUNE_EPOCHS), "--dataset-size", str(MNLI_TRAIN_EXAMPLES)]
        runs = {"FP32": c.run(common + ["--precision", "fp32"]), "AMP": c.run(common + ["--precision", "amp-fp16"])}
        c.fact("examples", f"{MNLI_TRAIN_EXAMPLES:,}")
        c.fact("setup", f"{BERT_FINETUNE_EPOCHS}, 32, 128")
        for name, e in runs.items():
            cost = e["cost"]
            c.fact("run", f"{sig(e['time']['samples_per_s'], 4)}; {duration(cost['hours'] * 3600)} "
                   f"({'$' + format(cost['usd_total'], ',.2f') if 'usd_total' in cost else '–'})", prec=name)
        epochs_12h = 12 * 3600 * runs["FP32"]["time"]["samples_per_s"] / MNLI_TRAIN_EXAMPLES
        c.fact("epochs", sig(epochs_12h, 3))
        ratio = 12 / runs["FP32"]["cost"]["hours"]
        c.verdict = "wrong" if ratio > 2 or ratio < 0.5 else "qualified"
        c.ctx = dict(fp32_s=runs["FP32"]["cost"]["hours"] * 3600, amp_s=runs["AMP"]["cost"]["hours"] * 3600,
                     epochs_12h=epochs_12h, epochs=BERT_FINETUNE_EPOCHS)
        return c

    def blackwell(self):
        c = self.claim("blackwell")
        c.commands.append(self.cli.display(["gpus"]) + " --json")
        gpus = sorted(g for g, d in self.cat.gpus_data.items() if "blackwell" in d.get("architecture", "").lower()
                      or g.startswith("b200") or g.startswith("gb200"))
        rows = []
        for gid in gpus:
            for prec in ("fp8", "fp16", "bf16", "tf32"):
                d = self.cat.dense_peak(gid, prec)
                if d:
                    rows.append((gid, prec, d))
                    c.fact("peak", tflops(d, 4), gpu=gid, prec=prec.upper())
        near = [(g, p, d) for g, p, d in rows if close(d, 2000e12, 0.15)]
        c.verdict = "qualified" if near else "wrong"
        best = min(rows, key=lambda r: abs(r[2] / 2000e12 - 1)) if rows else None
        c.ctx = dict(gpus=gpus, near=near, best=best, fp8=max((d for g, p, d in rows if p == "fp8"), default=None))
        return c
