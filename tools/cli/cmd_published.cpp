// gpuplan published [--json]: every published measurement (data/published) beside gpuplan's
// prediction for the same setup, with the error per row; the site's Benchmarks page is made
// from the --json form. Also the lookup `gpuplan estimate` shows beside its prediction.
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "gpuplan/embedded_data.h"
#include "gpuplan/published.h"

namespace gpuplan::cli {

std::vector<PublishedComparison> published_beside(const Catalog& catalog, const Model& model,
                                                  const Gpu& gpu, const Setup& setup,
                                                  const Estimate& e, const StepTime* time) {
  auto tables = load_published(embedded_data_files(), catalog);
  std::vector<PublishedComparison> out;
  if (!tables.ok()) return out;  // the catalog test loads the same files and fails loudly
  for (const auto& run : match_published(tables.value(), published_query(model, gpu, setup, e))) {
    out.push_back(compare_run(run, model, e, time));
  }
  return out;
}

int cmd_published(Args args) {
  const bool json = take_flag(args, "json");
  if (!args.empty()) return usage_error("published: unknown option --" + args.front().first);
  auto catalog = load_embedded_catalog();
  if (!catalog.ok()) return fail(catalog.error());
  auto tables = load_published(embedded_data_files(), catalog.value());
  if (!tables.ok()) return fail(tables.error());
  const auto rows = compare_published(catalog.value(), tables.value());
  double sum = 0;
  int predicted = 0;
  for (const auto& c : rows) {
    if (c.predicted) sum += std::fabs(c.error), ++predicted;
  }
  const double mape = predicted ? sum / predicted : 0;
  if (json) {
    nlohmann::ordered_json j;
    j["rows"] = nlohmann::ordered_json::array();
    for (const auto& c : rows)
      j["rows"].push_back(nlohmann::ordered_json::parse(published_comparison_json(c)));
    j["predicted"] = predicted;
    j["not_predicted"] = static_cast<int>(rows.size()) - predicted;
    j["mape"] = mape;
    j["tables"] = nlohmann::ordered_json::array();
    for (const auto& t : tables.value()) {
      j["tables"].push_back({{"id", t.id},
                             {"title", t.title},
                             {"publisher", t.publisher},
                             {"url", t.source.url},
                             {"date", t.source.date},
                             {"rows", t.rows.size()},
                             {"caveats", t.caveats}});
    }
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  for (const auto& c : rows)
    std::printf("%-40s %s\n", c.run.row.id.c_str(), published_line(c).c_str());
  std::printf("%d rows predicted, %d not (reason given per row); mean absolute error %.1f%%\n",
              predicted, static_cast<int>(rows.size()) - predicted, mape * 100);
  return 0;
}

}  // namespace gpuplan::cli
