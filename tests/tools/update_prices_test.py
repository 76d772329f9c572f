#!/usr/bin/env python3
"""tools/update_prices on the committed fixtures: prices written per region (lowest zone), the
snapshot as source, hand-sourced entries kept, deterministic output, exact bad-input messages,
and the weekly workflow parses as YAML and runs the fetcher."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOOL = os.path.join(ROOT, "tools", "update_prices", "update_prices.py")
FIX = os.path.join(ROOT, "tests", "fixtures", "update_prices")
ARGS = ["--provider", "aws", "--snapshot-repo", "skypilot-org/skypilot-catalog", "--snapshot-commit", "0123456789ab",
        "--snapshot-path", "catalogs/v7/aws/vms.csv", "--snapshot-date", "2026-11-28"]


def run(data, fmt, csv_name, *extra):
    return subprocess.run([sys.executable, TOOL, "--format", fmt, "--input", os.path.join(FIX, csv_name), "--data", data,
                           *ARGS, *extra], capture_output=True, text=True)


class UpdatePrices(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        for sub in ("instances", "providers"):
            os.makedirs(os.path.join(self.tmp, sub))
        shutil.copy(os.path.join(ROOT, "data", "instances", "aws-g4dn.xlarge.json"), os.path.join(self.tmp, "instances"))
        shutil.copy(os.path.join(ROOT, "data", "providers", "aws.json"), os.path.join(self.tmp, "providers"))
        self.path = os.path.join(self.tmp, "instances", "aws-g4dn.xlarge.json")
        with open(self.path) as f:
            self.before = json.load(f)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def doc(self):
        with open(self.path) as f:
            return json.load(f)

    def test_skypilot_prices_lowest_zone_per_region_with_snapshot_source(self):
        r = run(self.tmp, "skypilot", "skypilot_aws_vms.csv")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("not in the catalog (add by hand first): x9.fictional", r.stdout)
        self.assertIn("regions not in data/providers/aws.json (skipped): ap-nowhere-9", r.stdout)
        d = self.doc()
        fetched = {p["region"]: p for p in d["prices"] if p["source"] == "skypilot-2026-11-28"}
        self.assertEqual(sorted(fetched), ["eu-north-1", "us-east-1"])
        self.assertEqual(fetched["us-east-1"]["spot_usd_per_hour"], 0.1944)  # the cheaper of two zones
        self.assertEqual(fetched["us-east-1"]["on_demand_usd_per_hour"], 0.526)
        self.assertIsNone(fetched["eu-north-1"]["spot_usd_per_hour"])
        src = d["sources"]["skypilot-2026-11-28"]
        self.assertEqual(src["url"], "https://github.com/skypilot-org/skypilot-catalog/blob/0123456789ab/catalogs/v7/aws/vms.csv")
        self.assertEqual(src["date"], "2026-11-28")

    def test_hand_sourced_fields_are_never_dropped(self):
        run(self.tmp, "skypilot", "skypilot_aws_vms.csv")
        d = self.doc()
        for old in self.before["prices"]:
            self.assertIn(old, d["prices"])
        for key, value in self.before["sources"].items():
            self.assertEqual(d["sources"][key], value)
        self.assertEqual(d["specs"], self.before["specs"])

    def test_output_is_deterministic_and_a_second_run_changes_nothing(self):
        run(self.tmp, "skypilot", "skypilot_aws_vms.csv")
        with open(self.path, "rb") as f:
            first = f.read()
        r = run(self.tmp, "skypilot", "skypilot_aws_vms.csv")
        self.assertNotIn("updated", r.stdout)
        with open(self.path, "rb") as f:
            self.assertEqual(f.read(), first)

    def test_gpuhunt_rows_by_spot_flag(self):
        r = run(self.tmp, "gpuhunt", "gpuhunt_aws.csv")
        self.assertEqual(r.returncode, 0, r.stderr)
        fetched = {p["region"]: p for p in self.doc()["prices"] if p["source"] == "gpuhunt-2026-11-28"}
        self.assertEqual(fetched["us-east-1"]["spot_usd_per_hour"], 0.1902)
        self.assertEqual(fetched["eu-west-1"]["on_demand_usd_per_hour"], 0.587)

    def test_bad_input_messages(self):
        bad = os.path.join(self.tmp, "bad.csv")
        with open(bad, "w") as f:
            f.write("instance_name,location,price\ng4dn.xlarge,us-east-1,0.5\n")
        r = subprocess.run([sys.executable, TOOL, "--format", "gpuhunt", "--input", bad, "--data", self.tmp, *ARGS],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr.strip(), "update_prices: error: bad.csv: not a gpuhunt catalog CSV: missing column(s) "
                                           "cpu, memory, gpu_count, gpu_name, gpu_memory, spot")
        with open(bad, "w") as f:
            f.write("instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot\n"
                    "g4dn.xlarge,us-east-1,cheap,4,16,1,T4,16,False\n")
        r = subprocess.run([sys.executable, TOOL, "--format", "gpuhunt", "--input", bad, "--data", self.tmp, *ARGS],
                           capture_output=True, text=True)
        self.assertEqual(r.stderr.strip(), "update_prices: error: bad.csv:2: column price: 'cheap' is not a number")
        self.assertEqual(self.doc(), self.before)  # nothing written


class Workflow(unittest.TestCase):
    def test_weekly_workflow_parses_and_runs_the_fetcher(self):
        try:
            import yaml
        except ImportError:
            self.skipTest("python3-yaml not installed")
        with open(os.path.join(ROOT, ".github", "workflows", "update-prices.yml")) as f:
            wf = yaml.safe_load(f)
        triggers = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` as True
        self.assertIn("schedule", triggers)
        self.assertRegex(triggers["schedule"][0]["cron"], r"^\S+ \S+ \* \* \d$")  # weekly
        steps = [s.get("run", "") for job in wf["jobs"].values() for s in job["steps"]]
        self.assertTrue(any("tools/update_prices/update_prices.py" in s for s in steps))
        self.assertTrue(any("pull-request" in str(s.get("uses", "")) for job in wf["jobs"].values() for s in job["steps"]))


if __name__ == "__main__":
    unittest.main()
