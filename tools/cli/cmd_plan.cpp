// gpuplan plan (--model ID | --hf-config FILE) [setup] (--tokens N | --epochs N --dataset-size N)
//   [--deadline-hours H] [--budget-usd B] [--objective cost|time] [--pricing P] [--provider P]
//   [--region R] [--compliance hipaa|gdpr|gov] [--min-gpu-memory-gb G] [--max-nodes N] [--top K] [--json]
#include <cstdio>

#include "cli.h"
#include "gpuplan/plan.h"
#include "gpuplan/report.h"

namespace gpuplan::cli {
namespace {

// The ranked plans with costs in `currency` (CNY at each price's own rate, or the catalog's);
// "~" marks an assumed price (a rule, not published).
std::string plans_in_currency(const PlanResult& r, const std::string& currency, const PricingRules& rules) {
  std::string out;
  char line[400];
  std::snprintf(line, sizeof line, "%-3s %-44s %5s %10s %14s %12s  %s\n", "#", "instance", "GPUs", "hours",
                (currency + " total").c_str(), (currency + "/hour").c_str(), "price");
  out += line;
  int rank = 1;
  std::vector<PriceQuote> quotes;
  for (const auto& p : r.plans) {
    auto rate = usd_per_currency_unit(currency, p.price, rules);
    if (!rate.ok()) return rate.error().message + "\n";
    quotes.push_back(p.price);
    std::snprintf(line, sizeof line, "%-3d %-44s %5d %10.4g %14.6g %12.4g  %s%s, %s\n", rank++, p.instance.c_str(), p.gpus,
                  p.cost.expected_hours, p.cost.usd_total / rate.value(), p.cost.usd_per_hour / rate.value(),
                  p.price.assumption ? "~ assumed: " : "published ", p.price.assumption ? p.price.rule.c_str() : p.price.currency.c_str(),
                  p.price.date.c_str());
    out += line;
  }
  out += "prices as of " + price_date_range(quotes).label() + "\n";
  for (const auto& n : r.notes) out += "note: " + n + "\n";
  return out;
}

}  // namespace

int cmd_plan(Args args) {
  const bool json = take_flag(args, "json");
  const std::string emit = take(args, "emit");
  PlanQuery q;
  auto run = take_run_options(args);
  if (!run.ok()) return fail(run.error());
  q.run = run.value().run;
  q.pricing = run.value().pricing;
  q.region = run.value().region;
  q.spot = run.value().spot;
  q.provider = take(args, "provider");
  q.compliance = take(args, "compliance");
  const std::string objective = take(args, "objective");
  if (objective == "time") q.objective = Objective::time;
  else if (!objective.empty() && objective != "cost") return fail({Errc::invalid_argument, "--objective: '" + objective + "' is not cost or time"});
  for (auto [key, out] : {std::pair<const char*, double*>{"deadline-hours", &q.deadline_hours},
                          {"budget-usd", &q.budget_usd}, {"min-gpu-memory-gb", &q.min_gpu_memory_bytes}}) {
    const std::string v = take(args, key);
    if (v.empty()) continue;
    auto x = parse_number(v, key);
    if (!x.ok()) return fail(x.error());
    *out = x.value();
  }
  q.min_gpu_memory_bytes *= 1e9;
  for (auto [key, out] : {std::pair<const char*, int*>{"top", &q.top_k}, {"max-nodes", &q.max_nodes}}) {
    const std::string v = take(args, key);
    if (v.empty()) continue;
    auto n = parse_int(v, key);
    if (!n.ok()) return fail(n.error());
    if (n.value() < 1 || n.value() > 1024) return fail({Errc::invalid_argument, std::string("--") + key + " must be between 1 and 1024"});
    *out = static_cast<int>(n.value());
  }
  auto catalog = load_embedded_catalog();
  if (!catalog.ok()) return fail(catalog.error());
  const Catalog& cat = catalog.value();
  if (auto err = resolve_spot_bucket(run.value(), cat)) return fail(*err);
  q.spot = run.value().spot;
  if (!q.provider.empty() && !cat.find_provider(q.provider)) {
    return fail({Errc::not_found, "--provider: unknown provider '" + q.provider + "'"});
  }
  auto workload = take_workload(args, cat);
  if (!workload.ok()) return fail(workload.error());
  q.request = workload.value().request;
  q.efficiencies = cat.efficiencies;
  q.input = cat.input;
  if (q.spot.restart_h == 0) q.spot.restart_h = cat.restart_s / 3600.0;
  if (q.spot.interruptions_per_hour == 0 && cat.pricing.spot_interruptions_per_hour) {
    q.spot.interruptions_per_hour = *cat.pricing.spot_interruptions_per_hour;
  }
  if (q.run.epochs > 0 && q.run.dataset_size == 0) q.run.dataset_size = static_cast<double>(workload.value().model.dataset_size);
  auto r = plan(cat, workload.value().model, q);
  if (!r.ok()) return fail(r.error());
  if (!emit.empty() && !r.value().plans.empty()) {
    return print_launch_config(emit, launch_inputs(workload.value().model.id, r.value().plans.front()));
  }
  if (!json && run.value().currency != "USD") {
    std::printf("%s", plans_in_currency(r.value(), run.value().currency, cat.pricing).c_str());
    return 0;
  }
  std::printf("%s", json ? (plan_to_json(r.value()) + "\n").c_str() : plan_to_text(r.value()).c_str());
  return 0;
}

}  // namespace gpuplan::cli
