#!/usr/bin/env python3
"""Tests of the guide check (site/sitegen/pages/guide*.py): the Chinese quotes are the guide's own
words, every number the guide states is quoted by some claim, and each verdict is computed — a
changed catalog fact or CLI result changes it. Runs the real CLI once, then checks claims on
modified copies of its catalog.

Environment: GPUPLAN_CLI (the gpuplan binary). usage: python3 tests/site/test_guide_check.py
"""

import copy
import os
import re
import sys
import tempfile
import unittest
from types import SimpleNamespace

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "site"))

from sitegen.cli import Cli  # noqa: E402
from sitegen.facts import Catalog  # noqa: E402
from sitegen.pages import guide, guide_market, guide_perf  # noqa: E402
from sitegen.render import Fragments  # noqa: E402

CLI = os.environ.get("GPUPLAN_CLI", os.path.join(ROOT, "build", "native", "tools", "cli", "gpuplan"))
GUIDE = os.path.join(ROOT, "site", "guide.zh.txt")  # the seed guide, verbatim
NUMBER = re.compile(r"(?<![A-Za-z0-9_.\-])\d+(?:\.\d+)?")


def guide_numbers(text):
    """The numbers the guide states: not section or list numbering, not the code sample, not
    digits inside names (ResNet-50, A100, FP16, GN6i)."""
    numbers = []
    for line in text.splitlines():
        if line.startswith("   ") and "•" not in line:
            continue  # the AMP code sample
        line = re.sub(r"^\s*\d+\.\s", "", line.replace("get_device_properties(0)", ""))
        numbers += NUMBER.findall(line)
    return numbers


class CliScaled:
    """The real CLI, with every estimate's step time multiplied by `factor`."""

    def __init__(self, cli, factor):
        self.cli, self.factor = cli, factor
        self.display, self.run_text, self.has_command = cli.display, cli.run_text, cli.has_command

    def json(self, args, ok_codes=(0,)):
        r = self.cli.json(args, ok_codes)
        if isinstance(r, dict) and "time" in r:
            r = copy.deepcopy(r)
            r["time"]["step_s"] *= self.factor
        return r


