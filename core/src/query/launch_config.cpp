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
// - Megatron-LM: the flags as NVIDIA/Megatron-LM@f13818d69535 spells them, in its MoE model zoo's
//   launcher (examples/moe-modelzoo/sbatch_benchmarking.sh: dispatchers, recipes, the EP overlap
//   with --delay-wgrad-compute, virtual stages) and Qwen3 config (model_configs/benchmarking), the
//   rest TransformerConfig / ModelParallelConfig fields as megatron/training/arguments.py turns
//   them into flags (fp8 -> --fp8-format, fp4 -> --fp4-format).
#include "gpuplan/launch_config.h"
#include "gpuplan/precision.h"

#include <algorithm>
#include <string>
#include <vector>
#include <initializer_list>
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

// Hybrid sharding (Setup::dp_shard): shard groups smaller than the data-parallel group.
bool hybrid(const Setup& s) {
  return hybrid_shard(s) > 0;
}

// FSDP's sharding strategy; HSDP is FSDP's HYBRID_SHARD (and _HYBRID_SHARD_ZERO2), which shards
// within each node and replicates across nodes (torch.distributed.fsdp.ShardingStrategy).
const char* fsdp_strategy(const Setup& s) {
  if (hybrid(s)) return s.zero_stage >= 3 ? "HYBRID_SHARD" : "_HYBRID_SHARD_ZERO2";
  return s.zero_stage >= 3 ? "FULL_SHARD" : "SHARD_GRAD_OP";
}

