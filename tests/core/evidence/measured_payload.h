#pragma once
// A gpuplan-measure payload as the tool writes it, for the measured-run tests (core and signing).
#include <string>

namespace gpuplan::test {

// A CPU run as gpuplan_measure writes it (memory absent, with the reason). `memory` and
// `step` replace those objects for the bad-input cases.
inline std::string measured_payload(
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

}  // namespace gpuplan::test
