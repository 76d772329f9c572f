// Error bands and fit verdicts (gpuplan/accuracy.h).
#include <gtest/gtest.h>

#include "gpuplan/accuracy.h"
#include "test_util.h"

namespace gpuplan {
namespace {

std::vector<ErrorBand> bands() {
  return {{"decoder/16-bit/sharded", 100, -0.05, 0.20, 0.08},
          {"decoder/16-bit/single", 4, -0.10, 0.10, 0.05},
          {"cnn/fp32/single", 9, -0.17, 0.12, 0.08},
          {"all", 200, -0.2, 0.3, 0.1}};
}

TEST(ErrorBands, NearestFamilyDropsParallelismThenPrecisionThenKind) {
  EXPECT_EQ(nearest_band(bands(), "decoder/16-bit/sharded").family, "decoder/16-bit/sharded");
  // No decoder/16-bit/model-parallel rows: the decoder/16-bit families pooled, widest band.
  const ErrorBand pooled = nearest_band(bands(), "decoder/16-bit/model-parallel");
  EXPECT_EQ(pooled.family, "decoder/16-bit/*");
  EXPECT_EQ(pooled.rows, 104);
  EXPECT_DOUBLE_EQ(pooled.low, -0.10);
  EXPECT_DOUBLE_EQ(pooled.high, 0.20);
  EXPECT_EQ(nearest_band(bands(), "decoder/fp8/sharded").family, "decoder/*");
  EXPECT_EQ(nearest_band(bands(), "encoder/fp32/single").family, "all");
  EXPECT_EQ(nearest_band({}, "encoder/fp32/single").rows, 0);
}

TEST(ErrorBands, TimeRangeFollowsThroughputErrorsAndMemoryRangeInvertsThem) {
  const ErrorBand b{"x", 10, -0.1, 0.25, 0.1};
  const Range t = time_range_s(2.0, b);  // predicted 10 % slow .. 25 % fast
  EXPECT_DOUBLE_EQ(t.low, 1.8);
  EXPECT_DOUBLE_EQ(t.high, 2.5);
  const Range m = memory_range_bytes(100, b);  // predicted = measured x (1 + e)
  EXPECT_DOUBLE_EQ(m.low, 80);
  EXPECT_NEAR(m.high, 100 / 0.9, 1e-9);
}

TEST(FitVerdicts, FitsTightOrDoesNotFitAllowingForTheMeasuredError) {
  const ErrorBand b{"x", 10, -0.1, 0.1, 0.05};  // measured memory within 91-111 % of predicted
  EXPECT_EQ(fit_verdict(70, 80, b).fit, Fit::fits);
  EXPECT_EQ(fit_verdict(78, 80, b).fit, Fit::tight);         // up to 86.7 with the band
  EXPECT_EQ(fit_verdict(85, 80, b).fit, Fit::tight);         // as low as 77.3: it may run
  EXPECT_EQ(fit_verdict(90, 80, b).fit, Fit::does_not_fit);  // at least 81.8
  EXPECT_DOUBLE_EQ(fit_verdict(85, 80, b).margin_bytes, -5);
  EXPECT_STREQ(fit_name(Fit::does_not_fit), "does not fit");
}

TEST(FitVerdicts, EveryPublishedLlmRunIsPredictedToRun) {
  // The bundled bands were made from the development data, so none of its runs is refused.
  for (const auto& b : test::catalog().accuracy.time) EXPECT_LE(b.low, b.high) << b.family;
  EXPECT_FALSE(test::catalog().accuracy.memory.empty());
}

TEST(AccuracyFile, ErrorsNameTheField) {
  auto err = [](const std::string& text) {
    auto t = parse_accuracy_json(text, "accuracy.json");
    return t.ok() ? std::string() : t.error().message;
  };
  const std::string head =
      R"({"schema_version": 1, "kind": "accuracy", "generated": "2026-12-01", "memory": [], )";
  EXPECT_EQ(
      err(head +
          R"("time": [{"family": "all", "rows": 3, "error_p10": 0.2, "error_p90": 0.1, "mape": 0.1}]})"),
      "accuracy.json: time[0]: error_p10 is above error_p90");
  EXPECT_EQ(err(R"({"schema_version": 2, "kind": "accuracy"})"),
            "accuracy.json: schema_version 2 is not supported (this build reads 1); update gpuplan "
            "or convert the file");
  EXPECT_EQ(err(head + R"("time": {}})"), "accuracy.json: time: expected an array");
}

}  // namespace
}  // namespace gpuplan
