#include "gpuplan/timing.h"

#include <algorithm>
#include <cmath>

#include "gpuplan/transformer.h"

namespace gpuplan {
namespace {

Error invalid(const std::string& m) {
  return make_error(Errc::invalid_argument, m);
}

// Bytes per activation element and per weight element as matmuls read them.
struct ElementBytes {
  double activation;
  double residual;  // norm inputs / residual stream (fp32 under autocast)
  double weight;    // what the GEMM reads: the 16-bit cast under autocast
};

ElementBytes element_bytes(Precision p) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32:
      return {4, 4, 4};
    case Precision::fp16:
    case Precision::bf16:
    case Precision::mixed_fp16:
    case Precision::mixed_bf16:
      return {2, 2, 2};
    case Precision::amp_fp16:
    case Precision::amp_bf16:
      return {2, 4, 2};
    case Precision::fp8:
      return {2, 2, 1};
  }
  return {4, 4, 4};
}

// Memory-bound kernels (norms, activations, copies, casts).
void add(WorkProfile& w, const std::string& name, double flops, double bytes, double weight_bytes,
         double kernels) {
  OpClass op;
  op.name = name;
  op.flops_per_sample = flops;
  op.bytes_per_sample = bytes;
  op.weight_bytes = weight_bytes;
  op.kernels = kernels;
  op.kind = flops > 0 ? WorkKind::matmul : WorkKind::memory;
  w.ops.push_back(op);
}

// A GEMM class of `rows` x `cols` outputs per sample (for tile and wave quantisation).
void add_gemm(WorkProfile& w, const std::string& name, double flops, double bytes,
              double weight_bytes, double kernels, double rows, double cols) {
  add(w, name, flops, bytes, weight_bytes, kernels);
  w.ops.back().kind = WorkKind::matmul;
  w.ops.back().gemm_rows_per_sample = rows;
  w.ops.back().gemm_cols = cols;
}

// The dimensions of one block as the time model uses them (after tensor-parallel split where
// divided by tp).
struct BlockShape {
  double T, K, h, a, q, kv, f, routed, L, tp;
};

// Q K^T and P V of every block; Transformer-XL adds Q R^T against the projected positions.
void add_attention_core(WorkProfile& w, const TransformerSpec& s, const ElementBytes& b,
                        const BlockShape& d, bool flash, double attn_drop) {
  const double T = d.T, K = d.K, a = d.a, q = d.q, kv = d.kv, L = d.L, t = d.tp;
  const bool xl = s.positions == PositionKind::xl_relative;
  const double core_flops = L * (xl ? 6 : 4) * T * K * q / t;
  if (flash) {
    // Flash attention reads Q, K, V and writes O once (Dao et al. 2022).
    add(w, "attention.core", core_flops, L * b.activation * (T * 2 * q + K * 2 * kv) / t, 0, L);
    w.ops.back().kind = WorkKind::attention;
    w.ops.back().fp8 = false;  // flash attention runs in 16 bits under Transformer Engine's fp8
    w.ops.back().backward_flops_ratio = 2.5;
  } else {
    // Eager, as Hugging Face's "eager" attention (BertSelfAttention, GPT2Attention,
    // ViTSelfAttention): scores written; divided by sqrt(head dim) in a pass of their own (read +
    // write); text models then add the attention mask in another; softmax reads them and writes
    // probabilities at the residual precision (autocast runs softmax in fp32); dropout reads and
    // writes them (+ mask); autocast casts them back to 16 bits for the second matmul, which
    // reads them.
    // Transformer-XL's MemTransformer writes the position scores too, shifts them (_rel_shift:
    // read, write) and adds them to the content scores (read two, write one): 6 more per score,
    // and 7 more kernels (r_net, the two bias adds to Q, the Q R^T matmul, the shift's zeros and
    // cat, the add).
    // The heads are split and merged by permutes, so torch.matmul (and einsum) first copy Q, K
    // and V into batched layouts, and the context is made contiguous again: four copies.
    const double act = b.activation, r = b.residual;
    const double score_passes = s.is_vision() ? 1.0 : 2.0;  // scale (+ mask)
    const double per_score = act + score_passes * 2 * act + act + r + attn_drop * (2 * r + 1) +
                             (r != act ? r + act : 0) + act + (xl ? 6 * act : 0);
    const double copies = 2 * act * (2 * T * q + 2 * K * kv);
    add(w, "attention.core", core_flops,
        L * (act * (T * q + K * (q + 2 * kv)) / t + copies / t + per_score * a * T * K / t), 0,
        L * (4 + 4 + score_passes + attn_drop + (r != act ? 1 : 0) + (xl ? 7 : 0)));
  }
}

// Embeddings, and the output head with its loss.
void add_head(WorkProfile& w, const TransformerSpec& s, const Setup& setup, const ElementBytes& b,
              const BlockShape& d, int64_t seq_len) {
  const double T = d.T, h = d.h, t = d.tp;
  add(w, "embedding", s.is_vision() ? transformer_forward_flops(s, seq_len).embedding : 0,
      2 * b.activation * T * h, 0, 2);
  if (s.head == HeadKind::lm) {
    const double V = head_logits(s);
    const double projection = s.is_adaptive() && s.adaptive_div > 1 ? h : 0;  // head cluster's own
    // Logits, then the loss over them: PyTorch's fp32 log-softmax and loss read and write them
    // three times; a fused cross-entropy reads the 16-bit logits once.
    const double loss_bytes = setup.fused_loss ? b.activation * T * V / t : 3 * 4 * T * V / t;
    add_gemm(w, "head.logits", 2 * T * h * (V + projection) / t,
             b.activation * T * (h + V / t) + loss_bytes, b.weight * h * (V + projection) / t, 4, T,
             V / t);
    w.ops.back().fp8 = false;  // Transformer Engine leaves the output head in 16 bits
  } else if (s.head == HeadKind::classifier) {
    add(w, "head.classifier", 2 * h * static_cast<double>(s.num_classes), b.activation * T * h,
        b.weight * h * static_cast<double>(s.num_classes), 2);
  }
}

