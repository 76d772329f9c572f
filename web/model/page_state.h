#pragma once
// Everything the page's URL carries: the workload request (same keys as the CLI), the custom
// model editor, hardware, run length, pricing and planner filters, and the page's own keys (the
// open tab, the language, the Plans GPU filter and the plans compared). One function reads it,
// one writes it, so a shared link restores the page exactly.

#include <string>
#include <vector>

#include "gpuplan/cost.h"
#include "gpuplan/model.h"
#include "gpuplan/plan.h"
#include "gpuplan/query.h"
#include "gpuplan/request.h"

namespace gpuplan::web {

enum class Tab { results, plans, hardware, benchmarks, serving };
const char* tab_name(Tab t);

struct PageState {
  Request request;
  CustomModel custom;
  std::string gpu = "a100-sxm4-80gb";
  int gpus = 1;
  std::string instance;  // when set, the GPU and count come from it
  int nodes = 1;
  RunLength run;
  Pricing pricing = Pricing::on_demand;
  std::string region;
  std::string provider;  // planner and instance-table filter
  std::string compliance;
  std::string plan_gpu;              // Plans: only this GPU; "" = any
  std::vector<std::string> compare;  // Plans: up to 4 plans side by side, "instance*nodes"
  Objective objective = Objective::cost;
  double deadline_hours = 0;
  double budget_usd = 0;
  int max_nodes = 8;
  // The Serving tab's inputs (`gpuplan serve`'s options; the model is request.model).
  ServeRequest serve;
  Tab tab = Tab::results;
  std::string lang;  // "en" or "zh" when the link names a language; "" = the browser's
};

// The page's defaults (GPT-2 small, AMP bf16, batch 8 on one A100 80 GB; serving: 30
// requests/s of 1,500-token prompts and 300-token answers, first token within 1 s and 50 ms per
// token after, the example of issue 14).
PageState default_page_state();

// A link is a serving link when it opens the Serving tab or has a key only `gpuplan serve`
// takes (rate, prompt-tokens, ...). Its keys are then exactly `gpuplan serve`'s options (plus
// tab and lang): the model is shared with the calculator, the rest keeps the page's defaults.
bool is_serving_link(const Args& args);

// A key of a link that could not be used, and the message saying why.
struct LinkProblem {
  std::string key;   // "" when the link as a whole is malformed
  Error error;       // the core's, e.g. "--batch: -5 is out of range [1, 100000000]" (English)
  std::string used;  // what the page uses instead ("" when the link as a whole failed)
};

// A link read leniently: every good key is kept; each bad one is left at its default and noted.
// The keys other than the page's own (tab, lang, plan-gpu, compare) are read by the core's
// parse_query (the CLI's keys, bounds and messages), dropping a key it rejects and reading the
// rest again.
struct ParsedLink {
  PageState state;
  std::vector<LinkProblem> problems;
};
ParsedLink page_state_from_link(const std::string& query);

// URL query <-> state, strictly: the first bad key gives an Error naming it.
Result<PageState> page_state_from_query(const std::string& query);
std::string page_state_to_query(const PageState& s);

// The core query a state describes (what evaluate() and plan_query() take).
Query page_query(const PageState& s);

// The Model a state describes (zoo model or custom one); Error for an unknown id or an
// invalid custom description.
Result<Model> resolve_model(const Catalog& catalog, const PageState& s);

}  // namespace gpuplan::web
