// Serving features a user turns on: prefix caching (cached prompt tokens are not computed, their
// keys and values are read) and speculative decoding (expected tokens per verify step, the
// drafter's cost and memory), with the keys' messages.
#include <gtest/gtest.h>

#include <cmath>

#include "gpuplan/embedded_data.h"
#include "gpuplan/query.h"
#include "gpuplan/serve_plan.h"
#include "test_util.h"

namespace gpuplan {
namespace {

Result<ReplicaModel> build(const std::string& model, const std::string& gpu, ServeConfig c = {}) {
  const Gpu* g = test::catalog().find_gpu(gpu);
  EXPECT_NE(g, nullptr);
  return build_replica(test::model(model), *g, c, test::serving(), test::catalog().efficiencies);
}

ReplicaModel replica(const std::string& model, const std::string& gpu, ServeConfig c = {}) {
  auto r = build(model, gpu, c);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : ReplicaModel{};
}

ServeConfig spec(SpecMethod method, int tokens, double acceptance) {
  ServeConfig c;
  c.spec.method = method;
  c.spec.tokens = tokens;
  c.spec.acceptance = acceptance;
  return c;
}

// One sequence decoding alone at `context` tokens: the time of one token (step / tokens per step).
double itl_s(const ReplicaModel& r, double context) {
  StepLoad load;
  load.decode_seqs = 1;
  load.decode_context = context;
  return step_time(r, load).total_s / r.spec.expected_tokens;
}

TEST(SpecDecoding, ExpectedTokensPerStepAreLeviathansEquationOne) {
  // (1 - a^(k+1)) / (1 - a): a = 0.8, k = 4: (1 - 0.32768) / 0.2 = 3.3616.
  EXPECT_NEAR(spec_expected_tokens(0.8, 4), 3.3616, 1e-12);
  // a = 0.5, k = 1: (1 - 0.25) / 0.5 = 1.5; a = 0.6, k = 3: (1 - 0.1296) / 0.4 = 2.176.
  EXPECT_NEAR(spec_expected_tokens(0.5, 1), 1.5, 1e-12);
  EXPECT_NEAR(spec_expected_tokens(0.6, 3), 2.176, 1e-12);
  // Every draft accepted: k + 1 tokens.
  EXPECT_DOUBLE_EQ(spec_expected_tokens(1.0, 5), 6.0);
}

// Llama 3.1 8B at batch 1 on an H100 reads its 15 GB of weights per step: bandwidth-bound, so a
// verify pass over 5 positions costs about one decode step and yields 3.36 tokens.
TEST(SpecDecoding, EagleLowersTheItlOfABandwidthBoundModelAtBatchOne) {
  const ReplicaModel plain = replica("llama-3.1-8b", "h100-sxm5-80gb");
  const ReplicaModel eagle =
      replica("llama-3.1-8b", "h100-sxm5-80gb", spec(SpecMethod::eagle, 4, 0.8));
  EXPECT_NEAR(eagle.spec.expected_tokens, 3.3616, 1e-12);
  EXPECT_LT(itl_s(eagle, 1500), itl_s(plain, 1500) / 2);
  // The step is dearer than a plain one (the verify pass and four draft steps), yet far below
  // five plain steps: weights are read once for the five positions.
  StepLoad load;
  load.decode_seqs = 1;
  load.decode_context = 1500;
  const StepBreakdown s = step_time(eagle, load), p = step_time(plain, load);
  EXPECT_GT(s.total_s, p.total_s);
  EXPECT_LT(s.total_s, 2 * p.total_s);
  EXPECT_GT(s.draft_s, 0);
  EXPECT_DOUBLE_EQ(p.draft_s, 0);
}

TEST(SpecDecoding, ADraftModelLowersTheItlOfItsTarget) {
  ServeConfig c = spec(SpecMethod::draft, 3, 0.7);
  c.tp = 4;
  c.spec.draft_model = "llama-3.1-8b";
  c.spec.draft = &test::model("llama-3.1-8b");
  ServeConfig plain_config;
  plain_config.tp = 4;
  const ReplicaModel plain = replica("llama-3.1-70b", "h100-sxm5-80gb", plain_config);
  const ReplicaModel drafted = replica("llama-3.1-70b", "h100-sxm5-80gb", c);
  EXPECT_LT(itl_s(drafted, 1500), itl_s(plain, 1500));
  // The draft's weights and keys and values sit beside the target's on every GPU.
  const ReplicaModel draft_alone = replica("llama-3.1-8b", "h100-sxm5-80gb", plain_config);
  EXPECT_DOUBLE_EQ(drafted.memory.spec_weight_bytes, draft_alone.memory.weight_bytes);
  EXPECT_DOUBLE_EQ(drafted.memory.weight_bytes,
                   plain.memory.weight_bytes + draft_alone.memory.weight_bytes);
  EXPECT_DOUBLE_EQ(drafted.memory.spec_kv_bytes_per_token, draft_alone.memory.kv_bytes_per_token);
  EXPECT_LT(drafted.memory.kv_tokens, plain.memory.kv_tokens);
}

// Llama 3.1 8B: hidden 4096, 32 query and 8 KV heads of 128, gated MLP 14336.
TEST(SpecDecoding, EaglesWeightsAreOneBlockAndItsProjectionByHand) {
  const ReplicaModel plain = replica("llama-3.1-8b", "h100-sxm5-80gb");
  const ReplicaModel eagle =
      replica("llama-3.1-8b", "h100-sxm5-80gb", spec(SpecMethod::eagle, 4, 0.8));
  // Block: q and o 4096 x 4096, k and v 4096 x 1024, gate, up, down 3 x 4096 x 14336:
  // 218,103,808; the 2h -> h projection 8192 x 4096 = 33,554,432; five norms of 4096 (embedding,
  // hidden, input, post-attention, head) = 20,480: 251,678,720 weights at 2 bytes.
  EXPECT_DOUBLE_EQ(eagle.memory.spec_weight_bytes, 503357440.0);
  EXPECT_DOUBLE_EQ(eagle.memory.weight_bytes, plain.memory.weight_bytes + 503357440.0);
  // One block's keys and values: 2 x 8 x 128 x 2 bytes.
  EXPECT_DOUBLE_EQ(eagle.memory.spec_kv_bytes_per_token, 4096.0);
}

TEST(SpecDecoding, MtpUsesTheModelsOwnModulesAndNeedsThem) {
  ServeConfig c = spec(SpecMethod::mtp, 1, 0.85);
  c.tp = 8;
  c.weights = WeightFormat::fp8;
  const ReplicaModel r = replica("deepseek-v3", "h200-sxm-141gb", c);
  EXPECT_GT(r.memory.spec_weight_bytes, 0);
  EXPECT_NEAR(r.spec.expected_tokens, 1.85, 1e-12);
  auto none = build("llama-3.1-8b", "h100-sxm5-80gb", spec(SpecMethod::mtp, 1, 0.8));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().key, "spec-method");
  EXPECT_NE(none.error().message.find("no multi-token prediction modules"), std::string::npos)
      << none.error().message;
}

TEST(SpecDecoding, ASimulatedRequestDecodesInFewerSteps) {
  ServeWorkload w;
  w.requests = 1;
  w.prompt_tokens = 1000;
  w.output_tokens = 201;
  const ReplicaModel plain = replica("llama-3.1-8b", "h100-sxm5-80gb");
  const ReplicaModel eagle =
      replica("llama-3.1-8b", "h100-sxm5-80gb", spec(SpecMethod::eagle, 4, 0.8));
  auto a = simulate(plain, w), b = simulate(eagle, w);
  ASSERT_TRUE(a.ok() && b.ok());
  // One prefill step, then 200 tokens: 200 steps plainly, ceil(200 / 3.3616) = 60 with drafts.
  EXPECT_EQ(a.value().steps, 201);
  EXPECT_EQ(b.value().steps, 61);
  EXPECT_LT(b.value().tpot_s.p50, a.value().tpot_s.p50);
}

TEST(SpecDecoding, BadInputsNameTheirKey) {
  auto over = parse_serve_request(
      {{"spec-method", "eagle"}, {"spec-tokens", "4"}, {"spec-acceptance", "1.5"}});
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().key, "spec-acceptance");
  EXPECT_EQ(over.error().message, "--spec-acceptance: 1.5 is out of range [0.001, 1]");
  // The keys together: checked before planning (a link keeps them, the page marks the field).
  auto check = [](const Args& args) {
    auto r = parse_serve_request(args);
    EXPECT_TRUE(r.ok()) << r.error().message;
    auto err = check_serve_spec(r.value());
    return err ? *err : make_error(Errc::invalid_argument, "");
  };
  const Error missing = check({{"spec-method", "eagle"}, {"spec-tokens", "4"}});
  EXPECT_EQ(missing.key, "spec-acceptance");
  EXPECT_EQ(missing.id, Msg::serve_spec_acceptance_required);
  EXPECT_EQ(missing.message,
            "--spec-acceptance: --spec-method eagle needs the measured per-token acceptance rate "
            "in (0, 1]; gpuplan has no default for it");
  EXPECT_EQ(check({{"spec-method", "mtp"}, {"spec-acceptance", "0.8"}}).key, "spec-tokens");
  EXPECT_EQ(check({{"spec-method", "draft"}, {"spec-tokens", "4"}, {"spec-acceptance", "0.8"}}).key,
            "spec-draft-model");
  EXPECT_EQ(check({{"spec-method", "eagle"},
                   {"spec-tokens", "4"},
                   {"spec-acceptance", "0.8"},
                   {"spec-draft-model", "llama-3.1-8b"}})
                .id,
            Msg::serve_spec_draft_only);
  EXPECT_EQ(check({{"spec-tokens", "4"}}).message,
            "--spec-tokens: set --spec-method (draft, eagle or mtp) to use speculative decoding");
  EXPECT_EQ(
      check({{"spec-method", "eagle"}, {"spec-tokens", "4"}, {"spec-acceptance", "0.8"}}).message,
      "");
  auto unknown = find_serve_targets(test::catalog(), "llama-3.1-70b", "", "", "zzqq-1b");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().key, "spec-draft-model");
  EXPECT_EQ(unknown.error().message,
            "--spec-draft-model: unknown model 'zzqq-1b' (run 'gpuplan models' for the list)");
  // A draft of another tokenizer: Mistral 7B (32,768 tokens) for Llama 3.1 70B (128,256).
  ServeConfig c = spec(SpecMethod::draft, 4, 0.8);
  c.tp = 4;
  c.spec.draft = &test::model("mistral-7b-v0.3");
  auto vocab = build("llama-3.1-70b", "h100-sxm5-80gb", c);
  ASSERT_FALSE(vocab.ok());
  EXPECT_EQ(vocab.error().key, "spec-draft-model");
  EXPECT_NE(vocab.error().message.find("share the target's tokenizer"), std::string::npos);
}

