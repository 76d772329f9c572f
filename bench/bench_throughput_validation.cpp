// Predicted vs measured training/inference throughput (tests/validation/throughput_dev.csv,
// NVIDIA DeepLearningExamples tables, or the file given) without a probe file; prints each row,
// the MAPE per model and task, and the rows it skipped with the reason.
#include <cmath>
#include <map>

#include "bench_util.h"
#include "gpuplan/validation.h"

int main(int argc, char** argv) {
  const gpuplan::Catalog c = bench::catalog();
  const std::string path = argc > 1 ? argv[1] : "tests/validation/throughput_dev.csv";
  auto rows = gpuplan::parse_measured_csv(bench::read(path), path, gpuplan::RowErrors::skip);
  if (!rows.ok()) {
    std::printf("%s\n", rows.error().message.c_str());
    return 1;
  }
  auto rep = gpuplan::validate_measurements(c, rows.value(), c.efficiencies);
  if (!rep.ok()) {
    std::printf("%s\n", rep.error().message.c_str());
    return 1;
  }
  std::map<std::string, std::pair<double, int>> by_group;
  for (const auto& v : rep.value().rows) {
    std::printf("%-5s %-14s %-15s %2d %-9s %4lld %-5s %10.4g %10.4g %+7.1f%%\n", v.row.id.c_str(), v.row.model.c_str(),
                v.row.gpu.c_str(), v.row.num_gpus, v.row.precision.c_str(),
                static_cast<long long>(v.row.batch_size_per_gpu), v.row.task.c_str(), v.row.value, v.predicted,
                100 * v.error);
    auto& g = by_group[v.row.model + " " + v.row.task];
    g.first += std::fabs(v.error);
    g.second += 1;
  }
  for (const auto& k : rep.value().skipped) std::printf("%-5s skipped: %s\n", k.row.id.c_str(), k.reason.c_str());
  for (const auto& [k, g] : by_group) std::printf("MAPE %-22s %6.1f%% (%d rows)\n", k.c_str(), 100 * g.first / g.second, g.second);
  std::printf("throughput MAPE %.1f%% over %zu rows\n", 100 * rep.value().mape, rep.value().rows.size());
  return 0;
}
