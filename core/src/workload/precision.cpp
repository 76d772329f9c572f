// The precision table (precision.h). Every row is derived from what the framework stores; the
// Method page's precision section gives the same derivations.
#include "gpuplan/precision.h"

#include <algorithm>
#include <array>

namespace gpuplan {
namespace {

// Transformer Engine's quantised formats, data + scales per element (NVIDIA/TransformerEngine at
// d0067d0d, docs/features/low_precision_training/*):
//   fp8 per-tensor   1 byte; one fp32 scale per tensor (not per element)
//   fp8-blockwise    weights: 1 byte + one fp32 scale per 128x128 block = 1 + 4/16384;
//                    activations: 1 byte + one fp32 scale per 1x128 block = 1 + 4/128
//   mxfp8            1 byte + one E8M0 byte per 32 elements = 1 + 1/32 (both usages)
//   nvfp4            half a byte + one E4M3 byte per 16 elements = 0.5 + 1/16; TE stores 1x16
//                    scales for weights too, though their 2D scaling shares one per 16x16
//                    (pytorch/tensor/nvfp4_tensor.py, NVFP4Quantizer.get_scale_shape); the
//                    per-tensor fp32 scale is left out
constexpr double kFp8 = 1.0;
constexpr double kBlockWeight = 1.0 + 4.0 / (128 * 128);
constexpr double kBlockActivation = 1.0 + 4.0 / 128;
constexpr double kMx = 1.0 + 1.0 / 32;
constexpr double kNvfp4 = 0.5 + 1.0 / 16;

// A Transformer Engine recipe: bf16 parameters over fp32 masters (its modules hold
// params_dtype=bf16 weights; Megatron-Core keeps fp32 main params in the optimizer), fp32 main
// gradients, fp32 Adam states, bf16 activations and norm inputs; the input of each linear layer
// saved column-wise quantised; each weight quantised in both usages. On Hopper FP8 needs the
// column-wise usage physically transposed (a second copy); on Blackwell MXFP8 and NVFP4 scale
// the two usages along different axes, so they are two different tensors too. (Per-tensor FP8
// on Blackwell reads one copy both ways; the row keeps Hopper's layout, where that recipe runs.)
constexpr PrecisionBytes te_recipe(double input, double weight, Scaling scaling, const char* rate) {
  return {2, 4, 4, 4, 2, 2, input, 2 * weight, weight, scaling, rate, "bf16"};
}

struct Row {
  Precision precision;
  PrecisionBytes bytes;
};

// Micikevicius et al. 2018 for mixed precision; Micikevicius et al. 2022, "FP8 Formats for Deep
// Learning", for FP8 over 16-bit masters. Columns: param, master, gradient, state, activation,
// norm input, matmul input, weight copy, quantised weight, scaling, rate, 16-bit rate.
constexpr std::array<Row, 12> kRows{{
    {Precision::fp32, {4, 0, 4, 4, 4, 4, 4, 0, 4, Scaling::none, "fp32", "fp32"}},
    {Precision::tf32, {4, 0, 4, 4, 4, 4, 4, 0, 4, Scaling::none, "tf32", "tf32"}},
    // Pure 16-bit training (model.half()/bfloat16()): optimizer states in the parameter dtype.
    {Precision::fp16, {2, 0, 2, 2, 2, 2, 2, 0, 2, Scaling::none, "fp16", "fp16"}},
    {Precision::bf16, {2, 0, 2, 2, 2, 2, 2, 0, 2, Scaling::none, "bf16", "bf16"}},
    // torch.autocast: fp32 parameters, gradients and states; a 16-bit copy of each matmul weight
    // cached for the forward pass; 16-bit activations except where autocast keeps fp32 (norms,
    // softmax, the residual stream).
    {Precision::amp_fp16, {4, 0, 4, 4, 2, 4, 2, 2, 2, Scaling::none, "fp16", "fp16"}},
    {Precision::amp_bf16, {4, 0, 4, 4, 2, 4, 2, 2, 2, Scaling::none, "bf16", "bf16"}},
    {Precision::fp8, te_recipe(kFp8, kFp8, Scaling::per_tensor, "fp8")},
    // 16-bit compute weights, activations and norm inputs; fp32 masters, gradients and states.
    {Precision::mixed_fp16, {2, 4, 4, 4, 2, 2, 2, 0, 2, Scaling::none, "fp16", "fp16"}},
    {Precision::mixed_bf16, {2, 4, 4, 4, 2, 2, 2, 0, 2, Scaling::none, "bf16", "bf16"}},
    {Precision::fp8_blockwise,
     te_recipe(kBlockActivation, kBlockWeight, Scaling::block_128, "fp8")},
    {Precision::mxfp8, te_recipe(kMx, kMx, Scaling::mx_32, "fp8")},
    {Precision::nvfp4, te_recipe(kNvfp4, kNvfp4, Scaling::nv_16, "fp4")},
}};

}  // namespace

const PrecisionBytes& precision_bytes(Precision p) {
  for (const Row& r : kRows) {
    if (r.precision == p) return r.bytes;
  }
  return kRows[0].bytes;
}

bool is_low_precision(Precision p) {
  return precision_bytes(p).scaling != Scaling::none;
}

bool has_master_weights(Precision p) {
  return precision_bytes(p).master > 0;
}

double store_dtype_bytes(StoreDtype d) {
  switch (d) {
    case StoreDtype::automatic:
      return 0;
    case StoreDtype::fp32:
      return 4;
    case StoreDtype::bf16:
    case StoreDtype::fp16:
      return 2;
    case StoreDtype::fp8:
      return 1;
  }
  return 0;
}

double gradient_bytes(const Setup& s) {
  if (has_master_weights(s.precision) && s.grad_reduce != GradReduce::automatic)
    return s.grad_reduce == GradReduce::bf16 ? 2 : 4;
  return precision_bytes(s.precision).gradient;
}

double state_bytes(const Setup& s) {
  const double chosen = store_dtype_bytes(s.optimizer_state_dtype);
  return chosen > 0 ? chosen : precision_bytes(s.precision).state;
}

double master_bytes(const Setup& s) {
  if (!has_master_weights(s.precision)) return 0;
  const double chosen = store_dtype_bytes(s.master_dtype);
  return chosen > 0 ? chosen : precision_bytes(s.precision).master;
}

double gather_bytes(const Setup& s) {
  const PrecisionBytes& pb = precision_bytes(s.precision);
  if (!s.quantized_params || !is_low_precision(s.precision)) return pb.param;
  return pb.scaling == Scaling::mx_32 ? pb.weight_copy : pb.quantized_weight;
}

const WeightFormatBytes& weight_format_bytes(WeightFormat w) {
  // int4: 4 bits plus one fp16 scale per group of 128 (AWQ/GPTQ default group size, Lin et al.
  // 2023, "AWQ", sec. 5.1). nvfp4: NVIDIA ModelOpt's checkpoints, E2M1 with an E4M3 scale per 16
  // (as TE's). mxfp4: OCP's E2M1 with an E8M0 scale per 32; the gpt-oss checkpoints quantise the
  // MoE experts only ("modules_to_not_convert": attention, router, embeddings, head, in their
  // config.json's quantization_config), and Blackwell runs them with MXFP8 activations
  // (TensorRT-LLM's W4A8_MXFP4_MXFP8, tensorrt_llm/quantization/mode.py): FP8 tensor-core rate.
  static const WeightFormatBytes bf16{2, true, "bf16", false}, fp16{2, true, "fp16", false},
      fp8{1, true, "fp8", false}, int8{1, true, "", false}, int4{0.5 + 2.0 / 128, true, "", false},
      nvfp4{kNvfp4, true, "fp4", true}, mxfp4{0.5 + 1.0 / 32, false, "fp8", true};
  // GGUF (llama.cpp's ggml/src/ggml-common.h): block_q4_0 is one fp16 scale and 16 bytes of
  // 4-bit weights per 32 weights, 18 bytes = 4.5 bits per weight; block_q8_0 one fp16 scale and
  // 32 int8 weights, 34 bytes = 8.5 bits. Q4_K_M is a per-tensor mix (Q4_K, 4.5 bits, with Q6_K,
  // 6.5625 bits, for the output head and some layers' attn_v and ffn_down): its bytes are the
  // published size of Llama-3-8B, 4.58 GiB against 14.96 GiB at F16 (XiongjieDai/
  // GPU-Benchmarks-on-LLM-Inference@aa72e0ec README "Total VRAM Requirements", llama.cpp's
  // sizes; 14.96 GiB = 8.03e9 params x 2 bytes), 2 x 4.58 / 14.96 bytes = 4.90 bits per weight
  // (Llama-3-70B's 39.59 / 131.42 gives 4.82). GGUF quantises all of a model's matrices,
  // embedding and head included; norms stay f32 (small, counted at 2 bytes here).
  // int4-experts: the routed experts' matrices at 4 bits with one 16-bit scale per group of 32,
  // everything else 16-bit (Kimi-K2.5's config.json: compressed-tensors pack-quantized, int,
  // num_bits 4, group_size 32, attention, shared experts, dense MLPs and lm_head ignored).
  static const WeightFormatBytes int4_experts{0.5 + 2.0 / 32, false, "", false, false, true};
  // mxfp4-fp8: DeepSeek-V4's checkpoints (config.json: expert_dtype fp4, quantization_config
  // quant_method fp8 with weight_block_size [128, 128] and scale_fmt ue8m0): the routed experts'
  // E2M1 with an E8M0 scale per 32 (MXFP4, run at the FP8 rate with MXFP8 activations, as
  // gpt-oss's), every other matrix E4M3 with a one-byte scale per 128 x 128 block. nvfp4-fp8:
  // NVIDIA's requantisation of them (quant_algo MIXED_PRECISION, moe_quant_algo NVFP4; attention,
  // shared experts and head in its ignore list): the routed experts in NVFP4, the rest as before.
  static const WeightFormatBytes mxfp4_fp8{0.5 + 1.0 / 32, false, "fp8",          true,
                                           false,          true,  1 + 1.0 / 16384},
      nvfp4_fp8{kNvfp4, false, "fp4", true, false, true, 1 + 1.0 / 16384};
  static const WeightFormatBytes q4_0{18.0 / 32, true, "", false, true},
      q8_0{34.0 / 32, true, "", false, true}, q4_k_m{2.0 * 4.58 / 14.96, true, "", false, true};
  switch (w) {
    case WeightFormat::bf16:
      return bf16;
    case WeightFormat::fp16:
      return fp16;
    case WeightFormat::fp8:
      return fp8;
    case WeightFormat::int8:
      return int8;
    case WeightFormat::int4:
      return int4;
    case WeightFormat::int4_experts:
      return int4_experts;
    case WeightFormat::nvfp4:
      return nvfp4;
    case WeightFormat::mxfp4:
      return mxfp4;
    case WeightFormat::mxfp4_fp8:
      return mxfp4_fp8;
    case WeightFormat::nvfp4_fp8:
      return nvfp4_fp8;
    case WeightFormat::q4_0:
      return q4_0;
    case WeightFormat::q8_0:
      return q8_0;
    case WeightFormat::q4_k_m:
      return q4_k_m;
  }
  return bf16;
}

double kv_format_bytes(KvFormat k) {
  // fp4: E2M1 with one 8-bit scale per 16 elements, as TensorRT-LLM's NVFP4 KV cache, vLLM's
  // "nvfp4" and SGLang's "fp4_e2m1" (16-element blocks; its docs: 3.56x the tokens of BF16).
  switch (k) {
    case KvFormat::bf16:
      return 2;
    case KvFormat::fp8:
      return 1;
    case KvFormat::fp4:
      return kNvfp4;
  }
  return 2;
}

double low_precision_share(const Setup& s, double layers) {
  if (!is_low_precision(s.precision) || layers <= 0) return 0;
  const double bf16 = static_cast<double>(s.bf16_first_layers) + s.bf16_last_layers;
  return std::clamp((layers - bf16) / layers, 0.0, 1.0);
}

const char* weight_format_name(WeightFormat w) {
  switch (w) {
    case WeightFormat::bf16:
      return "bf16";
    case WeightFormat::fp16:
      return "fp16";
    case WeightFormat::fp8:
      return "fp8";
    case WeightFormat::int8:
      return "int8";
    case WeightFormat::int4:
      return "int4";
    case WeightFormat::int4_experts:
      return "int4-experts";
    case WeightFormat::nvfp4:
      return "nvfp4";
    case WeightFormat::mxfp4:
      return "mxfp4";
    case WeightFormat::mxfp4_fp8:
      return "mxfp4-fp8";
    case WeightFormat::nvfp4_fp8:
      return "nvfp4-fp8";
    case WeightFormat::q4_0:
      return "q4_0";
    case WeightFormat::q8_0:
      return "q8_0";
    case WeightFormat::q4_k_m:
      return "q4_k_m";
  }
  return "?";
}

WeightFormat expert_weight_format(WeightFormat w) {
  if (w == WeightFormat::mxfp4_fp8) return WeightFormat::mxfp4;
  if (w == WeightFormat::nvfp4_fp8) return WeightFormat::nvfp4;
  return w;
}

std::optional<WeightFormat> parse_weight_format(const std::string& s) {
  for (WeightFormat w : kWeightFormats) {
    if (s == weight_format_name(w)) return w;
  }
  if (s == "f16") return WeightFormat::fp16;  // GGUF's name for 16-bit: the same 2 bytes
  return std::nullopt;
}

std::optional<WeightFormat> serving_weight_format(Precision p) {
  switch (p) {
    case Precision::bf16:
    case Precision::mixed_bf16:
      return WeightFormat::bf16;
    case Precision::fp16:
    case Precision::mixed_fp16:
      return WeightFormat::fp16;
    case Precision::fp8:
    case Precision::fp8_blockwise:
    case Precision::mxfp8:
      return WeightFormat::fp8;
    case Precision::nvfp4:
      return WeightFormat::nvfp4;
    case Precision::fp32:
    case Precision::tf32:
    case Precision::amp_fp16:
    case Precision::amp_bf16:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<WeightFormat> inference_weight_format(const std::string& checkpoint_weights,
                                                    Precision p) {
  const std::optional<WeightFormat> computed = serving_weight_format(p);
  const std::optional<WeightFormat> stored = parse_weight_format(checkpoint_weights);
  if (!stored) return computed;
  if (!computed) return stored;
  return weight_format_bytes(*stored).matmul < weight_format_bytes(*computed).matmul ? stored
                                                                                     : computed;
}

}  // namespace gpuplan
