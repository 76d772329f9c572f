// ShareGPT as vLLM's benchmark samples it: the kept pairs' means against the published run,
// vLLM's filter on every draw, seeded draws, `serve --lengths sharegpt` against explicit
// lengths, and validation rows that name the dataset instead of their lengths.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "gpuplan/query.h"
#include "gpuplan/serve_sim.h"
#include "gpuplan/serve_validation.h"
#include "gpuplan/sharegpt.h"
#include "test_util.h"

namespace gpuplan {
namespace {

const LengthSampler& sharegpt() {
  return test::serving().sharegpt;
}

// vllm-project/vllm PR #18566 (2025-05-22): 1000 ShareGPT requests sampled by vLLM's benchmark,
// "Total input tokens: 229711", "Total generated tokens: 203068". Whole tokens over exactly
// 1000 requests: the means are exact to 0.001 token.
constexpr double kPublishedPromptMean = 229711.0 / 1000;
constexpr double kPublishedOutputMean = 203068.0 / 1000;

TEST(ShareGpt, KeptPairsHaveThePublishedMeans) {
  ASSERT_TRUE(sharegpt().ready());
  const LengthStats s = length_stats(sharegpt());
  EXPECT_NEAR(s.prompt_mean, kPublishedPromptMean, 0.001);
  EXPECT_NEAR(s.output_mean, kPublishedOutputMean, 0.001);
  // Right-skewed, as the vLLM paper's Fig. 11 draws ShareGPT: the median under the mean.
  EXPECT_LT(static_cast<double>(s.prompt_median), s.prompt_mean);
  EXPECT_LT(static_cast<double>(s.output_median), s.output_mean);
  EXPECT_GT(s.kept_share, 0.5);
}

TEST(ShareGpt, EveryDrawPassesVllmsFilterAndTheMeansHold) {
  std::mt19937_64 rng(11);
  double sum_p = 0, sum_o = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const auto [p, o] = draw_lengths(sharegpt(), rng);
    // vLLM's is_valid_sequence: at least 4 tokens each, prompt <= 1024, together <= 2048.
    ASSERT_GE(p, 4);
    ASSERT_GE(o, 4);
    ASSERT_LE(p, 1024);
    ASSERT_LE(p + o, 2048);
    sum_p += static_cast<double>(p);
    sum_o += static_cast<double>(o);
  }
  EXPECT_NEAR(sum_p / n, kPublishedPromptMean, 0.01 * kPublishedPromptMean);
  EXPECT_NEAR(sum_o / n, kPublishedOutputMean, 0.01 * kPublishedOutputMean);
}

TEST(ShareGpt, TheSameSeedDrawsTheSameLengths) {
  auto draws = [](uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::pair<int64_t, int64_t>> v;
    for (int i = 0; i < 50; ++i) v.push_back(draw_lengths(sharegpt(), rng));
    return v;
  };
  EXPECT_EQ(draws(5), draws(5));
  EXPECT_NE(draws(5), draws(6));
}

TEST(ShareGpt, AMeanTheFilterCannotReachIsRefused) {
  DatasetLengths d = sharegpt().dataset;
  d.prompt_mean_tokens = 2000;  // above max_prompt_tokens 1024
  auto s = make_length_sampler(d);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("serving.sharegpt.prompt_mean_tokens: a mean of 2000"),
            std::string::npos)
      << s.error().message;
}

TEST(ShareGpt, DatasetNamesAreReadInAnyCase) {
  EXPECT_TRUE(names_sharegpt("ShareGPT"));
  EXPECT_TRUE(names_sharegpt("sharegpt"));
  EXPECT_TRUE(names_sharegpt("ShareGPT V3 (unfiltered, cleaned split)"));
  EXPECT_FALSE(names_sharegpt("LMSYS-Chat-1M"));
  EXPECT_FALSE(names_sharegpt(""));
}

ReplicaModel llama3_8b_h100() {
  const Gpu* g = test::catalog().find_gpu("h100-sxm5-80gb");
  EXPECT_NE(g, nullptr);
  auto r = build_replica(test::model("llama-3-8b"), *g, ServeConfig{}, test::serving(),
                         test::catalog().efficiencies);
  EXPECT_TRUE(r.ok());
  return r.ok() ? r.value() : ReplicaModel{};
}

