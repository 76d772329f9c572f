// DeepSeek Sparse Attention (DeepSeek-V3.2): the lightning indexer's parameters, FLOPs and cached
// keys, the top-k keys the attention reads, in training, estimate and serving, against counts
// derived by hand from DeepSeek-V3.2-Exp's inference config (index_n_heads 64, index_head_dim 128,
// index_topk 2048, q_lora_rank 1536, hidden 7168, 61 blocks).
#include <gtest/gtest.h>

#include <algorithm>

#include "gpuplan/estimate.h"
#include "gpuplan/hf_config.h"
#include "gpuplan/serve_replica.h"
#include "gpuplan/timing.h"
#include "gpuplan/transformer.h"
#include "test_util.h"

namespace gpuplan {
namespace {

double params(const TransformerSpec& s) {
  return test::parameters(s);
}

const TransformerSpec& v32() {
  return test::model("deepseek-v3.2").transformer;
}
const TransformerSpec& v3() {
  return test::model("deepseek-v3").transformer;
}

TEST(SparseAttention, TheIndexerAddsItsTensorsToEveryBlock) {
  // wq_b 1536 x (64 x 128), wk 7168 x 128, k_norm weight and bias 2 x 128, weights_proj 7168 x 64;
  // 61 blocks and the MTP module's block.
  const double indexer = 1536.0 * 64 * 128 + 7168.0 * 128 + 2 * 128 + 7168.0 * 64;
  EXPECT_DOUBLE_EQ(params(v32()) - params(v3()), 62 * indexer);
}

TEST(SparseAttention, KeysPerQueryAreATopKBandAndTheIndexerScoresAll) {
  const double t = 8192, k = 2048;
  EXPECT_DOUBLE_EQ(attention_keys_per_query(v32(), t, true), k);
  EXPECT_DOUBLE_EQ(attention_keys_per_query(v32(), 1000, true), 1000);
  EXPECT_DOUBLE_EQ(attention_pairs(v32(), t), 61 * t * k);
  // Projections per token: 2 x (1536 x 8192 + 7168 x 128 + 7168 x 64); scores: 2 x 64 x 128 per
  // query-key pair, each query against (t + 1) / 2 keys on average.
  const double per_token = 2 * (1536.0 * 8192 + 7168.0 * 128 + 7168.0 * 64);
  EXPECT_DOUBLE_EQ(indexer_flops(v32(), t), 61 * t * (per_token + (t + 1) / 2 * 2 * 64 * 128));
  const TransformerFlops f = transformer_forward_flops(v32(), 8192);
  const TransformerFlops dense = transformer_forward_flops(v3(), 8192);
  // The MTP module's block selects its keys too.
  EXPECT_DOUBLE_EQ(f.indexer, indexer_flops(v32(), t) * 62 / 61);
  EXPECT_DOUBLE_EQ(f.attention_core, dense.attention_core * k / t);
  EXPECT_EQ(indexer_flops(v3(), t), 0.0);
}

TEST(SparseAttention, TheCacheKeepsEveryTokenAndAQueryReadsTopKLatents) {
  // Per token and block: the latent 512 + 64 at bf16, and the fp8 index key of 128 channels with
  // one fp32 scale.
  const double ctx = 100000, latent = (512 + 64) * 2.0, index = 128 + 4;
  const KvCacheSize k = kv_cache_size(v32(), 2, ctx);
  EXPECT_DOUBLE_EQ(k.index_bytes_per_token_per_layer, index);
  EXPECT_DOUBLE_EQ(k.total_bytes, 61 * ctx * (latent + index));
  EXPECT_DOUBLE_EQ(k.read_bytes, 61 * (2048 * latent + ctx * index));
  EXPECT_DOUBLE_EQ(kv_cache_size(v3(), 2, ctx).read_bytes, 61 * ctx * latent);
}

TEST(SparseAttention, ADecodeStepReadsTheTopKLatentsAndEveryIndexKey) {
  const Gpu* h200 = test::catalog().find_gpu("h200-sxm-141gb");
  ASSERT_NE(h200, nullptr);
  ServeConfig c;
  c.tp = 8;
  c.weights = WeightFormat::fp8;
  auto sparse = build_replica(test::model("deepseek-v3.2"), *h200, c, test::serving(),
                              test::catalog().efficiencies);
  auto dense = build_replica(test::model("deepseek-v3"), *h200, c, test::serving(),
                             test::catalog().efficiencies);
  ASSERT_TRUE(sparse.ok()) << sparse.error().message;
  ASSERT_TRUE(dense.ok()) << dense.error().message;
  const ReplicaModel& r = sparse.value();
  // MLA's latent is whole on every rank; the index keys are too.
  EXPECT_DOUBLE_EQ(r.index_bytes_per_token, 61 * 132.0);
  StepLoad load;
  load.decode_seqs = 4;
  load.decode_context = 4 * 100000.0;
  const double latent = r.memory.kv_bytes_per_token - r.index_bytes_per_token;
  const double bytes = 4 * (2048 * latent + 100000 * r.index_bytes_per_token);
  const double flops = 4 * 2048 * r.attention_flops_per_pair / r.attention_flop_per_s +
                       4 * 100000 * r.indexer_flops_per_pair / r.indexer_flop_per_s;
  EXPECT_DOUBLE_EQ(step_time(r, load).attention_s, std::max(bytes / r.hbm_bytes_per_s, flops));
  EXPECT_LT(step_time(r, load).attention_s, step_time(dense.value(), load).attention_s / 5);
}

// The training time model's attention core is the FLOP count's: windowed blocks (GPT-OSS's
// sliding window of 128, every second block) at their band, with the causal share applied to it.
TEST(SparseAttention, TrainingTimesAWindowedCoreAtItsBand) {
  gpuplan::Setup s;
  s.seq_len = 8192;
  s.precision = Precision::bf16;
  for (const char* id : {"gpt-oss-120b", "llama-3.1-8b"}) {
    SCOPED_TRACE(id);
    const Model& m = test::model(id);
    auto e = estimate(m, s);
    ASSERT_TRUE(e.ok()) << e.error().message;
    auto w = build_work_profile(m, s, e.value());
    ASSERT_TRUE(w.ok()) << w.error().message;
    double core = 0;
    for (const auto& op : w.value().ops) {
      if (op.name == "attention.core") core = op.flops_per_sample;
    }
    EXPECT_NEAR(core / model_forward_flops(m, m.transformer, 8192).attention_core, 1.0, 1e-12);
  }
}

TEST(SparseAttention, AConfigJsonOfDeepSeekV32ImportsAsTheZooEntry) {
  const std::string config = R"({"architectures": ["DeepseekV32ForCausalLM"],
      "model_type": "deepseek_v32", "hidden_size": 7168, "intermediate_size": 18432,
      "moe_intermediate_size": 2048, "num_hidden_layers": 61, "num_attention_heads": 128,
      "num_key_value_heads": 128, "q_lora_rank": 1536, "kv_lora_rank": 512,
      "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
      "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8,
      "first_k_dense_replace": 3, "moe_layer_freq": 1, "n_group": 8, "topk_group": 4,
      "topk_method": "noaux_tc", "scoring_func": "sigmoid", "norm_topk_prob": true,
      "routed_scaling_factor": 2.5, "num_nextn_predict_layers": 1, "index_topk": 2048,
      "index_n_heads": 64, "index_head_dim": 128, "vocab_size": 129280,
      "max_position_embeddings": 163840, "tie_word_embeddings": false,
      "torch_dtype": "bfloat16"})";
  auto m = model_from_hf_config(config, "config.json");
  ASSERT_TRUE(m.ok()) << m.error().message;
  const TransformerSpec& s = m.value().transformer;
  EXPECT_DOUBLE_EQ(params(s), params(v32()));
  EXPECT_DOUBLE_EQ(kv_cache_size(s, 2, 65536).total_bytes,
                   kv_cache_size(v32(), 2, 65536).total_bytes);
  TransformerSpec bad = v32();
  bad.q_lora_rank = 0;
  auto err = validate_transformer(bad, "x.json: transformer");
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->message,
            "x.json: transformer: index_topk needs latent attention with a q_lora_rank (the "
            "indexer reads it)");
}

}  // namespace
}  // namespace gpuplan
