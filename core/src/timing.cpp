#include "gpuplan/timing.h"

#include <algorithm>
#include <cmath>

#include "gpuplan/transformer.h"

namespace gpuplan {
namespace {

Error invalid(const std::string& m) { return make_error(Errc::invalid_argument, m); }

// Bytes per activation element and per weight element as matmuls read them.
struct ElementBytes {
  double activation;
  double residual;   // norm inputs / residual stream (fp32 under autocast)
  double weight;     // what the GEMM reads: the 16-bit cast under autocast
};

ElementBytes element_bytes(Precision p) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32: return {4, 4, 4};
    case Precision::fp16:
    case Precision::bf16: return {2, 2, 2};
    case Precision::amp_fp16:
    case Precision::amp_bf16: return {2, 4, 2};
    case Precision::fp8: return {2, 2, 1};
  }
  return {4, 4, 4};
}

void add(WorkProfile& w, const std::string& name, double flops, double bytes, double weight_bytes,
         double kernels) {
  w.ops.push_back({name, flops, bytes, weight_bytes, kernels, false});
}

WorkProfile transformer_work(const Model& model, const Setup& setup, const Estimate& e) {
  TransformerSpec s = model.transformer;
  if (s.is_vision()) s.image_size = e.resolution;
  const ElementBytes b = element_bytes(setup.precision);
  const double t = setup.tp;
  const TransformerDims d = transformer_dims(s, e.seq_len);
  const double T = d.t, h = d.h, a = d.a, q = d.q, kv = d.kv, f = d.f, routed = d.routed;
  const double in_mats = s.gated_mlp ? 2.0 : 1.0;
  const double experts = s.is_moe() ? static_cast<double>(s.experts) : 1.0;
  const double L = static_cast<double>(s.layers + s.decoder_layers);
  const bool flash = e.attention == "flash";
  const double drop = s.dropout && setup.mode == Mode::train ? 1.0 : 0.0;

  WorkProfile w;
  w.layers = L;
  w.tokens_per_sample = T;
  // Keys per query: the segment, plus Transformer-XL's memory (whose Q, K, V are projected too).
  const double K = attention_keys(s, T);
  const bool xl = s.positions == PositionKind::xl_relative;
  // Matmuls of one block (Narayanan et al. 2021 for the FLOPs; bytes are inputs + outputs).
  add(w, "attention.qkv", L * 2 * K * h * (q + 2 * kv) / t, L * b.activation * K * (h + (q + 2 * kv) / t),
      L * b.weight * h * (q + 2 * kv) / t, L * 3);
  // Q K^T and P V; Transformer-XL adds Q R^T against the projected relative positions.
  const double core_flops = L * (xl ? 6 : 4) * T * K * q / t;
  if (flash) {
    // Flash attention reads Q, K, V and writes O once (Dao et al. 2022).
    add(w, "attention.core", core_flops, L * b.activation * (T * 2 * q + K * 2 * kv) / t, 0, L);
  } else {
    // Eager, as Hugging Face's "eager" attention (BertSelfAttention, GPT2Attention, ViTSelfAttention):
    // scores written; divided by sqrt(head dim) in a pass of their own (read + write); text
    // models then add the attention mask in another; softmax reads them and writes
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
    const double per_score = act + score_passes * 2 * act + act + r + drop * (2 * r + 1) +
                             (r != act ? r + act : 0) + act + (xl ? 6 * act : 0);
    const double copies = 2 * act * (2 * T * q + 2 * K * kv);
    add(w, "attention.core", core_flops,
        L * (act * (T * q + K * (q + 2 * kv)) / t + copies / t + per_score * a * T * K / t), 0,
        L * (4 + 4 + score_passes + drop + (r != act ? 1 : 0) + (xl ? 7 : 0)));
  }
  add(w, "attention.out", L * 2 * T * q * h / t, L * b.activation * T * (q / t + h), L * b.weight * q * h / t, L);
  add(w, "mlp.in", L * 2 * T * h * f * in_mats * routed / t, L * b.activation * T * (h + f * in_mats * routed / t),
      L * b.weight * h * f * in_mats * experts / t, L * in_mats * experts);
  add(w, "mlp.activation", 0, L * b.activation * T * f * routed * (in_mats + 1) / t, 0, L * in_mats);
  add(w, "mlp.out", L * 2 * T * f * h * routed / t, L * b.activation * T * (f * routed / t + h),
      L * b.weight * f * h * experts / t, L * experts);
  // Norms (read residual, write activation), residual adds (read 2, write 1), dropouts, rotary.
  const double elementwise = 2 * (b.residual + b.activation) * T * h + 2 * 3 * b.residual * T * h +
                             drop * 2 * (2 * b.activation + 1) * T * h +
                             (s.positions == PositionKind::rotary ? 2 * b.activation * T * (q + kv) / t : 0);
  add(w, "elementwise", 0, L * elementwise, 0, L * (4 + 2 * drop + (s.positions == PositionKind::rotary ? 2 : 0)));
  // Embeddings and head.
  add(w, "embedding", s.is_vision() ? transformer_forward_flops(s, e.seq_len).embedding : 0,
      2 * b.activation * T * h, 0, 2);
  if (s.head == HeadKind::lm) {
    const double V = head_logits(s);
    // Logits, then fp32 log-softmax and loss over them (read + write + read).
    const double projection = s.is_adaptive() && s.adaptive_div > 1 ? h : 0;  // head cluster's own
    add(w, "head.logits", 2 * T * h * (V + projection) / t, b.activation * T * (h + V / t) + 3 * 4 * T * V / t,
        b.weight * h * (V + projection) / t, 4);
  } else if (s.head == HeadKind::classifier) {
    add(w, "head.classifier", 2 * h * static_cast<double>(s.num_classes), b.activation * T * h,
        b.weight * h * static_cast<double>(s.num_classes), 2);
  }
  if (setup.precision == Precision::amp_fp16 || setup.precision == Precision::amp_bf16) {
    // Autocast casts each fp32 weight to 16 bits once per forward: read 4 + write 2 bytes.
    const double matrix_params = static_cast<double>(e.params.total - e.params.embedding) / t;
    add(w, "autocast.weight_casts", 0, 0, 6 * matrix_params, L * 6);
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
  w.tokens_per_sample = 0;  // images have no tokens: tokens/s is 0, shown as absent and null in JSON
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
      for (int k : node.inputs) in += static_cast<double>(g.nodes[static_cast<size_t>(k)].out.elements());
    }
    const double out = static_cast<double>(c.out.elements());
    switch (node.op) {
      case OpKind::input:
      case OpKind::flatten:
        break;
      case OpKind::conv2d:
      case OpKind::linear:
        add(w, node.name.empty() ? "matmul" : node.name, c.forward_flops_matmul, b.activation * (in + out),
            b.weight * static_cast<double>(c.params), 1);
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
  if (setup.precision == Precision::amp_fp16 || setup.precision == Precision::amp_bf16) {
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
    case 1: return 2.5e9 * 16 * 0.8 / 8;
    case 2: return 5e9 * 16 * 0.8 / 8;
    case 3: return 8e9 * 16 * 128.0 / 130.0 / 8;
    case 4: return 16e9 * 16 * 128.0 / 130.0 / 8;
    case 5: return 32e9 * 16 * 128.0 / 130.0 / 8;
    default: return 64e9 * 16 * 242.0 / 256.0 / 8;  // gen6 FLIT mode
  }
}

}  // namespace

