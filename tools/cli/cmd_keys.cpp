// gpuplan keys [--json]: the key table (gpuplan/keys.h), every option of estimate, plan and
// serve with its type, bounds, default and help in English and Chinese; the docs site lists the
// share-link keys from it.
#include <cstdio>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "gpuplan/keys.h"

namespace gpuplan::cli {
namespace {

const char* type_name(KeyType t) {
  switch (t) {
    case KeyType::integer:
      return "integer";
    case KeyType::number:
      return "number";
    case KeyType::text:
      return "text";
    case KeyType::choice:
      return "choice";
    case KeyType::boolean:
      return "boolean";
    case KeyType::list:
      return "list";
  }
  return "text";
}

template <class T>
nlohmann::ordered_json row_json(const KeyRow<T>& r, const char* commands) {
  nlohmann::ordered_json j = {{"name", r.name},
                              {"commands", commands},
                              {"group", key_group_title(r.group)},
                              {"type", type_name(r.type)},
                              {"usage", key_usage(r)},
                              {"switch", r.is_switch},
                              {"default", r.default_text},
                              {"help", r.help_en},
                              {"help_zh", r.help_zh}};
  if (r.type == KeyType::integer || r.type == KeyType::number) {
    j["min"] = r.min;
    j["max"] = r.max;
  }
  if (r.type == KeyType::choice) j["choices"] = r.choices;
  return j;
}

// The commands that read a key of the query table: the planner's filters are plan's, the
// estimate's hardware is estimate's (plan refuses it), the rest both.
const char* query_key_commands(const QueryKey& r) {
  if (r.group == KeyGroup::planner) return "plan";
  for (const char* key : kEstimateHardwareKeys) {
    if (std::string_view(r.name) == key) return "estimate";
  }
  return "estimate, plan";
}

}  // namespace

int cmd_keys(Args args) {
  const bool json = take_flag(args, "json");
  if (!args.empty()) return usage_error("keys: unknown option --" + args.front().first);
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& r : query_key_rows()) out.push_back(row_json(r, query_key_commands(r)));
  for (const auto& r : serve_key_rows()) out.push_back(row_json(r, "serve"));
  if (json) {
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  for (const auto& k : out) {
    std::printf("%-30s %-14s %-10s %s\n", k["name"].get<std::string>().c_str(),
                k["commands"].get<std::string>().c_str(), k["type"].get<std::string>().c_str(),
                k["default"].get<std::string>().c_str());
  }
  return 0;
}

}  // namespace gpuplan::cli
