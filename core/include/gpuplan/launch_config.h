#pragma once
// Runnable launch configurations for a plan or an estimate: a `torchrun` command line with the
// PyTorch FSDP/DDP settings, an `accelerate` config YAML and a DeepSpeed JSON, carrying the
// plan's GPU and node counts, micro-batch, gradient accumulation, ZeRO stage (FSDP sharding
// strategy), precision and activation checkpointing; and a Megatron-LM command line with the
// whole layout (tensor, pipeline with virtual stages, context, expert parallelism), its recipe,
// recompute, overlaps, MoE dispatcher and CUDA graphs. Pure: text in, text out.
//
// torchrun, accelerate and DeepSpeed cover data parallelism with ZeRO 0-3 / FSDP: a plan with
// tensor, pipeline, context or expert parallelism needs Megatron-LM-style model code none of them
// configures, so it is an Error there, never a config that would silently run another plan.

#include <cstdint>
#include <optional>
#include <string>

#include "gpuplan/estimate.h"
#include "gpuplan/model.h"
#include "gpuplan/plan.h"
#include "gpuplan/result.h"

namespace gpuplan {

enum class LaunchFormat { torchrun, accelerate, deepspeed, megatron };
// "torchrun", "accelerate", "deepspeed", "megatron" and back.
const char* launch_format_name(LaunchFormat f);
std::optional<LaunchFormat> parse_launch_format(const std::string& s);

// What a launch config states, as resolved by the estimate or chosen by the planner.
struct LaunchInputs {
  std::string model;  // for the header comment
  int layers = 0;     // transformer blocks (Megatron's pipeline split); 0 for other models
  int nodes = 1;
  int gpus_per_node = 1;
  Setup setup;                   // precision, zero_stage, checkpointing, dp/tp/pp
  int64_t micro_batch = 1;       // per GPU
  int64_t grad_accum_steps = 1;  // micro-batches per optimizer step on each replica
  int64_t global_batch = 1;      // = micro_batch x grad_accum_steps x dp
  int64_t seq_len = 0;           // tokens per sample; 0: not stated
  bool moe = false;              // the model has experts
  bool decoder_lm = false;       // a decoder-only language model (Megatron's pretrain_gpt.py)
};

// From an estimate of `gpus` GPUs on `nodes` nodes (the estimate's resolved batches).
LaunchInputs launch_inputs(const Model& model, const Setup& setup, const Estimate& e, int gpus,
                           int nodes);
// From a planner result.
LaunchInputs launch_inputs(const Model& model, const Plan& plan);

// The config text in `format`; an Error names what cannot be expressed (tensor/pipeline
// parallelism, inference, a batch that does not divide).
Result<std::string> emit_launch_config(const LaunchInputs& in, LaunchFormat format);

// Narrows a planner query to the layouts `format` can express (torchrun, accelerate, DeepSpeed:
// tensor, pipeline, context and expert parallelism of 1; Megatron-LM: all; hybrid sharding at
// the ZeRO stages each can say), so `plan --emit` ranks only plans it can emit. An Error when the
// query already fixes a degree the launcher cannot run (names the key).
std::optional<Error> restrict_to_launcher(PlanQuery& query, LaunchFormat format);

}  // namespace gpuplan
