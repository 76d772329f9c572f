#pragma once
// Checking predictions against measured throughput: a CSV of published measurements, each row
// predicted by the core and compared. Columns (header required, in this order):
//   id,model,gpu,num_gpus,precision,batch_size_per_gpu,seq_len_or_resolution,task,metric,value
// model and gpu are catalog ids or aliases; task is train or infer; metric is one of
// samples_per_s_total, tokens_per_s_per_gpu, mfu.

#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/result.h"
#include "gpuplan/timing.h"

namespace gpuplan {

struct MeasuredRow {
  std::string id;
  std::string model;
  std::string gpu;
  int num_gpus = 1;
  std::string precision;
  int64_t batch_size_per_gpu = 1;
  int64_t seq_len_or_resolution = 0;
  std::string task;    // train | infer
  std::string metric;  // samples_per_s_total | tokens_per_s_per_gpu | mfu
  double value = 0;
  int line = 0;        // 1-based line in the file
};

// Parses the CSV; errors name the line and column.
Result<std::vector<MeasuredRow>> parse_measured_csv(std::string_view text, const std::string& where);

struct ValidatedRow {
  MeasuredRow row;
  double predicted = 0;
  double error = 0;    // (predicted - measured) / measured
  bool fits = true;    // predicted memory fits the GPU
};

struct ValidationReport {
  std::vector<ValidatedRow> rows;
  double mape = 0;     // mean absolute percentage error over rows, as a fraction
};

// Predicts every row; a row that cannot be predicted (unknown id, bad setup) is an Error
// naming its id and line.
Result<ValidationReport> validate_measurements(const Catalog& catalog, const std::vector<MeasuredRow>& rows,
                                               const Efficiencies& eff);

}  // namespace gpuplan
