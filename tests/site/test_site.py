#!/usr/bin/env python3
"""Tests of the documentation site: its generated numbers against the CLI, the price-staleness
rule, the Benchmarks page for valid, tampered, unsigned and unreadable probe files, and the link
checker itself.

Environment: GPUPLAN_SITE_DIR (the built site, from site.build), GPUPLAN_CLI (the gpuplan binary),
GPUPLAN_SITE_WORK (the generator's staging folder of that build, holding its snippets).
usage: python3 -m unittest tests/site/test_site.py   (or run this file)
"""

import base64
import datetime as dt
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "site"))
sys.path.insert(0, HERE)

import check_links  # noqa: E402
import gen_site  # noqa: E402

SITE = os.environ.get("GPUPLAN_SITE_DIR", os.path.join(ROOT, "build", "site"))
WORK = os.environ.get("GPUPLAN_SITE_WORK", os.path.join(ROOT, "site", "build"))
CLI = os.environ.get("GPUPLAN_CLI", os.path.join(ROOT, "build", "native", "tools", "cli", "gpuplan"))
PROBE_FIXTURE = os.path.join(ROOT, "tests", "probe", "fixtures", "simulated-h100x2.probe.json")


def page_text(rel):
    """The visible text of a built page, whitespace collapsed."""
    with open(os.path.join(SITE, rel), encoding="utf-8") as f:
        raw = f.read()
    text = html.unescape(re.sub(r"<[^>]+>", "", raw))
    return re.sub(r"\s+", " ", text)


def cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True, check=True).stdout


def norm(s):
    return re.sub(r"\s+", " ", s).strip()


