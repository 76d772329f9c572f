// The 2026 zoo (data/models): parameter counts against the totals the model's publisher states,
// and exact counts derived module by module from the config.json values each entry cites.
#include <gtest/gtest.h>

#include "gpuplan/estimate.h"
#include "gpuplan/transformer.h"
#include "zoo_counts.h"

namespace gpuplan {
namespace {

using Counts = test::ZooCounts;
using test::counts;
using test::expect_near;

TEST(ZooParams, DeepSeekV3ModuleByModule) {
  // config.json (deepseek-ai/DeepSeek-V3): h 7168, 61 blocks, 128 heads; MLA q_lora 1536,
  // kv_lora 512, qk 128 + 64, v 128; blocks 0-2 dense (18432), 58 MoE blocks of 256 routed
  // experts + 1 shared (2048 wide) with a 256-way router and its correction bias; vocab 129280.
  const double h = 7168, heads = 128, V = 129280;
  const double mla = h * 1536 + 1536 /* q_a + norm */ + 1536 * heads * 192 /* q_b */ +
                     h * (512 + 64) + 512 /* kv_a + norm */ + 512 * heads * (128 + 128) /* kv_b */ +
                     heads * 128 * h /* o */;
  const double expert = 3 * h * 2048;
  const double moe = 257 * expert + 256 * h + 256;
  const double exact = 2 * V * h + 61 * (mla + 2 * h) + 3 * 3 * h * 18432 + 58 * moe + h;
  const Counts c = counts("deepseek-v3");
  EXPECT_DOUBLE_EQ(c.total, exact);
  // DeepSeek-V3 technical report (arXiv 2412.19437), abstract: 671B total, 37B activated;
  // README_WEIGHTS.md: 36.6B activated including the 0.9B output head, i.e. without the input
  // embedding, and an MTP module of 11.5B unique parameters. Tolerances 0.5 %, 1 %, 1.5 %.
  expect_near(c.total, 671e9, 0.005, "total");
  expect_near(c.active - c.embedding, 36.6e9, 0.01, "activated without the input embedding");
  // The MTP module: enorm, hnorm, eh_proj (2h -> h), one MoE block, shared_head.norm.
  EXPECT_DOUBLE_EQ(c.mtp, 2 * h + 2 * h * h + (mla + 2 * h) + moe + h);
  expect_near(c.mtp, 11.5e9, 0.015, "MTP module");
}

TEST(ZooParams, DeepSeekR1IsTheDeepSeekV3Architecture) {
  EXPECT_EQ(counts("deepseek-r1").total, counts("deepseek-v3").total);
  EXPECT_EQ(test::model("deepseek-r1").transformer.mtp_layers, 1);
}

TEST(ZooParams, GptOssEqualsTheModelCard) {
  // gpt-oss model card (OpenAI, 2025-08-05), table of parameters: 120b 116.83B total, 5.13B
  // active per token; 20b 20.91B, 3.61B. OpenAI's active count leaves the input embedding out
  // (it counts the unembedding). Tolerance 0.1 %.
  const Counts big = counts("gpt-oss-120b"), small = counts("gpt-oss-20b");
  expect_near(big.total, 116.83e9, 0.001, "120b total");
  expect_near(big.active - big.embedding, 5.13e9, 0.001, "120b active");
  expect_near(small.total, 20.91e9, 0.001, "20b total");
  expect_near(small.active - small.embedding, 3.61e9, 0.002, "20b active");
  // One block by hand: q 2880 -> 64 x 64, k and v -> 8 x 64, o back, all with biases; a sink per
  // head; 128 experts with gate_up (2 x 2880) and down and their biases; a router with a bias.
  const double h = 2880, f = 2880;
  const double attention = h * 4096 + 4096 + 2 * (h * 512 + 512) + 4096 * h + h + 64;
  const double experts = 128 * (3 * h * f + 2 * f + h) + 128 * h + 128;
  EXPECT_DOUBLE_EQ(big.total, 2 * 201088 * h + 36 * (attention + experts + 2 * h) + h);
}

TEST(ZooParams, QwenMoeEqualsTheModelCards) {
  // Qwen3 model cards: 30B-A3B "30.5B in total and 3.3B activated"; 235B-A22B "235B in total and
  // 22B activated" (Qwen counts embeddings in both). Tolerance 1 % (the cards round to 0.1B/1B).
  const Counts a3b = counts("qwen3-30b-a3b"), a22b = counts("qwen3-235b-a22b");
  expect_near(a3b.total, 30.5e9, 0.01, "30B-A3B total");
  expect_near(a3b.active, 3.3e9, 0.02, "30B-A3B active");
  expect_near(a22b.total, 235e9, 0.01, "235B-A22B total");
  expect_near(a22b.active, 22e9, 0.01, "235B-A22B active");
  // 30B-A3B by hand: 48 blocks of GQA (32 x 128 queries, 4 x 128 keys/values) with q_norm and
  // k_norm over 128, and 128 experts of 3 x 2048 x 768 with a 128-way router.
  const double h = 2048;
  const double block =
      h * 4096 + 2 * h * 512 + 4096 * h + 2 * 128 + 128 * 3 * h * 768 + 128 * h + 2 * h;
  EXPECT_DOUBLE_EQ(a3b.total, 2 * 151936 * h + 48 * block + h);
}

TEST(ZooParams, KimiK2Mixtral8x22bLlama4GlmHy3MatchTheirAnnouncements) {
  // Kimi K2 technical report (arXiv 2507.20534): 1.04T total, 32.6B activated; ours 1.026T
  // (config.json of moonshotai/Kimi-K2-Instruct, no MTP module): 2 %.
  const Counts kimi = counts("kimi-k2");
  expect_near(kimi.total, 1.04e12, 0.02, "Kimi K2 total");
  expect_near(kimi.active, 32.6e9, 0.02, "Kimi K2 active");
  // Mistral AI, "Cheaper, Better, Faster, Stronger" (2024-04-17): 39B active of 141B. 0.5 %.
  const Counts mixtral = counts("mixtral-8x22b");
  expect_near(mixtral.total, 141e9, 0.005, "Mixtral 8x22B total");
  expect_near(mixtral.active, 39e9, 0.005, "Mixtral 8x22B active");
  // Meta, "The Llama 4 herd" (2025-04-05): Scout 17B active, 109B total; Maverick 17B, 400B.
  // The zoo holds the text model; the vision encoder (in Meta's totals) is left out: 2 %.
  const Counts scout = counts("llama-4-scout"), maverick = counts("llama-4-maverick");
  expect_near(scout.total, 109e9, 0.02, "Scout total");
  expect_near(scout.active, 17e9, 0.02, "Scout active");
  expect_near(maverick.total, 400e9, 0.005, "Maverick total");
  expect_near(maverick.active, 17e9, 0.02, "Maverick active");
  // GLM-4.5 README (zai-org/GLM-4.5): 355B total, 32B active; ours without the MTP block.
  const Counts glm = counts("glm-4.5");
  expect_near(glm.total, 355e9, 0.01, "GLM-4.5 total");
  expect_near(glm.active - glm.embedding, 32e9, 0.03, "GLM-4.5 active");
  EXPECT_EQ(counts("glm-4.6").total, glm.total);
  // Tencent (vLLM blog "vLLM x HPC-Ops", 2026-07-06): Hy3 activates 21B of its 295B parameters;
  // ours without the 3.8B MTP layer: 295.03B total, 20.68B active.
  const Counts hy3 = counts("hy3");
  expect_near(hy3.total, 295e9, 0.005, "Hy3 total");
  expect_near(hy3.active, 21e9, 0.02, "Hy3 active");
}

TEST(ZooParams, DenseModelsEqualTheirModelCards) {
  // Model cards: Qwen3-8B 8.2B, 14B 14.8B, 32B 32.8B; Qwen2.5-7B 7.61B, 72B 72.7B; Llama 3.1
  // 8B 8.03B, 70B 70.6B (HF safetensors totals); Mistral NeMo 12B (12.2B in its files).
  expect_near(counts("qwen3-8b").total, 8.2e9, 0.005, "Qwen3-8B");
  expect_near(counts("qwen3-14b").total, 14.8e9, 0.005, "Qwen3-14B");
  expect_near(counts("qwen3-32b").total, 32.8e9, 0.005, "Qwen3-32B");
  expect_near(counts("qwen2.5-7b").total, 7.61e9, 0.002, "Qwen2.5-7B");
  expect_near(counts("qwen2.5-72b").total, 72.7e9, 0.002, "Qwen2.5-72B");
  expect_near(counts("llama-3.1-8b").total, 8.03e9, 0.001, "Llama-3.1-8B");
  expect_near(counts("llama-3.1-70b").total, 70.6e9, 0.002, "Llama-3.1-70B");
  EXPECT_EQ(counts("llama-3.3-70b").total, counts("llama-3.1-70b").total);
  expect_near(counts("mistral-nemo-12b").total, 12.2e9, 0.005, "Mistral NeMo");
  // Nemotron-4 technical reports: 15B has 3.2B embedding (input and untied output, 256,000 x
  // 6144 each) and 12.5B non-embedding parameters; 340B has 9.4B and 331.6B (18432 wide).
  const double vocab = 256000;
  expect_near(counts("nemotron-4-15b").total - 2 * vocab * 6144, 12.5e9, 0.005, "Nemotron-4 15B");
  expect_near(counts("nemotron-4-340b").total - 2 * vocab * 18432, 331.6e9, 0.001,
              "Nemotron-4 340B");
  // GPT-J-6B by hand from its configuration: embeddings and LM head (with bias) of 50,400 x 4096,
  // 28 blocks of four bias-free 4096^2 attention matrices, a 4096 x 16384 MLP with biases and
  // two LayerNorms (gpuplan's two pre-norms where GPT-J shares one), and the final LayerNorm.
  const double j = 4096, f = 16384, v = 50400;
  EXPECT_EQ(counts("gpt-j-6b").total,
            v * j + 28 * (4 * j * j + 2 * j * f + f + j + 2 * 2 * j) + 2 * j + v * j + v);
  // Qwen3 adds q_norm and k_norm of 128 per block: Qwen3-8B by hand.
  const double h = 4096;
  const double block = h * 4096 + 2 * h * 1024 + 4096 * h + 2 * 128 + 3 * h * 12288 + 2 * h;
  EXPECT_DOUBLE_EQ(counts("qwen3-8b").total, 2 * 151936 * h + 36 * block + h);
}

TEST(ZooParams, ActivePerTokenInTheEstimateLeavesOutOnlyUnusedRoutedExperts) {
  // estimate() counts what the test counts; training adds the MTP module, inference drops it.
  gpuplan::Setup train;
  auto t = estimate(test::model("deepseek-v3"), train);
  ASSERT_TRUE(t.ok()) << t.error().message;
  const Counts c = counts("deepseek-v3");
  EXPECT_DOUBLE_EQ(static_cast<double>(t.value().params.total), c.total + c.mtp);
  EXPECT_DOUBLE_EQ(static_cast<double>(t.value().params.mtp), c.mtp);
  gpuplan::Setup infer;
  infer.mode = Mode::infer;
  auto i = estimate(test::model("deepseek-v3"), infer);
  ASSERT_TRUE(i.ok()) << i.error().message;
  EXPECT_DOUBLE_EQ(static_cast<double>(i.value().params.total), c.total);
  EXPECT_DOUBLE_EQ(static_cast<double>(i.value().params.active_per_token), c.active);
}

TEST(ZooValidation, ArchitectureFieldsAreCheckedByName) {
  const TransformerSpec ds = test::model("deepseek-v3").transformer;
  auto message = [](const TransformerSpec& s) {
    auto err = validate_transformer(s, "x.json: transformer");
    return err ? err->message : std::string("ok");
  };
  EXPECT_EQ(message(ds), "ok");
  TransformerSpec s = ds;
  s.v_head_dim = 0;
  EXPECT_EQ(message(s), "x.json: transformer: v_head_dim must be > 0 with kv_lora_rank");
  s = ds;
  s.first_dense_layers = 62;
  EXPECT_EQ(message(s), "x.json: transformer: first_dense_layers must be between 0 and layers");
  s = test::model("llama-3.1-8b").transformer;
  s.shared_experts = 1;
  EXPECT_EQ(message(s), "x.json: transformer: shared_experts applies to mixture-of-experts models");
  s = test::model("llama-3.1-8b").transformer;
  s.full_attention_every = 2;
  EXPECT_EQ(message(s),
            "x.json: transformer: full_attention_every needs a sliding_window or linear attention");
  s = test::model("llama-3.1-8b").transformer;
  s.qk_rope_head_dim = 64;
  EXPECT_EQ(message(s),
            "x.json: transformer: kv_lora_rank must be > 0 when q_lora_rank or the qk_*_head_dim "
            "are set");
  // Values narrower than keys are a grouped-query model's own (MiMo-V2-Flash), not where the
  // key is the value.
  s = test::model("llama-3.1-8b").transformer;
  s.v_head_dim = 64;
  EXPECT_EQ(message(s), "ok");
  s = test::model("gemma-4-31b").transformer;
  s.v_head_dim = 128;
  EXPECT_EQ(message(s),
            "x.json: transformer: v_head_dim does not apply where the key is the value (compressed "
            "attention, global_kv_shared)");
  s = test::model("mimo-v2-flash").transformer;
  s.attention_sinks = false;
  EXPECT_EQ(message(s), "x.json: transformer: sinks_windowed_only needs attention_sinks");
  s = test::model("mimo-v2-flash").transformer;
  s.full_attention_first = true;
  EXPECT_EQ(message(s),
            "x.json: transformer: full_attention_leading needs full_attention_every without "
            "full_attention_first");
  s = test::model("t5-base").transformer;
  s.sliding_window = 128;
  EXPECT_EQ(message(s),
            "x.json: transformer: sliding_window applies to decoder-only language models");
}

}  // namespace
}  // namespace gpuplan
