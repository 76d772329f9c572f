#pragma once
// Runnable launch configurations for a plan or an estimate: a `torchrun` command line with the
// PyTorch FSDP/DDP settings, an `accelerate` config YAML and a DeepSpeed JSON, carrying the
// plan's GPU and node counts, micro-batch, gradient accumulation, ZeRO stage (FSDP sharding
// strategy), precision and activation checkpointing. Pure: text in, text out.
//
// Covered: data parallelism with ZeRO 0-3 / FSDP. A plan with tensor or pipeline parallelism
// needs Megatron-LM-style model code that none of these launchers configures, so it is an
// Error, never a config that would silently run another plan.

#include <cstdint>
#include <optional>
#include <string>

#include "gpuplan/estimate.h"
#include "gpuplan/plan.h"
#include "gpuplan/result.h"

namespace gpuplan {

enum class LaunchFormat { torchrun, accelerate, deepspeed };
// "torchrun", "accelerate", "deepspeed" and back.
const char* launch_format_name(LaunchFormat f);
std::optional<LaunchFormat> parse_launch_format(const std::string& s);

// What a launch config states, as resolved by the estimate or chosen by the planner.
struct LaunchInputs {
  std::string model;  // for the header comment
  int nodes = 1;
  int gpus_per_node = 1;
  Setup setup;                   // precision, zero_stage, checkpointing, dp/tp/pp
  int64_t micro_batch = 1;       // per GPU
  int64_t grad_accum_steps = 1;  // micro-batches per optimizer step on each replica
  int64_t global_batch = 1;      // = micro_batch x grad_accum_steps x dp
};

// From an estimate of `gpus` GPUs on `nodes` nodes (the estimate's resolved batches).
LaunchInputs launch_inputs(const std::string& model, const Setup& setup, const Estimate& e,
                           int gpus, int nodes);
// From a planner result.
LaunchInputs launch_inputs(const std::string& model, const Plan& plan);

// The config text in `format`; an Error names what cannot be expressed (tensor/pipeline
// parallelism, inference, a batch that does not divide).
Result<std::string> emit_launch_config(const LaunchInputs& in, LaunchFormat format);

// Narrows a planner query to the layouts `format` can express (tensor and pipeline parallelism
// of 1: data parallelism with ZeRO/FSDP), so `plan --emit` ranks only plans it can emit. An
// Error when the query already fixes a degree the launcher cannot run (names the key).
std::optional<Error> restrict_to_launcher(PlanQuery& query, LaunchFormat format);

}  // namespace gpuplan
