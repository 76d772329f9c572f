// KV cache by architecture (issue 29, item 2): bytes per token of one block for latent, windowed
// and grouped-query attention, hand-derived from each model's config.json, and their use in the
// inference estimate and the serving replica. The single 2 x layers x kv_heads x head_dim
// formula overstates DeepSeek-V3 57-fold and gpt-oss-120b twice at 8k tokens.
#include <gtest/gtest.h>

#include "gpuplan/embedded_data.h"
#include "gpuplan/estimate.h"
#include "gpuplan/serve_replica.h"
#include "gpuplan/transformer.h"
#include "test_util.h"

namespace gpuplan {
namespace {

TEST(KvCache, LatentAttentionCachesTheCompressedLatentOnce) {
  // DeepSeek-V3: kv_lora_rank 512 + qk_rope_head_dim 64 per token and block, shared by the 128
  // heads (DeepSeek-V2 paper, sec. 2.1.2, "only c_t^KV and k_t^R need to be cached"): 576 x 2
  // bytes at bf16 = 1,152; x 61 blocks = 70,272 bytes per token; every TP rank keeps it whole.
  const TransformerSpec& s = test::model("deepseek-v3").transformer;
  const KvCacheSize bf16 = kv_cache_size(s, 2, 4096);
  EXPECT_DOUBLE_EQ(bf16.bytes_per_token_per_layer, 1152);
  EXPECT_DOUBLE_EQ(bf16.full_layers, 61);
  EXPECT_DOUBLE_EQ(bf16.bytes_per_token(), 70272);
  EXPECT_DOUBLE_EQ(bf16.total_bytes, 70272.0 * 4096);
  EXPECT_DOUBLE_EQ(kv_cache_size(s, 2, 4096, 8).bytes_per_token(), 70272);
  EXPECT_DOUBLE_EQ(kv_cache_size(s, 1, 4096).bytes_per_token(), 35136);  // fp8
  // The MHA formula with 128 heads of v_head_dim 128: 2 x 61 x 128 x 128 x 2 = 3,997,696.
  EXPECT_NEAR(2.0 * 61 * 128 * 128 * 2 / bf16.bytes_per_token(), 56.9, 0.1);
}

TEST(KvCache, SlidingWindowBlocksKeepAtMostTheirWindow) {
  // gpt-oss-120b: 8 KV heads of 64, bf16: 2 x 8 x 64 x 2 = 2,048 bytes per token and block;
  // 18 full blocks keep every token, 18 sliding blocks the last 128. At 8,192 tokens:
  // 2,048 x (18 x 8,192 + 18 x 128) bytes, 37,440 per token (36 x 2,048 = 73,728 without the
  // window). Attention sinks are a learned logit per head: no cached tokens.
  const TransformerSpec& s = test::model("gpt-oss-120b").transformer;
  const KvCacheSize k = kv_cache_size(s, 2, 8192);
  EXPECT_DOUBLE_EQ(k.bytes_per_token_per_layer, 2048);
  EXPECT_DOUBLE_EQ(k.full_layers, 18);
  EXPECT_DOUBLE_EQ(k.windowed_layers, 18);
  EXPECT_DOUBLE_EQ(k.window_tokens, 128);
  EXPECT_DOUBLE_EQ(k.total_bytes, 2048.0 * (18 * 8192 + 18 * 128));
  EXPECT_DOUBLE_EQ(k.bytes_per_token(), 37440);
  // Within the window every block keeps every token.
  EXPECT_DOUBLE_EQ(kv_cache_size(s, 2, 100).bytes_per_token(), 36 * 2048);
  // Llama 4 Scout: 36 chunked blocks keep the current 8,192-token chunk at most.
  const KvCacheSize scout = kv_cache_size(test::model("llama-4-scout").transformer, 2, 65536);
  EXPECT_DOUBLE_EQ(scout.total_bytes, 4096.0 * (12 * 65536 + 36 * 8192));
}

TEST(KvCache, GroupedQueryHeadsSplitOverTensorParallelRanksAndReplicatePastThem) {
  // Llama-3.1-70B: 80 blocks, 8 KV heads of 128: 2 x 8 x 128 x 2 = 4,096 bytes per block,
  // 327,680 per token; TP 8: one head per rank, 40,960; TP 16: a head is replicated (vLLM),
  // still 40,960 per rank.
  const TransformerSpec& s = test::model("llama-3.1-70b").transformer;
  EXPECT_DOUBLE_EQ(kv_cache_size(s, 2, 1000).bytes_per_token(), 327680);
  EXPECT_DOUBLE_EQ(kv_cache_size(s, 2, 1000, 8).bytes_per_token(), 40960);
  EXPECT_DOUBLE_EQ(kv_cache_size(s, 2, 1000, 16).bytes_per_token(), 40960);
}

TEST(KvCache, InferenceEstimateHoldsTheArchitecturesCache) {
  gpuplan::Setup infer;
  infer.mode = Mode::infer;
  infer.precision = Precision::bf16;
  infer.seq_len = 4096;
  infer.generate_tokens = 4096;
  auto ds = estimate(test::model("deepseek-v3"), infer);
  ASSERT_TRUE(ds.ok()) << ds.error().message;
  EXPECT_DOUBLE_EQ(ds.value().memory.kv_cache, 70272.0 * 8192);
  auto oss = estimate(test::model("gpt-oss-120b"), infer);
  ASSERT_TRUE(oss.ok()) << oss.error().message;
  EXPECT_DOUBLE_EQ(oss.value().memory.kv_cache, 2048.0 * (18 * 8192 + 18 * 128));
}

TEST(KvCache, ServingReplicaSizesItsCacheByArchitecture) {
  const Gpu* h200 = test::catalog().find_gpu("h200-sxm-141gb");
  ASSERT_NE(h200, nullptr);
  ServeConfig c;
  c.tp = 8;
  c.weights = WeightFormat::fp8;
  auto ds = build_replica(test::model("deepseek-v3"), *h200, c, test::serving(),
                          test::catalog().efficiencies);
  ASSERT_TRUE(ds.ok()) << ds.error().message;
  // The latent on every rank: 70,272 bytes per token whatever the TP degree.
  EXPECT_DOUBLE_EQ(ds.value().memory.kv_bytes_per_token, 70272);
  // gpt-oss-120b at 16 bits on two GPUs: 4 KV heads of 64 per GPU, a token in all 36 blocks
  // 36 x 2 x 4 x 64 x 2 = 36,864 bytes; a sequence of 8,192 tokens keeps
  // (18 x 8,192 + 18 x 128) / 36 = 4,160 token-blocks' worth, 260 blocks of 16.
  ServeConfig two;
  two.tp = 2;
  auto oss = build_replica(test::model("gpt-oss-120b"), *h200, two, test::serving(),
                           test::catalog().efficiencies);
  ASSERT_TRUE(oss.ok()) << oss.error().message;
  const ReplicaModel& r = oss.value();
  EXPECT_DOUBLE_EQ(r.memory.kv_bytes_per_token, 36864);
  const auto by_memory = r.memory.kv_blocks / 260;
  EXPECT_EQ(max_concurrent_sequences(r, 8000, 192), std::min<int64_t>(by_memory, r.max_num_seqs));
}

}  // namespace
}  // namespace gpuplan
