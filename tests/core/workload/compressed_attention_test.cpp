// DeepSeek-V4's compressed attention and hyper-connections (model.h): parameters, the keys a
// query reads, the indexer's work, the KV cache and what a decode step reads of it, against
// counts derived by hand from the models' config.json (tests/fixtures/hf/deepseek-v4-*.json) and
// the reference inference/model.py (Attention, Compressor, Indexer, Gate, Block).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

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

const TransformerSpec& flash() {
  return test::model("deepseek-v4-flash").transformer;
}
const TransformerSpec& pro() {
  return test::model("deepseek-v4-pro").transformer;
}

TEST(CompressedAttention, FlashCountsItsTensorsModuleByModule) {
  // DeepSeek-V4-Flash without its MTP block: hidden 4096, 64 heads of 512, q_lora_rank 1024,
  // 8 output groups of rank 1024, 256 routed experts of 2048 and one shared, vocab 129280,
  // 4 residual streams; 21 CSA blocks (ratio 4), 20 HCA blocks (ratio 128), 2 window-only.
  const double d = 4096, heads = 64, hd = 512, ql = 1024, groups = 8, rank = 1024;
  const double attention = heads /* attn_sink */ + d * ql + ql /* q_norm */ + ql * heads * hd +
                           d * hd + hd /* kv_norm */ + heads * hd * rank /* wo_a */ +
                           groups * rank * d /* wo_b */;
  // Compressor: wkv and wgate from d, ape of ratio rows, a norm of its entry width; CSA's overlap
  // doubles the projected width. The CSA indexer: wq_b 1024 -> 64 x 128, weights_proj d -> 64,
  // and its own overlapping compressor of 128-wide keys.
  auto compressor = [&](double ratio, double width, double overlap) {
    return 2 * d * overlap * width + ratio * overlap * width + width;
  };
  const double csa = compressor(4, hd, 2) + ql * 64 * 128 + d * 64 + compressor(4, 128, 2);
  const double hca = compressor(128, hd, 1);
  const double moe = 256 * d /* gate */ + 256 /* correction bias */ + 3 * d * 2048 * (256 + 1);
  const double hyper = 2 * (24 * 4 * d + 24 + 3);  // (2 + 4) x 4 mixes from 4 x d, base, scales
  const double block = attention + moe + 2 * d /* norms */ + hyper;
  const double outside = 2 * 129280 * d /* embed, head */ + d /* norm */ +
                         (4 * 4 * d + 4 + 1) /* the head's stream mix */;
  TransformerSpec main = flash();
  main.mtp_layers = 0;
  EXPECT_DOUBLE_EQ(params(main), 43 * block + 21 * csa + 20 * hca + outside);
}

TEST(CompressedAttention, TotalsRoundToThePublishedOnes) {
  // DeepSeek: Flash 284B total, 13B activated; Pro 1.6T total, 49B activated (model card). The
  // counts here leave out the MTP block (inference) and, for "activated", the embedding.
  gpuplan::Setup s;
  s.mode = Mode::infer;
  s.precision = Precision::bf16;
  for (const auto& [id, total, active, digits] : {std::tuple{"deepseek-v4-flash", 284e9, 13e9, 1e9},
                                                  {"deepseek-v4-pro", 1.6e12, 49e9, 1e11}}) {
    SCOPED_TRACE(id);
    auto e = estimate(test::model(id), s);
    ASSERT_TRUE(e.ok()) << e.error().message;
    const double n = static_cast<double>(e.value().params.total);
    const double a =
        static_cast<double>(e.value().params.active_per_token - e.value().params.embedding);
    EXPECT_EQ(std::round(n / digits) * digits, total);
    EXPECT_EQ(std::round(a / 1e9) * 1e9, active);
  }
}

TEST(CompressedAttention, AMillionTokensOfProCacheAsDeepSeekStates) {
  // DeepSeek-V4 report: a 1M-token sequence keeps 9.62 GiB of KV cache in bf16 (V4-Pro). By
  // hand: every block's 128-token window, 2^20 / 4 entries in each of the 30 CSA blocks and
  // 2^20 / 128 in each of the 31 HCA blocks, 512 channels each; the CSA blocks' index keys of
  // 128 channels, one per 4 tokens.
  const double ctx = 1 << 20;
  const double window = 61 * 128 * 512 * 2.0, csa = 30 * (ctx / 4) * 512 * 2;
  const double hca = 31 * (ctx / 128) * 512 * 2, index = 30 * (ctx / 4) * 128 * 2;
  const KvCacheSize k = kv_cache_size(pro(), 2, ctx);
  EXPECT_DOUBLE_EQ(k.total_bytes, window + csa + hca + index);
  EXPECT_EQ(std::round(k.total_bytes / (1u << 30) * 100) / 100, 9.62);
  // A decode step reads the windows, the top 1024 of each CSA block's entries, every HCA entry
  // and every index key.
  EXPECT_DOUBLE_EQ(k.read_bytes, window + 30 * 1024 * 512 * 2.0 + hca + index);
  // The entries a query at 10,000 reads in Flash: 21 x min(512, 2500) + 20 x 78.
  EXPECT_DOUBLE_EQ(flash().compressed_entries_read(10000), 21 * 512.0 + 20 * 78.0);
}

