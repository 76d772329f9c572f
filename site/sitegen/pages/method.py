"""Method page: bytes per parameter, worked examples (memory, FLOPs, time, communication, input,
spot), the assumptions and pricing rules, known limits, and the validation against measurements."""

import csv
import os

from .. import ROOT
from ..facts import source_ref_parts
from ..format import sig

R50 = ["estimate", "--model", "resnet50", "--batch", "1"]
EXAMPLE_ARGS = ["estimate", "--model", "llama-2-7b", "--batch", "8", "--seq", "4096", "--precision", "amp-bf16",
                "--checkpointing", "selective", "--gpu", "h100-sxm5-80gb", "--gpus", "8", "--dp", "8", "--zero", "3"]
COMM_ARGS = ["estimate", "--model", "llama-2-7b", "--batch", "64", "--micro-batch", "1", "--seq", "4096",
             "--precision", "amp-bf16", "--checkpointing", "selective", "--dp", "8", "--zero", "3",
             "--instance", "aws-p5.48xlarge"]
INPUT_ARGS = ["estimate", "--model", "resnet18", "--batch", "256", "--precision", "amp-fp16",
              "--instance", "aws-g4dn.xlarge"]
SPOT_ARGS = ["estimate", "--model", "gpt2-small", "--batch", "64", "--seq", "1024", "--precision", "amp-bf16",
             "--instance", "aws-g6e.xlarge", "--tokens", "1e9", "--pricing", "spot",
             "--spot-interruptions-per-hour", "0.1", "--checkpoint-interval-hours", "1", "--restart-hours", "0.25"]
MFU_ARGS = ["estimate", "--model", "resnet50", "--batch", "256", "--gpu", "a100-sxm4-80gb"]
# Every precision recipe of the Method page's table, with the options that change its bytes.
RECIPES = [(p, []) for p in ["fp32", "tf32", "fp16", "bf16", "amp-fp16", "amp-bf16", "mixed-fp16", "mixed-bf16"]] + [
    ("mixed-bf16", ["--grad-reduce", "bf16"])]
# Transformer Engine's recipes quantise the linear layers of transformer blocks (a layer graph's
# convolutions stay bf16 under them), so their table is read back from a transformer.
LLAMA = ["estimate", "--model", "llama-2-7b", "--batch", "1"]
TE_RECIPES = [("mixed-bf16", [])] + [(p, []) for p in ["fp8", "fp8-blockwise", "mxfp8", "nvfp4"]] + [
    ("fp8", ["--grad-reduce", "bf16", "--optimizer-state-dtype", "bf16"]), ("nvfp4", ["--quantized-params"])]
# The development tables scored on the Method page, and the issue-12 targets they are held to.
DEV_CSV = {k: f"tests/validation/{k}_dev.csv" for k in ("throughput", "llm", "memory")}
MEMORY_TERMS = ["weights", "gradients", "optimizer", "activations", "kv_cache", "workspace", "context",
                "fragmentation", "total"]
TIME_TERMS = ["forward_s", "backward_s", "recompute_s", "optimizer_s", "tp_comm_s", "dp_comm_exposed_s",
              "pp_bubble_s", "step_s"]


def build(site):
    bytes_per_param(site)
    worked_examples(site)
    rules(site, "method")
    compile_bandwidth(site)
    missing_peaks(site)
    validation(site)
    accuracy(site)


def recipe_rows(site, base, recipes):
    """Bytes per parameter of each recipe: the memory terms of `base` with SGD (no states) and
    AdamW (two), divided by the parameter count."""
    rows = []
    for prec, extra in recipes:
        # SGD keeps no states, so --optimizer-state-dtype (Adam's moments) is left out for it.
        cut = extra.index("--optimizer-state-dtype") if "--optimizer-state-dtype" in extra else len(extra)
        sgd = site.cli.json(base + ["--precision", prec, "--optimizer", "sgd"] + extra[:cut] + extra[cut + 2:])
        adam = site.cli.json(base + ["--precision", prec, "--optimizer", "adamw"] + extra)
        n = sgd["params"]
        weights, grads, master = (sgd["memory_bytes"][k] / n for k in ("weights", "gradients", "optimizer"))
        state = (adam["memory_bytes"]["optimizer"] / n - master) / 2
        rows.append([f"`{' '.join([prec] + extra)}`", sig(weights), sig(grads), sig(master), sig(state),
                     f"**{sig(weights + grads + master + 2 * state)}**"])
    return rows


