#pragma once
// The Serving tab's computation, with no ImGui in it: the core's serving plan (plan_serving's
// steps: one replica's rate search per slice, then the ranking) and the latency-vs-rate curve of
// the first option's replica (one simulation per slice). App runs one slice per frame
// (model/slices.h), so the page never freezes.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/serve_plan.h"
#include "model/i18n.h"
#include "model/page_state.h"
#include "model/slices.h"

namespace gpuplan::web {

// One replica at one request rate: the SLO's percentile of TTFT and TPOT.
struct LatencyPoint {
  double rate_per_s = 0;
  double ttft_s = 0;
  double tpot_s = 0;
  bool saturated = false;  // the queue grew through the run
};

// What the Serving tab shows.
struct ServeResults {
  std::string model;  // the model's catalog id (an alias resolved), as `gpuplan serve` names it
  LoadCurve curve;    // 24 hourly rates
  std::optional<ServePlan> plan;
  std::vector<LatencyPoint> latency;  // the first option's replica, rising rates
  Error error;                        // the core's (with its message id) or the page's
  double progress = 1;                // share of the work done (1: none under way)
  SliceStats slices;                  // how the job spread over frames (work: slices)
};

// A serving plan under way.
struct ServeJob {
  Model model;
  ServeQuery query;
  ServeSearch search;
  bool ranked = false;
  std::optional<ReplicaModel> replica;  // the first option's, for the latency curve
  std::vector<double> rates;            // of the latency curve
  size_t next_rate = 0;
  bool done = false;
};

// Starts a job for the state's serving inputs; errors (a model not in the zoo, unknown GPU or
// instance, a bad load curve) go to out.error and leave the job done.
std::unique_ptr<ServeJob> start_serve_job(const Catalog& catalog, const PageState& state,
                                          ServeResults& out);
// Runs one slice: a replica of the search, the ranking, or one point of the latency curve.
void step_serve_job(const Catalog& catalog, const ServingAssumptions& serving, ServeJob& job,
                    ServeResults& out);

// The 24 rates picking "Typed" starts from: the day shown, or while the tab shows an error (no
// day), the day the request's preset and peak rate give.
std::string typed_curve_seed(const ServeRequest& r, const ServeResults& shown);

// The page's string for a pricing model of fleet_costs() ("on-demand", "reserved base + ...").
S fleet_pricing_string(const std::string& pricing);

}  // namespace gpuplan::web
