#!/usr/bin/env python3
"""tools/serving_moe.py: a row's rate is the touched experts' weights (min(E, tokens x top-k) under
the collector's balanced routing) plus 16-bit input and output rows over its latency; only
single-GPU, balanced, gated rows of at most 16 tokens per expert and 64 MB of weights count; each
figure is the median of at least 10 such rows of its format's preferred dtype; each format takes
the newest table that has its rows; the GPU file keeps everything else."""
import csv
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import serving_moe as sm  # noqa: E402

H = F = 2880  # gpt-oss's hidden and expert width
COLUMNS = ["num_tokens", "hidden_size", "inter_size", "topk", "num_experts", "moe_tp_size",
           "moe_ep_size", "moe_dtype", "kernel_source", "distribution", "latency"]


def row(tokens=8, dtype="w4a16_mxfp4", ms=0.2, experts=32, topk=4, tp=1, ep=1,
        distribution="balanced", kernel="triton"):
    return {"num_tokens": str(tokens), "hidden_size": str(H), "inter_size": str(F),
            "topk": str(topk), "num_experts": str(experts), "moe_tp_size": str(tp),
            "moe_ep_size": str(ep), "moe_dtype": dtype, "kernel_source": kernel,
            "distribution": distribution, "latency": str(ms)}


class Rows(unittest.TestCase):
    def test_a_rows_rate_is_its_touched_weights_over_its_latency(self):
        # 8 tokens x top-4 over 32 experts touch all 32 (one token each): 32 x 3 x 2880^2 MXFP4
        # weights at 0.53125 bytes, plus 8 rows of 2880 in and out at 2 bytes, in 0.2 ms.
        expected = (32 * 3 * H * F * 0.53125 + 2 * 8 * H * 2) / 0.2e-3
        self.assertAlmostEqual(sm.stream_rate(row(), 0.53125), expected)
        # 2 tokens touch 8 experts (balanced routing spreads them): 8 x 3 x 2880^2 = 104 MB.
        self.assertAlmostEqual(sm.stream_rate(row(tokens=2, ms=0.1), 0.53125),
                               (8 * 3 * H * F * 0.53125 + 2 * 2 * H * 2) / 0.1e-3)

    def test_rows_of_other_kinds_do_not_count(self):
        for other in (row(tp=2), row(ep=2), row(distribution="power_law_1.01"),
                      row(kernel="moe_torch_flow_nongated"),
                      row(tokens=256),  # 32 tokens per expert
                      row(tokens=1)):  # 4 experts: 52 MB of MXFP4 weights
            self.assertIsNone(sm.stream_rate(other, 0.53125), other)


class Derive(unittest.TestCase):
    def test_the_figure_is_the_median_of_the_preferred_dtype(self):
        w4a16 = [row(ms=0.1 + 0.01 * i) for i in range(10)]
        rate, n, dtype = sm.derive(w4a16, "mxfp4")
        self.assertEqual((n, dtype), (10, "w4a16_mxfp4"))
        rates = sorted(sm.stream_rate(r, 0.53125) for r in w4a16)
        self.assertAlmostEqual(rate, (rates[4] + rates[5]) / 2)
        # Ten rows with MXFP8 activations (Blackwell's path) take precedence.
        w4a8 = [row(dtype="w4a8_mxfp4_mxfp8", ms=0.05)] * 10
        self.assertEqual(sm.derive(w4a16 + w4a8, "mxfp4")[2], "w4a8_mxfp4_mxfp8")
        # Nine are too few: the 16-bit-activation rows stand.
        self.assertEqual(sm.derive(w4a16 + w4a8[:9], "mxfp4")[2], "w4a16_mxfp4")
        self.assertIsNone(sm.derive(w4a16[:9], "mxfp4"))
        self.assertIsNone(sm.derive(w4a16, "int4"))


class Tables(unittest.TestCase):
    def write_table(self, base, version, rows):
        os.makedirs(os.path.join(base, version))
        with open(os.path.join(base, version, "moe_perf.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS)
            w.writeheader()
            w.writerows(rows)

    def test_each_format_takes_the_newest_table_with_its_rows(self):
        with tempfile.TemporaryDirectory() as data:
            base = os.path.join(data, "h100_sxm", "moe", "vllm")
            self.write_table(base, "0.24.0", [row(ms=0.4)] * 10)
            self.write_table(base, "0.22.0", [row(ms=0.2)] * 10 + [row(dtype="int4_wo")] * 10)
            moe, sources = sm.gpu_entries(data, "h100_sxm", "a" * 40, "2026-08-21")
            got = {f: v["expert_stream_gb_per_s"]["source"] for f, v in moe["vllm"].items()}
            self.assertEqual(got, {"mxfp4": "aiconfigurator-moe-vllm-0.24.0",
                                   "int4": "aiconfigurator-moe-vllm-0.22.0"})
            self.assertAlmostEqual(moe["vllm"]["mxfp4"]["expert_stream_gb_per_s"]["value"],
                                   round(sm.stream_rate(row(ms=0.4), 0.53125) / 1e9))
            self.assertEqual(sorted(sources), sorted(got.values()))
            self.assertTrue(sources["aiconfigurator-moe-vllm-0.24.0"]["url"].endswith(
                "h100_sxm/moe/vllm/0.24.0/moe_perf.csv"))

    def test_the_gpu_file_keeps_everything_else(self):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "data", "gpus"))
            path = os.path.join(root, "data", "gpus", "x.json")
            doc = {"id": "x", "sources": {"spec": {"title": "t"}, "aiconfigurator-moe-old": {}},
                   "specs": {"memory_bytes": {"value": 1, "source": "spec"}}}
            with open(path, "w") as f:
                json.dump(doc, f)
            fact = {"value": 2000, "source": "aiconfigurator-moe-vllm-1", "note": "n"}
            moe = {"vllm": {"mxfp4": {"expert_stream_gb_per_s": fact}}}
            sm.write_gpu(root, "x", moe, {"aiconfigurator-moe-vllm-1": {"title": "table"}},
                         "serving_moe", "aiconfigurator-moe-")
            with open(path) as f:
                out = json.load(f)
            self.assertEqual(sorted(out["sources"]), ["aiconfigurator-moe-vllm-1", "spec"])
            self.assertEqual(out["specs"]["memory_bytes"], doc["specs"]["memory_bytes"])
            self.assertEqual(out["specs"]["serving_moe"], moe)


if __name__ == "__main__":
    unittest.main()