WorkProfile transformer_work(const Model& model, const Setup& setup, const Estimate& e) {
  const TransformerSpec s = run_spec(model.transformer, setup, e.resolution);
  const ElementBytes b = element_bytes(setup.precision);
  const double t = setup.tp;
  const TransformerDims d = transformer_dims(s, e.seq_len);
  const double T = d.t, h = d.h, a = d.a, q = d.q, kv = d.kv, f = d.f, routed = d.routed;
  const double in_mats = s.gated_mlp ? 2.0 : 1.0;
  const double experts = s.is_moe() ? static_cast<double>(s.experts) : 1.0;
  const double L = static_cast<double>(s.layers + s.decoder_layers);
  const bool flash = e.attention == "flash";
  const bool train = setup.mode == Mode::train;
  const double drop = s.dropout && train ? 1.0 : 0.0;
  const double attn_drop = s.attention_dropout_or_default() && train ? 1.0 : 0.0;

  WorkProfile w;
  w.layers = L;
  w.tokens_per_sample = T;
  // Keys per query: the segment, plus Transformer-XL's memory (whose Q, K, V are projected too).
  const double K = attention_keys(s, T);
  // Matmuls of one block (Narayanan et al. 2021 for the FLOPs; bytes are inputs + outputs).
  add_gemm(w, "attention.qkv", L * 2 * K * h * (q + 2 * kv) / t,
           L * b.activation * K * (h + (q + 2 * kv) / t), L * b.weight * h * (q + 2 * kv) / t,
           L * 3, K, (q + 2 * kv) / t);
  const BlockShape shape{T, K, h, a, q, kv, f, routed, L, t};
  add_attention_core(w, s, b, shape, flash, attn_drop);
  add_gemm(w, "attention.out", L * 2 * T * q * h / t, L * b.activation * T * (q / t + h),
           L * b.weight * q * h / t, L, T, h);
  // Routed experts each see about T * routed / experts tokens (an even router).
  const double expert_rows = T * routed / experts;
  add_gemm(w, "mlp.in", L * 2 * T * h * f * in_mats * routed / t,
           L * b.activation * T * (h + f * in_mats * routed / t),
           L * b.weight * h * f * in_mats * experts / t, L * in_mats * experts, expert_rows,
           f * in_mats / t);
  add(w, "mlp.activation", 0, L * b.activation * T * f * routed * (in_mats + 1) / t, 0,
      L * in_mats);
  add_gemm(w, "mlp.out", L * 2 * T * f * h * routed / t,
           L * b.activation * T * (f * routed / t + h), L * b.weight * f * h * experts / t,
           L * experts, expert_rows, h);
  // Norms (read residual, write activation), residual adds (read 2, write 1), dropouts, rotary.
  const double elementwise =
      2 * (b.residual + b.activation) * T * h + 2 * 3 * b.residual * T * h +
      drop * 2 * (2 * b.activation + 1) * T * h +
      (s.positions == PositionKind::rotary ? 2 * b.activation * T * (q + kv) / t : 0);
  add(w, "elementwise", 0, L * elementwise, 0,
      L * (4 + 2 * drop + (s.positions == PositionKind::rotary ? 2 : 0)));
  add_head(w, s, setup, b, shape, e.seq_len);
  if (is_autocast(setup.precision)) {
    // Autocast casts each fp32 weight to 16 bits once per forward: read 4 + write 2 bytes.
    const double matrix_params = static_cast<double>(e.params.total - e.params.embedding) / t;
    add(w, "autocast.weight_casts", 0, 0, 6 * matrix_params, L * 6);
  }
  // Norms, activations, residual adds, casts: unfused kernels in eager PyTorch.
  for (auto& op : w.ops) op.eager = op.kind == WorkKind::memory;
  if (setup.precision == Precision::fp8) {
    // Transformer Engine casts each linear layer's input to fp8 before the matmul, and its output
    // gradient in backward, and each weight once per micro-batch. In training each cast also
    // writes the transpose the weight-gradient GEMM reads: read 2 bytes, write 1 + 1, in one
    // fused CUDA kernel with the amax reduction (fp8_cast_transpose_fused), so at HBM rate rather
    // than eager PyTorch's.
    const double inputs = K * h + T * q / t + T * h + T * f * routed / t;
    const double weights = static_cast<double>(e.params.total - e.params.embedding) / t;
    add(w, "fp8.casts", 0, L * 4 * inputs, 4 * weights, L * 4);
  }
  // Megatron-LM tensor parallelism: two all-reduces of s*b*h per block in the forward pass.
  w.tp_allreduces = 2 * L;
  w.tp_allreduce_bytes_per_sample = 2 * L * T * h * b.activation;
  return w;
}

