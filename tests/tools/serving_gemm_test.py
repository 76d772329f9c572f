#!/usr/bin/env python3
"""tools/serving_gemm.py: each figure is the median of the kernel table's GEMMs of its kind (at
most 16 rows over a weight of 64 MB or more; M, N, K all 4096 or more), too few GEMMs give no
figure, each runtime's newest table is read, and the GPU file keeps everything else as it was."""
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import serving_gemm as sg  # noqa: E402

N, K = 8192, 8192  # a 64 MiB fp8 weight: 67,108,864 bytes


def stream_gemm(m, seconds):
    return (m, N, K, seconds)


def compute_gemm(seconds):
    return (4096, 4096, 4096, seconds)


class Derive(unittest.TestCase):
    def test_each_figure_is_the_median_of_its_kind(self):
        # Ten streaming GEMMs of M = 1 at 30..39 us: the median time 34.5 us; the bytes are the
        # weight, one input row and one 16-bit output row.
        stream = [stream_gemm(1, (30 + i) * 1e-6) for i in range(10)]
        # Ten 4096^3 GEMMs at 100..190 us: median 145 us.
        compute = [compute_gemm((100 + 10 * i) * 1e-6) for i in range(10)]
        # Neither kind: 17 rows; a small weight; one dimension under 4096.
        others = [(17, N, K, 1e-6), (1, 1024, 1024, 1e-6), (8192, 2048, 8192, 1e-6)]
        bw, flops, n_stream, n_compute = sg.derive(stream + compute + others, 1.0)
        self.assertEqual((n_stream, n_compute), (10, 10))
        times = sorted(s for _, _, _, s in stream)
        rates = sorted((N * K + K + 2 * N) / s for s in times)
        self.assertAlmostEqual(bw, (rates[4] + rates[5]) / 2)
        self.assertAlmostEqual(flops / 1e12, (2 * 4096 ** 3 / 140e-6 + 2 * 4096 ** 3 / 150e-6) / 2 / 1e12)

    def test_too_few_gemms_give_no_figure(self):
        stream = [stream_gemm(1, 30e-6)] * 9
        compute = [compute_gemm(100e-6)] * 10
        self.assertIsNone(sg.derive(stream + compute, 1.0))

    def test_the_weight_threshold_counts_the_formats_bytes(self):
        # The same 8192 x 8192 weight is 32 MiB in NVFP4 (0.5625 bytes): no streaming figure.
        gemms = [stream_gemm(1, 30e-6)] * 10 + [compute_gemm(100e-6)] * 10
        self.assertIsNone(sg.derive(gemms, 0.5625))
        self.assertIsNotNone(sg.derive(gemms, 1.0))


class Tables(unittest.TestCase):
    def test_release_candidates_sort_by_number_and_before_their_release(self):
        versions = ["1.2.0rc5", "1.3.0rc10", "1.3.0rc20", "1.3.0rc9", "1.0.0", "1.3.0"]
        self.assertEqual(sorted(versions, key=sg.version_key),
                         ["1.0.0", "1.2.0rc5", "1.3.0rc9", "1.3.0rc10", "1.3.0rc20", "1.3.0"])
        self.assertLess(sg.version_key("0.5.6"), sg.version_key("0.5.6.post2"))

    def write_table(self, root, version, gemms, dtype="fp8"):
        d = os.path.join(root, "h100_sxm", "gemm", "trtllm", version)
        os.makedirs(d)
        with open(os.path.join(d, "gemm_perf.csv"), "w") as f:
            f.write("gemm_dtype,m,n,k,latency\n")
            for m, n, k, s in gemms:
                f.write(f"{dtype},{m},{n},{k},{s * 1e3}\n")

    def test_the_newest_table_is_written_into_the_gpu_file(self):
        stream = [stream_gemm(1, 32e-6)] * 10
        compute = [compute_gemm(100e-6)] * 10
        with tempfile.TemporaryDirectory() as tmp:
            data = os.path.join(tmp, "data")
            self.write_table(data, "1.2.0rc5", [stream_gemm(1, 64e-6)] * 10 + compute)
            self.write_table(data, "1.3.0rc20", stream + compute)
            os.makedirs(os.path.join(data, "h100_sxm", "gemm", "trtllm", "1.3.0rc30"))  # no table
            repo = os.path.join(tmp, "repo")
            os.makedirs(os.path.join(repo, "data", "gpus"))
            path = os.path.join(repo, "data", "gpus", "h100-sxm5-80gb.json")
            original = {"id": "h100-sxm5-80gb", "sources": {"s": {"title": "t"}},
                        "specs": {"memory_bytes": {"value": 1, "source": "s"}}}
            with open(path, "w") as f:
                json.dump(original, f)
            gemm, sources = sg.gpu_entries(data, "h100_sxm", "0123456789abcdef", "2026-08-21")
            sg.write_gpu(repo, "h100-sxm5-80gb", gemm, sources)
            with open(path) as f:
                doc = json.load(f)
        fp8 = doc["specs"]["serving_gemm"]["trtllm"]["fp8"]
        self.assertEqual(fp8["weight_stream_gb_per_s"]["value"], round((N * K + K + 2 * N) / 32e-6 / 1e9))
        self.assertEqual(fp8["matmul_tflops"]["value"], round(2 * 4096 ** 3 / 100e-6 / 1e12))
        self.assertEqual(fp8["matmul_tflops"]["source"], "aiconfigurator-gemm-trtllm")
        source = doc["sources"]["aiconfigurator-gemm-trtllm"]
        self.assertIn("trtllm/1.3.0rc20/gemm_perf.csv", source["url"])
        self.assertIn("TensorRT-LLM 1.3.0rc20", source["title"])
        self.assertEqual(source["date"], "2026-08-21")
        self.assertEqual(doc["specs"]["memory_bytes"], original["specs"]["memory_bytes"])
        self.assertEqual(doc["sources"]["s"], original["sources"]["s"])


if __name__ == "__main__":
    unittest.main()
