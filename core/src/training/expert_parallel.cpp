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
  w.ops.push_back(op);
  return w.ops.back();
}

// The router and the permutations around the all-to-all, over L blocks of t tokens.
void add_routing_ops(WorkProfile& w, const MoeShape& m, double h, double t, double received,
                     double local_experts, MoeDispatcher d, double act, double weight) {
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
  const double copies = d == MoeDispatcher::deepep ? 4 * received
                        : local_experts > 1        ? 2 * t + 2 * t * k + 4 * received
                                                   : 2 * t + 2 * t * k;
  push(w, "moe.permute", 0, L * act * h * copies, 0, L * (local_experts > 1 ? 4 : 2),
       WorkKind::memory);
}

// The local experts' grouped GEMMs and activation, and the shared experts (a dense MLP split over
// tp, over the block's tokens).
void add_expert_ops(WorkProfile& w, const MoeShape& m, bool gated, double h, double T, double tp,
                    double etp, double received, double local_experts, double act, double weight) {
  const double L = m.moe_layers, f = m.expert_ffn / etp, mats = gated ? 2.0 : 1.0;
  const double rows = received / local_experts;  // per expert, per sample
  OpClass& fc1 = push(w, "moe.experts.fc1", L * 2 * received * h * f * mats,
                      L * act * received * (h + f * mats),
                      L * weight * local_experts * h * f * mats, L, WorkKind::matmul);
  fc1.gemm_rows_per_sample = rows;
  fc1.gemm_cols = f * mats;
  fc1.gemm_groups = local_experts;
  // Eager PyTorch's activation kernels, as the dense MLP's (work_profile.cpp).
  push(w, "moe.experts.activation", 0, L * act * received * f * (mats + 1), 0, L, WorkKind::memory)
      .eager = true;
  OpClass& fc2 = push(w, "moe.experts.fc2", L * 2 * received * f * h, L * act * received * (f + h),
                      L * weight * local_experts * f * h, L, WorkKind::matmul);
  fc2.gemm_rows_per_sample = rows;
  fc2.gemm_cols = h;
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
  if (d == MoeDispatcher::deepep && nodes > 1) {
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
  const double tp = setup.tp, etp = x.etp;
  const double t = T / tp;  // this rank's sequence-parallel share of the tokens
  // (token, expert) pairs this rank's experts compute: its share of every rank's, gathered over
  // the etp ranks, rank_load times an even share on the busiest rank.
  const double received = t * m.top_k * etp * x.rank_load;
  const MoeDispatcher d = x.ep > 1 ? setup.moe_dispatcher : MoeDispatcher::alltoall;
  add_routing_ops(w, m, h, t, received, x.local_experts, d, act, weight);
  add_expert_ops(w, m, s.gated_mlp, h, T, tp, etp, received, x.local_experts, act, weight);
  if (x.ep <= 1) return;  // one rank holds every expert: no all-to-all
  ExpertTraffic& traffic = w.moe;
  traffic.moe_layers = m.moe_layers;
  traffic.dispatch_bytes_per_sample =
      dispatch_bytes_per_sample(s, e.seq_len, setup.tp, act) / setup.cp;
  traffic.etp_gather_bytes_per_sample = x.etp > 1 ? t * m.top_k * etp * h * act : 0.0;
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

void expert_comm(const Setup& setup, const Estimate& e, const WorkProfile& work,
                 const Cluster& cluster, const Links& l, const Efficiencies& eff, StepTime& st) {
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
  const double recomputed =
      setup.checkpointing == Checkpointing::full ? 1.0
      : setup.checkpointing == Checkpointing::every_k_layers
          ? std::floor(std::max(layers, 1.0) / setup.checkpoint_every) / std::max(layers, 1.0)
          : 0.0;
  const double comm = forward * (2 + recomputed);
  st.ep_comm_s = micro_steps * comm;
  st.ep_comm_exposed_s = st.ep_comm_s;
  if (!t.overlap || micro_steps < 2) return;
  // 1F1B A2A overlap merges one micro-batch's forward with the previous one's backward, each
  // one's all-to-alls running under the other's compute; the first forward and the last backward
  // have no partner (Megatron-Core, overlap_moe_expert_parallel_comm).
  const double compute = (st.forward_s + st.backward_s + st.recompute_s) / micro_steps;
  st.ep_comm_exposed_s = comm + (micro_steps - 1) * std::max(0.0, comm - compute);
}

}  // namespace gpuplan::training
