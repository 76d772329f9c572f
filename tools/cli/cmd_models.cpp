// gpuplan models [--json]: the model zoo.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace gpuplan::cli {

int cmd_models(Args args) {
  const bool json = take_flag(args, "json");
  if (!args.empty()) return usage_error("models: unknown option --" + args.front().first);
  auto catalog = load_embedded_catalog();
  if (!catalog.ok()) return fail(catalog.error());
  if (json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& m : catalog.value().models) {
      out.push_back(
          {{"id", m.id},
           {"name", m.name},
           {"kind", m.kind == ModelKind::transformer ? "transformer" : "graph"},
           {"task", m.task},
           {"aliases", m.aliases},
           {"source",
            {{"title", m.source.title}, {"url", m.source.url}, {"date", m.source.date}}}});
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  for (const auto& m : catalog.value().models) {
    std::printf("%-16s %-32s %s\n", m.id.c_str(), m.name.c_str(), m.task.c_str());
  }
  return 0;
}

}  // namespace gpuplan::cli
