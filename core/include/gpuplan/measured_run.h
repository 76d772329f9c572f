#pragma once
// Measured model runs: what gpuplan-measure (tools/gpuplan_measure) writes on a rented machine
// while the user's own training step runs. Same file family as probe files: the payload
// (kind "gpuplan-measure", its own schema_version; data/schema/measured.schema.json) is signed
// by `gpuplan-probe sign FILE` into the same DSSE envelope with the same key, and
// read_probe_file reads either kind (ProbeFile::measured for this one).
// Also: a measured step time beside gpuplan's prediction for the same setup (calibration).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/hardware.h"
#include "gpuplan/result.h"
#include "gpuplan/timing.h"

namespace gpuplan {

// The payload kind and the schema version of it this build reads.
inline constexpr const char* kMeasuredKind = "gpuplan-measure";
inline constexpr int kMeasuredSchemaVersion = 1;

// Step-time statistics over the timed steps (warm-up excluded), seconds.
struct MeasuredStepTime {
  double median_s = 0, mean_s = 0, min_s = 0, max_s = 0;
};

// A measured model run. Base units; nullopt = null in the file (not measured or not visible).
struct MeasuredRun {
  std::string tool_name, tool_version;
  std::string started_utc, finished_utc;
  std::string device_type;  // "cuda" or "cpu"
  std::string device_name;  // "NVIDIA H100 80GB HBM3" or the CPU model
  int64_t device_count = 0;
  std::optional<int64_t> device_memory_bytes;
  std::optional<double> sm_clock_max_mhz, memory_clock_max_mhz;
  std::optional<std::string> driver_version, cuda_runtime;
  int64_t world_size = 1;
  std::optional<int64_t> batch_per_step;  // samples per step on one process
  std::string param_dtype;                // "float32", "bfloat16", ...
  std::optional<std::string> autocast_dtype;
  std::optional<int64_t> parameters;
  bool cuda_synchronised = false;  // each step boundary waited for the GPU
  int64_t warmup_steps = 0, steps = 0;
  MeasuredStepTime step;
  std::optional<double> samples_per_s;  // over all processes (batch x world size / median step)
  std::optional<int64_t> peak_allocated_bytes, peak_reserved_bytes;
  std::optional<std::string> memory_absent_reason;  // why the memory fields are null
  std::vector<std::string> not_measured;            // what the tool does not see, in words
  std::vector<std::string> warnings;
};

// Parses a measured-run payload (bare JSON bytes, no envelope). Errors name `where` and the field;
// another schema_version is Errc::unsupported_version.
Result<MeasuredRun> parse_measured_payload(std::string_view payload, const std::string& where);

// The payload's "kind" field, or "" when the text is not a JSON object with a string kind.
std::string payload_kind(std::string_view payload);

// A measured run beside gpuplan's prediction for the same setup.
struct MeasuredComparison {
  double measured_step_s = 0, predicted_step_s = 0;
  double error = 0;  // (predicted - measured) / measured
  std::optional<double> measured_samples_per_s;
  double predicted_samples_per_s = 0;
  std::vector<std::string> notes;  // where the two setups differ (device, batch, GPU count)
};
// Compares a run with a prediction for `gpu` (its name or one of its aliases is the device name),
// `global_batch` and `gpus`.
MeasuredComparison compare_measured(const MeasuredRun& run, const StepTime& predicted,
                                    const Gpu& gpu, int64_t global_batch, int gpus);

// Aligned lines for `gpuplan verify` and `gpuplan estimate --probe`, and a JSON object.
std::string measured_run_to_text(const MeasuredRun& run);
std::string measured_run_to_json(const MeasuredRun& run, int indent = -1);
std::string measured_comparison_to_text(const MeasuredComparison& c);
std::string measured_comparison_to_json(const MeasuredComparison& c, int indent = -1);

}  // namespace gpuplan