Result<WorkProfile> build_work_profile(const Model& model, const Setup& setup, const Estimate& e) {
  if (model.kind == ModelKind::transformer) return transformer_work(model, setup, e);
  return graph_work(model, setup, e);
}

Result<double> dense_peak_flop_per_s(const Gpu& gpu, Precision precision) {
  const char* key = "fp32";
  switch (precision) {
    case Precision::fp32: key = "fp32"; break;
    case Precision::tf32: key = "tf32"; break;
    case Precision::fp16:
    case Precision::amp_fp16: key = "fp16"; break;
    case Precision::bf16:
    case Precision::amp_bf16: key = "bf16"; break;
    case Precision::fp8: key = "fp8"; break;
  }
  auto it = gpu.peak_dense_flops_per_s.find(key);
  if (it == gpu.peak_dense_flops_per_s.end()) {
    return invalid("GPU '" + gpu.id + "' has no sourced dense " + key + " peak (it may not support " +
                   precision_name(precision) + "); choose another precision or GPU");
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
    return invalid("instance '" + instance.id + "' has no sourced network bandwidth; multi-node runs cannot be timed");
  }
  return out;
}

namespace {

struct Rates {
  double peak = 0;     // dense peak for the precision (for MFU)
  double compute = 0;  // achievable FLOP/s for matmuls/convolutions
  double memory = 0;   // achievable bytes/s
  bool tf32_convs = false;
  bool tensor_cores = false;  // matmuls and convolutions run on tensor cores
};

Result<Rates> rates_for(const Model& model, const Setup& setup, const Gpu& gpu, const Efficiencies& eff) {
  auto peak = dense_peak_flop_per_s(gpu, setup.precision);
  if (!peak.ok()) return peak.error();
  Rates r;
  r.peak = peak.value();
  // fp32 convolutions run on TF32 tensor cores by default on Ampere and newer
  // (torch.backends.cudnn.allow_tf32 = True; matmuls stay fp32: allow_tf32 = False).
  double conv_peak = r.peak;
  if (setup.precision == Precision::fp32 && model.kind == ModelKind::graph && gpu.peak_dense_flops_per_s.count("tf32")) {
    conv_peak = gpu.peak_dense_flops_per_s.at("tf32");
    r.tf32_convs = true;
    r.peak = conv_peak;  // MFU against the units that do the work
  }
  // Plain FP32 runs on the CUDA cores, whose SGEMM gets closer to its (lower) peak than tensor
  // cores get to theirs.
  const double gemm_eff = setup.precision == Precision::fp32 && !r.tf32_convs ? eff.simt_gemm : eff.gemm;
  // A probe's measurement for the precision replaces spec x efficiency; FP32 convolutions that run
  // on TF32 tensor cores take its TF32 figure instead of its FP32 one.
  const double measured = r.tf32_convs ? eff.measured_tf32_gemm_flop_per_s : eff.measured_gemm_flop_per_s;
  r.compute = measured > 0 ? measured : conv_peak * gemm_eff;
  r.tensor_cores = setup.precision != Precision::fp32 || r.tf32_convs;
  r.memory = eff.measured_hbm_bytes_per_s > 0 ? eff.measured_hbm_bytes_per_s : gpu.memory_bandwidth_bytes_per_s * eff.hbm;
  if (r.memory <= 0) return invalid("GPU '" + gpu.id + "' has no memory bandwidth");
  return r;
}

double roofline_s(const WorkProfile& work, const Rates& r, const Efficiencies& eff, double batch) {
  double gpu = 0, kernels = 0;
  for (const auto& op : work.ops) {
    if (op.tensor_cores_only && !r.tensor_cores) continue;
    const double c = op.flops_per_sample * batch / r.compute;
    const double m = (op.bytes_per_sample * batch + op.weight_bytes) / r.memory;
    gpu += std::max(c, m) + op.kernels * eff.kernel_overhead_s;
    kernels += op.kernels;
  }
  // Small batches are bound by the host enqueuing kernels, not by the GPU running them.
  return std::max(gpu, kernels * eff.host_overhead_per_kernel_s);
}

}  // namespace

