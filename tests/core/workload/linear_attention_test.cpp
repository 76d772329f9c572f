// Hybrid linear attention (Qwen3-Next, Qwen3.5: Gated DeltaNet in 3 of 4 blocks, gated softmax
// attention in the 4th): parameters, FLOPs and the per-sequence state, hand-derived from
// Qwen3-Next-80B-A3B's config.json, and their use in training, inference and serving.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "gpuplan/embedded_data.h"
#include "gpuplan/estimate.h"
#include "gpuplan/hf_config.h"
#include "gpuplan/serve_replica.h"
#include "gpuplan/transformer.h"
#include "catalog/zoo_counts.h"
#include "test_util.h"

namespace gpuplan {
namespace {

const TransformerSpec& qwen3_next() {
  return test::model("qwen3-next-80b-a3b").transformer;
}

int64_t parameters(const TransformerSpec& s) {
  int64_t n = 0;
  for (const auto& t : transformer_parameters(s)) n += t.numel();
  return n;
}

TEST(LinearAttention, EveryFourthBlockKeepsSoftmaxAttention) {
  // full_attention_interval 4: blocks 3, 7, ..., 47 attend fully, the other 36 are linear.
  const TransformerSpec& s = qwen3_next();
  EXPECT_EQ(s.linear_layer_count(), 36);
  EXPECT_EQ(s.attention_layer_count(), 12);
  EXPECT_EQ(s.windowed_layer_count(), 0);
}

TEST(LinearAttention, ParametersOfQwen3NextCountTensorByTensor) {
  // Per linear block (transformers' Qwen3NextGatedDeltaNet): in_proj_qkvz 2048 x (2 x 2048 +
  // 2 x 4096) = 25,165,824; in_proj_ba 2048 x 64 = 131,072; conv1d 8192 x 4 = 32,768; dt_bias
  // and A_log 32 each; the gated norm 128; out_proj 4096 x 2048 = 8,388,608: 33,718,464.
  // Per attention block: q_proj 2048 x 8192 (16 heads x 256, doubled for the gate) =
  // 16,777,216; k_proj and v_proj 2048 x 512 each; o_proj 4096 x 2048; q/k norms 256 each:
  // 27,263,488. Per block's MoE: 512 experts x 3 x 2048 x 512 = 1,610,612,736, the shared
  // expert 3 x 2048 x 512 = 3,145,728, its gate 2048, the router 512 x 2048 = 1,048,576; and
  // two norms of 2048. Embedding and LM head 151,936 x 2048 each, the final norm 2048.
  const int64_t linear = 33'718'464, attention = 27'263'488;
  const int64_t moe = 1'610'612'736 + 3'145'728 + 2048 + 1'048'576 + 2 * 2048;
  const int64_t expected = 36 * linear + 12 * attention + 48 * moe + 2 * 311'164'928 + 2048;
  EXPECT_EQ(expected, 79'674'391'296);
  EXPECT_EQ(parameters(qwen3_next()), expected);
  // The model card's 80B total.
  EXPECT_NEAR(static_cast<double>(expected) / 1e9, 80, 0.5);
}

TEST(LinearAttention, StatePerSequenceIsFixedAndHeadsSplitOverTensorParallelRanks) {
  // A linear block keeps 32 value heads x 128 x 128 of state and the convolution's last 3 of
  // 8,192 channels (2 x 2048 + 4096), at 16 bits: (524,288 + 24,576) x 2 = 1,097,728 bytes; 36
  // blocks: 39,518,208 per sequence, at any length. The 12 attention blocks keep K and V of 2
  // heads of 256: 2 x 2 x 256 x 2 = 2,048 bytes per token each.
  const TransformerSpec& s = qwen3_next();
  EXPECT_DOUBLE_EQ(linear_attention_state_bytes(s, 2), 1'097'728);
  for (double tokens : {1.0, 4096.0, 262144.0}) {
    const KvCacheSize k = kv_cache_size(s, 2, tokens);
    EXPECT_DOUBLE_EQ(k.state_layers, 36);
    EXPECT_DOUBLE_EQ(k.state_bytes, 39'518'208);
    EXPECT_DOUBLE_EQ(k.full_layers, 12);
    EXPECT_DOUBLE_EQ(k.bytes_per_token_per_layer, 2048);
    EXPECT_DOUBLE_EQ(k.total_bytes, 39'518'208 + 12 * 2048 * tokens);
    EXPECT_DOUBLE_EQ(k.token_bytes(), 12 * 2048 * tokens);
  }
  // tp 4: 8 value heads and 2,048 convolution channels per rank, (131,072 + 6,144) x 2 bytes per
  // block; one KV head per rank (2 heads replicated past tp 2).
  const KvCacheSize tp4 = kv_cache_size(s, 2, 1000, 4);
  EXPECT_DOUBLE_EQ(tp4.state_bytes, 36 * 274'432.0);
  EXPECT_DOUBLE_EQ(tp4.bytes_per_token_per_layer, 1024);
}

TEST(LinearAttention, TokenMixingGrowsLinearlyWithTheSequence) {
  // One token (a decode step), per value head: 6 x 128 x 128 + 2 x (3 x 128 + 2 x 128) + 2/3;
  // 32 heads, plus the convolution's 2 x 4 x 8,192: 3,252,245.33 FLOPs per linear block.
  const TransformerSpec& s = qwen3_next();
  const double one = 32 * (6 * 128.0 * 128 + 2 * (3 * 128 + 2 * 128) + 2.0 / 3) + 2 * 4 * 8192;
  EXPECT_NEAR(linear_attention_core_flops_per_token(s, 1), one, 1e-6);
  // From 64 tokens on, chunks of 64: the same FLOPs per token at 8k as at 128k.
  const double chunked = linear_attention_core_flops_per_token(s, 64);
  EXPECT_DOUBLE_EQ(linear_attention_core_flops_per_token(s, 131072), chunked);
  EXPECT_DOUBLE_EQ(transformer_forward_flops(s, 8192).linear_core, 36 * 8192 * chunked);
  // Softmax attention only in the 12 full blocks: the pairs double per doubled length, the
  // linear blocks' work only doubles with the tokens.
  const TransformerFlops a = transformer_forward_flops(s, 8192);
  const TransformerFlops b = transformer_forward_flops(s, 16384);
  EXPECT_DOUBLE_EQ(a.attention_core, attention_pairs(s, 8192) * attention_flops_per_pair(s));
  EXPECT_DOUBLE_EQ(attention_pairs(s, 8192), 12 * 8192.0 * 8192);
  EXPECT_DOUBLE_EQ(b.linear_core, 2 * a.linear_core);
}

TEST(LinearAttention, HfConfigsOfQwen3NextAndQwen35ImportAsTheZoosModels) {
  // Qwen/Qwen3-Next-80B-A3B-Instruct and Qwen/Qwen3.5-397B-A17B, -122B-A10B and -27B (their
  // text_config), as public copies of their config.json show them.
  test::expect_imports_as("qwen3-next-80b-a3b.json", "qwen3-next-80b-a3b");
  test::expect_imports_as("qwen3.5-397b-a17b.json", "qwen3.5-397b-a17b");
  test::expect_imports_as("qwen3.5-122b-a10b.json", "qwen3.5-122b-a10b");
  test::expect_imports_as("qwen3.5-27b.json", "qwen3.5-27b");
}

TEST(LinearAttention, HfConfigsThatCannotBeExpressedAreRefusedByField) {
  std::string config = test::read_repo_file("tests/fixtures/hf/qwen3-next-80b-a3b.json");
  auto with = [&](const std::string& field) {
    std::string c = config;
    c.insert(c.find('{') + 1, field + ",");
    auto m = model_from_hf_config(c, "config.json");
    return m.ok() ? std::string("accepted") : m.error().message;
  };
  // layer_types with full attention in blocks 0 and 3: no every-n-th pattern.
  std::string types = "\"layer_types\": [\"full_attention\"";
  for (int i = 1; i < 48; ++i) types += i == 3 ? ", \"full_attention\"" : ", \"linear_attention\"";
  EXPECT_EQ(with(types + "]"),
            "config.json: layer_types: a pattern gpuplan cannot express (full attention in every "
            "n-th block)");
  EXPECT_EQ(with("\"layer_types\": [\"linear_attention\", \"mamba\"]"),
            "config.json: layer_types: expected 'linear_attention' or 'full_attention' entries");
  EXPECT_EQ(with("\"mtp_use_dedicated_embeddings\": true"),
            "config.json: mtp_use_dedicated_embeddings: true is not modelled (MTP shares the "
            "embedding)");
  const std::string heads = "\"linear_num_value_heads\": 32";
  config.replace(config.find(heads), heads.size(), "\"linear_num_value_heads\": 24");
  auto m = model_from_hf_config(config, "config.json");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message,
            "config.json: linear_value_heads (24) must be a multiple of linear_key_heads (16)");
}

TEST(LinearAttention, TrainingRefusesWhatItDoesNotModel) {
  gpuplan::Setup setup;
  setup.mode = Mode::train;
  setup.global_batch = 8;
  setup.cp = 2;
  setup.seq_len = 4096;
  auto e = estimate(test::model("qwen3-next-80b-a3b"), setup);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message,
            "--cp: context parallelism of the linear-attention blocks of 'qwen3-next-80b-a3b' is "
            "not modelled");
  // A custom hybrid whose attention heads (16, 2 key/value) split 2 ways but whose 3 linear key
  // heads do not.
  setup.cp = 1;
  setup.tp = 2;
  Model odd = test::model("qwen3-next-80b-a3b");
  odd.transformer.linear_key_heads = 3;
  odd.transformer.linear_value_heads = 6;
  e = estimate(odd, setup);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message,
            "--tp 2 does not divide the linear-attention heads (3 key, 6 value heads)");
  EXPECT_TRUE(estimate(test::model("qwen3-next-80b-a3b"), setup).ok());
}

TEST(LinearAttention, InferenceDecodeCountsTheStateUpdateNotAttentionOverTheContext) {
  // estimate --mode infer: a decode token's FLOPs are 2 per active parameter, attention over the
  // context in the 12 full blocks, and one recurrent update in each of the 36 linear blocks.
  gpuplan::Setup setup;
  setup.mode = Mode::infer;
  setup.precision = Precision::bf16;
  setup.global_batch = 1;
  setup.seq_len = 4096;
  setup.generate_tokens = 0;
  auto e = estimate(test::model("qwen3-next-80b-a3b"), setup);
  ASSERT_TRUE(e.ok()) << e.error().message;
  const TransformerSpec& s = qwen3_next();
  const double n_active =
      static_cast<double>(e.value().params.active_per_token - e.value().params.embedding);
  const double expected = 2 * n_active + attention_flops_per_pair(s) * 12 * 4096 +
                          36 * linear_attention_core_flops_per_token(s, 1);
  EXPECT_NEAR(e.value().flops.decode_per_token, expected, 1e-9 * expected);
  // The KV cache holds every sequence's state besides its tokens' keys and values.
  EXPECT_DOUBLE_EQ(e.value().memory.kv_cache, 39'518'208 + 12 * 2048 * 4096.0);
}

TEST(LinearAttention, ServingKeepsEachSequencesStateInTheCacheAndReadsItEveryStep) {
  // Qwen3-Next (160 GB at bf16) on 4 H100s: each GPU holds 36 x 274,432 bytes of each
  // sequence's state, in whole KV blocks beside its tokens'; a decode step reads and writes it.
  const Gpu* g = test::catalog().find_gpu("h100-sxm5-80gb");
  ASSERT_NE(g, nullptr);
  ServeConfig c;
  c.tp = 4;
  auto built = build_replica(test::model("qwen3-next-80b-a3b"), *g, c, test::serving(),
                             test::catalog().efficiencies);
  ASSERT_TRUE(built.ok()) << built.error().message;
  const ReplicaModel& r = built.value();
  EXPECT_DOUBLE_EQ(r.memory.state_bytes_per_seq, 36 * 274'432.0);
  EXPECT_DOUBLE_EQ(r.memory.kv_bytes_per_token, 12 * 1024.0);
  // vLLM widens the block until one attention layer's block (1,024 bytes a token) holds one
  // linear layer's 274,432-byte state: 16 x ceil(274,432 / 16,384) = 272 tokens; the 36 linear
  // layers are 3 groups of 12 (as many as the attention layers), one block each per sequence.
  EXPECT_EQ(r.block_tokens, 272);
  EXPECT_EQ(r.memory.state_blocks_per_seq, 3);
  const int64_t per_seq =
      static_cast<int64_t>(std::ceil(2500.0 / static_cast<double>(r.block_tokens))) +
      r.memory.state_blocks_per_seq;
  EXPECT_EQ(max_concurrent_sequences(r, 2000, 500),
            std::min(r.max_num_seqs, r.memory.kv_blocks / per_seq));
  // One decode at no context: attention's time is at least the state's read and write.
  StepLoad one;
  one.decode_seqs = 1;
  EXPECT_GE(step_time(r, one).attention_s, 2 * r.memory.state_bytes_per_seq / r.hbm_bytes_per_s);
  StepLoad two = one;
  two.decode_seqs = 2;
  EXPECT_NEAR(step_time(r, two).attention_s, 2 * step_time(r, one).attention_s, 1e-15);
  // A runtime without hybrid pages (SGLang here) keeps 16-token blocks: the state takes the
  // blocks its bytes need,
  // ceil(36 x 274,432 / (16 x 12,288)) = 51.
  c.runtime = Runtime::sglang;
  auto sglang = build_replica(test::model("qwen3-next-80b-a3b"), *g, c, test::serving(),
                              test::catalog().efficiencies);
  ASSERT_TRUE(sglang.ok()) << sglang.error().message;
  EXPECT_EQ(sglang.value().block_tokens, 16);
  EXPECT_EQ(sglang.value().memory.state_blocks_per_seq, 51);
}

}  // namespace
}  // namespace gpuplan