// Llama 3 8B on an H100: a 4,096-token prompt with half of it cached computes 2,048 tokens.
TEST(PrefixCaching, PrefillComputesOnlyTheUncachedTokens) {
  ReplicaModel r = replica("llama-3-8b", "h100-sxm5-80gb");
  r.sms = 0;  // no tile or wave quantisation: the matmuls' time is linear in their rows
  StepLoad whole;
  whole.prefill_tokens = 4096;
  whole.prefill_pairs = 4096.0 * 4097 / 2;
  whole.prefill_last = 1;
  StepLoad cached;
  cached.prefill_tokens = 2048;
  cached.prefill_pairs = 2048.0 * 2048 + 2048.0 * 2049 / 2;  // the cached half is still attended
  cached.prefill_context = 2048;
  cached.prefill_last = 1;
  EXPECT_DOUBLE_EQ(prefill_time_s(r, 4096, 2048), step_time(r, cached).total_s);
  EXPECT_DOUBLE_EQ(prefill_time_s(r, 4096, 0), step_time(r, whole).total_s);
  const StepBreakdown a = step_time(r, whole), b = step_time(r, cached);
  // Compute-bound matmuls: (tokens x F_token + one sampled row of the head) / R_mm.
  const double head = r.head_flops_per_token;
  EXPECT_NEAR(a.weights_s, (4096 * r.gemm_flops_per_token + head) / r.compute_flop_per_s,
              1e-9 * a.weights_s);
  EXPECT_NEAR(b.weights_s, (2048 * r.gemm_flops_per_token + head) / r.compute_flop_per_s,
              1e-9 * b.weights_s);
  EXPECT_NEAR(b.elementwise_s, a.elementwise_s / 2, 1e-12 * a.elementwise_s);
  // Attention is not halved: the computed half attends to the cached one.
  EXPECT_GT(b.attention_s, a.attention_s / 2);
}