Result<double> forward_time_s(const Model& model, const Setup& setup, const WorkProfile& work, const Gpu& gpu,
                              const Efficiencies& eff, double micro_batch) {
  auto r = rates_for(model, setup, gpu, eff);
  if (!r.ok()) return r.error();
  return roofline_s(work, r.value(), eff, micro_batch);
}

Result<StepTime> estimate_step_time(const Model& model, const Setup& setup, const Estimate& e,
                                    const WorkProfile& work, const Cluster& cluster,
                                    const Efficiencies& eff, const InputAssumptions& input) {
  if (!cluster.gpu) return invalid("no GPU given");
  auto fwd = forward_time_s(model, setup, work, *cluster.gpu, eff, static_cast<double>(e.micro_batch));
  if (!fwd.ok()) return fwd.error();
  return estimate_step_time_with(model, setup, e, work, cluster, eff, input, fwd.value());
}

Result<StepTime> estimate_step_time_with(const Model& model, const Setup& setup, const Estimate& e,
                                         const WorkProfile& work, const Cluster& cluster,
                                         const Efficiencies& eff, const InputAssumptions& input,
                                         double forward_s) {
  if (!cluster.gpu) return invalid("no GPU given");
  const Gpu& gpu = *cluster.gpu;
  const int total_gpus = cluster.gpus_per_node * cluster.nodes;
  if (e.num_gpus != total_gpus) {
    return invalid("--dp x --tp x --pp = " + std::to_string(e.num_gpus) + " GPUs, but the cluster has " +
                   std::to_string(total_gpus));
  }
  auto rates = rates_for(model, setup, gpu, eff);
  if (!rates.ok()) return rates.error();
  const double compute = rates.value().compute;
  const double memory = rates.value().memory;
  StepTime st;
  st.peak_flop_per_s = rates.value().peak;
  if (rates.value().tf32_convs) st.notes.push_back("fp32 convolutions use TF32 tensor cores (cuDNN default in PyTorch)");
  if (rates.value().tensor_cores && e.memory_format == "nchw") {
    st.notes.push_back("NCHW tensors on tensor cores: cuDNN transposes every convolution's input and output "
                       "(model.to(memory_format=torch.channels_last) avoids it; --memory-format channels-last)");
  }

  const double mb = static_cast<double>(e.micro_batch);
  const double micro_steps = static_cast<double>(e.grad_accum_steps);
  const double pp = setup.pp;
  const double link_eff = cluster.link == "pcie" ? eff.pcie : eff.nvlink;
  const double intra = eff.measured_intra_busbw_bytes_per_s > 0 ? eff.measured_intra_busbw_bytes_per_s
                                                                 : cluster.intra_node_busbw_bytes_per_s * link_eff;
  const double inter = eff.measured_inter_busbw_bytes_per_s > 0 ? eff.measured_inter_busbw_bytes_per_s
                                                                 : cluster.inter_node_bytes_per_s * eff.network;
  auto ring = [](double bytes, double n, double busbw) {
    return n > 1 && busbw > 0 ? 2 * (n - 1) / n * bytes / busbw : 0.0;
  };

  if (setup.mode == Mode::infer) {
    st.prefill_s = forward_s / pp * micro_steps;
    // One decode step: every weight and the KV cache are read once per token (Pope et al. 2022).
    const double layers = std::max(work.layers, 1.0);
    const double flops_gpu = e.flops.decode_per_token / (setup.dp * setup.tp);
    st.decode_token_s = std::max(flops_gpu / compute, e.flops.decode_bytes_per_token / memory) +
                        layers * 10 * eff.kernel_overhead_s;
    st.step_s = st.prefill_s + static_cast<double>(setup.generate_tokens) * st.decode_token_s;
    st.samples_per_s = static_cast<double>(e.global_batch) / st.step_s;
    st.tokens_per_s = setup.generate_tokens > 0 ? static_cast<double>(e.global_batch) / st.decode_token_s
                                                : st.samples_per_s * work.tokens_per_sample;
    st.mfu = (e.flops.prefill + e.flops.decode_per_token * static_cast<double>(setup.generate_tokens)) /
             (st.step_s * total_gpus * st.peak_flop_per_s);
    return st;
  }

  // Training: forward, backward (2x, or 1x with frozen weights) and recomputation per stage.
  const double fwd_one = forward_s / pp;
  const double bwd_ratio = e.flops.forward_per_step > 0 ? e.flops.backward_per_step / e.flops.forward_per_step : 2;
  const double rec_ratio = e.flops.forward_per_step > 0 ? e.flops.recompute_per_step / e.flops.forward_per_step : 0;
  st.forward_s = fwd_one * micro_steps;
  st.backward_s = bwd_ratio * st.forward_s;
  st.recompute_s = rec_ratio * st.forward_s;
  const double compute_s = st.forward_s + st.backward_s + st.recompute_s;
  // 1F1B pipeline bubble: (p - 1) / m of the ideal time (Narayanan et al. 2021, eq. 1).
  st.pp_bubble_s = pp > 1 ? (pp - 1) / micro_steps * compute_s : 0;

  // Tensor parallelism: 2 all-reduces per block forward, 2 backward (+2 when recomputed),
  // inside a node when tp fits there.
  if (setup.tp > 1) {
    const double tp_bw = setup.tp <= cluster.gpus_per_node ? intra : inter / setup.tp;
    const double per_fwd = ring(work.tp_allreduce_bytes_per_sample * mb, setup.tp, tp_bw) / pp;
    st.tp_comm_s = per_fwd * micro_steps * (2 + (setup.checkpointing == Checkpointing::full ? 1 : 0));
  }
  // Data parallelism: the gradients once per step; ZeRO-3 moves 1.5x as much (Rajbhandari et
  // al. 2020, sec. 7). A group that spans nodes shares each node's network with tp groups.
  if (setup.dp > 1) {
    const double grad_elem_bytes = (setup.precision == Precision::fp16 || setup.precision == Precision::bf16) ? 2 : 4;
    const double trainable_gpu = static_cast<double>(e.params.trainable) / (setup.tp * pp);
    double bytes = trainable_gpu * grad_elem_bytes * (setup.zero_stage >= 3 ? 1.5 : 1.0);
    const bool spans_nodes = setup.dp * setup.tp > cluster.gpus_per_node;
    const double bw = spans_nodes ? std::min(intra, inter / setup.tp) : intra;
    st.dp_comm_s = ring(bytes, setup.dp, bw);
    // DDP and FSDP overlap bucketed all-reduces with the last micro-batch's backward. Buckets
    // fill in reverse layer order, so the first layers' gradients come last and their bucket is
    // reduced after backward ends: at least one 25 MB bucket (DistributedDataParallel's
    // bucket_cap_mb default), or the whole token embedding, a tensor that gets a bucket of its
    // own when larger (Li et al. 2020, "PyTorch Distributed", sec. 3.2.3 and 4.2).
    const double window = st.backward_s / micro_steps;
    const double embedding_bytes =
        static_cast<double>(std::min(e.params.embedding, e.params.trainable)) / (setup.tp * pp) * grad_elem_bytes;
    const double last_bucket = std::min(bytes, std::max(25.0 * 1024 * 1024, embedding_bytes));
    st.dp_comm_exposed_s = std::max(st.dp_comm_s - window, ring(last_bucket, setup.dp, bw));
  }
  // Optimizer step: memory-bound over this GPU's (sharded) parameters and states.
  {
    const double n = static_cast<double>(e.params.trainable) / (setup.tp * pp) /
                     (setup.zero_stage >= 1 ? setup.dp : 1);
    const double w = (setup.precision == Precision::fp16 || setup.precision == Precision::bf16) ? 2 : 4;
    double per_param = 2 * w + w;  // read and write the parameter, read its gradient
    switch (setup.optimizer) {
      case Optimizer::sgd: break;
      case Optimizer::sgd_momentum: per_param += 2 * w; break;
      case Optimizer::adam:
      case Optimizer::adamw: per_param += 4 * w; break;
      case Optimizer::adam_8bit: per_param += 4; break;
      case Optimizer::adafactor: per_param += 0.1 * w; break;
    }
    if (setup.precision == Precision::fp8) per_param += 8;  // fp32 master read and write
    st.optimizer_s = n * per_param / memory + 4 * eff.kernel_overhead_s;
  }
  st.step_s = compute_s + st.pp_bubble_s + st.tp_comm_s + st.dp_comm_exposed_s + st.optimizer_s;

  // Input pipeline (seed guide sec. 3.2): images per second the GPUs consume vs what the
  // instance's vCPUs decode, keeping one core per GPU for its training process.
  const bool images = model.kind == ModelKind::graph || model.transformer.is_vision();
  st.samples_per_s = static_cast<double>(e.global_batch) / st.step_s;
  if (images && cluster.vcpus_per_node > 0 && input.image_samples_per_s_per_core > 0) {
    const double workers = std::max(0, cluster.vcpus_per_node - cluster.gpus_per_node);
    st.input_needed_samples_per_s = st.samples_per_s / cluster.nodes;
    st.input_capacity_samples_per_s = workers * input.image_samples_per_s_per_core;
    const double per_gpu = st.input_needed_samples_per_s / cluster.gpus_per_node;
    st.suggested_num_workers = static_cast<int>(std::ceil(per_gpu / input.image_samples_per_s_per_core));
    if (st.input_needed_samples_per_s > st.input_capacity_samples_per_s) {
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
  }
  st.tokens_per_s = st.samples_per_s * work.tokens_per_sample;
  st.mfu = (e.flops.forward_per_step + e.flops.backward_per_step) / (st.step_s * total_gpus * st.peak_flop_per_s);
  return st;
}

}  // namespace gpuplan
