// Predicted vs measured peak GPU memory (tests/validation/memory_dev.csv, from Hugging Face's
// BERT-large measurements on a V100-SXM2-16GB, or the file given, in the format that
// tools/convert_hf_memory.py writes); prints each row, the rows it skipped, and the MAPE.
// The same as `gpuplan validate FILE`, kept as a bench so `make bench` prints every figure.
#include "bench_util.h"
#include "gpuplan/report.h"
#include "gpuplan/validation.h"

int main(int argc, char** argv) {
  const gpuplan::Catalog c = bench::catalog();
  const std::string path = argc > 1 ? argv[1] : "tests/validation/memory_dev.csv";
  auto report = gpuplan::validate_memory_csv(c, bench::read(path), path);
  if (!report.ok()) {
    std::printf("%s\n", report.error().message.c_str());
    return 1;
  }
  std::printf("%-5s %-15s %-8s %10s %10s %8s\n", "id", "model", "mode", "measured", "predicted",
              "error");
  for (const auto& v : report.value().rows) {
    std::printf("%-5s %-15s %-8s %10s %10s %+7.1f%%\n", v.id.c_str(), v.model.c_str(),
                v.mode.c_str(), gpuplan::format_bytes(v.measured_bytes).c_str(),
                gpuplan::format_bytes(v.predicted_bytes).c_str(), 100 * v.error);
  }
  for (const auto& [id, why] : report.value().skipped)
    std::printf("%-5s skipped: %s\n", id.c_str(), why.c_str());
  std::printf("memory MAPE %.1f%% over %zu rows\n", 100 * report.value().mape,
              report.value().rows.size());
  return 0;
}
