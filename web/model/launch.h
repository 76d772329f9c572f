#pragma once
// The launch config the Results tab shows for the estimate and the Plans tab for a chosen plan:
// the core's text (gpuplan/launch_config.h, what `gpuplan estimate|plan --emit` prints) or its
// error when the launcher cannot express the layout, and what the user must still fill in. No
// ImGui here.

#include "gpuplan/evaluate.h"
#include "gpuplan/launch_config.h"
#include "gpuplan/plan.h"
#include "gpuplan/result.h"
#include "model/i18n.h"

namespace gpuplan::web {

// The launchers in the order the page offers them.
inline constexpr LaunchFormat kLaunchFormats[] = {LaunchFormat::torchrun, LaunchFormat::accelerate,
                                                  LaunchFormat::deepspeed, LaunchFormat::megatron};

// The launcher a framework preset runs under, which the page shows until the user picks one:
// Megatron-LM's flags for megatron and megatron-bridge (Megatron-Core's training loop), DeepSpeed's
// config for deepspeed, Accelerate's for hf-trainer (transformers' Trainer runs under it), else
// torchrun.
LaunchFormat framework_launch_format(Framework framework);
// The launcher shown: the one picked, else the evaluated setup's framework's.
LaunchFormat shown_launch_format(std::optional<LaunchFormat> picked, const Evaluation* ev);

// `gpuplan estimate ... --emit FORMAT` for the evaluation: its GPUs (the instance's, or
// data-parallel degree without hardware) on its nodes.
Result<std::string> estimate_launch_config(const Evaluation& ev, LaunchFormat format);
// `gpuplan plan ... --emit FORMAT` for one of the plans (the CLI emits the first).
Result<std::string> plan_launch_config(const Model& model, const Plan& plan, LaunchFormat format);
// The plan the Plans tab's launch config is for: plans[index], the last when the list is
// shorter (a new search), null when there are none.
const Plan* launch_plan(const PlanResult& plans, int index);
// What the config leaves to the user (the script, the hosts and the first node's address on
// several nodes), in the page's words.
S launch_fill_in(LaunchFormat format, int nodes);

}  // namespace gpuplan::web