Result<WorkProfile> graph_work(const Model& model, const Setup& setup, const Estimate& e) {
  std::optional<GraphCosts> storage;
  auto costs = model_graph_costs(model, e.resolution, storage);
  if (!costs.ok()) return costs.error();
  const GraphCosts& g = *costs.value();
  const ElementBytes b = element_bytes(setup.precision);
  WorkProfile w;
  w.layers = 1;
  w.tokens_per_sample =
      0;  // images have no tokens: tokens/s is 0, shown as absent and null in JSON
  double elementwise_bytes = 0, elementwise_kernels = 0;
  // Tensor-core convolutions run on NHWC data: with NCHW tensors cuDNN transposes each
  // convolution's input before it and its output after it (MosaicML Composer's Channels Last
  // method card, from NVIDIA's convolution performance guide).
  const bool transposes = e.memory_format == "nchw";
  double transpose_bytes = 0, transpose_kernels = 0;
  double matmuls = 0;  // convolutions and linear layers
  for (size_t i = 0; i < model.graph.nodes.size(); ++i) {
    const GraphNode& node = model.graph.nodes[i];
    const NodeCost& c = g.nodes[i];
    double in = 0;
    if (node.inputs.empty()) {
      in = i > 0 ? static_cast<double>(g.nodes[i - 1].out.elements()) : 0;
    } else {
      for (int k : node.inputs)
        in += static_cast<double>(g.nodes[static_cast<size_t>(k)].out.elements());
    }
    const double out = static_cast<double>(c.out.elements());
    switch (node.op) {
      case OpKind::input:
      case OpKind::flatten:
        break;
      case OpKind::conv2d:
      case OpKind::linear:
        add(w, node.name.empty() ? "matmul" : node.name, c.forward_flops_matmul,
            b.activation * (in + out), b.weight * static_cast<double>(c.params), 1);
        matmuls += 1;
        if (transposes && node.op == OpKind::conv2d) {
          transpose_bytes += 2 * b.activation * (in + out);  // read and write each
          transpose_kernels += 2;
        }
        break;
      case OpKind::batchnorm2d:
      case OpKind::layernorm:
        // Training batch norm reads its input twice (statistics, normalisation) and writes once.
        elementwise_bytes += b.activation * (2 * in + out);
        elementwise_kernels += 2;
        break;
      case OpKind::dropout:
        elementwise_bytes += b.activation * (in + out) + out;
        elementwise_kernels += 1;
        break;
      default:
        elementwise_bytes += b.activation * (in + out);
        elementwise_kernels += 1;
        break;
    }
  }
  add(w, "elementwise", 0, elementwise_bytes, 0, elementwise_kernels);
  if (transpose_bytes > 0) {
    add(w, "conv.nchw_transposes", 0, transpose_bytes, 0, transpose_kernels);
    w.ops.back().tensor_cores_only = true;
  }
  if (is_autocast(setup.precision)) {
    // Autocast casts each conv/linear weight to 16 bits once per forward (its cast cache lives
    // for one autocast region): one kernel each, and the input image once.
    add(w, "autocast.weight_casts", 0, 0, 6 * static_cast<double>(g.params), matmuls + 1);
  }
  return w;
}

// PCIe x16 bandwidth per direction: transfer rate x 16 lanes x encoding efficiency / 8 bits
// (PCI Express Base Specification: gen3 8 GT/s and gen4 16 GT/s with 128b/130b, gen5 32 GT/s).
double pcie_x16_bytes_per_s(int gen) {
  switch (gen) {
    case 1:
      return 2.5e9 * 16 * 0.8 / 8;
    case 2:
      return 5e9 * 16 * 0.8 / 8;
    case 3:
      return 8e9 * 16 * 128.0 / 130.0 / 8;
    case 4:
      return 16e9 * 16 * 128.0 / 130.0 / 8;
    case 5:
      return 32e9 * 16 * 128.0 / 130.0 / 8;
    default:
      return 64e9 * 16 * 242.0 / 256.0 / 8;  // gen6 FLIT mode
  }
}

}  // namespace

Result<WorkProfile> build_work_profile(const Model& model, const Setup& setup, const Estimate& e) {
  if (model.kind == ModelKind::transformer) return transformer_work(model, setup, e);
  return graph_work(model, setup, e);
}

// The catalog key of the tensor-core units a precision's matmuls run on.
const char* matmul_precision_key(Precision precision) {
  switch (precision) {
    case Precision::fp32:
      return "fp32";
    case Precision::tf32:
      return "tf32";
    case Precision::fp16:
    case Precision::amp_fp16:
    case Precision::mixed_fp16:
      return "fp16";
    case Precision::bf16:
    case Precision::amp_bf16:
    case Precision::mixed_bf16:
      return "bf16";
    case Precision::fp8:
      return "fp8";
  }
  return "fp32";
}

Result<double> dense_peak_flop_per_s(const Gpu& gpu, Precision precision) {
  const char* key = matmul_precision_key(precision);
  auto it = gpu.peak_dense_flops_per_s.find(key);
  if (it == gpu.peak_dense_flops_per_s.end()) {
    return invalid("GPU '" + gpu.id + "' has no sourced dense " + key +
                   " peak (it may not support " + precision_name(precision) +
                   "); choose another precision or GPU");
  }
  return it->second;
}