TEST(CompressedAttention, AQueryReadsItsWindowAndTheCompressedEntriesBeforeIt) {
  const double t = 4096;
  // CSA: query i sees min(512, i / 4) entries: i / 4 up to i = 2048, then 512.
  const double csa = (2048.0 * 2049 / 8 + (4096 - 2048) * 512.0) / 4096;
  const double hca = (t + 1) / 256;  // i / 128 on average
  EXPECT_DOUBLE_EQ(compressed_keys_per_query(flash(), t), 21 * csa + 20 * hca);
  const double band = (128.0 * 129 / 2 + (t - 128) * 128) / t;
  EXPECT_DOUBLE_EQ(attention_pairs(flash(), t, true), t * (43 * band + 21 * csa + 20 * hca));
  // The indexer: queries from the latent, head weights, its compressor's two 256-wide
  // projections per token; each query scores the i / 4 compressed keys before it.
  const double per_token = 2 * (1024.0 * 64 * 128) + 2 * 4096.0 * 64 + 2 * 2 * 4096.0 * 256;
  EXPECT_DOUBLE_EQ(indexer_flops(flash(), t), 21 * t * (per_token + (t + 1) / 8 * 2 * 64 * 128));
  // The grouped output: each token through wo_a (32768 -> 8 x 1024, one group's 4096 channels
  // each) and wo_b (8192 -> 4096).
  EXPECT_DOUBLE_EQ(attention_output_flops_per_token(flash()),
                   2 * 32768.0 * 1024 + 2 * 8192.0 * 4096);
}

TEST(CompressedAttention, HyperConnectionsKeepTheWideResidualPerSublayer) {
  // Each of a block's two sublayers keeps its n x h residual and its h-wide output.
  TransformerSpec plain = flash();
  plain.hc_streams = 0;
  const double t = 4096, e = 2;
  const LayerActivations wide =
      transformer_layer_activations(flash(), 4096, e, 4, AttentionImpl::flash);
  const LayerActivations narrow =
      transformer_layer_activations(plain, 4096, e, 4, AttentionImpl::flash);
  EXPECT_DOUBLE_EQ(wide.linear_bytes - narrow.linear_bytes, 2 * e * t * 4096 * (4 + 1));
}

// Each sublayer's hyper-connections move (3n - 1) x h more bytes than a residual add: the
// element-wise traffic they add at 4 streams is 11/5 of what they add at 2.
TEST(CompressedAttention, HyperConnectionsAddElementwiseTrafficPerStream) {
  gpuplan::Setup s;
  s.precision = Precision::bf16;
  s.seq_len = 4096;
  auto elementwise = [&](int64_t streams) {
    Model m = test::model("deepseek-v4-flash");
    m.transformer.hc_streams = streams;
    auto e = estimate(m, s);
    EXPECT_TRUE(e.ok()) << e.error().message;
    auto w = build_work_profile(m, s, e.value());
    EXPECT_TRUE(w.ok()) << w.error().message;
    for (const auto& op : w.value().ops) {
      if (op.name == "elementwise") return op.bytes_per_sample;
    }
    return 0.0;
  };
  const double plain = elementwise(0);
  EXPECT_NEAR((elementwise(4) - plain) / (elementwise(2) - plain), 11.0 / 5.0, 1e-12);
}

TEST(CompressedAttention, ADecodeStepReadsWhatTheCacheSaysItReads) {
  const Gpu* b200 = test::catalog().find_gpu("b200-sxm");
  ASSERT_NE(b200, nullptr);
  ServeConfig c;
  c.tp = 4;
  c.weights = WeightFormat::mxfp4;
  auto built = build_replica(test::model("deepseek-v4-flash"), *b200, c, test::serving(),
                             test::catalog().efficiencies);
  ASSERT_TRUE(built.ok()) << built.error().message;
  const ReplicaModel& r = built.value();
  // The cache's bytes per token are one 512-wide entry per block, kept whole on every rank; the
  // index keys count in the kept share.
  EXPECT_DOUBLE_EQ(r.memory.kv_bytes_per_token, 43 * 512 * 2.0);
  EXPECT_DOUBLE_EQ(r.index_bytes_per_token, 0.0);
  StepLoad load;
  load.decode_seqs = 4;
  load.decode_context = 4 * 100000.0;
  const double read = 4 * kv_cache_size(flash(), 2, 100000).read_bytes;
  const double attention_s = step_time(r, load).attention_s;
  EXPECT_GE(attention_s * r.hbm_bytes_per_s, read * (1 - 1e-12));
  // Reading every token of every block would take over ten times as long.
  EXPECT_LT(attention_s, 4 * 100000 * r.memory.kv_bytes_per_token / r.hbm_bytes_per_s / 10);
}

