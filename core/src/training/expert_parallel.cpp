// Mixture-of-experts blocks for the time model (expert_parallel.h has the layout): their kernels
// on the busiest expert-parallel rank, the token all-to-all with its expert-tensor-parallel
// gathers, and what of it compute hides.
//
// Per MoE block and micro-batch sample, with t = tokens / tp the rank's sequence-parallel share,
// k routed experts per token, and the rank receiving l = rank_load times an even share:
//   router          a replicated hidden x experts linear over t tokens, fp32 logits; softmax or
//                   sigmoid and top-k read them (Megatron's TopKRouter)
//   permutations    the t tokens copied once per routed expert before the dispatch and summed
//                   back after the combine; with several local experts the received tokens are
//                   sorted by expert and back (token_dispatcher.py, "permutation 1" and "2")
//   experts         two grouped GEMMs (fc1 with gate and up fused, fc2) over t x k x etp x l
//                   received tokens, the FFN width split over etp, in one kernel for all local
//                   experts (Megatron --moe-grouped-gemm, TE GroupedLinear)
//   all-to-all      dispatch and combine, each t x k x hidden x bytes from every rank, (ep-1)/ep
//                   of it to other ranks: inside the NVLink domain over NVLink, the rest over
//                   the network at once; backward repeats both, and so does recomputation
#include <algorithm>
#include <cmath>
#include <vector>

#include "gpuplan/expert_parallel.h"
#include "training/internal.h"

