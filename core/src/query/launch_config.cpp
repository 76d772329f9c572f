// Launch configurations for a plan or an estimate (see gpuplan/launch_config.h).
//
// Mapping, with where each name comes from:
// - ZeRO stage -> PyTorch FSDP ShardingStrategy (torch.distributed.fsdp docs): 3 = FULL_SHARD
//   (parameters, gradients, optimizer state), 2 = SHARD_GRAD_OP (gradients and optimizer state);
//   stage 1 (optimizer state only) has no FSDP strategy: DDP with ZeroRedundancyOptimizer
//   (torch.distributed.optim), and DeepSpeed's zero_optimization.stage 1 under accelerate.
// - Precision -> FSDP MixedPrecision / torch.autocast; accelerate's mixed_precision "no", "fp16",
//   "bf16", "fp8"; DeepSpeed's "bf16"/"fp16" sections (DeepSpeed config-json docs). "amp-*" keeps
//   fp32 parameters and reduces gradients in fp32; pure "bf16"/"fp16" reduces in that type.
// - DeepSpeed requires train_batch_size = micro x accumulation x world size (config-json docs).
#include "gpuplan/launch_config.h"
#include "gpuplan/precision.h"

#include <cstdio>
#include <utility>

#include <nlohmann/json.hpp>

