#!/usr/bin/env python3
"""Tests of the documentation site: its generated numbers against the CLI, every English page's
Chinese twin (same generated numbers, a language switch both ways), the price-staleness rule, the
Benchmarks page for valid, tampered, unsigned and unreadable probe files, and the link checker
itself.

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
from collections import Counter
from html.parser import HTMLParser

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "site"))
sys.path.insert(0, HERE)

import check_links  # noqa: E402
import gen_site  # noqa: E402
from sitegen import cli as site_cli  # noqa: E402
from sitegen import facts  # noqa: E402
from sitegen.pages import data as data_page  # noqa: E402
from sitegen.format import sig  # noqa: E402
from sitegen.render import environment  # noqa: E402

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


DOCS = os.path.join(ROOT, "site", "docs")
# A number as the pages write it; digits inside a word (H100, ResNet-50, fp16) are names.
NUMBER = re.compile(r"(?<![A-Za-z0-9_.\-])\d+(?:,\d{3})*(?:\.\d+)?")


class GeneratedParts(HTMLParser):
    """Collects the text inside <div class="gp-generated"> (nested divs included)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth, self.parts = 0, []

    def handle_starttag(self, tag, attrs):
        if tag == "div" and (self.depth or "gp-generated" in (dict(attrs).get("class") or "")):
            self.depth += 1

    def handle_endtag(self, tag):
        if tag == "div" and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.parts.append(data)


def generated_of(raw):
    p = GeneratedParts()
    p.feed(raw)
    return " ".join(p.parts)


def generated_text(rel):
    """The text of a built page's generated fragments, in order."""
    with open(os.path.join(SITE, rel), encoding="utf-8") as f:
        return generated_of(f.read())


def english_pages():
    return sorted(f for f in os.listdir(DOCS) if f.endswith(".md"))


def cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True, check=True).stdout


def norm(s):
    return re.sub(r"\s+", " ", s).strip()


def leading_value(cell):
    """The value of a table cell's leading arithmetic ("2 × (1 + 1/32)", "4, or 2 with ...",
    "2 (autocast's cache)"): the longest prefix that reads as a sum of products of numbers."""
    text = cell.replace("×", "*").strip()
    for end in range(len(text), 0, -1):
        prefix = text[:end]
        if re.fullmatch(r"[\d\s.+*/()-]+", prefix) and re.search(r"\d", prefix):
            try:
                return float(eval(prefix, {"__builtins__": {}}))  # digits and operators only
            except (SyntaxError, ZeroDivisionError):
                continue
    raise ValueError(f"no number at the start of {cell!r}")


