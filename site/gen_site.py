#!/usr/bin/env python3
"""Builds gpuplan's documentation site (`make site`).

Every number on the site comes from here: the gpuplan CLI computes it, or a data/ file states it
with its source and date. This script

  1. runs the CLI (and gpuplan-probe, when it was built) and reads data/,
  2. writes markdown fragments into WORK/snippets, which the hand-written pages in site/docs
     include with pymdownx.snippets (`--8<-- "name.md"`),
  3. stages site/docs plus the built calculator (build/wasm/site -> calculator/) in WORK/docs,
  4. runs `mkdocs build --strict` into OUT.

Nothing it writes goes into git: WORK defaults to site/build/ and OUT to build/site/.

usage: gen_site.py [--cli GPUPLAN] [--web DIR] [--out DIR] [--work DIR] [--date YYYY-MM-DD]
                   [--probe GPUPLAN_PROBE] [--data DIR] [--mkdocs MKDOCS] [--fragments-only]
Only the Python standard library is used.
"""

import argparse
import base64
import datetime as dt
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STALE_DAYS = 180  # a price older than this (relative to the build date) is flagged stale

# Facts about datasets that two of the guide's claims need; each is cited where it is shown.
IMAGENET_TRAIN_IMAGES = 1281167   # ILSVRC-2012 training set (Russakovsky et al. 2015, table 2)
MNLI_TRAIN_EXAMPLES = 392702      # GLUE MNLI training split (Williams et al. 2018; GLUE, Wang et al. 2018)
BERT_FINETUNE_EPOCHS = 3          # Devlin et al. 2018, sec. 4.1: "fine-tune for 3 epochs" on GLUE


class BuildError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Formatting. SI units at the edge only (1 GB = 1e9 B), as the CLI prints them.

_SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def sig(x, digits=3):
    """x with `digits` significant digits, thousands separated; scientific from 1e7 on."""
    if x is None:
        return "–"
    if x == 0:
        return "0"
    ax = abs(x)
    if ax >= 1e7 or ax < 1e-3:
        exp = int(f"{ax:e}".split("e")[1])
        mant = x / 10 ** exp
        return f"{mant:.{max(digits - 1, 0)}f} × 10{str(exp).translate(_SUP)}"
    decimals = max(0, digits - 1 - int(f"{ax:e}".split("e")[1]))
    return f"{x:,.{decimals}f}"


def gb(b, digits=3):
    return f"{sig(b / 1e9, digits)} GB"


def tflops(f, digits=3):
    return f"{sig(f / 1e12, digits)} TFLOPS"


def duration(s):
    if s is None:
        return "–"
    if s == 0:
        return "0 s"
    if s < 1e-3:
        return f"{sig(s * 1e6)} µs"
    if s < 1:
        return f"{sig(s * 1e3)} ms"
    if s < 120:
        return f"{sig(s)} s"
    if s < 2 * 3600:
        return f"{sig(s / 60)} min"
    return f"{sig(s / 3600)} h"


def usd(x):
    return "–" if x is None else f"${x:,.2f}" if x >= 10 else f"${x:,.3f}"


def pct(x, digits=3):
    return f"{sig(100 * x, digits)} %"


