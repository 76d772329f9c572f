// gpuplan plan (--model ID | --hf-config FILE) [setup] (--tokens N | --epochs N --dataset-size N)
//   [--deadline-hours H] [--budget-usd B] [--objective cost|time] [--pricing P] [--provider P]
//   [--region R] [--compliance hipaa|gdpr|gov] [--plan-gpu ID] [--min-gpu-memory-gb G]
//   [--max-nodes N] [--top K] [--currency usd|cny] [--tp N] [--pp N]
//   [--emit torchrun|accelerate|deepspeed|megatron] [--json]
// --json states the currency and its rate (shown_currency) and each cost also in it.
// A thin face over plan(): the query parser and plan_query() decide keys, bounds and defaults.
// The planner chooses the hardware: --gpu, --gpus, --instance and --nodes (the estimate's) are
// refused, --plan-gpu narrows. --tp and --pp, when given, fix the planner's degrees; --emit
// narrows the search to the layouts the launcher can express (restrict_to_launcher), so the top
// plan is one it can emit.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli.h"
#include "gpuplan/evaluate.h"
#include "gpuplan/plan.h"
#include "gpuplan/report.h"

namespace gpuplan::cli {
namespace {

// The ranked plans with costs in `currency` (CNY at each price's own rate, or the catalog's);
// "~" marks an assumed price (a rule, not published).
std::string plans_in_currency(const PlanResult& r, const std::string& currency,
                              const PricingRules& rules) {
  std::string out;
  char line[400];
  std::snprintf(line, sizeof line, "%-3s %-44s %5s %10s %14s %12s  %s\n", "#", "instance", "GPUs",
                "hours", (currency + " total").c_str(), (currency + "/hour").c_str(), "price");
  out += line;
  int rank = 1;
  std::vector<PriceQuote> quotes;
  for (const auto& p : r.plans) {
    auto rate = usd_per_currency_unit(currency, p.price, rules);
    if (!rate.ok()) return rate.error().message + "\n";
    quotes.push_back(p.price);
    std::snprintf(
        line, sizeof line, "%-3d %-44s %5d %10.4g %14.6g %12.4g  %s%s, %s\n", rank++,
        p.instance.c_str(), p.gpus, p.cost.expected_hours, p.cost.usd_total / rate.value(),
        p.cost.usd_per_hour / rate.value(), p.price.assumption ? "~ assumed: " : "published ",
        p.price.assumption ? p.price.rule.c_str() : p.price.currency.c_str(), p.price.date.c_str());
    out += line;
  }
  out += "prices as of " + price_date_range(quotes).label() + "\n";
  for (const auto& n : r.notes) out += "note: " + n + "\n";
  return out;
}

bool given(const Args& args, const char* key) {
  for (const auto& kv : args) {
    if (kv.first == key) return true;
  }
  return false;
}

}  // namespace

int cmd_plan(Args args) {
  const bool json = take_flag(args, "json");
  const std::string emit = take(args, "emit");
  std::optional<LaunchFormat> launcher;
  if (!emit.empty()) {
    launcher = parse_launch_format(emit);
    if (!launcher)
      return usage_error("--emit: '" + emit + "' is not torchrun, accelerate or deepspeed");
  }
  // Read before the parser takes them: a degree the user states is fixed, not searched.
  const bool tp_given = given(args, "tp"), pp_given = given(args, "pp");
  const bool ep_given = given(args, "ep"), vp_given = given(args, "vp");
  const bool cp_given = given(args, "cp");
  // The estimate's hardware is not the plan's (a link's gpu= is the Results tab's GPU).
  for (const char* key : kEstimateHardwareKeys) {
    if (given(args, key)) {
      return fail(make_error(Errc::invalid_argument, Msg::plan_estimate_hardware, {key}));
    }
  }
  auto query = take_query(args);
  if (!query.ok()) return fail(query.error());
  auto catalog = load_embedded_catalog();
  if (!catalog.ok()) return fail(catalog.error());
  const Catalog& cat = catalog.value();
  const Query& q = query.value();
  if (!q.provider.empty() && !cat.find_provider(q.provider)) {
    return fail(make_error(Errc::not_found, "--provider: unknown provider '" + q.provider + "'"));
  }
  auto model = resolve_model(cat, q);
  if (!model.ok()) return fail(model.error());
  PlanQuery pq = plan_query(cat, model.value(), q);
  if (tp_given) pq.tp = q.request.setup.tp;
  if (pp_given) pq.pp = q.request.setup.pp;
  if (ep_given) pq.ep = q.request.setup.ep;
  if (vp_given) pq.vp = q.request.setup.vp;
  if (cp_given) pq.cp = q.request.setup.cp;
  if (launcher) {
    if (auto err = restrict_to_launcher(pq, *launcher)) return fail(*err);
  }
  auto r = plan(cat, model.value(), pq);
  if (!r.ok()) return fail(r.error());
  if (!emit.empty() && !r.value().plans.empty()) {
    return print_launch_config(emit, launch_inputs(model.value(), r.value().plans.front()));
  }
  if (!json && q.currency != "USD") {
    std::printf("%s", plans_in_currency(r.value(), q.currency, cat.pricing).c_str());
    return 0;
  }
  if (json) {
    // Each cost also in the shown currency, at the one rate serve --currency states (USD too).
    auto shown = shown_currency(q.currency, cat.pricing);
    if (!shown.ok()) return fail(shown.error());
    std::printf("%s\n", plan_to_json(r.value(), shown.value()).c_str());
    return 0;
  }
  std::printf("%s", plan_to_text(r.value()).c_str());
  return 0;
}

}  // namespace gpuplan::cli
