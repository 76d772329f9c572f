#!/usr/bin/env python3
"""tools/convert_llm_scale.py: a row is predicted only from what it states (rows without a
precision, a micro-batch or, for Megatron, a parallel split are listed with the reason, as are
rows the source marks approximate; MoE rows go through tools/convert_llm_scale_moe.py); FlashAttention's GPT-2 TFLOPs become tokens/s by the
README's own count; and the committed tests/validation/llm_scale_dev.csv (with its config.json
files) is what the converter writes from the shared table when that table is at hand."""
import filecmp
import os
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import convert_llm_scale as conv  # noqa: E402
import megatron_flops as mf  # noqa: E402

# The shared folder beside the checkout (or beside the folder of worktrees).
SHARED = next((p for p in (os.path.join(ROOT, *[".."] * k, "shared", "validation", "measured_llm_scale_dev.csv")
                           for k in (1, 2)) if os.path.exists(p)), "")


def row(**kw):
    base = {"id": "x", "model": "GPT3-1.3B", "gpu": "A100 80GB SXM4 (400 W), 1 node NVLink", "num_gpus": "8",
            "precision": "bf16", "micro_batch": "8", "global_batch": "512", "seq_len": "2048", "dp": "8",
            "tp": "1", "pp": "1", "zero_or_fsdp": "DDP (ZeRO-1 optimizer sharding for >=760M configs)",
            "framework": "other", "tokens_per_s_per_gpu": "21125", "tflops_per_gpu": "189", "notes": "",
            "ep": "", "source": "Dao-AILab/flash-attention training/README.md"}
    base.update(kw)
    return base


class Reasons(unittest.TestCase):
    def test_megatron_rows_without_micro_batch_are_listed_not_filled(self):
        why = conv.why_not(row(model="GPT 7.1B (Megatron-LM weak-scaling series)", precision="", micro_batch="",
                               framework="megatron-lm", tp="2"))
        self.assertEqual(why, "not stated: precision, micro-batch (Megatron's --micro-batch-size has no default)")

    def test_moe_rows_go_to_the_moe_converter(self):
        # The H100 Qwen3 row with EP 32 is expressed (qwen3-235b-a22b, the row's ep, Megatron); a
        # GB200 row names what is missing.
        out, why = conv.convert(row(id="mlm-qwen3-235b-h100-3", model="Qwen3-235B-A22B", micro_batch="4",
                                    global_batch="128", seq_len="4096", dp="128", tp="2", pp="1", vp="1", ep="8",
                                    etp="1", zero_or_fsdp="Megatron-FSDP on", activation_checkpointing="full",
                                    tokens_per_s_per_gpu="1862",
                                    source="NVIDIA/Megatron-LM@f13818d69535 examples/moe-modelzoo/best_practice/"
                                           "qwen3/readme.md § H100"))
        self.assertIsNone(why)
        self.assertEqual((out["model"], out["ep"], out["zero"], out["framework"]),
                         ("qwen3-235b-a22b", "8", "3", "megatron"))
        # A GB200 row published as Megatron's TFLOPS: tokens/s by Megatron's count, trays of 4 in
        # the Slurm segment's NVLink domain (SEGMENT=2: 8 GPUs), HybridEP as DeepEP's dispatch.
        out, why = conv.convert(row(id="mlm-qwen3-235b-gb200-bf16-4k", model="Qwen3-235B-A22B", micro_batch="1",
                                    global_batch="8192", seq_len="4096", dp="32", tp="1", pp="8", vp="1", cp="1",
                                    ep="8", etp="", tokens_per_s_per_gpu="", tflops_per_gpu="750",
                                    source="NVIDIA/Megatron-LM@f13818d69535 examples/moe-modelzoo/best_practice/"
                                           "qwen3/readme.md § GB200"))
        self.assertIsNone(why)
        self.assertEqual((out["gpu"], out["gpus_per_node"], out["nvlink_domain_gpus"], out["moe_dispatcher"]),
                         ("gb200", "4", "8", "hybridep"))
        per_token = mf.flops_per_token(mf.zoo_model("qwen3-235b-a22b"), 4096)
        self.assertAlmostEqual(float(out["value"]), 750e12 / per_token, delta=0.1)
        _, why = conv.convert(row(id="mlm-dsv3-gb200-step05", model="DeepSeek-V3", ep="32"))
        self.assertIn("intermediate step", why)

    def test_megatron_recompute_lists_map_to_recompute_modules(self):
        import convert_llm_scale_moe as moe
        self.assertEqual(moe.checkpointing("selective: norm, act"), ("selective", "layernorm,moe_act"))
        self.assertEqual(moe.checkpointing("selective: mlp, moe_act"), ("selective", "mlp,moe_act"))
        self.assertEqual(moe.checkpointing("none listed"), ("none", ""))
        self.assertIsNone(moe.checkpointing("selective: mlp (dense layers), mla_up_proj"))
        self.assertIsNone(moe.checkpointing("offloaded"))

    def test_approximate_rows_are_not_scored(self):
        self.assertIn("APPROXIMATE", conv.why_not(row(notes="APPROXIMATE: read by eye")))

    def test_baseline_bars_without_a_setup_are_listed(self):
        self.assertEqual(conv.why_not(row(model="GPT3-1.3B", precision="", framework="megatron-lm")),
                         "precision and setup not stated (a baseline bar)")

    def test_flash_attention_rows_are_expressed_as_their_configs_run(self):
        out, why = conv.convert(row())
        self.assertIsNone(why)
        self.assertEqual((out["precision"], out["zero"], out["attention"], out["fused_kernels"], out["fused_loss"]),
                         ("amp-bf16", "1", "flash1", "1", "1"))
        self.assertEqual(out["config_json"], "configs/flash-gpt3-1.3b.json")
        out, _ = conv.convert(row(model="GPT3-125M", micro_batch="32"))
        self.assertEqual(out["zero"], "0")


