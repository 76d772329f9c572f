#pragma once
// Serving predictions against published serving measurements: a CSV with the columns of
// measured_serving_dev.csv (found by header name, any order): id, source_kind, model, gpu,
// num_gpus, tp, precision, framework, input_len, output_len, concurrency_or_batch, request_rate,
// metric, value, notes; optional: source, dataset. Implemented in
// core/src/serving/serve_validation.cpp.

#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "gpuplan/accuracy.h"
#include "gpuplan/catalog.h"
#include "gpuplan/result.h"
#include "gpuplan/serve_assumptions.h"

namespace gpuplan {

bool is_serving_csv(std::string_view text);

// The families serving errors are pooled by (a validation row's group): what `gpuplan serve`'s
// replica rate and its latencies at that rate are measured as.
inline constexpr const char* kServingThroughputGroup = "output tokens/s";
inline constexpr const char* kServingLatencyGroup = "TTFT/TPOT at rate";
// The band family of a group: attention-DP replicas a family of their own (their step is timed
// differently).
std::string serving_band_family(const std::string& group, bool attention_dp);
// The ground of a serving run (gpuplan/accuracy.h): a decoder, its weight format, tensor
// parallel or single, the GPU's architecture (gpu null: not compared), the replica's GPUs, the
// engine.
RunGround serving_run_ground(const Model* model, const std::string& precision, int tp,
                             const Gpu* gpu, int gpus, Runtime runtime);

struct ServingRow {
  std::string id, source_kind, model, gpu, precision, framework, metric, notes;
  std::string source;  // the citation (optional column): its source_key is the row's source
  std::string input_len, output_len, num_gpus, tp, batch, rate;  // as written
  // The dataset (optional column): "ShareGPT" (any case) with both lengths empty is drawn as
  // vLLM's benchmark samples ShareGPT (gpuplan/sharegpt.h); another dataset without lengths is
  // skipped, named.
  std::string dataset;
  double value = 0;
  int line = 0;
};
struct ServingPrediction {
  ServingRow row;
  std::string group;  // "output tokens/s", "batch-1 decode tokens/s", "TTFT/TPOT at rate", "other"
  double predicted = 0;
  double error = 0;  // (predicted - measured) / measured
  // The error band, as for training rows (gpuplan/accuracy.h), from the other sources' validated
  // serving rows (the catalog's, data/accuracy.json, and the file's own): family =
  // serving_band_family(group), ground = serving_run_ground (weights format, tp, GPU
  // architecture, GPUs, engine); the measured value's range from it, in the row's unit. A row of
  // no stated source is a new source: every validated row counts.
  std::string family;
  std::string source;  // source_key of row.source ("" when the file has no source column)
  RunGround ground;
  ErrorBand band;
  Range measured_range;
  bool in_band = false;
};
struct ServingReport {
  std::vector<ServingPrediction> rows;
  std::vector<std::pair<std::string, std::string>> skipped;  // (id, reason)
  // Mean absolute percentage error (fraction) and row count by metric, source and group.
  std::vector<std::tuple<std::string, double, int>> by_metric, by_source, by_group;
  BandCoverage coverage;  // per source (source_key), per family (group) and overall
};
// Predicts what gpuplan can express: max-throughput rows as a burst at the batch the KV cache
// allows (or the static batch given), online rows by simulation at their request rate, batch-1
// decode rows; lists the rest with the reason. An Error for a malformed file.
Result<ServingReport> validate_serving_csv(const Catalog& catalog,
                                           const ServingAssumptions& serving, std::string_view text,
                                           const std::string& where);

}  // namespace gpuplan
