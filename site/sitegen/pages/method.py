"""Method page: bytes per parameter, worked examples (memory, FLOPs, time, communication, input,
spot), the assumptions and pricing rules, known limits, and the validation against measurements."""

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
MEMORY_TERMS = ["weights", "gradients", "optimizer", "activations", "kv_cache", "workspace", "context",
                "fragmentation", "total"]
TIME_TERMS = ["forward_s", "backward_s", "recompute_s", "optimizer_s", "tp_comm_s", "dp_comm_exposed_s",
              "pp_bubble_s", "step_s"]


def build(site):
    bytes_per_param(site)
    worked_examples(site)
    rules(site, "method")
    missing_peaks(site)
    validation(site)


def bytes_per_param(site):
    """Read back from the core: ResNet-50 is a layer graph, so every parameter is a matrix
    (convolution) parameter and the 16-bit cast copy applies to all."""
    rows = []
    for prec in ["fp32", "tf32", "fp16", "bf16", "amp-fp16", "amp-bf16", "fp8"]:
        sgd = site.cli.json(R50 + ["--precision", prec, "--optimizer", "sgd"])
        adam = site.cli.json(R50 + ["--precision", prec, "--optimizer", "adamw"])
        n = sgd["params"]
        weights, grads, master = (sgd["memory_bytes"][k] / n for k in ("weights", "gradients", "optimizer"))
        state = (adam["memory_bytes"]["optimizer"] / n - master) / 2
        rows.append([f"`{prec}`", sig(weights), sig(grads), sig(master), sig(state),
                     f"**{sig(weights + grads + master + 2 * state)}**"])
    site.out.render("method-bytes-per-param", rows=rows)
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
