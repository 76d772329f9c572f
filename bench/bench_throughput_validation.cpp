// Predicted vs measured throughput without a probe file, over the development tables
// (tests/validation/throughput_dev.csv: NVIDIA DeepLearningExamples; tests/validation/llm_dev.csv:
// MosaicML llm-foundry; tests/validation/llm_scale_dev.csv: published runs at scale, MAPE per
// family, dense and MoE) or the files given. Prints each row, the MAPE per
// model and task (per GPU and metric for the LLM table), per accuracy family, each file's MAPE, and
// how many measured runs gpuplan would call "does not fit" or "tight".
#include <cmath>
#include <map>
#include <vector>

#include "bench_util.h"
#include "gpuplan/validation.h"

namespace {

struct Mape {
  double sum = 0;
  int rows = 0;
  void add(double error) {
    sum += std::fabs(error);
    ++rows;
  }
};

std::string group_of(const gpuplan::ValidatedRow& v) {
  if (v.row.metric == "mfu") return "MFU " + v.row.gpu;
  const bool sharded = v.family.find("/sharded") != std::string::npos;
  if (sharded && v.row.metric == "tokens_per_s_per_gpu") return "tokens/s " + v.row.gpu;
  return v.row.model + " " + v.row.task;
}

// The config.json files the rows name, relative to the CSV.
std::map<std::string, std::string> configs_of(const std::string& path,
                                              const std::vector<gpuplan::MeasuredRow>& rows) {
  const std::string folder = path.substr(0, path.find_last_of('/') + 1);
  std::map<std::string, std::string> out;
  for (const auto& r : rows)
    if (!r.config_json.empty()) out[r.config_json] = bench::read(folder + r.config_json);
  return out;
}

int validate_file(const gpuplan::Catalog& c, const std::string& path) {
  auto rows = gpuplan::parse_measured_csv(bench::read(path), path, gpuplan::RowErrors::skip);
  if (!rows.ok()) {
    std::printf("%s\n", rows.error().message.c_str());
    return 1;
  }
  auto rep = gpuplan::validate_measurements(c, rows.value(), c.efficiencies,
                                            configs_of(path, rows.value()));
  if (!rep.ok()) {
    std::printf("%s\n", rep.error().message.c_str());
    return 1;
  }
  std::map<std::string, Mape> by_group, by_family, by_kind;
  std::map<gpuplan::Fit, int> verdicts;
  Mape throughput, mfu;
  for (const auto& v : rep.value().rows) {
    std::printf("%-5s %-14s %-15s %2d %-9s %4lld %-5s %10.4g %10.4g %+7.1f%%\n", v.row.id.c_str(),
                v.row.model.c_str(), v.row.gpu.c_str(), v.row.num_gpus, v.row.precision.c_str(),
                static_cast<long long>(v.row.batch_size_per_gpu), v.row.task.c_str(), v.row.value,
                v.predicted, 100 * v.error);
    by_group[group_of(v)].add(v.error);
    if (v.row.metric == "mfu") mfu.add(v.error);
    if (v.row.metric != "mfu") {
      by_family[v.family].add(v.error);
      by_kind[v.moe ? "MoE" : "dense"].add(v.error);
      throughput.add(v.error);
      verdicts[v.fit] += 1;
    }
  }
  for (const auto& k : rep.value().skipped)
    std::printf("%-5s skipped: %s\n", k.row.id.c_str(), k.reason.c_str());
  for (const auto& [k, g] : by_group)
    std::printf("MAPE %-28s %6.1f%% (%d rows)\n", k.c_str(), 100 * g.sum / g.rows, g.rows);
  for (const auto& [k, g] : by_family)
    std::printf("MAPE family %-21s %6.1f%% (%d rows)\n", k.c_str(), 100 * g.sum / g.rows, g.rows);
  for (const auto& [k, g] : by_kind) {
    std::printf("%s: %s throughput MAPE %.1f%% (%d rows)\n", path.c_str(), k.c_str(),
                100 * g.sum / g.rows, g.rows);
  }
  std::printf(
      "%s: throughput MAPE %.1f%% over %d rows; measured runs called does not fit: %d, tight: %d\n",
      path.c_str(), 100 * throughput.sum / std::max(throughput.rows, 1), throughput.rows,
      verdicts[gpuplan::Fit::does_not_fit], verdicts[gpuplan::Fit::tight]);
  if (mfu.rows > 0) {
    std::printf("%s: MFU MAPE %.2f%% over %d rows\n", path.c_str(), 100 * mfu.sum / mfu.rows,
                mfu.rows);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const gpuplan::Catalog c = bench::catalog();
  std::vector<std::string> paths(argv + 1, argv + argc);
  if (paths.empty())
    paths = {"tests/validation/throughput_dev.csv", "tests/validation/llm_dev.csv",
             "tests/validation/llm_scale_dev.csv"};
  int rc = 0;
  for (const auto& p : paths) rc |= validate_file(c, p);
  return rc;
}
