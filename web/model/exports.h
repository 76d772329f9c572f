#pragma once
// The page's results as data: the JSON mirrored into the DOM for screen readers and tests, and
// the CSV and JSON exports. No ImGui here.

#include <string>

#include "model/page_model.h"

namespace gpuplan::web {

// The results mirror: state, estimate, time, cost, plans, upload, the core's notes and errors as
// the Results, Plans and Serving tabs show them (notes_shown), and `widgets_json` (an object of
// widget rectangles, or "" for none).
std::string results_json(const PageModel& m, const std::string& widgets_json);

// A file Export CSV or Export JSON offers: its name, MIME type and text.
struct ExportFile {
  std::string name;  // "gpuplan-plans.csv": the tab whose table it holds
  std::string mime;  // "text/csv", "application/json"
  std::string text;
};
enum class ExportKind { csv, json };
// What the tab on screen shows, as a file: Plans its plans, Serving its ranking, the other tabs
// the calculator's results (Results, and Hardware and Benchmarks, which show no result table of
// their own). The JSON is the CLI's for the same question (`gpuplan estimate|plan|serve --json`),
// written by the same core writers.
ExportFile export_file(const PageModel& m, ExportKind kind);

// Results: one quantity per line with its unit (CSV), and `gpuplan estimate --json`
// (evaluation_report_json), or {"schema_version": 1, "error": MESSAGE} when there is no estimate.
std::string results_csv(const PageModel& m);
std::string results_export_json(const PageModel& m);
// Plans: one row per plan with the table's columns, units in the headers (CSV; the cost in
// `money`'s currency, "cost_usd" or "cost_cny"), and `gpuplan plan --currency C --json`
// (plan_to_json with the page's shown currency: each cost adds shown_currency and
// total_in_shown_currency, the file the rate and its source), or {"error": MESSAGE} when there are
// no plans.
std::string plans_csv(const PlanResult& plans, const Money& money = {});
std::string plans_export_json(const PageModel& m);
// Serving: the ranking table, one row per option, the latencies at the SLO's `percentile` (CSV),
// and `gpuplan serve --json` (serve_plan_to_json with the page's shown currency: the rate stated at
// the top as shown_currency, USD included; in CNY each cost adds its amounts in CNY as shown_*), or
// {"error": MESSAGE} without a plan. The CSV's money is in `money`'s currency.
std::string serving_csv(const ServePlan& plan, double percentile, const Money& money = {});
std::string serving_export_json(const PageModel& m);

// The estimate JSON for a CLI-style query computed by the core without any UI (exported to
// JavaScript so tests can compare the page's core with the native CLI).
std::string estimate_query_json(const Catalog& catalog, const std::string& query);

// Times the core inside this build (the page's WebAssembly, for bench/bench_web.mjs): "estimate"
// (LLaMA-2-7B, ZeRO-3 on 8 GPUs, median of 7 x 2000 calls), "plan" (LLaMA-2-7B, batch 512,
// sequence 4096, 1e11 tokens, up to 64 nodes, median of 5) or "serve" (the serving issue's
// example over every GPU and instance of `catalog`, median of 3; needs `serving`), the cases
// bench/bench_estimate.cpp, bench/bench_planner.cpp and bench/bench_serve.cpp time natively.
// JSON: kind, median_ms, candidates (plan), options, gpus and instances (serve).
std::string bench_json(const Catalog& catalog, const std::string& kind,
                       const ServingAssumptions* serving = nullptr);

}  // namespace gpuplan::web