// Whether the launcher's config can say the run's HSDP groups: FSDP's hybrid strategies shard
// over one node's GPUs; DeepSpeed's MiCS (mics_shard_size) shards ZeRO-3 over any group;
// Megatron's distributed optimizer splits into dp / dp_shard instances (ZeRO-1/2 only).
std::optional<Error> hsdp_expressible(const LaunchInputs& in, LaunchFormat format) {
  const Setup& s = in.setup;
  if (!hybrid(s)) return std::nullopt;
  const std::string shard = "--dp-shard " + std::to_string(s.dp_shard);
  auto refuse = [&](const std::string& why) {
    return make_error(Errc::invalid_argument, "--emit " + std::string(launch_format_name(format)) +
                                                  ": " + shard + " " + why);
  };
  switch (format) {
    case LaunchFormat::torchrun:
    case LaunchFormat::accelerate:
      if (s.zero_stage < 2)
        return refuse(
            "(hybrid sharding of ZeRO-1) has no PyTorch equivalent here; use --zero 2 or 3");
      if (s.dp_shard != in.gpus_per_node)
        return refuse("cannot be said: FSDP's HYBRID_SHARD shards over one node's " +
                      std::to_string(in.gpus_per_node) + " GPUs (use --dp-shard " +
                      std::to_string(in.gpus_per_node) + ")");
      return std::nullopt;
    case LaunchFormat::deepspeed:
      if (s.zero_stage < 3) return refuse("needs ZeRO-3 under DeepSpeed (MiCS: mics_shard_size)");
      return std::nullopt;
    case LaunchFormat::megatron:
      if (s.zero_stage >= 3)
        return refuse(
            "is not expressed for Megatron-FSDP; use --zero 1 (distributed optimizer "
            "instances)");
      return std::nullopt;
  }
  return std::nullopt;
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
         fsdp_strategy(in.setup) + ", auto_wrap_policy=<one unit per transformer block>";
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
    s += std::string("fsdp_config:\n  fsdp_sharding_strategy: ") + fsdp_strategy(in.setup) +
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
  if (hybrid(in.setup)) j["zero_optimization"]["mics_shard_size"] = in.setup.dp_shard;
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

// Megatron-LM's flags (see the top of this file), one "--flag value" each.
using Flags = std::vector<std::string>;

Flags append(Flags f, std::initializer_list<std::string> more) {
  f.insert(f.end(), more.begin(), more.end());
  return f;
}

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

// A module list as Megatron takes it: space-separated names.
std::string spaced(std::string list) {
  std::replace(list.begin(), list.end(), ',', ' ');
  return list;
}

Error not_in_megatron(const std::string& option) {
  return make_error(Errc::invalid_argument, Msg::emit_megatron_option, {option});
}

// Tensor, pipeline (virtual stages; the embedding and loss counted as layers where the blocks
// alone do not divide, as pipeline_stage_layers assumes), context and expert parallelism, batches.
Result<Flags> megatron_layout(const LaunchInputs& in) {
  const Setup& s = in.setup;
  Flags f = {"--tensor-model-parallel-size " + std::to_string(s.tp),
             "--pipeline-model-parallel-size " + std::to_string(s.pp)};
  if (s.vp > 1) f.push_back("--num-virtual-stages-per-pipeline-rank " + std::to_string(s.vp));
  const int chunks = s.pp * std::max(s.vp, 1);
  if (s.pp > 1 && in.layers > 0 && in.layers % chunks != 0) {
    if ((in.layers + 2) % chunks != 0) {
      return make_error(Errc::invalid_argument, Msg::emit_megatron_layout,
                        {std::to_string(chunks), std::to_string(in.layers)});
    }
    f.push_back("--account-for-embedding-in-pipeline-split");
    f.push_back("--account-for-loss-in-pipeline-split");
  }
  if (s.cp > 1) {
    f.push_back("--context-parallel-size " + std::to_string(s.cp));
    f.push_back(std::string("--cp-comm-type ") + (s.cp_comm == ContextComm::ring ? "p2p" : "a2a"));
  }
  if (s.sequence_parallel) f.push_back("--sequence-parallel");
  if (s.ep > 1 || s.etp > 0) {
    f.push_back("--expert-model-parallel-size " + std::to_string(s.ep));
    f.push_back("--expert-tensor-parallel-size " + std::to_string(s.etp > 0 ? s.etp : s.tp));
  }
  f.push_back("--micro-batch-size " + std::to_string(in.micro_batch));
  f.push_back("--global-batch-size " + std::to_string(in.global_batch));
  if (in.seq_len > 0) f.push_back("--seq-length " + std::to_string(in.seq_len));
  return f;
}

// The recipe: 16-bit weights over fp32 masters (--bf16 / --fp16), Transformer Engine's FP8 and
// FP4 recipes on top, the precision-aware optimizer's dtypes. Autocast and pure 16-bit weights
// without masters are not Megatron's.
Result<Flags> megatron_recipe(const Setup& s) {
  Flags f;
  switch (s.precision) {
    case Precision::fp32:
      break;
    case Precision::mixed_fp16:
      f.push_back("--fp16");
      break;
    case Precision::mixed_bf16:
      f.push_back("--bf16");
      break;
    case Precision::fp8:  // timed as delayed scaling (precision.h)
      f = {"--bf16", "--fp8-format hybrid", "--fp8-recipe delayed"};
      break;
    case Precision::fp8_blockwise:
      f = {"--bf16", "--fp8-format e4m3", "--fp8-recipe blockwise"};
      break;
    case Precision::mxfp8:
      f = {"--bf16", "--fp8-format e4m3", "--fp8-recipe mxfp8"};
      break;
    case Precision::nvfp4:
      f = {"--bf16", "--fp4-format e2m1", "--fp4-recipe nvfp4"};
      break;
    default:
      return make_error(Errc::invalid_argument, Msg::emit_megatron_precision,
                        {precision_name(s.precision)});
  }
  if (s.quantized_params) {
    f.push_back(s.precision == Precision::nvfp4 ? "--fp4-param-gather" : "--fp8-param-gather");
  }
  if (s.fp8_attention) f.push_back("--fp8-dot-product-attention");
  if (s.bf16_first_layers > 0 || s.bf16_last_layers > 0) {
    f.push_back("--first-last-layers-bf16");
    f.push_back("--num-layers-at-start-in-bf16 " + std::to_string(s.bf16_first_layers));
    f.push_back("--num-layers-at-end-in-bf16 " + std::to_string(s.bf16_last_layers));
  }
  if (s.optimizer_state_dtype != StoreDtype::automatic || s.master_dtype != StoreDtype::automatic) {
    f.push_back("--use-precision-aware-optimizer");
    if (s.optimizer_state_dtype != StoreDtype::automatic) {
      f.push_back(std::string("--exp-avg-dtype ") + store_dtype_name(s.optimizer_state_dtype));
      f.push_back(std::string("--exp-avg-sq-dtype ") + store_dtype_name(s.optimizer_state_dtype));
    }
    if (s.master_dtype != StoreDtype::automatic)
      f.push_back(std::string("--main-params-dtype ") + store_dtype_name(s.master_dtype));
  }
  if (s.grad_reduce == GradReduce::bf16) f.push_back("--grad-reduce-in-bf16");
  return f;
}

// Sharding, overlaps, recompute and offloading, the optimizer and the loss.
Result<Flags> megatron_memory(const LaunchInputs& in) {
  const Setup& s = in.setup;
  Flags f;
  if (s.optimizer == Optimizer::adam || s.optimizer == Optimizer::adamw) {
    f.push_back("--optimizer adam");  // Megatron's adam decouples weight decay (AdamW)
  } else if (s.optimizer == Optimizer::sgd_momentum) {
    f.push_back("--optimizer sgd");
  } else {
    return not_in_megatron(std::string("--optimizer ") + optimizer_name(s.optimizer));
  }
  if (s.zero_stage == 1 || s.zero_stage == 2) f.push_back("--use-distributed-optimizer");
  if (hybrid(s) && s.zero_stage < 3)
    f.push_back("--num-distributed-optimizer-instances " + std::to_string(s.dp / s.dp_shard));
  if (s.zero_stage >= 3) {
    f.push_back("--use-megatron-fsdp");
    f.push_back("--data-parallel-sharding-strategy optim_grads_params");
  }
  if (s.overlap_grad_reduce && s.dp > 1) f.push_back("--overlap-grad-reduce");
  if (s.overlap_param_gather && s.zero_stage >= 1) f.push_back("--overlap-param-gather");
  if (s.tp_comm_overlap) f.push_back("--tp-comm-overlap");
  switch (s.checkpointing) {
    case Checkpointing::none:
      break;
    case Checkpointing::selective:
      f.push_back("--recompute-granularity selective");
      f.push_back("--recompute-modules " + spaced(recompute_modules_name(s.recompute_modules)));
      break;
    case Checkpointing::full:
      f = append(f, {"--recompute-granularity full", "--recompute-method uniform",
                     "--recompute-num-layers 1"});
      break;
    case Checkpointing::block:
      f = append(f, {"--recompute-granularity full", "--recompute-method block",
                     "--recompute-num-layers " + std::to_string(s.recompute_num_layers)});
      break;
    default:
      return not_in_megatron(std::string("--checkpointing ") + checkpointing_name(s.checkpointing));
  }
  if (s.offload_activation_layers > 0)
    f.push_back("--cpu-offloading-num-layers " + std::to_string(s.offload_activation_layers));
  if (s.offload_modules != 0) {
    f.push_back("--fine-grained-activation-offloading");
    f.push_back("--offload-modules " + spaced(offload_modules_name(s.offload_modules)));
  }
  f.push_back(s.clip_grad_norm ? "--clip-grad 1.0" : "--clip-grad 0.0");
  if (s.fused_loss) f.push_back("--cross-entropy-loss-fusion");
  if (s.mtp_layers > 0) f.push_back("--mtp-num-layers " + std::to_string(s.mtp_layers));
  return f;
}

// Attention's kernel, the MoE dispatcher and its options, CUDA graphs.
Flags megatron_kernels(const LaunchInputs& in) {
  const Setup& s = in.setup;
  Flags f;
  if (s.attention == Attention::cudnn) f.push_back("--attention-backend fused");
  if (s.attention == Attention::flash || s.attention == Attention::flash3)
    f.push_back("--attention-backend flash");
  if (s.attention == Attention::eager) f.push_back("--attention-backend unfused");
  if (in.moe) {
    f.push_back("--moe-grouped-gemm");
    if (s.moe_dispatcher == MoeDispatcher::alltoall) {
      f.push_back("--moe-token-dispatcher-type alltoall");
    } else {
      f.push_back("--moe-token-dispatcher-type flex");
      f.push_back(std::string("--moe-flex-dispatcher-backend ") +
                  moe_dispatcher_name(s.moe_dispatcher));
    }
    if (s.moe_a2a_overlap)
      f = append(f, {"--overlap-moe-expert-parallel-comm", "--delay-wgrad-compute"});
    if (s.capacity_factor > 0)
      f.push_back("--moe-expert-capacity-factor " + num(s.capacity_factor));
    if (s.moe_pad_to_capacity) f.push_back("--moe-pad-expert-input-to-capacity");
    if (s.moe_rank_capacity > 0)
      f.push_back("--moe-expert-rank-capacity-factor " + num(s.moe_rank_capacity));
    if (s.moe_imbalance == 1) f.push_back("--moe-router-force-load-balancing");
  }
  const unsigned g = s.cuda_graph_modules;
  if (g & kGraphFullIteration) {
    f.push_back("--cuda-graph-impl full_iteration");
  } else if (g & kGraphLayer) {
    f.push_back("--cuda-graph-impl transformer_engine");  // no module list: whole layers
  } else if (g != 0) {
    f.push_back("--cuda-graph-impl transformer_engine");
    f.push_back("--cuda-graph-modules " + spaced(cuda_graph_modules_name(g)));
  }
  return f;
}

// A Megatron-LM pretrain_gpt.py command line with the whole layout; the model's own flags, data
// and tokenizer are the user's.
Result<std::string> megatron(const LaunchInputs& in) {
  if (!in.decoder_lm)
    return make_error(Errc::invalid_argument, Msg::emit_megatron_model, {in.model});
  auto layout = megatron_layout(in);
  if (!layout.ok()) return layout.error();
  auto recipe = megatron_recipe(in.setup);
  if (!recipe.ok()) return recipe.error();
  auto memory = megatron_memory(in);
  if (!memory.ok()) return memory.error();
  std::string s = header(in, "#");
  s += "# Megatron-LM (flags as NVIDIA/Megatron-LM@f13818d69535 spells them): add the model's own\n"
       "# flags (--num-layers, --hidden-size, ... or Megatron-Bridge's import of its config), data "
       "and tokenizer\n";
  char cmd[256];
  std::snprintf(
      cmd, sizeof cmd, "torchrun --nnodes=%d --nproc_per_node=%d %s pretrain_gpt.py", in.nodes,
      in.gpus_per_node,
      in.nodes > 1 ? "--rdzv_backend=c10d --rdzv_endpoint=$MASTER_ADDR:29500" : "--standalone");
  s += cmd;
  for (const Flags& part : {layout.value(), recipe.value(), memory.value(), megatron_kernels(in)})
    for (const auto& flag : part) s += " \\\n  " + flag;
  return s + "\n";
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
    case LaunchFormat::megatron:
      return "megatron";
  }
  return "?";
}

