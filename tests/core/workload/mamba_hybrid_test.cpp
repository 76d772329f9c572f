// Hybrid Mamba-2 models (Nemotron-H, Nemotron 3): single-purpose layers from a layer pattern,
// Mamba-2 mixers, LatentMoE; parameters, FLOPs and the per-sequence state hand-derived from
// their config.json, the importer against the zoo, and their use in serving and training.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>

#include "gpuplan/accuracy.h"
#include "gpuplan/embedded_data.h"
#include "gpuplan/estimate.h"
#include "gpuplan/hf_config.h"
#include "gpuplan/serve_replica.h"
#include "gpuplan/serve_validation.h"
#include "gpuplan/transformer.h"
#include "catalog/zoo_counts.h"
#include "test_util.h"

namespace gpuplan {
namespace {

int64_t parameters(const TransformerSpec& s) {
  int64_t n = 0;
  for (const auto& t : transformer_parameters(s)) n += t.numel();
  return n;
}

TEST(MambaHybrid, TheLayerPatternPlacesEveryLayer) {
  // Nemotron 3 Super's hybrid_override_pattern: 40 M, 8 *, 40 E over 88 layers, one norm each.
  const TransformerSpec& s = test::model("nemotron-3-super-120b-a12b").transformer;
  EXPECT_EQ(s.layers, 88);
  EXPECT_EQ(s.linear_layer_count(), 40);
  EXPECT_EQ(s.attention_layer_count(), 8);
  EXPECT_EQ(s.moe_layer_count(), 40);
  EXPECT_EQ(s.dense_mlp_layer_count(), 0);
  EXPECT_EQ(s.sublayer_count(), 88);
  EXPECT_DOUBLE_EQ(s.mixer_share(), 48.0 / 88);
  EXPECT_DOUBLE_EQ(s.mlp_share(), 40.0 / 88);
  // Without a pattern every block has a mixer and an MLP, behind two norms.
  const TransformerSpec& llama = test::model("llama-3.1-8b").transformer;
  EXPECT_EQ(llama.sublayer_count(), 64);
  EXPECT_DOUBLE_EQ(llama.mixer_share(), 1);
  EXPECT_DOUBLE_EQ(llama.mlp_share(), 1);
}

TEST(MambaHybrid, ParametersOfNemotronH56BCountTensorByTensor) {
  // Per Mamba-2 layer (NemotronHMamba2Mixer: 256 heads x 64 = 16,384 channels, 8 groups of a
  // 256 state): in_proj 8192 x (2 x 16,384 + 2 x 8 x 256 + 256), the convolution's 20,480
  // channels x 4 taps and their biases, dt_bias, A_log and D per head, the gated norm over
  // 16,384, out_proj 16,384 x 8192. Per attention layer: q and o 8192 x 8192, k and v 8192 x
  // (8 x 128). Per MLP layer: up and down 8192 x 32,768. One norm per layer; embedding and head
  // 131,072 x 8192 each; the final norm.
  const int64_t mamba =
      8192 * (2 * 16384 + 2 * 8 * 256 + 256) + 20480 * 4 + 20480 + 3 * 256 + 16384 + 16384 * 8192;
  const int64_t attention = 2 * 8192 * 8192 + 2 * 8192 * 1024;
  const int64_t mlp = 2 * int64_t{8192} * 32768;
  const int64_t expected =
      54 * mamba + 10 * attention + 54 * mlp + 118 * 8192 + 2 * int64_t{131072} * 8192 + 8192;
  EXPECT_EQ(expected, 56'324'350'464);
  EXPECT_EQ(parameters(test::model("nemotron-h-56b").transformer), expected);
}

TEST(MambaHybrid, LatentMoeExpertsRunAtTheLatentWidth) {
  // Nemotron 3 Super, per MoE layer: 512 experts of up and down 1024 x 2688 (the latent, not
  // hidden 4096), the shared expert 2 x 4096 x 5376, fc1/fc2_latent_proj 4096 x 1024 each, the
  // router 512 x 4096 with its correction bias of 512.
  const TransformerSpec& s = test::model("nemotron-3-super-120b-a12b").transformer;
  const int64_t routed = 512 * 2 * int64_t{1024} * 2688;
  const int64_t moe = routed + 2 * 4096 * 5376 + 2 * 4096 * 1024 + 512 * 4096 + 512;
  int64_t moe_params = 0;
  for (const auto& t : transformer_parameters(s)) {
    const std::string name = t.name();
    if (!t.mtp && name.rfind("mlp.", 0) == 0) moe_params += t.numel();
  }
  EXPECT_EQ(moe_params, 40 * moe);
  // Forward FLOPs of one token through the MLPs: 22 routed experts at 2 x 2 x 1024 x 2688, the
  // shared expert at 2 x 2 x 4096 x 5376, the two projections at 2 x 4096 x 1024 each; 40 layers.
  // The MTP module's MoE layer adds one more.
  const double per_layer = 22 * 4.0 * 1024 * 2688 + 4.0 * 4096 * 5376 + 4.0 * 4096 * 1024;
  EXPECT_DOUBLE_EQ(transformer_forward_flops(s, 1).mlp, 41 * per_layer);
  EXPECT_DOUBLE_EQ(transformer_forward_flops(s, 1).router, 41 * 2.0 * 4096 * 512);
}

TEST(MambaHybrid, StatePerSequenceIsFp32AndFixed) {
  // Nemotron 3 Super, per Mamba-2 layer: 128 heads x 64 x 128 of state in fp32
  // (mamba_ssm_cache_dtype) = 4,194,304 bytes, and the convolution's last 3 of 8192 + 2 x 8 x
  // 128 = 10,240 channels at 16 bits = 61,440; 40 layers: 170,229,760 bytes per sequence at any
  // length. The 8 attention layers keep K and V of 2 heads of 128: 1,024 bytes per token each.
  const TransformerSpec& s = test::model("nemotron-3-super-120b-a12b").transformer;
  EXPECT_DOUBLE_EQ(linear_attention_state_bytes(s, 2), 4'194'304 + 61'440);
  for (double tokens : {1.0, 8192.0, 262144.0}) {
    const KvCacheSize k = kv_cache_size(s, 2, tokens);
    EXPECT_DOUBLE_EQ(k.state_bytes, 170'229'760);
    EXPECT_DOUBLE_EQ(k.full_layers, 8);
    EXPECT_DOUBLE_EQ(k.bytes_per_token_per_layer, 1024);
    EXPECT_DOUBLE_EQ(k.token_bytes(), 8 * 1024 * tokens);
  }
}

TEST(MambaHybrid, Mamba2ScanFlopsPerToken) {
  // Nemotron 3 Super, one Mamba-2 layer: the convolution 2 x 4 x 10,240; per group C B^T in
  // the chunk 2c x 128 (8 groups); per head the masked scores times x 2c x 64 and the state's two
  // products 4 x 128 x 64 (128 heads); c = min(tokens, chunk_size 128).
  const TransformerSpec& s = test::model("nemotron-3-super-120b-a12b").transformer;
  auto expected = [](double c) {
    return 2 * 4 * 10240.0 + 8 * 2 * c * 128 + 128 * (2 * c * 64 + 4 * 128.0 * 64);
  };
  EXPECT_DOUBLE_EQ(linear_attention_core_flops_per_token(s, 1), expected(1));
  EXPECT_DOUBLE_EQ(linear_attention_core_flops_per_token(s, 128), expected(128));
  EXPECT_DOUBLE_EQ(linear_attention_core_flops_per_token(s, 65536), expected(128));
  // in_proj (z, x, B, C and one dt per head) and out_proj, 2 FLOPs per multiply-add.
  EXPECT_DOUBLE_EQ(linear_attention_proj_flops_per_token(s),
                   2 * 4096.0 * (2 * 8192 + 2 * 1024 + 128) + 2 * 8192.0 * 4096);
  // Softmax attention only in the 8 attention layers.
  EXPECT_DOUBLE_EQ(attention_pairs(s, 8192), 8 * 8192.0 * 8192);
}

TEST(MambaHybrid, HfConfigsImportAsTheZoosModels) {
  // Super's file keeps Python's Infinity (time_step_limit); Ultra's and Lightning's list
  // layers_block_type.
  for (const char* id :
       {"nemotron-3-nano-30b-a3b", "nemotron-3-super-120b-a12b", "nemotron-3-ultra-550b-a55b",
        "nemotron-3.5-lightning-30b-a3b", "nemotron-h-56b"})
    test::expect_imports_as(std::string(id) + ".json", id);
  // The published totals: Nano 31.6B (its report), Super 120B and Ultra 550B (their names).
  EXPECT_EQ(parameters(test::model("nemotron-3-nano-30b-a3b").transformer), 31'577'940'288);
  TransformerSpec super = test::model("nemotron-3-super-120b-a12b").transformer;
  super.mtp_layers = 0;
  EXPECT_NEAR(static_cast<double>(parameters(super)) / 1e9, 120, 1);
}

TEST(MambaHybrid, ConfigsThatCannotBeExpressedAreRefusedByField) {
  const std::string config = test::read_repo_file("tests/fixtures/hf/nemotron-3-nano-30b-a3b.json");
  auto with = [&](const std::string& field, const std::string& value) {
    std::string c = config;
    const size_t at = c.find("\"" + field + "\"");
    const size_t end = c.find_first_of(",\n}", c.find(':', at));
    c.replace(at, end - at, "\"" + field + "\": " + value);
    auto m = model_from_hf_config(c, "config.json");
    return m.ok() ? std::string("accepted") : m.error().message;
  };
  EXPECT_EQ(
      with("hybrid_override_pattern", "\"MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEMX\""),
      "config.json: layer_pattern has 'X' at 51: expected M (mamba), * (attention), - (MLP) "
      "or E (MoE)");
  EXPECT_EQ(with("num_hidden_layers", "50"),
            "config.json: layer_pattern has 52 layers where layers is 50");
  EXPECT_EQ(with("mlp_hidden_act", "\"silu\""),
            "config.json: mlp_hidden_act: 'silu' is not modelled for nemotron_h (relu2)");
  EXPECT_EQ(with("use_bias", "true"),
            "config.json: use_bias: true is not modelled (Mamba-2 projections without bias)");
  EXPECT_EQ(with("time_step_min", "NaN"), "accepted");  // a field gpuplan does not read
  EXPECT_EQ(with("ssm_state_size", "NaN"),
            "config.json: ssm_state_size: expected an integer, got NaN");
}

TEST(MambaHybrid, ServingKeepsTheStateAndScoresPairsInAttentionLayersOnly) {
  const Model& nano = test::model("nemotron-3-nano-30b-a3b");
  const Gpu* g = test::catalog().find_gpu("h100-sxm5-80gb");
  ASSERT_NE(g, nullptr);
  ServeConfig c;
  c.tp = 1;
  auto built = build_replica(nano, *g, c, test::serving(), test::catalog().efficiencies);
  ASSERT_TRUE(built.ok()) << built.error().message;
  const ReplicaModel& r = built.value();
  // 23 layers x (64 heads x 64 x 128 x 4 bytes + 3 x (4096 + 2 x 8 x 128) x 2 bytes).
  EXPECT_DOUBLE_EQ(r.memory.state_bytes_per_seq, 23 * (2'097'152.0 + 36'864));
  EXPECT_DOUBLE_EQ(r.attention_flops_per_pair, 6 * attention_flops_per_pair(nano.transformer));
  EXPECT_DOUBLE_EQ(r.layers, 26);  // 52 single-purpose layers: 26 block-equivalents
}

TEST(MambaHybrid, TrainingCountsTheForwardPassOfThePattern) {
  // Nemotron 3 Nano on 8 GPUs with its experts over 8 ranks: the step's FLOPs are the forward
  // pass the pattern gives, and the experts are split 8 ways.
  const Model& nano = test::model("nemotron-3-nano-30b-a3b");
  gpuplan::Setup setup;
  setup.mode = Mode::train;
  setup.precision = Precision::mixed_bf16;
  setup.dp = 8;
  setup.ep = 8;
  setup.zero_stage = 1;
  setup.global_batch = 8;
  setup.seq_len = 4096;
  auto e = estimate(nano, setup);
  ASSERT_TRUE(e.ok()) << e.error().message;
  const TransformerSpec run = run_spec(nano.transformer, setup, 0);
  EXPECT_DOUBLE_EQ(e.value().flops.forward_per_sample,
                   model_forward_flops(nano, run, 4096).total());
  ASSERT_TRUE(e.value().moe.has_value());
  EXPECT_EQ(e.value().moe->ep, 8);
}

TEST(MambaHybrid, BandsSayNoValidatedRunUsedAHybridModel) {
  // Models with Mamba-2 or linear-attention mixers are a kind of their own: without validated
  // runs of the kind the band says so; with them (Qwen3-Next under Megatron-LM) it rests on them.
  // No validated serving run used one.
  const Model& nano = test::model("nemotron-3-nano-30b-a3b");
  EXPECT_EQ(model_kind(nano), "hybrid");
  EXPECT_EQ(model_kind(test::model("qwen3-next-80b-a3b")), "hybrid");
  EXPECT_EQ(model_kind(test::model("qwen3-30b-a3b")), "moe");
  const Gpu* h100 = test::catalog().find_gpu("h100-sxm5-80gb");
  gpuplan::Setup setup;
  setup.precision = Precision::bf16;
  const auto& time = test::catalog().accuracy.time;
  const auto hybrid = [](const AccuracyRow& r) { return r.ground.kind == "hybrid"; };
  std::vector<AccuracyRow> without_hybrid;
  std::copy_if(time.begin(), time.end(), std::back_inserter(without_hybrid),
               [&](const AccuracyRow& r) { return !hybrid(r); });
  ASSERT_LT(without_hybrid.size(), time.size());
  const RunGround ground = run_ground(nano, setup, h100, 1);
  const ErrorBand none = error_band(without_hybrid, accuracy_family(nano, setup), ground);
  EXPECT_NE(none.reason.find("no validated run used a hybrid model"), std::string::npos)
      << none.reason;
  const ErrorBand some = error_band(time, accuracy_family(nano, setup), ground);
  EXPECT_EQ(some.reason.find("no validated run used a hybrid model"), std::string::npos)
      << some.reason;
  const RunGround serving = serving_run_ground(&nano, "bf16", 1, h100, 1, Runtime::vllm);
  EXPECT_EQ(serving.kind, "hybrid");
  const ErrorBand band = error_band(test::catalog().accuracy.serving,
                                    serving_band_family(kServingThroughputGroup, false), serving);
  EXPECT_NE(band.reason.find("no validated run used a hybrid model"), std::string::npos)
      << band.reason;
  // The same setup on an attention decoder rests on validated runs: no such reason.
  const ErrorBand llama = error_band(
      test::catalog().accuracy.serving, serving_band_family(kServingThroughputGroup, false),
      serving_run_ground(&test::model("llama-3.1-8b"), "bf16", 1, h100, 1, Runtime::vllm));
  EXPECT_EQ(llama.reason.find("hybrid"), std::string::npos) << llama.reason;
  EXPECT_LT(llama.high - llama.low, band.high - band.low);
}

}  // namespace
}  // namespace gpuplan
