#pragma once
// The planner: search GPU x instance x node count x data/tensor/pipeline parallelism x ZeRO
// stage x micro-batch x checkpointing, keep what fits in memory and within the limits, rank by
// cost or time, and return the Pareto front of time against cost.

#include <cstdint>
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
  double min_gpu_memory_bytes = 0;
  int max_nodes = kDefaultMaxNodes;
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
// deadline or budget.
Result<PlanResult> plan(const Catalog& catalog, const Model& model, const PlanQuery& query);

}  // namespace gpuplan