def cell(text):
    """Text safe inside a markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(headers, rows, align=None):
    out = ["| " + " | ".join(headers) + " |"]
    align = align or ["---"] * len(headers)
    out.append("|" + "|".join(align) + "|")
    for r in rows:
        out.append("| " + " | ".join(cell(c) for c in r) + " |")
    return "\n".join(out) + "\n"


def link(title, url):
    if not url:
        return title
    if url.startswith("http://") or url.startswith("https://"):
        return f"[{title}]({url})"
    return f"{title} (`{url}`)"


def code_block(text, lang=""):
    return f"```{lang}\n{text.rstrip()}\n```\n"


# ---------------------------------------------------------------------------------------------
# Running the tools.

class Cli:
    """Runs the gpuplan CLI; every call is remembered so pages can show the exact command."""

    def __init__(self, path):
        self.path = path
        if not os.access(path, os.X_OK):
            raise BuildError(f"gpuplan CLI not found at {path} (build it: make native)")
        self.help = self.run_text(["--help"])

    def display(self, args):
        return "gpuplan " + " ".join(shlex.quote(a) for a in args)

    def run_text(self, args, ok_codes=(0,)):
        p = subprocess.run([self.path] + args, capture_output=True, text=True, cwd=ROOT)
        if p.returncode not in ok_codes:
            raise BuildError(f"`{self.display(args)}` exited {p.returncode}: {p.stderr.strip()}")
        return p.stdout

    def json(self, args, ok_codes=(0,)):
        out = self.run_text(args + ["--json"], ok_codes)
        try:
            return json.loads(out)
        except json.JSONDecodeError as e:
            raise BuildError(f"`{self.display(args)} --json` printed no JSON: {e}")

    def has_command(self, name):
        return re.search(rf"^\s+{re.escape(name)}\b", self.help, re.M) is not None


def find_probe_binary(explicit):
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    for cand in glob.glob(os.path.join(ROOT, "build", "native", "**", "gpuplan-probe"), recursive=True):
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


# ---------------------------------------------------------------------------------------------
# data/

def load_json_dir(data, kind):
    out = []
    for path in sorted(glob.glob(os.path.join(data, kind, "*.json"))):
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        d["_file"] = os.path.relpath(path, ROOT)
        out.append(d)
    return out


def parse_date(s):
    try:
        return dt.date.fromisoformat(s)
    except (TypeError, ValueError):
        return None


def price_age(date, build_date):
    """(age in days, stale?) of a price dated `date` (YYYY-MM-DD) at `build_date`; undated is stale."""
    d = parse_date(date)
    if d is None:
        return None, True
    age = (build_date - d).days
    return age, age > STALE_DAYS


def source_ref(sources, key):
    """Markdown for one source key of a data file: linked title and dated."""
    s = sources.get(key)
    if not s:
        return f"`{key}` (missing from the file's sources)"
    date = s.get("date", "?")
    kind = s.get("date_kind", "")
    return f"{link(s.get('title', key), s.get('url'))} ({kind + ' ' if kind else ''}{date})"


# ---------------------------------------------------------------------------------------------
# The generator.

class Site:
    def __init__(self, args):
        self.args = args
        self.cli = Cli(args.cli)
        self.data = args.data
        self.build_date = args.date
        self.snippets = os.path.join(args.work, "snippets")
        self.fragments = {}
        self.gpus_data = {g["id"]: g for g in load_json_dir(self.data, "gpus")}
        self.instances_data = {i["id"]: i for i in load_json_dir(self.data, "instances")}
        self.models_data = {m["id"]: m for m in load_json_dir(self.data, "models")}
        self.providers_data = {p["id"]: p for p in load_json_dir(self.data, "providers")}
        with open(os.path.join(self.data, "assumptions.json"), encoding="utf-8") as f:
            self.assumptions = json.load(f)
        with open(os.path.join(self.data, "pricing_rules.json"), encoding="utf-8") as f:
            self.pricing_rules = json.load(f)
        self.gpus = {g["id"]: g for g in self.cli.json(["gpus"])}
        self.instances = {i["id"]: i for i in self.cli.json(["instances"])}
        self.models = {m["id"]: m for m in self.cli.json(["models"])}
        self.check_catalog_matches_data()

    def write(self, name, text):
        self.fragments[name] = text
        with open(os.path.join(self.snippets, name), "w", encoding="utf-8") as f:
            f.write(text)

    def check_catalog_matches_data(self):
        """The CLI embeds data/ at build time: a stale binary would put old numbers on the site."""
        problems = []
        if set(self.gpus) != set(self.gpus_data):
            problems.append(f"GPU ids differ: {sorted(set(self.gpus) ^ set(self.gpus_data))}")
        if set(self.instances) != set(self.instances_data):
            problems.append(f"instance ids differ: {sorted(set(self.instances) ^ set(self.instances_data))}")
        for gid, g in self.gpus.items():
            d = self.gpus_data.get(gid)
            if not d:
                continue
            bw = d["specs"].get("memory_bandwidth_gb_per_s", {}).get("value")
            if bw is not None and abs(bw * 1e9 - g["memory_bandwidth_bytes_per_s"]["value"]) > 1:
                problems.append(f"{gid} memory bandwidth")
            for prec, fact in d["specs"].get("peak_dense_tflops", {}).items():
                cli = g.get("peak_dense_flop_per_s", {}).get(prec)
                if cli and abs(fact["value"] * 1e12 - cli["value"]) > 1e6:
                    problems.append(f"{gid} dense {prec}")
        for iid, inst in self.instances.items():
            d = self.instances_data.get(iid)
            if d and len(d.get("prices", [])) != len(inst.get("prices", [])):
                problems.append(f"{iid} prices")
        if problems:
            raise BuildError("the CLI's embedded catalog differs from data/ (" + "; ".join(problems[:5]) +
                             "): rebuild it with `make native`")

    # -----------------------------------------------------------------------------------------
    def build_info(self):
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, cwd=ROOT)
        revision = rev.stdout.strip() if rev.returncode == 0 else "unknown"
        if rev.returncode == 0 and dirty.stdout.strip():
            revision += " with uncommitted changes"
        self.revision = revision
        self.write("build-info.md",
                   f"*Generated by `site/gen_site.py` on {self.build_date.isoformat()} from git {revision}: "
                   f"the numbers on this page are computed by the gpuplan CLI or read from `data/` at build time.*\n")
        self.write("build-info.zh.md",
                   f"*本页由 `site/gen_site.py` 于 {self.build_date.isoformat()} 根据 git {revision} 生成："
                   f"页面上的数字均在构建时由 gpuplan 命令行计算或从 `data/` 读取。*\n")

    # -----------------------------------------------------------------------------------------
    def home(self):
        n_prices = sum(len(i["prices"]) for i in self.instances.values())
        providers = sorted({i["provider"] for i in self.instances.values()})
        newest = max(p["date"] for i in self.instances.values() for p in i["prices"])
        self.write("home-counts.md",
                   f"The catalog at build time: **{len(self.models)}** models, **{len(self.gpus)}** GPUs, "
                   f"**{len(self.instances)}** instance types from {len(providers)} providers "
                   f"({', '.join(providers)}) with **{n_prices}** dated prices, the newest from {newest}.\n")
        self.write("home-counts.zh.md",
                   f"构建时的目录：**{len(self.models)}** 个模型、**{len(self.gpus)}** 种 GPU、来自 {len(providers)} "
                   f"家云厂商（{', '.join(providers)}）的 **{len(self.instances)}** 种实例，共 **{n_prices}** 条带日期的价格，"
                   f"最新的价格日期为 {newest}。\n")
        plan_args = ["plan", "--model", "gpt2-small", "--batch", "64", "--seq", "1024", "--precision", "amp-bf16",
                     "--tokens", "1e9", "--top", "5"]
        self.write("home-plan.md", code_block("$ " + self.cli.display(plan_args) + "\n" + self.cli.run_text(plan_args), "text"))
        est_args = ["estimate", "--model", "llama-2-7b", "--batch", "8", "--seq", "4096", "--precision", "amp-bf16",
                    "--checkpointing", "selective", "--gpu", "h100-sxm5-80gb", "--gpus", "8", "--dp", "8",
                    "--zero", "3"]
        self.write("home-estimate.md", code_block("$ " + self.cli.display(est_args) + "\n" + self.cli.run_text(est_args), "text"))
        self.write("cli-help.md", code_block("$ gpuplan --help\n" + self.cli.help, "text"))
        self.calculator_keys()

    def calculator_keys(self):
        """The URL keys the calculator reads, from the sources that parse them."""
        def read(rel, pattern):
            try:
                with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
                    return re.findall(pattern, f.read(), re.S)
            except OSError:
                return []
        block = read("core/src/request.cpp", r"request_keys\(\)\s*\{.*?\{(.*?)\};")
        request = re.findall(r'"([a-z0-9-]+)"', block[0]) if block else []
        page = list(dict.fromkeys(read("web/page_state.cpp", r'\bk == "([a-z0-9-]+)"')))
        groups = [("workload and setup (the CLI's setup options)", "工作负载与设置（即命令行的设置选项）", request),
                  ("custom model", "自定义模型",
                   [k for k in page if k == "custom" or k.startswith("c-") or k.startswith("cnn")]),
                  ("hardware, run length, pricing and planner", "硬件、训练时长、计价与规划",
                   [k for k in page if not (k == "custom" or k.startswith("c-") or k.startswith("cnn") or k == "tab")]),
                  ("the open tab", "当前标签页", [k for k in page if k == "tab"])]
        for lang, i in (("en", 0), ("zh", 1)):
            rows = [[g[i], ", ".join(f"`{k}`" for k in g[2])] for g in groups if g[2]]
            if not request or not page:
                text = ("**Unknown**: the keys could not be read from the sources at build time.\n" if lang == "en"
                        else "**未知**：构建时未能从源代码读出这些键。\n")
            else:
                text = table(["group", "keys"] if lang == "en" else ["分组", "键"], rows)
            self.write(f"calculator-keys.{lang}.md", text)

    # -----------------------------------------------------------------------------------------
    def method(self):
        cli = self.cli
        # Bytes per parameter, read back from the core: ResNet-50 is a layer graph, so every
        # parameter is a matrix (convolution) parameter and the 16-bit cast copy applies to all.
        rows = []
        base = ["estimate", "--model", "resnet50", "--batch", "1"]
        for prec in ["fp32", "tf32", "fp16", "bf16", "amp-fp16", "amp-bf16", "fp8"]:
            sgd = cli.json(base + ["--precision", prec, "--optimizer", "sgd"])
            adam = cli.json(base + ["--precision", prec, "--optimizer", "adamw"])
            n = sgd["params"]
            m_sgd, m_adam = sgd["memory_bytes"], adam["memory_bytes"]
            weights = m_sgd["weights"] / n
            grads = m_sgd["gradients"] / n
            master = m_sgd["optimizer"] / n
            state = (m_adam["optimizer"] / n - master) / 2
            total = weights + grads + master + 2 * state
            rows.append([f"`{prec}`", sig(weights), sig(grads), sig(master), sig(state), f"**{sig(total)}**"])
        self.write("method-bytes-per-param.md", table(
            ["precision", "weights (incl. 16-bit cast copy)", "gradients", "fp32 master copy", "per Adam state",
             "total with AdamW"], rows) +
            "\n*Bytes per parameter, read back from the core: `gpuplan estimate --model resnet50 --batch 1 "
            "--precision P --optimizer sgd|adamw --json`, memory terms divided by the parameter count "
            "(one GPU, no ZeRO).*\n")

        # Memory constants, as the core reports them.
        r50 = cli.json(base)
        self.context_bytes = r50["memory_bytes"]["context"]
        self.write("method-context.md",
                   f"- **CUDA context**: {sig(self.context_bytes, 4)} bytes ({sig(self.context_bytes / 2**20, 4)} MiB), "
                   f"what `nvidia-smi` shows for `torch.ones(1).cuda()` on a V100 (Hugging Face, *Model training "
                   f"anatomy*).\n")

        # A worked example: term by term.
        ex_args = ["estimate", "--model", "llama-2-7b", "--batch", "8", "--seq", "4096", "--precision", "amp-bf16",
                   "--checkpointing", "selective", "--gpu", "h100-sxm5-80gb", "--gpus", "8", "--dp", "8",
                   "--zero", "3"]
        ex = cli.json(ex_args)
        terms = [("weights", "weights"), ("gradients", "gradients"), ("optimizer states", "optimizer"),
                 ("activations", "activations"), ("KV cache", "kv_cache"), ("workspace", "workspace"),
                 ("CUDA context", "context"), ("allocator fragmentation", "fragmentation"), ("**total**", "total")]
        mem = ex["memory_bytes"]
        self.write("method-example-memory.md",
                   f"`{cli.display(ex_args)}`\n\n" +
                   table(["term", "bytes", ""], [[t, sig(mem[k], 4), gb(mem[k])] for t, k in terms]) +
                   f"\nIt {'fits' if ex['fits'] else 'does not fit'} in the {gb(ex['gpu_memory_bytes'])} of "
                   f"`{ex['gpu']}`.\n")
        f = ex["flops"]
        tokens = ex["global_batch"] * ex["seq_len"]
        rule = f["params_rule_per_token"] * tokens
        t = ex["time"]
        self.write("method-example-flops.md", table(
            ["quantity", "value"],
            [["forward FLOPs per sample", sig(f["forward_per_sample"])],
             ["  of which attention (Q·Kᵀ and scores·V)", sig(f["forward_attention_per_sample"])],
             ["training FLOPs per step (forward + backward + recompute)", sig(f["train_per_step"])],
             ["  backward", sig(f["backward_per_step"])],
             ["  selective recomputation", sig(f["recompute_per_step"])],
             ["6 N (non-embedding) × tokens per step, for comparison", sig(rule)],
             ["step time", duration(t["step_s"])],
             ["model FLOPs utilisation (MFU)", pct(t["mfu"])]]))
        self.write("method-example-time.md", table(
            ["term", "seconds"],
            [[k, sig(t[k], 4)] for k in ["forward_s", "backward_s", "recompute_s", "optimizer_s", "tp_comm_s",
                                         "dp_comm_exposed_s", "pp_bubble_s", "step_s"]]))

        # Communication example: 8 GPUs, data parallel.
        comm_args = ["estimate", "--model", "llama-2-7b", "--batch", "64", "--micro-batch", "1", "--seq", "4096",
                     "--precision", "amp-bf16", "--checkpointing", "selective", "--dp", "8", "--zero", "3",
                     "--instance", "aws-p5.48xlarge"]
        comm = cli.json(comm_args)
        ct = comm["time"]
        self.write("method-example-comm.md",
                   f"`{cli.display(comm_args)}`: the gradient traffic of one step takes "
                   f"{duration(ct['dp_comm_s'])} on the ring; {duration(ct['dp_comm_exposed_s'])} of it is not hidden "
                   f"behind the last micro-batch's backward ({duration(ct['backward_s'] / max(comm['grad_accum_steps'], 1))}). "
                   f"Step time {duration(ct['step_s'])}.\n")

        # Input pipeline example.
        in_args = ["estimate", "--model", "resnet18", "--batch", "256", "--precision", "amp-fp16",
                   "--instance", "aws-g4dn.xlarge"]
        inp = cli.json(in_args)
        it = inp["time"]
        rate = self.assumptions["assumptions"]["jpeg_decode_images_per_s_per_core"]["value"]
        self.write("method-example-input.md",
                   f"`{cli.display(in_args)}`: the GPU could take {sig(it['input_needed_samples_per_s'], 4)} images/s; "
                   f"the instance's vCPUs decode about {sig(it['input_capacity_samples_per_s'], 4)} "
                   f"(at {sig(rate, 4)} images/s per core), so the step is "
                   f"{'input-bound' if it['input_bound'] else 'GPU-bound'} and the suggested `num_workers` is "
                   f"{it['suggested_num_workers']}.\n")

        # Spot example.
        spot_args = ["estimate", "--model", "gpt2-small", "--batch", "64", "--seq", "1024", "--precision", "amp-bf16",
                     "--instance", "aws-g6e.xlarge", "--tokens", "1e9", "--pricing", "spot",
                     "--spot-interruptions-per-hour", "0.1", "--checkpoint-interval-hours", "1", "--restart-hours", "0.25"]
        sp = cli.json(spot_args)
        c = sp["cost"]
        self.write("method-example-spot.md",
                   f"`{cli.display(spot_args)}`: {sig(c['hours'], 4)} h uninterrupted become "
                   f"{sig(c['expected_hours'], 4)} h expected; at {usd(c['usd_per_hour'])}/h "
                   f"({c['price_basis']}) the run costs {usd(c['usd_total'])}.\n")

        # Assumptions and pricing rules, from data/.
        self.write("method-assumptions.md", self.assumptions_table())
        self.write("method-pricing-rules.md", self.pricing_rules_table())

        # Known limits that the catalog makes concrete.
        missing = []
        for gid, g in sorted(self.gpus.items()):
            have = set(g.get("peak_dense_flop_per_s", {}))
            lack = [p for p in ["fp32", "tf32", "fp16", "bf16", "fp8"] if p not in have]
            if lack:
                missing.append([f"`{gid}`", ", ".join(lack)])
        self.write("method-missing-peaks.md", table(["GPU", "no sourced dense peak for"], missing) if missing else
                   "Every GPU in the catalog has a sourced dense peak for FP32, TF32, FP16, BF16 and FP8.\n")
        mfu_args = ["estimate", "--model", "resnet50", "--batch", "256", "--gpu", "a100-sxm4-80gb"]
        mfu = cli.json(mfu_args)
        m = mfu["time"]["mfu"]
        self.write("method-mfu-note.md",
                   ("- **MFU against the precision's peak.** FP32 CNNs are timed with their convolutions at the TF32 "
                    "peak, but MFU is reported against the FP32 peak, so it can exceed 100 %: "
                    if m > 1 else
                    "- **MFU against the precision's peak.** MFU divides by the dense peak of the chosen precision, "
                    "even where FP32 convolutions run at the TF32 peak: ") +
                   f"`{cli.display(mfu_args)}` reports an MFU of {pct(m)} against "
                   f"{tflops(mfu['time']['peak_flop_per_s'])}.\n")

        # Validation against published measurements.
        csv = os.path.join(ROOT, "tests", "validation", "throughput_dev.csv")
        if self.cli.has_command("validate") and os.path.exists(csv):
            v = cli.json(["validate", os.path.relpath(csv, ROOT)])
            rows = []
            for r in v["rows"]:
                rows.append([r["id"], f"`{r['model']}`", f"`{r['gpu']}`", r["metric"].replace("_", " "),
                             sig(r["measured"], 4), sig(r["predicted"], 4),
                             f"{'+' if r['error'] >= 0 else ''}{sig(100 * r['error'], 3)} %"])
            errors = [abs(r["error"]) for r in v["rows"]]
            over = sum(1 for r in v["rows"] if r["error"] > 0)
            families = {}
            for r in v["rows"]:
                families.setdefault(r["model"], []).append(abs(r["error"]))
            by_model = "; ".join(f"`{m}` {pct(sum(e) / len(e))} ({len(e)} rows)" for m, e in sorted(families.items()))
            self.validation = v
            self.write("method-validation-summary.md",
                       f"Over the {len(rows)} rows of `tests/validation/throughput_dev.csv` (NVIDIA "
                       f"DeepLearningExamples tables, measured on DGX systems), the mean absolute percentage error of "
                       f"the predicted throughput is **{pct(v['mape'])}**; the largest error is "
                       f"{pct(max(errors))}, and {over} of {len(rows)} predictions are too fast. By model: "
                       f"{by_model}.\n")
            self.write("method-validation.md", table(
                ["row", "model", "GPU", "metric", "measured", "predicted", "error"], rows))
        else:
            self.validation = None
            self.write("method-validation-summary.md", "This build has no `gpuplan validate` results.\n")
            self.write("method-validation.md", "")

    def assumptions_table(self):
        a = self.assumptions
        rows = []
        for key, fact in a["assumptions"].items():
            value = fact.get("value")
            rows.append([f"`{key}`", "null (not known)" if value is None else sig(value, 4),
                         source_ref(a["sources"], fact["source"])])
        notes = "\n".join(
            f'??? note "{key}"\n    {fact.get("note", "").strip()}\n' for key, fact in a["assumptions"].items())
        return (table(["assumption", "value", "source"], rows) + "\n" + a.get("note", "") + "\n\n" + notes)

    def pricing_rules_table(self):
        r = self.pricing_rules
        src = r.get("source", {})
        rows = [[k, f"−{sig(100 * v, 3)} %"] for k, v in r["discounts"].items()]
        return (table(["pricing", "discount off the on-demand price"], rows) +
                f"\nSource: {src.get('title', '?')} ({src.get('date_kind', '')} {src.get('date', '?')}). "
                f"{r.get('note', '')}\n")

    # -----------------------------------------------------------------------------------------
    def instance_source(self, inst, key):
        """A short link to the instance-source list; the list itself is written by data_pages."""
        s = inst.get("sources", {}).get(key)
        if not s:
            return f"`{key}` (missing from the file's sources)"
        ident = (s.get("title"), s.get("url"), s.get("date"))
        name = key
        n = 1
        while name in self._inst_sources and self._inst_sources[name] != ident:
            n += 1
            name = f"{key}-{n}"
        self._inst_sources[name] = ident
        self._inst_source_kind[name] = s.get("date_kind", "")
        return f"[{name}](#src-{re.sub(r'[^a-z0-9-]', '-', name.lower())})"

    def data_pages(self):
        self._inst_sources, self._inst_source_kind = {}, {}
        # GPUs.
        precs = ["fp32", "tf32", "fp16", "bf16", "fp8"]
        rows = []
        for gid, g in sorted(self.gpus_data.items()):
            s = g["specs"]
            dense = s.get("peak_dense_tflops", {})
            sparse = s.get("peak_sparse_tflops", {})

            def v(key, scale=1.0, digits=4):
                f = s.get(key)
                return sig(f["value"] * scale, digits) if f and f.get("value") is not None else "–"
            rows.append([f"[`{gid}`](#gpu-{gid})", g.get("name", ""), v("memory_bytes", 1e-9),
                         v("memory_bandwidth_gb_per_s")] +
                        [sig(dense[p]["value"], 4) if p in dense else "–" for p in precs] +
                        [sig(sparse["fp16"]["value"], 4) if "fp16" in sparse else "–",
                         v("nvlink_bandwidth_gb_per_s"), v("tdp_w")])
        self.write("data-gpus.md", table(
            ["id", "name", "memory GB", "memory GB/s"] + [f"{p.upper()} dense TFLOPS" for p in precs] +
            ["FP16 sparse TFLOPS", "NVLink GB/s (both directions)", "TDP W"], rows))

        parts = []
        for gid, g in sorted(self.gpus_data.items()):
            s = g["specs"]
            facts = []
            for key, f in s.items():
                if key in ("peak_dense_tflops", "peak_sparse_tflops"):
                    for prec, pf in f.items():
                        facts.append((f"{key}.{prec}", pf))
                else:
                    facts.append((key, f))
            frows = [[f"`{k}`", cell(f.get("value")), source_ref(g.get("sources", {}), f.get("source", "")),
                      f.get("note", "")] for k, f in facts]
            parts.append(f"### {g.get('name', gid)} {{ #gpu-{gid} }}\n\n`{g['_file']}`\n\n" +
                         table(["fact", "value", "source", "note"], frows))
        self.write("data-gpu-sources.md", "\n".join(parts))

        # Instances and prices.
        rows = []
        for iid, i in sorted(self.instances_data.items(), key=lambda kv: (kv[1]["provider"], kv[0])):
            s = i.get("specs", {})

            def sv(key):
                f = s.get(key)
                return cell(f["value"]) if f and f.get("value") is not None else "–"
            gpu = self.gpus_data.get(i["gpu"], {}).get("name", i["gpu"])
            rows.append([f"`{iid}`", i["provider"], i.get("instance_type", ""), f"{i['gpu_count']} × {gpu}",
                         sv("vcpus"), sv("ram_gib"), sv("gpu_interconnect"), sv("network_gbit_per_s"),
                         self.instance_source(i, i.get("gpu_source", ""))])
        self.write("data-instances.md", table(
            ["id", "provider", "instance type", "GPUs", "vCPUs", "RAM GiB", "GPU interconnect", "network Gbit/s",
             "GPU source"], rows))

        prows, stale, total, oldest = [], 0, 0, None
        for iid, i in sorted(self.instances_data.items(), key=lambda kv: (kv[1]["provider"], kv[0])):
            for p in i.get("prices", []):
                total += 1
                d = parse_date(p.get("date"))
                age, is_stale = price_age(p.get("date"), self.build_date)
                stale += is_stale
                if d and (oldest is None or d < oldest):
                    oldest = d
                flag = "⚠ stale" if is_stale else "ok"
                prows.append([f"`{iid}`", p.get("region", ""), usd(p.get("on_demand_usd_per_hour")),
                              usd(p.get("reserved_1y_usd_per_hour")), usd(p.get("reserved_3y_usd_per_hour")),
                              usd(p.get("spot_usd_per_hour")), p.get("date", "?"),
                              "?" if age is None else str(age), flag,
                              self.instance_source(i, p.get("source", ""))])
        self.stale_prices = (stale, total)
        srows = []
        for name, (title, url, date) in sorted(self._inst_sources.items()):
            anchor = re.sub(r"[^a-z0-9-]", "-", name.lower())
            kind = self._inst_source_kind.get(name, "")
            srows.append([f'<span id="src-{anchor}"></span>`{name}`', link(title or name, url),
                          f"{kind + ' ' if kind else ''}{date or '?'}"])
        self.write("data-prices.md", table(
            ["instance", "region", "on-demand $/h", "reserved 1 y $/h", "reserved 3 y $/h", "spot $/h", "price date",
             "age (days)", "status", "source"], prows))
        self.write("data-instance-sources.md", table(["key", "source", "date"], srows))
        self.write("data-stale.md",
                   f"Build date {self.build_date.isoformat()}: **{stale} of {total}** prices are older than "
                   f"{STALE_DAYS} days and are flagged **⚠ stale**"
                   f"{f'; the oldest is from {oldest.isoformat()}' if oldest else ''}. "
                   f"Check the provider's price page before you rent.\n")

        # Providers.
        rows = []
        for pid, p in sorted(self.providers_data.items()):
            for r in p.get("regions", []):
                comp = r.get("compliance", {})
                flags = ", ".join(f"{k}: {v.get('value') if isinstance(v, dict) else v}" for k, v in comp.items()) or "–"
                rows.append([f"`{pid}`", p.get("name", ""), f"`{r.get('id', '')}`", r.get("name", r.get("location", "")) or "",
                             flags, r.get("note", "")])
        self.write("data-providers.md", table(["provider", "name", "region", "name / location", "compliance", "note"], rows))

        # Models: parameters from the core.
        rows = []
        for mid, m in sorted(self.models.items()):
            try:
                params = sig(self.cli.json(["estimate", "--model", mid, "--batch", "1"])["params"], 4)
            except BuildError as e:
                params = f"– ({e})"
            src = m.get("source", {})
            rows.append([f"`{mid}`", m.get("name", ""), m.get("kind", ""), m.get("task", ""), params,
                         f"{link(src.get('title', ''), src.get('url'))} ({src.get('date', '?')})"])
        self.write("data-models.md", table(["id", "name", "kind", "task", "parameters (computed)", "source"], rows))
        self.write("data-assumptions.md", self.assumptions_table())
        self.write("data-pricing-rules.md", self.pricing_rules_table())

    # -----------------------------------------------------------------------------------------
    def probe(self):
        src = os.path.join(ROOT, "native_probe")
        cmake = os.path.join(src, "CMakeLists.txt")
        cuda_sources = sorted(os.path.basename(p) for p in glob.glob(os.path.join(src, "src", "cuda", "*.cu")))
        targets = []
        if os.path.exists(cmake):
            with open(cmake, encoding="utf-8") as f:
                targets = re.findall(r"add_executable\(\s*([A-Za-z0-9_.+-]+)", f.read())
        binary = find_probe_binary(self.args.probe)
        has_verify = self.cli.has_command("verify")
        yes, no = "yes", "**no**"
        status = [
            ["`native_probe/CMakeLists.txt`", yes if os.path.exists(cmake) else no,
             ", ".join(f"target `{t}`" for t in targets) if targets else "no build target yet"],
            ["CUDA measuring code (`native_probe/src/cuda/*.cu`)", yes if cuda_sources else no,
             ", ".join(f"`{s}`" for s in cuda_sources) if cuda_sources else "only the no-CUDA stub: real runs exit 3"],
            ["`gpuplan-probe` built alongside this site", yes if binary else no,
             "its `--help` and `--list` below are its own output" if binary else
             "no gpuplan-probe binary was found in this build; the text below is read from the sources"],
            ["`gpuplan verify` in the CLI", yes if has_verify else no,
             "used to check every file on the Benchmarks page" if has_verify else "signatures cannot be checked here"],
        ]
        self.probe_binary = binary
        self.write("probe-status.md", table(["piece", "present", "detail"], status))

        if targets:
            t = targets[0]
            self.write("probe-build.md", code_block(
                "# on the GPU machine, in a clone of the repository. Needs cmake (3.22+), ninja, g++, pkg-config,\n"
                "# libsodium-dev, nlohmann-json3-dev, and the CUDA toolkit with nvcc on PATH.\n"
                "cmake -S . -B build/probe -G Ninja -DCMAKE_BUILD_TYPE=Release \\\n"
                "      -DGPUPLAN_BUILD_UI=OFF -DGPUPLAN_BUILD_TESTS=OFF\n"
                f"cmake --build build/probe --target {t}\n"
                f"build/probe/native_probe/{t} --list", "sh") +
                "\nThe configure step prints `gpuplan-probe: CUDA <version>, architectures …` when it found `nvcc`, "
                "or `no CUDA compiler found` when the binary will only simulate. On Debian 12, "
                "`scripts/install-deps.sh` installs the non-CUDA dependencies, and `make native` builds the probe "
                "together with everything else.\n")
        else:
            self.write("probe-build.md", "!!! warning \"Unknown\"\n    `native_probe/` has no build target at this "
                                         "revision, so there is no supported way to build the probe yet.\n")

        if binary:
            usage = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
            listing = subprocess.run([binary, "--list"], capture_output=True, text=True).stdout
            self.probe_cases = [ln.split()[0] for ln in listing.splitlines() if ln.strip()]
            self.write("probe-usage.md", code_block("$ gpuplan-probe --help\n" + usage, "text"))
            self.write("probe-list.md", code_block("$ gpuplan-probe --list\n" + listing, "text"))
        else:
            self.probe_cases = None
            usage = self.usage_from_source(os.path.join(src, "src", "options.cpp"))
            self.write("probe-usage.md", (code_block(usage, "text") +
                                          "\n*Read from `native_probe/src/options.cpp` (no binary was built).*\n")
                       if usage else "!!! warning \"Unknown\"\n    The usage text could not be read at build time.\n")
            self.write("probe-list.md", "*No `gpuplan-probe` binary was built with this site, so its `--list` "
                                        "output is not shown; the table above is written from the sources.*\n")

        env = self.env_allow_list(os.path.join(src, "src", "host_info.cpp"))
        self.write("probe-env.md", ("The environment allow-list (`native_probe/src/host_info.cpp`): " +
                                    ", ".join(f"`{e}`" for e in env) + ".\n") if env else
                   "The environment allow-list is **unknown**: it could not be read from "
                   "`native_probe/src/host_info.cpp` at build time.\n")
        self.probe_example(binary, has_verify)

    @staticmethod
    def usage_from_source(path):
        try:
            with open(path, encoding="utf-8") as f:
                m = re.search(r'usage_text\(\)\s*\{\s*return\s+R"\((.*?)\)";', f.read(), re.S)
            return m.group(1).strip("\n") if m else None
        except OSError:
            return None

    @staticmethod
    def env_allow_list(path):
        try:
            with open(path, encoding="utf-8") as f:
                m = re.search(r"environment_allow_list\(\)\s*\{.*?names\s*=\s*\{(.*?)\};", f.read(), re.S)
            return re.findall(r'"([A-Z0-9_]+)"', m.group(1)) if m else None
        except OSError:
            return None

    def probe_sizes(self, binary):
        """The sizes each case uses in a quick and a full run, read from two simulated runs."""
        if not binary:
            self.write("probe-sizes.md", "**Unknown** here: no `gpuplan-probe` binary was built with this site, so "
                                         "the sizes could not be read from a run; see `native_probe/README.md`.\n")
            return

        def binary_size(b):
            for unit, div in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
                if b >= div and b % div == 0:
                    return f"{b // div} {unit}"
            return f"{b} B"

        sizes = {}
        with tempfile.TemporaryDirectory() as tmp:
            for mode in ("quick", "full"):
                out = os.path.join(tmp, mode + ".json")
                p = subprocess.run([binary, "--simulate", "h100-sxm5-80gb:2", "--no-metadata", "--" + mode, "--out", out,
                                    "--key", os.path.join(tmp, "key")], capture_output=True, text=True, timeout=120)
                if p.returncode not in (0, 1) or not os.path.exists(out):
                    self.write("probe-sizes.md", f"**Unknown**: a simulated run failed at build time (exit "
                                                 f"{p.returncode}).\n")
                    return
                with open(out, encoding="utf-8") as f:
                    payload = json.loads(base64.b64decode(json.load(f)["payload"]))
                for r in payload.get("results", []):
                    prm = r.get("params") or {}
                    vals = []
                    if "sweep" in prm:
                        vals = [f"n = {s['n']}" for s in prm["sweep"]]
                    elif "n" in prm:
                        vals = [f"n = {prm['n']}"]
                    elif "array_bytes" in prm:
                        vals = [f"{binary_size(prm['array_bytes'])} arrays"]
                    elif "bytes" in prm:
                        vals = [binary_size(prm["bytes"])]
                    cur = sizes.setdefault(r["case"], {"quick": [], "full": []})[mode]
                    for v in vals:
                        if v not in cur:
                            cur.append(v)
        rows = [[f"`{case}`", ", ".join(v["quick"]) or "–", ", ".join(v["full"]) or "–"] for case, v in sizes.items()]
        self.write("probe-sizes.md", table(["case", "quick (default)", "`--full`"], rows) +
                   "\n*Read from two simulated runs on two H100s at build time. A real run starts from these sizes "
                   "and steps down when a size runs out of memory or one iteration takes too long.*\n")

    def probe_example(self, binary, has_verify):
        """A simulated run: what a file looks like, checked with `gpuplan verify`."""
        self.probe_sizes(binary)
        if not binary:
            self.write("probe-example.md", "*No `gpuplan-probe` binary was built with this site, so no example "
                                           "file is shown.*\n")
            return
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "example.json")
            args = ["--simulate", "h100-sxm5-80gb:2", "--no-metadata", "--case", "gemm_bf16", "--case", "hbm_copy",
                    "--case", "nccl_allreduce", "--out", out, "--key", os.path.join(tmp, "key")]
            p = subprocess.run([binary] + args, capture_output=True, text=True, timeout=120)
            if p.returncode not in (0, 1) or not os.path.exists(out):
                self.write("probe-example.md", f"!!! warning \"Unknown\"\n    A simulated run failed at build time "
                                               f"(exit {p.returncode}): `{p.stderr.strip()[:300]}`\n")
                return
            with open(out, encoding="utf-8") as f:
                envelope = json.load(f)
            payload = json.loads(base64.b64decode(envelope["payload"]))
            short_env = dict(envelope)
            short_env["payload"] = envelope["payload"][:40] + "…"
            # Keep the example readable and free of this machine's details: the first GPU and the
            # first result row, temporary paths and the host name elided.
            shown = json.loads(json.dumps(payload).replace(tmp, "…"))
            if isinstance(shown.get("host"), dict):
                shown["host"]["hostname"] = "…"
            for key in ("gpus", "results"):
                items = shown.get(key, [])
                shown[key] = items[:1] + (["…"] if len(items) > 1 else [])
            text = ("The envelope (`gpuplan-probe " + " ".join(a if tmp not in a else "…" for a in args) + "`):\n\n" +
                    code_block(json.dumps(short_env, indent=2, ensure_ascii=False), "json") +
                    "\nIts payload, decoded (the first GPU and the first result row only):\n\n" +
                    code_block(json.dumps(shown, indent=2, ensure_ascii=False), "json"))
            if has_verify:
                v = self.cli.run_text(["verify", out], ok_codes=(0, 1)).replace(tmp, "…")
                text += "\nWhat `gpuplan verify` says about it:\n\n" + code_block(v, "text")
            self.write("probe-example.md", text)

    # -----------------------------------------------------------------------------------------
    def benchmarks(self):
        folder = self.args.benchmarks or os.path.join(self.data, "benchmarks")
        files = sorted(glob.glob(os.path.join(folder, "*.json")))
        has_verify = self.cli.has_command("verify")
        if not files:
            self.write("benchmarks.md",
                       f"**There are no probe files in `data/benchmarks/` at this build ({self.build_date.isoformat()}).** "
                       f"When signed files are added there, this page lists each one with its signature status "
                       f"({'checked with `gpuplan verify`' if has_verify else 'this CLI has no `gpuplan verify` yet'}) "
                       f"and what it measured.\n")
            self.write("benchmarks-count.md", "0")
            return
        summary_rows, details = [], []
        for path in files:
            rel = os.path.relpath(path, ROOT)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            verdict, reason, fingerprint, summary, simulated = "not checked", "", None, None, None
            if has_verify:
                p = subprocess.run([self.cli.path, "verify", path, "--json"], capture_output=True, text=True)
                try:
                    v = json.loads(p.stdout) if p.returncode in (0, 1) and p.stdout.strip() else None
                except json.JSONDecodeError:
                    v = None
                if v is None:
                    verdict, reason = "unreadable", (p.stderr.strip() or f"gpuplan verify exited {p.returncode}")
                else:
                    verdict = v.get("signature", "?")
                    reason = v.get("reason") or ""
                    fingerprint = v.get("fingerprint")
                    summary = v.get("summary")
                    simulated = v.get("simulated")
            payload = None
            try:
                env = json.loads(text)
                if isinstance(env, dict) and "payload" in env:
                    payload = json.loads(base64.b64decode(env["payload"], validate=True))
                elif isinstance(env, dict):
                    payload = env
            except (ValueError, TypeError):
                reason = reason or "the file is not a JSON probe envelope"
            # What gpuplan verify did not vouch for is shown, marked as such, from the raw payload.
            if summary is None and payload and verdict != "invalid":
                summary = payload.get("summary")
                simulated = payload.get("simulated")
            if verdict == "invalid":
                payload = None  # a tampered payload's claims are not shown
            status = {"valid": "✔ valid signature", "invalid": "✘ invalid signature",
                      "unsigned": "⚠ unsigned"}.get(verdict, f"⚠ {verdict}")
            if simulated:
                status += " — simulated, not a measurement"
            gemm = (summary or {}).get("gemm_flop_per_s") or {}
            cloud = ((payload or {}).get("host") or {}).get("cloud") or {}
            summary_rows.append([
                f"`{os.path.basename(path)}`", status,
                f"{summary.get('gpu_count', '?')} × {summary.get('gpu_name', '?')}" if summary else "–",
                cloud.get("instance_type") or "not recorded",
                (payload or {}).get("started_utc", "–"),
                tflops(gemm["bf16"]) if gemm.get("bf16") else "–",
                f"{sig(summary['hbm_copy_bytes_per_s'] / 1e9, 4)} GB/s" if summary and summary.get("hbm_copy_bytes_per_s") else "–",
                f"{sig(summary['allreduce_busbw_bytes_per_s'] / 1e9, 4)} GB/s" if summary and summary.get("allreduce_busbw_bytes_per_s") else "–"])
            drows = []
            for k, val in (summary or {}).items():
                if isinstance(val, dict):
                    for kk, vv in val.items():
                        drows.append([f"`{k}.{kk}`", "null" if vv is None else sig(vv, 4)])
                else:
                    drows.append([f"`{k}`", "null" if val is None else (sig(val, 4) if isinstance(val, (int, float)) else val)])
            details.append(f"### {os.path.basename(path)}\n\n`{rel}`: {status}" +
                           (f" ({reason})" if reason else "") +
                           (f"; key {fingerprint}" if fingerprint else "") + "\n\n" +
                           (table(["summary field", "value"], drows) if drows else "No summary could be read.\n"))
        self.write("benchmarks-count.md", str(len(files)))
        self.write("benchmarks.md", table(
            ["file", "signature", "GPUs", "instance type", "started (UTC)", "BF16 GEMM", "HBM copy",
             "all-reduce busbw"], summary_rows) + "\n" + "\n".join(details))

    # -----------------------------------------------------------------------------------------
    def published_runs(self):
        """Snippets for the Benchmarks page from `gpuplan published --json` (issue 16): every
        published measurement beside gpuplan's prediction and the error per row, and a summary
        line. published-table.md / published-summary.md; nothing when the CLI lacks the command."""
        if not self.cli.has_command("published"):
            return
        doc = self.cli.json(["published"])
        rows = []
        for r in doc["rows"]:
            shape = f"seq {r['seq_len']}" if r.get("seq_len") else (f"{r['resolution']} px" if r.get("resolution") else "")
            err = "–" if r["error"] is None else f"{r['error'] * 100:+.1f}%"
            rows.append([f"[{r['id']}]({r['source_url']})", r["model"], f"{r['num_gpus']} × {r['gpu']}", r["system"],
                         r["task"], r["precision"], str(r["micro_batch"]), shape,
                         f"{sig(r['measured'], 4)} {r['unit']}",
                         "–" if r["predicted"] is None else f"{sig(r['predicted'], 4)} {r['unit']}",
                         err if r["predicted"] is not None else f"not predicted: {r['not_predicted']}"])
        self.write("published-table.md", table(
            ["run", "model", "GPUs", "system", "task", "precision", "micro-batch", "shape", "measured", "gpuplan",
             "error"], rows))
        self.write("published-summary.md",
                   f"{len(doc['rows'])} published runs from {len(doc['tables'])} tables; gpuplan predicts "
                   f"{doc['predicted']} of them with a mean absolute error of {doc['mape'] * 100:.1f}% "
                   f"({doc['not_predicted']} not predicted, each with the reason).\n")

    # -----------------------------------------------------------------------------------------
    def guide_check(self):
        import guide_check  # site/guide_check.py: the claims and how each is recomputed
        claims = guide_check.check_all(self)
        self.claims = claims
        for lang in ("en", "zh"):
            self.write(f"guide-check-table.{lang}.md", guide_check.render_table(claims, lang))
            self.write(f"guide-check-details.{lang}.md", guide_check.render_details(claims, lang))
        self.write("guide-check-datasets.en.md",
                   f"- ImageNet-1k (ILSVRC-2012) has {IMAGENET_TRAIN_IMAGES:,} training images (Russakovsky et al. "
                   f"2015, *ImageNet Large Scale Visual Recognition Challenge*, table 2).\n"
                   f"- GLUE's MNLI task has {MNLI_TRAIN_EXAMPLES:,} training examples (Williams et al. 2018; Wang et "
                   f"al. 2018, *GLUE*, table 1), and the BERT paper fine-tunes for {BERT_FINETUNE_EPOCHS} epochs at "
                   f"batch 32 (Devlin et al. 2018, sec. 4.1); the sequence length, 128 tokens, is the default of the "
                   f"paper's reference fine-tuning script (`run_classifier.py`).\n")
        self.write("guide-check-datasets.zh.md",
                   f"- ImageNet-1k（ILSVRC-2012）有 {IMAGENET_TRAIN_IMAGES:,} 张训练图片（Russakovsky 等 2015，"
                   f"*ImageNet Large Scale Visual Recognition Challenge*，表 2）。\n"
                   f"- GLUE 的 MNLI 任务有 {MNLI_TRAIN_EXAMPLES:,} 条训练样本（Williams 等 2018；Wang 等 2018，*GLUE*，"
                   f"表 1）；BERT 论文以 batch 32 微调 {BERT_FINETUNE_EPOCHS} 个 epoch"
                   f"（Devlin 等 2018，第 4.1 节）；序列长度 128 取自论文参考微调脚本（`run_classifier.py`）的默认值。\n")
        self.write("guide-check-config-100b.md",
                   code_block(json.dumps(self.config_100b, indent=2), "json"))

    # -----------------------------------------------------------------------------------------
    def generate(self):
        os.makedirs(self.snippets, exist_ok=True)
        for old in glob.glob(os.path.join(self.snippets, "*.md")):
            os.remove(old)
        self.build_info()
        self.home()
        self.method()
        self.data_pages()
        self.probe()
        self.benchmarks()
        self.published_runs()
        self.guide_check()


def stage_and_build(site, args):
    docs = os.path.join(args.work, "docs")
    if os.path.exists(docs):
        shutil.rmtree(docs)
    shutil.copytree(os.path.join(ROOT, "site", "docs"), docs)
    web = args.web
    if not os.path.exists(os.path.join(web, "index.html")):
        raise BuildError(f"the calculator is not built: {web}/index.html is missing (run make wasm)")
    calc = os.path.join(docs, "calculator")
    os.makedirs(calc)
    for name in os.listdir(web):
        if os.path.isfile(os.path.join(web, name)):
            shutil.copy2(os.path.join(web, name), calc)
    env = dict(os.environ, GPUPLAN_SITE_DOCS=os.path.abspath(docs), GPUPLAN_SITE_OUT=os.path.abspath(args.out),
               GPUPLAN_SITE_SNIPPETS=os.path.abspath(site.snippets),
               PYTHONWARNINGS="ignore::DeprecationWarning")
    cmd = [args.mkdocs, "build", "--strict", "--quiet", "-f", os.path.join(ROOT, "site", "mkdocs.yml")]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise BuildError("mkdocs build --strict failed:\n" + p.stdout + p.stderr)
    if not os.environ.get("GPUPLAN_SITE_URL"):
        # Without a site URL mkdocs writes a sitemap of "None" entries: leave it out.
        for name in ("sitemap.xml", "sitemap.xml.gz"):
            if os.path.exists(os.path.join(args.out, name)):
                os.remove(os.path.join(args.out, name))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "native", "tools", "cli", "gpuplan"))
    ap.add_argument("--web", default=os.path.join(ROOT, "build", "wasm", "site"), help="the built calculator")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "site"))
    ap.add_argument("--work", default=os.path.join(ROOT, "site", "build"), help="staging folder (not in git)")
    ap.add_argument("--data", default=os.path.join(ROOT, "data"))
    ap.add_argument("--benchmarks", default=None, help="probe files to list (default: DATA/benchmarks)")
    ap.add_argument("--probe", default=None, help="gpuplan-probe binary (default: found under build/native)")
    ap.add_argument("--mkdocs", default=shutil.which("mkdocs") or "mkdocs")
    ap.add_argument("--date", default=None, help="build date YYYY-MM-DD (default: SOURCE_DATE_EPOCH or today, UTC)")
    ap.add_argument("--fragments-only", action="store_true", help="write the generated fragments, skip mkdocs")
    args = ap.parse_args(argv)
    if args.date:
        args.date = dt.date.fromisoformat(args.date)
    elif os.environ.get("SOURCE_DATE_EPOCH"):
        args.date = dt.datetime.fromtimestamp(int(os.environ["SOURCE_DATE_EPOCH"]), dt.timezone.utc).date()
    else:
        args.date = dt.datetime.now(dt.timezone.utc).date()
    # guide_check.py imports this file as `gen_site`: let it share this module (and BuildError).
    sys.modules.setdefault("gen_site", sys.modules[__name__])
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        site = Site(args)
        site.generate()
        if not args.fragments_only:
            stage_and_build(site, args)
    except BuildError as e:
        print(f"gen_site: {e}", file=sys.stderr)
        return 1
    except (KeyError, TypeError, ValueError) as e:
        import traceback
        traceback.print_exc()
        print(f"gen_site: unexpected data ({type(e).__name__}: {e}); has the CLI's JSON output or a data/ "
              f"format changed? Update site/gen_site.py or site/guide_check.py to match.", file=sys.stderr)
        return 1
    if not args.fragments_only:
        print(f"gen_site: site built in {args.out} (serve it: python3 -m http.server -d {args.out} 8000)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
