#pragma once
// How far gpuplan's predictions are from measured runs: an error band for every predicted time
// and memory figure, and fit verdicts that allow for it. The bands come from data/accuracy.json,
// which tools/accuracy_bands.py writes from `gpuplan validate` over the development data
// (tests/validation/*.csv); a test fails when the file no longer matches the model.

#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/estimate.h"
#include "gpuplan/model.h"
#include "gpuplan/result.h"

namespace gpuplan {

// The signed errors of one family of validation rows, (predicted - measured) / measured, for
// throughput (time bands) or peak memory (memory bands).
struct ErrorBand {
  std::string family;  // "decoder/16-bit/sharded", ...; "all" for every row
  int rows = 0;        // 0: no data (the band is empty and says so)
  double low = 0;      // 10th percentile of the signed error
  double high = 0;     // 90th percentile
  double mape = 0;     // mean absolute error, as a fraction
};

struct AccuracyTable {
  std::vector<ErrorBand> time;    // from throughput rows
  std::vector<ErrorBand> memory;  // from peak-memory rows
  std::string generated;          // YYYY-MM-DD the file was written
};

// The family of a workload and setup: model kind (cnn, encoder, decoder), precision (fp32, 16-bit,
// fp8) and parallelism (single, data-parallel, sharded, model-parallel).
std::string accuracy_family(const Model& model, const Setup& setup);

// The band of the nearest family with data: the same family, else the same kind and precision,
// else the same kind, else "all"; an empty band (rows 0) when the table has none.
ErrorBand nearest_band(const std::vector<ErrorBand>& bands, const std::string& family);

// A predicted value with the range measured runs of its family fell in.
struct Range {
  double value = 0;
  double low = 0;
  double high = 0;
};

// A step time from a throughput band: measured time = predicted time x (1 + throughput error).
Range time_range_s(double predicted_s, const ErrorBand& band);
// Where the measured value of a predicted rate or size lies: measured = predicted / (1 + error).
Range measured_range(double predicted, const ErrorBand& band);
// A memory figure from a memory band: measured = predicted / (1 + error).
Range memory_range_bytes(double predicted_bytes, const ErrorBand& band);

enum class Fit { fits, tight, does_not_fit };
const char* fit_name(Fit fit);  // "fits", "tight", "does not fit"

struct FitVerdict {
  Fit fit = Fit::fits;
  Range memory_bytes;         // predicted per GPU, with its band
  double capacity_bytes = 0;  // what the GPU gives PyTorch
  double margin_bytes = 0;    // capacity - predicted (negative: over)
  ErrorBand band;             // the memory band it allowed for
};

// fits: even the band's high end is within capacity; does not fit: even its low end is over;
// tight: the capacity lies inside the band. A run that ran is never "does not fit" unless the
// prediction errs by more than its family ever did.
FitVerdict fit_verdict(double predicted_bytes, double capacity_bytes, const ErrorBand& memory_band);

// Parses data/accuracy.json.
Result<AccuracyTable> parse_accuracy_json(std::string_view text, const std::string& where);

}  // namespace gpuplan
