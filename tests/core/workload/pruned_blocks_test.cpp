// DeciLM's pruned blocks (Llama-3.3-Nemotron-Super-49B; model.h: layer_pattern, mlp_widths):
// blocks without attention and MLPs of their own width, against counts derived by hand from the
// model's config.json (tests/fixtures/hf/llama-3.3-nemotron-super-49b.json), and the importer's
// refusals by field.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "gpuplan/estimate.h"
#include "gpuplan/hf_config.h"
#include "gpuplan/transformer.h"
#include "test_util.h"

namespace gpuplan {
namespace {

const TransformerSpec& super49b() {
  return test::model("llama-3.3-nemotron-super-49b").transformer;
}

// Hidden 8192; 49 attention blocks of 64 query heads and 8 key-value heads of 128 (q and o
// 8192 x 8192, k and v 8192 x 1024); 80 SwiGLU MLPs of DeciLM's widths: 49 of 28672, 6 of
// 14336, one of 17920, 10 of 7168, 8 of 5632 (ffn_mult 1.0: 5461 rounded up to 256), 6 of 2816
// (0.5: 2730 rounded up); a norm before each of the 129 sublayers, the final norm, untied
// embeddings of 128256 rows.
TEST(PrunedBlocks, NemotronSuper49BCountsEachBlockAsPruned) {
  const TransformerSpec& s = super49b();
  EXPECT_EQ(s.attention_layer_count(), 49);
  EXPECT_EQ(s.dense_mlp_layer_count(), 80);
  const double h = 8192;
  const double widths =
      49 * 28672.0 + 6 * 14336.0 + 17920.0 + 10 * 7168.0 + 8 * 5632.0 + 6 * 2816.0;
  EXPECT_DOUBLE_EQ(s.dense_mlp_width_sum(), widths);
  const double attention = 2 * h * h + 2 * h * 1024;
  const double total = 2 * 128256 * h + 49 * attention + 3 * h * widths + 129 * h + h;
  EXPECT_DOUBLE_EQ(test::parameters(s), total);
  EXPECT_EQ(std::round(total / 1e9), 50);  // 49.87B: NVIDIA names it 49B
  // Forward FLOPs of one token: the MLPs at their widths, attention in 49 blocks only.
  const TransformerFlops f = transformer_forward_flops(s, 1);
  EXPECT_DOUBLE_EQ(f.mlp, 2 * 3 * h * widths);
  EXPECT_DOUBLE_EQ(f.qkv_proj + f.attn_out_proj, 49 * 2 * attention);
  // The cache: keys and values of 8 heads of 128 in the 49 attention blocks.
  EXPECT_DOUBLE_EQ(kv_cache_size(s, 2, 131072).total_bytes, 49 * 131072.0 * 2 * 8 * 128 * 2);
  // Widths the pattern's MLP layers do not match are refused by name.
  TransformerSpec bad = s;
  bad.mlp_widths.pop_back();
  auto err = validate_transformer(bad, "x.json: transformer");
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->message,
            "x.json: transformer: mlp_widths has 79 widths for the layer_pattern's 80 MLP layers "
            "('-')");
}

TEST(PrunedBlocks, TheConfigImportsAsTheZoosModelAndVariantsAreRefusedByField) {
  const std::string text =
      test::read_repo_file("tests/fixtures/hf/llama-3.3-nemotron-super-49b.json");
  auto m = model_from_hf_config(text, "config.json");
  ASSERT_TRUE(m.ok()) << m.error().message;
  const TransformerSpec& a = m.value().transformer;
  EXPECT_EQ(a.layer_pattern, super49b().layer_pattern);
  EXPECT_EQ(a.mlp_widths, super49b().mlp_widths);
  EXPECT_EQ(a.ffn_hidden, super49b().ffn_hidden);
  EXPECT_DOUBLE_EQ(test::parameters(a), test::parameters(super49b()));
  EXPECT_EQ(a.rope_scaling, super49b().rope_scaling);
  // The first block's attention and MLP edited; each change the spec cannot say is named.
  const std::string first = "\"attention\": {\n        \"n_heads_in_group\": 8,";
  ASSERT_NE(text.find(first), std::string::npos);
  const std::pair<std::string, std::string> refused[] = {
      {"\"n_heads_in_group\": 8,", "\"n_heads_in_group\": 4,"},
      {"\"window_length\": null", "\"window_length\": 4096"},
      {"\"replace_with_linear\": false", "\"replace_with_linear\": true"},
  };
  const std::string errors[] = {
      "block_configs[1].attention.n_heads_in_group: attention blocks with different key-value "
      "heads",
      "block_configs[0].attention.window_length: only null is modelled",
      "block_configs[0].attention.replace_with_linear: only false is modelled",
  };
  for (size_t i = 0; i < 3; ++i) {
    std::string t = text;
    t.replace(t.find(refused[i].first), refused[i].first.size(), refused[i].second);
    auto r = model_from_hf_config(t, "config.json");
    ASSERT_FALSE(r.ok()) << errors[i];
    EXPECT_NE(r.error().message.find(errors[i]), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace gpuplan
