#!/usr/bin/env python3
"""tools/convert_dle_throughput.py: each BERT row takes the precision recipe and kernel fusion of
the code its container ran (apex amp O2 -> mixed-fp16, model.half() -> fp16, TorchScript with
nvFuser -> compile), and the committed tests/validation/throughput_dev.csv is what the converter
writes from the shared table when that table is at hand (../shared/validation)."""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import convert_dle_throughput as conv  # noqa: E402

NEW = "NVIDIA/DeepLearningExamples@729963dd PyTorch/LanguageModeling/BERT/README.md (Training performance results, pytorch:21.11)"
OLD = "NVIDIA/DeepLearningExamples@78ec6802 (2021-08-27) PyTorch/LanguageModeling/BERT/README.md (older version, pytorch:20.06 / 19.07)"


def row(precision, task, source):
    return {"precision": precision, "task": task, "source": source}


class Recipe(unittest.TestCase):
    def test_squad_training_in_mixed_precision_is_apex_o2_unfused(self):
        self.assertEqual(conv.recipe("bert-large-qa", row("amp-fp16", "train", NEW)), ("mixed-fp16", ""))
        self.assertEqual(conv.recipe("bert-large-qa", row("amp-fp16", "train", OLD)), ("mixed-fp16", ""))

    def test_squad_inference_in_mixed_precision_is_half_weights(self):
        self.assertEqual(conv.recipe("bert-large-qa", row("amp-fp16", "infer", NEW)), ("fp16", ""))

    def test_tf32_and_fp32_squad_rows_keep_their_precision_unfused(self):
        self.assertEqual(conv.recipe("bert-large-qa", row("tf32", "train", NEW)), ("tf32", ""))
        self.assertEqual(conv.recipe("bert-large-qa", row("fp32", "infer", OLD)), ("fp32", ""))

    def test_pretraining_in_21_11_is_scripted_autocast(self):
        self.assertEqual(conv.recipe("bert-large", row("amp-fp16", "train", NEW)), ("amp-fp16", "1"))
        self.assertEqual(conv.recipe("bert-large", row("tf32", "train", NEW)), ("tf32", "1"))

    def test_pretraining_in_19_07_is_apex_o2_unfused(self):
        self.assertEqual(conv.recipe("bert-large", row("amp-fp16", "train", OLD)), ("mixed-fp16", ""))

    def test_transformer_xl_mixed_precision_is_apex_o2_unfused(self):
        self.assertEqual(conv.recipe("transformer-xl-base", row("amp-fp16", "train", OLD)), ("mixed-fp16", ""))
        self.assertEqual(conv.recipe("transformer-xl-large", row("tf32", "train", OLD)), ("tf32", ""))

    def test_transformer_xl_steps_jit_lamb_per_tensor_after_clipping(self):
        self.assertEqual(conv.optimizer_step("transformer-xl-base"), ["lamb", "for-loop", "1"])
        self.assertEqual(conv.optimizer_step("transformer-xl-large"), ["lamb", "for-loop", "1"])
        self.assertEqual(conv.optimizer_step("bert-large"), ["", "", ""])

    def test_other_models_are_untouched(self):
        self.assertEqual(conv.recipe("resnet50", row("amp-fp16", "train", NEW)), ("amp-fp16", ""))
        self.assertEqual(conv.recipe("resnet50", row("tf32", "train", OLD)), ("tf32", ""))


class Committed(unittest.TestCase):
    def test_committed_csv_is_what_the_converter_writes(self):
        src = os.path.join(ROOT, "..", "shared", "validation", "measured_throughput_dev.csv")
        if not os.path.exists(src):
            src = "/work/shared/validation/measured_throughput_dev.csv"
        if not os.path.exists(src):
            self.skipTest("shared/validation not at hand")
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.csv")
            subprocess.run([sys.executable, os.path.join(ROOT, "tools", "convert_dle_throughput.py"), src, out],
                           check=True, capture_output=True)
            with open(out) as a, open(os.path.join(ROOT, "tests", "validation", "throughput_dev.csv")) as b:
                self.assertEqual(a.read(), b.read())
        with open(os.path.join(ROOT, "tests", "validation", "throughput_dev.csv")) as f:
            rows = {r["id"]: r for r in csv.DictReader(line for line in f if not line.startswith("#"))}
        self.assertEqual((rows["T031"]["precision"], rows["T031"]["compile"]), ("mixed-fp16", ""))
        self.assertEqual((rows["T023"]["precision"], rows["T023"]["compile"]), ("amp-fp16", "1"))
        self.assertEqual((rows["T059"]["optimizer"], rows["T059"]["optimizer_loop"]), ("lamb", "for-loop"))
        self.assertEqual(rows["T001"]["optimizer_loop"], "")


if __name__ == "__main__":
    unittest.main()
