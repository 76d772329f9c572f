#pragma once
// Disaggregated serving: prompts are prefilled on one pool of replicas and their keys and values
// sent to a second pool that decodes them (DistServe, Zhong et al., OSDI 2024; Splitwise, Patel et
// al., ISCA 2024), as NVIDIA Dynamo, SGLang's and vLLM's disaggregated prefill deploy it. Each pool
// is sized for its own target: the prefill pool for the TTFT less the KV transfer and the decode
// pool's first step, the decode pool for the TPOT. Implemented in
// core/src/serving/serve_disagg.cpp.

#include <string>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/model.h"
#include "gpuplan/result.h"
#include "gpuplan/serve_assumptions.h"
#include "gpuplan/serve_fleet.h"
#include "gpuplan/serve_sim.h"

namespace gpuplan {

struct ServeQuery;
struct ServeOption;

// One pool: its replicas' layout, one replica's highest rate within the pool's target, the fleet
// for the day's curve and its cost on the co-located option's instance.
struct DisaggPool {
  int tp = 1;
  RateSearch rate;
  FleetPlan fleet;
  std::vector<FleetCost> costs;  // on-demand first, as ServeOption::costs
};

struct DisaggPlan {
  std::string instance;  // the co-located plan's best option, whose instance both pools run on
  DisaggPool prefill, decode;
  double kv_bytes_per_request = 0;   // the prompt's keys and values, every layer
  double kv_transfer_s = 0;          // one prompt's, prefill replica to decode replica
  std::string kv_link;               // "NVLink" (one NVLink domain), "PCIe" (one host), "network"
  double first_decode_step_s = 0;    // the decode replica's first step over a received prompt
  double prefill_ttft_target_s = 0;  // the TTFT target less the transfer and the first step
  // The two pools' fixed and autoscaled on-demand bills, against the co-located option's.
  double usd_per_month_fixed = 0, usd_per_month_autoscaled = 0;
  double colocated_usd_per_month_fixed = 0, colocated_usd_per_month_autoscaled = 0;
  int gpus_fixed = 0, colocated_gpus_fixed = 0;  // GPUs of the fixed fleets
};

// The layouts asked for: --prefill-tp and --decode-tp (0: the co-located replica's tp).
struct DisaggQuery {
  bool on = false;
  int prefill_tp = 0;
  int decode_tp = 0;
};

// Plans the two pools on the instance of `colocated` (the co-located plan's best option) for the
// query's curve and targets. An Error when the instance has no price, the model does not fit a
// pool's replica, the KV transfer between hosts cannot be timed (no sourced network bandwidth),
// or the TTFT target leaves nothing after the transfer.
Result<DisaggPlan> plan_disaggregated(const Catalog& catalog, const ServingAssumptions& serving,
                                      const Model& model, const ServeQuery& query,
                                      const ServeOption& colocated);

}  // namespace gpuplan
