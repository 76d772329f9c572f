// The roofline of one pass: the rates a GPU reaches for a precision (spec peak, measured
// ceiling or probe figure x efficiency), and each kernel class timed at the larger of its FLOPs
// and its bytes, plus launch gaps.
#include <algorithm>
#include <cmath>

#include "gpuplan/precision.h"
#include "gpuplan/timing.h"
#include "training/internal.h"

namespace gpuplan {

using training::invalid;
using training::Rates;
using training::rates_for;

// The catalog key of the tensor-core units a precision's matmuls run on (precision.h).
const char* matmul_precision_key(Precision precision) {
  return precision_bytes(precision).rate_key;
}

// Block-scaled MMA (MXFP8, NVFP4: the scale applied inside the tensor core) is a feature of
// NVIDIA's fifth-generation tensor cores, Blackwell's (TE docs: MXFP8 and NVFP4 need SM 10.0 /
// 10.3 for training); a GPU with an FP4 peak has them too.
bool has_block_scaled_mma(const Gpu& gpu) {
  return gpu.peak_dense_flops_per_s.count("fp4") > 0 || gpu.architecture.rfind("Blackwell", 0) == 0;
}

namespace {

Error missing_peak(const Gpu& gpu, Precision precision, const char* key) {
  const std::string recipe = precision_name(precision);
  if (precision == Precision::nvfp4 && !has_block_scaled_mma(gpu)) {
    return invalid(Msg::time_no_fp4, {gpu.id});
  }
  return invalid(Msg::time_no_peak, {gpu.id, key, recipe});
}

// A GPU's maximum achievable matmul rate is the best shape of a sweep (ml-engineering's MAMF
// finder); the GEMMs of a model reach less. The median of the large BF16 GEMMs (M, N, K >= 4096)
// that ai-dynamo/aiconfigurator measured with TensorRT-LLM's Linear layer (its cuBLAS kernels, L2
// kept cold; data/gpus/*.json serving_gemm, or the generation's share where a GPU has no table),
// over the same GPU's BF16 ceiling, is the share they reach: 0.97 on an H100, 0.84 on a B200 or
// GB200. BF16, because the FP8 timings include the input's quantisation, which gpuplan times
// itself; the share is applied to every tensor-core precision's dense GEMMs. 1 where either
// figure is missing.
double large_gemm_share(const Gpu& gpu) {
  const double best = known_matmul_flop_per_s(gpu, "bf16");
  const auto measured = serving_gemm_rates(gpu, "trtllm", "bf16");
  if (best <= 0 || !measured || measured->matmul_flop_per_s <= 0) return 1.0;
  return std::min(1.0, measured->matmul_flop_per_s / best);
}

}  // namespace

Result<double> dense_peak_flop_per_s(const Gpu& gpu, Precision precision) {
  const char* key = matmul_precision_key(precision);
  if (precision == Precision::mxfp8 && !has_block_scaled_mma(gpu)) {
    return invalid(Msg::time_no_mx_fp8, {gpu.id});
  }
  auto it = gpu.peak_dense_flops_per_s.find(key);
  if (it == gpu.peak_dense_flops_per_s.end()) return missing_peak(gpu, precision, key);
  return it->second;
}

// Tile and wave quantisation (NVIDIA, "Matrix Multiplication Background User's Guide"): a GEMM
// is computed in output tiles, one per SM at a time, so it takes whole waves of tiles; rows and
// columns not a multiple of the tile are padded. Returns useful work / work paid for.
double gemm_quantisation_efficiency(double rows, double cols, int sms, const Efficiencies& eff) {
  return grouped_gemm_quantisation_efficiency(rows, cols, 1, sms, eff);
}

// A grouped GEMM (CUTLASS grouped GEMM, Transformer Engine's GroupedLinear) schedules every
// group's tiles in one launch: each group pads its own rows and columns to whole tiles, and the
// waves are counted over all groups' tiles together.
double grouped_gemm_quantisation_efficiency(double rows, double cols, double groups, int sms,
                                            const Efficiencies& eff) {
  if (sms <= 0 || rows <= 0 || cols <= 0 || groups < 1 || eff.gemm_tile_rows <= 0 ||
      eff.gemm_tile_cols <= 0)
    return 1.0;
  const double row_tiles = std::ceil(rows / eff.gemm_tile_rows),
               col_tiles = std::ceil(cols / eff.gemm_tile_cols);
  const double waves = groups * row_tiles * col_tiles / sms;
  const double padding =
      rows * cols / (row_tiles * eff.gemm_tile_rows * col_tiles * eff.gemm_tile_cols);
  return padding * waves / std::ceil(waves);
}

namespace {

// A kernel's figure for `gpu`: Blackwell Ultra's own (compute capability 10.3: GB300, B300, whose
// SMs compute the exponentials softmax spends its time on twice as fast; cuDNN's published
// attention runs 9-14 % faster in BF16 and 30-40 % in FP8 than on a GB200), else the
// architecture's; nullptr where it has neither.
const AttentionEfficiency* attention_figure(const std::map<std::string, AttentionEfficiency>& own,
                                            const Gpu& gpu) {
  if (gpu.architecture == "Blackwell" && gpu.compute_capability == "10.3") {
    if (auto it = own.find("Blackwell Ultra"); it != own.end()) return &it->second;
  }
  auto it = own.find(gpu.architecture);
  return it != own.end() ? &it->second : nullptr;
}

}  // namespace

// A fused attention kernel's share of peak on a GPU: its own figure, else FlashAttention-2's for
// the architecture, else FlashAttention-2's on Ampere (its reference GPU).
AttentionEfficiency training::attention_efficiency(Attention kernel, const Gpu& gpu,
                                                   const Efficiencies& eff) {
  const std::map<std::string, AttentionEfficiency>* own =
      kernel == Attention::flash3   ? &eff.flash3_attention
      : kernel == Attention::cudnn  ? &eff.cudnn_attention
      : kernel == Attention::triton ? &eff.triton_attention
      : kernel == Attention::flash1 ? &eff.flash1_attention
                                    : nullptr;
  if (own) {
    if (const AttentionEfficiency* figure = attention_figure(*own, gpu)) return *figure;
  }
  auto fa = eff.flash_attention.find(gpu.architecture);
  return fa != eff.flash_attention.end() ? fa->second : eff.flash_attention_default;
}

Result<Rates> training::rates_for(const Model& model, const Setup& setup, const Gpu& gpu,
                                  const Efficiencies& eff) {
  auto peak = dense_peak_flop_per_s(gpu, setup.precision);
  if (!peak.ok()) return peak.error();
  Rates r;
  r.peak = peak.value();
  // fp32 convolutions run on TF32 tensor cores by default on Ampere and newer
  // (torch.backends.cudnn.allow_tf32 = True; matmuls stay fp32: allow_tf32 = False).
  double conv_peak = r.peak;
  if (setup.precision == Precision::fp32 && model.kind == ModelKind::graph &&
      gpu.peak_dense_flops_per_s.count("tf32")) {
    conv_peak = gpu.peak_dense_flops_per_s.at("tf32");
    r.tf32_convs = true;
    r.peak = conv_peak;  // MFU against the units that do the work
  }
  r.tensor_cores = setup.precision != Precision::fp32 || r.tf32_convs;
  // A probe's measurement for the precision replaces everything else; FP32 convolutions that run
  // on TF32 tensor cores take its TF32 figure. Then the GPU's measured best matmul, or its
  // generation's measured share of peak (known_matmul_flop_per_s); then the spec peak x a
  // published efficiency (SGEMM's for FP32 on CUDA cores, whose kernels get closer to
  // their lower peak).
  const double probe =
      r.tf32_convs ? eff.measured_tf32_gemm_flop_per_s : eff.measured_gemm_flop_per_s;
  const double ceiling =
      r.tf32_convs ? 0.0 : known_matmul_flop_per_s(gpu, matmul_precision_key(setup.precision));
  const double gemm_eff =
      setup.precision == Precision::fp32 && !r.tf32_convs ? eff.simt_gemm : eff.gemm;
  r.compute = probe > 0 ? probe : ceiling > 0 ? ceiling : conv_peak * gemm_eff;
  // A probe measures the GPU's own GEMMs; a best-shape ceiling is scaled to large model GEMMs.
  const double large = large_gemm_share(gpu);
  if (probe <= 0 && ceiling > 0 && r.tensor_cores) r.large_gemm_share = large;
  r.memory = eff.measured_hbm_bytes_per_s > 0 ? eff.measured_hbm_bytes_per_s
                                              : gpu.memory_bandwidth_bytes_per_s * eff.hbm;
  if (r.memory <= 0) return invalid(Msg::time_no_memory_bandwidth, {gpu.id});
  r.eager_memory = r.memory * eff.eager_memory_bound / eff.hbm;
  r.compiled = setup.compile || setup.fused_kernels;
  r.compute16 = r.compute;
  r.large_gemm_share16 = r.large_gemm_share;
  r.peak16 = r.peak;
  // Transformer Engine's recipes leave attention and the LM head in bf16.
  if (is_low_precision(setup.precision)) {
    auto bf16 = dense_peak_flop_per_s(gpu, Precision::bf16);
    if (!bf16.ok()) return bf16.error();
    r.peak16 = bf16.value();
    const double ceiling16 = known_matmul_flop_per_s(gpu, "bf16");
    r.compute16 = ceiling16 > 0 ? ceiling16 : r.peak16 * eff.gemm;
    r.large_gemm_share16 = ceiling16 > 0 ? large : 1.0;
    auto fp8 = dense_peak_flop_per_s(gpu, Precision::fp8);
    r.peak8 = fp8.ok() ? fp8.value() : r.peak;
  }
  r.attention = training::attention_efficiency(setup.attention, gpu, eff);
  if (setup.fp8_attention) {
    const auto& own =
        setup.precision == Precision::mxfp8 ? eff.cudnn_mxfp8_attention : eff.cudnn_fp8_attention;
    if (const AttentionEfficiency* figure = attention_figure(own, gpu)) r.attention8 = *figure;
  }
  r.sms = gpu.sm_count;
  // Hopper's and Blackwell's matmul kernels run a persistent schedule, one block per SM
  // (pytorch/pytorch#147966), and Transformer Engine leaves no SMs free of them by default.
  r.persistent_gemms = r.tensor_cores && (gpu.architecture == "Hopper" ||
                                          gpu.architecture.rfind("Blackwell", 0) == 0);
  r.host_paced_a2a_overlap = gpu.architecture.rfind("Blackwell", 0) == 0;
  return r;
}

namespace {

// The quantisation of one GEMM class at `batch` samples (gemm_quantisation_efficiency).
double quantisation_efficiency(const OpClass& op, const Rates& r, const Efficiencies& eff,
                               double batch) {
  if (op.gemm_rows_per_sample <= 0) return 1.0;
  return grouped_gemm_quantisation_efficiency(op.gemm_rows_per_sample * batch, op.gemm_cols,
                                              op.gemm_groups, r.sms, eff);
}

// GPU time of one class of kernels, forward or backward: the larger of its FLOPs at the rate
// its units reach and its bytes at memory bandwidth, plus a gap per kernel.
// `low_share`: the share of an `fp8` class's FLOPs at the low-precision rate (WorkProfile).
double op_time_s(const OpClass& op, const Rates& r, const Efficiencies& eff, double batch,
                 bool backward, double model_backward_ratio, double low_share) {
  if (backward && op.forward_only) return 0;
  const double ratio = !backward                     ? 1.0
                       : op.backward_flops_ratio > 0 ? op.backward_flops_ratio
                                                     : model_backward_ratio;
  const double flops = op.flops_per_sample * batch * ratio;
  const double share = op.fp8 ? low_share : 0.0;
  // Seconds per FLOP: the share at the recipe's rate, the rest at the 16-bit one. A dense GEMM
  // reaches the large-GEMM share of a best-shape ceiling; a grouped GEMM's own share (below) was
  // measured against the ceiling itself.
  const bool grouped = op.gemm_groups > 1 && eff.grouped_gemm > 0;
  const bool dense_gemm = op.kind == WorkKind::matmul && !grouped;
  const double low = r.compute * (dense_gemm ? r.large_gemm_share : 1.0);
  const double high = r.compute16 * (dense_gemm ? r.large_gemm_share16 : 1.0);
  double per_flop = share / low + (1 - share) / high;
  if (op.kind == WorkKind::attention) {
    const auto of_peak = [&](const AttentionEfficiency& a) {
      return backward ? (op.causal && a.causal_backward > 0 ? a.causal_backward : a.backward)
                      : (op.causal && a.causal_forward > 0 ? a.causal_forward : a.forward);
    };
    // FP8 attention where cuDNN's FP8 rates are published; elsewhere the 16-bit kernel's.
    const double fp8 = r.attention8.forward > 0 ? share : 0.0;
    per_flop = (fp8 > 0 ? fp8 / (r.peak8 * of_peak(r.attention8)) : 0.0) +
               (1 - fp8) / (r.peak16 * of_peak(r.attention));
  } else if (op.kind == WorkKind::matmul) {
    per_flop /= quantisation_efficiency(op, r, eff, batch);
    if (grouped) per_flop /= eff.grouped_gemm;
  }
  const double traffic = backward ? 2.0 : 1.0;  // gradients in and out
  const double c = flops > 0 ? flops * per_flop : 0.0;
  const double bandwidth = op.eager && !r.compiled ? r.eager_memory : r.memory;
  const double m = traffic * (op.bytes_per_sample * batch + op.weight_bytes) / bandwidth;
  return std::max(c, m) + traffic * op.kernels * eff.kernel_overhead_s;
}

// Where a kernel class's time goes in PassTime's split (nullptr: nowhere of its own).
double* split_slot(PassTime::Split& split, const OpClass& op) {
  if (op.kind == WorkKind::attention) return &split.attention;
  if (op.name == "attention.qkv") return &split.qkv;
  if (op.name == "attention.out") return &split.out;
  if (op.name == "mlp.in") return &split.mlp_in;
  if (op.name == "mlp.out") return &split.mlp_out;
  if (op.name.rfind("moe.experts.", 0) == 0 || op.name.rfind("moe.shared.", 0) == 0)
    return &split.experts;
  return nullptr;
}

// Adds a kernel class's time in one direction to the split: to its part, and as a block's matmul
// (the head's are not) to the matmuls' time, the experts' apart.
void add_to_split(PassTime::Split& split, const OpClass& op, double s) {
  double* slot = split_slot(split, op);
  if (slot) *slot += s;
  if (op.kind != WorkKind::matmul || op.name.rfind("head.", 0) == 0) return;
  split.gemm += s;
  if (slot == &split.experts) split.experts_gemm += s;
}

PassTime roofline(const WorkProfile& work, const Rates& r, const Efficiencies& eff, double batch,
                  double model_backward_ratio, unsigned recompute_modules) {
  PassTime t;
  double kernels = 0;
  const double low = work.low_precision_share;
  for (const auto& op : work.ops) {
    if (op.tensor_cores_only && !r.tensor_cores) continue;
    const double forward = op_time_s(op, r, eff, batch, false, model_backward_ratio, low);
    const double backward = op_time_s(op, r, eff, batch, true, model_backward_ratio, low);
    if (op.once_per_step) {
      t.per_step_s += forward + backward;
      continue;
    }
    t.forward_s += forward;
    t.backward_s += backward;
    if (op.name == "embedding") t.embedding_s += forward + backward;
    if (op.name.rfind("head.", 0) == 0) t.head_s += forward + backward;
    if (op.rerun_by & recompute_modules) t.recompute_modules_s += forward * op.rerun_share;
    add_to_split(t.forward_parts, op, forward);
    add_to_split(t.backward_parts, op, backward);
    kernels += op.kernels - op.captured_kernels;
  }
  // Small batches are bound by the host enqueuing kernels, not by the GPU running them; the
  // backward pass launches about twice the forward's kernels. A CUDA graph is launched once for
  // the kernels it replays, at a kernel's host cost.
  t.host_launches = kernels + work.graph_launches;
  const double host_s = t.host_launches * eff.host_overhead_per_kernel_s;
  t.gpu_forward_s = t.forward_s;
  t.forward_s = std::max(t.forward_s, host_s);
  t.backward_s = std::max(t.backward_s, model_backward_ratio * host_s);
  return t;
}

}  // namespace

Result<PassTime> pass_time_s(const Model& model, const Setup& setup, const WorkProfile& work,
                             const Gpu& gpu, const Efficiencies& eff, double micro_batch) {
  auto r = rates_for(model, setup, gpu, eff);
  if (!r.ok()) return r.error();
  // LoRA freezes the base weights: their matmuls compute input gradients only.
  const double ratio = setup.mode == Mode::train && setup.lora_rank > 0 ? 1.0 : 2.0;
  // Timed whatever the checkpointing (the planner shares a pass between checkpointing modes);
  // train_time counts them under selective checkpointing only.
  return roofline(work, r.value(), eff, micro_batch, ratio, setup.recompute_modules);
}

Result<double> forward_time_s(const Model& model, const Setup& setup, const WorkProfile& work,
                              const Gpu& gpu, const Efficiencies& eff, double micro_batch) {
  auto t = pass_time_s(model, setup, work, gpu, eff, micro_batch);
  if (!t.ok()) return t.error();
  return t.value().forward_s;
}

}  // namespace gpuplan