def bytes_per_param(site):
    """Read back from the core: ResNet-50 is a layer graph, so every parameter is a matrix
    (convolution) parameter and the 16-bit cast copy applies to all; Transformer Engine's recipes
    on LLaMA-2-7B, whose block matrices (96 % of its parameters) they quantise."""
    site.out.render("method-bytes-per-param", rows=recipe_rows(site, R50, RECIPES))
    site.out.render("method-bytes-per-param-te", rows=recipe_rows(site, LLAMA, TE_RECIPES))
    context = site.cli.json(R50)["memory_bytes"]["context"]
    site.out.render("method-context", bytes=sig(context, 4), mib=sig(context / 2**20, 4))


def worked_examples(site):
    cli = site.cli
    ex = cli.json(EXAMPLE_ARGS)
    f, t = ex["flops"], ex["time"]
    site.out.render("method-example-memory", command=cli.display(EXAMPLE_ARGS), ex=ex, terms=MEMORY_TERMS)
    site.out.render("method-example-flops", f=f, t=t,
                    rule=f["params_rule_per_token"] * ex["global_batch"] * ex["seq_len"])
    site.out.render("method-example-time", rows=[[k, sig(t[k], 4)] for k in TIME_TERMS])
    comm = cli.json(COMM_ARGS)
    site.out.render("method-example-comm", command=cli.display(COMM_ARGS), t=comm["time"],
                    last_backward_s=comm["time"]["backward_s"] / max(comm["grad_accum_steps"], 1))
    inp = cli.json(INPUT_ARGS)
    site.out.render("method-example-input", command=cli.display(INPUT_ARGS), t=inp["time"],
                    rate=site.cat.assumption("jpeg_decode_images_per_s_per_core"))
    sp = cli.json(SPOT_ARGS)
    site.out.render("method-example-spot", command=cli.display(SPOT_ARGS), c=sp["cost"])
    mfu = cli.json(MFU_ARGS)
    site.out.render("method-mfu-note", command=cli.display(MFU_ARGS), mfu=mfu["time"]["mfu"],
                    peak=mfu["time"]["peak_flop_per_s"])


def rules(site, page):
    """The assumptions and the pricing rules from data/, on the Method and the Data page."""
    a = site.cat.assumptions
    rows = [{"key": k, "value": fact.get("value"), "source": source_ref_parts(a["sources"], fact["source"]),
             "note": fact.get("note", "").strip()} for k, fact in a["assumptions"].items()]
    site.out.render(f"{page}-assumptions", "assumptions", rows=rows, note=a.get("note", ""))
    r = site.cat.pricing_rules
    site.out.render(f"{page}-pricing-rules", "pricing-rules", discounts=r["discounts"], src=r.get("source", {}),
                    note=r.get("note", ""))


def compile_bandwidth(site):
    """The two memory-bound efficiencies --compile chooses between, with their sources."""
    a = site.cat.assumptions
    facts = {}
    for key in ("eager_memory_bound_efficiency", "hbm_efficiency"):
        fact = a["assumptions"][key]
        facts[key] = {"value": fact["value"], "source": source_ref_parts(a["sources"], fact["source"])}
    site.out.render("method-compile", eager=facts["eager_memory_bound_efficiency"], fused=facts["hbm_efficiency"])


def missing_peaks(site):
    missing = []
    for gid, g in sorted(site.cat.gpus.items()):
        have = set(g.get("peak_dense_flop_per_s", {}))
        lack = [p for p in ["fp32", "tf32", "fp16", "bf16", "fp8"] if p not in have]
        if lack:
            missing.append([f"`{gid}`", ", ".join(lack)])
    site.out.render("method-missing-peaks", rows=missing)