class BuiltSite(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(os.path.join(SITE, "index.html")):
            raise unittest.SkipTest(f"no built site in {SITE} (run make site)")

    def test_every_page_of_the_nav_was_built(self):
        pages = [p[:-3] + "/index.html" if p != "index.md" else "index.html" for p in english_pages()]
        for rel in pages + ["zh/" + p for p in pages] + ["calculator/index.html", "assets/calculator.png"]:
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

    def test_benchmarks_page_lists_every_published_run_with_the_cli_prediction(self):
        doc = json.loads(cli("published", "--json"))
        self.assertTrue(doc["rows"], "gpuplan published lists no rows")
        for rel, bands in (("benchmarks/index.html", "Error bands: held-out coverage"),
                           ("zh/benchmarks/index.html", "误差区间：留出来源的覆盖率")):
            page = page_text(rel)
            page = page[:page.rfind(bands)]  # the error-band section after it lists the rows again
            self.assertIn(f"{len(doc['rows'])}", page)
            for r in doc["rows"]:
                # The row's id (its last mention: the table follows the caveats), then its error or reason.
                start = page.rfind(f" {r['id']} ")
                self.assertGreater(start, 0, f"{rel} lacks published row {r['id']}")
                if r["predicted"] is None:
                    self.assertIn(r["not_predicted"], page, f"{rel}: the reason for {r['id']}")
                else:
                    err = f"{'+' if r['error'] >= 0 else ''}{sig(100 * r['error'], 3)} %"
                    self.assertIn(err, page[start:start + 600], f"{rel}: the error of {r['id']}")
        self.assertIn(f"gpuplan predicts {doc['predicted']} of them with a mean absolute error of "
                      f"{sig(100 * doc['mape'])} %", page_text("benchmarks/index.html"))

    def test_method_accuracy_is_the_validate_error_per_family(self):
        # Recomputed here from `gpuplan validate --json` and the CSV's task/checkpointing columns.
        def validate(name):
            return json.loads(cli("validate", os.path.join(ROOT, "tests", "validation", f"{name}_dev.csv"),
                                  "--json"))["rows"]

        def column(name, col):
            with open(os.path.join(ROOT, "tests", "validation", f"{name}_dev.csv"), encoding="utf-8") as f:
                lines = [line for line in f if not line.startswith("#")]
            head = lines[0].strip().split(",")
            return {r.split(",")[0]: r.strip().split(",")[head.index(col)] for r in lines[1:]}

        def mape(rows):
            return f"{sig(100 * sum(abs(r['error']) for r in rows) / len(rows))} %"
        thr, llm = validate("throughput"), validate("llm")
        task, ckpt = column("throughput", "task"), column("llm", "checkpointing")
        r50_train = [r for r in thr if r["model"] == "resnet50" and task[r["id"]] == "train"]
        h100_mfu = [r for r in llm if r["metric"] == "mfu" and r["gpu"] == "h100-sxm5-80gb"]
        full_tps = [r for r in llm if r["metric"] == "tokens_per_s_per_gpu" and ckpt[r["id"]] == "full"]
        not_fit = sum(1 for r in thr + llm if r.get("fits") is False)
        for rel, fits in (("method/index.html", f'Runs called "does not fit": {not_fit}'),
                          ("zh/method/index.html", f"被判为“放不下”的运行：{not_fit} 次")):
            page = page_text(rel)
            self.assertIn(f"throughput_dev.csv {'throughput' if rel[0] == 'm' else '吞吐量'} {mape(thr)}", page)
            self.assertIn(f"resnet50 train {mape(r50_train)} {len(r50_train)}", page)
            self.assertIn(f"h100-sxm5-80gb {mape(h100_mfu)} {len(h100_mfu)}", page)
            self.assertIn(f"full {mape(full_tps)} {len(full_tps)}", page)
            self.assertIn(fits, page)

    def test_benchmarks_band_coverage_is_the_validate_coverage(self):
        # Each source's held-out band coverage, as `gpuplan validate --json` counts it, on both pages.
        for name in ("throughput", "llm"):
            doc = json.loads(cli("validate", os.path.join(ROOT, "tests", "validation", f"{name}_dev.csv"), "--json"))
            self.assertTrue(doc["coverage"]["by_source"], name)
            for c in doc["coverage"]["by_source"]:
                row = f"{c['key']} {c['rows']} {c['inside']} {sig(100 * c['coverage'])} %"
                for rel in ("benchmarks/index.html", "zh/benchmarks/index.html"):
                    self.assertIn(row, page_text(rel), f"{rel}: coverage of {c['key']}")

    def test_every_pool_a_band_can_name_has_its_rows_on_the_benchmarks_page(self):
        # The calculator links a band to ../benchmarks/#band-{time,memory}-<pool>: every pool of the
        # validated runs (a family, its kind and precision, its kind, all) must be an anchor there.
        with open(os.path.join(ROOT, "data", "accuracy.json"), encoding="utf-8") as f:
            table = json.load(f)
        for rel in ("benchmarks/index.html", "zh/benchmarks/index.html"):
            with open(os.path.join(SITE, rel), encoding="utf-8") as f:
                ids = set(re.findall(r'id="([^"]+)"', f.read()))
            for kind in ("time", "memory"):
                self.assertIn(f"band-{kind}-all", ids, rel)
                for r in table[kind]:
                    parts = r["family"].split("/")
                    for level in (parts[:1], parts[:2], parts):
                        self.assertIn(f"band-{kind}-" + "-".join(level), ids, f"{rel}: {r['family']}")
            # Serving pools are a family ("TTFT/TPOT at rate" -> ttft-tpot-at-rate) or all.
            self.assertIn("band-serving-all", ids, rel)
            for family in {r["family"] for r in table["serving"]}:
                slug = re.sub(r"[^a-z0-9._]+", "-", family.lower()).strip("-")
                self.assertIn(f"band-serving-{slug}", ids, f"{rel}: {family}")

    def test_hand_written_recipe_table_matches_the_core(self):
        # The Method page's recipe table (prose, both languages) against the bytes the core uses.
        for rel in ("method.md", "zh/method.md"):
            with open(os.path.join(DOCS, rel), encoding="utf-8") as f:
                text = f.read()
            table = text[text.index("| `--precision` |"):].split("\n\n")[0].splitlines()[2:]
            rows = [line.split("|")[1:-1] for line in table]
            self.assertEqual(len(rows), 8, f"{rel}: the recipe table")
            for cells in rows:
                weights, extra, grads, master, state = (leading_value(c) for c in cells[2:7])
                for prec in re.findall(r"`([a-z0-9-]+)`", cells[0]):
                    # Transformer Engine's recipes quantise the transformer blocks' Linear layers
                    # only: GPT-2 small, whose 12 blocks hold 12 x 12 h^2 matrix weights (QKV 3h^2,
                    # projection h^2, MLP 8h^2; h = 768). The others: ResNet-50, nearly all of
                    # whose parameters are convolution and linear weights.
                    te = prec in ("fp8", "fp8-blockwise", "mxfp8", "nvfp4")
                    model = "gpt2-small" if te else "resnet50"
                    out = {}
                    for opt in ("sgd", "adamw"):
                        out[opt] = json.loads(cli("estimate", "--model", model, "--batch", "1", "--precision", prec,
                                                  "--optimizer", opt, "--json"))
                    n = out["sgd"]["params"]
                    matrix = 12 * 12 * 768 ** 2 if te else n
                    mem = {opt: out[opt]["memory_bytes"] for opt in out}
                    self.assertAlmostEqual((mem["sgd"]["weights"] - weights * n) / matrix, extra, 2,
                                           f"{rel} {prec} extra per matrix weight")
                    self.assertAlmostEqual(mem["sgd"]["gradients"] / n, grads, 2, f"{rel} {prec} gradients")
                    self.assertAlmostEqual(mem["sgd"]["optimizer"] / n, master, 2, f"{rel} {prec} master")
                    self.assertAlmostEqual((mem["adamw"]["optimizer"] - mem["sgd"]["optimizer"]) / 2 / n, state, 2,
                                           f"{rel} {prec} state")

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
            self.assertIn(f"{gid} memory bandwidth {sig(bw, 4)} GB/s", page)
        r50 = json.loads(cli("estimate", "--model", "resnet50", "--batch", "1", "--json"))
        macs = r50["flops"]["forward_matmul_per_sample"] / 2
        self.assertIn(sig(macs), page)
        # Every claim has a verdict, in both languages: once in the summary, once in its section.
        with open(os.path.join(WORK, "snippets", "guide-check-table.en.md"), encoding="utf-8") as f:
            n_claims = len(re.findall(r"^\| \[\d+\]", f.read(), re.M))
        self.assertGreaterEqual(n_claims, 20)
        for lang in ("en", "zh"):
            text = page_text(("zh/" if lang == "zh" else "") + "guide-check/index.html")
            verdicts = environment().get_template(f"{lang}/_guide.md").module.verdicts.values()
            labels = sorted(verdicts, key=len, reverse=True)
            found = len(re.findall("|".join(re.escape(x) for x in labels), text))
            self.assertGreaterEqual(found, 2 * n_claims, f"verdicts on the {lang} page")

    def test_probe_page_names_every_case_the_probe_lists(self):
        probe = site_cli.find_probe_binary(os.environ.get("GPUPLAN_PROBE"))
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
            cells = [norm(html.unescape(re.sub(r"<[^>]+>", "", c)))
                     for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            if len(cells) == 10 and cells[6].startswith("unknown"):
                self.assertEqual((cells[7], cells[8][:1]), ("?", "⚠"), "an undated price is stale")
                stale += 1
            elif len(cells) == 10 and re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", cells[6]):
                age = (build - facts.parse_date(cells[6])).days
                self.assertEqual(cells[7], str(age))
                if cells[8].startswith("⚠"):
                    self.assertGreater(age, facts.STALE_DAYS)
                    stale += 1
                else:
                    self.assertLessEqual(age, facts.STALE_DAYS)
                    ok += 1
        self.assertEqual(stale, int(m.group(2)))
        self.assertEqual(stale + ok, int(m.group(3)))

    def test_every_english_page_has_a_chinese_twin_with_the_same_numbers(self):
        for page in english_pages():
            self.assertTrue(os.path.isfile(os.path.join(DOCS, "zh", page)), f"site/docs/zh/{page} is missing")
            rel = "index.html" if page == "index.md" else page[:-3] + "/index.html"
            en, zh = generated_text(rel), generated_text("zh/" + rel)
            self.assertTrue(en.strip(), f"{rel} has no generated fragment")
            en_numbers, zh_numbers = Counter(NUMBER.findall(en)), Counter(NUMBER.findall(zh))
            self.assertEqual(en_numbers - zh_numbers, Counter(), f"numbers of {rel} missing on zh/{rel}")
            self.assertEqual(zh_numbers - en_numbers, Counter(), f"numbers of zh/{rel} missing on {rel}")

    def test_every_page_links_to_its_twin(self):
        for page in english_pages():
            rel = "index.html" if page == "index.md" else page[:-3] + "/index.html"
            for this, twin, label in ((rel, "zh/" + rel, "中文"), ("zh/" + rel, rel, "English")):
                with open(os.path.join(SITE, this), encoding="utf-8") as f:
                    m = re.search(r'class="gp-lang-switch">\s*<a href="([^"]+)"[^>]*>([^<]+)</a>', f.read())
                self.assertIsNotNone(m, f"{this} has no language switch")
                self.assertEqual(m.group(2), label)
                self.assertEqual(check_links.resolve(SITE, this, m.group(1)), os.path.normpath(twin))

    def test_the_twin_check_fails_on_a_differing_number(self):
        en = "<div class='gp-generated'><p>5 of 7 prices, 1,234 GB</p></div><p>9</p>"
        zh = "<div class='gp-generated'><p>7 条价格中有 5 条，1,235 GB</p></div>"
        self.assertNotEqual(Counter(NUMBER.findall(generated_of(en))), Counter(NUMBER.findall(generated_of(zh))))
        self.assertEqual(Counter(NUMBER.findall(generated_of(en))), Counter(["5", "7", "1,234"]))

    def test_no_link_in_the_site_is_broken(self):
        problems, checked = check_links.check(SITE)
        self.assertEqual(problems, [])
        self.assertGreater(checked, 100)


class Staleness(unittest.TestCase):
    def test_price_age(self):
        build = dt.date(2026, 11, 30)
        self.assertEqual(facts.price_age("2026-06-03", build), (180, False))
        self.assertEqual(facts.price_age("2026-06-02", build), (181, True))
        self.assertEqual(facts.price_age("2026-11-30", build), (0, False))
        self.assertEqual(facts.price_age(None, build), (None, True))
        self.assertEqual(facts.price_age("30/11/2026", build), (None, True))
        self.assertEqual(facts.price_age("unknown", build), (None, True))
        self.assertEqual(facts.price_age("2026-11", build), (29, False))
        self.assertEqual(facts.price_age("2026-11-30", build, flagged=True), (0, True))

    def test_a_cny_price_shows_cny_beside_usd(self):
        p = {"usd_per_cny": {"value": 0.138, "source": "x"}, "on_demand_cny_per_hour": 10.0,
             "spot_cny_per_hour": 3.0, "on_demand_usd_per_hour": None, "spot_usd_per_hour": None}
        self.assertEqual(data_page.price_cells(p), ["$1.380 (¥10.00)", "–", "–", "$0.414 (¥3.000)"])
        self.assertEqual(data_page.price_cells({"on_demand_usd_per_hour": 2.5}), ["$2.500", "–", "–", "–"])

    def test_cny_prices_convert_at_their_own_rate(self):
        p = {"currency": "CNY", "usd_per_cny": {"value": 0.138, "source": "x"}, "on_demand_usd_per_hour": None,
             "on_demand_cny_per_hour": 10.0, "spot_cny_per_hour": None}
        self.assertAlmostEqual(facts.price_usd(p, "on_demand"), 1.38)
        self.assertEqual(facts.price_cny(p, "on_demand"), 10.0)
        self.assertIsNone(facts.price_usd(p, "spot"))
        self.assertIsNone(facts.price_usd(dict(p, usd_per_cny=None), "on_demand"), "no rate, no USD figure")
        self.assertEqual(facts.price_usd({"on_demand_usd_per_hour": 2.5}, "on_demand"), 2.5)
        self.assertIsNone(facts.price_cny({"on_demand_usd_per_hour": 2.5}, "on_demand"))


class StaleBinary(unittest.TestCase):
    def test_a_cli_whose_catalog_differs_from_data_is_refused(self):
        data_gpu = {"t4": {"specs": {"memory_bandwidth_gb_per_s": {"value": 320},
                                     "peak_dense_tflops": {"fp16": {"value": 65}}}}}
        cli_gpu = {"t4": {"memory_bandwidth_bytes_per_s": {"value": 320e9},
                          "peak_dense_flop_per_s": {"fp16": {"value": 65e12}}}}
        inst = {"i": {"prices": [{}]}}
        site_cli.refuse_stale(cli_gpu, data_gpu, inst, inst)  # the same: no error
        data_gpu["t4"]["specs"]["memory_bandwidth_gb_per_s"]["value"] = 300
        with self.assertRaisesRegex(site_cli.BuildError, r"differs from data/ \(t4 memory bandwidth\): rebuild"):
            site_cli.refuse_stale(cli_gpu, data_gpu, inst, inst)
        with self.assertRaisesRegex(site_cli.BuildError, r"instance ids differ: \['j'\]"):
            site_cli.refuse_stale(cli_gpu, data_gpu, inst, dict(inst, j={"prices": []}))


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
            rc = gen_site.main(["--cli", CLI, "--fragments-only", "--page", "benchmarks", "--work", work,
                                "--benchmarks", bench, "--date", "2026-11-30"])
            self.assertEqual(rc, 0)
            with open(os.path.join(work, "snippets", "benchmarks.en.md"), encoding="utf-8") as f:
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
            self.assertEqual(gen_site.main(["--cli", CLI, "--fragments-only", "--page", "benchmarks", "--work", work,
                                            "--benchmarks", empty, "--date", "2026-11-30"]), 0)
            with open(os.path.join(work, "snippets", "benchmarks.en.md"), encoding="utf-8") as f:
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

    def test_checks_the_chinese_pages_too(self):
        with tempfile.TemporaryDirectory() as site:
            self.write(site, "index.html", '<a href="zh/">zh</a>')
            self.write(site, "method/index.html", '<h2 id="prices">P</h2>')
            self.write(site, "zh/index.html", '<a href="../">en</a> <a href="method/">bad</a>')
            self.write(site, "zh/data/index.html", '<a href="../../method/#prices">ok</a> <a href="#价格">bad</a>')
            problems, checked = check_links.check(site)
        self.assertEqual(checked, 5)
        self.assertEqual(len(problems), 2, problems)
        self.assertIn("zh/method/index.html does not exist", problems[1] + problems[0])
        self.assertIn("no id '价格'", problems[0] + problems[1])

    def test_404_page_links_start_with_the_base_path(self):
        with tempfile.TemporaryDirectory() as site:
            self.write(site, "index.html", "")
            self.write(site, "404.html", '<a href="/REPO/">home</a> <a href="/other/">bad</a>')
            problems, _ = check_links.check(site, "/REPO/")
        self.assertEqual(len(problems), 1)
        self.assertIn("must start with the base path", problems[0])


if __name__ == "__main__":
    unittest.main()
