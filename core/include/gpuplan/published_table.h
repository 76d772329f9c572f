#pragma once
// The data of published measurements (data/published/*.json, data/schema/published.schema.json):
// one table per source, its rows in gpuplan's terms. Apart from gpuplan/published.h (parsing,
// matching, predicting) so the Catalog can hold the tables (gpuplan/catalog.h includes this).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuplan/estimate.h"

namespace gpuplan {

// The schema version of data/published files this build reads.
inline constexpr int kPublishedSchemaVersion = 1;

// Where a table comes from: a file at a commit of a public repository.
struct PublishedSource {
  std::string repository, commit, path, section, url;
  std::string date;  // YYYY-MM-DD: the commit's date, or the measurement's where the page states it
};

// One measured run, in gpuplan's terms.
struct PublishedRow {
  std::string id, model, gpu, system;
  int num_gpus = 1;
  std::string task;  // train | infer | context | weights (the last two: memory rows)
  Precision precision = Precision::fp32;
  std::optional<Optimizer> optimizer;
  int64_t micro_batch = 1, global_batch = 1;
  int64_t seq_len = 0, resolution = 0;  // 0: not stated (the model's default)
  int zero_stage = 0;
  Checkpointing checkpointing = Checkpointing::none;
  MemoryFormat memory_format = MemoryFormat::automatic;
  std::string metric;  // samples_per_s_total | tokens_per_s_per_gpu | mfu | peak_memory_bytes
  double value = 0;
  std::optional<double> mfu;  // the publisher's MFU beside the metric, a fraction
  std::string notes;
  // The rest of the run's setup, named as the validation tables' optional columns
  // (gpuplan/validation.h: compile, grad_reduce, attention, dropout, fused_loss, max_positions,
  // gpus_per_node, network_gbps_per_node, ...), values as text.
  std::vector<std::pair<std::string, std::string>> setup;
};

// One data/published/<id>.json file.
struct PublishedTable {
  std::string id, title, publisher;
  PublishedSource source;
  std::vector<std::string> caveats;
  std::vector<PublishedRow> rows;
  std::vector<std::pair<std::string, std::string>> left_out;  // (row id, reason)
};

}  // namespace gpuplan
