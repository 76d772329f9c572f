// Gemma 4's global blocks of their own geometry (model.h: global_head_dim, global_kv_heads,
// global_kv_shared), and MiMo-V2-Flash's (global_kv_heads, sinks_windowed_only, values narrower
// than keys: v_head_dim): parameters, FLOPs, the KV cache by kind of block, and the importer,
// against counts derived by hand from the models' config.json (tests/fixtures/hf/).
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

#include "gpuplan/estimate.h"
#include "gpuplan/hf_config.h"
#include "gpuplan/transformer.h"
#include "test_util.h"

namespace gpuplan {
namespace {

double params(const TransformerSpec& s) {
  return test::parameters(s);
}

const TransformerSpec& g31() {
  return test::model("gemma-4-31b").transformer;
}

TEST(GlobalGeometry, Gemma4ThirtyOneBCountsItsBlocksByKind) {
  // Hidden 5376, 32 heads; 50 sliding blocks of head_dim 256 with 16 key-value heads (q 8192,
  // k and v 4096 each); 10 global blocks of head_dim 512 with 4 key-value heads whose keys are
  // the values (q 16384, k 2048, no v_proj); q/k norms over the head; GeGLU of 21504; two norms
  // per block; a tied embedding of 262144 rows and the final norm.
  const double h = 5376;
  const double sliding = h * (8192 + 4096 + 4096) + 8192 * h + 2 * 256;
  const double global = h * (16384 + 2048) + 16384 * h + 2 * 512;
  const double rest = 3 * h * 21504 + 2 * h;
  EXPECT_DOUBLE_EQ(params(g31()), 50 * sliding + 10 * global + 60 * rest + 262144 * h + h);
}

TEST(GlobalGeometry, TotalsRoundToThePublishedOnes) {
  // Google's model card: 31B dense 30.7B; 26B A4B 25.2B total, 3.8B active.
  gpuplan::Setup s;
  s.mode = Mode::infer;
  s.precision = Precision::bf16;
  for (const auto& [id, total, active] :
       {std::tuple{"gemma-4-31b", 30.7e9, 30.7e9}, {"gemma-4-26b-a4b", 25.2e9, 3.8e9}}) {
    SCOPED_TRACE(id);
    auto e = estimate(test::model(id), s);
    ASSERT_TRUE(e.ok()) << e.error().message;
    EXPECT_EQ(std::round(static_cast<double>(e.value().params.total) / 1e8) * 1e8, total);
    EXPECT_EQ(std::round(static_cast<double>(e.value().params.active_per_token) / 1e8) * 1e8,
              active);
  }
}

TEST(GlobalGeometry, EachKindOfBlockScoresAndCachesAtItsGeometry) {
  const double t = 8192;
  const TransformerFlops f = transformer_forward_flops(g31(), 8192);
  // Sliding blocks: a band of 1024 keys at 2 x 32 x 256 x 2 per pair; global blocks: every key
  // at 2 x 32 x 512 x 2.
  EXPECT_DOUBLE_EQ(f.attention_core, 50 * t * 1024 * 32768.0 + 10 * t * t * 65536.0);
  // Projections per token: sliding 2 x 5376 x (8192 + 2 x 4096), global 2 x 5376 x (16384 +
  // 2048); outputs 2 x 8192 x 5376 and 2 x 16384 x 5376.
  EXPECT_DOUBLE_EQ(f.qkv_proj, t * (50 * 2 * 5376.0 * 16384 + 10 * 2 * 5376.0 * 18432));
  EXPECT_DOUBLE_EQ(f.attn_out_proj, t * (50 * 2 * 8192.0 * 5376 + 10 * 2 * 16384.0 * 5376));
  // The cache at 100,000 tokens, bf16: each sliding block its window of K and V of 16 heads of
  // 256; each global block every token's one vector of 4 heads of 512.
  const KvCacheSize k = kv_cache_size(g31(), 2, 100000);
  EXPECT_DOUBLE_EQ(k.total_bytes, 50 * 1024 * (2 * 16 * 256 * 2.0) + 10 * 100000 * (4 * 512 * 2.0));
  EXPECT_DOUBLE_EQ(k.every_block_bytes_per_token(), 50 * 16384.0 + 10 * 4096.0);
}

TEST(GlobalGeometry, TheImporterRefusesWhatItDoesNotModel) {
  std::string text = test::read_repo_file("tests/fixtures/hf/gemma-4-26b-a4b.json");
  const std::string ple = "\"hidden_size_per_layer_input\": 0";
  ASSERT_NE(text.find(ple), std::string::npos);
  text.replace(text.find(ple), ple.size(), "\"hidden_size_per_layer_input\": 256");
  auto m = model_from_hf_config(text, "config.json");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("hidden_size_per_layer_input: only 0 is modelled"),
            std::string::npos)
      << m.error().message;
  TransformerSpec bad = g31();
  bad.global_kv_heads = 5;
  auto err = validate_transformer(bad, "x.json: transformer");
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->message, "x.json: transformer: global_kv_heads (5) must divide heads (32)");
}

