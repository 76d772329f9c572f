// Spellings of setup enums, shared by the CLI, URLs and JSON output.
#include <algorithm>
#include <array>
#include <cstdio>
#include <utility>

#include "gpuplan/estimate.h"

namespace gpuplan {
namespace {

template <class E, size_t N>
const char* name_of(const std::array<std::pair<E, const char*>, N>& table, E value) {
  for (const auto& [e, name] : table) {
    if (e == value) return name;
  }
  return "?";
}

template <class E, size_t N>
std::optional<E> parse_of(const std::array<std::pair<E, const char*>, N>& table,
                          const std::string& s) {
  for (const auto& [e, name] : table) {
    if (s == name) return e;
  }
  return std::nullopt;
}

constexpr std::array<std::pair<Precision, const char*>, 12> kPrecisions{{
    {Precision::fp32, "fp32"},
    {Precision::tf32, "tf32"},
    {Precision::fp16, "fp16"},
    {Precision::bf16, "bf16"},
    {Precision::amp_fp16, "amp-fp16"},
    {Precision::amp_bf16, "amp-bf16"},
    {Precision::fp8, "fp8"},
    {Precision::mixed_fp16, "mixed-fp16"},
    {Precision::mixed_bf16, "mixed-bf16"},
    {Precision::fp8_blockwise, "fp8-blockwise"},
    {Precision::mxfp8, "mxfp8"},
    {Precision::nvfp4, "nvfp4"},
}};
constexpr std::array<std::pair<StoreDtype, const char*>, 5> kStoreDtypes{{
    {StoreDtype::automatic, "auto"},
    {StoreDtype::fp32, "fp32"},
    {StoreDtype::bf16, "bf16"},
    {StoreDtype::fp16, "fp16"},
    {StoreDtype::fp8, "fp8"},
}};
constexpr std::array<std::pair<Optimizer, const char*>, 7> kOptimizers{{
    {Optimizer::sgd, "sgd"},
    {Optimizer::sgd_momentum, "sgd-momentum"},
    {Optimizer::adam, "adam"},
    {Optimizer::adamw, "adamw"},
    {Optimizer::adam_8bit, "adam-8bit"},
    {Optimizer::adafactor, "adafactor"},
    {Optimizer::lamb, "lamb"},
}};
constexpr std::array<std::pair<OptimizerLoop, const char*>, 2> kOptimizerLoops{{
    {OptimizerLoop::foreach, "foreach"},
    {OptimizerLoop::for_loop, "for-loop"},
}};
constexpr std::array<std::pair<Checkpointing, const char*>, 6> kCheckpointing{{
    {Checkpointing::none, "none"},
    {Checkpointing::selective, "selective"},
    {Checkpointing::full, "full"},
    {Checkpointing::op_selective, "op-selective"},
    {Checkpointing::every_k_layers, "every-k-layers"},
    {Checkpointing::block, "block"},
}};
constexpr std::array<std::pair<GradReduce, const char*>, 3> kGradReduce{{
    {GradReduce::automatic, "auto"},
    {GradReduce::fp32, "fp32"},
    {GradReduce::bf16, "bf16"},
}};
constexpr std::array<std::pair<Mode, const char*>, 2> kModes{{
    {Mode::train, "train"},
    {Mode::infer, "infer"},
}};
constexpr std::array<std::pair<MemoryFormat, const char*>, 3> kMemoryFormats{{
    {MemoryFormat::automatic, "auto"},
    {MemoryFormat::nchw, "nchw"},
    {MemoryFormat::channels_last, "channels-last"},
}};
constexpr std::array<std::pair<Attention, const char*>, 7> kAttention{{
    {Attention::automatic, "auto"},
    {Attention::eager, "eager"},
    {Attention::flash, "flash"},
    {Attention::flash3, "flash3"},
    {Attention::cudnn, "cudnn"},
    {Attention::triton, "triton"},
    {Attention::flash1, "flash1"},
}};
constexpr std::array<std::pair<ContextComm, const char*>, 2> kContextComm{{
    {ContextComm::ring, "ring"},
    {ContextComm::all_to_all, "all-to-all"},
}};
constexpr std::array<std::pair<Framework, const char*>, 7> kFrameworks{{
    {Framework::none, "none"},
    {Framework::megatron, "megatron"},
    {Framework::torchtitan, "torchtitan"},
    {Framework::fsdp, "fsdp"},
    {Framework::deepspeed, "deepspeed"},
    {Framework::hf_trainer, "hf-trainer"},
    {Framework::megatron_bridge, "megatron-bridge"},
}};
constexpr std::array<std::pair<MoeDispatcher, const char*>, 3> kMoeDispatchers{{
    {MoeDispatcher::alltoall, "alltoall"},
    {MoeDispatcher::deepep, "deepep"},
    {MoeDispatcher::hybridep, "hybridep"},
}};
// Megatron-Core's spellings (transformer_config.py), in its documentation's order.
constexpr std::array<std::pair<unsigned, const char*>, 7> kRecomputeModules{{
    {kRecomputeCoreAttn, "core_attn"},
    {kRecomputeMoeAct, "moe_act"},
    {kRecomputeLayernorm, "layernorm"},
    {kRecomputeMlaUpProj, "mla_up_proj"},
    {kRecomputeMlp, "mlp"},
    {kRecomputeMoe, "moe"},
    {kRecomputeSharedExperts, "shared_experts"},
}};
constexpr std::array<std::pair<unsigned, const char*>, 2> kOffloadModules{{
    {kOffloadExpertFc1, "expert_fc1"},
    {kOffloadMoeAct, "moe_act"},
}};
// Megatron-Core's CudaGraphModule names (enums.py), then its whole-layer and whole-pass captures.
constexpr std::array<std::pair<unsigned, const char*>, 8> kCudaGraphModules{{
    {kGraphAttn, "attn"},
    {kGraphMlp, "mlp"},
    {kGraphMoe, "moe"},
    {kGraphMoeRouter, "moe_router"},
    {kGraphMoePreprocess, "moe_preprocess"},
    {kGraphMamba, "mamba"},
    {kGraphLayer, "layer"},
    {kGraphFullIteration, "full_iteration"},
}};

// A comma-separated list of `table`'s names for `bits`, and back ('-' read as '_'); nullopt
// for a name the table lacks.
template <size_t N>
std::string bit_names(const std::array<std::pair<unsigned, const char*>, N>& table, unsigned bits) {
  std::string list;
  for (const auto& [bit, name] : table) {
    if (bits & bit) list += (list.empty() ? "" : ",") + std::string(name);
  }
  return list;
}
template <size_t N>
std::optional<unsigned> parse_bits(const std::array<std::pair<unsigned, const char*>, N>& table,
                                   const std::string& s) {
  unsigned bits = 0;
  for (size_t start = 0; start <= s.size();) {
    const size_t comma = std::min(s.find(',', start), s.size());
    std::string item = s.substr(start, comma - start);
    start = comma + 1;
    for (char& c : item) c = c == '-' ? '_' : c;
    if (item.empty()) continue;
    const auto bit = parse_of(table, item);
    if (!bit) return std::nullopt;
    bits |= *bit;
  }
  return bits;
}

}  // namespace

const char* errc_name(Errc code) {
  switch (code) {
    case Errc::invalid_argument:
      return "invalid_argument";
    case Errc::parse_error:
      return "parse_error";
    case Errc::schema_error:
      return "schema_error";
    case Errc::unsupported_version:
      return "unsupported_version";
    case Errc::not_found:
      return "not_found";
    case Errc::too_large:
      return "too_large";
    case Errc::does_not_fit:
      return "does_not_fit";
    case Errc::signature_invalid:
      return "signature_invalid";
  }
  return "unknown";
}

const char* precision_name(Precision p) {
  return name_of(kPrecisions, p);
}
const char* optimizer_name(Optimizer o) {
  return name_of(kOptimizers, o);
}
const char* checkpointing_name(Checkpointing c) {
  return name_of(kCheckpointing, c);
}
const char* mode_name(Mode m) {
  return name_of(kModes, m);
}
const char* attention_name(Attention a) {
  return name_of(kAttention, a);
}
const char* memory_format_name(MemoryFormat f) {
  return name_of(kMemoryFormats, f);
}
std::optional<Precision> parse_precision(const std::string& s) {
  return parse_of(kPrecisions, s);
}
std::optional<Optimizer> parse_optimizer(const std::string& s) {
  return parse_of(kOptimizers, s);
}
std::optional<Checkpointing> parse_checkpointing(const std::string& s) {
  return parse_of(kCheckpointing, s);
}
std::optional<Mode> parse_mode(const std::string& s) {
  return parse_of(kModes, s);
}
std::optional<Attention> parse_attention(const std::string& s) {
  return parse_of(kAttention, s);
}
std::optional<MemoryFormat> parse_memory_format(const std::string& s) {
  return parse_of(kMemoryFormats, s);
}
const char* grad_reduce_name(GradReduce g) {
  return name_of(kGradReduce, g);
}
std::optional<GradReduce> parse_grad_reduce(const std::string& s) {
  return parse_of(kGradReduce, s);
}
const char* torch_release_name(TorchRelease r) {
  return r == TorchRelease::v1_10_or_earlier ? "1.10"
         : r == TorchRelease::v1_11_to_1_13  ? "1.11-1.13"
                                             : "2.0+";
}
std::optional<TorchRelease> parse_torch_release(const std::string& s) {
  if (s == "2.0+") return TorchRelease::v2_0_or_later;
  if (s == "1.11-1.13") return TorchRelease::v1_11_to_1_13;
  // MAJOR or MAJOR.MINOR[.PATCH]: 1.0-1.10 kept softmax inputs, 1.11 and later do not; 2.0 added
  // scaled_dot_product_attention.
  int major = 0, minor = 0;
  char tail = 0;
  const int n = std::sscanf(s.c_str(), "%d.%d%c", &major, &minor, &tail);
  if (n < 1 || major < 1 || major > 99 || minor < 0 || minor > 99) return std::nullopt;
  if (n == 3 && tail != '.') return std::nullopt;
  if (n == 1 && s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  if (major >= 2) return TorchRelease::v2_0_or_later;
  return minor <= 10 ? TorchRelease::v1_10_or_earlier : TorchRelease::v1_11_to_1_13;
}
const char* attention_reason_name(AttentionReason r) {
  switch (r) {
    case AttentionReason::given:
      return "given";
    case AttentionReason::sdpa:
      return "sdpa";
    case AttentionReason::not_16bit:
      return "not-16-bit";
    case AttentionReason::before_torch_2:
      return "before-pytorch-2";
    case AttentionReason::relative_positions:
      return "relative-positions";
    case AttentionReason::model_default:
      return "model-default";
  }
  return "given";
}
const char* attention_reason_text(AttentionReason r) {
  switch (r) {
    case AttentionReason::given:
      return "as given (--attention)";
    case AttentionReason::sdpa:
      return "PyTorch's scaled_dot_product_attention picks a fused kernel (FlashAttention-2 on "
             "Ampere and newer, its memory-efficient kernel before)";
    case AttentionReason::not_16bit:
      return "fused attention is modelled at 16-bit activations only";
    case AttentionReason::before_torch_2:
      return "PyTorch before 2.0 has no scaled_dot_product_attention";
    case AttentionReason::relative_positions:
      return "relative position biases are added to the scores by the model's own attention code";
    case AttentionReason::model_default:
      return "the model's reference implementation computes attention itself (--attention flash "
             "for an SDPA or FlashAttention build)";
  }
  return "";
}
const char* optimizer_loop_name(OptimizerLoop l) {
  return name_of(kOptimizerLoops, l);
}
std::optional<OptimizerLoop> parse_optimizer_loop(const std::string& s) {
  return parse_of(kOptimizerLoops, s);
}
const char* context_comm_name(ContextComm c) {
  return name_of(kContextComm, c);
}
std::optional<ContextComm> parse_context_comm(const std::string& s) {
  return parse_of(kContextComm, s);
}
const char* framework_name(Framework f) {
  return name_of(kFrameworks, f);
}
std::optional<Framework> parse_framework(const std::string& s) {
  return parse_of(kFrameworks, s);
}
const char* moe_dispatcher_name(MoeDispatcher d) {
  return name_of(kMoeDispatchers, d);
}
std::optional<MoeDispatcher> parse_moe_dispatcher(const std::string& s) {
  return parse_of(kMoeDispatchers, s);
}

const char* store_dtype_name(StoreDtype d) {
  return name_of(kStoreDtypes, d);
}
std::optional<StoreDtype> parse_store_dtype(const std::string& s) {
  return parse_of(kStoreDtypes, s);
}

std::string recompute_modules_name(unsigned modules) {
  return bit_names(kRecomputeModules, modules);
}

std::optional<unsigned> parse_recompute_modules(const std::string& s) {
  const std::optional<unsigned> modules = parse_bits(kRecomputeModules, s);
  if (modules == 0u) return std::nullopt;  // selective recompute of nothing
  return modules;
}

std::string offload_modules_name(unsigned modules) {
  return bit_names(kOffloadModules, modules);
}

std::optional<unsigned> parse_offload_modules(const std::string& s) {
  return parse_bits(kOffloadModules, s);
}

std::string cuda_graph_modules_name(unsigned modules) {
  return bit_names(kCudaGraphModules, modules);
}

std::optional<unsigned> parse_cuda_graph_modules(const std::string& s) {
  return parse_bits(kCudaGraphModules, s);
}

bool is_autocast(Precision p) {
  return p == Precision::amp_fp16 || p == Precision::amp_bf16;
}
bool is_mixed(Precision p) {
  return p == Precision::mixed_fp16 || p == Precision::mixed_bf16;
}

}  // namespace gpuplan