std::optional<LaunchFormat> parse_launch_format(const std::string& s) {
  for (LaunchFormat f : {LaunchFormat::torchrun, LaunchFormat::accelerate, LaunchFormat::deepspeed,
                         LaunchFormat::megatron}) {
    if (s == launch_format_name(f)) return f;
  }
  return std::nullopt;
}

namespace {

// The model's part of a launch config: its name, its blocks, whether it has experts.
LaunchInputs model_inputs(const Model& model) {
  LaunchInputs in;
  in.model = model.id;
  if (model.kind == ModelKind::transformer) {
    in.layers = static_cast<int>(model.transformer.layers + model.transformer.decoder_layers);
    in.moe = model.transformer.is_moe();
  }
  in.decoder_lm = is_decoder_only_lm(model);
  return in;
}

}  // namespace

LaunchInputs launch_inputs(const Model& model, const Setup& setup, const Estimate& e, int gpus,
                           int nodes) {
  LaunchInputs in = model_inputs(model);
  in.nodes = nodes;
  in.gpus_per_node = nodes > 0 ? gpus / nodes : gpus;
  in.setup = setup;
  in.micro_batch = e.micro_batch;
  in.grad_accum_steps = e.grad_accum_steps;
  in.global_batch = e.global_batch;
  in.seq_len = e.seq_len;
  return in;
}