Result<Cluster> single_node_cluster(const Gpu& gpu, int count) {
  if (count < 1 || count > 4096) return invalid("--gpus must be between 1 and 4096");
  Cluster c;
  c.gpu = &gpu;
  c.gpus_per_node = count;
  if (gpu.nvlink_bandwidth_bytes_per_s > 0) {
    c.link = "nvlink";
    c.intra_node_busbw_bytes_per_s = gpu.nvlink_bandwidth_bytes_per_s / 2;  // per direction
  } else {
    c.link = "pcie";
    c.intra_node_busbw_bytes_per_s = pcie_x16_bytes_per_s(gpu.pcie_gen > 0 ? gpu.pcie_gen : 3);
  }
  return c;
}

Result<Cluster> instance_cluster(const Instance& instance, const Gpu& gpu, int nodes) {
  if (nodes < 1 || nodes > 4096) return invalid("node count must be between 1 and 4096");
  auto c = single_node_cluster(gpu, instance.gpu_count);
  if (!c.ok()) return c;
  Cluster out = c.value();
  out.nodes = nodes;
  out.vcpus_per_node = instance.vcpus;
  out.inter_node_bytes_per_s = instance.network_bytes_per_s;
  if (instance.gpu_interconnect == "pcie") {
    out.link = "pcie";
    out.intra_node_busbw_bytes_per_s = pcie_x16_bytes_per_s(gpu.pcie_gen > 0 ? gpu.pcie_gen : 3);
  } else if (!instance.gpu_interconnect.empty() && gpu.nvlink_bandwidth_bytes_per_s > 0) {
    out.link = instance.gpu_interconnect;
    out.intra_node_busbw_bytes_per_s = gpu.nvlink_bandwidth_bytes_per_s / 2;
  } else if (instance.gpu_interconnect.empty() && instance.gpu_count > 1) {
    // Not sourced for this instance: assume the slower PCIe path rather than NVLink.
    out.link = "pcie";
    out.intra_node_busbw_bytes_per_s = pcie_x16_bytes_per_s(gpu.pcie_gen > 0 ? gpu.pcie_gen : 3);
  }
  if (nodes > 1 && out.inter_node_bytes_per_s <= 0) {
    return invalid("instance '" + instance.id +
                   "' has no sourced network bandwidth; multi-node runs cannot be timed");
  }
  return out;
}

// Tile and wave quantisation (NVIDIA, "Matrix Multiplication Background User's Guide"): a GEMM
// is computed in output tiles, one per SM at a time, so it takes whole waves of tiles; rows and
// columns not a multiple of the tile are padded. Returns useful work / work paid for.
double gemm_quantisation_efficiency(double rows, double cols, int sms, const Efficiencies& eff) {
  if (sms <= 0 || rows <= 0 || cols <= 0 || eff.gemm_tile_rows <= 0 || eff.gemm_tile_cols <= 0)
    return 1.0;
  const double row_tiles = std::ceil(rows / eff.gemm_tile_rows),
               col_tiles = std::ceil(cols / eff.gemm_tile_cols);
  const double waves = row_tiles * col_tiles / sms;
  const double padding =
      rows * cols / (row_tiles * eff.gemm_tile_rows * col_tiles * eff.gemm_tile_cols);
  return padding * waves / std::ceil(waves);
}