namespace gpuplan {
namespace {

struct PrecisionNames {
  const char* accelerate;   // mixed_precision
  const char* torch_dtype;  // compute dtype, "" for fp32
  bool pure;                // parameters stored in the 16-bit type
};

PrecisionNames precision_names(Precision p) {
  switch (p) {
    case Precision::fp32:
      return {"no", "", false};
    case Precision::tf32:
      return {"no", "", false};
    case Precision::fp16:
      return {"fp16", "torch.float16", true};
    case Precision::bf16:
      return {"bf16", "torch.bfloat16", true};
    case Precision::amp_fp16:
      return {"fp16", "torch.float16", false};
    case Precision::amp_bf16:
      return {"bf16", "torch.bfloat16", false};
    // 16-bit compute weights over fp32 masters: FSDP MixedPrecision(param_dtype=...), DeepSpeed
    // bf16/fp16.
    case Precision::mixed_fp16:
      return {"fp16", "torch.float16", false};
    case Precision::mixed_bf16:
      return {"bf16", "torch.bfloat16", false};
    case Precision::fp8:
    case Precision::fp8_blockwise:
    case Precision::mxfp8:
    case Precision::nvfp4:
      return {"fp8", "torch.bfloat16", false};
  }
  return {"no", "", false};
}

const char* fsdp_strategy(int zero_stage) {
  return zero_stage >= 3 ? "FULL_SHARD" : "SHARD_GRAD_OP";
}

int world_size(const LaunchInputs& in) {
  return in.nodes * in.gpus_per_node;
}

std::string header(const LaunchInputs& in, const char* comment) {
  char buf[512];
  std::snprintf(
      buf, sizeof buf,
      "%s gpuplan launch config: %s on %d node(s) x %d GPU(s), %s, ZeRO %d, checkpointing %s\n"
      "%s micro-batch %lld per GPU x %lld accumulation x %d data-parallel = global batch %lld\n",
      comment, in.model.c_str(), in.nodes, in.gpus_per_node, precision_name(in.setup.precision),
      in.setup.zero_stage, checkpointing_name(in.setup.checkpointing), comment,
      static_cast<long long>(in.micro_batch), static_cast<long long>(in.grad_accum_steps),
      in.setup.dp, static_cast<long long>(in.global_batch));
  return buf;
}

std::string torchrun(const LaunchInputs& in) {
  const PrecisionNames p = precision_names(in.setup.precision);
  std::string s = header(in, "#");
  const int z = in.setup.zero_stage;
  // What the training script must set up; torchrun only starts the processes.
  if (z >= 2) {
    s += std::string("# model = FSDP(model, sharding_strategy=ShardingStrategy.") +
         fsdp_strategy(z) + ", auto_wrap_policy=<one unit per transformer block>";
    if (*p.torch_dtype) {
      s += std::string(",\n#     mixed_precision=MixedPrecision(param_dtype=") + p.torch_dtype +
           ", reduce_dtype=" + (p.pure ? p.torch_dtype : "torch.float32") +
           ", buffer_dtype=" + p.torch_dtype + ")";
    }
    s += ")\n";
  } else if (in.setup.dp > 1) {
    s += "# model = DistributedDataParallel(model, device_ids=[local_rank])\n";
    if (z == 1)
      s += "# optimizer = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=<your "
           "optimizer>)\n";
  }
  if (*p.torch_dtype && !p.pure)
    s += std::string("# forward under torch.autocast(\"cuda\", dtype=") + p.torch_dtype + ")\n";
  if (in.setup.precision == Precision::amp_fp16 || in.setup.precision == Precision::fp16) {
    s += "# loss scaling: torch.cuda.amp.GradScaler (ShardedGradScaler under FSDP)\n";
  }
  if (in.setup.precision == Precision::tf32)
    s += "# torch.backends.cuda.matmul.allow_tf32 = True; torch.backends.cudnn.allow_tf32 = True\n";
  if (is_low_precision(in.setup.precision)) {
    s += std::string("# ") + precision_name(in.setup.precision) +
         " linears: NVIDIA Transformer Engine (te.autocast with its recipe)\n";
  }
  if (in.setup.checkpointing != Checkpointing::none) {
    s += "# activation checkpointing: apply_activation_checkpointing(model, check_fn=<each "
         "transformer block>)\n";
  }
  char cmd[512];
  std::snprintf(
      cmd, sizeof cmd,
      "torchrun --nnodes=%d --nproc_per_node=%d %s train.py \\\n"
      "  --micro-batch-size %lld --gradient-accumulation-steps %lld --global-batch-size %lld\n",
      in.nodes, in.gpus_per_node,
      in.nodes > 1 ? "--rdzv_backend=c10d --rdzv_endpoint=$MASTER_ADDR:29500" : "--standalone",
      static_cast<long long>(in.micro_batch), static_cast<long long>(in.grad_accum_steps),
      static_cast<long long>(in.global_batch));
  return s + cmd;
}

std::string accelerate(const LaunchInputs& in) {
  const PrecisionNames p = precision_names(in.setup.precision);
  const int z = in.setup.zero_stage;
  std::string s = header(in, "#");
  s += "# accelerate launch --config_file this.yaml train.py\n";
  s += "compute_environment: LOCAL_MACHINE\n";
  const char* type = z == 1               ? "DEEPSPEED"
                     : z >= 2             ? "FSDP"
                     : world_size(in) > 1 ? "MULTI_GPU"
                                          : "NO";
  s += std::string("distributed_type: ") + type + "\n";
  s += std::string("mixed_precision: ") + p.accelerate + "\n";
  if (z == 1) {
    s += "deepspeed_config:\n  zero_stage: 1\n  gradient_accumulation_steps: " +
         std::to_string(in.grad_accum_steps) +
         "\n  offload_optimizer_device: none\n  offload_param_device: none\n";
  } else if (z >= 2) {
    s += std::string("fsdp_config:\n  fsdp_sharding_strategy: ") + fsdp_strategy(z) +
         "\n  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n  fsdp_offload_params: false\n"
         "  fsdp_state_dict_type: SHARDED_STATE_DICT\n  fsdp_activation_checkpointing: " +
         (in.setup.checkpointing != Checkpointing::none ? "true" : "false") + "\n";
  }
  if (z != 1)
    s += "# gradient accumulation: Accelerator(gradient_accumulation_steps=" +
         std::to_string(in.grad_accum_steps) + ")\n";
  s += "num_machines: " + std::to_string(in.nodes) + "\n";
  s += "num_processes: " + std::to_string(world_size(in)) + "\n";
  s += "machine_rank: 0\n";
  if (in.nodes > 1)
    s += "main_process_ip: MASTER_ADDR\nmain_process_port: 29500\nrdzv_backend: c10d\n";
  s += "use_cpu: false\n";
  return s;
}

std::string deepspeed(const LaunchInputs& in) {
  const Precision pr = in.setup.precision;
  nlohmann::ordered_json j;
  j["train_batch_size"] = in.global_batch;
  j["train_micro_batch_size_per_gpu"] = in.micro_batch;
  j["gradient_accumulation_steps"] = in.grad_accum_steps;
  j["zero_optimization"] = {
      {"stage", in.setup.zero_stage}, {"overlap_comm", true}, {"contiguous_gradients", true}};
  j["bf16"] = {
      {"enabled", pr == Precision::bf16 || pr == Precision::amp_bf16 || is_low_precision(pr)}};
  // loss_scale 0 selects dynamic loss scaling (DeepSpeed config-json docs, "fp16").
  j["fp16"] = {{"enabled", pr == Precision::fp16 || pr == Precision::amp_fp16}, {"loss_scale", 0}};
  j["activation_checkpointing"] = {{"partition_activations", false},
                                   {"cpu_checkpointing", false},
                                   {"number_checkpoints", nullptr},
                                   {"profile", false}};
  if (in.setup.checkpointing == Checkpointing::none) j.erase("activation_checkpointing");
  j["wall_clock_breakdown"] = false;
  return j.dump(2) + "\n";
}

}  // namespace

const char* launch_format_name(LaunchFormat f) {
  switch (f) {
    case LaunchFormat::torchrun:
      return "torchrun";
    case LaunchFormat::accelerate:
      return "accelerate";
    case LaunchFormat::deepspeed:
      return "deepspeed";
  }
  return "?";
}

std::optional<LaunchFormat> parse_launch_format(const std::string& s) {
  for (LaunchFormat f :
       {LaunchFormat::torchrun, LaunchFormat::accelerate, LaunchFormat::deepspeed}) {
    if (s == launch_format_name(f)) return f;
  }
  return std::nullopt;
}

LaunchInputs launch_inputs(const std::string& model, const Setup& setup, const Estimate& e,
                           int gpus, int nodes) {
  LaunchInputs in;
  in.model = model;
  in.nodes = nodes;
  in.gpus_per_node = nodes > 0 ? gpus / nodes : gpus;
  in.setup = setup;
  in.micro_batch = e.micro_batch;
  in.grad_accum_steps = e.grad_accum_steps;
  in.global_batch = e.global_batch;
  return in;
}

LaunchInputs launch_inputs(const std::string& model, const Plan& plan) {
  LaunchInputs in;
  in.model = model;
  in.nodes = plan.nodes;
  in.gpus_per_node = plan.nodes > 0 ? plan.gpus / plan.nodes : plan.gpus;
  in.setup = plan.setup;
  in.micro_batch = plan.setup.micro_batch;
  in.global_batch = plan.setup.global_batch;
  const int64_t per_step = plan.setup.micro_batch * plan.setup.dp;
  in.grad_accum_steps = per_step > 0 ? plan.setup.global_batch / per_step : 0;
  return in;
}

std::optional<Error> restrict_to_launcher(PlanQuery& query, LaunchFormat format) {
  // All three configure PyTorch data parallelism (DDP, FSDP or DeepSpeed ZeRO); tensor and
  // pipeline parallelism need Megatron-LM-style model code (see emit_launch_config).
  constexpr int kMostDegree = 1;
  // Expert parallelism is Megatron-Core's too (the configs keep every expert on every GPU).
  for (auto [key, degree] : {std::pair<const char*, int*>{"tp", &query.tp},
                             {"pp", &query.pp},
                             {"ep", &query.ep},
                             {"vp", &query.vp},
                             {"cp", &query.cp}}) {
    if (*degree > kMostDegree) {
      return make_error(Errc::invalid_argument, Msg::emit_degree,
                        {launch_format_name(format), key, std::to_string(*degree)});
    }
    *degree = 1;
  }
  return std::nullopt;
}

Result<std::string> emit_launch_config(const LaunchInputs& in, LaunchFormat format) {
  const Setup& s = in.setup;
  if (s.mode != Mode::train) return make_error(Errc::invalid_argument, Msg::emit_train_only, {});
  if (s.tp > 1 || s.pp > 1) {
    return make_error(Errc::invalid_argument, Msg::emit_tp_pp,
                      {std::to_string(s.tp), std::to_string(s.pp)});
  }
  if (s.ep > 1) {
    return make_error(Errc::invalid_argument, Msg::emit_ep, {std::to_string(s.ep)});
  }
  if (s.cp > 1) {
    return make_error(Errc::invalid_argument, Msg::emit_cp, {std::to_string(s.cp)});
  }
  if (in.micro_batch < 1 || in.grad_accum_steps < 1 ||
      in.micro_batch * in.grad_accum_steps * s.dp != in.global_batch ||
      s.dp != in.nodes * in.gpus_per_node) {
    return make_error(
        Errc::invalid_argument, Msg::emit_batch,
        {std::to_string(in.micro_batch), std::to_string(in.grad_accum_steps), std::to_string(s.dp),
         std::to_string(in.global_batch), std::to_string(in.nodes * in.gpus_per_node)});
  }
  switch (format) {
    case LaunchFormat::torchrun:
      return torchrun(in);
    case LaunchFormat::accelerate:
      return accelerate(in);
    case LaunchFormat::deepspeed:
      return deepspeed(in);
  }
  return make_error(Errc::invalid_argument, Msg::emit_format, {});
}

}  // namespace gpuplan
