// Error bands from held-out error, widened outside the validated ground, their coverage, and fit
// verdicts (gpuplan/accuracy.h).
#include <gtest/gtest.h>

#include <cmath>

#include "gpuplan/accuracy.h"
#include "gpuplan/evaluate.h"
#include "test_util.h"

namespace gpuplan {
namespace {

RunGround ground(const char* kind, const char* precision, const char* parallel, int gpus) {
  return {kind, precision, parallel, "Hopper", gpus, ""};
}

// n rows of one source, family and ground with the given errors.
void add(std::vector<AccuracyRow>& rows, const char* source, const char* family, const RunGround& g,
         const std::vector<std::pair<int, double>>& errors) {
  for (const auto& [n, e] : errors) {
    for (int i = 0; i < n; ++i)
      rows.push_back({source + std::to_string(rows.size()), source, family, g, e});
  }
}

// Source A: 10 pipeline-parallel runs on 64 GPUs, B: 10 sharded runs on 8, each with errors
// 2 x -0.2, 6 x 0, 2 x +0.2; C: 4 single-GPU FP8 runs, all +0.1.
std::vector<AccuracyRow> table() {
  std::vector<AccuracyRow> rows;
  const std::vector<std::pair<int, double>> spread = {{2, -0.2}, {6, 0.0}, {2, 0.2}};
  add(rows, "A", "decoder/16-bit/model-parallel", ground("decoder", "16-bit", "dp+pp", 64), spread);
  add(rows, "B", "decoder/16-bit/sharded", ground("decoder", "16-bit", "dp", 8), spread);
  add(rows, "C", "decoder/fp8/single", ground("decoder", "fp8", "single", 1), {{4, 0.1}});
  return rows;
}

// The pool decoder/* of table(), each source weighing 1 (A's and B's rows 0.1, C's 0.25, of 3).
// Each error stands at the middle of its share of the cumulative weight: the -0.2s at 0.017,
// 0.050, 0.083 and 0.117, the 0s from 0.150 to 0.517, the +0.1s at 0.575-0.825, the +0.2s
// from 0.883 to 0.983; so the 10th percentile is -0.2, the median 0 and the 90th +0.2. Kish's
// effective size is 3^2 / (20 x 0.1^2 + 4 x 0.25^2) = 20, so the band widens by
// t_{0.9,19} sqrt(1 + 1/20) / z_{0.9} = 1.328 x 1.02470 / 1.282 = 1.06146: +-0.21229.
constexpr double kPooledHalfWidth = 0.2122925;

TEST(ErrorBands, AFamilyWithFewRowsGetsAPooledWiderBand) {
  const ErrorBand b =
      error_band(table(), "decoder/fp8/single", ground("decoder", "fp8", "single", 1));
  // 4 rows of its own (all +0.1, no spread) are too few: decoder/fp8/* has the same 4, so the
  // pool is every decoder row.
  EXPECT_EQ(b.pool, "decoder/*");
  EXPECT_EQ(b.rows, 24);
  EXPECT_EQ(b.sources, 3);
  EXPECT_DOUBLE_EQ(b.pool_low, -0.2);
  EXPECT_DOUBLE_EQ(b.pool_high, 0.2);
  EXPECT_NEAR(b.low, -kPooledHalfWidth, 1e-6);  // wider than the pool's own percentiles
  EXPECT_NEAR(b.high, kPooledHalfWidth, 1e-6);
  // It stands on its ground: 4 validated runs of this kind, from one source.
  EXPECT_EQ(b.evidence_rows, 4);
  EXPECT_EQ(b.evidence_sources, 1);
  EXPECT_TRUE(b.outside.empty());
  EXPECT_EQ(b.reason, "");
}

TEST(ErrorBands, ASetupOutsideTheValidatedGroundGetsAWiderBandAndItsReason) {
  // FP8 was validated (C) and so was dp+pp (A), but never together: the precision is relaxed.
  const ErrorBand b =
      error_band(table(), "decoder/fp8/model-parallel", ground("decoder", "fp8", "dp+pp", 64));
  EXPECT_EQ(b.evidence_rows, 0);
  ASSERT_EQ(b.outside, std::vector<std::string>{"precision"});
  EXPECT_EQ(b.reason, "no validated decoder run used fp8 with dp+pp on Hopper: band widened");
  EXPECT_TRUE(b.never_validated.empty());  // each value was validated, not their combination
  // The pool is decoder/* as above (+-0.21229 before widening). Its precision groups' medians
  // are 0 (16-bit: A and B) and +0.1 (fp8: C): variance 0.005, less what sampling puts there,
  // the mean over the groups of pi/2 s^2 / n: 16-bit s^2 = 0.016 (mean 0, 0.4 of the weight at
  // +-0.2), n = 20; fp8 s^2 = 0. tau^2 = 0.005 - (1.5708 x 0.016 / 20) / 2 = 0.0043717; added
  // in quadrature, sqrt(0.21229^2 + 1.282^2 x 0.0043717) = 0.22859.
  EXPECT_NEAR(b.low, -0.2285893, 1e-6);
  EXPECT_NEAR(b.high, 0.2285893, 1e-6);
  // A GPU architecture no run used.
  RunGround blackwell = ground("decoder", "16-bit", "dp", 8);
  blackwell.arch = "Blackwell";
  EXPECT_EQ(error_band(table(), "decoder/16-bit/sharded", blackwell).reason,
            "no validated run used a Blackwell GPU: band widened");
}

TEST(ErrorBands, ALoneRunOfAnotherKindWidensOnlyItsOwnKindsBands) {
  // table() with 5 MoE runs (source M, all +0.1) and one more run of source A far off (+0.8),
  // asked for an encoder, a kind no run used: the kind is outside the ground and its spread is
  // measured between the validated kinds. Labelled decoder, the far run is one of 21 decoder runs;
  // labelled hybrid, it is a kind of its own with one run, no median to speak of, left out of the
  // spread: the encoder band is the same either way (the pool's errors and sources are). A
  // hybrid prediction's own kind counts, however few its runs, and widens its band.
  auto with_far_run = [](const char* kind) {
    std::vector<AccuracyRow> rows = table();
    add(rows, "M", "moe/16-bit/sharded", ground("moe", "16-bit", "dp", 8), {{5, 0.1}});
    add(rows, "A", "x/16-bit/model-parallel", ground(kind, "16-bit", "dp+pp", 64), {{1, 0.8}});
    return rows;
  };
  const RunGround encoder_ground = ground("encoder", "16-bit", "dp", 8);
  const ErrorBand as_decoder =
      error_band(with_far_run("decoder"), "encoder/16-bit/sharded", encoder_ground);
  const ErrorBand as_hybrid =
      error_band(with_far_run("hybrid"), "encoder/16-bit/sharded", encoder_ground);
  EXPECT_EQ(as_hybrid.reason, "no validated run used a encoder model: band widened");
  EXPECT_NEAR(as_hybrid.low, as_decoder.low, 0.05);  // counted, its +0.8 would add about 0.4
  EXPECT_NEAR(as_hybrid.high, as_decoder.high, 0.05);
  const ErrorBand hybrid = error_band(with_far_run("hybrid"), "hybrid/16-bit/sharded",
                                      ground("hybrid", "16-bit", "dp", 8));
  EXPECT_GT(hybrid.high - hybrid.low, as_hybrid.high - as_hybrid.low + 0.1);
}

TEST(ErrorBands, MoreGpusThanTheLargestValidatedRunWidenTheBand) {
  // D: 10 runs on 8 GPUs with errors 2 x -0.2, 6 x 0, 2 x +0.2; E: 10 on 64 GPUs, 2 x -0.1,
  // 6 x +0.1, 2 x +0.3. Pooled (weights 0.1 of 2), the errors stand at 0.025, 0.075 (-0.2),
  // 0.125, 0.175 (-0.1), 0.225-0.475 (0), 0.525-0.775 (+0.1), 0.825, 0.875 (+0.2), 0.925, 0.975
  // (+0.3): the 10th percentile is -0.15 (halfway from -0.2 to -0.1), the median +0.05, the
  // 90th +0.25; effective size 20 (x 1.06146): 0.05 -+ 0.21229. The GPU-count groups' medians
  // are 0 and +0.1, variance 0.005, less pi/2 x 0.016 / 10 = 0.0025133 (each group's s^2 is
  // 0.016 over 10 rows) is 0.0024867, below that sampling variance itself, so tau^2 = 0.0025133
  // (an unvalidated value is known no better than a validated median): 0.05 -+ sqrt(0.21229^2 +
  // 1.282^2 x 0.0025133) = 0.05 -+ 0.22181.
  std::vector<AccuracyRow> rows;
  add(rows, "D", "decoder/16-bit/sharded", ground("decoder", "16-bit", "dp", 8),
      {{2, -0.2}, {6, 0.0}, {2, 0.2}});
  add(rows, "E", "decoder/16-bit/sharded", ground("decoder", "16-bit", "dp", 64),
      {{2, -0.1}, {6, 0.1}, {2, 0.3}});
  const ErrorBand at64 =
      error_band(rows, "decoder/16-bit/sharded", ground("decoder", "16-bit", "dp", 64));
  EXPECT_TRUE(at64.outside.empty());
  EXPECT_NEAR(at64.low, 0.05 - kPooledHalfWidth, 1e-6);
  EXPECT_NEAR(at64.high, 0.05 + kPooledHalfWidth, 1e-6);
  const ErrorBand at512 =
      error_band(rows, "decoder/16-bit/sharded", ground("decoder", "16-bit", "dp", 512));
  EXPECT_EQ(at512.evidence_rows, 20);
  EXPECT_EQ(at512.evidence_max_gpus, 64);
  EXPECT_EQ(at512.outside, std::vector<std::string>{"scale"});
  EXPECT_EQ(at512.reason,
            "no validated run of this kind used more than 64 GPUs (this one: 512): band widened");
  EXPECT_NEAR(at512.low, -0.1718079, 1e-6);
  EXPECT_NEAR(at512.high, 0.2718079, 1e-6);
}

TEST(ErrorBands, ARowsBandLeavesItsOwnSourceOut) {
  // Held out, C's runs no longer vouch for C: no other run used fp8, or a single GPU, and the
  // pool is A's and B's 20 rows.
  const ErrorBand b =
      error_band(table(), "decoder/fp8/single", ground("decoder", "fp8", "single", 1), "C");
  EXPECT_EQ(b.rows, 20);
  EXPECT_EQ(b.sources, 2);
  EXPECT_EQ(b.evidence_rows, 0);
  EXPECT_EQ(b.reason, "no validated run used fp8 or a single GPU: band widened");
  EXPECT_EQ(b.never_validated, (std::vector<std::string>{"precision", "parallel"}));
  // Leaving every source out leaves no band.
  std::vector<AccuracyRow> one;
  add(one, "A", "decoder/16-bit/sharded", ground("decoder", "16-bit", "dp", 8), {{30, 0.1}});
  EXPECT_EQ(
      error_band(one, "decoder/16-bit/sharded", ground("decoder", "16-bit", "dp", 8), "A").rows, 0);
}

TEST(ErrorBands, APoolOfOneSourceCountsAsUnknownSpreadBetweenSources) {
  // 30 rows of one source: errors 3 x -0.1, 24 x 0, 3 x +0.1, each weighing 1/30 and standing
  // at (k - 0.5) / 30: the third -0.1 at 0.083, the first 0 at 0.117, so the 10th percentile is
  // -0.05 (halfway) and the 90th +0.05. Effective size 30: t_{0.9,29} sqrt(1 + 1/30) / z =
  // 1.311 x 1.01653 / 1.282 = 1.03952, +-0.05198; the spread between sources is taken as large
  // as the band's own: x sqrt(2) = +-0.07351.
  std::vector<AccuracyRow> rows;
  add(rows, "A", "decoder/16-bit/sharded", ground("decoder", "16-bit", "dp", 8),
      {{3, -0.1}, {24, 0.0}, {3, 0.1}});
  const ErrorBand b =
      error_band(rows, "decoder/16-bit/sharded", ground("decoder", "16-bit", "dp", 8));
  EXPECT_EQ(b.pool, "all");
  EXPECT_EQ(b.outside, std::vector<std::string>{"sources"});
  EXPECT_EQ(b.reason, "the band rests on one source: band widened");
  EXPECT_NEAR(b.high, 0.05 * 1.311 * std::sqrt(1 + 1.0 / 30) / 1.282 * std::sqrt(2), 1e-9);
  EXPECT_NEAR(b.low, -b.high, 1e-12);
}

TEST(BandCoverage, CountsMeasuredValuesInsideTheirBandPerSourceFamilyAndOverall) {
  const std::vector<BandedRow> rows = {
      {"x", "f1", 100, 90, 110, true, 0.05},   // inside
      {"x", "f1", 120, 90, 110, true, -0.20},  // above
      {"x", "f2", 90, 90, 110, true, 0.10},    // on the low end: inside
      {"y", "f2", 50, 60, 70, true, 0.30},     // below
      {"y", "f1", 65, 60, 70, true, -0.10},    // inside
      {"y", "f1", 65, 0, 0, false, 0.50},      // no band: not counted
  };
  const BandCoverage c = band_coverage(rows);
  ASSERT_EQ(c.by_source.size(), 2u);
  EXPECT_EQ(c.by_source[0].key, "x");
  EXPECT_EQ(c.by_source[0].rows, 3);
  EXPECT_EQ(c.by_source[0].inside, 2);
  EXPECT_EQ(c.by_source[1].key, "y");
  EXPECT_EQ(c.by_source[1].inside, 1);
  EXPECT_DOUBLE_EQ(c.by_source[1].mape, 0.20);  // (0.30 + 0.10) / 2
  ASSERT_EQ(c.by_family.size(), 2u);
  EXPECT_EQ(c.by_family[0].key, "f1");
  EXPECT_EQ(c.by_family[0].rows, 3);
  EXPECT_EQ(c.by_family[0].inside, 2);
  EXPECT_EQ(c.by_family[1].inside, 1);
  EXPECT_EQ(c.overall.rows, 5);
  EXPECT_EQ(c.overall.inside, 3);
  EXPECT_DOUBLE_EQ(c.overall.share(), 0.6);
  EXPECT_DOUBLE_EQ(c.overall.mape, (0.05 + 0.20 + 0.10 + 0.30 + 0.10) / 5);
  EXPECT_EQ(c.without_band, 1);
}

TEST(ErrorBands, TimeRangeFollowsThroughputErrorsAndMemoryRangeInvertsThem) {
  ErrorBand b;
  b.rows = 10;
  b.low = -0.1;
  b.high = 0.25;
  const Range t = time_range_s(2.0, b);  // predicted 10 % slow .. 25 % fast
  EXPECT_DOUBLE_EQ(t.low, 1.8);
  EXPECT_DOUBLE_EQ(t.high, 2.5);
  const Range m = memory_range_bytes(100, b);  // predicted = measured x (1 + e)
  EXPECT_DOUBLE_EQ(m.low, 80);
  EXPECT_NEAR(m.high, 100 / 0.9, 1e-9);
}

TEST(FitVerdicts, FitsTightOrDoesNotFitAllowingForTheMeasuredError) {
  ErrorBand b;  // measured memory within 91-111 % of predicted
  b.rows = 10;
  b.low = -0.1;
  b.high = 0.1;
  EXPECT_EQ(fit_verdict(70, 80, b).fit, Fit::fits);
  EXPECT_EQ(fit_verdict(78, 80, b).fit, Fit::tight);         // up to 86.7 with the band
  EXPECT_EQ(fit_verdict(85, 80, b).fit, Fit::tight);         // as low as 77.3: it may run
  EXPECT_EQ(fit_verdict(90, 80, b).fit, Fit::does_not_fit);  // at least 81.8
  EXPECT_DOUBLE_EQ(fit_verdict(85, 80, b).margin_bytes, -5);
  EXPECT_STREQ(fit_name(Fit::does_not_fit), "does not fit");
}

TEST(FitVerdicts, TheBundledTableHasEveryRowsSourceAndGround) {
  const AccuracyTable& t = test::catalog().accuracy;
  EXPECT_FALSE(t.time.empty());
  EXPECT_FALSE(t.memory.empty());
  for (const auto& r : t.time) {
    EXPECT_FALSE(r.source.empty()) << r.id;
    EXPECT_FALSE(r.ground.kind.empty()) << r.id;
  }
}

TEST(ErrorBands, AQueryOnUnvalidatedHardwareSaysSoInEveryFace) {
  Query q;
  q.request.model = "llama-2-7b";
  // No validated run used an Ada GPU (L40S); Blackwell has validated MoE runs now.
  q.gpu = "l40s";
  q.gpus = 8;
  q.request.setup.precision = Precision::mixed_bf16;
  q.request.setup.zero_stage = 3;
  auto ev = evaluate(test::catalog(), q);
  ASSERT_TRUE(ev.ok()) << ev.error().message;
  EXPECT_EQ(ev.value().ground.arch, "Ada");
  EXPECT_EQ(ev.value().ground.parallel, "dp");
  EXPECT_NE(ev.value().time_band.reason.find("no validated run used an Ada GPU"), std::string::npos)
      << ev.value().time_band.reason;
  EXPECT_NE(ev.value().verdict.band.reason.find("Ada"), std::string::npos);
}

TEST(ErrorBands, FamiliesAndGroundComeFromTheModelAndSetup) {
  gpuplan::Setup s;
  s.precision = Precision::fp8;
  s.dp = 4;
  s.tp = 2;
  s.pp = 2;
  const Model& mixtral = *test::catalog().find_model("mixtral-8x7b");
  EXPECT_EQ(accuracy_family(mixtral, s), "moe/fp8/model-parallel");
  const RunGround g = run_ground(mixtral, s, test::catalog().find_gpu("h100-sxm5-80gb"), 16);
  EXPECT_EQ(g.kind, "moe");
  EXPECT_EQ(g.precision, "fp8");
  EXPECT_EQ(g.parallel, "dp+tp+pp");
  EXPECT_EQ(g.arch, "Hopper");
  EXPECT_EQ(g.gpus, 16);
  s.precision = Precision::amp_bf16;
  s.tp = s.pp = 1;
  EXPECT_EQ(accuracy_family(*test::catalog().find_model("gpt2-small"), s),
            "decoder/16-bit/data-parallel");
  EXPECT_EQ(run_ground(*test::catalog().find_model("resnet50"), s, nullptr, 4).arch, "");
}

TEST(SourceKeys, NameTheDocumentAndFoldForks) {
  EXPECT_EQ(source_key("NVIDIA/DeepLearningExamples@729963dd PyTorch/LanguageModeling/BERT/"
                       "README.md (Training performance results)"),
            "DeepLearningExamples/BERT");
  EXPECT_EQ(source_key("NVIDIA/DeepLearningExamples@78ec6802 (2021-08-27) "
                       "PyTorch/LanguageModeling/BERT/README.md (older version)"),
            "DeepLearningExamples/BERT");
  EXPECT_EQ(source_key("arthurrasmusson/TensorRT-LLM@e00d4e65 docs/source/performance/"
                       "perf-overview.md ## Throughput"),
            "TensorRT-LLM/perf-overview");
  EXPECT_EQ(source_key("TensorRT-LLM docs/source/performance/perf-overview.md, v0.9"),
            "TensorRT-LLM/perf-overview");
  EXPECT_EQ(source_key("NVIDIA/Megatron-LM@f13818d6 README.md (H100 scaling)"), "Megatron-LM");
  EXPECT_EQ(source_key("https://blog.mlc.ai/2023/10/19/Scalable (pages)"), "blog.mlc.ai");
}

// Serving runs also name their engine: a query under an engine no validated run used is outside
// the ground, and its band widens by how much the error moves between the engines validated.
TEST(ErrorBands, AServingEngineNoRunUsedWidensTheBand) {
  std::vector<AccuracyRow> rows;
  const std::vector<std::pair<int, double>> spread = {{2, -0.2}, {6, 0.0}, {2, 0.2}};
  auto serving = [](const char* runtime) {
    RunGround g{"decoder", "bf16", "single", "Hopper", 1, runtime};
    return g;
  };
  add(rows, "A", "output tokens/s", serving("trtllm"), spread);
  add(rows, "B", "output tokens/s", serving("trtllm"), spread);
  add(rows, "C", "output tokens/s", serving("vllm"), {{5, 0.3}, {5, 0.5}});
  const ErrorBand known = error_band(rows, "output tokens/s", serving("trtllm"));
  EXPECT_TRUE(known.outside.empty());
  EXPECT_EQ(known.evidence_rows, 20);
  const ErrorBand unseen = error_band(rows, "output tokens/s", serving("llamacpp"));
  EXPECT_EQ(unseen.outside, std::vector<std::string>{"runtime"});
  EXPECT_EQ(unseen.never_validated, std::vector<std::string>{"runtime"});
  EXPECT_EQ(unseen.reason, "no validated run used the llamacpp runtime: band widened");
  EXPECT_LT(unseen.low, known.low);
  EXPECT_GT(unseen.high, known.high);
  // A training query names no engine: the facet is not compared.
  const ErrorBand training = error_band(rows, "output tokens/s", serving(""));
  EXPECT_TRUE(training.outside.empty());
  EXPECT_EQ(
      evidence_line(unseen, serving("llamacpp"))
          .rfind("no validated run of this kind (decoder, bf16, single, Hopper, llamacpp)", 0),
      0u);
}

TEST(AccuracyFile, ErrorsNameTheField) {
  auto err = [](const std::string& text) {
    auto t = parse_accuracy_json(text, "accuracy.json");
    return t.ok() ? std::string() : t.error().message;
  };
  const std::string start =
      R"({"schema_version": 3, "kind": "accuracy", "generated": "2026-12-01", )";
  const std::string head = start + R"("memory": [], "serving": [], )";
  const std::string row =
      R"("family": "x", "kind": "decoder", "precision": "16-bit", "parallel": "dp", "arch": "Hopper", "gpus": 8, "error": 0.1})";
  EXPECT_EQ(err(head + R"("time": [{"id": "r", "source": "", )" + row + "]}"),
            "accuracy.json: time[0]: source is empty");
  EXPECT_EQ(err(head + R"("time": [{"id": "r", "source": "s", )" + row + "]}"), "");
  // Serving rows carry their engine; a row without one is a training row's ground.
  const std::string serving = start + R"("memory": [], "time": [], "serving": [{"id": "s", )";
  auto t = parse_accuracy_json(serving + R"("source": "s", "runtime": "vllm", )" + row + "]}",
                               "accuracy.json");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t.value().serving.size(), 1u);
  EXPECT_EQ(t.value().serving[0].ground.runtime, "vllm");
  EXPECT_EQ(err(serving + R"("source": "s", "runtime": 3, )" + row + "]}"),
            "accuracy.json: serving[0].runtime: expected a string, got a number");
  EXPECT_EQ(err(start + R"("memory": [], "time": []})"),
            "accuracy.json: serving: missing required field");
  EXPECT_EQ(err(R"({"schema_version": 1, "kind": "accuracy"})"),
            "accuracy.json: schema_version 1 is not supported (this build reads 3); update gpuplan "
            "or convert the file");
  EXPECT_EQ(err(head + R"("time": {}})"), "accuracy.json: time: expected an array");
}

}  // namespace
}  // namespace gpuplan
