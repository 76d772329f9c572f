#include "gpuplan/calibration.h"

#include <cstdio>
#include <string>

namespace gpuplan {
namespace {

std::optional<double> gemm_for(const ProbeGemm& g, Precision p) {
  switch (p) {
    case Precision::fp32:
      return g.fp32;
    case Precision::tf32:
      return g.tf32;
    case Precision::fp16:
    case Precision::amp_fp16:
    case Precision::mixed_fp16:
      return g.fp16;
    case Precision::bf16:
    case Precision::amp_bf16:
    case Precision::mixed_bf16:
      return g.bf16;
    case Precision::fp8:
      return g.fp8;
    // The probe's FP8 GEMM is per-tensor scaled: no measurement of the block-scaled recipes.
    case Precision::fp8_blockwise:
    case Precision::mxfp8:
    case Precision::nvfp4:
      return std::nullopt;
  }
  return std::nullopt;
}

// "<what> 1.2e+14, 40 % of the spec 3e+14"; `what` ends in "measured" ("HBM copy bytes/s:
// measured") so each note's fixed words stand in this file, where the page's string table
// (note_* entries, web/check_strings.py) finds the notes it translates.
std::string ratio(const char* what, double measured, double spec) {
  char b[160];
  std::snprintf(b, sizeof b, "%s %.4g, %.0f %% of the spec %.4g", what, measured,
                spec > 0 ? 100 * measured / spec : 0.0, spec);
  return b;
}

}  // namespace

Calibrated calibrate(const Efficiencies& base, const ProbeSummary& s, const Gpu& gpu,
                     Precision precision) {
  Calibrated c;
  c.efficiencies = base;
  if (s.catalog_gpu_id && *s.catalog_gpu_id != gpu.id) {
    c.gpu_matches = false;
    c.notes.push_back("the probe measured " + *s.catalog_gpu_id + ", not " + gpu.id +
                      "; not calibrated");
    return c;
  }
  if (auto g = gemm_for(s.gemm_flop_per_s, precision)) {
    c.efficiencies.measured_gemm_flop_per_s = *g;
    auto peak = dense_peak_flop_per_s(gpu, precision);
    c.notes.push_back(
        ratio(("GEMM " + std::string(precision_name(precision)) + " FLOP/s: measured").c_str(), *g,
              peak.ok() ? peak.value() : 0));
  } else {
    c.notes.push_back(std::string("no measured GEMM for ") + precision_name(precision) +
                      "; spec x efficiency kept");
  }
  // The low-precision recipes timed, each against the peak its element type runs at (MXFP8 at
  // fp8, NVFP4 at fp4), for the recipes that use them.
  for (const char* recipe : {"fp8", "mxfp8", "nvfp4"}) {
    const auto rate = s.gemm_flop_per_s.rate(recipe);
    if (!rate) continue;
    c.efficiencies.measured_recipe_gemm_flop_per_s[recipe] = *rate;
    const char* peak_key = std::string(recipe) == "nvfp4" ? "fp4" : "fp8";
    auto peak = gpu.peak_dense_flops_per_s.find(peak_key);
    c.notes.push_back(ratio(("GEMM " + std::string(recipe) + " FLOP/s: measured").c_str(), *rate,
                            peak == gpu.peak_dense_flops_per_s.end() ? 0 : peak->second));
  }
  if (precision == Precision::fp32 && s.gemm_flop_per_s.tf32) {
    // cuDNN runs FP32 convolutions on TF32 tensor cores (PyTorch's default) where the GPU has them.
    c.efficiencies.measured_tf32_gemm_flop_per_s = *s.gemm_flop_per_s.tf32;
  }
  if (s.hbm_copy_bytes_per_s) {
    c.efficiencies.measured_hbm_bytes_per_s = *s.hbm_copy_bytes_per_s;
    c.notes.push_back(ratio("HBM copy bytes/s: measured", *s.hbm_copy_bytes_per_s,
                            gpu.memory_bandwidth_bytes_per_s));
  }
  if (s.allreduce_busbw_bytes_per_s && s.node_count > 1) {
    // A ring across nodes runs at the pace of the network between them.
    c.efficiencies.measured_inter_busbw_bytes_per_s = *s.allreduce_busbw_bytes_per_s;
    char b[160];
    std::snprintf(b, sizeof b,
                  "all-reduce bus bytes/s across %lld nodes: measured %.4g (used between nodes)",
                  static_cast<long long>(s.node_count), *s.allreduce_busbw_bytes_per_s);
    c.notes.push_back(b);
  } else if (s.allreduce_busbw_bytes_per_s) {
    c.efficiencies.measured_intra_busbw_bytes_per_s = *s.allreduce_busbw_bytes_per_s;
    c.notes.push_back(ratio("all-reduce bus bytes/s: measured", *s.allreduce_busbw_bytes_per_s,
                            gpu.nvlink_bandwidth_bytes_per_s / 2));
  }
  return c;
}

}  // namespace gpuplan
