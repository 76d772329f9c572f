"""Home and Calculator pages: catalog counts, two CLI outputs, the CLI's help and the URL keys
(the key table, from `gpuplan keys --json`)."""

from ..facts import parse_date
from ..format import code_block

PLAN_ARGS = ["plan", "--model", "gpt2-small", "--batch", "64", "--seq", "1024", "--precision", "amp-bf16",
             "--tokens", "1e9", "--top", "5"]
ESTIMATE_ARGS = ["estimate", "--model", "llama-2-7b", "--batch", "8", "--seq", "4096", "--precision", "amp-bf16",
                 "--checkpointing", "selective", "--gpu", "h100-sxm5-80gb", "--gpus", "8", "--dp", "8", "--zero", "3"]


def build(site):
    cat, cli = site.cat, site.cli
    site.out.render("build-info", date=site.build_date.isoformat(), revision=site.revision)
    providers = sorted({i["provider"] for i in cat.instances.values()})
    site.out.render("home-counts", n_models=len(cat.models), n_gpus=len(cat.gpus), n_instances=len(cat.instances),
                    providers=providers, n_prices=sum(len(i["prices"]) for i in cat.instances.values()),
                    newest=max((d for _, _, p in cat.prices() if (d := parse_date(p.get("date")))),
                               default="–"))
    for name, args in (("home-plan.md", PLAN_ARGS), ("home-estimate.md", ESTIMATE_ARGS)):
        site.out.write(name, code_block("$ " + cli.display(args) + "\n" + cli.run_text(args), "text"))
    site.out.write("cli-help.md", code_block("$ gpuplan --help\n" + cli.help, "text"))
    calculator_keys(site)


def bound(x):
    """A bound as the tables print it: 100,000,000 and 0.001 whole, 1e+16 short."""
    return f"{x:,.0f}" if x == int(x) and abs(x) < 1e13 else f"{x:g}"


def key_values(k):
    """A key's accepted values as the tables show them (the same in both languages)."""
    if k["type"] in ("integer", "number"):
        return f"{bound(k['min'])} – {bound(k['max'])}"
    if k["type"] == "choice":
        return k["choices"]
    return {"boolean": "0, 1", "list": "a,b,...", "text": "id"}[k["type"]]


def calculator_keys(site):
    """The link keys the calculator reads: this build's key table (`gpuplan keys --json`)."""
    keys = site.cli.json(["keys"])
    rows = [dict(k, values=key_values(k)) for k in keys]
    site.out.render("calculator-keys", known=bool(rows),
                    query=[k for k in rows if k["commands"] != "serve"],
                    serve=[k for k in rows if k["commands"] == "serve"])