TEST(PrefixCaching, ZeroLoadTtftIsThePrefillOfTheUncachedTokens) {
  const ReplicaModel r = replica("llama-3-8b", "h100-sxm5-80gb");
  ServeWorkload w;
  w.requests = 1;
  w.prompt_tokens = 3000;
  w.output_tokens = 50;
  w.prefix_hit_rate = 0.75;
  EXPECT_DOUBLE_EQ(cached_prompt_tokens(3000, 0.75), 2250);
  EXPECT_DOUBLE_EQ(cached_prompt_tokens(3000, 1.0), 2999);  // the last token is computed
  auto s = simulate(r, w);
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(s.value().ttft_s.p50, prefill_time_s(r, 3000, 2250), 1e-12);
  EXPECT_LT(s.value().ttft_s.p50, prefill_time_s(r, 3000) / 2);
  w.prefix_hit_rate = 1.5;
  auto bad = simulate(r, w);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().key, "prefix-hit-rate");
  auto key = parse_serve_request({{"prefix-hit-rate", "1.5"}});
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.error().message, "--prefix-hit-rate: 1.5 is out of range [0, 1]");
}

TEST(ServeFeatures, ThePlanReportsTheSharesAndTokensPerStep) {
  auto r = parse_serve_request({{"model", "llama-3.1-8b"},
                                {"rate", "2"},
                                {"gpu", "h100-sxm5-80gb"},
                                {"tp", "1"},
                                {"prefix-hit-rate", "0.5"},
                                {"spec-method", "eagle"},
                                {"spec-tokens", "4"},
                                {"spec-acceptance", "0.8"}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ServeRequest req = r.value();
  req.requests = 50;
  ServeQuery q = serve_query(req, LoadCurve(24, 2));
  q.instance = "aws-p5.48xlarge";
  auto plan = plan_serving(test::catalog(), test::serving(), test::model("llama-3.1-8b"), q);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const ServeOption& o = plan.value().options.front();
  EXPECT_DOUBLE_EQ(o.prefill_computed_share, 0.5);
  EXPECT_NEAR(o.tokens_per_step, 3.3616, 1e-12);
  EXPECT_DOUBLE_EQ(o.itl_s, o.decode_step_s / o.tokens_per_step);
}

}  // namespace
}  // namespace gpuplan
