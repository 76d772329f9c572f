#pragma once
// Ranking instances for a serving load: for each instance type (or GPU) and tensor-parallel
// degree, one replica's highest rate within the SLO, the fleet for the day's curve and its cost;
// at once (plan_serving) or one replica per step (the page's sliced search). Implemented in
// core/src/serving/serve_plan.cpp.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuplan/accuracy.h"
#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/model.h"
#include "gpuplan/result.h"
#include "gpuplan/serve_assumptions.h"
#include "gpuplan/serve_disagg.h"
#include "gpuplan/serve_fleet.h"
#include "gpuplan/serve_replica.h"
#include "gpuplan/serve_sim.h"

namespace gpuplan {

// What to plan a serving fleet for.
struct ServeQuery {
  ServeConfig config;      // tp 0: try 1, 2, 4, 8 up to the instance's GPU count
  ServeWorkload workload;  // rate_per_s unused here: the curve's peak is the rate
  Slo slo;
  LoadCurve curve;  // 24 hourly rates
  ScalingPolicy policy;
  std::string gpu;  // filters (catalog ids); empty: any
  std::string instance;
  std::string provider;
  std::string region;
  int top_k = 10;
  DisaggQuery disagg;  // also plan prefill and decode on separate pools (--disaggregate)
};
// The workload with a dataset's own lengths resolved (--lengths sharegpt: ShareGPT's, whose
// means the per-request figures use).
ServeWorkload resolved_workload(const ServeWorkload& w, const ServingAssumptions& a);
// The query's replica configuration at tp x pp GPUs, its speculative draft model looked up.
ServeConfig replica_config(const Catalog& catalog, const ServeQuery& q, int tp, int pp);
// One ranked option: an instance type, its replica and fleet, and the costs.
struct ServeOption;
// The replica's layout as the tables show it: "4" (tensor parallel), "2x4" (tp x pipeline stages).
std::string replica_layout(const ServeOption& o);

struct ServeOption {
  std::string instance;  // empty: a GPU with no priced instance (--gpu alone)
  std::string provider;
  std::string gpu;
  int gpus_per_instance = 0;
  int tp = 1;
  int pp = 1;        // pipeline stages, each on tp GPUs
  int machines = 1;  // machines a replica's stages span (each stage inside one)
  ReplicaMemory memory;
  int64_t max_seqs = 0;               // at the mean prompt + output lengths
  double prefill_s = 0;               // one mean prompt alone (its cached prefix not computed)
  double prefill_computed_share = 1;  // of a prompt's tokens: those not in the prefix cache
  double decode_step_s = 0;           // batch of one at the mean context (with the drafter's steps)
  double tokens_per_step = 1;         // a sequence's tokens per decode step (speculative decoding)
  double itl_s = 0;                   // decode_step_s / tokens_per_step: one token, alone
  RateSearch rate;
  // How far serving runs like this one were from their prediction (gpuplan/accuracy.h, from the
  // catalog's validated serving rows): the throughput band and where the replica's measured
  // maximum rate would likely lie; the latency band and where the latencies at that rate would
  // (at the query's percentile). No band (rows 0): no validated serving runs to rest on.
  RunGround ground;  // the replica as a serving run's ground (weights, tp, GPU, engine)
  ErrorBand rate_band;
  Range max_rate_range;  // requests/s per replica
  ErrorBand latency_band;
  Range ttft_range_s, tpot_range_s;
  // The on-demand autoscaled monthly bill with the fleet sized again at each end of the rate's
  // band (value: at the predicted rate; low at the band's high rate); zeros without a band or a
  // price.
  Range usd_per_month_autoscaled_range;
  FleetPlan fleet;
  PriceQuote price;              // on-demand, per instance
  std::vector<FleetCost> costs;  // on-demand first
  std::vector<std::string> notes;
};
struct ServePlan {
  std::vector<ServeOption> options;  // cheapest autoscaled on-demand fleet first
  int evaluated = 0;
  std::vector<std::string> notes;
  // The serving features the query turned on, as given (for reports of the plan).
  double prefix_hit_rate = 0;
  SpecDecoding spec;
  // --disaggregate: the best option's instance with prefill and decode on separate pools, or why
  // it cannot be planned (the co-located plan stands either way).
  std::optional<DisaggPlan> disaggregated;
  std::optional<Error> disaggregated_error;
};
// What a serving query names, looked up in the catalog: the model and the GPU's catalog id
// (aliases resolved; empty when none is named). An unknown model, GPU or instance is an Error
// with the message id `gpuplan estimate` uses (evaluate.unknown_model[_like],
// evaluate.unknown_gpu[_like], evaluate.unknown_instance), so the page shows it translated.
struct ServeTargets {
  // The model, with the weights its name states as its checkpoint's ("...-FP8", "-AWQ").
  Model model;
  std::string gpu;
  const Model* draft = nullptr;  // the speculative draft model (--spec-draft-model), if named
};
Result<ServeTargets> find_serve_targets(const Catalog& catalog, const std::string& model,
                                        const std::string& gpu, const std::string& instance,
                                        const std::string& draft_model = "");

// Evaluates every matching instance (or the GPU alone) and ranks them. An Error when none
// works, saying why: the model does not fit even at the largest TP tried (by how much), or the
// latency targets are below what an idle replica achieves (by how much).
Result<ServePlan> plan_serving(const Catalog& catalog, const ServingAssumptions& serving,
                               const Model& model, const ServeQuery& query);

// The same ranking in steps, so a page can spread the work over frames: one (GPU, TP) replica
// evaluated per step (the expensive part: a rate search of simulations), then the ranking.
// plan_serving() is start, every step, then finish: the results are the same.
// A replica to evaluate: its GPU and layout (tp GPUs in each of pp pipeline stages).
// A replica's GPUs: tp x pp of one GPU kind, in one machine (or NVLink domain), or with its
// pipeline stages over `machines` machines whose hosts hand the hidden state on over the network
// at network_bytes_per_s (per host).
struct ReplicaLayout {
  std::string gpu;
  int tp = 1, pp = 1;
  int machines = 1;
  double network_bytes_per_s = 0;
  bool operator==(const ReplicaLayout& o) const {
    return gpu == o.gpu && tp == o.tp && pp == o.pp && machines == o.machines &&
           network_bytes_per_s == o.network_bytes_per_s;
  }
};
struct ServeEvaluation {
  ReplicaLayout layout;
  std::optional<ServeOption> option;  // nullopt: the replica does not fit (see error)
  Error error = make_error(Errc::invalid_argument, "");  // empty message: none
};
// The error bands one search has computed, by family and ground: the replicas of one size on
// GPUs of one architecture share their ground, so each band is computed once per search.
class BandMemo {
 public:
  const ErrorBand& band(const std::vector<AccuracyRow>& rows, const std::string& family,
                        const RunGround& ground);

 private:
  const std::vector<AccuracyRow>* rows_ = nullptr;  // the table the bands were computed from
  std::map<std::string, ErrorBand> bands_;
};
struct ServeSearch {
  std::vector<ReplicaLayout> pending;  // to evaluate, in order
  size_t next = 0;                     // the next entry of `pending`
  std::vector<ServeEvaluation> done;   // in evaluation order
  BandMemo bands;
  bool finished() const { return next >= pending.size(); }
  double progress() const {
    return pending.empty() ? 1.0 : static_cast<double>(next) / static_cast<double>(pending.size());
  }
};
// The replicas the query's instances need, none evaluated yet.
ServeSearch start_serve_search(const Catalog& catalog, const ServeQuery& query);
// Evaluates the next replica; false when there was none left.
bool step_serve_search(const Catalog& catalog, const ServingAssumptions& serving,
                       const Model& model, const ServeQuery& query, ServeSearch& search);
// Prices every instance with the replicas evaluated (evaluating any still pending) and ranks
// them, as plan_serving() does.
Result<ServePlan> finish_serve_search(const Catalog& catalog, const ServingAssumptions& serving,
                                      const Model& model, const ServeQuery& query,
                                      ServeSearch& search);

}  // namespace gpuplan
