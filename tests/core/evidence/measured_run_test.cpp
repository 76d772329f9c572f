// Measured model runs (gpuplan-measure payloads): parsing, bad inputs with the exact message,
// signing and tampering through the probe-file reader, and measured vs predicted.
#include "gpuplan/measured_run.h"

#include <gtest/gtest.h>

#include "gpuplan/probe_file.h"
#include "gpuplan/signing.h"
#include "test_util.h"

namespace gpuplan {
namespace {

// A CPU run as gpuplan_measure writes it (memory absent, with the reason). `memory` and
// `step` replace those objects for the bad-input cases.
std::string payload(
    const std::string& memory = R"({"peak_allocated_bytes": null, "peak_reserved_bytes": null,
                      "absent_reason": "CPU run"})",
    const std::string& step = R"({"median": 0.02, "mean": 0.021, "min": 0.019, "max": 0.03})",
    const std::string& kind = "gpuplan-measure") {
  return R"({"schema_version": 1, "kind": ")" + kind +
         R"(", "tool": {"name": "gpuplan-measure", "version": "0.1.0"},
  "started_utc": "2026-12-01T15:00:00Z", "finished_utc": "2026-12-01T15:00:02Z", "arguments": ["--script", "t.py"],
  "host": {"hostname": "vm", "os": "Linux", "python": "3.11.2", "torch": "1.13.0"},
  "device": {"type": "cpu", "name": "AMD EPYC", "count": 2, "memory_bytes": null, "sm_count": null,
             "compute_capability": null, "sm_clock_max_mhz": null, "memory_clock_max_mhz": null,
             "driver_version": null, "cuda_runtime": null},
  "setup": {"world_size": 1, "rank": 0, "batch_per_step": 16, "batch_source": "given", "param_dtype": "float32",
            "autocast_dtype": null, "parameters": 2372},
  "timing": {"cuda_synchronised": false, "warmup_steps": 5, "steps": 20, "step_s": )" +
         step + R"(,
             "samples_per_s": 800.0},
  "memory": )" +
         memory + R"(, "not_measured": ["convergence"], "warnings": []})";
}

TEST(MeasuredRun, ParsesACpuRun) {
  auto m = parse_measured_payload(payload(), "payload");
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
      {payload(
           R"({"peak_allocated_bytes": null, "peak_reserved_bytes": null, "absent_reason": null})"),
       "payload: memory.absent_reason: required when a peak is null (say why it was not measured)"},
      {payload(R"({"peak_allocated_bytes": -1, "peak_reserved_bytes": 0, "absent_reason": null})"),
       "payload: memory.peak_allocated_bytes: -1 is out of range [0, 72057594037927936]"},
      {payload(gpu_memory, step, "gpuplan-probe"),
       "payload: kind: 'gpuplan-probe' is not 'gpuplan-measure'"},
      {payload(gpu_memory, R"({"median": 0.01, "mean": 0.02, "min": 0.019, "max": 0.03})"),
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

TEST(MeasuredRun, SignedLikeAProbeFileAndTamperingIsCaught) {
  const auto key = signing::keypair_from_seed(std::string(32, '\x07'));
  const std::string text = payload();
  auto bare = signing::read_probe_file(text, {});
  ASSERT_TRUE(bare.ok()) << bare.error().message;
  EXPECT_EQ(bare.value().signature, ProbeSignature::unsigned_file);
  ASSERT_TRUE(bare.value().measured);
  EXPECT_FALSE(bare.value().payload);

  const std::string envelope = signing::sign_probe_payload(text, key);
  auto f = signing::read_probe_file(envelope, {});
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().signature, ProbeSignature::valid);
  ASSERT_TRUE(f.value().measured);
  EXPECT_EQ(f.value().measured->steps, 20);

  // One changed digit of the step time in the payload: the signature no longer verifies.
  std::string changed = text;
  changed.replace(changed.find("\"median\": 0.02"), 14, "\"median\": 0.01");
  std::string forged = envelope;
  forged.replace(forged.find(signing::base64_encode(text)), signing::base64_encode(text).size(),
                 signing::base64_encode(changed));
  auto t = signing::read_probe_file(forged, {});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t.value().signature, ProbeSignature::invalid);
  EXPECT_FALSE(t.value().measured);
}

TEST(MeasuredRun, ComparedWithThePredictionBySamplesPerSecond) {
  auto m = parse_measured_payload(payload(), "payload");
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
