#pragma once
// The page's results as data: the JSON mirrored into the DOM for screen readers and tests, and
// the CSV and JSON exports. No ImGui here.

#include <string>

#include "model/page_model.h"

namespace gpuplan::web {

// The results mirror: state, estimate, time, cost, plans, upload, and `widgets_json` (an
// object of widget rectangles, or "" for none).
std::string results_json(const PageModel& m, const std::string& widgets_json);
// The JSON export (the mirror without widget rectangles, indented).
std::string export_json(const PageModel& m);
// The CSV export: one quantity per line with its unit.
std::string export_csv(const PageModel& m);

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