TEST(CompressedAttention, ConfigsImportAndBadOnesSayWhatIsWrong) {
  auto read = [](const std::string& file) {
    return model_from_hf_config(test::read_repo_file("tests/fixtures/hf/" + file), file);
  };
  for (const char* file : {"deepseek-v4-flash.json", "deepseek-v4-flash-fp8-sgl.json"}) {
    auto m = read(file);
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_DOUBLE_EQ(params(m.value().transformer), params(flash()));
  }
  std::string text = test::read_repo_file("tests/fixtures/hf/deepseek-v4-flash.json");
  const std::string last = "128,\n    4,\n    0\n  ]";
  ASSERT_NE(text.find(last), std::string::npos);
  std::string mtp = text;
  mtp.replace(mtp.find(last), last.size(), "128,\n    4,\n    4\n  ]");
  auto err = model_from_hf_config(mtp, "config.json");
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.error().message.find("compress_ratios[43]: a multi-token prediction block with "
                                     "compressed attention is not modelled"),
            std::string::npos)
      << err.error().message;
  std::string mixed = text;
  mixed.replace(mixed.find(last), last.size(), "64,\n    4,\n    0\n  ]");
  err = model_from_hf_config(mixed, "config.json");
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.error().message.find("compress_ratios[41]: 64 beside 128"), std::string::npos)
      << err.error().message;

  TransformerSpec bad = flash();
  bad.kv_heads = 2;
  auto invalid = validate_transformer(bad, "x.json: transformer");
  ASSERT_TRUE(invalid.has_value());
  EXPECT_EQ(invalid->message,
            "x.json: transformer: o_lora_rank needs kv_heads 1 (one key-value head)");
  bad = flash();
  bad.hca_layers = 30;
  invalid = validate_transformer(bad, "x.json: transformer");
  ASSERT_TRUE(invalid.has_value());
  EXPECT_EQ(invalid->message,
            "x.json: transformer: csa_layers and hca_layers must add up to at most layers (43)");
}

// DeepSeek-V4's checkpoints hold the routed experts in a 4-bit float and every other matrix but
// the embedding and head in FP8 with a one-byte scale per 128 x 128 block: MXFP4 in DeepSeek's
// (expert_dtype fp4 beside quantization_config fp8), NVFP4 in NVIDIA's requantisation
// (moe_quant_algo NVFP4); SGLang's FP8 copy is FP8 throughout.
TEST(CompressedAttention, CheckpointsKeepExpertsIn4BitsAndTheRestInFp8) {
  const struct {
    const char* file;
    const char* format;
  } checkpoints[] = {{"deepseek-v4-flash.json", "mxfp4-fp8"},
                     {"deepseek-v4-flash-nvfp4.json", "nvfp4-fp8"},
                     {"deepseek-v4-flash-fp8-sgl.json", "fp8"}};
  for (const auto& c : checkpoints) {
    auto m = model_from_hf_config(test::read_repo_file(std::string("tests/fixtures/hf/") + c.file),
                                  c.file);
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_EQ(m.value().checkpoint_weights, c.format) << c.file;
  }
  EXPECT_EQ(test::model("deepseek-v4-flash").checkpoint_weights, "mxfp4-fp8");
  EXPECT_EQ(test::model("deepseek-v4-pro").checkpoint_weights, "mxfp4-fp8");
  // Bytes: experts x (0.5 + 1/32), other matrices x (1 + 1/16384), the rest at 16 bits.
  double experts = 0, matrices = 0, rest = 0, stored = 0, nvfp4 = 0;
  for (const auto& t : transformer_parameters(flash())) {
    const bool outer = t.group == ParamGroup::embedding || t.group == ParamGroup::head;
    (t.routed_expert        ? experts
     : t.rows > 1 && !outer ? matrices
                            : rest) += static_cast<double>(t.numel());
    stored += stored_tensor_bytes(t, weight_format_bytes(WeightFormat::mxfp4_fp8));
    nvfp4 += stored_tensor_bytes(t, weight_format_bytes(WeightFormat::nvfp4_fp8));
  }
  EXPECT_GT(matrices, 5e9);  // attention, compressors, indexers, shared experts, routers
  EXPECT_DOUBLE_EQ(stored, experts * (0.5 + 1.0 / 32) + matrices * (1 + 1.0 / 16384) + 2 * rest);
  EXPECT_DOUBLE_EQ(nvfp4 - stored,
                   experts * (weight_format_bytes(WeightFormat::nvfp4).matmul - (0.5 + 1.0 / 32)));
}

}  // namespace
}  // namespace gpuplan