namespace gpuplan::training {
namespace {

OpClass& push(WorkProfile& w, const char* name, double flops, double bytes, double weight_bytes,
              double kernels, WorkKind kind) {
  OpClass op;
  op.name = name;
  op.flops_per_sample = flops;
  op.bytes_per_sample = bytes;
  op.weight_bytes = weight_bytes;
  op.kernels = kernels;
  op.kind = kind;
  // All of an MoE layer's kernels run again when Megatron recomputes the layer (moe); the
  // experts' activation and the shared experts also under their own modules (see add_expert_ops).
  op.rerun_by = kRecomputeMoe;
  w.ops.push_back(op);
  return w.ops.back();
}

// The router and the permutations around the all-to-all, over L blocks of t tokens; the router
// reads h channels, the permutations move the experts' io channels (LatentMoE: the latent).
void add_routing_ops(WorkProfile& w, const MoeShape& m, double h, double io, double t,
                     double received, double local_experts, MoeDispatcher d, double act,
                     double weight) {
  const double L = m.moe_layers, E = m.experts, k = m.top_k;
  OpClass& gate = push(w, "moe.router", L * 2 * t * h * E, L * (act * t * h + 4 * t * E),
                       L * weight * h * E, L, WorkKind::matmul);
  gate.gemm_rows_per_sample = t;
  gate.gemm_cols = E;
  gate.fp8 = false;  // Transformer Engine leaves the router in 16 bits (it is no TE linear)
  // Softmax (or sigmoid), top-k and the routing map: small eager kernels over the fp32 scores.
  push(w, "moe.router.topk", 0, L * 3 * 4 * t * E, 0, L * 4, WorkKind::memory).eager = true;
  // Gathers and scatters, one read and one write per element at memory bandwidth: the t tokens
  // copied to t x k before the dispatch and summed back after the combine, and with several local
  // experts the received tokens sorted by expert and back. DeepEP takes the tokens as they are and
  // returns them token-major, so only the received ones are permuted by expert and back.
  const double copies = d != MoeDispatcher::alltoall ? 4 * received
                        : local_experts > 1          ? 2 * t + 2 * t * k + 4 * received
                                                     : 2 * t + 2 * t * k;
  push(w, "moe.permute", 0, L * act * io * copies, 0, L * (local_experts > 1 ? 4 : 2),
       WorkKind::memory);
}

// The local experts' grouped GEMMs (reading and writing io channels) and activation, LatentMoE's
// projections (replicated: every tp rank runs them on the block's tokens), and the shared experts
// (a dense MLP split over tp, over the block's tokens).
void add_expert_ops(WorkProfile& w, const MoeShape& m, bool gated, double h, double io, double T,
                    double tp, double etp, double received, double local_experts, double act,
                    double weight) {
  const double L = m.moe_layers, f = m.expert_ffn / etp, mats = gated ? 2.0 : 1.0;
  if (io != h) {
    const struct {
      const char* name;
      double out_width;
    } projections[] = {{"moe.latent.down", io}, {"moe.latent.up", h}};
    for (const auto& p : projections) {
      OpClass& op = push(w, p.name, L * 2 * T * h * io, L * act * T * (h + io), L * weight * h * io,
                         L, WorkKind::matmul);
      op.gemm_rows_per_sample = T;
      op.gemm_cols = p.out_width;
    }
  }
  const double rows = received / local_experts;  // per expert, per sample
  OpClass& fc1 = push(w, "moe.experts.fc1", L * 2 * received * io * f * mats,
                      L * act * received * (io + f * mats),
                      L * weight * local_experts * io * f * mats, L, WorkKind::matmul);
  fc1.gemm_rows_per_sample = rows;
  fc1.gemm_cols = f * mats;
  fc1.gemm_groups = local_experts;
  // Eager PyTorch's activation kernels, as the dense MLP's (work_profile.cpp).
  OpClass& activation = push(w, "moe.experts.activation", 0, L * act * received * f * (mats + 1), 0,
                             L, WorkKind::memory);
  activation.eager = true;
  activation.rerun_by |= kRecomputeMoeAct;
  OpClass& fc2 =
      push(w, "moe.experts.fc2", L * 2 * received * f * io, L * act * received * (f + io),
           L * weight * local_experts * f * io, L, WorkKind::matmul);
  fc2.gemm_rows_per_sample = rows;
  fc2.gemm_cols = io;
  fc2.gemm_groups = local_experts;
  if (m.shared_ffn <= 0) return;
  const double fs = m.shared_ffn / tp;
  OpClass& in = push(w, "moe.shared.in", L * 2 * T * h * fs * mats, L * act * T * (h + fs * mats),
                     L * weight * h * fs * mats, L * mats, WorkKind::matmul);
  in.gemm_rows_per_sample = T;
  in.gemm_cols = fs * mats;
  push(w, "moe.shared.activation", 0, L * act * T * fs * (mats + 1), 0, L, WorkKind::memory).eager =
      true;
  OpClass& out = push(w, "moe.shared.out", L * 2 * T * fs * h, L * act * T * (fs + h),
                      L * weight * fs * h, L, WorkKind::matmul);
  out.gemm_rows_per_sample = T;
  out.gemm_cols = h;
  for (size_t i = w.ops.size() - 3; i < w.ops.size(); ++i)
    w.ops[i].rerun_by |= kRecomputeSharedExperts;
}

// Ranks of one expert-parallel group inside one NVLink domain. Megatron orders the expert grid
// tp-ep-dp-pp (parallel_state.py: expert_decoder_rank_generator), so a group's ranks sit etp
// apart on consecutive GPUs.
double ranks_per_domain(int ep, int etp, const Cluster& cluster) {
  const int domain = cluster.domain_gpus();  // a host, or several over NVLink (NVL72)
  return std::min<double>(ep, std::max(1, domain / std::max(etp, 1)));
}

// One all-to-all in which every rank of `ep` sends `bytes` (and receives as many), `per_domain` of
// them in its NVLink domain: its peers there over NVLink, the others over the network, at once;
// NCCL's busbw convention for all-to-all counts (n-1)/n of the bytes (nccl-tests
// doc/PERFORMANCE.md). DeepEP sends a token over the network once per remote NVLink domain (a node
// in its README) holding any of its k experts: of g domains, a given remote one holds none of k
// uniformly routed experts with probability (1 - 1/g)^k. It lands on the GPU of the same local
// index there, which forwards the copies meant for its (per_domain - 1) of per_domain peers over
// NVLink.
double alltoall_s(double bytes, double ep, double per_domain, double top_k, MoeDispatcher d,
                  const Links& l, double network_per_gpu, double latency_s) {
  double nvlink = bytes * (per_domain - 1) / ep;
  double network = bytes * (ep - per_domain) / ep;
  const double nodes = ep / per_domain;
  if (d != MoeDispatcher::alltoall && nodes > 1) {
    nvlink += network * (per_domain - 1) / per_domain;
    network = bytes / top_k * (nodes - 1) * (1 - std::pow(1 - 1 / nodes, top_k));
  }
  const double t_nvlink = nvlink > 0 ? nvlink / l.intra : 0.0;
  const double t_network = network > 0 ? network / network_per_gpu : 0.0;
  return std::max(t_nvlink, t_network) + latency_s;
}

}  // namespace

void add_moe_ops(WorkProfile& w, const TransformerSpec& s, const Setup& setup, const Estimate& e,
                 double act, double weight) {
  const MoeShape m = moe_shape(s);
  if (m.moe_layers <= 0 || !e.moe) return;
  const MoeEstimate& x = *e.moe;
  // This GPU's tokens of a sample: context parallelism splits the sequence over cp GPUs.
  const double h = static_cast<double>(s.hidden), T = e.flops.tokens_per_sample / setup.cp;
  const double io = static_cast<double>(s.expert_io_width());
  const double tp = setup.tp, etp = x.etp;
  const double t = T / tp;  // this rank's sequence-parallel share of the tokens
  // (token, expert) pairs this rank's experts compute: its share of every rank's, gathered over
  // the etp ranks, rank_load times an even share on the busiest rank.
  const double received = t * m.top_k * etp * x.rank_load;
  const MoeDispatcher d = x.ep > 1 ? setup.moe_dispatcher : MoeDispatcher::alltoall;
  add_routing_ops(w, m, h, io, t, received, x.local_experts, d, act, weight);
  add_expert_ops(w, m, s.gated_mlp, h, io, T, tp, etp, received, x.local_experts, act, weight);
  if (x.ep <= 1) return;  // one rank holds every expert: no all-to-all
  ExpertTraffic& traffic = w.moe;
  traffic.moe_layers = m.moe_layers;
  traffic.dispatch_bytes_per_sample =
      dispatch_bytes_per_sample(s, e.seq_len, setup.tp, act) / setup.cp;
  traffic.etp_gather_bytes_per_sample = x.etp > 1 ? t * m.top_k * etp * io * act : 0.0;
  traffic.rank_load = x.rank_load;
  traffic.top_k = m.top_k;
  traffic.ep = x.ep;
  traffic.etp = x.etp;
  traffic.dispatcher = setup.moe_dispatcher;
  traffic.overlap = setup.moe_a2a_overlap;
}

double gemm_params_per_gpu(const Setup& setup, const Estimate& e) {
  const double experts = static_cast<double>(e.params.experts);
  const double split = e.moe ? static_cast<double>(e.moe->ep) * e.moe->etp : 1.0;
  return (static_cast<double>(e.params.total - e.params.embedding) - experts) / setup.tp +
         experts / split;
}

GradientShards gradient_shards(const Setup& setup, const Estimate& e) {
  GradientShards g;
  const double experts = setup.lora_rank > 0 ? 0.0 : static_cast<double>(e.params.experts);
  const double split = e.moe ? static_cast<double>(e.moe->ep) * e.moe->etp : 1.0;
  g.dense = (static_cast<double>(e.params.trainable) - experts) / (setup.tp * setup.pp);
  g.experts = experts / (split * setup.pp);
  g.expert_dp = e.moe ? e.moe->edp : 1;
  g.expert_stride = e.moe ? e.moe->ep * e.moe->etp : 1;
  return g;
}

// The expert-data-parallel ring: its ranks sit ep x etp apart, so it leaves the NVLink domain once
// the dp x cp x tp ranks do, and then shares the domain's network (all its hosts' NICs) with the
// other min(GPUs per domain, ep x etp) rings of the domain.
double expert_grad_allreduce_s(const GradientShards& g, double bytes_per_param, const Setup& setup,
                               const Cluster& cluster, const Links& l) {
  if (g.experts <= 0 || g.expert_dp <= 1) return 0;
  const bool spans = int64_t{setup.dp} * setup.cp * setup.tp > cluster.domain_gpus();
  const double rings = std::min(cluster.domain_gpus(), g.expert_stride);
  const double bw = spans ? std::min(l.intra, l.inter_domain / rings) : l.intra;
  return allreduce_s(g.experts * bytes_per_param, g.expert_dp, bw);
}

namespace {

// Megatron-Core's EP all-to-all overlap (--overlap-moe-expert-parallel-comm) runs a layer's
// forward of one micro-batch beside a layer's backward of another, on a compute and a
// communication stream (TransformerLayerSchedulePlan.run, megatron/core/models/common/
// model_chunk_schedule_plan.py at 01cf4fb), each node after the node whose output it takes:
//   comm: combine_bwd, dispatch_fwd, dispatch_bwd, combine_fwd
//   comp: attn_fwd, mlp_bwd (dgrad, then wgrad), mlp_fwd, attn_bwd
// "attn" is everything of the layer but the experts (attention, norms, router, permutations).
// A communication kernel holds SMs while it runs; the compute beside it runs on the rest. Where
// matmuls run a persistent schedule (one block per SM; Rates::persistent_gemms), a matmul and a
// communication kernel do not share the GPU: a communication kernel launched beside a matmul waits
// for its SMs (NVIDIA/nccl#1431), and a matmul launched beside a communication kernel runs the
// blocks that find no SM as a second wave after it (pytorch/pytorch#147966), so it ends no sooner
// than if it had waited. Each compute node is its other kernels, then its matmuls.
enum class Stream { comm, comp };
struct Node {
  Stream stream;
  double work_s;
  bool gemm;  // a compute node's matmuls
  int dep;    // the node (this layer's, or the previous layer's when negative) it waits for
};
constexpr int kNoDep = 1 << 20;

// One layer's nodes in program order; deps index this list (-1: the previous layer's attn_bwd,
// -2: its combine_fwd).
std::vector<Node> layer_nodes(const MergedLayer& x) {
  const ComputeNode dgrad{x.mlp_bwd.work_s / 2, x.mlp_bwd.gemm_s / 2};  // input, weight alike
  std::vector<Node> nodes;
  std::vector<int> last;  // each logical node's last node
  auto comm = [&](int dep) {
    nodes.push_back({Stream::comm, x.a2a_s, false, dep});
    last.push_back(static_cast<int>(nodes.size()) - 1);
  };
  auto comp = [&](const ComputeNode& c, int dep) {
    const double other = std::max(0.0, c.work_s - c.gemm_s);
    const double gemm = std::min(c.gemm_s, c.work_s);
    const bool split = x.exclusive_gemms && gemm > 0;
    nodes.push_back({Stream::comp, split ? other : c.work_s, false, dep});
    if (split) nodes.push_back({Stream::comp, gemm, true, kNoDep});
    last.push_back(static_cast<int>(nodes.size()) - 1);
  };
  auto at = [&](int logical) { return logical < 0 ? logical : last[logical]; };
  comm(-1);              // 0 combine_bwd
  comp(x.attn_fwd, -2);  // 1 attn_fwd
  comp(dgrad, at(0));    // 2 mlp_bwd dgrad
  comm(at(1));           // 3 dispatch_fwd
  comp({x.mlp_bwd.work_s - dgrad.work_s, x.mlp_bwd.gemm_s - dgrad.gemm_s}, kNoDep);  // 4 wgrad
  comm(at(2));              // 5 dispatch_bwd
  comp(x.mlp_fwd, at(3));   // 6 mlp_fwd
  comm(at(6));              // 7 combine_fwd
  comp(x.attn_bwd, at(5));  // 8 attn_bwd
  // The previous layer's nodes the first two wait for, as offsets back from this layer's start.
  for (auto& n : nodes) {
    if (n.dep == -1) n.dep = -(static_cast<int>(nodes.size()) - last[8]);
    if (n.dep == -2) n.dep = -(static_cast<int>(nodes.size()) - last[7]);
  }
  return nodes;
}

// The SMs a dispatcher's kernels hold while they run: DeepEP's Buffer.num_sms default, which
// Megatron kept (moe_deepep_num_sms, "historical default 20", transformer_config.py at
// NVIDIA/Megatron-LM@d98e8a64); HybridEP's as Megatron's MoE model-zoo benchmarks run it
// (examples/moe-modelzoo/sbatch_benchmarking.sh at f13818d6: --moe-hybridep-num-sms 32). NCCL's
// all-to-all channels vary with the topology and are not charged.
constexpr double kDeepEpSms = 20;
constexpr double kHybridEpSms = 32;

double shared_compute_rate(MoeDispatcher d, int sms) {
  const double held = d == MoeDispatcher::deepep     ? kDeepEpSms
                      : d == MoeDispatcher::hybridep ? kHybridEpSms
                                                     : 0.0;
  if (held <= 0 || sms <= held) return 1.0;
  return (sms - held) / sms;
}

// Micro-batches whose forward has no backward beside it (and as many backwards in the
// cool-down): the first alone without a pipeline; else the warm-up of the first stage, in model
// chunks (Megatron's interleaved schedule: 2 (pp - 1) + (vp - 1) pp; 1F1B: pp - 1).
double unpaired_micro_batches(const Setup& setup, double micro_steps) {
  const double p = setup.pp, v = std::max(setup.vp, 1);
  const double warmup = p <= 1 ? 1.0 : v > 1 ? 2 * (p - 1) + (v - 1) * p : p - 1;
  return std::min(micro_steps * v, warmup) / v;
}

}  // namespace

// Seconds `layers` merged layers take: both streams in program order, a node starting once its
// stream is free and its input is done (and, with exclusive matmuls, once the other stream runs
// nothing it cannot share the GPU with).
double merged_layers_s(const MergedLayer& x, int layers) {
  const std::vector<Node> nodes = layer_nodes(x);
  const int per_layer = static_cast<int>(nodes.size());
  const int total = layers * per_layer;
  std::vector<double> end(static_cast<size_t>(total), -1);  // -1: not done
  auto node = [&](int i) -> const Node& { return nodes[static_cast<size_t>(i % per_layer)]; };
  auto dep_of = [&](int i) {
    const int d = node(i).dep, base = i / per_layer * per_layer;
    return d == kNoDep ? -1 : base + d;  // negative offsets reach into the previous layer
  };
  auto next_of = [&](int from, Stream s) {
    while (from < total && node(from).stream != s) ++from;
    return from;
  };
  int next[2] = {next_of(0, Stream::comm), next_of(0, Stream::comp)};
  int running[2] = {-1, -1};
  double left[2] = {0, 0}, t = 0;
  auto blocked = [&](int k) {  // stream k's next node may not start beside the other's
    const int other = running[1 - k];
    if (!x.exclusive_gemms || other < 0) return false;
    return k == 0 ? node(other).gemm : node(next[k]).gemm;
  };
  while (next[0] < total || next[1] < total || running[0] >= 0 || running[1] >= 0) {
    // Both free and both ready: the earlier in program order is issued first.
    const int first = next[1] < next[0] ? 1 : 0;
    for (int k : {first, 1 - first}) {
      if (running[k] >= 0 || next[k] >= total) continue;
      const int d = dep_of(next[k]);
      if (d >= 0 && end[static_cast<size_t>(d)] < 0) continue;
      if (blocked(k)) continue;
      running[k] = next[k];
      left[k] = node(next[k]).work_s;
      next[k] = next_of(next[k] + 1, k == 0 ? Stream::comm : Stream::comp);
    }
    if (running[0] < 0 && running[1] < 0) break;  // cannot happen: the program order is causal
    const double comp_rate = running[0] >= 0 ? x.shared_rate : 1.0;
    const double dt = std::min(running[0] >= 0 ? left[0] : HUGE_VAL,
                               running[1] >= 0 ? left[1] / comp_rate : HUGE_VAL);
    t += dt;
    left[0] -= dt;
    left[1] -= dt * comp_rate;
    for (int k = 0; k < 2; ++k) {
      if (running[k] >= 0 && left[k] <= 1e-15 * t) {
        end[static_cast<size_t>(running[k])] = t;
        running[k] = -1;
      }
    }
  }
  return t;
}

void expert_comm(const Setup& setup, const Estimate& e, const WorkProfile& work,
                 const Cluster& cluster, const Links& l, const Efficiencies& eff,
                 const PassTime& pass, const Rates& r, StepTime& st) {
  const ExpertTraffic& t = work.moe;
  if (t.ep <= 1 || t.moe_layers <= 0) return;
  const double mb = static_cast<double>(e.micro_batch);
  const double micro_steps = static_cast<double>(e.grad_accum_steps);
  const double per_domain = ranks_per_domain(t.ep, t.etp, cluster);
  const bool spans = per_domain < t.ep;
  const double latency =
      eff.nccl_ring.base_s + (spans ? eff.nccl_ring.network_hop_s : eff.nccl_ring.nvlink_hop_s);
  const double network_per_gpu = l.inter / std::max(cluster.gpus_per_node, 1);
  // The busiest rank receives (and in the combine sends) rank_load times an even share.
  const double a2a = alltoall_s(t.dispatch_bytes_per_sample * mb * t.rank_load, t.ep, per_domain,
                                t.top_k, t.dispatcher, l, network_per_gpu, latency);
  const double etp_bw = t.etp <= cluster.domain_gpus() ? l.intra : l.inter / t.etp;
  const double gather =
      allgather_s(t.etp_gather_bytes_per_sample * mb * t.rank_load, t.etp, etp_bw);
  // Per micro-batch on one pipeline stage: dispatch and combine (with the gather and the
  // reduce-scatter) in forward, their gradients in backward, again when the block is recomputed.
  const double layers = t.moe_layers / setup.pp;
  const double forward = layers * 2 * (a2a + gather);
  const bool moe_recomputed =
      setup.checkpointing == Checkpointing::selective && (setup.recompute_modules & kRecomputeMoe);
  const double recomputed =
      setup.checkpointing == Checkpointing::full || moe_recomputed ? 1.0
      : setup.checkpointing == Checkpointing::every_k_layers
          ? std::floor(std::max(layers, 1.0) / setup.checkpoint_every) / std::max(layers, 1.0)
      : setup.checkpointing == Checkpointing::block ? block_recompute_share(setup, t.moe_layers)
                                                    : 0.0;
  st.ep_comm_s = micro_steps * forward * (2 + recomputed);
  st.ep_comm_exposed_s = st.ep_comm_s;
  if (!t.overlap || micro_steps < 2 || r.host_paced_a2a_overlap) return;
  // The stage's forward and backward of one micro-batch, spread over its MoE layers; what a
  // merged pair takes beyond them is exposed. Unpaired passes and the recomputed forward (which
  // Megatron runs alone before the stage's backward) expose all of theirs.
  const double fwd = pass.forward_s / setup.pp, bwd = pass.backward_s / setup.pp;
  const PassTime::Split& f = pass.forward_parts;
  const PassTime::Split& b = pass.backward_parts;
  const double mlp_f = f.experts / t.moe_layers, mlp_b = b.experts / t.moe_layers;
  MergedLayer x;
  x.a2a_s = a2a + gather;
  x.attn_fwd = {std::max(0.0, fwd / layers - mlp_f), (f.gemm - f.experts_gemm) / t.moe_layers};
  x.mlp_fwd = {mlp_f, f.experts_gemm / t.moe_layers};
  x.attn_bwd = {std::max(0.0, bwd / layers - mlp_b), (b.gemm - b.experts_gemm) / t.moe_layers};
  x.mlp_bwd = {mlp_b, b.experts_gemm / t.moe_layers};
  x.shared_rate = shared_compute_rate(t.dispatcher, r.sms);
  x.exclusive_gemms = r.persistent_gemms;
  const int whole = std::max(1, static_cast<int>(std::lround(layers)));
  const double merged = merged_layers_s(x, whole) * layers / whole;
  const double unpaired = unpaired_micro_batches(setup, micro_steps);
  st.ep_comm_exposed_s = unpaired * 2 * forward + micro_steps * forward * recomputed +
                         (micro_steps - unpaired) * std::max(0.0, merged - (fwd + bwd));
}

}  // namespace gpuplan::training
