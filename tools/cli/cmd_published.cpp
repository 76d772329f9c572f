// gpuplan published [--json]: every published measurement (data/published) beside gpuplan's
// prediction for the same setup, with the error per row; the site's Benchmarks page is made
// from the --json form. (The rows matching one estimate: Evaluation::published.)
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "gpuplan/embedded_data.h"
#include "gpuplan/published.h"

namespace gpuplan::cli {

int cmd_published(Args args) {
  const bool json = take_flag(args, "json");
  if (!args.empty()) return usage_error("published: unknown option --" + args.front().first);
  auto catalog = load_embedded_catalog();
  if (!catalog.ok()) return fail(catalog.error());
  const auto rows = compare_published(catalog.value(), catalog.value().published);
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
    for (const auto& t : catalog.value().published) {
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