TEST(ShareGpt, SimulationsWithASeedRepeatAndNeedTheDistribution) {
  ServeWorkload w;
  w.rate_per_s = 20;
  w.requests = 300;
  w.lengths = LengthDistribution::sharegpt;
  auto unset = simulate(llama3_8b_h100(), w);
  ASSERT_FALSE(unset.ok());
  EXPECT_NE(unset.error().message.find("--lengths sharegpt"), std::string::npos);
  use_dataset_lengths(w, sharegpt());
  EXPECT_DOUBLE_EQ(w.prompt_tokens, kPublishedPromptMean);
  EXPECT_DOUBLE_EQ(w.output_tokens, kPublishedOutputMean);
  auto a = simulate(llama3_8b_h100(), w), b = simulate(llama3_8b_h100(), w);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.value().output_tokens_per_s, b.value().output_tokens_per_s);
  EXPECT_EQ(a.value().ttft_s.p90, b.value().ttft_s.p90);
}

TEST(ShareGpt, ExplicitLengthsWithShareGptAreRefused) {
  ServeRequest r;
  r.lengths = LengthDistribution::sharegpt;
  EXPECT_FALSE(check_serve_lengths(r).has_value());  // the dataset's own lengths
  r.prompt_tokens = 1500;
  auto err = check_serve_lengths(r);
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->message,
            "--prompt-tokens: --lengths sharegpt draws ShareGPT's own prompt and output lengths; "
            "drop --prompt-tokens or use --lengths fixed");
  r.lengths = LengthDistribution::fixed;
  EXPECT_FALSE(check_serve_lengths(r).has_value());
}

const std::string& kHead = test::kServingCsvHeader;

TEST(ShareGpt, ValidationRowsNamingShareGptAreDrawnFromIt) {
  const std::string text =
      kHead +
      "G1,vllm,Meta-Llama-3-8B,H100,1,1,BF16,vLLM,,,ShareGPT V3,64,,output_tokens_per_s_total,"
      "5000,x,n\n"
      "G2,vllm,Meta-Llama-3-8B,H100,1,1,BF16,vLLM,,,sharegpt,,4,tpot_ms_mean,20,x,n\n"
      "G3,vllm,Meta-Llama-3-8B,H100,1,1,BF16,vLLM,,,LMSYS-Chat-1M,64,,output_tokens_per_s_total,"
      "5000,x,n\n";
  auto rep = validate_serving_csv(test::catalog(), test::serving(), text, "s.csv");
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  ASSERT_EQ(rep.value().rows.size(), 2u);
  // G1: vLLM's default run (every request at once, 1000 of them) at most 64 running.
  ReplicaModel r = llama3_8b_h100();
  r.max_num_seqs = std::min<int64_t>(r.max_num_seqs, 64);
  ServeWorkload w;
  use_dataset_lengths(w, sharegpt());
  w.rate_per_s = 0;
  w.requests = 1000;
  auto burst = simulate(r, w);
  ASSERT_TRUE(burst.ok());
  EXPECT_DOUBLE_EQ(rep.value().rows[0].predicted, burst.value().output_tokens_per_s);
  // G2: at 4 requests/s, 500 requests, the mean time per output token in ms.
  ServeWorkload online;
  use_dataset_lengths(online, sharegpt());
  online.rate_per_s = 4;
  online.requests = 500;
  auto s = simulate(llama3_8b_h100(), online);
  ASSERT_TRUE(s.ok());
  EXPECT_DOUBLE_EQ(rep.value().rows[1].predicted, s.value().tpot_s.mean * 1000);
  ASSERT_EQ(rep.value().skipped.size(), 1u);
  EXPECT_EQ(rep.value().skipped[0].second,
            "dataset 'LMSYS-Chat-1M' states no input/output lengths and gpuplan has no length "
            "distribution for it (ShareGPT only)");
}

}  // namespace
}  // namespace gpuplan
