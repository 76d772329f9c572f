// More mixture-of-experts zoo entries (data/models): GLM-4.5-Air, Qwen3-Coder-480B-A35B,
// DeepSeek-V2-Lite, the Qwen3.5 medium models, MiniMax-M2.5, GLM-5 and Kimi K2.5 against the totals
// their publishers state, GLM-4.5-Air (and DeepSeek-V2-Lite, latent attention without a query
// latent) counted module by module from config.json, and the Hugging Face ids added as aliases
// resolving to their entries.
#include <gtest/gtest.h>

#include <string>

#include "gpuplan/catalog.h"
#include "gpuplan/hf_config.h"
#include "gpuplan/precision.h"
#include "gpuplan/transformer.h"
#include "zoo_counts.h"

namespace gpuplan {
namespace {

using Counts = test::ZooCounts;
using test::counts;
using test::expect_near;
using test::resolved;

TEST(ZooMoeMore, Glm45AirModuleByModule) {
  // config.json (zai-org/GLM-4.5-Air): h 4096, 46 blocks of 96 query heads of 128 and 8 KV heads
  // with biases on q, k and v (not o), no QK norm; block 0 dense (10944), 45 MoE blocks of 128
  // routed experts + 1 shared (1408 wide) with a 128-way router and its correction bias; untied
  // embeddings of vocab 151552; one MTP block (num_nextn_predict_layers 1).
  const double h = 4096, V = 151552;
  const double attention =
      h * 12288 + 12288 /* q */ + 2 * (h * 1024 + 1024) /* k, v */ + 12288 * h /* o */;
  const double expert = 3 * h * 1408;
  const double moe = 129 * expert + 128 * h + 128;
  const double exact = 2 * V * h + 46 * (attention + 2 * h) + 3 * h * 10944 + 45 * moe + h;
  const Counts c = counts("glm-4.5-air");
  EXPECT_DOUBLE_EQ(c.total, exact);
  EXPECT_DOUBLE_EQ(c.active, exact - 45 * 120 * expert);
  // The MTP block: enorm, hnorm, eh_proj (2h -> h), one MoE block, shared_head.norm.
  EXPECT_DOUBLE_EQ(c.mtp, 2 * h + 2 * h * h + (attention + 2 * h) + moe + h);
  EXPECT_EQ(test::model("glm-4.5-air").transformer.moe_layer_count(), 45);
}

TEST(ZooMoeMore, Glm45AirEqualsItsReadme) {
  // zai-org/GLM-4.5-Air README: 106 billion total parameters, 12 billion active. Ours without the
  // MTP block: 106.85B; 12.18B activated without the input embedding and the output head (13.42B
  // with them), the rule by which GLM-4.5 gives 32.08B against its 32B. The README rounds to 1B
  // and states no convention: 1 % on the total, 2 % on the activated count.
  const Counts c = counts("glm-4.5-air");
  expect_near(c.total, 106e9, 0.01, "GLM-4.5-Air total");
  expect_near(c.active - c.embedding - c.head, 12e9, 0.02, "GLM-4.5-Air active");
  const Counts glm = counts("glm-4.5");
  expect_near(glm.active - glm.embedding - glm.head, 32e9, 0.005, "GLM-4.5 active, same rule");
}

TEST(ZooMoeMore, Qwen3Coder480bEqualsItsModelCard) {
  // Qwen/Qwen3-Coder-480B-A35B-Instruct model card: 480B in total and 35B activated (Qwen counts
  // the embeddings in both). Ours: 480.15B and 35.47B; the card rounds to 1B (0.1 %, 1.5 %).
  const Counts c = counts("qwen3-coder-480b-a35b");
  expect_near(c.total, 480e9, 0.001, "Qwen3-Coder-480B total");
  expect_near(c.active, 35e9, 0.015, "Qwen3-Coder-480B active");
  // 62 blocks of GQA (96 x 128 queries, 8 x 128 keys/values) with q_norm and k_norm over 128 and
  // 160 experts of 3 x 6144 x 2560 with a 160-way router; no bias, no shared expert.
  const double h = 6144;
  const double block =
      h * 12288 + 2 * h * 1024 + 12288 * h + 2 * 128 + 160 * 3 * h * 2560 + 160 * h + 2 * h;
  EXPECT_DOUBLE_EQ(c.total, 2 * 151936 * h + 62 * block + h);
}

TEST(ZooMoeMore, DeepSeekV2LiteEqualsItsCard) {
  // config.json (deepseek-ai/DeepSeek-V2-Lite): q_lora_rank null, so one q_proj of 16 heads x
  // (128 + 64) from the hidden state; kv_a 2048 -> 512 + 64 with its norm, kv_b 512 -> 16 x
  // (128 + 128), o back; block 0 dense (10944), 26 MoE blocks of 64 routed experts + 2 shared
  // (1408 wide) and a 64-way router without a bias (greedy routing); no MTP module.
  const double h = 2048, heads = 16, V = 102400;
  const double mla =
      h * heads * 192 + h * (512 + 64) + 512 + 512 * heads * (128 + 128) + heads * 128 * h;
  const double expert = 3 * h * 1408;
  const double moe = 66 * expert + 64 * h;
  const Counts c = counts("deepseek-v2-lite");
  EXPECT_DOUBLE_EQ(c.total, 2 * V * h + 27 * (mla + 2 * h) + 3 * h * 10944 + 26 * moe + h);
  EXPECT_EQ(c.mtp, 0);
  bool q_proj = false, q_a_proj = false;
  for (const auto& t : transformer_parameters(test::model("deepseek-v2-lite").transformer)) {
    q_proj = q_proj || (std::string(t.module) == "q_proj" && t.rows == 16 * 192 && t.cols == 2048);
    q_a_proj = q_a_proj || std::string(t.module) == "q_a_proj";
  }
  EXPECT_TRUE(q_proj);
  EXPECT_FALSE(q_a_proj);
  // DeepSeek-V2-Lite model card: 15.7B total, 2.4B activated. DeepSeek counts the activated
  // parameters with the output head but without the input embedding (README_WEIGHTS.md of
  // DeepSeek-V3, as zoo_test.cpp checks): ours 15.706B and 2.451B, which the card writes 2.4B
  // (0.04 %; 2.1 %, within 0.1B).
  expect_near(c.total, 15.7e9, 0.001, "DeepSeek-V2-Lite total");
  expect_near(c.active - c.embedding, 2.4e9, 0.025, "DeepSeek-V2-Lite active");
}

TEST(ZooMoeMore, AddedHuggingFaceIdsResolveToTheirEntries) {
  CheckpointFormat f = CheckpointFormat::unstated;
  EXPECT_EQ(resolved("zai-org/GLM-4.5-Air", &f), "glm-4.5-air");
  EXPECT_EQ(f, CheckpointFormat::unstated);
  EXPECT_EQ(resolved("zai-org/GLM-4.5-Air-Base"), "glm-4.5-air");
  EXPECT_EQ(resolved("zai-org/GLM-4.5-Air-FP8", &f), "glm-4.5-air");
  EXPECT_EQ(f, CheckpointFormat::fp8);
  EXPECT_EQ(resolved("GLM-4.5-Air"), "glm-4.5-air");
  EXPECT_EQ(resolved("zai-org/GLM-4.5-FP8"), "glm-4.5");  // the larger model is kept apart
  EXPECT_EQ(resolved("Qwen/Qwen3-Coder-480B-A35B-Instruct", &f), "qwen3-coder-480b-a35b");
  EXPECT_EQ(f, CheckpointFormat::unstated);
  EXPECT_EQ(resolved("Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", &f), "qwen3-coder-480b-a35b");
  EXPECT_EQ(f, CheckpointFormat::fp8);
  EXPECT_EQ(resolved("deepseek-ai/DeepSeek-V2-Lite"), "deepseek-v2-lite");
  EXPECT_EQ(resolved("deepseek-ai/DeepSeek-V2-Lite-Chat"), "deepseek-v2-lite");
  EXPECT_EQ(resolved("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", &f), "llama-3.3-70b");
  EXPECT_EQ(f, CheckpointFormat::unstated);
  EXPECT_EQ(resolved("RedHatAI/DeepSeek-R1-Distill-Llama-70B-FP8-dynamic", &f), "llama-3.3-70b");
  EXPECT_EQ(f, CheckpointFormat::fp8);
  EXPECT_EQ(resolved("deepseek-ai/DeepSeek-R1-Distill-Llama-8B"), "llama-3.1-8b");
  EXPECT_EQ(resolved("RedHatAI/DeepSeek-R1-Distill-Llama-8B-FP8-dynamic", &f), "llama-3.1-8b");
  EXPECT_EQ(f, CheckpointFormat::fp8);
  // The Hugging Face API's safetensors total of deepseek-ai/DeepSeek-R1-Distill-Llama-8B is
  // 8,030,261,248, the entry's count with its untied output head.
  EXPECT_EQ(counts("llama-3.1-8b").total, 8030261248.0);
  // Qwen3-Coder-30B-A3B-Instruct's config.json has intermediate_size 5472 where Qwen3-30B-A3B's
  // has 6144, a width no block of either uses (every block is MoE); imported, it counts the same
  // (hf_config_test.cpp), so it is an alias.
  EXPECT_EQ(resolved("Qwen/Qwen3-Coder-30B-A3B-Instruct"), "qwen3-30b-a3b");
}

TEST(ZooMoeMore, Qwen35MediumModelsEqualTheirModelCards) {
  // Model cards: Qwen3.5-122B-A10B 122B total and 10B activated, Qwen3.5-27B 27B (the language
  // model; its vision encoder is not in the zoo). Ours without the MTP module: 122.11B and
  // 9.77B (embeddings counted, as Qwen does), 26.90B; the cards round to 1B (2.3 % at 10B).
  const Counts moe = counts("qwen3.5-122b-a10b");
  expect_near(moe.total, 122e9, 0.005, "Qwen3.5-122B-A10B total");
  expect_near(moe.active, 10e9, 0.025, "Qwen3.5-122B-A10B active");
  expect_near(counts("qwen3.5-27b").total, 27e9, 0.005, "Qwen3.5-27B total");
  // 48 blocks of which 12 full attention; 64 of which 16.
  EXPECT_EQ(test::model("qwen3.5-122b-a10b").transformer.linear_layer_count(), 36);
  EXPECT_EQ(test::model("qwen3.5-27b").transformer.linear_layer_count(), 48);
  EXPECT_EQ(resolved("Qwen/Qwen3.5-122B-A10B-FP8"), "qwen3.5-122b-a10b");
  EXPECT_EQ(resolved("nvidia/Qwen3.5-122B-A10B-NVFP4"), "qwen3.5-122b-a10b");
  EXPECT_EQ(resolved("Qwen/Qwen3.5-27B"), "qwen3.5-27b");
  // Qwen3.6's configs describe the same text models.
  EXPECT_EQ(resolved("nvidia/Qwen3.6-27B-NVFP4"), "qwen3.5-27b");
  EXPECT_EQ(resolved("Qwen/Qwen3.6-35B-A3B"), "qwen3.5-35b-a3b");
}

TEST(ZooMoeMore, MiniMaxM25ModuleByModule) {
  // config.json (MiniMaxAI/MiniMax-M2.5): h 3072, 62 blocks of 48 query and 8 KV heads of 128,
  // RMSNorm over a layer's 6144 query and 1024 key channels (qk_norm_type per_layer); 256 experts
  // of 3 x h x 1536 with a 256-way router and its correction bias; untied vocab 200064; the MTP
  // modules are not described and are left out.
  const double h = 3072, V = 200064;
  const double attention = h * 6144 + 2 * h * 1024 + 6144 * h + 6144 + 1024;
  const double moe = 256 * 3 * h * 1536 + 256 * h + 256;
  const Counts c = counts("minimax-m2.5");
  EXPECT_DOUBLE_EQ(c.total, 2 * V * h + 62 * (attention + 2 * h + moe) + h);
  EXPECT_DOUBLE_EQ(c.total, 228689764864.0);
  // Its report's 229.9B total and 9.8B activated (without the embedding and the head).
  expect_near(c.total, 229.9e9, 0.01, "MiniMax-M2.5 total");
  expect_near(c.active - c.embedding - c.head, 9.8e9, 0.005, "MiniMax-M2.5 active");
  EXPECT_EQ(test::model("minimax-m2.5").checkpoint_weights, "fp8");
  // Its config.json (as ai-dynamo/aiconfigurator's copy shows it) imports to the same count and
  // checkpoint format.
  auto m = model_from_hf_config(test::read_repo_file("tests/fixtures/hf/minimax-m2.5.json"), "m");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_DOUBLE_EQ(test::parameter_count(m.value().transformer), c.total);
  EXPECT_EQ(m.value().transformer.qk_norm, QkNorm::rmsnorm_layer);
  EXPECT_EQ(m.value().checkpoint_weights, "fp8");
  // A norm layout or a shared expert it does not model is refused by field.
  std::string config = test::read_repo_file("tests/fixtures/hf/minimax-m2.5.json");
  const std::string per_layer = "\"qk_norm_type\": \"per_layer\"";
  ASSERT_NE(config.find(per_layer), std::string::npos);
  config.replace(config.find(per_layer), per_layer.size(), "\"qk_norm_type\": \"per_token\"");
  EXPECT_EQ(model_from_hf_config(config, "config.json").error().message,
            "config.json: qk_norm_type: expected 'per_layer' or 'per_head'");
  CheckpointFormat format = CheckpointFormat::unstated;
  EXPECT_EQ(resolved("nvidia/MiniMax-M2.7-NVFP4", &format), "minimax-m2.5");
  EXPECT_EQ(format, CheckpointFormat::nvfp4);
  // SGLang serves MiniMax-M2 and M2.1 as M2.5 ("only update the model name").
  EXPECT_EQ(resolved("MiniMaxAI/MiniMax-M2"), "minimax-m2.5");
  EXPECT_EQ(resolved("MiniMaxAI/MiniMax-M2.1"), "minimax-m2.5");
}

TEST(ZooMoeMore, Glm5EqualsItsReportAndImportsFromItsConfig) {
  // GLM-5 technical report (arXiv:2602.15763), its architecture table: 744B total, 40B activated,
  // 3 dense and 75 MoE layers, 1 MTP layer. Ours without the MTP layer: 743.91B, and 39.88B
  // activated without the embedding and the head (GLM-4.5's rule above); the report rounds to 1B.
  const Counts c = counts("glm-5");
  expect_near(c.total, 744e9, 0.001, "GLM-5 total");
  expect_near(c.active - c.embedding - c.head, 40e9, 0.005, "GLM-5 active");
  EXPECT_EQ(test::model("glm-5").transformer.moe_layer_count(), 75);
  // Its config.json (glm_moe_dsa, as ai-dynamo/aiconfigurator's copy shows it) imports to the
  // same model.
  test::expect_imports_as("glm-5.json", "glm-5");
  EXPECT_EQ(resolved("zai-org/GLM-5.1-FP8"), "glm-5");
}

TEST(ZooMoeMore, KimiK25HoldsItsRoutedExpertsInInt4) {
  // Kimi K2.5's language model has Kimi K2's blocks; its checkpoint stores the routed experts
  // alone at 4 bits with a 16-bit scale per 32 (0.5625 bytes a weight), the rest at 16 bits.
  const Counts k25 = counts("kimi-k2.5");
  const Counts k2 = counts("kimi-k2");
  EXPECT_DOUBLE_EQ(k25.total, k2.total);
  const Model& m = test::model("kimi-k2.5");
  EXPECT_EQ(m.checkpoint_weights, "int4-experts");
  const WeightFormatBytes& f = weight_format_bytes(WeightFormat::int4_experts);
  double stored = 0, experts = 0;
  for (const auto& t : transformer_parameters(m.transformer)) {
    stored += stored_tensor_bytes(t, f);
    if (t.routed_expert) experts += static_cast<double>(t.numel());
  }
  EXPECT_DOUBLE_EQ(stored, experts * (0.5 + 2.0 / 32) + 2 * (k25.total - experts));
  // 60 MoE blocks of 384 experts of 3 x 7168 x 2048.
  EXPECT_DOUBLE_EQ(experts, 60 * 384 * 3 * 7168.0 * 2048);
  EXPECT_EQ(resolved("moonshotai/Kimi-K2.5"), "kimi-k2.5");
}

TEST(ZooMoeMore, KimiK25ImportsFromItsMultimodalConfig) {
  // moonshotai/Kimi-K2.5's config.json (as ai-dynamo/aiconfigurator's copy shows it): kimi_k25
  // around a kimi_k2 text_config that also lists PretrainedConfig's generation defaults, and
  // compressed-tensors int4 weights with attention, the shared experts and the dense MLPs
  // ignored: int4-experts.
  const std::string config = test::read_repo_file("tests/fixtures/hf/kimi-k2.5.json");
  auto m = model_from_hf_config(config, "config.json");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(test::parameter_count(m.value().transformer), counts("kimi-k2.5").total);
  EXPECT_EQ(m.value().checkpoint_weights, "int4-experts");
  auto with = [&](const std::string& from, const std::string& to) {
    std::string c = config;
    const size_t at = c.find(from);
    if (at == std::string::npos) return std::string("not found: ") + from;
    c.replace(at, from.size(), to);
    auto edited = model_from_hf_config(c, "config.json");
    return edited.ok() ? "accepted: " + edited.value().checkpoint_weights : edited.error().message;
  };
  // Attention quantised too: int4 throughout.
  EXPECT_EQ(with("\"re:.*self_attn.*\",", ""), "accepted: int4");
  // A mistyped quantisation field reads as no format, never a crash.
  EXPECT_EQ(with("\"num_bits\": 4", "\"num_bits\": \"4\""), "accepted: ");
  EXPECT_EQ(with("\"quant_method\": \"compressed-tensors\"", "\"quant_method\": 5"), "accepted: ");
  // The two PretrainedConfig attributes that would change the architecture are refused.
  EXPECT_EQ(with("\"add_cross_attention\": false", "\"add_cross_attention\": true"),
            "config.json: text_config.add_cross_attention: true is not modelled (a decoder-only "
            "model has none)");
  EXPECT_EQ(with("\"pruned_heads\": {}", "\"pruned_heads\": {\"0\": [1]}"),
            "config.json: text_config.pruned_heads: pruned attention heads are not modelled "
            "(expected {})");
}

}  // namespace
}  // namespace gpuplan