// Step-3.7-Flash's layer_types put full attention in blocks 0, 4, ..., 44: 12 of 45, the other 33
// windowed (the last of every 4 would give 11).
TEST(GlobalGeometry, FullBlocksFirstOfEveryNCountTheRoundedUpShare) {
  const TransformerSpec& s = test::model("step-3.7-flash").transformer;
  EXPECT_EQ(s.windowed_layer_count(), 33);
  TransformerSpec last = s;
  last.full_attention_first = false;
  EXPECT_EQ(last.windowed_layer_count(), 34);
  // The cache at 100,000 tokens, bf16: K and V of 8 heads of 128 per token and block.
  EXPECT_DOUBLE_EQ(kv_cache_size(s, 2, 100000).total_bytes,
                   (12 * 100000.0 + 33 * 512.0) * 2 * 8 * 128 * 2);
  // StepFun: a 196B language backbone with about 11B active (without the MTP modules).
  gpuplan::Setup setup;
  setup.mode = Mode::infer;
  setup.precision = Precision::bf16;
  auto e = estimate(test::model("step-3.7-flash"), setup);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(std::round(static_cast<double>(e.value().params.total) / 1e9), 196);
  EXPECT_EQ(std::round(static_cast<double>(e.value().params.active_per_token) / 1e9), 11);
  // A list with its full blocks neither last nor first of every n is refused by name.
  std::string text = test::read_repo_file("tests/fixtures/hf/step-3.7-flash.json");
  const std::string head = "\"layer_types\": [\n    \"full_attention\"";
  ASSERT_NE(text.find(head), std::string::npos);
  text.replace(text.find(head), head.size(), "\"layer_types\": [\n    \"sliding_attention\"");
  auto m = model_from_hf_config(text, "config.json");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("layer_types: a pattern gpuplan cannot express"),
            std::string::npos)
      << m.error().message;
}

