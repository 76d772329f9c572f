// Measured model runs (gpuplan-measure payloads): parsing, bad inputs with the exact message, and
// measured vs predicted (signing and tampering: tests/signing/measured_run_signed_test.cpp).
#include "gpuplan/measured_run.h"

#include <gtest/gtest.h>

#include "gpuplan/probe_file.h"
#include "evidence/measured_payload.h"
#include "test_util.h"

namespace gpuplan {
namespace {

using test::measured_payload;

TEST(MeasuredRun, ParsesACpuRun) {
  auto m = parse_measured_payload(measured_payload(), "payload");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m.value().device_type, "cpu");
  EXPECT_EQ(*m.value().batch_per_step, 16);
  EXPECT_DOUBLE_EQ(m.value().step.median_s, 0.02);
  EXPECT_FALSE(m.value().peak_allocated_bytes);
  EXPECT_EQ(*m.value().memory_absent_reason, "CPU run");
}

TEST(MeasuredRun, BadInputsNameTheField) {
  const std::string gpu_memory =
      R"({"peak_allocated_bytes": 1, "peak_reserved_bytes": 2, "absent_reason": null})";
  const std::string step = R"({"median": 0.02, "mean": 0.021, "min": 0.019, "max": 0.03})";
  const std::pair<std::string, std::string> cases[] = {
      {measured_payload(
           R"({"peak_allocated_bytes": null, "peak_reserved_bytes": null, "absent_reason": null})"),
       "payload: memory.absent_reason: required when a peak is null (say why it was not measured)"},
      {measured_payload(
           R"({"peak_allocated_bytes": -1, "peak_reserved_bytes": 0, "absent_reason": null})"),
       "payload: memory.peak_allocated_bytes: -1 is out of range [0, 72057594037927936]"},
      {measured_payload(gpu_memory, step, "gpuplan-probe"),
       "payload: kind: 'gpuplan-probe' is not 'gpuplan-measure'"},
      {measured_payload(gpu_memory, R"({"median": 0.01, "mean": 0.02, "min": 0.019, "max": 0.03})"),
       "payload: timing.step_s: expected 0 < min <= median <= max"},
      {R"({"schema_version": 2, "kind": "gpuplan-measure"})",
       "payload: schema_version 2 is not supported (this build reads 1); update gpuplan or convert "
       "the file"},
  };
  for (const auto& [text, message] : cases) {
    auto m = parse_measured_payload(text, "payload");
    ASSERT_FALSE(m.ok()) << text;
    EXPECT_EQ(m.error().message, message);
  }
}

TEST(MeasuredRun, ComparedWithThePredictionBySamplesPerSecond) {
  auto m = parse_measured_payload(measured_payload(), "payload");
  ASSERT_TRUE(m.ok());
  StepTime predicted;
  predicted.step_s = 0.016;
  predicted.samples_per_s = 1000;
  const Gpu& gpu = *test::catalog().find_gpu("a100-sxm4-80gb");
  const MeasuredComparison c = compare_measured(m.value(), predicted, gpu, 16, 1);
  EXPECT_NEAR(c.error, (1000.0 - 800.0) / 800.0, 1e-12);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0],
            "measured on the CPU (AMD EPYC), not on a GPU: the figures are not comparable");
  const MeasuredComparison b = compare_measured(m.value(), predicted, gpu, 64, 4);
  EXPECT_EQ(b.notes.size(), 3u);  // CPU, process count and batch differ
}

}  // namespace
}  // namespace gpuplan
