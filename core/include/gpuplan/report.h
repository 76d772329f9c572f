#pragma once
// Machine-readable results: the JSON the CLI prints with --json and the page mirrors into the
// DOM. Field names are stable; docs/cli.md documents each one.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gpuplan/cost.h"
#include "gpuplan/estimate.h"
#include "gpuplan/evaluate.h"
#include "gpuplan/plan.h"
#include "gpuplan/timing.h"
#include "gpuplan/model.h"
#include "gpuplan/request.h"
#include "gpuplan/serve_plan.h"

namespace gpuplan {

// One estimate as a JSON object (pretty-printed when indent >= 0).
std::string estimate_to_json(const Model& model, const Request& request, const Estimate& e,
                             int indent = 2);

// Step time, price and run cost as JSON objects ("time", "cost" of `gpuplan estimate --json`).
std::string step_time_to_json(const StepTime& t, int indent = -1);
std::string run_cost_to_json(const PriceQuote& price, const RunCost* cost, int instances,
                             int indent = -1);
// A planner result as JSON, and as a table.
std::string plan_to_json(const PlanResult& r, int indent = 2);
std::string plan_to_text(const PlanResult& r);
// A plan's expert-parallel, virtual-stage and context-parallel degrees and its hybrid shard
// group when it uses them (" ep8 vp2 shard8"), after the dp/tp/pp it is shown with.
std::string extra_degrees(const Setup& s);
// Step time and cost as aligned lines (appended to estimate_to_text).
std::string time_to_text(const StepTime& t, const PriceQuote* price, const RunCost* cost);

// `gpuplan estimate --json`: schema_version, the estimate, and with hardware the fit, step time
// (spec and calibrated) and cost. The page's exports carry the same fields.
std::string evaluation_to_json(const Evaluation& ev, int indent = 2);
// `gpuplan estimate --json` in full: evaluation_to_json with the measured-run comparison, the
// published runs of the setup (an array whenever a GPU is set) and, with a price, the total in the
// query's currency (`rules` convert it). The CLI prints it; the page's Results export writes it.
std::string evaluation_report_json(const Evaluation& ev, const PricingRules& rules, int indent = 2);
// `gpuplan serve --json`: the model, the 24 hourly rates, every ranked option (replica, rate,
// latency at the highest rate, fleet, costs, notes) and the plan's notes. The CLI prints it; the
// page's Serving export writes it.
std::string serve_plan_to_json(const std::string& model, const LoadCurve& curve,
                               const ServePlan& plan, int indent = 2);
// A currency amounts are shown in beside USD: USD per unit and where that rate comes from.
struct ShownCurrency {
  std::string currency = "USD";  // "USD" or "CNY"
  double usd_per_unit = 1;
  FactSource rate_source;  // empty for USD
};
// `currency` ("usd"/"USD" or "cny"/"CNY") at pricing_rules.json's one sourced rate (usd_per_cny),
// the rate the page converts every amount by; an error without a rate or for another currency.
Result<ShownCurrency> shown_currency(const std::string& currency, const PricingRules& rules);
// `gpuplan serve --json` and the page's Serving export: serve_plan_to_json with the currency and
// its rate stated at the top as plan_to_json states it (shown_currency; its source, URL and date
// null for USD) and, in another currency than USD, each cost's amounts in it
// (shown_per_month_fixed, shown_per_month_autoscaled, shown_per_million_output_tokens,
// shown_currency).
std::string serve_plan_to_json(const std::string& model, const LoadCurve& curve,
                               const ServePlan& plan, const ShownCurrency& shown, int indent = 2);
// `gpuplan plan --json` (and the page's Plans export): plan_to_json with each plan's cost (plans
// and pareto) also in the shown currency (shown_currency, total_in_shown_currency: usd_total at
// shown.usd_per_unit, USD included) and the rate stated at the top as serve_plan_to_json states it
// (shown_currency; its source, URL and date null for USD). The USD fields are plan_to_json's.
std::string plan_to_json(const PlanResult& r, const ShownCurrency& shown, int indent = 2);
// evaluation_to_json of a share link's query ("model=gpt2-small&gpu=a100-sxm4-80gb&tokens=1e9"),
// or {"schema_version": 1, "error": MESSAGE}: what the page hands to JavaScript, so a test can
// compare the page's time and cost with `gpuplan estimate --json` for the same keys.
std::string evaluate_link_json(const Catalog& catalog, std::string_view link, int indent = -1);
// The same as aligned lines: the estimate, the fit advice, step time, price and cost.
std::string evaluation_to_text(const Evaluation& ev);
// "fits: needs 41.2 GB per GPU (likely 38.9-43.6 GB, the 80 % memory band), <gpu> gives 85.9 GB"
std::string fit_line(const FitVerdict& f, const std::string& gpu_id);
// "step time 1.71 s, likely 1.45-1.97 s (80 % band of held-out error); rests on N validated runs
// of this kind (...) from S sources; band from R runs of K sources (pool)"
std::string band_line(double step_s, const ErrorBand& band, const RunGround& ground);
// A serving option's bands in one line: the replica's rate and its latencies at the query's
// percentile (50, 90 or 99), each likely range, and the evidence the rate band rests on.
std::string serve_band_line(const ServeOption& o, double percentile);
// A run's ground as JSON: kind, precision, parallel, arch, gpus.
nlohmann::ordered_json ground_json(const RunGround& g);

// The same estimate as aligned human-readable lines.
std::string estimate_to_text(const Model& model, const Estimate& e);

// "1.23 GB", "456 MB": decimal units for display.
std::string format_bytes(double bytes);
// "3.14e+23" style for FLOPs, with three significant digits.
std::string format_flops(double flops);

}  // namespace gpuplan
