#pragma once
// Helpers shared by the case files: budgets per mode, size ladders, rows from timings.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../harness.h"

namespace gpuplan::probe {

inline constexpr int64_t kMiB = int64_t(1) << 20;
inline constexpr int64_t kGiB = int64_t(1) << 30;

// Rounds to 4 significant digits, so every serialiser prints the same digits (probe notes, 4).
inline double round4(double x) {
  if (x == 0 || !std::isfinite(x)) return x;
  const double scale = std::pow(10.0, 3 - std::floor(std::log10(std::fabs(x))));
  return std::round(x * scale) / scale;
}

// A passed row with rates work/t per timed iteration: median, min and max of the rates.
inline Row rate_row(const std::string& case_name, std::optional<int> gpu, const Measured& m,
                    double work_per_iteration, const char* unit, nlohmann::ordered_json params) {
  std::vector<double> rates;
  for (double t : m.seconds) rates.push_back(work_per_iteration / std::max(t, 1e-12));
  Stats s = stats_of(rates);
  s.median = round4(s.median);
  s.min = round4(s.min);
  s.max = round4(s.max);
  params["warmup_iterations"] = m.it.warmup;
  params["timed_iterations"] = m.it.timed;
  params["timer"] = "cuda_events";
  Row r;
  r.case_name = case_name;
  r.gpu = gpu;
  r.params = std::move(params);
  r.unit = unit;
  r.stats = s;
  return r;
}

// Measurement budgets: --quick keeps one H100 under 20 s, --full under 90 s.
inline Budget budget_for(bool full, double quick_timed_s, double full_timed_s) {
  Budget b;
  b.warmup_s = full ? 0.5 : 0.15;
  b.timed_s = full ? full_timed_s : quick_timed_s;
  b.max_single_s = full ? 2.0 : 0.6;
  b.min_warmup = 2;
  b.min_timed = full ? 10 : 5;
  b.max_timed = full ? 200 : 50;
  return b;
}

// Registration, one function per case file.
void add_device_properties_case(std::vector<std::unique_ptr<Case>>& out);
void add_gemm_cases(std::vector<std::unique_ptr<Case>>& out);
void add_hbm_cases(std::vector<std::unique_ptr<Case>>& out);
void add_host_device_cases(std::vector<std::unique_ptr<Case>>& out);
void add_p2p_case(std::vector<std::unique_ptr<Case>>& out);
void add_allreduce_case(std::vector<std::unique_ptr<Case>>& out);

}  // namespace gpuplan::probe
