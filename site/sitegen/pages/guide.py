"""Checking the guide: every number the Chinese seed guide (shared/guide/guide.zh.txt) states,
recomputed with the core and the catalog at build time.

The guide's own figures (3.8e9 FLOPs, 900 GB/s, $0.35-0.8/h, ...) are the input being checked and
are typed once, in the claim functions of guide_perf.py and guide_market.py, as the guide states
them. Everything they are compared with comes from the CLI or data/, and each verdict follows from
that comparison in code, so a change to the core or the catalog changes the page. The prose (the
guide's quote in Chinese, its English translation, the explanation) is in the templates
templates/{en,zh}/guide/<claim>.md."""

import json

from .. import LANGS
from ..facts import BERT_FINETUNE_EPOCHS, IMAGENET_TRAIN_IMAGES, MNLI_TRAIN_EXAMPLES
from ..format import code_block
from ..render import one_paragraph
from . import guide_market, guide_perf

# Symbols that common text fonts have (no colour emoji needed).
ICONS = {"correct": "✔", "qualified": "✔", "misleading": "⚠", "wrong": "✘", "catalog": "☰"}
VERDICTS = tuple(ICONS)


class Claim:
    """One checked statement: `key` names its templates, `verdict` is one of VERDICTS, `facts`
    are (label key, value, label arguments) rows, `ctx` what the templates' prose needs."""

    def __init__(self, key, cli, template=None):
        self.key = key
        self.template = template or key
        self.cli = cli
        self.verdict = None
        self.facts = []
        self.commands = []
        self.ctx = {}

    def run(self, args):
        self.commands.append(self.cli.display(args) + " --json")
        return self.cli.json(args)

    def fact(self, label, value, **args):
        self.facts.append((label, value, args))


def check_all(site):
    """The claims in the order the guide makes them."""
    perf, market = guide_perf.Checks(site, Claim), guide_market.Checks(site, Claim)
    claims = [perf.resnet50(), perf.bert_large_memory(), perf.h100_100b(), perf.a100_bandwidth(),
              market.tier_gpus("entry"), market.tier_prices("entry"), perf.t4_fp16(), perf.resnet18_t4(),
              market.tier_gpus("mid"), market.tier_prices("mid"), perf.a40_fp32(), perf.bert_glue(),
              market.tier_gpus("high"), market.tier_prices("high"), perf.h100_fp8(), perf.h100_vs_v100(),
              market.spot(), perf.amp(), perf.dali(), perf.gpt3(),
              market.aws_p4d(), market.alibaba_gn6i(), market.tencent_gn10xp(), perf.blackwell(),
              market.govcloud()]
    for c in claims:
        if c.verdict not in VERDICTS:
            raise ValueError(f"guide check: claim {c.key} has no verdict")
    site.config_100b = perf.config_100b
    return claims


def render(site, claims, lang):
    """The claims' rows for the summary table and the sections of one language."""
    entries = []
    for n, c in enumerate(claims, 1):
        text = site.out.module(lang, f"guide/{c.template}", **c.ctx)
        facts = [[text.labels[label].format(**args), value] for label, value, args in c.facts]
        entry = {"n": n, "anchor": c.key, "verdict": c.verdict, "icon": ICONS[c.verdict], "title": text.title,
                 "quote": text.quote, "short": one_paragraph(text.short),
                 "reason": one_paragraph(text.reason), "facts": facts,
                 "commands": code_block("\n".join(dict.fromkeys(c.commands)), "sh") if c.commands else None}
        entries.append(entry)
    return entries


def build(site):
    claims = check_all(site)
    site.claims = claims
    for lang in LANGS:
        entries = render(site, claims, lang)
        for part in ("table", "details"):
            template = site.out.env.get_template(f"{lang}/guide-check-{part}.md")
            site.out.write(f"guide-check-{part}.{lang}.md", template.render(claims=entries))
    site.out.render("guide-check-datasets", imagenet=IMAGENET_TRAIN_IMAGES, mnli=MNLI_TRAIN_EXAMPLES,
                    epochs=BERT_FINETUNE_EPOCHS)
    site.out.write("guide-check-config-100b.md", code_block(json.dumps(site.config_100b, indent=2), "json"))


def quotes(site, lang):
    """Every claim's quote in one language (tests: the Chinese ones are verbatim from the guide)."""
    return [site.out.module(lang, f"guide/{c.template}", **c.ctx).quote for c in site.claims]

