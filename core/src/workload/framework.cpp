// The defaults each training framework runs with, as its code sets them. Only what differs from
// gpuplan's own defaults (plain PyTorch: DDP buckets overlapped with backward, eager kernels,
// FlashAttention-2 for rotary models at 16 bits) is listed.
#include "gpuplan/framework.h"
#include "gpuplan/precision.h"

#include <cstring>

namespace gpuplan {
namespace {

const std::vector<FrameworkDefault> kNone;

const std::vector<FrameworkDefault> kMegatron = {
    {"fused-kernels", "1",
     "NVIDIA/Megatron-LM@d98e8a64ddf3 megatron/training/arguments.py: masked-softmax, "
     "bias-SwiGLU/GeLU and bias-dropout-add fusions are on unless --no-*-fusion is given; "
     "Transformer Engine's LayerNormLinear fuses the norm into the GEMM"},
    {"attention", "cudnn",
     "NVIDIA/TransformerEngine@d0067d0da6cb transformer_engine/pytorch/attention/"
     "dot_product_attention/utils.py: FusedAttention (cuDNN) is preferred over FlashAttention "
     "on Hopper and newer; before Hopper FlashAttention-2 runs (gpuplan uses its figures there)"},
    {"overlap-grad-reduce", "0",
     "NVIDIA/Megatron-LM@d98e8a64ddf3 megatron/core/distributed/"
     "distributed_data_parallel_config.py: overlap_grad_reduce, overlap_param_gather and "
     "use_distributed_optimizer are False unless --overlap-grad-reduce, --overlap-param-gather "
     "and --use-distributed-optimizer (--zero 1) are given; tp_comm_overlap likewise"},
};

// NVIDIA's Megatron-Bridge (NeMo's training library on Megatron-Core) as its pretraining recipes
// run: the model provider's fusions and Transformer Engine's attention as Megatron's, plus a fused
// cross-entropy, and the recipes' distributed optimizer with both overlaps.
const std::vector<FrameworkDefault> kMegatronBridge = {
    {"fused-kernels", "1",
     "NVIDIA-NeMo/Megatron-Bridge@067f987df03b src/megatron/bridge/models/gpt_provider.py: "
     "masked_softmax_fusion True, the bias-activation and bias-dropout fusions of Megatron-Core's "
     "TransformerConfig; Transformer Engine's LayerNormLinear fuses the norm into the GEMM"},
    {"attention", "cudnn",
     "NVIDIA/TransformerEngine@d0067d0da6cb transformer_engine/pytorch/attention/"
     "dot_product_attention/utils.py: FusedAttention (cuDNN) is preferred over FlashAttention "
     "on Hopper and newer"},
    {"fused-loss", "1",
     "NVIDIA-NeMo/Megatron-Bridge@067f987df03b src/megatron/bridge/models/gpt_provider.py: "
     "cross_entropy_loss_fusion True (Megatron-Core's default is False)"},
    {"zero", "1",
     "NVIDIA-NeMo/Megatron-Bridge@067f987df03b src/megatron/bridge/recipes/common.py: the "
     "pretraining recipes' DistributedDataParallelConfig sets use_distributed_optimizer True "
     "(recipes/utils/optimizer_utils.py likewise)"},
    {"overlap-grad-reduce", "1",
     "NVIDIA-NeMo/Megatron-Bridge@067f987df03b src/megatron/bridge/recipes/common.py: "
     "overlap_grad_reduce True"},
    {"overlap-param-gather", "1",
     "NVIDIA-NeMo/Megatron-Bridge@067f987df03b src/megatron/bridge/recipes/common.py: "
     "overlap_param_gather True"},
    {"grad-reduce", "fp32",
     "NVIDIA-NeMo/Megatron-Bridge@067f987df03b src/megatron/bridge/recipes/common.py: "
     "grad_reduce_in_fp32 True (its performance recipes set False: perf_recipes/_common.py)"},
};

const std::vector<FrameworkDefault> kTorchtitan = {
    {"zero", "3",
     "pytorch/torchtitan@b5bcd76c66d0 torchtitan/config/configs.py: data_parallel_shard_degree "
     "= -1, FSDP2 over every data-parallel rank"},
    {"precision", "mixed-bf16",
     "pytorch/torchtitan@b5bcd76c66d0 torchtitan/config/configs.py: mixed_precision_param = "
     "bfloat16, mixed_precision_reduce = float32 over fp32 sharded parameters"},
    {"attention", "cudnn",
     "pytorch/torchtitan@b5bcd76c66d0 torchtitan/models/common/attention.py: "
     "ScaledDotProductAttention tries SDPBackend.CUDNN_ATTENTION first, then FLASH_ATTENTION"},
};

const std::vector<FrameworkDefault> kFsdp = {
    {"zero", "3",
     "pytorch/pytorch@6d71f74c873d torch/distributed/fsdp/fully_sharded_data_parallel.py: "
     "sharding_strategy None means FULL_SHARD; backward_prefetch BACKWARD_PRE overlaps the next "
     "all-gather with the current block"},
};

const std::vector<FrameworkDefault> kDeepspeed = {
    {"overlap-grad-reduce", "0",
     "deepspeedai/DeepSpeed@edaa72212672 deepspeed/runtime/zero/config.py: ZeRO stage 0 by "
     "default, and overlap_comm defaults to True only for stage 3 (overlap_comm_valid): below "
     "it the gradients are reduced after the backward pass"},
};

const std::vector<FrameworkDefault> kHfTrainer = {
    {"overlap-grad-reduce", "1",
     "huggingface/transformers@fd798335c275 src/transformers/training_args.py: "
     "ddp_bucket_cap_mb None keeps PyTorch DistributedDataParallel's 25 MB buckets "
     "(pytorch/pytorch@25562d3d4187 torch/nn/parallel/distributed.py), reduced during backward"},
};

bool sixteen_bit(Precision p) {
  return p != Precision::fp32 && p != Precision::tf32;
}

// Sets one default on `s`; the keys and values are the presets' own, so always known.
void set_default(Setup& s, const FrameworkDefault& d) {
  const bool on = std::strcmp(d.value, "1") == 0;
  if (std::strcmp(d.key, "fused-kernels") == 0) {
    s.fused_kernels = on;
  } else if (std::strcmp(d.key, "overlap-grad-reduce") == 0) {
    s.overlap_grad_reduce = on;
  } else if (std::strcmp(d.key, "overlap-param-gather") == 0) {
    s.overlap_param_gather = on;
  } else if (std::strcmp(d.key, "fused-loss") == 0) {
    s.fused_loss = on;
  } else if (std::strcmp(d.key, "grad-reduce") == 0 && has_master_weights(s.precision)) {
    if (auto g = parse_grad_reduce(d.value)) s.grad_reduce = *g;
  } else if (std::strcmp(d.key, "zero") == 0) {
    s.zero_stage = d.value[0] - '0';
  } else if (std::strcmp(d.key, "precision") == 0) {
    if (auto p = parse_precision(d.value)) s.precision = *p;
  } else if (std::strcmp(d.key, "attention") == 0 && sixteen_bit(s.precision)) {
    if (auto a = parse_attention(d.value)) s.attention = *a;
  }
}

}  // namespace

const std::vector<FrameworkDefault>& framework_defaults(Framework framework) {
  switch (framework) {
    case Framework::none:
      return kNone;
    case Framework::megatron:
      return kMegatron;
    case Framework::torchtitan:
      return kTorchtitan;
    case Framework::fsdp:
      return kFsdp;
    case Framework::deepspeed:
      return kDeepspeed;
    case Framework::hf_trainer:
      return kHfTrainer;
    case Framework::megatron_bridge:
      return kMegatronBridge;
  }
  return kNone;
}

void apply_framework_defaults(Setup& setup, bool (*given)(const char* key, const void* context),
                              const void* context) {
  // In table order: the precision comes before the attention kernel that depends on it.
  for (const FrameworkDefault& d : framework_defaults(setup.framework)) {
    if (!given(d.key, context)) set_default(setup, d);
  }
}

bool runs_megatron_core(Framework framework) {
  return framework == Framework::megatron || framework == Framework::megatron_bridge;
}

Setup framework_setup(Framework framework, Precision precision) {
  Setup s;
  s.framework = framework;
  s.precision = precision;
  apply_framework_defaults(
      s, [](const char*, const void*) { return false; }, nullptr);
  return s;
}

}  // namespace gpuplan
