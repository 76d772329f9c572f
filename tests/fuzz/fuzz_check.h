#pragma once
// What every fuzz target checks besides "no crash, no leak, no undefined behaviour": cheap
// invariants of what the core returns. A failed check prints what broke and aborts, so libFuzzer
// keeps the input as a crash artifact. Compiled once (fuzz_check.cpp) for all targets.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/estimate.h"
#include "gpuplan/request.h"
#include "gpuplan/timing.h"

#define FUZZ_CHECK(cond)                                                                      \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::fprintf(stderr, "fuzz invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)

namespace gpuplan::fuzz {

inline bool finite_nonneg(double x) {
  return std::isfinite(x) && x >= 0;
}

// The bundled catalog, loaded once per process.
const Catalog& catalog();

// An error a user would see: a known code and a non-empty message.
void check_error(const Error& e);

// Every number of an estimate is finite and >= 0, the memory terms add up, and the batch
// arithmetic holds.
void check_estimate(const Estimate& e, const Setup& s);
// Every term of a step time is finite and >= 0; the step itself takes some time.
void check_step_time(const StepTime& t);
// Finite, non-negative, and cost = expected time x price.
void check_run_cost(const RunCost& c, double usd_per_hour);

// Whether nlohmann/json can write these strings (valid UTF-8) without throwing.
bool json_writable(const std::vector<std::string>& strings);

// Estimates `model` under `s`; when that succeeds checks the estimate and its JSON report and,
// given a GPU, the step time on `gpus` of them and the cost of a 1e9-token run.
void exercise(const Model& model, const Setup& s, const Gpu* gpu, int gpus = 1);

}  // namespace gpuplan::fuzz