def validation(site):
    csv = os.path.join(ROOT, "tests", "validation", "throughput_dev.csv")
    if not (site.cli.has_command("validate") and os.path.exists(csv)):
        site.out.render("method-validation-summary", v=None)
        site.out.render("method-validation", rows=[])
        return
    v = site.cli.json(["validate", os.path.relpath(csv, ROOT)])
    site.validation = v
    families = {}
    for r in v["rows"]:
        families.setdefault(r["model"], []).append(abs(r["error"]))
    site.out.render("method-validation-summary", v=v, max_error=max(abs(r["error"]) for r in v["rows"]),
                    over=sum(1 for r in v["rows"] if r["error"] > 0),
                    families=[(m, sum(e) / len(e), len(e)) for m, e in sorted(families.items())])
    rows = [[r["id"], f"`{r['model']}`", f"`{r['gpu']}`", r["metric"].replace("_", " "), sig(r["measured"], 4),
             sig(r["predicted"], 4), f"{'+' if r['error'] >= 0 else ''}{sig(100 * r['error'], 3)} %"] for r in v["rows"]]
    site.out.render("method-validation", rows=rows)


def csv_columns(rel, column):
    """{row id: value of `column`} of a validation CSV (its # comment lines skipped); the JSON of
    `gpuplan validate` does not repeat every setup column."""
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    return {r["id"]: r.get(column, "") for r in rows}


def mape(rows):
    return sum(abs(r["error"]) for r in rows) / len(rows) if rows else None


def by(rows, key):
    """[(label, MAPE, row count)] per value of key(row), sorted by label."""
    groups = {}
    for r in rows:
        groups.setdefault(key(r), []).append(r)
    return [(label, mape(g), len(g)) for label, g in sorted(groups.items())]


def accuracy(site):
    """The error per family on the development data (issue 12): throughput by model and task, LLM
    tokens/s and MFU by GPU and by checkpointing, memory by measured term; and how many runs that
    really ran are called "does not fit"."""
    if not (site.cli.has_command("validate") and all(os.path.exists(os.path.join(ROOT, p))
                                                      for p in DEV_CSV.values())):
        site.out.render("method-accuracy", a=None)
        return
    runs = {k: site.cli.json(["validate", p]) for k, p in DEV_CSV.items()}
    tasks = csv_columns(DEV_CSV["throughput"], "task")
    ckpt = csv_columns(DEV_CSV["llm"], "checkpointing")
    thr = runs["throughput"]["rows"]
    llm = runs["llm"]["rows"]
    tps = [r for r in llm if r["metric"] == "tokens_per_s_per_gpu"]
    mfu = [r for r in llm if r["metric"] == "mfu"]
    memory = runs["memory"]["rows"]
    a = {"throughput": (mape(thr), len(thr)), "tps": (mape(tps), len(tps)), "mfu": (mape(mfu), len(mfu)),
         "memory": (mape(memory), len(memory)),
         "throughput_families": by(thr, lambda r: f"`{r['model']}` {r.get('task') or tasks.get(r['id'], '')}"),
         "tps_by_gpu": by(tps, lambda r: f"`{r['gpu']}`"), "mfu_by_gpu": by(mfu, lambda r: f"`{r['gpu']}`"),
         "tps_by_checkpointing": by(tps, lambda r: f"`{r.get('checkpointing') or ckpt.get(r['id']) or '?'}`"),
         "mfu_by_checkpointing": by(mfu, lambda r: f"`{r.get('checkpointing') or ckpt.get(r['id']) or '?'}`"),
         "memory_by_mode": by(memory, lambda r: f"`{r['mode']}`"),
         "not_fit": [r["id"] for r in thr + llm if r.get("fit") == "does not fit"],
         "tight": [r["id"] for r in thr + llm if r.get("fit") == "tight"],
         "fit_rows": len(thr) + len(llm), "commands": [site.cli.display(["validate", p, "--json"])
                                                      for p in DEV_CSV.values()]}
    site.out.render("method-accuracy", a=a)
    band_coverage(site, runs)


def band_coverage(site, runs):
    """The held-out band coverage of the development tables' step-time rows, per source (each
    row's band computed without its own source; the Benchmarks page has every row)."""
    rows = [r for k in ("throughput", "llm") for r in runs[k]["rows"]
            if r["metric"] != "mfu" and r.get("band", {}).get("stated")]
    sources = {}
    for r in rows:
        sources.setdefault(r["source"], []).append(r["band"]["inside"])
    table = [[f"`{src}`", len(v), sum(v), pct_of(sum(v), len(v))] for src, v in sorted(sources.items())]
    inside = sum(1 for r in rows if r["band"]["inside"])
    site.out.render("method-band-coverage", rows=table, total=len(rows), inside=inside,
                    overall=pct_of(inside, len(rows)))


def pct_of(n, d):
    return f"{sig(100 * n / d, 3)} %" if d else "–"
