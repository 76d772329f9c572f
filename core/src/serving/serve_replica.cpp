// One serving replica: memory left for the KV cache and the time of one engine step.
//
// Memory (per GPU): the runtime takes memory_fraction of the device (vLLM, SGLang) or of what
// is free after loading (TensorRT-LLM); from it go the weights, the peak activations of one step
// at the token budget (what vLLM's profiling run measures) and the CUDA context; the rest holds
// KV blocks of kv_block_tokens tokens (Kwon et al. 2023, "Efficient Memory Management for LLM
// Serving with PagedAttention", sec. 4.1).
//
// Step time: a roofline per class of work, as in training/roofline.cpp but self-contained here (the
// training model changes independently): weight matmuls take the larger of the weight bytes at
// HBM bandwidth and their FLOPs at the achievable matmul rate, each matmul paying for whole
// waves of output tiles (the tile and wave quantisation of training/roofline.cpp); element-wise
// kernels (norms, residual adds, activation) their bytes; attention the larger of its KV reads and
// its FLOPs; plus two tensor-parallel all-reduces per layer (Megatron-LM: Shoeybi et al. 2019, sec.
// 3), the expert-parallel all-to-all of MoE layers, and a gap per kernel. Mixture of experts:
// memory holds all experts; a step reads the experts its tokens touch, E (1 - (1 - k/E)^tokens) per
// layer in expectation under uniform routing.
#include <algorithm>
#include <cmath>

#include "gpuplan/estimate.h"
#include "gpuplan/serve_replica.h"
#include "gpuplan/transformer.h"