LaunchInputs launch_inputs(const Model& model, const Plan& plan) {
  LaunchInputs in = model_inputs(model);
  in.nodes = plan.nodes;
  in.gpus_per_node = plan.nodes > 0 ? plan.gpus / plan.nodes : plan.gpus;
  in.setup = plan.setup;
  in.micro_batch = plan.setup.micro_batch;
  in.global_batch = plan.setup.global_batch;
  in.seq_len = plan.setup.seq_len;
  const int64_t per_step = plan.setup.micro_batch * plan.setup.dp;
  in.grad_accum_steps = per_step > 0 ? plan.setup.global_batch / per_step : 0;
  return in;
}

std::optional<Error> restrict_to_launcher(PlanQuery& query, LaunchFormat format) {
  // Hybrid sharding at the ZeRO stages each launcher can say (hsdp_expressible).
  constexpr unsigned kStage1 = 1u << 1, kStage2 = 1u << 2, kStage3 = 1u << 3;
  switch (format) {
    case LaunchFormat::torchrun:
    case LaunchFormat::accelerate:
      query.hybrid_zero_stages &= kStage2 | kStage3;
      break;
    case LaunchFormat::deepspeed:
      query.hybrid_zero_stages &= kStage3;
      break;
    case LaunchFormat::megatron:
      query.hybrid_zero_stages &= kStage1 | kStage2;
      return std::nullopt;  // every parallel degree
  }
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
  if (auto err = hsdp_expressible(in, format)) return *err;
  const int world = in.nodes * in.gpus_per_node;
  if (format == LaunchFormat::megatron) {
    if (in.micro_batch < 1 || in.grad_accum_steps < 1 ||
        in.micro_batch * in.grad_accum_steps * s.dp != in.global_batch ||
        int64_t{s.dp} * s.tp * s.pp * s.cp != world) {
      return make_error(
          Errc::invalid_argument, Msg::emit_megatron_batch,
          {std::to_string(in.micro_batch), std::to_string(in.grad_accum_steps),
           std::to_string(s.dp), std::to_string(in.global_batch), std::to_string(s.tp),
           std::to_string(s.pp), std::to_string(s.cp), std::to_string(world)});
    }
    return megatron(in);
  }
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
      in.micro_batch * in.grad_accum_steps * s.dp != in.global_batch || s.dp != world) {
    return make_error(
        Errc::invalid_argument, Msg::emit_batch,
        {std::to_string(in.micro_batch), std::to_string(in.grad_accum_steps), std::to_string(s.dp),
         std::to_string(in.global_batch), std::to_string(world)});
  }
  switch (format) {
    case LaunchFormat::torchrun:
      return torchrun(in);
    case LaunchFormat::accelerate:
      return accelerate(in);
    case LaunchFormat::deepspeed:
      return deepspeed(in);
    case LaunchFormat::megatron:
      return megatron(in);
  }
  return make_error(Errc::invalid_argument, Msg::emit_format, {});
}

}  // namespace gpuplan
