"""Home and Calculator pages: catalog counts, two CLI outputs, the CLI's help and the URL keys."""

import os
import re

from .. import ROOT
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


def read_matches(rel, pattern):
    try:
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            return re.findall(pattern, f.read(), re.S)
    except OSError:
        return []


def calculator_keys(site):
    """The URL keys the calculator reads, from the sources that parse them."""
    block = read_matches("core/src/query/request.cpp", r"request_keys\(\)\s*\{.*?\{(.*?)\};")
    request = re.findall(r'"([a-z0-9-]+)"', block[0]) if block else []
    page = list(dict.fromkeys(read_matches("web/model/page_state.cpp", r'\bk == "([a-z0-9-]+)"')))
    custom = [k for k in page if k == "custom" or k.startswith("c-") or k.startswith("cnn")]
    groups = {"request": request, "custom": custom,
              "hardware": [k for k in page if k not in custom and k != "tab"],
              "tab": [k for k in page if k == "tab"]}
    site.out.render("calculator-keys", known=bool(request and page),
                    groups={g: ", ".join(f"`{k}`" for k in keys) for g, keys in groups.items() if keys})