namespace gpuplan {
namespace {

Error invalid(Msg id, std::vector<std::string> args = {}) {
  return make_error(Errc::invalid_argument, id, std::move(args));
}

// Gigabytes with one decimal (the templates add " GB").
std::string gb(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", bytes / 1e9);
  return buf;
}

// Bytes of one tensor on one GPU (stored_tensor_bytes: MXFP4 quantises the MLP's matrices only,
// GGUF formats the embedding and head too).
double tensor_bytes(const ParamTensor& t, const WeightFormatBytes& format, int tp) {
  return stored_tensor_bytes(t, format) / (t.tensor_parallel ? tp : 1);
}

// The GPUs that split the tensors outside the routed experts: all of the replica's, or none
// under attention data parallelism (each GPU holds them whole).
int dense_tp(const ServeConfig& c) {
  return c.attention_dp ? 1 : c.tp;
}

// Bytes of one tensor on one GPU of the replica: routed experts split over all its GPUs (by
// expert or tensor parallelism), the rest by dense_tp.
double replica_tensor_bytes(const ParamTensor& t, const WeightFormatBytes& format,
                            const ServeConfig& c) {
  return tensor_bytes(t, format, t.routed_expert ? c.tp : dense_tp(c));
}

// Weight bytes per GPU, split into what every step reads and the experts of MoE layers.
// Token embeddings are looked up, not read whole (unless tied to the head).
void count_weights(const TransformerSpec& s, const ServeConfig& c, ReplicaModel& r) {
  double total = 0, dense = 0, experts = 0;
  // Multi-token prediction modules are not loaded for serving (only as a speculative draft).
  TransformerSpec served = s;
  served.mtp_layers = 0;
  const WeightFormatBytes& format = weight_format_bytes(c.weights);
  for (const ParamTensor& t : transformer_parameters(served)) {
    const double bytes = replica_tensor_bytes(t, format, c);
    total += bytes;
    const bool lookup = t.group == ParamGroup::embedding &&
                        !(s.tied_embeddings && std::string(t.module) == "embed_tokens");
    if (lookup) continue;
    if (t.routed_expert)  // shared experts and dense blocks' MLPs are read every step
      experts += bytes;
    else
      dense += bytes;
  }
  r.memory.weight_bytes = total;
  r.dense_weight_bytes = dense;
  r.moe_layers = static_cast<double>(s.moe_layer_count());
  r.expert_bytes_per_layer = r.moe_layers > 0 ? experts / r.moe_layers : 0;
  r.experts = s.is_moe() ? static_cast<double>(s.experts) : 0;
  r.experts_per_token = s.is_moe() ? static_cast<double>(s.experts_per_token) : 0;
}

// The precision the matmuls run at: FP8 weights on FP8 tensor cores where the GPU has them
// (else weight-only, dequantised to 16-bit); integer weight-only formats at 16-bit; 4-bit floats
// on Blackwell's block-scaled tensor cores (NVFP4 at the FP4 rate, MXFP4 with MXFP8 activations
// at the FP8 rate), elsewhere weight-only where the runtime has such a kernel (vLLM's Marlin FP4)
// and an error where it has none.
Result<std::string> compute_precision(const Gpu& g, WeightFormat w, const RuntimeProfile& p) {
  auto has = [&](const char* key) {
    return g.peak_dense_flops_per_s.count(key) > 0 ||
           g.matmul_max_achievable_flops_per_s.count(key) > 0;
  };
  const WeightFormatBytes& f = weight_format_bytes(w);
  if (f.block_scaled) {
    if (has_block_scaled_mma(g)) return std::string(f.rate_key);
    const auto& fallback = p.fp4_weight_only;  // by the experts' 4-bit format
    if (std::find(fallback.begin(), fallback.end(), expert_weight_format(w)) == fallback.end()) {
      return invalid(Msg::serve_no_fp4_kernel,
                     {g.id, runtime_name(p.runtime), weight_format_name(w)});
    }
  } else if (w == WeightFormat::fp8 && has("fp8")) {
    return std::string("fp8");
  }
  if (w == WeightFormat::fp16 && has("fp16")) return std::string("fp16");
  return std::string(has("bf16") ? "bf16" : "fp16");
}

// The runtime stores the KV cache in `kv` (data/assumptions.json serving.runtimes.*.kv_formats).
std::optional<Error> check_kv_format(const RuntimeProfile& p, KvFormat kv) {
  if (std::find(p.kv_formats.begin(), p.kv_formats.end(), kv) != p.kv_formats.end())
    return std::nullopt;
  std::string have;
  for (KvFormat k : p.kv_formats) have += std::string(have.empty() ? "" : ", ") + kv_format_name(k);
  return invalid(Msg::serve_kv_format, {runtime_name(p.runtime), kv_format_name(kv), have});
}

// Achievable matmul FLOP/s: the GPU's best known figure for the precision
// (known_matmul_flop_per_s), else dense peak x the GEMM efficiency of data/assumptions.json.
Result<double> matmul_rate(const Gpu& g, const std::string& precision, const Efficiencies& eff) {
  if (eff.measured_gemm_flop_per_s > 0) return eff.measured_gemm_flop_per_s;
  if (const double known = known_matmul_flop_per_s(g, precision); known > 0) return known;
  auto p = g.peak_dense_flops_per_s.find(precision);
  if (p != g.peak_dense_flops_per_s.end()) return p->second * eff.gemm;
  return make_error(Errc::not_found, Msg::serve_no_tensor_rate, {g.id, precision});
}

std::optional<Error> check_config(const Model& m, const ServeConfig& c, bool layer_split) {
  const TransformerSpec& s = m.transformer;
  if (!is_decoder_only_lm(m)) return invalid(Msg::serve_not_causal_lm, {m.id});
  if (c.tp < 1 || c.tp > 64) return invalid(Msg::serve_tp_range, {std::to_string(c.tp)});
  if (c.pp < 1 || c.pp > s.layers)
    return invalid(Msg::serve_pp_range, {std::to_string(c.pp), std::to_string(s.layers)});
  if (c.pp > 1 && layer_split) return invalid(Msg::serve_pp_layer_split);
  if (c.pp > 1 && c.attention_dp) return invalid(Msg::serve_pp_attention_dp);
  // Attention DP runs every head on every GPU.
  if (s.heads % c.tp != 0 && !layer_split && !c.attention_dp)
    return invalid(Msg::serve_tp_heads, {std::to_string(c.tp), std::to_string(s.heads)});
  if (c.ep < 1 || c.tp % c.ep != 0) return invalid(Msg::serve_ep_divide);
  if (layer_split && c.ep > 1) return invalid(Msg::serve_ep_layer_split);
  if (c.ep > 1 && !s.is_moe()) return invalid(Msg::serve_ep_moe_only);
  if (c.ep > 1 && s.experts % c.ep != 0)
    return invalid(Msg::serve_ep_experts, {std::to_string(c.ep), std::to_string(s.experts)});
  if (c.attention_dp && !s.is_moe()) return invalid(Msg::serve_attention_dp_moe_only);
  if (c.attention_dp && layer_split) return invalid(Msg::serve_attention_dp_layer_split);
  if (c.max_num_seqs < 0 || c.max_num_batched_tokens < 0) return invalid(Msg::serve_batch_limits);
  if (c.memory_fraction < 0 || c.memory_fraction > 1) return invalid(Msg::serve_memory_fraction);
  return std::nullopt;
}

// Per-direction PCIe x16 bandwidth of the GPU's generation (the cluster helper's PCIe figure).
double single_node_cluster_pcie_bytes_per_s(const Gpu& g) {
  Gpu pcie_only = g;
  pcie_only.nvlink_bandwidth_bytes_per_s = 0;
  auto c = single_node_cluster(pcie_only, 1);
  return c.ok() ? c.value().intra_node_busbw_bytes_per_s : 0;
}

// vLLM's batch defaults depend on the GPU: larger from 70 GiB, except A100 (arg_utils.py).
bool large_gpu(const Gpu& g) {
  const bool a100 = g.id.find("a100") != std::string::npos;
  return g.memory_bytes >= 70.0 * (1ull << 30) && !a100;
}

// The share of a sequence's KV token-blocks that are kept (and read) when windowed blocks keep
// at most their window, against every block keeping every token (kv_cache_size); 1 without
// windows. vLLM's hybrid KV cache manager frees a sliding window's out-of-window blocks.
double kv_window_share(const TransformerSpec* spec, double tokens) {
  if (!spec || spec->sliding_window <= 0 || tokens <= 0) return 1.0;
  const TransformerSpec& s = *spec;
  const KvCacheSize k = kv_cache_size(s, 1.0, tokens);
  const double all = k.every_block_bytes_per_token() * tokens;
  return all > 0 ? k.token_bytes() / all : 1.0;
}

}  // namespace

namespace {

// Whether the replica's decode steps attend to every token of its chunked local attention layers
// (a runtime that chunks only prefill, RuntimeProfile::chunked_attention_decode false).
bool decodes_whole_chunks(const ReplicaModel& r) {
  return r.model && r.model->transformer.local_attention == LocalAttention::chunked &&
         !r.profile.chunked_attention_decode;
}

}  // namespace

double kept_kv_share(const ReplicaModel& r, double tokens) {
  const TransformerSpec* spec = r.model ? &r.model->transformer : nullptr;
  if (!spec || spec->sliding_window <= 0 || decodes_whole_chunks(r)) return 1.0;
  if (r.profile.window_sized_kv) return kv_window_share(spec, tokens);
  return kv_cache_size(*spec, 1.0, tokens).full_layers > 0 ? 1.0 : kv_window_share(spec, tokens);
}

namespace {

// The share of a decoding sequence's KV token-blocks a step reads: a windowed layer reads its
// window (TensorRT-LLM's cyclic buffer too); chunked local attention that the runtime applies to
// prefill only reads every token.
double decode_read_share(const ReplicaModel& r, double context) {
  if (decodes_whole_chunks(r)) return 1.0;
  const TransformerSpec* spec = r.model ? &r.model->transformer : nullptr;
  if (spec && spec->is_compressed_attention() && context > 0) {
    // Compressed attention reads its windows, a CSA block's top-k entries, every HCA entry and
    // the index keys (kv_cache_size's read_bytes), against every block keeping every token.
    const KvCacheSize k = kv_cache_size(*spec, 1.0, context);
    const double all = k.every_block_bytes_per_token() * context;
    return all > 0 ? k.read_bytes / all : 1.0;
  }
  return kv_window_share(spec, context);
}

// Hybrid models under a runtime with hybrid pages (RuntimeProfile::hybrid_pages): the block
// widens to 16 x ceil(state / (16 x kv)) tokens, with `state` one linear block's state and `kv`
// one token of one attention block on this GPU, so that a block of one attention layer holds a
// linear layer's state. Otherwise the runtime's block size.
int64_t block_tokens_for(const KvCacheSize& kv, const ServingAssumptions& a,
                         const ReplicaModel& r) {
  if (!r.profile.hybrid_pages || kv.state_layers <= 0 || kv.full_layers <= 0) return r.block_tokens;
  const double align = static_cast<double>(a.kv_block_tokens);
  const double state = kv.state_bytes / kv.state_layers;
  const double widened = align * std::ceil(state / (align * kv.bytes_per_token_per_layer));
  return std::max(r.block_tokens, static_cast<int64_t>(widened));
}

// The blocks a sequence's linear-attention state takes whatever its length: under hybrid pages
// one per group of as many linear layers as there are attention layers; otherwise the blocks its
// bytes fill.
int64_t state_blocks_per_seq(const TransformerSpec& s, const KvCacheSize& kv, double block_bytes,
                             const ReplicaModel& r) {
  if (kv.state_layers <= 0 || block_bytes <= 0) return 0;
  if (r.profile.hybrid_pages && kv.full_layers > 0)
    return static_cast<int64_t>(
        std::ceil(static_cast<double>(s.linear_layer_count()) / kv.full_layers));
  return static_cast<int64_t>(std::ceil(r.memory.state_bytes_per_seq / block_bytes));
}

// Memory per GPU: weights, activations, context, and the KV cache in what is left.
void fill_memory(const Model& m, const Gpu& g, const ServeConfig& c, const ServingAssumptions& a,
                 ReplicaModel& r) {
  const TransformerSpec& s = m.transformer;
  const TransformerDims d = transformer_dims(s, 1);
  const double tp = c.tp, attention_tp = dense_tp(c);
  const double kv_elem = kv_format_bytes(c.kv);
  ReplicaMemory& mem = r.memory;
  mem.gpu_bytes = g.memory_bytes;
  // One token in every block on this GPU: K and V of its share of the KV heads (replicated past
  // kv_heads), or MLA's whole latent (kv_cache_size); all of them under attention DP.
  const KvCacheSize kv = kv_cache_size(s, kv_elem, 1.0, dense_tp(c));
  // Compressed attention's index keys count in its kept share (kv_window_share's token_bytes).
  r.index_bytes_per_token = s.is_compressed_attention()
                                ? 0.0
                                : kv.index_bytes_per_token_per_layer *
                                      static_cast<double>(s.indexer_layer_count()) / r.stages;
  mem.kv_bytes_per_token = kv.every_block_bytes_per_token() / r.stages + r.index_bytes_per_token;
  mem.state_bytes_per_seq = kv.state_bytes / r.stages;
  // Live tensors of one step at the token budget: residual and normed input, QKV, the MLP's
  // gate and up outputs (per routed expert), at 16 bits; plus fp32 logits of the sampled rows.
  // Under attention DP a GPU holds its rank's share of the budget, its experts all ranks'.
  const double all_tokens = static_cast<double>(r.max_num_batched_tokens);
  const double tokens = all_tokens / r.attention_dp;
  const double seqs = static_cast<double>(std::min(r.max_num_seqs, r.max_num_batched_tokens));
  mem.activation_bytes = 2.0 * (tokens * (2 * d.h + (d.q + 2 * d.kv) / attention_tp) +
                                all_tokens * 2 * d.f * d.routed / tp) +
                         4.0 * seqs / r.attention_dp * static_cast<double>(s.vocab);
  mem.context_bytes = MemoryAssumptions{}.cuda_context_bytes;
  const double fraction = c.memory_fraction > 0 ? c.memory_fraction : r.profile.memory_fraction;
  const double used = mem.weight_bytes + mem.activation_bytes + mem.context_bytes;
  mem.budget_bytes = r.profile.fraction_of_free ? g.memory_bytes : g.memory_bytes * fraction;
  const double left =
      r.profile.fraction_of_free ? (g.memory_bytes - used) * fraction : mem.budget_bytes - used;
  mem.kv_bytes = std::max(0.0, left);
  r.block_tokens = block_tokens_for(kv, a, r);
  // A speculative drafter's keys and values sit beside the model's, token for token.
  const double block_bytes =
      (mem.kv_bytes_per_token + mem.spec_kv_bytes_per_token) * static_cast<double>(r.block_tokens);
  const auto gpu_blocks =
      block_bytes > 0 ? static_cast<int64_t>(std::floor(mem.kv_bytes / block_bytes)) : 0;
  mem.state_blocks_per_seq = state_blocks_per_seq(s, kv, block_bytes, r);
  mem.kv_blocks = gpu_blocks * static_cast<int64_t>(r.attention_dp);
  mem.kv_tokens = mem.kv_blocks * r.block_tokens;
  mem.fits = left > 0 && mem.kv_blocks > 0;
}

}  // namespace

namespace {

// The tensor-parallel group's all-reduce: bus bandwidth and small-message latency. Over NVLink
// the runtime's own kernel (its latency from the profile); over PCIe NCCL's ring, because the
// custom all-reduce kernels of TensorRT-LLM and vLLM need NVLink (TensorRT-LLM's AUTO strategy
// falls back to NCCL without it; vLLM's kernel is off on more than two PCIe-only GPUs).
// A PCIe ring of more than two GPUs crosses the host: what the CPU and its memory deliver
// bounds it (data/assumptions.json serving.pcie_allreduce_*).
Result<bool> set_tp_link(const Gpu& gpu, const ServeConfig& config, const ServingAssumptions& a,
                         const Efficiencies& eff, ReplicaModel& r) {
  r.allreduce_latency_s = r.profile.allreduce_latency_s;
  if (config.link_busbw_bytes_per_s > 0) {
    r.link_busbw_bytes_per_s = config.link_busbw_bytes_per_s;
    return true;
  }
  auto cluster = single_node_cluster(gpu, config.tp);
  if (!cluster.ok()) return cluster.error();
  // A PCIe card's NVLink bridge joins two GPUs only: wider TP groups talk over PCIe.
  const bool bridge_only = gpu.interconnect == "pcie" && config.tp > 2;
  r.pcie_allreduce = cluster.value().link == "pcie" || bridge_only;
  if (!r.pcie_allreduce) {
    r.link_busbw_bytes_per_s = cluster.value().intra_node_busbw_bytes_per_s * eff.nvlink;
    return true;
  }
  const double x16 = single_node_cluster_pcie_bytes_per_s(gpu);
  const double fraction = config.tp <= 2   ? eff.pcie
                          : config.tp <= 4 ? a.pcie_allreduce_fraction_4
                                           : a.pcie_allreduce_fraction_8;
  r.link_busbw_bytes_per_s = x16 * fraction;
  if (config.tp > 1) r.allreduce_latency_s = a.pcie_allreduce_latency_s;
  return true;
}

// Between consecutive stages a token's hidden state crosses PCIe (the PCIe copy efficiency)
// after one hop of NCCL's PCIe latency: ggml's f32 activations under a layer split (4 bytes per
// element), 16-bit ones between pipeline stages (which NVLink, where the GPUs have it, would
// carry faster: a few KB per token, small beside the stage's step either way).
void set_stage_hop(const Gpu& gpu, const Efficiencies& eff, ReplicaModel& r) {
  const double pcie_bytes_per_s = single_node_cluster_pcie_bytes_per_s(gpu) * eff.pcie;
  r.stage_hop_latency_s = eff.nccl_ring.pcie_hop_s;
  r.stage_hop_bytes_per_token = (r.pipelined ? 2.0 : 4.0) * r.hidden;
  r.stage_link_bytes_per_s = pcie_bytes_per_s;
}

// FLOPs of the blocks' weight matmuls (projections, MLPs, router): all but attention's and
// linear attention's token mixing and the LM head.
double block_matmul_flops(const TransformerFlops& f) {
  return f.total() - f.attention_core - f.linear_core - f.head;
}

// The block's weight matmuls as the kernels see them (QKV, O projection, the MLP's gate-up and
// down, the MoE router), each with its output columns and its FLOPs per token on one GPU:
// attention's split over `attention_tp` GPUs, the MLP's over `tp`.
void set_gemm_shapes(const TransformerSpec& s, const TransformerFlops& f, double tp,
                     double attention_tp, const Efficiencies& eff, const Gpu& gpu,
                     ReplicaModel& r) {
  const TransformerDims d = transformer_dims(s, 1);
  const double total = block_matmul_flops(f);
  if (total <= 0) return;
  const double up = s.gated_mlp ? 2.0 / 3.0 : 0.5;  // gate and up fused in one matmul
  const bool moe = s.is_moe();
  const double mlp_tp = moe ? tp : attention_tp;
  r.gemms = {{(d.q + 2 * d.kv) / attention_tp, f.qkv_proj / attention_tp, false},
             {d.h, f.attn_out_proj / attention_tp, false},
             {(s.gated_mlp ? 2 : 1) * d.f / mlp_tp, f.mlp * up / mlp_tp, moe},
             {d.h, f.mlp * (1 - up) / mlp_tp, moe}};
  if (f.router > 0)
    r.gemms.push_back({static_cast<double>(s.experts), f.router / attention_tp, false});
  r.head_cols = static_cast<double>(s.vocab) / attention_tp;
  r.sms = gpu.sm_count;
  r.tiles.gemm_tile_rows = eff.gemm_tile_rows;
  r.tiles.gemm_tile_cols = eff.gemm_tile_cols;
  r.tiles.grouped_gemm = eff.grouped_gemm;
}

// The serving_gemm format key of a weight format ("" where no table measures its kernels).
std::string gemm_format(WeightFormat w) {
  switch (w) {
    case WeightFormat::bf16:
    case WeightFormat::fp16:
      return "bf16";
    case WeightFormat::fp8:
      return "fp8";
    case WeightFormat::nvfp4:
      return "nvfp4";
    default:
      return "";
  }
}

// The runtime's own GEMM kernels, measured on this GPU (serving_gemm_rates), where the replica
// runs its weights' format at that format's precision: their large-GEMM rate replaces the
// achievable matmul rate, and their weight-streaming bandwidth times the steps' weight reads.
// A probe file's figures scale both by what the probe measured against the catalog's own.
void set_gemm_rates(const Gpu& gpu, const ServeConfig& config, const Efficiencies& eff,
                    ReplicaModel& r) {
  const std::string format = gemm_format(config.weights);
  const std::string precision = r.compute_precision == "fp16" ? "bf16" : r.compute_precision;
  if (!config.runtime_gemm_rates || format.empty() || serving_gemm_precision(format) != precision)
    return;
  auto rates = serving_gemm_rates(gpu, runtime_name(config.runtime), format);
  if (!rates) return;
  Efficiencies catalog = eff;
  catalog.measured_gemm_flop_per_s = 0;
  auto catalog_rate = matmul_rate(gpu, r.compute_precision, catalog);
  const double catalog_bandwidth = gpu.memory_bandwidth_bytes_per_s * eff.hbm;
  if (!catalog_rate.ok() || catalog_rate.value() <= 0 || catalog_bandwidth <= 0) return;
  r.compute_flop_per_s = rates->matmul_flop_per_s * r.compute_flop_per_s / catalog_rate.value();
  r.weight_bytes_per_s = rates->weight_stream_bytes_per_s * r.hbm_bytes_per_s / catalog_bandwidth;
  // The note says which: measured on this GPU, or its generation's shares.
  const std::string runtime = runtime_name(config.runtime), key = runtime + "/" + format;
  const std::string rates_text =
      std::to_string(std::llround(r.weight_bytes_per_s / 1e9)) + " GB/s, large matmuls " +
      std::to_string(std::llround(r.compute_flop_per_s / 1e12)) + " TFLOPS";
  if (gpu.serving_gemm.count(key)) {
    r.notes.push_back(runtime + " " + format +
                      " matmuls at the rates measured for its GEMM kernels on " + gpu.id +
                      ": weights stream at " + rates_text);
    return;
  }
  std::string from;
  for (const auto& id : gpu.serving_gemm_generation_share.at(key).from)
    from += (from.empty() ? "" : ", ") + id;
  r.notes.push_back(runtime + " " + format +
                    " matmuls at the shares of bandwidth and peak its GEMM kernels reach on " +
                    from + ": weights stream at " + rates_text);
}

// The serving_moe format key of a weight format ("" where no table measures its MoE kernels).
std::string moe_format(WeightFormat w) {
  switch (expert_weight_format(w)) {
    case WeightFormat::mxfp4:
      return "mxfp4";
    case WeightFormat::int4:
    case WeightFormat::int4_experts:  // the same W4A16 fused-MoE kernels
      return "int4";
    default:
      return "";
  }
}

// The runtime's own fused-MoE kernels, measured on this GPU (serving_moe), for weight formats no
// GEMM table measures (MXFP4, int4): the touched experts' weights stream at their rate, scaled
// like the GEMM rates by a probe file's bandwidth.
void set_moe_rate(const Gpu& gpu, const ServeConfig& config, const Efficiencies& eff,
                  ReplicaModel& r) {
  r.expert_weight_bytes_per_s = r.weight_bytes_per_s;
  const std::string format = moe_format(config.weights);
  if (format.empty()) return;
  const std::string key = std::string(runtime_name(config.runtime)) + "/" + format;
  const auto found = gpu.serving_moe_stream_bytes_per_s.find(key);
  const double catalog_bandwidth = gpu.memory_bandwidth_bytes_per_s * eff.hbm;
  if (!config.runtime_gemm_rates || r.experts <= 0 || catalog_bandwidth <= 0 ||
      found == gpu.serving_moe_stream_bytes_per_s.end())
    return;
  r.expert_weight_bytes_per_s = found->second * r.hbm_bytes_per_s / catalog_bandwidth;
  r.notes.push_back(key + " experts stream at the rate measured for its fused-MoE kernels on " +
                    gpu.id + ": " +
                    std::to_string(std::llround(r.expert_weight_bytes_per_s / 1e9)) + " GB/s");
}

// The rates of the replica's matmuls (its weights' precision), attention (flash attention runs
// at 16 bits even with FP8 or FP4 weights: low-precision attention kernels are opt-in) and HBM,
// with a note where the weights are dequantised.
std::optional<Error> set_rates(const Gpu& gpu, const ServeConfig& config, const Efficiencies& eff,
                               ReplicaModel& r) {
  auto precision = compute_precision(gpu, config.weights, r.profile);
  if (!precision.ok()) return precision.error();
  r.compute_precision = precision.value();
  auto rate = matmul_rate(gpu, r.compute_precision, eff);
  if (!rate.ok()) return rate.error();
  r.compute_flop_per_s = rate.value();
  r.hbm_bytes_per_s = eff.measured_hbm_bytes_per_s > 0 ? eff.measured_hbm_bytes_per_s
                                                       : gpu.memory_bandwidth_bytes_per_s * eff.hbm;
  if (r.hbm_bytes_per_s <= 0)
    return make_error(Errc::not_found, Msg::serve_no_memory_bandwidth, {gpu.id});
  r.weight_bytes_per_s = r.hbm_bytes_per_s;
  set_gemm_rates(gpu, config, eff, r);
  set_moe_rate(gpu, config, eff, r);
  const bool low = r.compute_precision == "fp8" || r.compute_precision == "fp4";
  auto attention_rate = matmul_rate(
      gpu,
      low ? compute_precision(gpu, WeightFormat::bf16, r.profile).value() : r.compute_precision,
      eff);
  if (!attention_rate.ok()) return attention_rate.error();
  r.attention_flop_per_s = attention_rate.value();
  // Sparse attention's indexer scores in fp8 (DeepSeek-V3.2-Exp inference/model.py, fp8_index),
  // where the GPU has fp8 tensor cores.
  auto fp8_rate = matmul_rate(gpu, "fp8", eff);
  r.indexer_flop_per_s = fp8_rate.ok() ? fp8_rate.value() : r.attention_flop_per_s;
  if (r.compute_precision != "fp8" && config.weights == WeightFormat::fp8) {
    r.notes.push_back(gpu.id +
                      " has no FP8 tensor cores: FP8 weights are dequantised, matmuls run at " +
                      r.compute_precision);
  }
  if (weight_format_bytes(config.weights).block_scaled && !has_block_scaled_mma(gpu)) {
    r.notes.push_back(gpu.id + " has no FP4 tensor cores: " + runtime_name(config.runtime) +
                      " runs the " + weight_format_name(config.weights) +
                      " weights weight-only, matmuls at " + r.compute_precision);
  }
  return std::nullopt;
}

// The one-block model that times an EAGLE or MTP draft step: the model's embedding and head
// around one block. MTP: a block like the model's last MoE block (DeepSeek-V3 report, sec. 2.2);
// EAGLE: one dense decoder block of the model's width and MLP (EAGLE, sec. 3.1 and 4).
std::shared_ptr<Model> drafter_module(const Model& model, SpecMethod method) {
  auto m = std::make_shared<Model>(model);
  m->id = model.id + " (" + spec_method_name(method) + " drafter)";
  TransformerSpec& s = m->transformer;
  s = s.stack(1);
  s.first_dense_layers = 0;
  s.moe_layer_step = 1;
  s.mtp_layers = 0;
  s.sliding_window = 0;
  s.full_attention_every = 0;
  // Its block attends with softmax attention (Qwen3-Next's and Nemotron 3's MTP layers too).
  s.linear_key_heads = s.linear_value_heads = s.linear_key_head_dim = 0;
  s.linear_value_head_dim = s.linear_conv_kernel = 0;
  s.linear_conv_bias = s.linear_state_fp32 = false;
  if (method == SpecMethod::eagle) {
    s.experts = s.experts_per_token = s.shared_experts = 0;
    s.moe_ffn_hidden = s.shared_expert_ffn_hidden = 0;
    s.router_bias = false;
  }
  return m;
}

// The bytes of the drafter's own weights on one GPU: the MTP modules (their norms, 2h -> h
// projection and block; embedding and head are the model's), or EAGLE's projection and block.
double module_weight_bytes(const Model& module, const ServeConfig& c, int64_t modules) {
  TransformerSpec s = module.transformer;
  s.mtp_layers = modules;
  double bytes = 0;
  const WeightFormatBytes& format = weight_format_bytes(c.weights);
  for (const ParamTensor& t : transformer_parameters(s)) {
    if (t.mtp) bytes += replica_tensor_bytes(t, format, c);
  }
  return bytes;
}

Error spec_error(const std::string& key, Msg id, std::vector<std::string> args) {
  return about_key(invalid(id, std::move(args)), key);
}

// The same checks as parse_serve_request's, for callers that fill ServeConfig themselves.
std::optional<Error> check_spec(const Model& model, const SpecDecoding& spec) {
  const std::string method = spec_method_name(spec.method);
  auto msg = [](Msg id, const std::string& arg, const char* key) {
    return about_key(make_error(Errc::invalid_argument, id, {arg}), key);
  };
  if (spec.tokens < 1 || spec.tokens > 16)
    return msg(Msg::serve_spec_tokens_required, method, "spec-tokens");
  if (!(spec.acceptance > 0 && spec.acceptance <= 1))
    return msg(Msg::serve_spec_acceptance_required, method, "spec-acceptance");
  if (spec.method == SpecMethod::mtp && model.transformer.mtp_layers < 1) {
    return spec_error("spec-method", Msg::serve_spec_no_mtp, {model.id});
  }
  if (spec.method != SpecMethod::draft) return std::nullopt;
  if (!spec.draft) {
    return spec.draft_model.empty()
               ? msg(Msg::serve_spec_draft_required, "", "spec-draft-model")
               : msg(Msg::serve_unknown_draft, spec.draft_model, "spec-draft-model");
  }
  if (spec.draft->transformer.vocab != model.transformer.vocab) {
    return spec_error("spec-draft-model", Msg::serve_spec_vocab,
                      {spec.draft->id, std::to_string(spec.draft->transformer.vocab), model.id,
                       std::to_string(model.transformer.vocab)});
  }
  return std::nullopt;
}

// Resolves the drafter: its step-time model, its weights and its KV per token on one GPU. A
// draft model runs at the replica's TP, weights and KV format (vLLM's default); EAGLE and MTP
// add their 16-bit 2h -> h projection of the hidden state and the token's embedding to each step.
std::optional<Error> resolve_spec(const Model& model, const Gpu& gpu, const ServeConfig& config,
                                  const ServingAssumptions& serving, const Efficiencies& eff,
                                  ReplicaModel& r) {
  const SpecDecoding& spec = config.spec;
  if (spec.method == SpecMethod::none) return std::nullopt;
  if (auto err = check_spec(model, spec)) return err;
  ServeConfig dc = config;
  dc.spec = SpecDecoding{};
  const bool own = spec.method != SpecMethod::draft;
  if (own) r.spec.module = drafter_module(model, spec.method);
  const Model& drafter = own ? *r.spec.module : *spec.draft;
  if (!drafter.transformer.is_moe()) {  // a dense drafter is tensor parallel on the replica
    dc.ep = 1;
    dc.attention_dp = false;
  }
  auto draft = build_replica(drafter, gpu, dc, serving, eff);
  if (!draft.ok()) {
    const char* key = own ? "spec-method" : "spec-draft-model";
    return spec_error(key, Msg::serve_drafter_cannot_run, {key, draft.error().message});
  }
  ReplicaModel d = std::move(draft).value();
  const double modules =
      spec.method == SpecMethod::mtp ? static_cast<double>(model.transformer.mtp_layers) : 1.0;
  if (own) {
    const double h = static_cast<double>(model.transformer.hidden);
    d.dense_weight_bytes += 2.0 * (2 * h * h);  // the projection, 16-bit, on every GPU
    d.gemm_flops_per_token += 2.0 * (2 * h * h);
    d.gemms.push_back({h, 2.0 * (2 * h * h), false});
    r.memory.spec_weight_bytes = module_weight_bytes(
        *r.spec.module, config, spec.method == SpecMethod::mtp ? model.transformer.mtp_layers : 1);
  } else {
    r.memory.spec_weight_bytes = d.memory.weight_bytes;
  }
  r.memory.spec_kv_bytes_per_token = d.memory.kv_bytes_per_token * modules;
  r.memory.weight_bytes += r.memory.spec_weight_bytes;
  r.spec.method = spec.method;
  r.spec.tokens = spec.tokens;
  r.spec.acceptance = spec.acceptance;
  r.spec.expected_tokens = spec_expected_tokens(spec.acceptance, spec.tokens);
  r.spec.draft = std::make_shared<const ReplicaModel>(std::move(d));
  return std::nullopt;
}

// The runtime's batch limits for the replica: the configured ones, else the runtime's defaults
// for this GPU; per GPU under attention DP (TensorRT-LLM's max_batch_size and max_num_tokens), so
// the replica's are tp times larger.
void set_batch_limits(const Gpu& gpu, const ServeConfig& config, ReplicaModel& r) {
  const bool large = large_gpu(gpu);
  r.max_num_seqs = config.max_num_seqs > 0
                       ? config.max_num_seqs
                       : (large ? r.profile.max_num_seqs_large : r.profile.max_num_seqs);
  r.max_num_batched_tokens =
      config.max_num_batched_tokens > 0
          ? config.max_num_batched_tokens
          : (large ? r.profile.max_num_batched_tokens_large : r.profile.max_num_batched_tokens);
  if (!config.attention_dp) return;
  r.attention_dp = config.tp;
  r.max_num_seqs *= config.tp;
  r.max_num_batched_tokens *= config.tp;
  const std::string gpus = std::to_string(config.tp);
  r.notes.push_back(config.ep > 1 ? "attention data parallel: each of the " + gpus +
                                        " GPUs runs attention for its own requests; the routed "
                                        "experts are split by expert over " +
                                        std::to_string(config.ep) + " GPUs"
                                  : "attention data parallel: each of the " + gpus +
                                        " GPUs runs attention for its own requests; the routed "
                                        "experts are split by tensor parallelism");
}

// 16-bit activations per token and layer on one GPU, in two kinds. Element-wise kernels (norms,
// residual adds, the MLP's activation function) are separate, memory-bound kernels that run
// between the matmuls: norm in/out 2x(2h) and residual adds 2x(3h) on the full hidden state,
// which tensor parallelism replicates on every GPU (Megatron-LM: Shoeybi et al. 2019, sec. 3,
// "we duplicate [layer normalization, residual connections] across GPUs"), and the gated
// activation's read-read-write 3f per routed expert on this GPU's share of the MLP. The
// matmuls' own inputs and outputs (QKV out q+2kv, attention out q, O-projection out h,
// gate/up out 2f, down out h) move with their weights in the matmul's roofline.
// Under attention DP the rank's own tokens hold the full hidden state and attention's
// tensors; the MLP's belong to every token the GPU's experts see.
void set_activation_traffic(const TransformerSpec& s, const ServeConfig& config, ReplicaModel& r) {
  const double attention_tp = dense_tp(config);
  const TransformerDims d = transformer_dims(s, 1);
  const double tp = config.tp;
  // r.layers counts block-equivalents; the MLP widths are averaged over every layer.
  const double layers = static_cast<double>(s.layers);
  r.elementwise_bytes_per_token = 2.0 * r.layers * 10 * d.h;
  r.mlp_elementwise_bytes_per_token = 2.0 * layers * 3 * d.f * d.routed / tp;
  r.activation_bytes_per_token = 2.0 * r.layers * ((d.q + 2 * d.kv + d.q) / attention_tp + 2 * d.h);
  r.mlp_activation_bytes_per_token = 2.0 * layers * 2 * d.f * d.routed / tp;
}

}  // namespace

const char* spec_method_name(SpecMethod m) {
  switch (m) {
    case SpecMethod::none:
      return "none";
    case SpecMethod::draft:
      return "draft";
    case SpecMethod::eagle:
      return "eagle";
    case SpecMethod::mtp:
      return "mtp";
  }
  return "none";
}

std::optional<SpecMethod> parse_spec_method(const std::string& s) {
  for (SpecMethod m : {SpecMethod::none, SpecMethod::draft, SpecMethod::eagle, SpecMethod::mtp}) {
    if (s == spec_method_name(m)) return m;
  }
  return std::nullopt;
}

double spec_expected_tokens(double acceptance, int tokens) {
  const double a = acceptance, k = tokens;
  if (a >= 1) return k + 1;
  return (1 - std::pow(a, k + 1)) / (1 - a);
}

WeightFormat checkpoint_weight_format(const Model& model) {
  return parse_weight_format(model.checkpoint_weights).value_or(WeightFormat::bf16);
}

Result<ReplicaModel> build_replica(const Model& model, const Gpu& gpu, const ServeConfig& requested,
                                   const ServingAssumptions& serving, const Efficiencies& eff) {
  ServeConfig asked = requested;
  if (asked.checkpoint_weights) {
    asked.weights = checkpoint_weight_format(model);
    asked.checkpoint_weights = false;
  }
  if (asked.ep == 0) asked.ep = asked.tp;
  const bool split = serving.profile(asked.runtime).layer_split;
  if (auto err = check_config(model, asked, split)) return *err;
  // A layer-split replica is timed as the whole model on one GPU (its GPUs run one after
  // another) and holds 1/stages of the weights and KV cache on each GPU; a pipelined one as the
  // whole model on one stage's tp GPUs, per micro-batch.
  ServeConfig config = asked;
  if (split) config.tp = 1;
  const TransformerSpec& s = model.transformer;
  ReplicaModel r;
  r.model = &model;
  r.gpu = &gpu;
  r.config = asked;
  if (requested.checkpoint_weights && !model.checkpoint_weights.empty()) {
    r.notes.push_back(std::string("weights: ") + weight_format_name(asked.weights) + ", as the " +
                      checkpoint_label(model) + " checkpoint ships them (--weights sets another)");
  }
  r.stages = split ? asked.tp : asked.pp;
  r.pipelined = !split && asked.pp > 1;
  r.profile = serving.profile(config.runtime);
  if (auto err = check_kv_format(r.profile, config.kv)) return *err;
  r.block_tokens = serving.kv_block_tokens;
  set_batch_limits(gpu, config, r);
  count_weights(s, config, r);
  r.memory.weight_bytes /= r.stages;
  if (auto err = resolve_spec(model, gpu, config, serving, eff, r)) return *err;
  fill_memory(model, gpu, config, serving, r);
  if (!r.memory.fits) {
    const double need = r.memory.weight_bytes + r.memory.activation_bytes + r.memory.context_bytes;
    const double have = r.profile.fraction_of_free ? gpu.memory_bytes : r.memory.budget_bytes;
    return make_error(
        Errc::does_not_fit, Msg::serve_does_not_fit,
        {model.id, weight_format_name(config.weights), gpu.id, std::to_string(asked.tp),
         gb(r.memory.weight_bytes), gb(r.memory.activation_bytes), gb(r.memory.context_bytes),
         gb(have - need), gb(have)});
  }
  if (auto err = set_rates(gpu, config, eff, r)) return *err;
  const TransformerFlops f = transformer_forward_flops(s, 1);  // one token: no attention context
  const double attention_tp = dense_tp(config);
  r.gemm_flops_per_token = block_matmul_flops(f) / config.tp;
  r.head_flops_per_token = f.head / attention_tp;
  set_gemm_shapes(s, f, config.tp, attention_tp, eff, gpu, r);
  // Pairs are counted once per token; every softmax-attention block scores them.
  // Global blocks of their own geometry (Gemma 4) score a pair at theirs: summed over the blocks
  // as if each read the same keys (the kept share weighs the bytes, not the FLOPs, per kind).
  const double global = static_cast<double>(s.global_geometry_layers());
  const double attention_layers = static_cast<double>(s.attention_layer_count()) - global;
  const TransformerSpec g = s.global_blocks();
  r.attention_flops_per_pair =
      (attention_flops_per_pair(s) * attention_layers + attention_flops_per_pair(g) * global) /
      attention_tp;
  r.decode_attention_flops_per_pair = (absorbed_attention_flops_per_pair(s) * attention_layers +
                                       absorbed_attention_flops_per_pair(g) * global) /
                                      attention_tp;
  // Compressed attention's indexer scores one compressed key per csa_ratio tokens of context.
  r.indexer_flops_per_pair =
      indexer_flops_per_pair(s) * static_cast<double>(s.indexer_layer_count()) /
      (s.is_compressed_attention() ? static_cast<double>(std::max<int64_t>(s.csa_ratio, 1)) : 1.0);
  const double linear_layers = static_cast<double>(s.linear_layer_count()) / attention_tp;
  r.linear_decode_flops_per_token = linear_layers * linear_attention_core_flops_per_token(s, 1);
  r.linear_prefill_flops_per_token =
      linear_layers * linear_attention_core_flops_per_token(s, s.linear_chunk_tokens());
  r.layers = s.block_equivalents();
  set_activation_traffic(s, config, r);
  r.hidden = static_cast<double>(s.hidden);
  if (auto link = set_tp_link(gpu, config, serving, eff, r); !link.ok()) return link.error();
  if (r.stages > 1) set_stage_hop(gpu, eff, r);
  r.kernel_overhead_s = eff.kernel_overhead_s;
  r.host_overhead_per_kernel_s = r.profile.cuda_graphs ? 0.0 : eff.host_overhead_per_kernel_s;
  return r;
}

void span_machines(ReplicaModel& r, int machines, double network_bytes_per_s,
                   const Efficiencies& eff) {
  if (machines <= 1 || r.stages <= 1) return;
  r.stage_network_hops = std::min(static_cast<double>(machines - 1), r.stages - 1);
  r.stage_network_bytes_per_s = network_bytes_per_s;
  r.stage_network_latency_s = eff.nccl_ring.network_hop_s;
}

namespace {

// KV blocks one sequence of `tokens` tokens takes: windowed blocks hold at most their window of
// its tokens; linear-attention state takes blocks of its own.
double blocks_per_sequence(const ReplicaModel& r, double tokens) {
  const double kept = tokens * kept_kv_share(r, tokens);
  return std::ceil(kept / static_cast<double>(r.block_tokens)) +
         static_cast<double>(r.memory.state_blocks_per_seq);
}

}  // namespace

int64_t max_concurrent_sequences(const ReplicaModel& r, double prompt_tokens,
                                 double output_tokens) {
  const double tokens = std::max(1.0, prompt_tokens + output_tokens);
  const auto by_kv = static_cast<int64_t>(
      std::floor(static_cast<double>(r.memory.kv_blocks) / blocks_per_sequence(r, tokens)));
  return std::min(by_kv, r.max_num_seqs);
}

Result<ReplicaModel> build_static_batch_replica(const Model& model, const Gpu& gpu,
                                                const ServeConfig& config, double prompt_tokens,
                                                double output_tokens,
                                                const ServingAssumptions& serving,
                                                const Efficiencies& eff) {
  if (serving.profile(config.runtime).continuous_batching || config.max_num_batched_tokens > 0)
    return build_replica(model, gpu, config, serving, eff);
  // One sequence first: its prompt's activations (A, with its sampled row's logits) and the KV
  // blocks it takes (K). The memory left for both is what one sequence leaves plus its A, and a
  // batch of B takes B x (A + K): activations grow with the batch's prompt tokens and rows.
  const double prompt = std::max(1.0, std::ceil(prompt_tokens));
  ServeConfig one = config;
  one.max_num_seqs = 1;
  one.max_num_batched_tokens = static_cast<int64_t>(prompt);
  auto single = build_replica(model, gpu, one, serving, eff);
  if (!single.ok()) return single;
  const ReplicaModel& r = single.value();
  const double block_bytes = (r.memory.kv_bytes_per_token + r.memory.spec_kv_bytes_per_token) *
                             static_cast<double>(r.block_tokens);
  const double kv_per_seq =
      blocks_per_sequence(r, std::max(1.0, prompt + output_tokens)) * block_bytes;
  const double left = r.memory.kv_bytes + r.memory.activation_bytes;
  auto batch = static_cast<int64_t>(std::floor(left / (r.memory.activation_bytes + kv_per_seq)));
  if (config.max_num_seqs > 0) batch = std::min(batch, config.max_num_seqs);
  if (batch <= 1) return single;
  ServeConfig sized = config;
  sized.max_num_seqs = batch;
  sized.max_num_batched_tokens = static_cast<int64_t>(prompt) * batch;
  return build_replica(model, gpu, sized, serving, eff);
}

namespace {

// Tile and wave quantisation of a matmul with `rows` rows (training/roofline.cpp's model). Kernels
// for fewer rows than one tile choose narrower tiles or split K (cuBLAS heuristics), so those are
// not quantised here.
double quantised(const ReplicaModel& r, double rows, double cols, double groups = 1) {
  if (rows < r.tiles.gemm_tile_rows) return 1.0;
  return grouped_gemm_quantisation_efficiency(rows, cols, groups, r.sms, r.tiles);
}

// Compute time of the weight matmuls of one step on one GPU: each matmul at the achievable rate
// times its quantisation efficiency; expert matmuls see the tokens routed to each touched expert
// (from the whole step), all touched experts' tiles in one grouped launch (fused MoE kernels:
// vLLM's, SGLang's, TensorRT-LLM's), the others the GPU's rank's share of the step (rank_tokens,
// of which `sampled` are sampled).
double matmul_compute_s(const ReplicaModel& r, double tokens, double rank_tokens, double sampled,
                        double touched) {
  double t = 0;
  for (const ReplicaModel::Gemm& g : r.gemms) {
    const double passing = g.expert ? tokens : rank_tokens;
    const double rows = g.expert ? tokens * r.experts_per_token / std::max(1.0, touched) : passing;
    const double groups = g.expert ? std::max(1.0, touched) : 1.0;
    const double grouped = groups > 1 && r.tiles.grouped_gemm > 0 ? r.tiles.grouped_gemm : 1.0;
    t += passing * g.flops_per_token /
         (r.compute_flop_per_s * grouped * quantised(r, rows, g.cols, groups));
  }
  if (r.gemms.empty()) t = tokens * r.gemm_flops_per_token / r.compute_flop_per_s;
  return t + sampled * r.head_flops_per_token /
                 (r.compute_flop_per_s * quantised(r, sampled, r.head_cols));
}

}  // namespace

namespace {

// The prompts with a chunk in the step: those whose last chunk it holds, and at least the one
// whose chunk it runs.
double prompts_in(const StepLoad& load) {
  return load.prefill_tokens > 0 ? std::max(1.0, load.prefill_last) : 0.0;
}

// Attention of one step: decodes read each sequence's keys and values (every verified position
// of a speculative step attends to them); prefill writes its tokens' and reads the keys and values
// of the tokens before its chunks, cached or computed earlier (flash attention: scores stay on
// chip, Dao et al. 2022); MLA decodes over the latent (absorbed_attention_flops_per_pair), its
// prefill over per-head keys and values. Windowed blocks read at most their window of each sequence
// (its mean context here). One GPU reads its rank's share of the step (rank_share).
double attention_s(const ReplicaModel& r, const StepLoad& load, double positions_per_seq,
                   double rank_share) {
  const TransformerSpec* spec = r.model ? &r.model->transformer : nullptr;
  const double decode_share =
      load.decode_seqs > 0 ? decode_read_share(r, load.decode_context / load.decode_seqs) : 1.0;
  const double prefill_share = load.prefill_tokens > 0
                                   ? kv_window_share(spec, load.prefill_pairs / load.prefill_tokens)
                                   : 1.0;
  const double decode_keys = load.decode_context * decode_share;
  const double prefill_keys = load.prefill_context * prefill_share;
  // Sparse attention: each query reads the latent of at most top-k keys, its indexer every key.
  const bool sparse = spec && spec->is_sparse_attention();
  const double topk = sparse ? static_cast<double>(spec->index_topk) : 0.0;
  auto selected = [&](double keys, double queries) {
    return sparse ? std::min(keys, queries * topk) : keys;
  };
  const double decode_read = selected(decode_keys, load.decode_seqs);
  const double latent_bytes = r.memory.kv_bytes_per_token - r.index_bytes_per_token;
  const double kv_bytes =
      ((decode_read + load.prefill_tokens + selected(prefill_keys, load.prefill_tokens)) *
           latent_bytes +
       (decode_keys + load.prefill_tokens + prefill_keys) * r.index_bytes_per_token) *
      r.stages;
  const double decode_flops = decode_read * positions_per_seq * r.decode_attention_flops_per_pair;
  const double prefill_flops = selected(load.prefill_pairs * prefill_share, load.prefill_tokens) *
                               r.attention_flops_per_pair;
  // Compressed attention's decode keys are its read share; its indexer scores every token's.
  const bool compressed = spec && spec->is_compressed_attention();
  const double index_pairs =
      (compressed ? load.decode_context : decode_keys) * positions_per_seq + load.prefill_pairs;
  // Linear-attention blocks: every decoding sequence's state read and written, and each prompt's
  // once per chunk it runs in this step (at least once); their rules' FLOPs per token.
  const double prompts = prompts_in(load);
  const double state_bytes =
      2 * (load.decode_seqs + prompts) * r.memory.state_bytes_per_seq * r.stages;
  const double linear_flops =
      load.decode_seqs * positions_per_seq * r.linear_decode_flops_per_token +
      load.prefill_tokens * r.linear_prefill_flops_per_token;
  return rank_share *
         std::max((kv_bytes + state_bytes) / r.hbm_bytes_per_s,
                  (decode_flops + prefill_flops + linear_flops) / r.attention_flop_per_s +
                      index_pairs * r.indexer_flops_per_pair / r.indexer_flop_per_s);
}

// The drafter's part of a speculative step: its first step takes the decodes and the prompt
// chunks (a draft keeps its own keys and values of every token), the k - 1 after it the decodes.
double draft_s(const ReplicaModel& r, const StepLoad& load) {
  if (!r.spec.draft) return 0;
  double t = step_time(*r.spec.draft, load).total_s;
  if (load.decode_seqs > 0 && r.spec.tokens > 1) {
    StepLoad next;
    next.decode_seqs = load.decode_seqs;
    next.decode_context = load.decode_context;
    t += (r.spec.tokens - 1) * step_time(*r.spec.draft, next).total_s;
  }
  return t;
}

}  // namespace

namespace {

// Communication of one step on one GPU. Tensor parallel: two all-reduces of the hidden state per
// layer. Expert parallel: each token's dispatch to its k experts and the combine back, (ep-1)/ep
// of them remote. Attention DP (no all-reduce): the GPU dispatches its rank's tokens (expert
// parallel over all the GPUs), or all-gathers the step's tokens before the tensor-parallel
// experts and reduce-scatters their outputs.
double comm_s(const ReplicaModel& r, double tokens, double rank_tokens) {
  double t = 0;
  if (r.stages > 1 && r.stage_link_bytes_per_s > 0) {
    const double network = r.stage_network_bytes_per_s > 0 ? r.stage_network_hops : 0.0;
    t += (r.stages - 1 - network) *
         (r.stage_hop_latency_s + tokens * r.stage_hop_bytes_per_token / r.stage_link_bytes_per_s);
    if (network > 0) {
      t += network * (r.stage_network_latency_s +
                      tokens * r.stage_hop_bytes_per_token / r.stage_network_bytes_per_s);
    }
  }
  const double tp = r.stages > 1 && !r.pipelined ? 1.0 : r.config.tp, ep = r.config.ep;
  const double hidden_bytes = r.hidden * 2.0;
  if (r.attention_dp > 1) {
    const double moved =
        ep > 1 ? rank_tokens * r.experts_per_token * (ep - 1) / ep : tokens * (tp - 1) / tp;
    return t + 2 * r.moe_layers *
                   (r.allreduce_latency_s + moved * hidden_bytes / r.link_busbw_bytes_per_s);
  }
  if (tp > 1) {
    // Ring all-reduce moves 2(n-1)/n of the tensor per GPU (nccl-tests doc/PERFORMANCE.md).
    t += 2 * r.layers *
         (r.allreduce_latency_s +
          2 * (tp - 1) / tp * tokens * hidden_bytes / r.link_busbw_bytes_per_s);
  }
  if (ep > 1) {
    const double dispatch_bytes = tokens * r.experts_per_token * hidden_bytes * (ep - 1) / ep;
    t += 2 * r.moe_layers * (r.allreduce_latency_s + dispatch_bytes / r.link_busbw_bytes_per_s);
  }
  return t;
}

// The step of a pipelined replica: its sequences split into m = min(stages, sequences)
// micro-batches, each passing every stage (1/stages of the layers) while the others run in the
// other stages; every sequence advances once in `stages` stage-steps of one micro-batch each,
// i.e. in the time the whole model takes for one micro-batch. A lone sequence runs the stages
// one after another.
StepLoad micro_batch(const StepLoad& load, double stages) {
  const double prompts = prompts_in(load);
  const double m = std::clamp(load.decode_seqs + prompts, 1.0, stages);
  StepLoad one = load;
  for (double* x : {&one.decode_seqs, &one.decode_context, &one.prefill_tokens, &one.prefill_last,
                    &one.prefill_pairs, &one.prefill_context})
    *x /= m;
  return one;
}

}  // namespace

StepBreakdown step_time(const ReplicaModel& r, const StepLoad& asked) {
  const StepLoad load = r.pipelined ? micro_batch(asked, r.stages) : asked;
  StepBreakdown b;
  // Speculative decoding verifies k drafted tokens and samples one more per sequence.
  const double positions = r.spec.draft ? r.spec.tokens + 1.0 : 1.0;
  const double decode_tokens = load.decode_seqs * positions;
  const double tokens = decode_tokens + load.prefill_tokens;
  if (tokens <= 0) return b;
  b.experts_touched = experts_touched(r.experts, r.experts_per_token, tokens);
  const double expert_share = r.experts > 0 ? b.experts_touched / r.experts : 0;
  const double expert_bytes = r.moe_layers * r.expert_bytes_per_layer * expert_share;
  // Attention DP: a GPU runs attention and the dense layers for its rank's share of the step.
  const double rank_share = load.one_rank ? 1.0 : 1.0 / r.attention_dp;
  const double rank_tokens = tokens * rank_share;
  // The matmuls' activations move with their weights (which stream at the runtime's measured
  // GEMM bandwidth where known); element-wise kernels run between them.
  const double activation_bytes =
      rank_tokens * r.activation_bytes_per_token + tokens * r.mlp_activation_bytes_per_token;
  // Logits only for the rows that sample a token: decodes and prompts that end this step.
  const double compute_s = matmul_compute_s(
      r, tokens, rank_tokens, (decode_tokens + load.prefill_last) * rank_share, b.experts_touched);
  b.weights_s = std::max(r.dense_weight_bytes / r.weight_bytes_per_s +
                             expert_bytes / r.expert_weight_bytes_per_s +
                             activation_bytes / r.hbm_bytes_per_s,
                         compute_s);
  b.elementwise_s =
      (rank_tokens * r.elementwise_bytes_per_token + tokens * r.mlp_elementwise_bytes_per_token) /
      r.hbm_bytes_per_s;
  b.attention_s = attention_s(r, load, positions, rank_share);
  b.comm_s = comm_s(r, tokens, rank_tokens);
  const double kernels =
      r.layers * r.profile.kernels_per_layer + r.moe_layers * r.profile.moe_extra_kernels_per_layer;
  const double gpu_s =
      b.weights_s + b.elementwise_s + b.attention_s + b.comm_s + kernels * r.kernel_overhead_s;
  // Eager PyTorch: the host issues every kernel; it runs ahead, so the step takes the longer.
  // A Python executor also handles each request of the step on the host (its rank's share
  // under attention DP, one executor per rank), beside the GPU's step.
  const double requests = (load.decode_seqs + prompts_in(load)) * rank_share;
  b.host_s = kernels * r.host_overhead_per_kernel_s + requests * r.profile.host_per_sequence_s;
  b.draft_s = draft_s(r, load);
  b.total_s = std::max(gpu_s, b.host_s) + b.draft_s;
  b.overhead_s = b.total_s - (b.weights_s + b.elementwise_s + b.attention_s + b.comm_s + b.draft_s);
  return b;
}

double prefill_time_s(const ReplicaModel& r, double prompt_tokens, double cached_tokens) {
  // Alone, a prompt runs on one attention-DP rank, in chunks of that rank's budget.
  const double chunk =
      std::max(1.0, static_cast<double>(r.max_num_batched_tokens) / r.attention_dp);
  double done = std::clamp(cached_tokens, 0.0, std::max(0.0, prompt_tokens - 1)), total = 0;
  while (done < prompt_tokens) {
    const double c = std::min(chunk, prompt_tokens - done);
    StepLoad load;
    load.prefill_tokens = c;
    load.prefill_pairs = c * done + c * (c + 1) / 2;  // causal: each token sees the ones before
    load.prefill_context = done;
    load.prefill_last = done + c >= prompt_tokens ? 1 : 0;
    load.one_rank = true;
    total += step_time(r, load).total_s;
    done += c;
  }
  return total;
}

namespace {

// One burst's request shape: its uncached prompt, the decode steps a request takes, the tokens a
// decode step takes per sequence, and the batch that fits.
struct BurstShape {
  double prompt = 0, cached = 0, computed = 0, output = 0;
  double decode_steps = 0, positions = 1, batch = 0, budget = 0;
};

// Steady state with prompts spread evenly over the steps: per step x = min(B/d, T/(P' + d·v))
// requests advance (B the batch, d a request's decode steps, T the step's token budget, P' the
// uncached prompt, v the positions a decode step takes). Right when every step holds some
// prefill: the budget binds, or prompts arrive at least once a step.
double spread_tokens_per_s(const ReplicaModel& r, const BurstShape& b) {
  const double d = b.decode_steps;
  const double x = r.profile.continuous_batching
                       ? std::min(b.batch / d, b.budget / (b.computed + d * b.positions))
                       : b.batch / d;
  StepLoad load;
  load.decode_seqs = x * d;
  load.decode_context = x * d * (b.prompt + b.output / 2);
  load.prefill_tokens = x * b.computed;
  load.prefill_pairs = x * (b.computed * b.cached + b.computed * (b.computed + 1) / 2);
  load.prefill_context = x * b.cached;
  load.prefill_last = x;
  const double t = step_time(r, load).total_s;
  return t > 0 ? load.decode_seqs * r.spec.expected_tokens / t : 0;
}

}  // namespace

double burst_output_tokens_per_s(const ReplicaModel& r, double prompt_tokens, double output_tokens,
                                 double cached_tokens, BurstSteps steps) {
  BurstShape b;
  b.prompt = prompt_tokens;
  b.output = std::max(1.0, output_tokens);
  b.cached = std::clamp(cached_tokens, 0.0, std::max(0.0, b.prompt - 1));
  b.computed = b.prompt - b.cached;
  b.batch = static_cast<double>(max_concurrent_sequences(r, b.prompt, b.output));
  if (b.batch < 1) return 0;
  b.decode_steps = b.output / r.spec.expected_tokens;
  b.positions = r.spec.draft ? r.spec.tokens + 1.0 : 1.0;
  b.budget = static_cast<double>(r.max_num_batched_tokens);
  if (!r.profile.continuous_batching) return spread_tokens_per_s(r, b);
  // A full batch whose requests end at most once a step (vLLM's scheduler, continuous batching
  // with chunked prefill): each new prompt runs in n chunks of what the budget leaves beside the
  // other B - 1 decodes, alone in its steps; the steps between hold decodes only. A request lives
  // n + d steps, so x = B / (n + d) requests end per step, and a share x·n of the steps hold a
  // chunk. Spreading the prompts evenly instead would hide their compute-bound chunks under the
  // memory-bound decode steps.
  const double chunk_room = std::max(1.0, b.budget - (b.batch - 1) * b.positions);
  const double chunks = std::max(1.0, std::ceil(b.computed / chunk_room));
  const double x = b.batch / (chunks + b.decode_steps);
  const bool budget_binds =
      b.batch / b.decode_steps > b.budget / (b.computed + b.decode_steps * b.positions);
  if (steps == BurstSteps::spread || x * chunks >= 1 || budget_binds)
    return spread_tokens_per_s(r, b);  // every step holds prefill: spreading is the steady state
  const double context = b.prompt + b.output / 2;  // a decoding sequence's mean context
  StepLoad mixed;
  mixed.decode_seqs = b.batch - 1;
  mixed.decode_context = (b.batch - 1) * context;
  mixed.prefill_tokens = b.computed / chunks;
  mixed.prefill_pairs = (b.computed * b.cached + b.computed * (b.computed + 1) / 2) / chunks;
  mixed.prefill_context = b.cached + b.computed * (chunks - 1) / (2 * chunks);
  mixed.prefill_last = 1 / chunks;
  StepLoad decode;
  decode.decode_seqs = b.batch;
  decode.decode_context = b.batch * context;
  const double step_s =
      x * chunks * step_time(r, mixed).total_s + (1 - x * chunks) * step_time(r, decode).total_s;
  return step_s > 0 ? x * b.output / step_s : 0;
}

}  // namespace gpuplan