namespace {

struct Rates {
  double peak = 0;          // dense peak for the precision (for MFU)
  double compute = 0;       // achievable FLOP/s for matmuls/convolutions at their best shape
  double memory = 0;        // achievable bytes/s
  double eager_memory = 0;  // what eager PyTorch's unfused non-matmul kernels reach
  double compute16 = 0;     // fp8 runs: the 16-bit matmul rate of the work left in 16 bits
  double peak16 = 0;
  bool compiled = false;          // torch.compile fuses them (memory-bound at `memory`)
  AttentionEfficiency attention;  // flash attention's fraction of `peak`
  bool tf32_convs = false;
  bool tensor_cores = false;  // matmuls and convolutions run on tensor cores
  int sms = 0;                // for wave quantisation; 0: unknown (not applied)
};

// The best measured matmul throughput of `gpu` for a precision: its own entry, or the bf16 one
// for fp16 where both have the same tensor-core peak (the same units run both).
double measured_matmul_ceiling(const Gpu& gpu, Precision precision) {
  const char* key = matmul_precision_key(precision);
  const auto& m = gpu.matmul_max_achievable_flops_per_s;
  if (auto it = m.find(key); it != m.end()) return it->second;
  const auto& p = gpu.peak_dense_flops_per_s;
  if (std::string(key) == "fp16" && m.count("bf16") && p.count("fp16") && p.count("bf16") &&
      p.at("fp16") == p.at("bf16")) {
    return m.at("bf16");
  }
  return 0;
}

Result<Rates> rates_for(const Model& model, const Setup& setup, const Gpu& gpu,
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
  // on TF32 tensor cores take its TF32 figure. Then the GPU's measured best matmul; then the spec
  // peak x a published efficiency (SGEMM's for FP32 on CUDA cores, whose kernels get closer to
  // their lower peak).
  const double probe =
      r.tf32_convs ? eff.measured_tf32_gemm_flop_per_s : eff.measured_gemm_flop_per_s;
  const double ceiling = r.tf32_convs ? 0.0 : measured_matmul_ceiling(gpu, setup.precision);
  const double gemm_eff =
      setup.precision == Precision::fp32 && !r.tf32_convs ? eff.simt_gemm : eff.gemm;
  r.compute = probe > 0 ? probe : ceiling > 0 ? ceiling : conv_peak * gemm_eff;
  r.memory = eff.measured_hbm_bytes_per_s > 0 ? eff.measured_hbm_bytes_per_s
                                              : gpu.memory_bandwidth_bytes_per_s * eff.hbm;
  if (r.memory <= 0) return invalid("GPU '" + gpu.id + "' has no memory bandwidth");
  r.eager_memory = r.memory * eff.eager_memory_bound / eff.hbm;
  r.compiled = setup.compile;
  r.compute16 = r.compute;
  r.peak16 = r.peak;
  if (setup.precision == Precision::fp8) {
    auto bf16 = dense_peak_flop_per_s(gpu, Precision::bf16);
    if (!bf16.ok()) return bf16.error();
    r.peak16 = bf16.value();
    const double ceiling16 = measured_matmul_ceiling(gpu, Precision::bf16);
    r.compute16 = ceiling16 > 0 ? ceiling16 : r.peak16 * eff.gemm;
  }
  auto fa = eff.flash_attention.find(gpu.architecture);
  r.attention = fa != eff.flash_attention.end() ? fa->second : eff.flash_attention_default;
  r.sms = gpu.sm_count;
  return r;
}

// The quantisation of one GEMM class at `batch` samples (gemm_quantisation_efficiency).
double quantisation_efficiency(const OpClass& op, const Rates& r, const Efficiencies& eff,
                               double batch) {
  if (op.gemm_rows_per_sample <= 0) return 1.0;
  return gemm_quantisation_efficiency(op.gemm_rows_per_sample * batch, op.gemm_cols, r.sms, eff);
}

// GPU time of one class of kernels, forward or backward: the larger of its FLOPs at the rate
// its units reach and its bytes at memory bandwidth, plus a gap per kernel.
double op_time_s(const OpClass& op, const Rates& r, const Efficiencies& eff, double batch,
                 bool backward, double model_backward_ratio) {
  const double ratio = !backward                     ? 1.0
                       : op.backward_flops_ratio > 0 ? op.backward_flops_ratio
                                                     : model_backward_ratio;
  const double flops = op.flops_per_sample * batch * ratio;
  const double compute = op.fp8 ? r.compute : r.compute16;
  double rate = compute;
  if (op.kind == WorkKind::attention) {
    rate = (op.fp8 ? r.peak : r.peak16) * (backward ? r.attention.backward : r.attention.forward);
  } else if (op.kind == WorkKind::matmul) {
    rate = compute * quantisation_efficiency(op, r, eff, batch);
  }
  const double traffic = backward ? 2.0 : 1.0;  // gradients in and out
  const double c = flops > 0 ? flops / rate : 0.0;
  const double bandwidth = op.eager && !r.compiled ? r.eager_memory : r.memory;
  const double m = traffic * (op.bytes_per_sample * batch + op.weight_bytes) / bandwidth;
  return std::max(c, m) + traffic * op.kernels * eff.kernel_overhead_s;
}

PassTime roofline(const WorkProfile& work, const Rates& r, const Efficiencies& eff, double batch,
                  double model_backward_ratio) {
  PassTime t;
  double kernels = 0;
  for (const auto& op : work.ops) {
    if (op.tensor_cores_only && !r.tensor_cores) continue;
    t.forward_s += op_time_s(op, r, eff, batch, false, model_backward_ratio);
    t.backward_s += op_time_s(op, r, eff, batch, true, model_backward_ratio);
    kernels += op.kernels;
  }
  // Small batches are bound by the host enqueuing kernels, not by the GPU running them; the
  // backward pass launches about twice the forward's kernels.
  const double host_s = kernels * eff.host_overhead_per_kernel_s;
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
  return roofline(work, r.value(), eff, micro_batch, ratio);
}

Result<double> forward_time_s(const Model& model, const Setup& setup, const WorkProfile& work,
                              const Gpu& gpu, const Efficiencies& eff, double micro_batch) {
  auto t = pass_time_s(model, setup, work, gpu, eff, micro_batch);
  if (!t.ok()) return t.error();
  return t.value().forward_s;
}

Result<StepTime> estimate_step_time(const Model& model, const Setup& setup, const Estimate& e,
                                    const WorkProfile& work, const Cluster& cluster,
                                    const Efficiencies& eff, const InputAssumptions& input) {
  if (!cluster.gpu) return invalid("no GPU given");
  auto pass =
      pass_time_s(model, setup, work, *cluster.gpu, eff, static_cast<double>(e.micro_batch));
  if (!pass.ok()) return pass.error();
  return estimate_step_time_with(model, setup, e, work, cluster, eff, input, pass.value());
}

namespace {

// Bus bandwidths a collective reaches inside a node and between nodes.
struct Links {
  double intra = 0;
  double inter = 0;
};

Links links_for(const Cluster& cluster, const Efficiencies& eff) {
  const double link_eff = cluster.link == "pcie" ? eff.pcie : eff.nvlink;
  Links l;
  l.intra = eff.measured_intra_busbw_bytes_per_s > 0
                ? eff.measured_intra_busbw_bytes_per_s
                : cluster.intra_node_busbw_bytes_per_s * link_eff;
  l.inter = eff.measured_inter_busbw_bytes_per_s > 0 ? eff.measured_inter_busbw_bytes_per_s
                                                     : cluster.inter_node_bytes_per_s * eff.network;
  return l;
}

// Ring all-reduce: 2(n-1)/n x bytes over the bus bandwidth; all-gather and reduce-scatter move
// half of that (nccl-tests doc/PERFORMANCE.md).
double allreduce_s(double bytes, double n, double busbw) {
  return n > 1 && busbw > 0 ? 2 * (n - 1) / n * bytes / busbw : 0.0;
}
double allgather_s(double bytes, double n, double busbw) {
  return allreduce_s(bytes, n, busbw) / 2;
}

// Latency of one ring all-gather or reduce-scatter over `ranks` GPUs on `nodes` nodes, as NCCL's
// tuner models it (src/graph/tuning.cc): a base, then ranks - 1 ring steps, nodes - 1 of them
// over the network and the rest over the node's own links.
double ring_latency_s(double ranks, double nodes, const Cluster& cluster, const Efficiencies& eff) {
  if (ranks <= 1) return 0;
  const Efficiencies::RingLatency& c = eff.nccl_ring;
  const double intra_hop = cluster.link == "pcie" ? c.pcie_hop_s : c.nvlink_hop_s;
  const double network_steps = std::max(nodes, 1.0) - 1;
  return c.base_s + (ranks - 1 - network_steps) * intra_hop + network_steps * c.network_hop_s;
}

// Bytes per element of the weights a forward pass reads and of the gradients reduced.
double compute_weight_bytes(Precision p) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32:
    case Precision::amp_fp16:
    case Precision::amp_bf16:
      return 4;
    default:
      return 2;
  }
}
double grad_reduce_bytes(const Setup& s) {
  if (is_mixed(s.precision)) return s.grad_reduce == GradReduce::bf16 ? 2 : 4;
  return s.precision == Precision::fp16 || s.precision == Precision::bf16 ? 2 : 4;
}

