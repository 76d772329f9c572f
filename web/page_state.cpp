#include "page_state.h"

#include <algorithm>

#include "gpuplan/catalog.h"
#include "gpuplan/evaluate.h"

namespace gpuplan::web {
namespace {

// The planner's node limit the page starts with (the core's default is for the CLI).
constexpr int kPageMaxNodes = 8;

std::optional<Error> read_tab(const std::string& value, Tab& tab) {
  for (Tab t : {Tab::results, Tab::plans, Tab::hardware, Tab::benchmarks}) {
    if (value == tab_name(t)) {
      tab = t;
      return std::nullopt;
    }
  }
  return make_error(Errc::invalid_argument,
                    "--tab: '" + value + "' is not one of results, plans, hardware, benchmarks");
}

}  // namespace

const char* tab_name(Tab t) {
  switch (t) {
    case Tab::results: return "results";
    case Tab::plans: return "plans";
    case Tab::hardware: return "hardware";
    case Tab::benchmarks: return "benchmarks";
  }
  return "results";
}

PageState default_page_state() {
  PageState s;
  s.request.model = "gpt2-small";
  s.request.setup.global_batch = 8;
  s.request.setup.precision = Precision::amp_bf16;
  s.run.tokens = 1e9;
  return s;
}

Result<PageState> page_state_from_query(const std::string& query) {
  auto args = query_to_args(query);
  if (!args.ok()) return args.error();
  PageState s = default_page_state();
  if (args.value().empty()) return s;
  // "tab" is the page's own key; every other key is the core's (the CLI's).
  Args core_args;
  for (const auto& kv : args.value()) {
    if (kv.first != "tab") {
      core_args.push_back(kv);
    } else if (auto err = read_tab(kv.second, s.tab)) {
      return *err;
    }
  }
  auto parsed = parse_query(core_args);
  if (!parsed.ok()) return parsed.error();
  const Query& q = parsed.value();
  s.request = q.request;
  if (s.request.model.empty()) s.request.model = default_page_state().request.model;
  s.custom = q.custom;
  if (!q.gpu.empty()) s.gpu = q.gpu;
  s.gpus = q.gpus > 0 ? q.gpus : 1;
  s.instance = q.instance;
  s.nodes = q.nodes > 0 ? q.nodes : 1;
  s.run = q.run;
  s.pricing = q.pricing;
  s.region = q.region;
  s.provider = q.provider;
  s.compliance = q.compliance;
  s.objective = q.objective;
  s.deadline_hours = q.deadline_hours;
  s.budget_usd = q.budget_usd;
  s.max_nodes = q.max_nodes > 0 ? q.max_nodes : kPageMaxNodes;
  return s;
}

Query page_query(const PageState& s) {
  Query q;
  q.request = s.request;
  q.custom = s.custom;
  if (!s.instance.empty()) {
    q.instance = s.instance;
    q.nodes = s.nodes != 1 ? s.nodes : 0;
  } else {
    q.gpu = s.gpu;
    q.gpus = s.gpus != 1 ? s.gpus : 0;
  }
  q.run = s.run;
  q.pricing = s.pricing;
  q.region = s.region;
  q.provider = s.provider;
  q.compliance = s.compliance;
  q.objective = s.objective;
  q.deadline_hours = s.deadline_hours;
  q.budget_usd = s.budget_usd;
  q.max_nodes = s.max_nodes != kPageMaxNodes ? s.max_nodes : 0;
  return q;
}

std::string page_state_to_query(const PageState& s) {
  // The link's format version first; links written before it had none and still open.
  Args a = {{"v", std::to_string(kQuerySchemaVersion)}};
  for (auto& kv : query_to_key_values(page_query(s))) a.push_back(std::move(kv));
  if (s.tab != Tab::results) a.emplace_back("tab", tab_name(s.tab));
  return args_to_query(a);
}

Result<Model> resolve_model(const Catalog& catalog, const PageState& s) {
  return gpuplan::resolve_model(catalog, page_query(s));
}

}  // namespace gpuplan::web
