#pragma once
// Calibration: a probe file's measured GEMM throughput, HBM bandwidth and all-reduce bus
// bandwidth replace "spec peak x default efficiency" in the time model.

#include <string>
#include <vector>

#include "gpuplan/estimate.h"
#include "gpuplan/hardware.h"
#include "gpuplan/probe_file.h"
#include "gpuplan/timing.h"

namespace gpuplan {

// Efficiencies for `precision` on `gpu` with the measured figures of `summary` filled in.
// `notes` says what was replaced and what was not measured (spec x efficiency stays).
struct Calibrated {
  Efficiencies efficiencies;
  std::vector<std::string> notes;
  bool gpu_matches = true;  // the probe measured this GPU model (by catalog id)
};
Calibrated calibrate(const Efficiencies& base, const ProbeSummary& summary, const Gpu& gpu,
                     Precision precision);

}  // namespace gpuplan
