#pragma once
// One call under every face. evaluate() chains what the CLI and the page used to chain each on
// their own: resolve the workload, fill the defaults, estimate memory and FLOPs, build the work
// profile, time a step on the cluster, quote a price, cost the run, and again with a probe
// file's measurements. The CLI, the page, the benches and the fuzzers call it, so the same query
// gives the same time and cost everywhere.

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/accuracy.h"
#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/estimate.h"
#include "gpuplan/measured_run.h"
#include "gpuplan/plan.h"
#include "gpuplan/published.h"
#include "gpuplan/keys.h"
#include "gpuplan/query.h"
#include "gpuplan/result.h"
#include "gpuplan/timing.h"

namespace gpuplan {

// One term of the per-GPU memory, in the order every face shows them.
struct MemoryTerm {
  const char* key;    // stable id: "weights", "optimizer", "kv_cache", ...
  const char* label;  // for people: "optimizer states", "KV cache", ...
  double bytes = 0;
};
// The terms of `m` in display order (they add up to m.total()).
std::vector<MemoryTerm> memory_terms(const MemoryBytes& m);

// Whether the estimate fits the GPU, and if not, what to change (by the largest term).
struct FitReport {
  bool fits = true;
  double needed_bytes = 0;  // per GPU
  double gpu_memory_bytes = 0;
  std::string largest_term;  // MemoryTerm::label of the largest term
  double largest_term_bytes = 0;
  std::string advice;  // empty when it fits
};
// `verdict` words the advice: over the capacity but within the memory error band is "tight", a
// run that may well fit, not "does not fit"; `mode` chooses what an inference can change.
FitReport fit_report(const MemoryBytes& m, const Gpu& gpu, Fit verdict, Mode mode);

// What evaluate() computed. Pointers point into the catalog it was given.
struct Evaluation {
  Query query;  // with every default filled in (the setup as estimated)
  Model model;  // the resolved workload
  Estimate estimate;
  const Gpu* gpu = nullptr;  // null: no hardware in the query (estimate only)
  const Instance* instance = nullptr;
  int gpus = 0;  // all nodes together
  FitReport fit;
  std::optional<StepTime> time;             // spec peak x data/assumptions.json efficiencies
  std::optional<PriceQuote> price;          // per instance, with an instance only
  std::optional<RunCost> cost;              // with a run length (usd 0 without an instance)
  std::optional<StepTime> time_calibrated;  // with the probe's measurements
  std::optional<RunCost> cost_calibrated;
  std::vector<std::string> calibration_notes;
  bool probe_gpu_matches = true;  // false: the probe measured another GPU model
  // The estimate stands but the hardware part failed (unsupported precision, no price in the
  // region, an impossible run length); the fields after `fit` that it needed stay empty.
  std::optional<Error> hardware_error;
  // The instance has no published price at all: the run is timed, not costed (`price` stays
  // empty and `cost` counts steps and hours only). A region or pricing kind without a price is
  // `hardware_error` instead: the user asked for it and can change it.
  std::optional<Error> price_error;
  // How far predictions of this family were from measured runs (gpuplan/accuracy.h): the fit
  // verdict allowing for the memory band, and the band around the step time, each with the
  // evidence it rests on (validated runs on this ground) and why it was widened, if it was.
  std::string family;
  RunGround ground;
  FitVerdict verdict;
  ErrorBand time_band;
  // Measured beside predicted: the published runs of this setup (catalog.published, matched by
  // match_published; with a GPU only), and the query's measured run against the step time.
  std::vector<PublishedComparison> published;
  std::optional<MeasuredComparison> measured_run;
};

// The model a query names: its config.json text, its custom model, or a zoo id (in that order).
Result<Model> resolve_model(const Catalog& catalog, const Query& query);

// What defaults are resolved for: evaluate() (the query's hardware) or the planner (which
// chooses the hardware and the parallelism, so the global batch cannot follow the GPUs).
enum class DefaultsFor { evaluate, plan };

// Fills every zero/empty default of `query` for `model`: nodes and GPUs, data parallelism (the
// GPUs left by tensor and pipeline parallelism unless --dp was given), the global batch (one
// sample per replica; the planner's kPlannerDefaultBatch), the dataset size (the model's), spot
// interruptions and restart time (data/assumptions.json), planner limits. With the key table
// (keys.cpp), the one place defaults are decided.
Result<Query> resolve_defaults(const Catalog& catalog, const Model& model, Query query,
                               DefaultsFor purpose = DefaultsFor::evaluate);

// The whole chain. Errors: an unknown model, GPU or instance, an invalid setup or parallelism.
// A micro-batch left unset ("auto") is the whole batch per replica when that fits the GPU, else
// the largest divisor of it that does (gradient accumulation makes up the rest).
Result<Evaluation> evaluate(const Catalog& catalog, const Query& query);

// The planner's query for `query` (its workload and limits, defaults resolved).
PlanQuery plan_query(const Catalog& catalog, const Model& model, const Query& query);

}  // namespace gpuplan
