#pragma once
// The planner: search GPU x instance x node count x data/tensor/pipeline parallelism x ZeRO
// stage x micro-batch x checkpointing, keep what fits in memory and within the limits, rank by
// cost or time, and return the Pareto front of time against cost. At once (plan) or one
// instance type per slice (start_plan_search, step_plan_search, finish_plan_search), so a page
// can spread a long search over frames.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/estimate.h"
#include "gpuplan/query.h"
#include "gpuplan/request.h"
#include "gpuplan/timing.h"

namespace gpuplan {

// What to plan for. The request fixes the workload (model, precision, optimizer, sequence
// length or resolution, global batch); the planner chooses the hardware and parallelism.
struct PlanQuery {
  Request request;
  RunLength run;
  Pricing pricing = Pricing::on_demand;
  Objective objective = Objective::cost;
  double deadline_hours = 0;  // 0: none
  double budget_usd = 0;      // 0: none
  std::string provider;       // filters; empty: any
  std::string region;
  std::string compliance;  // "hipaa", "gdpr" or "gov"; empty: any
  std::string gpu;         // only instances of this GPU (catalog id); empty: any
  double min_gpu_memory_bytes = 0;
  // Fixed parallel degrees (the user's --tp, --pp, or what a launcher can express); 0: the
  // planner tries every degree the model and the instance allow.
  int tp = 0;
  int pp = 0;
  int ep = 0;  // mixture-of-experts models: expert-parallel ranks
  int vp = 0;  // virtual pipeline stages per rank (with pp > 1)
  int cp = 0;  // context-parallel ranks; searched for sequences long enough to split
  // The ZeRO stages hybrid sharding (request.setup.dp_shard, else one host's GPUs) is tried with:
  // bit z for stage z. restrict_to_launcher keeps the ones the launcher can say.
  unsigned hybrid_zero_stages = 0b1110;
  int max_nodes = kDefaultMaxNodes;
  // The limit is the default: an NVLink domain sold only whole (an NVL72 rack's 18 hosts) is
  // still tried once.
  bool max_nodes_auto = false;
  int top_k = kDefaultTopK;
  Efficiencies efficiencies;
  InputAssumptions input;
  SpotAssumptions spot;
};

// One ranked option.
struct Plan {
  std::string instance;  // instance id
  std::string provider;
  std::string gpu;  // GPU id
  int nodes = 1;
  int gpus = 1;
  Setup setup;         // the chosen parallelism, micro-batch, ZeRO stage, checkpointing
  MemoryBytes memory;  // per GPU
  double gpu_memory_bytes = 0;
  StepTime time;
  PriceQuote price;  // per instance
  RunCost cost;
  bool pareto = false;
};

struct PlanResult {
  std::vector<Plan> plans;    // best first, one per (instance, nodes), at most top_k
  std::vector<Plan> pareto;   // time-vs-cost front, fastest first
  int64_t candidates = 0;     // configurations evaluated
  int64_t fitting = 0;        // of which fit in GPU memory
  int64_t within_limits = 0;  // of which also meet the deadline and budget
  std::vector<std::string> notes;
};

// Runs the search. When nothing qualifies the Error says which limit binds: filters, memory,
// deadline or budget (or, with tp/pp fixed, that no instance can lay them out).
Result<PlanResult> plan(const Catalog& catalog, const Model& model, const PlanQuery& query);

// The same search in slices: one instance type (every node count and layout on it) per slice.
// plan() is start, every step, then finish: the result is the same. The search keeps copies of
// the model and the query; the catalog must outlive it.
struct PlanSearchState;  // the caches and the best plan per (instance, nodes) so far (plan.cpp)
struct PlanSearch {
  std::vector<size_t> pending;  // catalog.instances that pass the filters, in catalog order
  size_t next = 0;              // the next entry of `pending`: slices run so far
  int64_t candidates = 0;       // configurations evaluated so far (the work done)
  std::shared_ptr<PlanSearchState> state;
  bool finished() const;  // every slice run, or one failed (finish says how)
  double progress() const {
    return pending.empty() ? 1.0 : static_cast<double>(next) / static_cast<double>(pending.size());
  }
};
// Checks the query and the workload (an Error as plan() gives it) and lists the instance types.
Result<PlanSearch> start_plan_search(const Catalog& catalog, const Model& model,
                                     const PlanQuery& query);
// Evaluates the next instance type; false when none was left.
bool step_plan_search(const Catalog& catalog, PlanSearch& search);
// Runs any slice still pending, then ranks: plan()'s result or its Error.
Result<PlanResult> finish_plan_search(const Catalog& catalog, PlanSearch& search);

}  // namespace gpuplan
