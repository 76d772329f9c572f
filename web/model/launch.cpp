#include "model/launch.h"

#include <algorithm>
#include <string>

namespace gpuplan::web {

LaunchFormat framework_launch_format(Framework framework) {
  switch (framework) {
    case Framework::megatron:
    case Framework::megatron_bridge:
      return LaunchFormat::megatron;
    case Framework::deepspeed:
      return LaunchFormat::deepspeed;
    case Framework::hf_trainer:
      return LaunchFormat::accelerate;
    case Framework::none:
    case Framework::torchtitan:
    case Framework::fsdp:
      break;
  }
  return LaunchFormat::torchrun;
}

LaunchFormat shown_launch_format(std::optional<LaunchFormat> picked, const Evaluation* ev) {
  if (picked) return *picked;
  return ev ? framework_launch_format(ev->query.request.setup.framework) : LaunchFormat::torchrun;
}

Result<std::string> estimate_launch_config(const Evaluation& ev, LaunchFormat format) {
  // As cmd_estimate.cpp does: the estimate's resolved batches on its GPUs and nodes.
  const Setup& setup = ev.query.request.setup;
  return emit_launch_config(
      launch_inputs(ev.model, setup, ev.estimate, ev.gpu ? ev.gpus : setup.dp, ev.query.nodes),
      format);
}

Result<std::string> plan_launch_config(const Model& model, const Plan& plan, LaunchFormat format) {
  return emit_launch_config(launch_inputs(model, plan), format);
}

const Plan* launch_plan(const PlanResult& plans, int index) {
  if (plans.plans.empty()) return nullptr;
  const size_t i = index < 0 ? 0 : static_cast<size_t>(index);
  return &plans.plans[std::min(i, plans.plans.size() - 1)];
}

S launch_fill_in(LaunchFormat format, int nodes) {
  const bool many = nodes > 1;
  switch (format) {
    case LaunchFormat::torchrun:
      return many ? S::launch_fill_torchrun_nodes : S::launch_fill_torchrun;
    case LaunchFormat::accelerate:
      return many ? S::launch_fill_accelerate_nodes : S::launch_fill_accelerate;
    case LaunchFormat::deepspeed:
      return many ? S::launch_fill_deepspeed_nodes : S::launch_fill_deepspeed;
    case LaunchFormat::megatron:
      return many ? S::launch_fill_megatron_nodes : S::launch_fill_megatron;
  }
  return S::launch_fill_torchrun;
}

}  // namespace gpuplan::web