class BuiltSite(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(os.path.join(SITE, "index.html")):
            raise unittest.SkipTest(f"no built site in {SITE} (run make site)")

    def test_every_page_of_the_nav_was_built(self):
        for rel in ["index.html", "calculator-help/index.html", "method/index.html", "data/index.html",
                    "probe/index.html", "benchmarks/index.html", "guide-check/index.html", "zh/index.html",
                    "zh/calculator-help/index.html", "zh/guide-check/index.html", "calculator/index.html",
                    "calculator/index.wasm", "calculator/index.js", "assets/calculator.png"]:
            self.assertTrue(os.path.isfile(os.path.join(SITE, rel)), rel)

    def test_home_examples_are_the_cli_output_of_this_build(self):
        # The home page shows `gpuplan plan` and `gpuplan estimate` outputs: run the same commands
        # now and find their output, unchanged, on the page.
        home = page_text("index.html")
        plan = cli("plan", "--model", "gpt2-small", "--batch", "64", "--seq", "1024", "--precision", "amp-bf16",
                   "--tokens", "1e9", "--top", "5")
        est = cli("estimate", "--model", "llama-2-7b", "--batch", "8", "--seq", "4096", "--precision", "amp-bf16",
                  "--checkpointing", "selective", "--gpu", "h100-sxm5-80gb", "--gpus", "8", "--dp", "8", "--zero", "3")
        self.assertIn(norm(plan), home)
        self.assertIn(norm(est), home)
        self.assertIn(norm(cli("--help")), page_text("calculator-help/index.html"))

    def test_catalog_counts_on_home_match_the_cli(self):
        n_models = len(json.loads(cli("models", "--json")))
        n_gpus = len(json.loads(cli("gpus", "--json")))
        n_inst = len(json.loads(cli("instances", "--json")))
        home = page_text("index.html")
        self.assertIn(f"{n_models} models, {n_gpus} GPUs, {n_inst} instance types", home)
        self.assertIn(f"{n_models} 个模型、{n_gpus} 种 GPU", page_text("zh/index.html"))

    def test_guide_check_numbers_come_from_the_cli(self):
        page = page_text("guide-check/index.html")
        gpus = {g["id"]: g for g in json.loads(cli("gpus", "--json"))}
        for gid in ("a100-pcie-40gb", "a100-sxm4-80gb"):
            bw = gpus[gid]["memory_bandwidth_bytes_per_s"]["value"] / 1e9
            self.assertIn(f"{gid} memory bandwidth {gen_site.sig(bw, 4)} GB/s", page)
        r50 = json.loads(cli("estimate", "--model", "resnet50", "--batch", "1", "--json"))
        macs = r50["flops"]["forward_matmul_per_sample"] / 2
        self.assertIn(gen_site.sig(macs), page)
        # Every claim has a verdict, in both languages: once in the summary, once in its section.
        import guide_check
        zh = page_text("zh/guide-check/index.html")
        n_claims = len(guide_check.TITLES)
        for text, lang in ((page, 0), (zh, 1)):
            labels = sorted((v[lang] for v in guide_check.VERDICTS.values()), key=len, reverse=True)
            found = len(re.findall("|".join(re.escape(x) for x in labels), text))
            self.assertGreaterEqual(found, 2 * n_claims, "verdicts on the page")

    def test_probe_page_names_every_case_the_probe_lists(self):
        probe = gen_site.find_probe_binary(os.environ.get("GPUPLAN_PROBE"))
        if not probe:
            self.skipTest("no gpuplan-probe binary in this build")
        listing = subprocess.run([probe, "--list"], capture_output=True, text=True, check=True).stdout
        cases = [ln.split()[0] for ln in listing.splitlines() if ln.strip()]
        self.assertGreater(len(cases), 5)
        with open(os.path.join(SITE, "probe", "index.html"), encoding="utf-8") as f:
            raw = f.read()
        table = raw[raw.find('id="what-each-case-measures"'):raw.find('id="how-it-measures"')]
        for case in cases:
            self.assertIn(f"<code>{case}</code>", table, f"the probe guide's case table describes {case}")

    def test_stale_prices_are_flagged_by_age(self):
        info = page_text("data/index.html")
        m = re.search(r"Build date (\d{4}-\d{2}-\d{2}): (\d+) of (\d+) prices are older than (\d+) days", info)
        self.assertIsNotNone(m, "the Data page states its build date and stale count")
        build = dt.date.fromisoformat(m.group(1))
        with open(os.path.join(SITE, "data", "index.html"), encoding="utf-8") as f:
            raw = f.read()
        stale = ok = 0
        for row in re.findall(r"<tr>(.*?)</tr>", raw, re.S):
            cells = [norm(html.unescape(re.sub(r"<[^>]+>", "", c))) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            if len(cells) == 10 and re.fullmatch(r"\d{4}-\d{2}-\d{2}", cells[6]):
                age = (build - dt.date.fromisoformat(cells[6])).days
                self.assertEqual(cells[7], str(age))
                if cells[8].startswith("⚠"):
                    self.assertGreater(age, gen_site.STALE_DAYS)
                    stale += 1
                else:
                    self.assertLessEqual(age, gen_site.STALE_DAYS)
                    ok += 1
        self.assertEqual(stale, int(m.group(2)))
        self.assertEqual(stale + ok, int(m.group(3)))

    def test_no_link_in_the_site_is_broken(self):
        problems, checked = check_links.check(SITE)
        self.assertEqual(problems, [])
        self.assertGreater(checked, 100)


class Staleness(unittest.TestCase):
    def test_price_age(self):
        build = dt.date(2026, 11, 30)
        self.assertEqual(gen_site.price_age("2026-06-03", build), (180, False))
        self.assertEqual(gen_site.price_age("2026-06-02", build), (181, True))
        self.assertEqual(gen_site.price_age("2026-11-30", build), (0, False))
        self.assertEqual(gen_site.price_age(None, build), (None, True))
        self.assertEqual(gen_site.price_age("30/11/2026", build), (None, True))


class BenchmarksPage(unittest.TestCase):
    def test_valid_tampered_unsigned_and_unreadable_files(self):
        if not os.path.exists(PROBE_FIXTURE):
            self.skipTest("no signed probe fixture in tests/probe/fixtures")
        if "verify" not in cli("--help"):
            self.skipTest("this CLI has no verify command")
        with tempfile.TemporaryDirectory() as tmp:
            bench = os.path.join(tmp, "benchmarks")
            os.makedirs(bench)
            shutil.copy(PROBE_FIXTURE, os.path.join(bench, "a-valid.json"))
            with open(PROBE_FIXTURE, encoding="utf-8") as f:
                env = json.load(f)
            payload = base64.b64decode(env["payload"]).decode()
            changed = payload.replace('"gpu_count": 2', '"gpu_count": 3')
            self.assertNotEqual(changed, payload)
            with open(os.path.join(bench, "b-tampered.json"), "w", encoding="utf-8") as f:
                json.dump(dict(env, payload=base64.b64encode(changed.encode()).decode()), f)
            with open(os.path.join(bench, "c-unsigned.json"), "w", encoding="utf-8") as f:
                f.write(payload)
            with open(os.path.join(bench, "d-garbage.json"), "w", encoding="utf-8") as f:
                f.write("{not json")
            work = os.path.join(tmp, "work")
            rc = gen_site.main(["--cli", CLI, "--fragments-only", "--work", work, "--benchmarks", bench,
                                "--date", "2026-11-30"])
            self.assertEqual(rc, 0)
            with open(os.path.join(work, "snippets", "benchmarks.md"), encoding="utf-8") as f:
                md = f.read()
        rows = {r.split("|")[1].strip(): r for r in md.splitlines() if r.startswith("| `")}
        self.assertIn("valid signature", rows["`a-valid.json`"])
        self.assertIn("simulated", rows["`a-valid.json`"])
        self.assertIn("invalid signature", rows["`b-tampered.json`"])
        self.assertNotIn("TFLOPS", rows["`b-tampered.json`"], "a tampered file's figures are not shown")
        self.assertIn("unsigned", rows["`c-unsigned.json`"])
        self.assertIn("unreadable", rows["`d-garbage.json`"])

    def test_no_files_says_so(self):
        with tempfile.TemporaryDirectory() as tmp:
            empty = os.path.join(tmp, "none")
            os.makedirs(empty)
            work = os.path.join(tmp, "work")
            self.assertEqual(gen_site.main(["--cli", CLI, "--fragments-only", "--work", work, "--benchmarks", empty,
                                            "--date", "2026-11-30"]), 0)
            with open(os.path.join(work, "snippets", "benchmarks.md"), encoding="utf-8") as f:
                self.assertIn("There are no probe files", f.read())


class LinkChecker(unittest.TestCase):
    def write(self, root, rel, body):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"<html><body>{body}</body></html>")

    def test_finds_missing_files_anchors_and_root_links(self):
        with tempfile.TemporaryDirectory() as site:
            self.write(site, "index.html", '<a href="a/">ok</a> <a href="a/#sec">ok</a> <a href="a/#nope">bad</a>'
                                           ' <a href="missing/">bad</a> <a href="/a/">bad</a>'
                                           ' <a href="calculator/index.html#model=x&amp;batch=2">ok</a>'
                                           ' <a href="https://example.org/x">external</a> <a href="../up.html">bad</a>')
            self.write(site, "a/index.html", '<h2 id="sec">S</h2><img src="../img.png">')
            self.write(site, "calculator/index.html", "")
            with open(os.path.join(site, "img.png"), "wb") as f:
                f.write(b"png")
            problems, checked = check_links.check(site)
        self.assertEqual(checked, 8)
        joined = "\n".join(problems)
        self.assertEqual(len(problems), 4, joined)
        self.assertIn("no id 'nope'", joined)
        self.assertIn("missing/index.html does not exist", joined)
        self.assertIn("root-relative", joined)
        self.assertIn("outside the site", joined)

    def test_404_page_links_start_with_the_base_path(self):
        with tempfile.TemporaryDirectory() as site:
            self.write(site, "index.html", "")
            self.write(site, "404.html", '<a href="/REPO/">home</a> <a href="/other/">bad</a>')
            problems, _ = check_links.check(site, "/REPO/")
        self.assertEqual(len(problems), 1)
        self.assertIn("must start with the base path", problems[0])


if __name__ == "__main__":
    unittest.main()
