#pragma once
// The page's screen areas. Each is a function of the page's model that draws with ImGui and
// returns what the user asked for; app.cpp applies the actions (shared/notes/layout.md).

#include "model/page_model.h"

namespace gpuplan::web {

UiActions draw_toolbar(const PageModel& m);   // title, copy link, exports, upload (ui_sidebar.cpp)
UiActions draw_sidebar(const PageModel& m);   // workload, setup, parallelism, hardware, run
UiActions draw_results(const PageModel& m);   // memory, FLOPs, time, cost
UiActions draw_plans(const PageModel& m);     // the planner's ranked plans and Pareto chart
UiActions draw_hardware(const PageModel& m);  // instances with prices, GPUs
UiActions draw_benchmarks(const PageModel& m);  // an uploaded probe file, calibration
UiActions draw_serving(const PageModel& m);     // serving inputs, ranked fleets, charts

// The launch config box Results (the estimate) and Plans (a chosen plan) share, for a run on
// `nodes` nodes (ui_launch.cpp).
void draw_launch(const PageModel& m, const Result<std::string>& config, int nodes, UiActions& a);

}  // namespace gpuplan::web
