#include "gpuplan/estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "gpuplan/expert_parallel.h"
#include "gpuplan/framework.h"
#include "gpuplan/precision.h"
#include "gpuplan/transformer.h"

namespace gpuplan {
namespace {

constexpr int64_t kMaxBatch = 100'000'000;
constexpr int64_t kMaxSeqLen = 100'000'000;
constexpr int64_t kMaxResolution = 100'000;
constexpr int kMaxParallel = 1'000'000;

Error invalid(const std::string& message) {
  return make_error(Errc::invalid_argument, message);
}
Error invalid(Msg id, std::vector<std::string> args) {
  return make_error(Errc::invalid_argument, id, std::move(args));
}
std::string str(int64_t n) {
  return std::to_string(n);
}

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

bool is_16bit_activations(Precision p) {
  return precision_bytes(p).activation <= 2;
}

// Optimizer state elements per trainable parameter (Adafactor handled per matrix).
double optimizer_states(Optimizer o) {
  switch (o) {
    case Optimizer::sgd:
      return 0;
    case Optimizer::sgd_momentum:
      return 1;  // momentum buffer
    case Optimizer::adam:
    case Optimizer::adamw:
    case Optimizer::lamb:
      return 2;  // exp_avg, exp_avg_sq (Kingma & Ba 2015; LAMB: You et al. 2020, alg. 2)
    case Optimizer::adam_8bit:
      return 2;  // two 8-bit states (Dettmers et al. 2022)
    case Optimizer::adafactor:
      return 0;  // factored; see adafactor_state_elements
  }
  return 0;
}

// Adafactor without momentum keeps a row and a column second-moment vector per matrix and a
// full vector per vector parameter (Shazeer & Stern 2018, alg. 4).
double adafactor_state_elements(const std::vector<ParamTensor>& tensors) {
  double elements = 0;
  for (const auto& t : tensors) {
    const bool matrix = t.rows > 1 && t.cols > 1;
    elements += static_cast<double>(t.count) * (matrix ? static_cast<double>(t.rows + t.cols)
                                                       : static_cast<double>(t.rows * t.cols));
  }
  return elements;
}

bool matches_target(const ParamTensor& t, std::string_view target) {
  // "q_proj" matches self_attn.q_proj.weight and decoder.cross_attn.q_proj.weight; "up_proj"
  // and "mlp.up_proj" both match mlp.up_proj.weight.
  if (std::string_view(t.param) != "weight") return false;
  const std::string_view module = t.module;
  if (module == target) return true;
  return module.size() > target.size() &&
         module.compare(module.size() - target.size(), target.size(), target) == 0 &&
         module[module.size() - target.size() - 1] == '.';
}

// Megatron-Core's names for a block's linear layers, as Megatron-Bridge's LoRA takes them
// (src/megatron/bridge/peft/lora.py: target_modules default ["linear_qkv", "linear_proj",
// "linear_fc1", "linear_fc2"]; canonical_lora.py's unfused linear_q, linear_k, linear_v,
// linear_fc1_up, linear_fc1_gate), with the modules each covers. linear_qkv and linear_fc1 are
// fused layers (q, k and v; gate and up) and get one adapter of the fused width, in_features x
// out_features of the whole layer (lora.py: adapter_cls(attrs.in_features, attrs.out_features,
// dim)), where per-module targets get one adapter each.
struct FusedTarget {
  std::string_view name;
  std::vector<std::string_view> parts;
};
const FusedTarget* megatron_target(std::string_view target) {
  static const std::vector<FusedTarget> targets = {{"linear_qkv", {"q_proj", "k_proj", "v_proj"}},
                                                   {"linear_proj", {"o_proj"}},
                                                   {"linear_fc1", {"gate_proj", "up_proj"}},
                                                   {"linear_fc2", {"down_proj"}},
                                                   {"linear_q", {"q_proj"}},
                                                   {"linear_k", {"k_proj"}},
                                                   {"linear_v", {"v_proj"}},
                                                   {"linear_fc1_up", {"up_proj"}},
                                                   {"linear_fc1_gate", {"gate_proj"}}};
  for (const auto& t : targets) {
    if (t.name == target) return &t;
  }
  return nullptr;
}

// The LoRA adapters of one target: (parameters, tensors), both 0 when it matches no layer. A
// Megatron fused target sums its parts' output widths per layer they share (the same prefix and
// parent module: self_attn's q, k and v; an MLP's, an expert's or a shared expert's gate and up).
std::pair<int64_t, int64_t> lora_adapters(const std::vector<ParamTensor>& tensors,
                                          std::string_view target, int64_t rank) {
  int64_t params = 0, adapters = 0;
  const FusedTarget* fused = megatron_target(target);
  if (!fused) {
    for (const auto& t : tensors) {
      if (!matches_target(t, target)) continue;
      params += rank * (t.rows + t.cols) * t.count;
      adapters += 2 * t.count;  // lora_A and lora_B
    }
    return {params, adapters};
  }
  struct Layer {
    int64_t rows = 0, cols = 0, count = 0;
  };
  std::map<std::string, Layer> layers;  // by prefix and parent module
  for (const auto& t : tensors) {
    for (std::string_view part : fused->parts) {
      if (!matches_target(t, part)) continue;
      const std::string_view module = t.module;
      Layer& l = layers[std::string(t.prefix) +
                        std::string(module.substr(0, module.size() - part.size()))];
      l.rows += t.rows;
      l.cols = t.cols;
      l.count = t.count;
    }
  }
  for (const auto& [name, l] : layers) {
    params += rank * (l.rows + l.cols) * l.count;
    adapters += 2 * l.count;
  }
  return {params, adapters};
}

// Hybrid sharding (Setup::dp_shard): groups that divide the data-parallel GPUs, under ZeRO; a
// group of all of them or more is plain sharding (hybrid_shard).
std::optional<Error> validate_hsdp(const Setup& s) {
  if (s.dp_shard == 0) return std::nullopt;
  if (s.dp_shard < 1 || (s.dp_shard < s.dp && s.dp % s.dp_shard != 0))
    return invalid("--dp-shard " + std::to_string(s.dp_shard) +
                   " must divide the data-parallel GPUs (dp " + std::to_string(s.dp) + ")");
  if (s.zero_stage == 0)
    return invalid("--dp-shard needs ZeRO (--zero 1, 2 or 3): without it nothing is sharded");
  return std::nullopt;
}

// The fields that refine a precision recipe (precision.h), each checked against the recipe.
std::optional<Error> validate_precision_fields(const Setup& s) {
  const char* recipe = precision_name(s.precision);
  if (s.grad_reduce != GradReduce::automatic && !has_master_weights(s.precision))
    return invalid(Msg::est_grad_reduce_recipe, {recipe});
  if (s.quantized_params && !is_low_precision(s.precision)) {
    return invalid(Msg::est_quantized_params_recipe, {recipe});
  }
  if (s.fp8_attention && !is_low_precision(s.precision))
    return invalid(Msg::est_fp8_attention_recipe, {recipe});
  if (s.fp8_attention && s.attention != Attention::cudnn)
    return invalid(Msg::est_fp8_attention_kernel, {attention_name(s.attention)});
  for (int n : {s.bf16_first_layers, s.bf16_last_layers}) {
    if (n < 0 || n > 1'000'000)
      return invalid("--bf16-first-layers and --bf16-last-layers must be between 0 and 1000000");
  }
  const bool adam = s.optimizer == Optimizer::adam || s.optimizer == Optimizer::adamw;
  if (s.optimizer_state_dtype != StoreDtype::automatic && !adam) {
    return invalid(Msg::est_optimizer_state_dtype, {optimizer_name(s.optimizer)});
  }
  if (s.master_dtype == StoreDtype::bf16 || s.master_dtype == StoreDtype::fp8)
    return invalid(Msg::est_master_dtype_kind, {});
  if (s.master_dtype != StoreDtype::automatic && !has_master_weights(s.precision)) {
    return invalid(Msg::est_master_dtype_recipe, {recipe});
  }
  return std::nullopt;
}

// The blocks of a `layers_stage`-block pipeline stage rebuilt in full in backward by the
// layer-level modes: one in checkpoint_every (every-k-layers), the first recompute_num_layers of
// each model chunk (block).
double rebuilt_blocks(const Setup& setup, double layers_stage) {
  if (setup.checkpointing == Checkpointing::every_k_layers)
    return std::floor(layers_stage / setup.checkpoint_every);
  if (setup.checkpointing == Checkpointing::block)
    return layers_stage * block_recompute_share(setup, layers_stage * setup.pp);
  return 0;
}

// Activation offloading as Megatron allows it (transformer_config.py at
// NVIDIA/Megatron-LM@d98e8a64: "no support for Pipeline parallelism with CPU offloading", "CPU
// offloading does not work when activation recomputation is enabled"); the block count is checked
// against the model.
std::optional<Error> validate_offload(const Setup& s) {
  if (s.offload_activation_layers < 0 || s.offload_activation_layers > 1'000'000) {
    return invalid("--offload-activation-layers must be between 0 and 1000000, got " +
                   std::to_string(s.offload_activation_layers));
  }
  if (s.offload_modules != 0) {
    if (s.mode != Mode::train) return invalid(Msg::est_offload_modules_train_only, {});
    if (s.offload_activation_layers > 0) return invalid(Msg::est_offload_modules_layers, {});
    const bool whole_moe = s.checkpointing == Checkpointing::selective
                               ? (s.recompute_modules & kRecomputeMoe) != 0
                               : s.checkpointing != Checkpointing::none;
    if (whole_moe) {
      const std::string how = s.checkpointing == Checkpointing::selective
                                  ? "selective --recompute-modules moe"
                                  : checkpointing_name(s.checkpointing);
      return invalid(Msg::est_offload_modules_recompute,
                     {offload_modules_name(s.offload_modules), how});
    }
  }
  if (s.offload_activation_layers == 0) return std::nullopt;
  if (s.mode != Mode::train) return invalid(Msg::est_offload_train_only, {});
  if (s.pp > 1) return invalid(Msg::est_offload_pp, {});
  if (s.checkpointing != Checkpointing::none)
    return invalid(Msg::est_offload_recompute, {checkpointing_name(s.checkpointing)});
  return std::nullopt;
}

// CUDA graphs replay training kernels (Setup::cuda_graph_modules); Megatron captures the
// dispatcher's preprocessing only with the router (transformer_layer.py at
// NVIDIA/Megatron-LM@d98e8a64), and the MoE checks are moe_layout.cpp's.
std::optional<Error> validate_cuda_graphs(const Setup& s) {
  if (s.cuda_graph_modules == 0) return std::nullopt;
  if (s.mode != Mode::train) return invalid(Msg::est_graphs_train_only, {});
  if ((s.cuda_graph_modules & kGraphMoePreprocess) && !(s.cuda_graph_modules & kGraphMoeRouter))
    return invalid(Msg::est_graphs_preprocess_router, {});
  return std::nullopt;
}

std::optional<Error> validate_setup(const Setup& s) {
  if (s.dp < 1 || s.dp > kMaxParallel)
    return invalid("--dp must be between 1 and 1000000, got " + std::to_string(s.dp));
  if (s.tp < 1 || s.tp > kMaxParallel)
    return invalid("--tp must be between 1 and 1000000, got " + std::to_string(s.tp));
  if (s.pp < 1 || s.pp > kMaxParallel)
    return invalid("--pp must be between 1 and 1000000, got " + std::to_string(s.pp));
  if (s.cp < 1 || s.cp > kMaxParallel)
    return invalid("--cp must be between 1 and 1000000, got " + std::to_string(s.cp));
  if (s.vp < 1 || s.vp > kMaxParallel)
    return invalid("--vp must be between 1 and 1000000, got " + std::to_string(s.vp));
  // Each degree alone is bounded; their product (the GPU count, an int) must be too.
  const int64_t gpus = int64_t{s.dp} * s.tp * s.pp * s.cp;
  if (gpus > kMaxParallel) return invalid(Msg::est_too_many_gpus, {std::to_string(gpus)});
  // Megatron's interleaved schedule runs over two or more pipeline ranks (arguments.py).
  if (s.vp > 1 && s.pp < 2) return invalid(Msg::est_vp_needs_pp, {str(s.vp)});
  // Transformer Engine's userbuffer overlap splits the sequence-parallel all-gather and
  // reduce-scatter (Megatron asserts --tp-comm-overlap needs --sequence-parallel).
  if (s.tp_comm_overlap && !s.sequence_parallel) return invalid(Msg::est_tp_overlap_needs_sp, {});
  if (s.cp > 1 && s.mode != Mode::train) return invalid(Msg::est_cp_train_only, {});
  if (s.ep < 1 || s.ep > kMaxParallel)
    return invalid("--ep must be between 1 and 1000000, got " + std::to_string(s.ep));
  if (s.etp < 0 || s.etp > kMaxParallel)
    return invalid("--etp must be between 1 and 1000000, got " + std::to_string(s.etp));
  if (!(s.capacity_factor >= 0 && s.capacity_factor <= 1e6))
    return invalid("--capacity-factor must be 0 (dropless) or positive, got " +
                   std::to_string(s.capacity_factor));
  if (!(s.moe_rank_capacity >= 0 && s.moe_rank_capacity <= 1e6))
    return invalid("--moe-rank-capacity must be 0 (no budget) or positive, got " +
                   std::to_string(s.moe_rank_capacity));
  if (!(s.moe_imbalance >= 0 && s.moe_imbalance <= 1e6))
    return invalid("--moe-imbalance must be at least 1, got " + std::to_string(s.moe_imbalance));
  if (s.zero_stage < 0 || s.zero_stage > 3)
    return invalid("--zero must be 0, 1, 2 or 3, got " + std::to_string(s.zero_stage));
  if (s.global_batch < 0 || s.global_batch > kMaxBatch)
    return invalid("--batch must be between 1 and 100000000, got " +
                   std::to_string(s.global_batch));
  if (s.micro_batch < 0 || s.micro_batch > kMaxBatch)
    return invalid("--micro-batch must be between 1 and 100000000, got " +
                   std::to_string(s.micro_batch));
  if (s.seq_len < 0 || s.seq_len > kMaxSeqLen)
    return invalid("--seq must be between 1 and 100000000, got " + std::to_string(s.seq_len));
  if (s.resolution < 0 || s.resolution > kMaxResolution)
    return invalid("--resolution must be between 1 and 100000, got " +
                   std::to_string(s.resolution));
  if (s.lora_rank < 0 || s.lora_rank > 65536)
    return invalid("--lora-rank must be between 0 and 65536, got " + std::to_string(s.lora_rank));
  if (s.qlora && s.lora_rank == 0) return invalid(Msg::est_qlora_needs_rank, {});
  if (s.generate_tokens < 0 || s.generate_tokens > kMaxSeqLen)
    return invalid("--generate must be between 0 and 100000000");
  if (s.sequence_parallel && s.tp == 1) return invalid(Msg::est_sp_needs_tp, {});
  if (s.zero_stage > 0 && s.mode == Mode::infer) return invalid(Msg::est_zero_train_only, {});
  if (auto err = validate_hsdp(s)) return err;
  if (auto err = validate_precision_fields(s)) return err;
  if (!(s.dropout < 1.0) || std::isnan(s.dropout))
    return invalid("--dropout must be a probability in [0, 1), got " + std::to_string(s.dropout));
  if (s.recompute_modules != kRecomputeCoreAttn && s.checkpointing != Checkpointing::selective) {
    return invalid(Msg::est_recompute_modules_mode, {recompute_modules_name(s.recompute_modules),
                                                     checkpointing_name(s.checkpointing)});
  }
  if (s.checkpoint_every < 1 || s.checkpoint_every > 1'000'000) {
    return invalid("--checkpoint-every must be between 1 and 1000000, got " +
                   std::to_string(s.checkpoint_every));
  }
  if (s.recompute_num_layers < 1 || s.recompute_num_layers > 1'000'000) {
    return invalid("--recompute-num-layers must be between 1 and 1000000, got " +
                   std::to_string(s.recompute_num_layers));
  }
  if (auto err = validate_offload(s)) return err;
  if (auto err = validate_cuda_graphs(s)) return err;
  for (double v : {s.assumptions.cuda_context_bytes, s.assumptions.cublas_workspace_bytes,
                   s.assumptions.allocator_round_bytes}) {
    if (!std::isfinite(v) || v < 0) return invalid("memory assumptions must be finite and >= 0");
  }
  return std::nullopt;
}

// Resolves batch sizes: global = micro x dp x accumulation steps.
std::optional<Error> resolve_batch(const Setup& s, Estimate& e) {
  int64_t micro = s.micro_batch;
  int64_t global = s.global_batch;
  if (micro == 0 && global == 0) micro = 1;
  if (global == 0) global = micro * s.dp;
  if (micro == 0) {
    if (global % s.dp != 0) {
      return invalid(Msg::est_batch_not_dp, {str(global), str(s.dp)});
    }
    micro = global / s.dp;
  }
  if (global % (micro * s.dp) != 0) {
    return invalid(Msg::est_batch_not_dp_micro, {str(global), str(micro * s.dp)});
  }
  e.global_batch = global;
  e.micro_batch = micro;
  e.grad_accum_steps = global / (micro * s.dp);
  return std::nullopt;
}

// Memory of a group of parameter tensors on one GPU of a stage.
struct StageParams {
  double numel_per_gpu = 0;         // after tensor-parallel and pipeline split
  double matrix_numel_per_gpu = 0;  // the part that matmuls read (autocast copies)
};

}  // namespace

namespace {

// Forward FLOPs per sample of the matmuls Megatron's recompute modules run again: the dense
// MLPs, a whole MoE layer (router, routed and shared experts), the shared experts alone, MLA's up
// projections. The norms and activations are memory-bound kernels: timed, not counted.
double recompute_module_flops(const TransformerSpec& s, const TransformerFlops& f, double t,
                              unsigned modules) {
  const MoeShape m = moe_shape(s);
  const double h = static_cast<double>(s.hidden), mats = s.gated_mlp ? 3.0 : 2.0;
  double flops = 0;
  if (modules & kRecomputeMlp) flops += m.dense_layers * 2 * t * h * m.dense_ffn * mats;
  const double shared = m.moe_layers * 2 * t * h * m.shared_ffn * mats;
  if (modules & kRecomputeMoe) {
    flops += m.moe_layers * 2 * t * h * (m.experts + m.top_k * m.expert_ffn * mats) + shared;
  } else if (modules & kRecomputeSharedExperts) {
    flops += shared;
  }
  if (modules & kRecomputeMlaUpProj) flops += f.qkv_proj * mla_up_projection_share(s);
  return flops;
}

// FLOPs recomputed per sample by activation checkpointing (Korthikanti et al. 2022, sec. 5), and
// the part of them in Megatron's recompute modules (FlopCounts::recompute_modules_per_step).
struct RecomputeFlops {
  double total = 0, modules = 0;
};
RecomputeFlops transformer_recompute_flops(const Model& model, const Setup& setup,
                                           const Estimate& e) {
  if (setup.checkpointing == Checkpointing::none) return {};  // before copying the spec
  const TransformerSpec run = run_spec(model.transformer, setup, e.resolution);
  const TransformerFlops f = model_forward_flops(model, run, e.seq_len);
  const double blocks = f.total() - f.head - f.embedding;  // everything but the head
  const double layers = static_cast<double>(run.layers + run.decoder_layers);
  switch (setup.checkpointing) {
    case Checkpointing::none:
      return {};
    case Checkpointing::full:
      return {blocks};
    case Checkpointing::selective: {
      const bool core = setup.recompute_modules & kRecomputeCoreAttn;
      const double modules =
          recompute_module_flops(run, f, e.flops.tokens_per_sample, setup.recompute_modules);
      return {
          (core && e.attention != "flash" ? e.flops.forward_attention_per_sample : 0.0) + modules,
          modules};
    }
    case Checkpointing::op_selective: {
      const bool flash = e.attention == "flash";
      const LayerActivations la = transformer_layer_activations(
          run, e.seq_len, 2, 2, flash ? AttentionImpl::flash : AttentionImpl::eager);
      // Eager attention's score matmuls are not on the save list: recomputed too.
      return {la.op_selective_recompute_flops * layers + (flash ? 0.0 : f.attention_core)};
    }
    case Checkpointing::every_k_layers:
      return {blocks * std::floor(layers / setup.checkpoint_every) / std::max(layers, 1.0)};
    case Checkpointing::block:
      return {blocks * block_recompute_share(setup, layers)};
  }
  return {};
}

}  // namespace

double causal_attention_fraction(const Model& model, const TransformerSpec& run, double tokens) {
  if (model.task != "causal-lm" || run.decoder_layers > 0 || run.is_vision() || tokens <= 0)
    return 1.0;
  // Query i sees the memory and keys 0..i: on average memory + t/2 of the memory + t keys, the
  // count FlashAttention's benchmark and Megatron's FLOP formula use (t^2/2 for t keys). A
  // windowed block's band of W keys is causal already; only its first W queries see fewer.
  const double keys = attention_keys(run, tokens);
  const double windowed = static_cast<double>(run.windowed_layer_count());
  const double full = static_cast<double>(run.attention_layer_count()) - windowed;
  const double band = attention_keys_per_query(run, tokens, true, false);
  const double band_causal = attention_keys_per_query(run, tokens, true, true);
  const double all = full * keys + windowed * band;
  return all > 0 ? (full * (keys - tokens / 2) + windowed * band_causal) / all : 1.0;
}

TransformerFlops model_forward_flops(const Model& model, const TransformerSpec& run,
                                     int64_t seq_len) {
  TransformerFlops f = transformer_forward_flops(run, seq_len);
  const double tokens = static_cast<double>(transformer_tokens(run, seq_len));
  f.attention_core *= causal_attention_fraction(model, run, tokens);
  return f;
}

TransformerSpec run_spec(const TransformerSpec& spec, const Setup& setup, int64_t resolution) {
  TransformerSpec run = spec;
  if (run.is_vision() && resolution > 0) run.image_size = resolution;
  // Multi-token prediction modules are trained with the model; inference runs without them
  // (DeepSeek-V3's README_WEIGHTS.md: they are for speculative decoding, loaded separately).
  if (setup.mode != Mode::train) run.mtp_layers = 0;
  if (setup.dropout >= 0) {
    run.dropout = setup.dropout > 0;
    run.attention_dropout = setup.dropout > 0;
  }
  return run;
}

namespace {

// What the workload branches hand to the memory terms: numbers for the busiest GPU.
struct Stage {
  double weights_numel = 0;  // parameters on the busiest GPU
  double matrix_numel = 0;   // the part matmuls read (autocast copies)
  // The blocks' linear-layer weights that a Transformer Engine recipe quantises (precision.h:
  // the share of blocks not kept in bf16), and the share itself.
  double quantized_numel = 0;
  double low_precision_share = 0;
  double trainable_numel = 0;
  double adafactor_elements = 0;
  double activation_bytes = 0;  // all in-flight micro-batches
  double largest_transient_bytes = 0;
  double saved_tensor_count = 0;  // live tensors, for allocator rounding
  double kv_cache_bytes = 0;
  double kv_read_bytes = 0;  // what one decode step reads of it (kv_cache_size's read_bytes)
  double decode_weight_bytes = 0;
  // Routed experts' share of weights_numel, matrix_numel and trainable_numel: their states are
  // sharded over the expert-data-parallel group, not the data-parallel one.
  double expert_numel = 0;
  double expert_matrix_numel = 0;
  double expert_trainable_numel = 0;
  int expert_dp = 1;
  // Inference: bytes per parameter of the part outside the routed experts and of the experts,
  // as the weights are served (inference_weight_format); 0 where the precision's bytes hold.
  double served_bytes_per_param = 0;
  double served_expert_bytes_per_param = 0;
};

// What Megatron's interleaved schedule and the context-parallel attention kernels require.
std::optional<Error> check_schedule(const Model& model, const Setup& setup, const Estimate& e) {
  const TransformerSpec& spec = model.transformer;
  const int64_t total_layers = spec.layers + spec.decoder_layers;
  if (setup.vp > 1) {
    // Each virtual stage holds whole layers; layers that do not split evenly are laid out by hand
    // (Megatron --pipeline-model-parallel-layout, e.g. DeepSeek-V3's 61 layers as "Et|(tt|)*30L"
    // over 32 virtual stages, the last holding the loss alone), so every virtual stage holds a
    // layer except at most one for the embedding and one for the loss. Micro-batches run in
    // groups of pp (schedules.py, microbatch_group_size_per_vp_stage = pp: m / pp leaves none).
    if (total_layers + 2 < int64_t{setup.pp} * setup.vp) {
      return invalid(Msg::est_vp_layers, {str(setup.vp), str(total_layers), model.id,
                                          str(int64_t{setup.pp} * setup.vp)});
    }
    if (e.grad_accum_steps % setup.pp != 0) {
      return invalid(Msg::est_vp_micro_batches,
                     {str(setup.vp), str(e.grad_accum_steps), str(setup.pp)});
    }
  }
  if (setup.cp > 1) {
    if (spec.is_vision()) return invalid(Msg::est_cp_vision, {});
    if (spec.is_hybrid_linear()) return invalid(Msg::est_cp_linear, {model.id});
    // Causal load balancing cuts the sequence into 2 x cp chunks (Megatron's
    // get_batch_on_this_cp_rank); all-to-all splits the heads over tp x cp ranks (TE's a2a).
    const int64_t chunks = 2 * int64_t{setup.cp};
    if (e.seq_len % chunks != 0) {
      return invalid(Msg::est_cp_chunks, {str(setup.cp), str(e.seq_len), str(chunks)});
    }
    const int64_t ranks = int64_t{setup.cp} * setup.tp;
    if (setup.cp_comm == ContextComm::all_to_all &&
        (spec.heads % ranks != 0 || spec.kv_heads_or_default() % ranks != 0)) {
      return invalid(Msg::est_cp_heads,
                     {str(spec.heads), str(spec.kv_heads_or_default()), model.id, str(ranks)});
    }
  }
  return std::nullopt;
}

// Sequence length or resolution, and the parallel degrees the model allows.
std::optional<Error> resolve_transformer_shape(const Model& model, const Setup& setup,
                                               Estimate& e) {
  const TransformerSpec& spec = model.transformer;
  if (spec.is_vision()) {
    if (setup.seq_len != 0) return invalid(Msg::est_seq_vision, {model.id});
    if (setup.resolution != 0 && setup.resolution % spec.patch_size != 0) {
      return invalid(Msg::est_resolution_patch, {str(setup.resolution), str(spec.patch_size)});
    }
    e.resolution = setup.resolution != 0 ? setup.resolution : spec.image_size;
  } else {
    if (setup.resolution != 0) return invalid(Msg::est_resolution_language, {model.id});
    e.seq_len = setup.seq_len != 0 ? setup.seq_len : model.default_seq_len;
    if (e.seq_len <= 0) return invalid(Msg::est_seq_required, {model.id});
    if (spec.positions == PositionKind::learned && e.seq_len > spec.max_positions) {
      return invalid(Msg::est_seq_too_long, {str(e.seq_len), model.id, str(spec.max_positions)});
    }
  }
  // Training splits whole key/value heads (Megatron: num_query_groups divisible by tp); serving
  // engines replicate each past tp = kv_heads (vLLM: tp a multiple of kv_heads), as
  // kv_cache_size counts.
  const int64_t kv_heads = spec.kv_heads_or_default();
  const bool kv_split =
      kv_heads % setup.tp == 0 || (setup.mode == Mode::infer && setup.tp % kv_heads == 0);
  if (spec.heads % setup.tp != 0 || !kv_split) {
    return invalid(Msg::est_tp_heads,
                   {str(setup.tp), str(spec.heads), str(spec.kv_heads_or_default())});
  }
  if (spec.is_hybrid_linear() && spec.linear_key_heads % setup.tp != 0) {
    return invalid(Msg::est_tp_linear_heads,
                   {str(setup.tp), str(spec.linear_key_heads), str(spec.linear_value_heads)});
  }
  const int64_t total_layers = spec.layers + spec.decoder_layers;
  if (setup.pp > total_layers) {
    return invalid(Msg::est_pp_layers, {str(setup.pp), str(total_layers), model.id});
  }
  return check_schedule(model, setup, e);
}

// Parameter counts; returns the LoRA adapters' parameters (0 without LoRA).
Result<int64_t> count_parameters(const Model& model, const Setup& setup,
                                 const std::vector<ParamTensor>& tensors, Estimate& e) {
  const TransformerSpec& spec = model.transformer;
  for (const auto& t : tensors) {
    e.params.total += t.numel();
    if (!t.fused_into_other) e.params.tensors += t.count;
    if (t.group == ParamGroup::embedding) e.params.embedding += t.numel();
    if (t.routed_expert) e.params.experts += t.numel();
    if (t.mtp) e.params.mtp += t.numel();
  }
  // A token passes through experts_per_token of each MoE block's routed experts; everything
  // else (attention, dense blocks, shared experts, router, embeddings, head) it passes through.
  e.params.active_per_token = e.params.total;
  if (spec.is_moe())
    e.params.active_per_token -=
        e.params.experts / spec.experts * (spec.experts - spec.experts_per_token);
  int64_t lora_params = 0;
  int64_t lora_tensors = 0;
  for (const auto& target : setup.lora_rank > 0 ? setup.lora_targets : std::vector<std::string>{}) {
    const auto [params, adapters] = lora_adapters(tensors, target, setup.lora_rank);
    if (adapters == 0) return invalid(Msg::est_lora_target, {target, model.id});
    lora_params += params;
    lora_tensors += adapters;
  }
  e.params.trainable = setup.lora_rank > 0 ? lora_params : e.params.total;
  if (setup.lora_rank > 0) e.params.tensors = lora_tensors;
  return lora_params;
}

// Per-GPU parameters on the busiest stage. Layers split evenly over stages; the first stage also
// holds the embeddings, the last the head (Megatron-LM's layout).
void stage_parameters(const TransformerSpec& spec, const Setup& setup,
                      const std::vector<ParamTensor>& tensors, const Estimate& e,
                      int64_t lora_params, Stage& st) {
  // Routed experts are sharded over ep x etp ranks rather than split over tp (Megatron-Core).
  const double expert_split = e.moe ? static_cast<double>(e.moe->ep) * e.moe->etp : 1.0;
  const int64_t total_layers = spec.layers + spec.decoder_layers;
  const double layer_share =
      static_cast<double>(ceil_div(total_layers, setup.pp)) / static_cast<double>(total_layers);
  double first = 0, last = 0, first_matrix = 0, last_matrix = 0, block_matrix = 0, experts = 0,
         expert_matrix = 0;
  for (const auto& t : tensors) {
    double n = static_cast<double>(t.numel());
    if (t.routed_expert) {
      n /= expert_split;
      experts += n * layer_share;
      if (t.rows > 1 && t.cols > 1) expert_matrix += n * layer_share;
    } else if (t.tensor_parallel) {
      n /= setup.tp;
    }
    const double matrix = t.rows > 1 && t.cols > 1 ? n : 0.0;
    if (t.in_layers) {
      first += n * layer_share;
      last += n * layer_share;
      first_matrix += matrix * layer_share;
      last_matrix += matrix * layer_share;
      block_matrix += matrix * layer_share;
    } else if (t.group == ParamGroup::embedding || setup.pp == 1) {
      first += n;
      first_matrix += matrix;
      // Tied embeddings: the last stage keeps its own copy of the output projection.
      if (setup.pp > 1 && t.group == ParamGroup::embedding && spec.tied_embeddings &&
          std::string_view(t.module) == "embed_tokens") {
        last += n;
        last_matrix += n;
      }
    } else {
      last += n;
      last_matrix += matrix;
    }
  }
  st.weights_numel = std::max(first, last);
  st.matrix_numel = first >= last ? first_matrix : last_matrix;
  st.low_precision_share = low_precision_share(setup, static_cast<double>(total_layers));
  st.quantized_numel = block_matrix * st.low_precision_share;
  st.trainable_numel = setup.lora_rank > 0
                           ? static_cast<double>(lora_params) * layer_share / setup.tp
                           : st.weights_numel;
  st.adafactor_elements =
      adafactor_state_elements(tensors) * st.weights_numel / static_cast<double>(e.params.total);
  st.expert_numel = experts;
  st.expert_matrix_numel = expert_matrix;
  st.expert_trainable_numel = setup.lora_rank > 0 ? 0.0 : experts;
  st.expert_dp = e.moe ? e.moe->edp : 1;
}

// The kernel "auto" resolves to, and why. From PyTorch 2.0 the usual implementations call
// torch.nn.functional.scaled_dot_product_attention (Hugging Face transformers by default where a
// model supports it, nn.MultiheadAttention / nn.TransformerEncoderLayer when no weights are
// returned, timm, torchtitan, nanoGPT; llm-foundry's attn_impl defaults to "flash"), and at 16 bits
// SDPA runs FlashAttention-2 or, where that is unavailable, its memory-efficient kernel: neither
// keeps the seq x seq scores (PyTorch docs, torch.nn.functional.scaled_dot_product_attention).
std::pair<Attention, AttentionReason> auto_attention(const Model& model, const Setup& setup) {
  if (!is_16bit_activations(setup.precision)) return {Attention::eager, AttentionReason::not_16bit};
  if (setup.torch_release != TorchRelease::v2_0_or_later)
    return {Attention::eager, AttentionReason::before_torch_2};
  const PositionKind p = model.transformer.positions;
  if (p == PositionKind::relative || p == PositionKind::xl_relative)
    return {Attention::eager, AttentionReason::relative_positions};
  if (!model.default_attention.empty()) {
    if (auto a = parse_attention(model.default_attention))
      return {*a, AttentionReason::model_default};
  }
  return {Attention::flash, AttentionReason::sdpa};
}

Result<AttentionImpl> resolve_attention(const Model& model, const Setup& setup,
                                        AttentionReason& reason) {
  const bool sixteen = is_16bit_activations(setup.precision);
  Attention kernel = setup.attention;
  reason = AttentionReason::given;
  if (kernel == Attention::automatic) std::tie(kernel, reason) = auto_attention(model, setup);
  const AttentionImpl impl =
      kernel == Attention::eager ? AttentionImpl::eager : AttentionImpl::flash;
  if (impl == AttentionImpl::flash && !sixteen) {
    return invalid(Msg::est_attention_16bit,
                   {attention_name(setup.attention), precision_name(setup.precision)});
  }
  // Context parallelism runs inside the fused kernels (Transformer Engine's
  // AttnFuncWithCPAndKVP2P over FlashAttention or cuDNN); eager attention has none.
  if (setup.cp > 1 && impl == AttentionImpl::eager) return invalid(Msg::est_cp_eager, {});
  return impl;
}

// Activations one stage keeps for backward per micro-batch, by checkpointing mode.
double stored_activation_bytes(const Setup& setup, const LayerActivations& la, double input_bytes,
                               double layers_stage, AttentionImpl impl, Estimate& e) {
  // Tensor parallelism shards everything but the norm inputs and dropout masks, which sequence
  // parallelism shards too (Korthikanti et al. 2022, eqs. 2 and 4).
  const double tp = setup.tp;
  const double replicated =
      setup.sequence_parallel ? la.replicated_bytes / tp : la.replicated_bytes;
  const double layer_linear = (la.linear_bytes - la.replicated_bytes) / tp + replicated;
  const double per_layer = layer_linear + la.attention_scores_bytes / tp;
  switch (setup.checkpointing) {
    case Checkpointing::none:
      return per_layer * layers_stage;
    case Checkpointing::selective:
      // Megatron's selective recompute of the attention core drops the a*s^2 terms (Korthikanti
      // et al. 2022, sec. 5); flash attention keeps none to drop. The other modules' parts are
      // out of `la` already (drop_recomputed_modules).
      if (!(setup.recompute_modules & kRecomputeCoreAttn)) return per_layer * layers_stage;
      if (impl == AttentionImpl::flash && setup.recompute_modules == kRecomputeCoreAttn) {
        e.notes.push_back(
            "selective checkpointing (attention core) saves nothing with flash attention, "
            "which keeps no seq x seq scores; op-selective or full checkpointing saves memory");
      }
      return layer_linear * layers_stage;
    case Checkpointing::full:
      // Only each layer's input is kept; one layer is rebuilt at a time in backward (Chen et al.
      // 2016; Korthikanti et al. 2022, sec. 4.3).
      return input_bytes * layers_stage + per_layer;
    case Checkpointing::op_selective:
      return la.op_selective_bytes / tp * layers_stage + per_layer;
    case Checkpointing::every_k_layers:
    case Checkpointing::block: {
      const double rebuilt = rebuilt_blocks(setup, layers_stage);
      return (layers_stage - rebuilt) * per_layer + rebuilt * input_bytes +
             (rebuilt > 0 ? per_layer : 0.0);
    }
  }
  return per_layer * layers_stage;
}

// Activation offloading (Setup::offload_activation_layers; one stage, no recompute, one micro-batch
// in flight): the first N blocks' saved activations go to host memory, so the GPU keeps the other
// L - N blocks' (Transformer Engine's get_cpu_offload_context docstring at
// NVIDIA/TransformerEngine@d0067d0d: "activation memory usage is equal to (num_layers -
// num_offloaded_layers) * T").
void offload_activations(const Setup& setup, double layers, Estimate& e, Stage& st) {
  const double n = setup.offload_activation_layers;
  if (n <= 0 || layers <= 0) return;
  e.offload_bytes_per_layer = st.activation_bytes / layers;
  st.activation_bytes -= e.offload_bytes_per_layer * n;
  char host[32];
  std::snprintf(host, sizeof host, "%.1f GB", e.offload_bytes_per_layer * n / 1e9);
  e.notes.push_back(
      "activation offloading: " + std::to_string(setup.offload_activation_layers) +
      " blocks' saved activations (" + host +
      " per GPU) wait in pinned host memory between the forward and the backward pass");
}

// Fine-grained activation offloading: what one MoE block sends per micro-batch (the average
// block's bytes over the MoE blocks' share), which the GPU holds while the copy runs (one block's
// worth: Megatron offloads a block's inputs as its forward ends and reloads them one block ahead
// of its backward); the rest waits in host memory.
void module_offload(const TransformerSpec& run, const Setup& setup, double per_average_block,
                    Estimate& e, Stage& st) {
  const double blocks = static_cast<double>(run.layers + run.decoder_layers);
  const double moe_blocks = static_cast<double>(run.moe_layer_count());
  if (moe_blocks <= 0) return;
  const double mb = static_cast<double>(e.micro_batch);
  e.offload_module_bytes_per_layer = per_average_block * blocks / moe_blocks * mb;
  e.offload_module_layers = moe_blocks;
  st.largest_transient_bytes =
      std::max(st.largest_transient_bytes, e.offload_module_bytes_per_layer);
  char host[32];
  const double stage_blocks = std::ceil(moe_blocks / setup.pp);
  std::snprintf(host, sizeof host, "%.1f GB",
                e.offload_module_bytes_per_layer * stage_blocks / 1e9);
  e.notes.push_back("fine-grained activation offloading: the inputs of " +
                    offload_modules_name(setup.offload_modules) + " (" + host +
                    " per GPU and micro-batch in flight) wait in pinned host memory between each "
                    "MoE block's forward and backward pass");
}

// Training: the blocks' saved activations, the output head's, and the largest transient buffer.
// Before PyTorch 1.11, softmax and log_softmax also kept their inputs (TorchRelease): eager
// attention's scores before the softmax, and the fp32 copy of 16-bit logits.
void training_activations(const TransformerSpec& spec, const Setup& setup, LayerActivations la,
                          AttentionImpl impl, Estimate& e, Stage& st) {
  const bool before_1_11 = setup.torch_release == TorchRelease::v1_10_or_earlier;
  if (before_1_11) la.attention_scores_bytes += la.softmax_input_bytes;
  const PrecisionBytes& pb = precision_bytes(setup.precision);
  const double h = static_cast<double>(spec.hidden), t = e.flops.tokens_per_sample;
  const double mb = static_cast<double>(e.micro_batch);
  const double layers_stage =
      static_cast<double>(ceil_div(spec.layers + spec.decoder_layers, setup.pp));
  // The first stage holds min(pp, m) micro-batches in flight under 1F1B (Narayanan et al. 2021).
  // The interleaved schedule's warm-up runs (v - 1) p + 2 (p - 1) chunks of L / (p v) layers
  // before the first backward (Megatron schedules.py, get_pp_rank_microbatches): with the one in
  // flight, p (1 + (p - 1) / (p v)) stages' worth (Korthikanti et al. 2022, sec. 4.2.3).
  const double p = setup.pp, v = setup.vp;
  const double in_flight = setup.vp > 1 ? p * (1 + (p - 1) / (p * v))
                                        : static_cast<double>(std::min<int64_t>(
                                              setup.pp, std::max<int64_t>(e.grad_accum_steps, 1)));
  const double input = pb.norm_input * t * h / (setup.sequence_parallel ? setup.tp : 1.0);
  // Context parallelism keeps t / cp tokens of every activation on each GPU.
  const double cp = setup.cp;
  st.activation_bytes =
      stored_activation_bytes(setup, la, input, layers_stage, impl, e) * mb * in_flight / cp;
  offload_activations(setup, layers_stage, e, st);
  if (spec.head == HeadKind::lm) {
    // Output head on the last stage: final-norm input, head input and the logits. A fused
    // cross-entropy (flash-attn's, Liger's) keeps the 16-bit logits, writes their gradient in
    // place and saves one fp32 log-sum-exp per token; PyTorch's keeps the fp32 log-softmax beside
    // them and needs fp32 copies while it runs.
    const double vocab = head_logits(spec) / setup.tp;
    double logits =
        setup.fused_loss ? t * vocab * pb.activation + 4.0 * t : t * vocab * (pb.activation + 4.0);
    if (before_1_11 && !setup.fused_loss && pb.activation != 4.0) logits += 4.0 * t * vocab;
    st.activation_bytes += ((pb.norm_input + pb.activation) * t * h + logits) * mb / cp;
    if (!setup.fused_loss) st.largest_transient_bytes = 2.0 * t * vocab * 4.0 * mb / cp;
    // Multi-token prediction modules, also on the last stage: each keeps one block's
    // activations, its two norm inputs, eh_proj's 2h input and its own logits (DeepSeek-V3
    // technical report, sec. 2.2).
    const double block = (la.linear_bytes - la.replicated_bytes) / setup.tp + la.replicated_bytes +
                         la.attention_scores_bytes / setup.tp;
    st.activation_bytes += static_cast<double>(spec.mtp_layers) *
                           (block + 2 * (pb.norm_input + pb.activation) * t * h + logits) * mb / cp;
  }
  st.saved_tensor_count = (spec.gated_mlp ? 14.0 : 12.0) * layers_stage * in_flight;
  const double scores = impl == AttentionImpl::eager
                            ? static_cast<double>(spec.heads) * t * attention_keys(spec, t)
                            : 0.0;
  const double ffn = transformer_dims(spec, e.seq_len).mlp_active();
  st.largest_transient_bytes =
      std::max(st.largest_transient_bytes,
               2.0 * pb.activation * mb * std::max(t * ffn, scores) / setup.tp / cp);
}

// Inference: one layer's working set (input, QKV, MLP hidden) plus the KV cache of the stage's
// blocks at the full context, by kind of block (kv_cache_size: K and V of each kv head, Pope et
// al. 2022, sec. 2; MLA's latent; windowed blocks at most their window).
void inference_activations(const TransformerSpec& spec, const Setup& setup, AttentionImpl impl,
                           const Estimate& e, Stage& st) {
  const PrecisionBytes& pb = precision_bytes(setup.precision);
  const double h = static_cast<double>(spec.hidden), t = e.flops.tokens_per_sample;
  const TransformerDims d = transformer_dims(spec, e.seq_len);
  const double mb = static_cast<double>(e.micro_batch), ffn = d.mlp_active();
  const int64_t total_layers = spec.layers + spec.decoder_layers;
  const double layers_stage = static_cast<double>(ceil_div(total_layers, setup.pp));
  const double kv = d.kv;
  const KvCacheSize cache =
      kv_cache_size(spec, pb.activation, t + static_cast<double>(setup.generate_tokens), setup.tp);
  const double stage_share =
      layers_stage / static_cast<double>(std::max<int64_t>(total_layers, 1)) * mb;
  st.kv_cache_bytes = cache.total_bytes * stage_share;
  st.kv_read_bytes = cache.read_bytes * stage_share;
  st.activation_bytes =
      mb * pb.activation * t * (2.0 * h + 3.0 * kv + ffn * (spec.gated_mlp ? 3.0 : 2.0)) / setup.tp;
  if (impl == AttentionImpl::eager) {
    st.activation_bytes += mb * pb.activation * static_cast<double>(spec.heads) * t *
                           attention_keys(spec, t) / setup.tp;
  }
  if (spec.head == HeadKind::lm) {
    // Logits of the last position only during generation; of all positions for scoring.
    const double rows = setup.generate_tokens > 0 ? 1.0 : t;
    st.largest_transient_bytes = rows * head_logits(spec) * 4.0 * mb;
  }
  st.saved_tensor_count = 8.0;
}

// Inference FLOPs: prefill is a forward over the prompt; each decode step costs ~2 FLOPs per
// active parameter plus attention over the cached context (Pope et al. 2022; Kaplan et al. 2020
// eq. 2.2).
void inference_flops(const TransformerSpec& spec, const Setup& setup, Estimate& e) {
  const double n_active = static_cast<double>(e.params.active_per_token - e.params.embedding);
  const double ctx = e.flops.tokens_per_sample + static_cast<double>(setup.generate_tokens) / 2.0;
  const double tied_head = spec.head == HeadKind::lm && spec.tied_embeddings
                               ? 2.0 * static_cast<double>(spec.hidden * spec.vocab)
                               : 0.0;
  // One new token attends to the cached context in full blocks, to at most the window in
  // windowed ones (a sliding window keeps the last W keys; a chunk at most W).
  // Linear-attention blocks attend to no keys: each updates its state (one token's core work).
  const double windowed = static_cast<double>(spec.windowed_layer_count());
  const double full =
      static_cast<double>(spec.attention_layer_count() + spec.decoder_layers) - windowed;
  const double linear = static_cast<double>(spec.linear_layer_count()) *
                        linear_attention_core_flops_per_token(spec, 1.0);
  const double window_keys = spec.attention_window() > 0
                                 ? std::min(ctx, static_cast<double>(spec.attention_window()))
                                 : ctx;
  e.flops.prefill = e.flops.forward_per_sample * static_cast<double>(e.global_batch);
  // Compressed attention also reads its compressed entries; its indexer scores the compressed
  // keys, one per csa_ratio tokens.
  const double compressed = spec.compressed_entries_read(ctx);
  const double index_keys = spec.is_compressed_attention() && spec.csa_ratio > 0
                                ? std::floor(ctx / static_cast<double>(spec.csa_ratio))
                                : ctx;
  e.flops.decode_per_token =
      static_cast<double>(e.global_batch) *
      (2.0 * n_active +
       attention_flops_per_pair(spec) * (full * ctx + windowed * window_keys + compressed) +
       indexer_flops_per_pair(spec) * static_cast<double>(spec.indexer_layer_count()) * index_keys +
       linear + tied_head);
  e.flops.params_rule_per_token = 6.0 * static_cast<double>(e.params.total - e.params.embedding);
  e.flops.params_rule_active_per_token =
      6.0 * static_cast<double>(e.params.active_per_token - e.params.embedding);
}

// The experts' layout (expert_parallel.h), or the error for MoE keys on a dense model.
std::optional<Error> resolve_experts(const Model& model, const Setup& setup, Estimate& e) {
  auto x = expert_layout(model.transformer, setup, model.id);
  if (!x.ok()) return x.error();
  if (!model.transformer.is_moe()) return std::nullopt;
  MoeEstimate m;
  m.ep = x.value().ep;
  m.etp = x.value().etp;
  m.edp = x.value().edp;
  if (hybrid_shard(setup) > 0 && m.edp % (setup.dp / hybrid_shard(setup)) != 0)
    return invalid("--dp-shard " + std::to_string(setup.dp_shard) + ": its " +
                   std::to_string(setup.dp / hybrid_shard(setup)) +
                   " replicas must also split the expert-data-parallel group (edp " +
                   std::to_string(m.edp) + ")");
  m.local_experts = x.value().local_experts;
  m.rank_load = x.value().rank_load;
  m.receive_share = x.value().receive_share;
  e.moe = m;
  return std::nullopt;
}

// What Megatron's selective recompute of `modules` (RecomputeModule) does not keep for backward:
// each module's saved activations, rebuilt one block at a time before that block's backward.
// The attention core's part is stored_activation_bytes' (the a*s^2 scores). A whole MoE layer
// includes its routed experts' activation and its shared experts.
void drop_recomputed_modules(unsigned modules, LayerActivations& la) {
  const LayerActivations::Recomputable& r = la.recomputable;
  auto drop = [&la](const LayerActivations::Part& p, bool replicated) {
    la.linear_bytes -= p.bytes;
    la.matmul_input_bytes -= p.matmul_input_bytes;
    if (!replicated) return;
    la.replicated_bytes -= p.bytes;
    la.matmul_input_replicated_bytes -= p.matmul_input_bytes;
  };
  if (modules & kRecomputeLayernorm) drop(r.norm_outputs, true);
  if (modules & kRecomputeMlaUpProj) drop(r.mla_up, false);
  if (modules & kRecomputeMlp) drop(r.dense_mlp, false);
  if (modules & kRecomputeMoe) {
    drop(r.moe_layer, false);
    la.routed_bytes = la.routed_input_bytes = 0;
    return;
  }
  if (modules & kRecomputeMoeAct) {
    drop(r.expert_act_out, false);
    la.routed_bytes -= r.expert_act_out.bytes;
  }
  if (modules & kRecomputeSharedExperts) drop(r.shared_experts, false);
}

// Fine-grained activation offloading (Setup::offload_modules): the named modules' inputs leave
// the GPU's saved activations for host memory; the busiest rank sends rank_load times an even
// share, and each expert-tensor-parallel rank its own copy of the gathered inputs. Returns the
// bytes one average block sends per sample on the busiest rank (0 without offloading).
double offload_modules(unsigned modules, const MoeEstimate& m, LayerActivations& la) {
  double even = 0, gathered = 0;
  if (modules & kOffloadExpertFc1) {
    gathered = la.routed_input_bytes;
    la.linear_bytes -= la.routed_input_bytes;
    la.routed_bytes -= la.routed_input_bytes;
    la.routed_input_bytes = 0;
  }
  if (modules & kOffloadMoeAct) {
    even = la.recomputable.expert_act_in.bytes;
    la.linear_bytes -= even;
    la.routed_bytes -= even;
  }
  return m.rank_load * (even + gathered * m.etp);
}

// The routed part of a block's activations as the busiest expert-parallel rank keeps them: the
// generic split (everything but the replicated terms divided by tp) gives tokens / tp x routed
// experts; that rank holds rank_load times as many, and expert tensor parallelism all-gathers
// the experts' inputs over its etp ranks (Megatron's MoEAlltoAllTokenDispatcher).
void routed_activations(const MoeEstimate& m, LayerActivations& la) {
  la.linear_bytes +=
      (m.rank_load - 1) * la.routed_bytes + m.rank_load * la.routed_input_bytes * (m.etp - 1);
}

// One dispatch's buffers, live together while it runs: the permuted tokens this GPU sends and
// those it receives (receive_share times as many on the busiest rank, and etp times that after
// the expert-tensor-parallel all-gather).
void dispatch_buffers(const TransformerSpec& spec, const Setup& setup, double element_bytes,
                      Estimate& e, Stage& st) {
  MoeEstimate& m = *e.moe;
  const double mb = static_cast<double>(e.micro_batch);
  m.dispatch_bytes_per_layer = dispatch_bytes_per_sample(run_spec(spec, setup, e.resolution),
                                                         e.seq_len, setup.tp, element_bytes) *
                               mb;
  m.dispatch_buffer_bytes = m.dispatch_bytes_per_layer * (1 + m.receive_share * m.etp);
  st.largest_transient_bytes = std::max(st.largest_transient_bytes, m.dispatch_buffer_bytes);
}

// Inference holds the weights as they are served (inference_weight_format): a checkpoint stored
// narrower than the precision as stored, and a Transformer Engine recipe's weights quantised
// once, without the 16-bit copy (TE's fp8_model_init; what serving runtimes load). The bytes per
// parameter of each part come from the whole model's tensors (stored_tensor_bytes), as
// `gpuplan serve` counts a replica's.
void served_weights(const Model& model, const Setup& setup, const std::vector<ParamTensor>& tensors,
                    Estimate& e, Stage& st) {
  if (setup.mode == Mode::train || setup.qlora) return;
  const std::optional<WeightFormat> format =
      inference_weight_format(model.checkpoint_weights, setup.precision);
  if (!format) return;
  const WeightFormatBytes& f = weight_format_bytes(*format);
  double dense_bytes = 0, dense_numel = 0, expert_bytes = 0, expert_numel = 0;
  for (const ParamTensor& t : tensors) {
    (t.routed_expert ? expert_bytes : dense_bytes) += stored_tensor_bytes(t, f);
    (t.routed_expert ? expert_numel : dense_numel) += static_cast<double>(t.numel());
  }
  st.served_bytes_per_param = dense_numel > 0 ? dense_bytes / dense_numel : 0;
  st.served_expert_bytes_per_param = expert_numel > 0 ? expert_bytes / expert_numel : 0;
  if (format != serving_weight_format(setup.precision)) {
    e.notes.push_back(std::string("weights: ") + weight_format_name(*format) + ", as the " +
                      checkpoint_label(model) +
                      " checkpoint stores them (serving runtimes load it so at any dtype)");
  } else if (is_low_precision(setup.precision)) {
    e.notes.push_back(std::string("inference holds the ") + weight_format_name(*format) +
                      " weights only, as serving runtimes load them (no 16-bit copy)");
  }
}

// Weights one decode step reads on one GPU: the dense ones, and of the routed experts those the
// step's tokens touch (one per sequence decoding on this replica), as `gpuplan serve` counts them.
double decode_weight_numel(const TransformerSpec& spec, const Setup& setup, const Estimate& e,
                           const Stage& st) {
  if (!spec.is_moe() || st.expert_numel <= 0) return st.weights_numel;
  const MoeShape m = moe_shape(spec);
  const double sequences = static_cast<double>(e.global_batch) / std::max(setup.dp, 1);
  const double touched = experts_touched(m.experts, m.top_k, sequences) / m.experts;
  return st.weights_numel - st.expert_numel * (1 - touched);
}

// `invalid_spec` and `tensors`: validate_transformer's verdict on the model's spec and its
// stored_parameters(), when the spec is valid (Estimator).
std::optional<Error> transformer_workload(const Model& model, const Setup& setup,
                                          const std::optional<Error>& invalid_spec,
                                          const std::vector<ParamTensor>& tensors, Estimate& e,
                                          Stage& st) {
  if (invalid_spec) return invalid_spec;
  const int64_t blocks = model.transformer.layers + model.transformer.decoder_layers;
  if (setup.offload_activation_layers >= blocks && setup.offload_activation_layers > 0) {
    return invalid(Msg::est_offload_layers,
                   {std::to_string(setup.offload_activation_layers), std::to_string(blocks)});
  }
  if (auto err = resolve_transformer_shape(model, setup, e)) return err;
  if (auto err = resolve_experts(model, setup, e)) return err;
  // Vision: the shape used for compute follows the chosen resolution; parameters do not.
  const TransformerSpec run = run_spec(model.transformer, setup, e.resolution);
  e.flops.tokens_per_sample = static_cast<double>(transformer_tokens(run, e.seq_len));
  auto lora_params = count_parameters(model, setup, tensors, e);
  if (!lora_params.ok()) return lora_params.error();
  const TransformerFlops f = model_forward_flops(model, run, e.seq_len);
  e.flops.forward_per_sample = f.total();
  e.flops.forward_matmul_per_sample = f.total();
  e.flops.forward_attention_per_sample = f.attention_core;
  e.flops.forward_attention_unmasked_per_sample =
      transformer_forward_flops(run, e.seq_len).attention_core;
  stage_parameters(model.transformer, setup, tensors, e, lora_params.value(), st);
  served_weights(model, setup, tensors, e, st);
  auto impl = resolve_attention(model, setup, e.attention_reason);
  if (!impl.ok()) return impl.error();
  e.attention = impl.value() == AttentionImpl::flash ? "flash" : "eager";
  if (setup.memory_format != MemoryFormat::automatic) {
    e.notes.push_back("--memory-format applies to convolutions; transformer '" + model.id +
                      "' ignores it");
  }
  const PrecisionBytes& pb = precision_bytes(setup.precision);
  if (setup.mode == Mode::train) {
    LayerActivations la = transformer_layer_activations(
        run, e.seq_len, pb.activation, pb.norm_input, impl.value(), 1.0, setup.fused_kernels);
    if (setup.checkpointing == Checkpointing::selective)
      drop_recomputed_modules(setup.recompute_modules, la);
    // Transformer Engine saves each linear layer's input column-wise quantised, in the blocks
    // it quantises (Setup::bf16_first_layers / bf16_last_layers stay bf16).
    const double saved = (1 - pb.matmul_input / pb.activation) * st.low_precision_share;
    la.linear_bytes -= la.matmul_input_bytes * saved;
    la.replicated_bytes -= la.matmul_input_replicated_bytes * saved;
    const double offloaded = e.moe ? offload_modules(setup.offload_modules, *e.moe, la) : 0.0;
    if (e.moe) routed_activations(*e.moe, la);
    training_activations(model.transformer, setup, la, impl.value(), e, st);
    if (offloaded > 0) module_offload(run, setup, offloaded, e, st);
    if (e.moe) dispatch_buffers(model.transformer, setup, pb.activation, e, st);
  } else {
    inference_activations(model.transformer, setup, impl.value(), e, st);
  }
  inference_flops(model.transformer, setup, e);
  const double read_numel = decode_weight_numel(model.transformer, setup, e, st);
  const double dense_numel = st.weights_numel - st.expert_numel;
  st.decode_weight_bytes = st.served_bytes_per_param > 0
                               ? dense_numel * st.served_bytes_per_param +
                                     (read_numel - dense_numel) * st.served_expert_bytes_per_param
                               : read_numel * pb.param;
  return std::nullopt;
}

// Layer graphs (CNNs and friends).
std::optional<Error> graph_workload(const Model& model, const Setup& setup, Estimate& e,
                                    Stage& st) {
  if (setup.seq_len != 0) return invalid(Msg::est_seq_image, {model.id});
  if (setup.tp > 1 || setup.pp > 1) {
    return invalid(Msg::est_parallel_graph, {model.id});
  }
  if (setup.cp > 1) return invalid(Msg::est_cp_graph, {model.id});
  if (setup.lora_rank > 0) return invalid(Msg::est_lora_graph, {model.id});
  if (auto err = dense_model_moe_settings(setup, model.id)) return err;
  e.resolution = setup.resolution != 0 ? setup.resolution : model.default_resolution;
  if (e.resolution <= 0) return invalid(Msg::est_resolution_required, {model.id});
  const PrecisionBytes& pb = precision_bytes(setup.precision);
  if (is_low_precision(setup.precision)) {
    e.notes.push_back(std::string("Transformer Engine's ") + precision_name(setup.precision) +
                      " quantises the linear layers of transformer blocks; layer-graph model '" +
                      model.id + "' runs in bf16 under it");
  }
  e.memory_format = setup.memory_format == MemoryFormat::channels_last ? "channels-last"
                    : setup.memory_format == MemoryFormat::nchw        ? "nchw"
                    : is_16bit_activations(setup.precision)            ? "channels-last"
                                                                       : "nchw";
  std::optional<GraphCosts> storage;
  auto costs = model_graph_costs(model, e.resolution, storage);
  if (!costs.ok()) return costs.error();
  const GraphCosts& g = *costs.value();
  e.params.total = e.params.trainable = e.params.active_per_token = g.params;
  e.params.tensors = g.param_tensors;
  e.flops.forward_per_sample = g.forward_flops_matmul + g.forward_flops_other;
  e.flops.forward_matmul_per_sample = g.forward_flops_matmul;
  st.weights_numel = st.trainable_numel = st.matrix_numel = static_cast<double>(g.params);
  st.adafactor_elements = st.weights_numel;  // conv kernels are not factored by default
  const double mb = static_cast<double>(e.micro_batch);
  const double largest = static_cast<double>(g.largest_output_elements) * pb.activation * mb;
  if (setup.mode == Mode::train) {
    // Per sample: saved activations, indices and masks, and the input batch itself (kept by the
    // first convolution); BatchNorm's saved mean and inverse std once per step.
    const double input_bytes =
        static_cast<double>(model.graph.in_channels * e.resolution * e.resolution) * pb.activation;
    st.activation_bytes =
        (g.saved_activation_elements * pb.activation + g.saved_fixed_bytes + input_bytes) * mb +
        g.saved_batch_stats_bytes;
    if (setup.checkpointing != Checkpointing::none) {
      e.notes.push_back(
          "activation checkpointing is modelled for transformers only; layer-graph models keep all "
          "activations");
    }
    st.saved_tensor_count = static_cast<double>(model.graph.nodes.size());
  } else {
    st.activation_bytes = 2.0 * largest;
    st.saved_tensor_count = 2.0;
  }
  st.largest_transient_bytes = 2.0 * largest;
  e.flops.prefill = e.flops.forward_per_sample * static_cast<double>(e.global_batch);
  st.decode_weight_bytes = st.weights_numel * pb.param;
  return std::nullopt;
}

// Training FLOPs per step: backward = 2x forward (grads of inputs and of weights), or 1x when the
// weights are frozen (LoRA); recomputation adds what checkpointing rebuilds (Narayanan et al.
// 2021, sec. 5.1; Korthikanti et al. 2022, sec. 5).
void step_flops(const Model& model, const Setup& setup, Estimate& e) {
  const double batch = static_cast<double>(e.global_batch);
  e.flops.forward_per_step = e.flops.forward_per_sample * batch;
  if (setup.mode != Mode::train) return;
  e.flops.backward_per_step = (setup.lora_rank > 0 ? 1.0 : 2.0) * e.flops.forward_per_step;
  if (model.kind == ModelKind::transformer) {
    const RecomputeFlops r = transformer_recompute_flops(model, setup, e);
    e.flops.recompute_per_step = r.total * batch;
    e.flops.recompute_modules_per_step = r.modules * batch;
  }
  e.flops.train_per_step =
      e.flops.forward_per_step + e.flops.backward_per_step + e.flops.recompute_per_step;
}

// Optimizer states per GPU before sharding, and the fp32 masters kept beside them.
double optimizer_state_bytes(const Setup& setup, const Stage& st) {
  const double trainable = st.trainable_numel;
  if (setup.optimizer == Optimizer::adafactor)
    return (setup.lora_rank > 0 ? trainable : st.adafactor_elements) * 4.0;
  if (setup.optimizer == Optimizer::adam_8bit)
    return trainable * 2.0;  // two uint8 states; block scales negligible
  return trainable * optimizer_states(setup.optimizer) * state_bytes(setup);
}

// Transformer Engine's quantised weights (precision.h) in training: both usages of each block
// weight it quantises. With the weight cache every layer keeps its copy for the whole step.
// Without it each layer's forward saves its copy for its backward (pytorch/module/linear.py saves
// weightmat), one per micro-batch in flight (1F1B: up to pp on the first stage), except in blocks
// whose forward runs under activation checkpointing, which saves nothing: those quantise again
// when they are recomputed, one block at a time. FSDP reshards the bf16 parameter after the
// forward, but TE's copy is its own tensor: whole, not sharded. Under --quantized-params the
// quantised tensor is the parameter itself (model_state_memory).
double te_weight_copies(const Setup& setup, const Stage& st, double micro_steps, double layers) {
  if (setup.mode != Mode::train || setup.quantized_params) return 0;
  const double copies = st.quantized_numel * precision_bytes(setup.precision).weight_copy;
  if (setup.cache_quantized_weights) return copies;
  const double in_flight = std::min<double>(setup.pp, std::max(micro_steps, 1.0));
  const double per_block = copies / std::max(layers, 1.0);
  if (setup.checkpointing == Checkpointing::full) return per_block;
  if (setup.checkpointing == Checkpointing::every_k_layers ||
      setup.checkpointing == Checkpointing::block) {
    const double rebuilt = rebuilt_blocks(setup, layers);
    return per_block * ((layers - rebuilt) * in_flight + (rebuilt > 0 ? 1 : 0));
  }
  return copies * in_flight;
}

// Weights, gradients and optimizer states of one GPU. ZeRO shards optimizer states (stage 1),
// gradients (2) and parameters (3) across data-parallel ranks (Rajbhandari et al. 2020, fig. 1).
void model_state_memory(const Model& model, const Setup& setup, const Stage& st, double micro_steps,
                        MemoryBytes& m) {
  const PrecisionBytes& pb = precision_bytes(setup.precision);
  // Context-parallel ranks hold the same weights and join the data-parallel ranks in reducing
  // gradients and sharding states (Megatron's data-parallel group with cp; torchtitan shards
  // FSDP over dp x cp).
  const double dp = static_cast<double>(setup.dp) * setup.cp;
  const double shard = static_cast<double>(shard_ranks(setup));
  // QLoRA: NF4 base weights with double quantisation, 4 + 0.127 bits per parameter (Dettmers et
  // al. 2023, sec. 3); LoRA adapters at the compute precision.
  const double weight_bytes = setup.qlora                     ? (4.0 + 0.127) / 8.0
                              : st.served_bytes_per_param > 0 ? st.served_bytes_per_param
                                                              : pb.param;
  m.weights = st.weights_numel * weight_bytes;
  if (st.served_bytes_per_param > 0) return;  // inference, weights as served (served_weights)
  // Autocast's cast cache: a 16-bit copy of every matmul weight.
  if (is_autocast(setup.precision)) m.weights += st.matrix_numel * pb.weight_copy;
  // --quantized-params: the quantised block weights (both usages in training, the row-wise one
  // in inference) replace their bf16 parameters.
  if (setup.quantized_params) {
    const double quantized = setup.mode == Mode::train ? pb.weight_copy : pb.quantized_weight;
    m.weights += st.quantized_numel * (quantized - weight_bytes);
  }
  if (setup.lora_rank > 0) m.weights += st.trainable_numel * pb.param;
  if (setup.mode != Mode::train) return;
  m.gradients = st.trainable_numel * gradient_bytes(setup);
  const double states = optimizer_state_bytes(setup, st);
  m.optimizer = states + st.trainable_numel * master_bytes(setup);
  const bool fsdp = setup.zero_stage >= 3 && dp > 1;
  if (fsdp && has_master_weights(setup.precision) && setup.lora_rank == 0) {
    // FSDP MixedPrecision keeps only the sharded fp32 parameters (they are the masters) and
    // casts them to 16 bits as it all-gathers (Zhao et al. 2023, "PyTorch FSDP", sec. 4.4).
    m.weights = st.weights_numel * master_bytes(setup);
    m.optimizer = states;
  }
  if (setup.zero_stage >= 1) m.optimizer /= shard;
  if (setup.zero_stage >= 2) m.gradients /= shard;
  if (setup.zero_stage >= 3) m.weights /= shard;
  const double layers_stage = static_cast<double>(
      ceil_div(model.transformer.layers + model.transformer.decoder_layers, setup.pp));
  m.weights += te_weight_copies(setup, st, micro_steps, layers_stage);
  if (fsdp && model.kind == ModelKind::transformer) {
    // While a block computes, FSDP holds its gathered 16-bit (or fp32) parameters and the next
    // block's, prefetched; in backward also the block's unsharded gradients until they are
    // reduce-scattered (FSDP backward_prefetch BACKWARD_PRE).
    const int64_t total_layers = model.transformer.layers + model.transformer.decoder_layers;
    const double layer = st.weights_numel / static_cast<double>(std::max<int64_t>(total_layers, 1));
    m.weights += 2 * layer * gather_bytes(setup);
    m.gradients += layer * gradient_bytes(setup);
  }
  // DDP without ZeRO keeps gradient buckets beside the gradients (PyTorch DDP,
  // gradient_as_bucket_view=False by default); Megatron's DDP reduces in place in its contiguous
  // main-gradient buffer (megatron/core/distributed/param_and_grad_buffer.py).
  if (dp > 1 && setup.zero_stage == 0 && !runs_megatron_core(setup.framework)) m.gradients *= 2.0;
}

// The stage without its routed experts, and the experts alone: each part's optimizer states (and
// with ZeRO-2/3 gradients and weights) are sharded over its own data-parallel group.
Stage dense_part(const Stage& st) {
  Stage d = st;
  const double share = st.weights_numel > 0 ? st.expert_numel / st.weights_numel : 0.0;
  d.weights_numel -= st.expert_numel;
  d.matrix_numel -= st.expert_matrix_numel;
  d.trainable_numel -= st.expert_trainable_numel;
  d.quantized_numel -= st.expert_matrix_numel * st.low_precision_share;
  d.adafactor_elements *= 1 - share;
  return d;
}

// Routed experts' weights, gradients and optimizer states: Megatron's distributed optimizer
// shards them over the expert-data-parallel group (ep x etp ranks hold different shards).
void add_expert_states(const Model& model, const Setup& setup, const Stage& st, Estimate& e) {
  Stage x;
  x.weights_numel = st.expert_numel;
  x.matrix_numel = st.expert_matrix_numel;
  x.trainable_numel = st.expert_trainable_numel;
  x.quantized_numel = st.expert_matrix_numel * st.low_precision_share;
  x.low_precision_share = st.low_precision_share;
  x.served_bytes_per_param = st.served_expert_bytes_per_param;
  x.adafactor_elements =
      st.weights_numel > 0 ? st.adafactor_elements * st.expert_numel / st.weights_numel : 0.0;
  Setup expert_setup = setup;
  expert_setup.dp = st.expert_dp;
  expert_setup.dp_shard = expert_dp_shard(setup, st.expert_dp);
  MemoryBytes m;
  model_state_memory(model, expert_setup, x, static_cast<double>(e.grad_accum_steps), m);
  e.memory.weights += m.weights;
  e.memory.gradients += m.gradients;
  e.memory.optimizer += m.optimizer;
  if (e.moe) e.moe->expert_params_per_gpu = st.expert_numel;
}

// The model with the run's multi-token prediction modules (Setup::mtp_layers), when it sets them.
Result<Model> model_with_mtp(const Model& model, const Setup& setup) {
  if (setup.mtp_layers < 0) return model;
  if (model.kind != ModelKind::transformer) return invalid(Msg::est_mtp_transformer, {model.id});
  Model run = model;
  run.transformer.mtp_layers = setup.mtp_layers;
  return run;
}

// The parameter tensors a run keeps: the run spec only drops the multi-token prediction modules
// at inference (run_spec).
std::vector<ParamTensor> stored_parameters(const TransformerSpec& spec, Mode mode) {
  TransformerSpec stored = spec;
  if (mode != Mode::train) stored.mtp_layers = 0;
  return transformer_parameters(stored);
}

}  // namespace

double block_recompute_share(const Setup& setup, double layers) {
  const double chunk = layers / std::max(1, setup.pp * setup.vp);
  if (chunk <= 0) return 0;
  return std::min<double>(setup.recompute_num_layers, chunk) / chunk;
}

Estimator::Estimator(const Model& model, const Setup& setup)
    : given_(model),
      mode_(setup.mode),
      mtp_layers_(setup.mtp_layers),
      model_(model_with_mtp(model, setup)) {
  if (!model_.ok() || model_.value().kind != ModelKind::transformer) return;
  const Model& m = model_.value();
  // Validated without building a message prefix; the prefix is added only on failure.
  if (auto err = validate_transformer(m.transformer, "")) {
    invalid_spec_ = make_error(err->code, "model '" + m.id + "'" + err->message);
    return;
  }
  tensors_ = stored_parameters(m.transformer, mode_);
}

Result<Estimate> estimate(const Model& model, const Setup& setup) {
  return Estimator(model, setup)(setup);
}

Result<Estimate> Estimator::operator()(const Setup& setup) const {
  if (setup.mode != mode_ || setup.mtp_layers != mtp_layers_) return estimate(given_, setup);
  if (auto err = validate_setup(setup)) return *err;
  if (!model_.ok()) return model_.error();
  const Model& model = model_.value();
  Estimate e;
  if (auto err = resolve_batch(setup, e)) return *err;
  e.num_gpus = setup.dp * setup.tp * setup.pp * setup.cp;
  if (setup.lora_rank > 0 && setup.mode != Mode::train)
    return invalid(Msg::est_lora_train_only, {});
  Stage st;
  if (setup.offload_activation_layers > 0 && model.kind != ModelKind::transformer)
    return invalid(Msg::est_offload_transformer, {model.id});
  if ((setup.cuda_graph_modules & ~kGraphFullIteration) != 0 &&
      model.kind != ModelKind::transformer)
    return invalid(
        Msg::est_graphs_transformer,
        {cuda_graph_modules_name(setup.cuda_graph_modules & ~kGraphFullIteration), model.id});
  if ((setup.cuda_graph_modules & kGraphMamba) && !model.transformer.is_mamba())
    return invalid(Msg::est_graphs_mamba, {model.id});
  auto err = model.kind == ModelKind::transformer
                 ? transformer_workload(model, setup, invalid_spec_, tensors_, e, st)
                 : graph_workload(model, setup, e, st);
  if (err) return *err;
  step_flops(model, setup, e);
  MemoryBytes& m = e.memory;
  model_state_memory(model, setup, dense_part(st), static_cast<double>(e.grad_accum_steps), m);
  if (st.expert_numel > 0) add_expert_states(model, setup, st, e);
  const MemoryAssumptions& a = setup.assumptions;
  m.activations = st.activation_bytes;
  m.kv_cache = st.kv_cache_bytes;
  m.workspace = a.cublas_workspace_bytes + st.largest_transient_bytes;
  m.context = a.cuda_context_bytes;
  m.fragmentation = st.saved_tensor_count * a.allocator_round_bytes / 2.0;
  e.flops.decode_bytes_per_token = st.decode_weight_bytes + st.kv_read_bytes;
  for (double v : {m.total(), e.flops.train_per_step, e.flops.forward_per_sample}) {
    if (!std::isfinite(v) || v < 0) {
      return invalid(Msg::est_overflow, {model.id});
    }
  }
  return e;
}

}  // namespace gpuplan
