#pragma once
// The workload estimate: for a model and a setup, parameters, FLOPs and peak memory per GPU,
// each term named. Pure function: no I/O, no globals, deterministic.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/model.h"
#include "gpuplan/result.h"
#include "gpuplan/transformer.h"

namespace gpuplan {

// How a framework stores and computes in each precision (the Method page documents the bytes):
//   fp32, tf32          fp32 weights, gradients, states and activations (tf32: tensor-core matmuls)
//   fp16, bf16          pure 16-bit: model.half()/bfloat16(), states in the same dtype
//   amp_fp16, amp_bf16  torch.autocast over fp32 weights: 16-bit matmul inputs and outputs, fp32
//                       residual stream, norm inputs and softmax
//   mixed_fp16/bf16     16-bit compute weights and activations (norm inputs, residual stream),
//                       fp32 master weights and optimizer states: FSDP MixedPrecision(param_dtype),
//                       Megatron --bf16/--fp16, apex O2, DeepSpeed bf16/fp16
//   fp8                 Transformer Engine's per-tensor FP8 (delayed or current scaling): bf16
//                       weights and activations, FP8 matmuls, fp32 masters
//   fp8_blockwise       TE's Float8BlockScaling: FP8 with fp32 scales per 128x128 weight block and
//                       per 1x128 activation block (DeepSeek-V3's scheme; Hopper)
//   mxfp8               TE's MXFP8BlockScaling: FP8 with one power-of-two (E8M0) scale per 32
//                       elements, row-wise and column-wise copies (Blackwell)
//   nvfp4               TE's NVFP4BlockScaling: FP4 (E2M1) with an E4M3 scale per 16 elements and
//                       an fp32 scale per tensor; random Hadamard transforms on the weight-gradient
//                       GEMM's inputs, stochastic rounding of gradients (Blackwell)
// precision.h holds the bytes of each.
enum class Precision {
  fp32,
  tf32,
  fp16,
  bf16,
  amp_fp16,
  amp_bf16,
  fp8,
  mixed_fp16,
  mixed_bf16,
  fp8_blockwise,
  mxfp8,
  nvfp4
};
enum class Optimizer { sgd, sgd_momentum, adam, adamw, adam_8bit, adafactor, lamb };
// How the optimizer step (and gradient clipping) visits the parameter tensors:
//   foreach   multi-tensor kernels over all tensors at once (torch.optim's default on CUDA since
//             PyTorch 2.0; apex's fused optimizers): the step is bound by memory bandwidth
//   for_loop  one Python iteration and a few kernels per tensor (torch.optim before 2.0,
//             foreach=False, hand-written optimizers such as DeepLearningExamples' JIT LAMB): the
//             host pays a measured time per tensor (data/assumptions.json)
enum class OptimizerLoop { foreach, for_loop };
// Activation checkpointing as the frameworks implement it:
//   selective       Megatron-LM's selective recompute (--recompute-granularity selective) of the
//                   modules in Setup::recompute_modules; by default the attention core (Korthikanti
//                   et al. 2022, sec. 5): drops the a*s^2 terms, nothing to drop once it is flash
//   full            every block recomputed from its input (Chen et al. 2016; FSDP/Megatron "full")
//   op_selective    torchtitan's op-level SAC (ac_mode selective, op): keeps the outputs of
//                   attention and of every second matmul of a block, recomputes the rest
//   every_k_layers  torchtitan's layer-level SAC: full recompute of every k-th block
//   block           Megatron's --recompute-granularity full --recompute-method block: the first
//                   Setup::recompute_num_layers blocks of each model chunk (a pipeline stage, or
//                   each of its virtual stages) recomputed in full, the others keep everything
enum class Checkpointing { none, selective, full, op_selective, every_k_layers, block };
// The parts of a block Megatron-Core's selective recompute can rebuild in backward
// (--recompute-modules; TransformerConfig.recompute_modules in megatron/core/transformer/
// transformer_config.py), as bits of Setup::recompute_modules. Each drops what its module keeps
// for backward and runs its forward again before the block's backward:
//   core_attn       the attention core (the default)
//   layernorm       the two norms before attention and MLP: their outputs, the inputs of QKV and
//                   of the MLP (or router and dispatch), are not kept
//   mla_up_proj     multi-latent attention's up projections: Q, K and V rebuilt from the latents
//   mlp             a dense block's MLP (MoE blocks: moe)
//   moe             a whole MoE layer: router, dispatch and combine, experts, shared experts
//   moe_act         the routed experts' activation function: its output, fc2's input
//   shared_experts  the shared experts
enum RecomputeModule : unsigned {
  kRecomputeCoreAttn = 1u << 0,
  kRecomputeLayernorm = 1u << 1,
  kRecomputeMlaUpProj = 1u << 2,
  kRecomputeMlp = 1u << 3,
  kRecomputeMoe = 1u << 4,
  kRecomputeMoeAct = 1u << 5,
  kRecomputeSharedExperts = 1u << 6,
};
// The modules whose inputs Megatron-Core's fine-grained activation offloading sends to host memory
// (--fine-grained-activation-offloading --offload-modules; TransformerConfig.offload_modules in
// transformer_config.py at NVIDIA/Megatron-LM@d98e8a64), as bits of Setup::offload_modules. Each
// module's saved input is copied to the host after its block's forward pass and back before the
// block's backward, on a stream beside the compute:
//   expert_fc1  the routed experts' first GEMM: its input, the tokens each expert received
//   moe_act     the routed experts' activation function: its input, the first GEMM's output
// Megatron's other modules (attn_norm, qkv_linear, core_attn, attn_proj, mlp_norm,
// fused_group_mlp, gdp_qkv) are not modelled.
enum OffloadModule : unsigned {
  kOffloadExpertFc1 = 1u << 0,
  kOffloadMoeAct = 1u << 1,
};
// The parts of each transformer block Megatron-Core replays from CUDA graphs in training
// (--cuda-graph-impl transformer_engine --cuda-graph-scope / --cuda-graph-modules;
// TransformerLayer._get_submodules_under_cudagraphs in transformer_layer.py at
// NVIDIA/Megatron-LM@d98e8a64), as bits of Setup::cuda_graph_modules. A replayed kernel costs the
// host no launch of its own; the graph costs one.
//   attn            the input norm and the attention sublayer
//   mlp             a dense block's norm and MLP
//   moe             a whole MoE block (token-drop with padding only: its shapes must not change)
//   moe_router      an MoE block's norm, router and shared experts
//   moe_preprocess  the dispatcher's preprocessing (needs moe_router; its kernels are not among
//                   those gpuplan counts)
//   mamba           a hybrid model's Mamba layers (MambaLayer: norm, mixer, residual add)
//   layer           every block whole (Megatron: an empty module list)
//   full_iteration  the whole forward and backward pass (--cuda-graph-impl full_iteration)
enum CudaGraphModule : unsigned {
  kGraphAttn = 1u << 0,
  kGraphMlp = 1u << 1,
  kGraphMoe = 1u << 2,
  kGraphMoeRouter = 1u << 3,
  kGraphMoePreprocess = 1u << 4,
  kGraphLayer = 1u << 5,
  kGraphFullIteration = 1u << 6,
  kGraphMamba = 1u << 7,
};
// The dtype gradients are reduced and kept in under a mixed recipe (FSDP reduce_dtype,
// Megatron's fp32 main_grad); automatic: fp32.
enum class GradReduce { automatic, fp32, bf16 };
// A storage dtype chosen for optimizer states or master weights (Megatron-Core's precision-aware
// optimizer: --exp-avg-dtype / --exp-avg-sq-dtype, --main-params-dtype); automatic: the recipe's.
enum class StoreDtype { automatic, fp32, bf16, fp16, fp8 };
enum class Mode { train, infer };
// The PyTorch release, where it changes what runs: before 1.11, softmax and log_softmax saved
// their input for backward as well as their output (pytorch/pytorch#64000, fixed by
// #65242/#66018 in 1.11; transformers#16043 follows the API change); before 2.0 there is no
// torch.nn.functional.scaled_dot_product_attention, so "auto" attention is eager.
enum class TorchRelease { v2_0_or_later, v1_11_to_1_13, v1_10_or_earlier };
// The attention kernel: eager (scores materialised), flash (FlashAttention-2, also PyTorch SDPA's
// flash backend), flash3 (FlashAttention-3, Hopper), cudnn (cuDNN's fused attention, what
// Transformer Engine picks on Hopper and newer), triton (FlashAttention in Triton,
// flash_attn_triton.py: MPT / llm-foundry's attn_impl "triton"). A causal kernel skips the masked
// half of the scores; eager computes them all and masks after.
enum class Attention { automatic, eager, flash, flash3, cudnn, triton, flash1 };
// Why the attention kernel is what it is (Estimate::attention_reason): given (--attention),
// sdpa (auto: PyTorch's scaled_dot_product_attention picks a fused kernel), or why auto is eager:
// not_16bit (gpuplan models fused kernels at 16 bits only), before_torch_2 (no SDPA),
// relative_positions (T5 buckets, Transformer-XL: the scores carry a bias the implementation
// adds itself), model_default (the model's reference implementation computes attention itself).
enum class AttentionReason {
  given,
  sdpa,
  not_16bit,
  before_torch_2,
  relative_positions,
  model_default
};
// How context parallelism exchanges attention's inputs: ring passes K/V chunks around the ring
// while attention computes on the chunk at hand (Megatron-Core / Transformer Engine
// cp_comm_type "p2p"); all_to_all swaps sequence shards for head shards around attention
// (DeepSpeed Ulysses; TE "a2a").
enum class ContextComm { ring, all_to_all };
// The training framework a run uses; each sets the defaults that framework uses
// (framework_preset(), gpuplan/framework.h). none: gpuplan's own defaults (plain PyTorch).
enum class Framework { none, megatron, torchtitan, fsdp, deepspeed, hf_trainer, megatron_bridge };
enum class MemoryFormat { automatic, nchw, channels_last };
// How tokens reach their experts under expert parallelism (expert_parallel.h):
//   alltoall  NCCL all-to-all over the expert-parallel group: every (token, expert) pair is sent
//             on its own (Megatron --moe-token-dispatcher-type alltoall)
//   deepep    DeepEP's dispatch: a token crosses the network once per remote node that holds
//             any of its experts and is forwarded inside the node over NVLink (deepseek-ai/DeepEP
//             README; Megatron --moe-token-dispatcher-type flex --moe-flex-dispatcher-backend
//             deepep)
//   hybridep  HybridEP (--moe-flex-dispatcher-backend hybridep): DeepEP's routing, for NVLink
//             domains larger than a host (NVL72) too, its kernels on the SMs Megatron gives them
enum class MoeDispatcher { alltoall, deepep, hybridep };

// Names as the CLI and URLs spell them ("amp-bf16", "adam-8bit", ...), and back.
const char* precision_name(Precision p);
const char* optimizer_name(Optimizer o);
const char* checkpointing_name(Checkpointing c);
const char* mode_name(Mode m);
const char* attention_name(Attention a);
// "given", "sdpa", ... and the sentence the CLI prints for it (English; the page has its own).
const char* attention_reason_name(AttentionReason r);
const char* attention_reason_text(AttentionReason r);
const char* memory_format_name(MemoryFormat f);
const char* grad_reduce_name(GradReduce g);
const char* optimizer_loop_name(OptimizerLoop l);
const char* torch_release_name(TorchRelease r);  // "2.0+", "1.11-1.13", "1.10"
const char* context_comm_name(ContextComm c);    // "ring", "all-to-all"
const char* framework_name(Framework f);         // "megatron", "hf-trainer", ...
const char* moe_dispatcher_name(MoeDispatcher d);
const char* store_dtype_name(StoreDtype d);  // "auto", "fp32", "bf16", "fp16", "fp8"
// RecomputeModule bits as Megatron spells them, comma-separated ("layernorm,moe_act"), and back;
// parse_recompute_modules takes Megatron's names, with '-' for '_' too, and refuses an empty list.
std::string recompute_modules_name(unsigned modules);
std::optional<unsigned> parse_recompute_modules(const std::string& s);
// OffloadModule bits as Megatron spells them ("expert_fc1,moe_act"), and back; "" is no module.
std::string offload_modules_name(unsigned modules);
std::optional<unsigned> parse_offload_modules(const std::string& s);
std::string cuda_graph_modules_name(unsigned modules);
std::optional<unsigned> parse_cuda_graph_modules(const std::string& s);
std::optional<Precision> parse_precision(const std::string& s);
std::optional<Optimizer> parse_optimizer(const std::string& s);
std::optional<Checkpointing> parse_checkpointing(const std::string& s);
std::optional<Mode> parse_mode(const std::string& s);
std::optional<Attention> parse_attention(const std::string& s);
std::optional<MemoryFormat> parse_memory_format(const std::string& s);
std::optional<GradReduce> parse_grad_reduce(const std::string& s);
std::optional<OptimizerLoop> parse_optimizer_loop(const std::string& s);
std::optional<ContextComm> parse_context_comm(const std::string& s);
std::optional<Framework> parse_framework(const std::string& s);
std::optional<MoeDispatcher> parse_moe_dispatcher(const std::string& s);
std::optional<StoreDtype> parse_store_dtype(const std::string& s);
// A release number ("1.10", "1.13", "2", "2.5") or a name above.
std::optional<TorchRelease> parse_torch_release(const std::string& s);
// Whether weights are cast by torch.autocast (amp-*) or kept in 16 bits with fp32 masters
// (mixed-*); precision.h has the Transformer Engine recipes' predicates.
bool is_autocast(Precision p);
bool is_mixed(Precision p);

// Assumed constants that are not properties of the model; defaults cite their source and a
// probe file may replace them (calibration).
struct MemoryAssumptions {
  // CUDA context plus the kernels PyTorch loads, as nvidia-smi reports it. Hugging Face,
  // "Model training anatomy" (transformers docs): 1343 MB on a V100 for torch.ones(1).cuda().
  double cuda_context_bytes = 1343.0 * 1024 * 1024;
  // cuBLAS workspace PyTorch reserves per handle: ":4096:8" = 8 x 4 MiB (PyTorch docs,
  // torch.use_deterministic_algorithms / CUBLAS_WORKSPACE_CONFIG).
  double cublas_workspace_bytes = 8.0 * 4 * 1024 * 1024;
  // PyTorch's caching allocator rounds requests above 1 MiB up to a multiple of 2 MiB
  // (c10/cuda/CUDACachingAllocator.cpp, kRoundLarge): on average half a unit per live tensor.
  double allocator_round_bytes = 2.0 * 1024 * 1024;
};

// How a workload is run. Zero in a size field means "use the default" (see each field).
struct Setup {
  Mode mode = Mode::train;
  int64_t global_batch = 0;  // samples per optimizer step; 0: micro_batch x dp
  int64_t micro_batch = 0;   // samples per GPU per forward/backward; 0: global_batch / dp
  int64_t seq_len = 0;       // tokens per sample; 0: the model's default
  int64_t resolution = 0;    // image side in pixels; 0: the model's default
  Precision precision = Precision::fp32;
  Optimizer optimizer = Optimizer::adamw;
  OptimizerLoop optimizer_loop = OptimizerLoop::foreach;
  // torch.nn.utils.clip_grad_norm_ before each step; it costs host time only in a for-loop run
  // (a norm and a scale per tensor), the multi-tensor version is a few kernels.
  bool clip_grad_norm = false;
  Checkpointing checkpointing = Checkpointing::none;
  int checkpoint_every = 2;                         // every_k_layers: one block in k is recomputed
  int recompute_num_layers = 1;                     // block: blocks recomputed per model chunk
  unsigned recompute_modules = kRecomputeCoreAttn;  // selective: RecomputeModule bits
  // Activation offloading to host memory (Megatron --cpu-offloading with
  // --cpu-offloading-num-layers N, activations only: Transformer Engine's get_cpu_offload_context).
  // The saved activations of the first N blocks are copied to host memory during the forward
  // pass and back during the backward, so the GPU keeps L - N blocks' worth (TE's docstring).
  // Megatron allows it without pipeline parallelism and without recomputation, N < L.
  int offload_activation_layers = 0;
  // Fine-grained activation offloading (OffloadModule bits; 0: off): the named modules' inputs
  // wait in host memory between each block's forward and backward. Megatron refuses it beside
  // --cpu-offloading and beside recomputing the whole MoE layer the modules are in.
  unsigned offload_modules = 0;
  // Training kernels replayed from CUDA graphs (CudaGraphModule bits; 0: every kernel launched
  // by the host).
  unsigned cuda_graph_modules = 0;
  GradReduce grad_reduce = GradReduce::automatic;
  // Transformer Engine's recipes (fp8, fp8-blockwise, mxfp8, nvfp4), as the framework drives them:
  // - cache_quantized_weights: the framework passes is_first_microbatch to TE's modules
  //   (Megatron-Core does), so each weight is quantised once per optimizer step and reused by
  //   the step's other micro-batches; without it (Composer / llm-foundry, plain loops) TE
  //   quantises every weight in every micro-batch (pytorch/module/linear.py: no workspace cache
  //   when is_first_microbatch is None).
  // - quantized_params: the compute weights are the quantised tensors themselves, kept and
  //   all-gathered in the recipe's format with no bf16 copy (Megatron --fp8-param-gather /
  //   --fp4-param-gather; TE quantized_model_init).
  // - bf16_first_layers / bf16_last_layers: transformer blocks kept in bf16 at either end
  //   (Megatron --first-last-layers-bf16 with --num-layers-at-start-in-bf16 / -end-in-bf16).
  bool cache_quantized_weights = false;
  bool quantized_params = false;
  // TE recipes: the attention core's two matmuls in FP8 (Megatron --fp8-dot-product-attention,
  // Transformer Engine's cuDNN fused attention with fp8_dpa), at the FP8 tensor rate.
  bool fp8_attention = false;
  int bf16_first_layers = 0;
  int bf16_last_layers = 0;
  // Megatron-Core's precision-aware optimizer (--use-precision-aware-optimizer, TE's FusedAdam):
  // Adam's two moments and the master weights in another dtype (automatic: fp32).
  StoreDtype optimizer_state_dtype = StoreDtype::automatic;
  StoreDtype master_dtype = StoreDtype::automatic;
  bool compile = false;  // torch.compile: non-matmul kernels fused (transformers)
  // The framework's own fused norm, activation, bias-dropout-add and softmax kernels (Megatron's
  // fusions, Transformer Engine's LayerNormLinear, flash-attn's training kernels): like
  // torch.compile, the non-matmul work runs at HBM rate.
  bool fused_kernels = false;
  bool fused_loss = false;  // a fused cross-entropy (flash-attn, Liger): no fp32 logits kept
  // Dropout probability for the attention probabilities and the residual stream in training;
  // < 0: the model's own (its config's attn/resid/hidden dropout).
  double dropout = -1;
  // Multi-token prediction modules trained with the model (DeepSeek-V3's MTP; Megatron
  // --mtp-num-layers); < 0: the model's own count. Inference never runs them.
  int mtp_layers = -1;
  // automatic: flash at 16-bit for rotary-position (LLaMA-family) models, else eager.
  Attention attention = Attention::automatic;
  // Convolution activations in memory: NCHW is PyTorch's default; channels_last (NHWC) is what
  // tensor-core convolutions run on. automatic: channels_last at 16 bits, NCHW otherwise, as
  // NVIDIA's reference recipes do (DeepLearningExamples ConvNets configs.yml).
  MemoryFormat memory_format = MemoryFormat::automatic;
  int dp = 1;          // data-parallel replicas
  int zero_stage = 0;  // 0-3; 3 is also FSDP full sharding
  // Hybrid sharding (HSDP): ZeRO shards over groups of dp_shard consecutive data-parallel ranks,
  // each group a full replica, and the dp / dp_shard replicas all-reduce the sharded gradients
  // (FSDP2's replicate x shard mesh, torchtitan's data_parallel_shard_degree, Megatron's
  // --num-distributed-optimizer-instances dp / dp_shard, DeepSpeed's mics_shard_size).
  // 0, or dp and more: one group of all dp ranks (hybrid_shard).
  int dp_shard = 0;
  int tp = 1;  // tensor-parallel degree
  bool sequence_parallel = false;
  int pp = 1;  // pipeline stages (1F1B schedule)
  // Virtual pipeline stages per pipeline rank: the interleaved 1F1B schedule (Narayanan et al.
  // 2021, sec. 2.2.2; Megatron --num-virtual-stages-per-pipeline-rank); 1: plain 1F1B.
  int vp = 1;
  int cp = 1;  // context-parallel degree: the sequence split over cp GPUs
  ContextComm cp_comm = ContextComm::ring;
  // Tensor-parallel communication overlapped with the GEMMs (Transformer Engine userbuffers,
  // Megatron --tp-comm-overlap); needs sequence parallelism.
  bool tp_comm_overlap = false;
  // Gradient reduction in buckets overlapped with the backward pass (PyTorch DDP always does;
  // Megatron --overlap-grad-reduce, off by default there).
  bool overlap_grad_reduce = true;
  // ZeRO-1 / distributed optimizer: the updated parameters' all-gather overlapped with the next
  // step's forward (Megatron --overlap-param-gather); off: it follows the optimizer step.
  bool overlap_param_gather = false;
  Framework framework = Framework::none;  // as set by framework_preset(); shown in reports
  // Mixture of experts (expert_parallel.h): the experts sharded over ep ranks carved out of the
  // dp x cp x tp ranks, each expert's GEMMs split over etp ranks (0: etp = tp, Megatron's default).
  int ep = 1;
  int etp = 0;
  // An expert takes at most this many times an even share of the tokens and drops the rest
  // (GShard/Switch capacity factor); 0: dropless, Megatron's default. With moe_pad_to_capacity
  // every expert's input is padded to that capacity (Megatron's
  // --moe-pad-expert-input-to-capacity; Megatron-Bridge's token-drop recipes use 1.0 padded).
  double capacity_factor = 0;
  bool moe_pad_to_capacity = false;
  // HybridEP's static per-rank budget (Megatron --moe-expert-rank-capacity-factor): each
  // expert-parallel rank receives at most this many times an even share of the routed tokens
  // into fixed-size buffers and drops the rest; 0: buffers sized each step (no budget). Fixed
  // shapes let a full-iteration CUDA graph hold the MoE blocks while the grouped GEMMs still run
  // on the tokens received (token_dispatcher.py, _HybridEPManager.setup_metadata).
  double moe_rank_capacity = 0;
  // The busiest expert's tokens relative to an even share; 0: kDefaultBusiestExpertLoad, 1: an
  // even router (the benchmarks' --moe-router-force-load-balancing).
  double moe_imbalance = 0;
  MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;
  // Megatron's --overlap-moe-expert-parallel-comm: the all-to-alls of one micro-batch run while
  // the next micro-batch's forward and this one's backward compute (1F1B A2A overlap).
  bool moe_a2a_overlap = false;
  int64_t lora_rank = 0;  // > 0: LoRA adapters on lora_targets, base frozen
  bool qlora = false;     // 4-bit NF4 base weights with double quantisation
  std::vector<std::string> lora_targets = {"q_proj", "v_proj"};  // PEFT's LLaMA default
  int64_t generate_tokens = 0;  // inference: tokens decoded after the prompt (seq_len)
  TorchRelease torch_release = TorchRelease::v2_0_or_later;
  MemoryAssumptions assumptions;
};

// HSDP's shard group: dp_shard where it leaves two replicas or more, else 0 (one group holds
// every data-parallel rank: no dp_shard, or one of dp ranks or more).
inline int hybrid_shard(const Setup& s) {
  return s.dp_shard > 0 && s.dp_shard < s.dp ? s.dp_shard : 0;
}
// The ranks one ZeRO shard spans: the hybrid shard group or all dp, with the context-parallel
// ranks, which shard beside them.
inline int shard_ranks(const Setup& s) {
  return (hybrid_shard(s) > 0 ? hybrid_shard(s) : s.dp) * s.cp;
}
// HSDP's shard group within the expert-data-parallel group of `expert_dp` ranks, which splits
// into the same dp / dp_shard replicas (Megatron's distributed optimizer instances divide both);
// 0 without HSDP (one group of all).
inline int expert_dp_shard(const Setup& s, int expert_dp) {
  return hybrid_shard(s) > 0 ? expert_dp * hybrid_shard(s) / s.dp : 0;
}

// Parameter counts.
struct ParamCounts {
  int64_t total = 0;
  int64_t trainable = 0;
  int64_t embedding = 0;  // token/position/patch embeddings
  // Parameters one token passes through: all but the routed experts it is not sent to (the
  // embedding table counts whole, as Mistral, Meta and Qwen count "active"; DeepSeek and OpenAI
  // leave the input embedding out of theirs).
  int64_t active_per_token = 0;
  int64_t experts = 0;  // mixture of experts: the routed experts' parameters (in total)
  int64_t mtp = 0;      // multi-token prediction modules (in total when trained; none at inference)
  int64_t tensors = 0;  // parameter tensors (model.parameters()), trainable ones
};

// FLOPs, multiply-add = 2.
struct FlopCounts {
  double forward_per_sample = 0;         // one forward pass of one sample
  double forward_matmul_per_sample = 0;  // its matrix multiplications and convolutions
  // Its Q K^T and scores x V part (transformers): for a causal language model the query-key
  // pairs the mask keeps, half the square (what FlashAttention and Megatron count).
  double forward_attention_per_sample = 0;
  // The same over every query-key pair, as counted by sources that ignore the mask (llm-foundry's
  // MFU formula); equal to the above for bidirectional attention.
  double forward_attention_unmasked_per_sample = 0;
  double forward_per_step = 0;    // forward over the global batch
  double backward_per_step = 0;   // 2x forward, or 1x for frozen (LoRA) weights
  double recompute_per_step = 0;  // activation checkpointing's extra forward
  // The part of it in the recompute modules' matmuls (Setup::recompute_modules other than the
  // attention core), which the time model takes from the recomputed kernels themselves.
  double recompute_modules_per_step = 0;
  double train_per_step = 0;                // forward + backward + recompute
  double params_rule_per_token = 0;         // 6 * N (Kaplan et al. 2020), for comparison
  double params_rule_active_per_token = 0;  // 6 * N active: what a token of an MoE model costs
  double tokens_per_sample = 0;
  // Inference (mode infer).
  double prefill = 0;                 // forward over the prompt, whole batch
  double decode_per_token = 0;        // one generated token, whole batch
  double decode_bytes_per_token = 0;  // weights + KV cache read per decode step, per GPU
};

// Peak memory of one GPU, by term, in bytes.
struct MemoryBytes {
  double weights = 0;  // parameters as stored (plus fp16 copies under autocast)
  double gradients = 0;
  double optimizer = 0;    // optimizer states (and fp32 master weights where kept there)
  double activations = 0;  // kept for backward (training) or live between layers (inference)
  double kv_cache = 0;
  double workspace = 0;      // cuBLAS workspace and the largest transient buffers
  double context = 0;        // CUDA context and kernels
  double fragmentation = 0;  // caching-allocator rounding
  double total() const {
    return weights + gradients + optimizer + activations + kv_cache + workspace + context +
           fragmentation;
  }
};

// A mixture-of-experts model under its setup (expert_parallel.h), per GPU.
struct MoeEstimate {
  int ep = 1;                // expert-parallel ranks
  int etp = 1;               // expert-tensor-parallel ranks
  int edp = 1;               // replicas of each expert shard (its gradient reduction)
  double local_experts = 0;  // routed experts held by one GPU, per MoE block
  double rank_load = 1;      // the busiest rank's routed tokens / an even share
  double receive_share = 1;  // its receive buffers / an even share (a rank budget's, if set)
  double expert_params_per_gpu = 0;     // routed experts' parameters on one GPU (busiest stage)
  double dispatch_bytes_per_layer = 0;  // one MoE block's dispatch, one micro-batch, one GPU
  double dispatch_buffer_bytes = 0;     // its send and receive buffers, live together
};

// The share of a pipeline stage's blocks that block recomputation (Checkpointing::block) rebuilds:
// the first recompute_num_layers of each of its vp model chunks of layers / (pp x vp) blocks
// (megatron/core/transformer/transformer_block.py, _checkpointed_forward, method "block").
double block_recompute_share(const Setup& setup, double layers);

// The full estimate.
struct Estimate {
  ParamCounts params;
  FlopCounts flops;
  MemoryBytes memory;  // per GPU (the most loaded pipeline stage)
  int64_t global_batch = 0;
  int64_t micro_batch = 0;
  int64_t grad_accum_steps = 0;  // micro-batches per optimizer step on each replica
  int64_t seq_len = 0;
  int64_t resolution = 0;
  int num_gpus = 1;
  std::string attention;  // "eager" or "flash", as resolved
  AttentionReason attention_reason = AttentionReason::given;
  std::string memory_format;  // "nchw" or "channels-last", as resolved (layer graphs; "" otherwise)
  std::optional<MoeEstimate> moe;  // models with experts
  // Activation offloading (Setup::offload_activation_layers): one offloaded block's saved
  // activations for one micro-batch on one GPU, what each copy to host memory and back moves.
  double offload_bytes_per_layer = 0;
  // Fine-grained activation offloading (Setup::offload_modules): the offloaded inputs of one MoE
  // block for one micro-batch on the busiest GPU, what each copy to host memory and back moves.
  double offload_module_bytes_per_layer = 0;
  double offload_module_layers = 0;  // the MoE blocks whose inputs it offloads (all stages)
  std::vector<std::string> notes;    // assumptions that shaped this estimate
};

// The transformer as a setup runs it: a vision model at `resolution` (0: its own), dropout as
// the setup overrides it.
TransformerSpec run_spec(const TransformerSpec& spec, const Setup& setup, int64_t resolution);

// Share of a transformer's query-key pairs its attention computes: causal language models see
// only earlier positions (about half), everything else 1. `run` as run_spec() makes it.
double causal_attention_fraction(const Model& model, const TransformerSpec& run, double tokens);
// Forward FLOPs of one sample with causal attention counted at that share.
TransformerFlops model_forward_flops(const Model& model, const TransformerSpec& run,
                                     int64_t seq_len);

// Computes the estimate; an inconsistent setup gives an Error naming the field.
Result<Estimate> estimate(const Model& model, const Setup& setup);

// estimate() over many setups of one model, as the planner runs it: what depends only on the
// model and on the setup's mode and multi-token prediction layers is worked out once, not per
// setup. Each call returns what estimate(model, setup) returns.
class Estimator {
 public:
  // `model` must outlive the Estimator; `setup` gives the mode and mtp_layers the work is for.
  Estimator(const Model& model, const Setup& setup);
  // A setup with another mode or mtp_layers is estimated from scratch.
  Result<Estimate> operator()(const Setup& setup) const;

 private:
  const Model& given_;
  Mode mode_;
  int mtp_layers_;
  Result<Model> model_;                // with the setup's multi-token prediction layers
  std::optional<Error> invalid_spec_;  // validate_transformer's verdict (transformer models)
  // The parameter tensors as stored, without the MTP modules at inference (a valid transformer).
  std::vector<ParamTensor> tensors_;
};

}  // namespace gpuplan