void infer_time(const Setup& setup, const Estimate& e, const WorkProfile& work, const Rates& r,
                const Efficiencies& eff, double forward_s, int total_gpus, StepTime& st) {
  st.prefill_s = forward_s / setup.pp * static_cast<double>(e.grad_accum_steps);
  // One decode step: every weight and the KV cache are read once per token (Pope et al. 2022).
  const double layers = std::max(work.layers, 1.0);
  const double flops_gpu = e.flops.decode_per_token / (setup.dp * setup.tp);
  st.decode_token_s = std::max(flops_gpu / r.compute, e.flops.decode_bytes_per_token / r.memory) +
                      layers * 10 * eff.kernel_overhead_s;
  st.step_s = st.prefill_s + static_cast<double>(setup.generate_tokens) * st.decode_token_s;
  st.samples_per_s = static_cast<double>(e.global_batch) / st.step_s;
  st.tokens_per_s = setup.generate_tokens > 0
                        ? static_cast<double>(e.global_batch) / st.decode_token_s
                        : st.samples_per_s * work.tokens_per_sample;
  st.mfu =
      (e.flops.prefill + e.flops.decode_per_token * static_cast<double>(setup.generate_tokens)) /
      (st.step_s * total_gpus * st.peak_flop_per_s);
}

// Megatron tensor parallelism: 2 all-reduces per block forward, 2 backward (+2 when the block
// is recomputed), inside a node when tp fits there.
double tp_comm_s(const Setup& setup, const Estimate& e, const WorkProfile& work,
                 const Cluster& cluster, const Links& l) {
  if (setup.tp <= 1) return 0;
  const double tp_bw = setup.tp <= cluster.gpus_per_node ? l.intra : l.inter / setup.tp;
  const double per_fwd =
      allreduce_s(work.tp_allreduce_bytes_per_sample * static_cast<double>(e.micro_batch), setup.tp,
                  tp_bw) /
      setup.pp;
  const double recomputed = setup.checkpointing == Checkpointing::full ? 1 : 0;
  return per_fwd * static_cast<double>(e.grad_accum_steps) * (2 + recomputed);
}

// The nodes a data-parallel group spans: its ranks, each beside its tensor-parallel peers.
double dp_group_nodes(const Setup& setup, const Cluster& cluster) {
  const int gpus = setup.dp * setup.tp;
  return gpus > cluster.gpus_per_node ? std::ceil(static_cast<double>(gpus) / cluster.gpus_per_node)
                                      : 1;
}

// The data-parallel group's bus bandwidth: a group that spans nodes shares each node's network
// with the tensor-parallel groups.
double dp_busbw(const Setup& setup, const Cluster& cluster, const Links& l) {
  return dp_group_nodes(setup, cluster) > 1 ? std::min(l.intra, l.inter / setup.tp) : l.intra;
}

// DDP and ZeRO-1/2: the gradients are all-reduced (or reduce-scattered, then the parameters
// all-gathered: the same bytes) once per step, in buckets overlapped with the last micro-batch's
// backward. Buckets fill in reverse layer order, so the first layers' gradients come last and
// their bucket is reduced after backward ends: at least one 25 MB bucket (DDP's bucket_cap_mb),
// or the whole token embedding, a tensor that gets a bucket of its own when larger (Li et al.
// 2020, "PyTorch Distributed", sec. 3.2.3 and 4.2).
void ddp_comm(const Setup& setup, const Estimate& e, const Cluster& cluster, const Links& l,
              StepTime& st) {
  const double grad_bytes = grad_reduce_bytes(setup);
  const double split = static_cast<double>(setup.tp * setup.pp);
  const double bytes = static_cast<double>(e.params.trainable) / split * grad_bytes;
  const double bw = dp_busbw(setup, cluster, l);
  st.dp_comm_s = allreduce_s(bytes, setup.dp, bw);
  const double window = st.backward_s / static_cast<double>(e.grad_accum_steps);
  const double embedding_bytes =
      static_cast<double>(std::min(e.params.embedding, e.params.trainable)) / split * grad_bytes;
  const double last_bucket = std::min(bytes, std::max(25.0 * 1024 * 1024, embedding_bytes));
  st.dp_comm_exposed_s = std::max(st.dp_comm_s - window, allreduce_s(last_bucket, setup.dp, bw));
}