// MiMo-V2-Flash, by hand from its config.json: hidden 4096, 64 query heads; queries and keys of
// 192 channels, values of 128; 39 windowed blocks with 8 key-value heads and a sink per head, 9
// full blocks (0, 5, 11, ..., 47) with 4 and no sinks; block 0 a dense SwiGLU of 16384, the
// other 47 with 256 routed experts of 2048 (top 8) and a router with a correction bias; two
// norms per block, the final norm, untied embeddings of 152576 rows.
TEST(GlobalGeometry, MiMoV2FlashCountsKeysAndValuesOfTheirOwnWidth) {
  const TransformerSpec& s = test::model("mimo-v2-flash").transformer;
  EXPECT_EQ(s.attention_layer_count() - s.windowed_layer_count(), 9);
  const double h = 4096, q = 64 * 192, out = 64 * 128;
  const double windowed = h * q + h * 8 * 192 + h * 8 * 128 + out * h + 64;
  const double full = h * q + h * 4 * 192 + h * 4 * 128 + out * h;
  const double expert = 3 * h * 2048, router = 256 * h + 256;
  const double shared =
      2 * 152576 * h + 48 * 2 * h + h + 39 * windowed + 9 * full + 3 * h * 16384 + 47 * router;
  EXPECT_DOUBLE_EQ(params(s), shared + 47 * 256 * expert);
  gpuplan::Setup setup;
  setup.mode = Mode::infer;
  setup.precision = Precision::bf16;
  auto e = estimate(test::model("mimo-v2-flash"), setup);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_DOUBLE_EQ(static_cast<double>(e.value().params.active_per_token),
                   shared + 47 * 8 * expert);
  // Xiaomi: 309B total, 15B active (technical report, arXiv 2601.02780).
  EXPECT_EQ(std::round(static_cast<double>(e.value().params.total) / 1e9), 309);
  EXPECT_EQ(std::round(static_cast<double>(e.value().params.active_per_token) / 1e9), 15);
  // The cache at 128,000 tokens, bf16: per token a key of 192 and a value of 128 per head, every
  // token in the full blocks, the last 128 in the windowed ones.
  EXPECT_DOUBLE_EQ(kv_cache_size(s, 2, 128000).total_bytes,
                   (9 * 4 * 128000.0 + 39 * 8 * 128.0) * (192 + 128) * 2);
  // The output projection reads the 128-channel values of the 64 heads in every block.
  EXPECT_DOUBLE_EQ(transformer_forward_flops(s, 1000).attn_out_proj, 48 * 1000 * 2 * out * h);
}

// The importer reads hybrid_layer_pattern's leading full block, and refuses what the spec cannot
// say by the field's name.
TEST(GlobalGeometry, MiMoV2FlashConfigsTheSpecCannotSayAreRefusedByField) {
  const std::string text = test::read_repo_file("tests/fixtures/hf/mimo-v2-flash.json");
  using Edits = std::vector<std::pair<std::string, std::string>>;
  auto edited = [&](const Edits& edits) {
    std::string t = text;
    for (const auto& [from, to] : edits) {
      const size_t at = t.find(from);
      EXPECT_NE(at, std::string::npos) << from;
      if (at != std::string::npos) t.replace(at, from.size(), to);
    }
    return model_from_hf_config(t, "config.json");
  };
  // Block 0 windowed: full attention in every 6th block (8 of 48), as full_attention_every says.
  auto every =
      edited({{"\"hybrid_layer_pattern\": [\n    0,", "\"hybrid_layer_pattern\": [\n    1,"}});
  ASSERT_TRUE(every.ok()) << every.error().message;
  EXPECT_EQ(every.value().transformer.full_attention_leading, 0);
  EXPECT_EQ(every.value().transformer.full_attention_blocks(), 8);
  const std::pair<Edits, std::string> refused[] = {
      {{{"\"hybrid_layer_pattern\": [\n    0, 1, 1,", "\"hybrid_layer_pattern\": [\n    0, 1, 0,"}},
       "hybrid_layer_pattern: a pattern gpuplan cannot express"},
      {{{"\"swa_head_dim\": 192", "\"swa_head_dim\": 128"}}, "swa_head_dim: windowed blocks whose"},
      {{{"\"add_swa_attention_sink_bias\": true", "\"add_swa_attention_sink_bias\": false"},
        {"\"add_full_attention_sink_bias\": false", "\"add_full_attention_sink_bias\": true"}},
       "add_full_attention_sink_bias: sinks in the full blocks alone"},
      {{{"\"moe_layer_freq\": [\n    0, 1, 1", "\"moe_layer_freq\": [\n    0, 1, 0"}},
       "moe_layer_freq: dense blocks after the first MoE block"},
  };
  for (const auto& [edits, error] : refused) {
    auto m = edited(edits);
    ASSERT_FALSE(m.ok()) << error;
    EXPECT_NE(m.error().message.find(error), std::string::npos) << m.error().message;
  }
}

}  // namespace
}  // namespace gpuplan