class GuideCheck(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(CLI, os.X_OK):
            raise unittest.SkipTest(f"no gpuplan CLI at {CLI} (make native)")
        cls.tmp = tempfile.TemporaryDirectory()
        cls.cli = Cli(CLI)
        cls.cat = Catalog(cls.cli, os.path.join(ROOT, "data"))
        cls.site = cls.make_site(cls.cat)
        cls.claims = guide.check_all(cls.site)
        cls.site.claims = cls.claims

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @classmethod
    def make_site(cls, cat, cli=None):
        return SimpleNamespace(cli=cli or cls.cli, cat=cat, args=SimpleNamespace(work=cls.tmp.name),
                               validation=None, out=Fragments(os.path.join(cls.tmp.name, "snippets")))

    def market(self, cat):
        return guide_market.Checks(self.make_site(cat), guide.Claim)

    def verdict(self, key):
        return next(c.verdict for c in self.claims if c.key == key)

    # --- quotes -----------------------------------------------------------------------------
    def test_chinese_quotes_are_the_guides_words(self):
        with open(GUIDE, encoding="utf-8") as f:
            text = re.sub(r"\s+", "", f.read())
        quotes = guide.quotes(self.site, "zh")
        self.assertEqual(len(quotes), len(self.claims))
        for q in quotes:
            self.assertIn(re.sub(r"\s+", "", q), text)

    def test_every_number_of_the_guide_is_quoted(self):
        with open(GUIDE, encoding="utf-8") as f:
            stated = guide_numbers(f.read())
        quoted = set(NUMBER.findall(" ".join(guide.quotes(self.site, "zh"))))
        self.assertGreater(len(stated), 35)
        self.assertEqual(sorted(set(stated) - quoted), [])
        self.assertEqual(guide_numbers("1. 算力：约3.8×10^9次，A100（19.5 TFLOPS）\n   x = f(2)"),
                         ["3.8", "10", "9", "19.5"])

    def test_english_quotes_keep_the_numbers(self):
        en, zh = guide.quotes(self.site, "en"), guide.quotes(self.site, "zh")
        for e, z in zip(en, zh):
            self.assertEqual(sorted(NUMBER.findall(e)), sorted(NUMBER.findall(z)), e)

    def test_every_claim_has_a_verdict_and_named_providers_are_checked(self):
        for c in self.claims:
            self.assertIn(c.verdict, guide.VERDICTS, c.key)
        for key in ("aws-p4d", "alibaba-gn6i", "tencent-gn10xp", "govcloud"):
            self.assertIn(self.verdict(key), ("correct", "qualified", "misleading", "wrong"), key)

    # --- verdicts follow their inputs ----------------------------------------------------------
    def test_a100_bandwidth_follows_the_catalog(self):
        self.assertEqual(self.verdict("a100-bandwidth"), "wrong")
        cat = copy.deepcopy(self.cat)
        cat.gpus["a100-pcie-40gb"]["memory_bandwidth_bytes_per_s"]["value"] = 900e9
        perf = guide_perf.Checks(self.make_site(cat), guide.Claim)
        self.assertEqual(perf.a100_bandwidth().verdict, "correct")

    def test_t4_peak_follows_the_catalog(self):
        self.assertEqual(self.verdict("t4-fp16"), "qualified")
        cat = copy.deepcopy(self.cat)
        cat.gpus["t4"]["peak_dense_flop_per_s"]["fp16"]["value"] = 32.5e12
        self.assertEqual(guide_perf.Checks(self.make_site(cat), guide.Claim).t4_fp16().verdict, "wrong")

    def test_resnet50_follows_the_predicted_step_time(self):
        self.assertEqual(self.verdict("resnet50-flops"), "wrong")
        fast = guide_perf.Checks(self.make_site(self.cat, CliScaled(self.cli, 0.1)), guide.Claim)
        self.assertEqual(fast.resnet50().verdict, "qualified")

    def test_mi25_becomes_an_option_when_an_instance_rents_it(self):
        self.assertEqual(self.verdict("entry-gpus"), "misleading")
        cat = copy.deepcopy(self.cat)
        cat.instances_data["test-mi25"] = dict(copy.deepcopy(cat.instances_data["aws-g4dn.xlarge"]), gpu="mi25")
        self.assertEqual(self.market(cat).tier_gpus("entry").verdict, "correct")
        cat.gpus_data["t4"]["specs"]["memory_bytes"]["value"] = 24e9
        self.assertEqual(self.market(cat).tier_gpus("entry").verdict, "wrong")

    def test_tier_prices_follow_the_catalog(self):
        cat = copy.deepcopy(self.cat)
        for inst in cat.instances_data.values():
            if inst["gpu"] in ("a40", "v100-sxm2-32gb", "v100-pcie-32gb"):
                for p in inst["prices"]:
                    p["on_demand_usd_per_hour"] = 2.0
                    p["reserved_1y_usd_per_hour"] = 1.2
        self.assertEqual(self.market(cat).tier_prices("mid").verdict, "correct")
        for inst in cat.instances_data.values():
            for p in inst["prices"]:
                p["reserved_1y_usd_per_hour"] = p["reserved_3y_usd_per_hour"] = None
        self.assertEqual(self.market(cat).tier_prices("mid").verdict, "misleading")

    def test_provider_pairs_prefer_the_catalog(self):
        self.assertEqual(self.verdict("alibaba-gn6i"), "wrong")
        cat = copy.deepcopy(self.cat)
        # The catalog's own gn6i instances (T4) would outvote the V100 one added here.
        for iid in [i for i, inst in cat.instances.items() if inst.get("provider") == "alibaba"
                    and ".gn6i-" in f".{inst.get('instance_type', '')}"]:
            del cat.instances[iid], cat.instances_data[iid]
        v100 = dict(copy.deepcopy(cat.instances["aws-p3.2xlarge"]), id="alibaba-test", provider="alibaba",
                    instance_type="ecs.gn6i-c4g1.xlarge")
        cat.instances["alibaba-test"] = v100
        cat.instances_data["alibaba-test"] = dict(copy.deepcopy(cat.instances_data["aws-p3.2xlarge"]),
                                                  provider="alibaba")
        c = self.market(cat).alibaba_gn6i()
        self.assertEqual((c.verdict, c.ctx["fallback"], c.ctx["found"]), ("qualified", None, ["alibaba-test"]))

    def test_spot_follows_sourced_spot_prices(self):
        cat = copy.deepcopy(self.cat)
        for inst in cat.instances_data.values():
            for p in inst["prices"]:
                if p.get("on_demand_usd_per_hour"):
                    p["spot_usd_per_hour"] = 0.9 * p["on_demand_usd_per_hour"]
        self.assertEqual(self.market(cat).spot().verdict, "wrong")

    def test_govcloud_follows_the_compliance_flags(self):
        self.assertEqual(self.verdict("govcloud"), "misleading")
        cat = copy.deepcopy(self.cat)
        for r in cat.providers_data["aws"]["regions"]:
            if r["compliance"].get("gov", {}).get("value"):
                r["compliance"]["gdpr_eu"]["value"] = True
        self.assertEqual(self.market(cat).govcloud().verdict, "correct")


if __name__ == "__main__":
    unittest.main()
