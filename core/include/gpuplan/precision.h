#pragma once
// One table of bytes per element for every precision recipe: what the weights, gradients,
// optimizer states and activations are stored in, what a matmul reads, and which tensor-core
// rate its matmuls run at. The memory estimate, the time model, the collectives and the serving
// model all read it (and nothing else) for a recipe's bytes. The Method page explains each row.
//
// The low-precision recipes are Transformer Engine's (transformer_engine/common/recipe/
// __init__.py at NVIDIA/TransformerEngine@d0067d0d): bf16 parameters, each linear layer's weight
// and input quantised before its GEMM, and, because the forward GEMM reads a weight row-wise and
// the backward GEMMs column-wise, two quantised copies of each weight (TE docs,
// features/low_precision_training/performance_considerations: "each tensor (input, weight,
// output gradient) needs both rowwise and columnwise usages during training"). The copy TE saves
// of a linear layer's input for the weight-gradient GEMM is the column-wise one only (pytorch/
// module/linear.py: "Discard row-wise data since it is not needed in backward pass").

#include "gpuplan/estimate.h"

namespace gpuplan {

// How a recipe scales its low-precision tensors.
enum class Scaling {
  none,        // no quantised tensors (fp32, 16-bit, autocast, mixed)
  per_tensor,  // fp8: one fp32 scale per tensor (delayed: from an amax history; current: now)
  block_128,   // fp8-blockwise: fp32 scales per 128x128 weight block, per 1x128 activations
  mx_32,       // mxfp8: one E8M0 (power-of-two) byte per 32 consecutive elements
  nv_16,       // nvfp4: one E4M3 byte per 16 elements and an fp32 scale per tensor
};

// Bytes per element as each recipe stores them, by role. Scale tensors are included where they
// grow with the tensor (block scales); a per-tensor scale is a few bytes per tensor and left out.
struct PrecisionBytes {
  double param = 4;       // parameters as the model holds them (fp32, or 16-bit)
  double master = 0;      // fp32 master copy the optimizer keeps when params are not fp32
  double gradient = 4;    // gradients as kept and reduced (before --grad-reduce)
  double state = 4;       // one optimizer state element (before --optimizer-state-dtype)
  double activation = 4;  // a saved activation element (16-bit unless fp32)
  double norm_input = 4;  // norm inputs and the residual stream (fp32 under autocast)
  // A linear layer's input as saved for its weight-gradient GEMM: the column-wise quantised
  // copy for Transformer Engine's recipes, else `activation`.
  double matmul_input = 4;
  // Extra bytes per matrix parameter held for compute: autocast's 16-bit cast cache, or TE's
  // quantised weight in both usages (row-wise and column-wise) with its block scales.
  double weight_copy = 0;
  // One quantised weight usage (data + block scales): what a GEMM reads per weight element, and
  // what TE's quantise kernel writes per usage. `param` bytes for recipes without quantisation.
  double quantized_weight = 4;
  Scaling scaling = Scaling::none;
  const char* rate_key = "fp32";    // the tensor-core peak its matmuls run at (data/gpus keys)
  const char* rate16_key = "fp32";  // where work left in 16 bits runs (attention, the LM head)
};

// The row of `p`.
const PrecisionBytes& precision_bytes(Precision p);

// Transformer Engine's recipes: fp8, fp8-blockwise, mxfp8, nvfp4.
bool is_low_precision(Precision p);
// Recipes with 16-bit compute weights over fp32 masters: mixed-* and Transformer Engine's.
bool has_master_weights(Precision p);

// The same, with a setup's overrides (--grad-reduce, --optimizer-state-dtype, --master-dtype,
// --quantized-params) applied.
double gradient_bytes(const Setup& s);  // gradients as kept and reduced
double state_bytes(const Setup& s);     // one Adam-family optimizer state element
double master_bytes(const Setup& s);    // the master copy per trainable parameter (0: none)
// What an FSDP / ZeRO-3 all-gather moves per parameter: the compute weights (fp32 where the
// params are fp32, else 16-bit; under --quantized-params the quantised weight: one usage, or both
// for MXFP8, whose column-wise copy cannot be made from the row-wise one).
double gather_bytes(const Setup& s);
// The share of a model's `layers` transformer blocks that run the recipe's low precision: all
// of them for a Transformer Engine recipe but the bf16 first and last ones; 0 for other recipes.
double low_precision_share(const Setup& s, double layers);

// Bytes of a StoreDtype, 0 for automatic.
double store_dtype_bytes(StoreDtype d);

// Serving: how a checkpoint stores its matmul weights (16-bit; FP8 W8A8 where the GPU has FP8
// tensor cores; integer weight-only formats, dequantised to 16 bits for the matmul; NVIDIA's
// NVFP4 W4A4 and OCP's MXFP4, 4-bit floats that Blackwell's tensor cores read directly), and
// how the KV cache stores its elements. q4_0, q8_0 and q4_k_m are llama.cpp's GGUF block formats
// (ggml-common.h), which quantise every matrix, token embedding and output head included, and
// which llama.cpp's kernels dequantise on the fly (16/32-bit arithmetic). int4-experts is INT4
// weight-only on the routed experts alone, as Kimi-K2.5 and Kimi-K2-Thinking ship it.
// mxfp4-fp8 and nvfp4-fp8 hold the routed experts in a 4-bit float and the other matrices in
// block-scaled FP8, as DeepSeek-V4 ships (and NVIDIA's NVFP4 requantisation of it).
enum class WeightFormat {
  bf16,
  fp16,
  fp8,
  int8,
  int4,
  int4_experts,
  nvfp4,
  mxfp4,
  mxfp4_fp8,
  nvfp4_fp8,
  q4_0,
  q8_0,
  q4_k_m
};
// Every format, in the order the CLI and the page list them.
inline constexpr WeightFormat kWeightFormats[] = {
    WeightFormat::bf16,      WeightFormat::fp16,         WeightFormat::fp8,   WeightFormat::int8,
    WeightFormat::int4,      WeightFormat::int4_experts, WeightFormat::nvfp4, WeightFormat::mxfp4,
    WeightFormat::mxfp4_fp8, WeightFormat::nvfp4_fp8,    WeightFormat::q4_0,  WeightFormat::q8_0,
    WeightFormat::q4_k_m};
enum class KvFormat { bf16, fp8, fp4 };

struct WeightFormatBytes {
  double matmul = 2;          // bytes per weight of the layers it quantises, scales included
  bool attention = true;      // it quantises the attention projections too (else the MLP only)
  const char* rate_key = "";  // the tensor-core peak its matmuls use where the GPU has those
                              // units; "" for weight-only formats (16-bit matmuls)
  bool block_scaled = false;  // its matmuls need block-scaled MMA (Blackwell)
  bool embeddings = false;    // it stores the token embedding and output head at `matmul` too
  bool experts_only = false;  // it quantises the routed experts alone
  // Bytes per weight of the matrices it does not quantise at `matmul` (the token embedding and
  // output head aside): 16-bit, or block-scaled FP8 for the mixed formats.
  double unquantised = 2;
};
const WeightFormatBytes& weight_format_bytes(WeightFormat w);
const char* weight_format_name(WeightFormat w);
// The format of a format's routed experts: the 4-bit one of a mixed format, else the format.
WeightFormat expert_weight_format(WeightFormat w);
std::optional<WeightFormat> parse_weight_format(const std::string& s);
// The weight format a setup's precision keeps its weights in, as a serving runtime loads them
// (bf16, fp16, fp8 for the TE fp8 recipes, nvfp4); nullopt for FP32 weights (fp32, tf32,
// autocast), which no serving runtime runs.
std::optional<WeightFormat> serving_weight_format(Precision p);
// The weights an inference holds: the checkpoint's format (Model::checkpoint_weights; "" for a
// 16-bit checkpoint) where it stores the matmul weights in fewer bytes than the precision's
// serving format, as every serving runtime loads a quantised checkpoint whatever its compute
// dtype (DeepSeek-V3's FP8 and gpt-oss's MXFP4 at bf16); else the precision's serving format;
// nullopt for FP32 weights and a 16-bit checkpoint.
std::optional<WeightFormat> inference_weight_format(const std::string& checkpoint_weights,
                                                    Precision p);
double kv_format_bytes(KvFormat k);  // bytes per cached key or value element, scales included

}  // namespace gpuplan
