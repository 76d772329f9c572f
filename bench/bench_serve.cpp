// Serving: predicted vs measured serving figures (tests/validation/serving_dev.csv, or the file
// given): MAPE per group (the targets), per metric and per source; then the time of the
// issue's example (30 req/s at peak, 1,500-token prompts, 300-token answers, TTFT 1 s, TPOT
// 50 ms, diurnal curve) ranked over every GPU and instance in the catalog.
#include <cstdio>

#include "bench_util.h"
#include "gpuplan/query.h"
#include "gpuplan/serve_plan.h"
#include "gpuplan/serve_validation.h"

int main(int argc, char** argv) {
  const gpuplan::Catalog c = bench::catalog();
  auto serving = gpuplan::serving_assumptions(gpuplan::embedded_data_files());
  if (!serving.ok()) {
    std::printf("%s\n", serving.error().message.c_str());
    return 1;
  }
  const std::string path = argc > 1 ? argv[1] : "tests/validation/serving_dev.csv";
  auto rep = gpuplan::validate_serving_csv(c, serving.value(), bench::read(path), path);
  if (!rep.ok()) {
    std::printf("%s\n", rep.error().message.c_str());
    return 1;
  }
  for (const auto& [name, table] :
       {std::pair<const char*, const std::vector<std::tuple<std::string, double, int>>*>{
            "group", &rep.value().by_group},
        {"metric", &rep.value().by_metric},
        {"source", &rep.value().by_source}}) {
    for (const auto& [key, mape, n] : *table)
      std::printf("serving MAPE by %-6s %-30s %6.1f%%  (%d rows)\n", name, key.c_str(), 100 * mape,
                  n);
  }
  std::printf("serving rows predicted %zu, skipped %zu (reasons: gpuplan validate %s)\n",
              rep.value().rows.size(), rep.value().skipped.size(), path.c_str());

  const gpuplan::ServeQuery q = gpuplan::serving_example_query();
  const gpuplan::Model* model = c.find_model(gpuplan::serving_example_request().model);
  if (!model) return 1;
  int options = 0;
  const double s = bench::median_seconds_per_call(
      [&] {
        auto p = gpuplan::plan_serving(c, serving.value(), *model, q);
        options = p.ok() ? static_cast<int>(p.value().options.size()) : -1;
      },
      3, 1);
  std::printf(
      "serve example (llama-3-70b, 30 req/s peak, 1500/300 tokens, TTFT 1 s, TPOT 50 ms, %zu GPUs, "
      "%zu instances): "
      "%.3f s, %d options\n",
      c.gpus.size(), c.instances.size(), s, options);
  return 0;
}