// ZeRO-3 / FSDP FULL_SHARD: every micro-batch all-gathers each block's parameters before its
// forward and again before its backward (reshard_after_forward), and reduce-scatters its
// gradients after (Zhao et al. 2023, "PyTorch FSDP", sec. 3.3 and 4). FSDP prefetches the next
// block's all-gather while the current one computes, so per pass only the first all-gather (and
// in backward the last reduce-scatter) is exposed, plus whatever communication outlasts compute.
// Each block is one collective of each kind, and the root unit (embeddings, head) one more: each
// pays the ring's latency, which grows with the ranks while a block's share of bytes shrinks.
void fsdp_comm(const Setup& setup, const Estimate& e, const WorkProfile& work,
               const Cluster& cluster, const Links& l, const Efficiencies& eff,
               const PassTime& pass, StepTime& st) {
  const double split = static_cast<double>(setup.tp * setup.pp);
  const double params = static_cast<double>(e.params.total) / split;
  const double bw = dp_busbw(setup, cluster, l);
  const double layers = std::max(work.layers / setup.pp, 1.0);
  const double latency =
      (layers + 1) * ring_latency_s(setup.dp, dp_group_nodes(setup, cluster), cluster, eff);
  const double gather =
      allgather_s(params * compute_weight_bytes(setup.precision), setup.dp, bw) + latency;
  const double reduce =
      allgather_s(static_cast<double>(e.params.trainable) / split * grad_reduce_bytes(setup),
                  setup.dp, bw) +
      latency;
  const double rec_ratio =
      e.flops.forward_per_step > 0 ? e.flops.recompute_per_step / e.flops.forward_per_step : 0;
  const double fwd = pass.forward_s / setup.pp;
  const double bwd = pass.backward_s / setup.pp + rec_ratio * fwd;
  const double exposed_fwd = gather / layers + std::max(0.0, gather - fwd);
  const double exposed_bwd = reduce / layers + std::max(0.0, gather + reduce - bwd);
  const double micro_steps = static_cast<double>(e.grad_accum_steps);
  st.fsdp_comm_s = micro_steps * (2 * gather + reduce);
  st.dp_comm_s = st.fsdp_comm_s;
  st.dp_comm_exposed_s = micro_steps * (exposed_fwd + exposed_bwd);
}

// Host time of a for-loop optimizer step over `tensors` parameter tensors, with gradient
// clipping's norm and scale per tensor (about one SGD step's work each) when it is on. LAMB's
// update is AdamW's plus two norms, and Adafactor's is no shorter: both take AdamW's figure;
// 8-bit Adam takes Adam's.
double for_loop_host_s(const Setup& setup, double tensors, const Efficiencies& eff) {
  const Efficiencies::ForLoop& c = eff.optimizer_for_loop_per_tensor;
  double per_tensor = 0;
  switch (setup.optimizer) {
    case Optimizer::sgd:
    case Optimizer::sgd_momentum:
      per_tensor = c.sgd_s;
      break;
    case Optimizer::adam:
    case Optimizer::adam_8bit:
      per_tensor = c.adam_s;
      break;
    case Optimizer::adamw:
    case Optimizer::lamb:
    case Optimizer::adafactor:
      per_tensor = c.adamw_s;
      break;
  }
  if (setup.clip_grad_norm) per_tensor += c.sgd_s;
  return tensors * per_tensor;
}

// Optimizer step: memory-bound over this GPU's (sharded) parameters, gradients and states. A
// for-loop step is also bound by the host visiting each tensor; it follows the backward pass
// (training loops synchronise there: loss.item(), clipping's check), so it is not hidden.
double optimizer_s(const Setup& setup, const Estimate& e, const Rates& r, const Efficiencies& eff) {
  const double n = static_cast<double>(e.params.trainable) / (setup.tp * setup.pp) /
                   (setup.zero_stage >= 1 ? setup.dp : 1);
  const bool pure16 = setup.precision == Precision::fp16 || setup.precision == Precision::bf16;
  const double w = pure16 ? 2 : 4;                      // the parameter the optimizer updates
  double per_param = 2 * w + grad_reduce_bytes(setup);  // read and write it, read its gradient
  switch (setup.optimizer) {
    case Optimizer::sgd:
      break;
    case Optimizer::sgd_momentum:
      per_param += 2 * w;
      break;
    case Optimizer::adam:
    case Optimizer::adamw:
      per_param += 4 * w;
      break;
    case Optimizer::lamb:
      per_param += 4 * w + 2 * w;  // Adam's states, then the norms read the weight and update
      break;
    case Optimizer::adam_8bit:
      per_param += 4;
      break;
    case Optimizer::adafactor:
      per_param += 0.1 * w;
      break;
  }
  // fp8 and mixed recipes write the 16-bit compute copy of each updated fp32 master.
  if (setup.precision == Precision::fp8 || is_mixed(setup.precision)) per_param += 2;
  const double gpu_s = n * per_param / r.memory + 4 * eff.kernel_overhead_s;
  if (setup.optimizer_loop != OptimizerLoop::for_loop) return gpu_s;
  const double tensors = static_cast<double>(e.params.tensors) / setup.pp;
  return std::max(gpu_s, for_loop_host_s(setup, tensors, eff));
}

