#pragma once
// Published measurements (data/published/*.json, data/schema/published.schema.json): public
// tables of measured throughput, MFU and peak memory, one file per source table, each row with
// the setup it was measured under. They are shown beside a matching prediction ("measured:
// 2,470 img/s (NVIDIA DeepLearningExamples, DGX A100, 1 x a100-sxm4-80gb; link)") and listed
// with gpuplan's prediction and error per row (`gpuplan published`, the site's Benchmarks page).
// Pure: the caller passes the file contents; no I/O.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/estimate.h"
#include "gpuplan/published_table.h"
#include "gpuplan/result.h"
#include "gpuplan/timing.h"

namespace gpuplan {

// A query matches a published run whose per-GPU micro-batch is within this fraction of the
// query's. Per-GPU throughput changes slowly with batch once the GPU is busy (DeepLearningExamples
// pick the batch that fills memory); further away the published figure is another operating point.
inline constexpr double kPublishedBatchTolerance = 0.25;

// Parses one file; errors name `where` and the field ("rows[3].precision: ...").
Result<PublishedTable> parse_published_json(std::string_view text, const std::string& where);

// Every "published/*.json" among `files` (others are ignored), checked: file name == id, row
// ids unique across tables, every row's GPU in `catalog` (a model may be absent: it is shown,
// not predicted). Sorted by id.
Result<std::vector<PublishedTable>> load_published(const std::vector<DataFile>& files,
                                                   const Catalog& catalog);

// What a prediction was made for, in the terms a published row states.
struct PublishedQuery {
  std::string model, gpu;  // catalog ids
  Mode mode = Mode::train;
  Precision precision = Precision::fp32;
  Checkpointing checkpointing = Checkpointing::none;
  int64_t micro_batch = 1;
  int64_t seq_len = 0, resolution = 0;
  int num_gpus = 1;
};
// The query of an estimate (resolved micro-batch, sequence length or resolution, GPU count).
PublishedQuery published_query(const Model& model, const Gpu& gpu, const Setup& setup,
                               const Estimate& e);

// A published row with its table's provenance.
struct PublishedRun {
  PublishedRow row;
  std::string table, publisher, url, date;
  std::string source;  // source_key of the table's document: its band leaves this source out
};
// The rows measured under the query's setup: same model, GPU, precision, mode, checkpointing and
// GPU count, the same sequence length or resolution where the row states one, and a per-GPU
// micro-batch within kPublishedBatchTolerance. Peak-memory rows match too.
std::vector<PublishedRun> match_published(const std::vector<PublishedTable>& tables,
                                          const PublishedQuery& q);

// The prediction in a row's metric: samples/s over all GPUs, tokens/s per GPU, MFU (fraction) or
// peak memory per GPU (bytes); nullopt when it needs a step time that is not given.
std::optional<double> predicted_metric(const PublishedRow& row, const Estimate& e,
                                       const StepTime* time);

// A published run beside gpuplan's prediction for the same setup.
struct PublishedComparison {
  PublishedRun run;
  std::optional<double> predicted;  // nullopt: not predicted (reason says why)
  double error = 0;                 // (predicted - measured) / measured
  std::string reason;
  std::string unit;  // "img/s", "samples/s", "tokens/s/GPU", "MFU", "bytes"
  // Where the measured value may lie given the prediction and its family's error band
  // (gpuplan/accuracy.h); nullopt where not predicted or the band has no rows.
  std::optional<Range> predicted_range;
};
// Predicts every row of every table as `gpuplan validate` would (one node of num_gpus GPUs).
std::vector<PublishedComparison> compare_published(const Catalog& catalog,
                                                   const std::vector<PublishedTable>& tables);
// The comparison of one matched run with an estimate's prediction.
PublishedComparison compare_run(const PublishedRun& run, const Model& model, const Estimate& e,
                                const StepTime* time);

// "2,470 img/s" / "1,007 tokens/s/GPU" / "41.3% MFU" / "14.9 GB": `value` in the unit of `c`.
std::string format_published_value(const PublishedComparison& c, double value);
// "measured: 2,470 img/s (NVIDIA DeepLearningExamples, DGX A100, 1 x a100-sxm4-80gb; URL);
// predicted 2,301 img/s (-6.8%)".
std::string published_line(const PublishedComparison& c);
// A comparison as a JSON object (for --json): measured, unit, predicted, error, source, link.
std::string published_comparison_json(const PublishedComparison& c, int indent = -1);

}  // namespace gpuplan