class Tflops(unittest.TestCase):
    def test_gpt2_tflops_become_tokens_by_the_readme_count(self):
        # Megatron's formula x 3/4 with its own vocabulary term, V / (16 l h). GPT-2 medium at 1024
        # tokens: 72 x 24 x 1024^2 x (1 + 1024/6144 + 50257/(16 x 24 x 1024))
        # = 1.8119e9 x 1.2945 = 2.3455e9 FLOPs per token; 159 TFLOPs -> 67,789 tokens/s per GPU, the
        # 67.4k that owt/base.yaml's 972 ms step (512 x 1024 tokens on 8 GPUs) gives.
        per_token = 72 * 24 * 1024 ** 2 * (1 + 1024 / 6144 + 50257 / (16 * 24 * 1024))
        self.assertAlmostEqual(conv.megatron_tokens_per_s(159, 24, 1024, 1024, 50257), 159e12 / per_token, places=6)
        self.assertAlmostEqual(per_token / 1e9, 2.3455, places=3)
        self.assertAlmostEqual(conv.megatron_tokens_per_s(159, 24, 1024, 1024, 50257), 67789, delta=1)
        self.assertLess(abs(conv.megatron_tokens_per_s(159, 24, 1024, 1024, 50257) / (512 * 1024 / 0.972 / 8) - 1),
                        0.01)


class MegatronCount(unittest.TestCase):
    """tools/megatron_flops.py against Megatron's transformer_flops, term by term, by hand."""

    def test_a_dense_gqa_model(self):
        # 2 layers, h 8, 4 heads of 2 (q 8), 2 kv heads (kv 4), ffn 16 gated, vocab 100 (padded to
        # 128 at tp 1, 512 at tp 4), s 10. Per token: MLP 6 x 8 x 16 x 3 x 2 = 4608; attention
        # 6 x (8 x (8 + 2 x 4) + 8 x 8) x 2 = 2304 linear, 6 x 8 x 10 x 2 = 960 core; logits
        # 6 x 8 x 128 = 6144.
        m = {"layers": 2, "hidden": 8, "heads": 4, "kv_heads": 2, "head_dim": 2, "ffn_hidden": 16,
             "gated_mlp": True, "vocab": 100}
        self.assertEqual(mf.flops_per_token(m, 10), 4608 + 2304 + 960 + 6144)
        self.assertEqual(mf.flops_per_token(m, 10, tp=4) - mf.flops_per_token(m, 10), 6 * 8 * (512 - 128))

    def test_an_mla_moe_model_with_mtp(self):
        # 3 layers (1 dense), h 8, 2 heads, q_lora 4, kv_lora 2, qk 3 + rope 1, v 2; ffn 16, 4 experts
        # top-2 of 4 with 1 shared, gated; vocab 128; s 4; one MTP layer (MoE, the last layer's kind).
        m = {"layers": 3, "hidden": 8, "heads": 2, "ffn_hidden": 16, "gated_mlp": True, "vocab": 128,
             "experts": 4, "experts_per_token": 2, "moe_ffn_hidden": 4, "shared_experts": 1,
             "first_dense_layers": 1, "q_lora_rank": 4, "kv_lora_rank": 2, "qk_nope_head_dim": 3,
             "qk_rope_head_dim": 1, "v_head_dim": 2}
        mlp = 6 * 8 * (16 * 3 * 1 + (4 * 2 * 3 + 4 * 3) * 3)  # 1 dense, 2 + 1 (MTP) MoE layers
        linear = 6 * (4 * (8 + 2 * 4 + 1) + 2 * (8 + 2 * (3 + 2) + 1) + 8 * 1 + 2 * 2 * 8)
        core = 6 * 4 * (2 * 4 / 2 + 2 * 2 / 2)
        mtp = 6 * (3 * 8 + 2 * 8 * 8)
        logits = 6 * 8 * 128 * 2
        self.assertEqual(mf.flops_per_token(m, 4, mtp_layers=1), mlp + (linear + core) * 4 + mtp + logits)


@unittest.skipUnless(os.path.exists(SHARED), "shared validation table not at hand")
class Committed(unittest.TestCase):
    def test_committed_csv_and_configs_are_what_the_converter_writes(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "llm_scale_dev.csv")
            conv.main(SHARED, out)
            committed = os.path.join(ROOT, "tests", "validation")
            self.assertTrue(filecmp.cmp(out, os.path.join(committed, "llm_scale_dev.csv"), shallow=False))
            for name in os.listdir(os.path.join(tmp, "configs")):
                self.assertTrue(filecmp.cmp(os.path.join(tmp, "configs", name),
                                            os.path.join(committed, "configs", name), shallow=False), name)


if __name__ == "__main__":
    unittest.main()