// Input pipeline (seed guide sec. 3.2): images per second the GPUs consume vs what the
// instance's vCPUs decode, keeping one core per GPU for its training process.
void input_pipeline(const Model& model, const Estimate& e, const Cluster& cluster,
                    const InputAssumptions& input, StepTime& st) {
  const bool images = model.kind == ModelKind::graph || model.transformer.is_vision();
  if (!images || cluster.vcpus_per_node <= 0 || input.image_samples_per_s_per_core <= 0) return;
  const double workers = std::max(0, cluster.vcpus_per_node - cluster.gpus_per_node);
  st.input_needed_samples_per_s = st.samples_per_s / cluster.nodes;
  st.input_capacity_samples_per_s = workers * input.image_samples_per_s_per_core;
  const double per_gpu = st.input_needed_samples_per_s / cluster.gpus_per_node;
  st.suggested_num_workers =
      static_cast<int>(std::ceil(per_gpu / input.image_samples_per_s_per_core));
  if (st.input_needed_samples_per_s <= st.input_capacity_samples_per_s) return;
  st.input_bound = true;
  const double capped = st.input_capacity_samples_per_s * cluster.nodes;
  st.notes.push_back("input pipeline bound: the GPUs could take " +
                     std::to_string(static_cast<long long>(st.samples_per_s)) + " images/s but " +
                     std::to_string(cluster.vcpus_per_node) + " vCPUs decode about " +
                     std::to_string(static_cast<long long>(capped)) +
                     " (use DALI/GPU decoding, pre-resized data, or more vCPUs)");
  st.step_s = std::max(st.step_s, static_cast<double>(e.global_batch) / std::max(capped, 1e-9));
  st.samples_per_s = static_cast<double>(e.global_batch) / st.step_s;
}

void train_time(const Model& model, const Setup& setup, const Estimate& e, const WorkProfile& work,
                const Cluster& cluster, const Efficiencies& eff, const InputAssumptions& input,
                const Rates& r, const PassTime& pass, StepTime& st) {
  const double micro_steps = static_cast<double>(e.grad_accum_steps);
  const double pp = setup.pp;
  const double rec_ratio =
      e.flops.forward_per_step > 0 ? e.flops.recompute_per_step / e.flops.forward_per_step : 0;
  st.forward_s = pass.forward_s / pp * micro_steps;
  st.backward_s = pass.backward_s / pp * micro_steps;
  st.recompute_s = rec_ratio * st.forward_s;
  const double compute_s = st.forward_s + st.backward_s + st.recompute_s;
  // 1F1B pipeline bubble: (p - 1) / m of the ideal time (Narayanan et al. 2021, eq. 1).
  st.pp_bubble_s = pp > 1 ? (pp - 1) / micro_steps * compute_s : 0;
  const Links l = links_for(cluster, eff);
  st.tp_comm_s = tp_comm_s(setup, e, work, cluster, l);
  if (setup.dp > 1 && setup.zero_stage >= 3) {
    fsdp_comm(setup, e, work, cluster, l, eff, pass, st);
  } else if (setup.dp > 1) {
    ddp_comm(setup, e, cluster, l, st);
  }
  st.optimizer_s = optimizer_s(setup, e, r, eff);
  st.step_s = compute_s + st.pp_bubble_s + st.tp_comm_s + st.dp_comm_exposed_s + st.optimizer_s;
  st.samples_per_s = static_cast<double>(e.global_batch) / st.step_s;
  input_pipeline(model, e, cluster, input, st);
}

}  // namespace

Result<StepTime> estimate_step_time_with(const Model& model, const Setup& setup, const Estimate& e,
                                         const WorkProfile& work, const Cluster& cluster,
                                         const Efficiencies& eff, const InputAssumptions& input,
                                         const PassTime& pass) {
  if (!cluster.gpu) return invalid("no GPU given");
  const int total_gpus = cluster.gpus_per_node * cluster.nodes;
  if (e.num_gpus != total_gpus) {
    return invalid("--dp x --tp x --pp = " + std::to_string(e.num_gpus) +
                   " GPUs, but the cluster has " + std::to_string(total_gpus));
  }
  auto rates = rates_for(model, setup, *cluster.gpu, eff);
  if (!rates.ok()) return rates.error();
  const Rates& r = rates.value();
  StepTime st;
  st.peak_flop_per_s = r.peak;
  if (r.tf32_convs)
    st.notes.push_back("fp32 convolutions use TF32 tensor cores (cuDNN default in PyTorch)");
  if (r.tensor_cores && e.memory_format == "nchw") {
    st.notes.push_back(
        "NCHW tensors on tensor cores: cuDNN transposes every convolution's input and output "
        "(model.to(memory_format=torch.channels_last) avoids it; --memory-format channels-last)");
  }
  if (setup.mode == Mode::infer) {
    infer_time(setup, e, work, r, eff, pass.forward_s, total_gpus, st);
    return st;
  }
  train_time(model, setup, e, work, cluster, eff, input, r, pass, st);
  st.tokens_per_s = st.samples_per_s * work.tokens_per_sample;
  st.mfu = (e.flops.forward_per_step + e.flops.backward_per_step) /
           (st.step_s * total_gpus * st.peak_flop_per_s);
  return st;
}

}  // namespace gpuplan
