// How a step is scheduled across GPUs that split one replica: the pipeline's bubble and
// point-to-point sends (1F1B and its interleaved form), context parallelism's exchange of keys and
// values, and tensor-parallel collectives hidden behind their GEMMs.
#include <algorithm>
#include <cmath>

#include "gpuplan/timing.h"
#include "training/internal.h"

namespace gpuplan::training {

namespace {

// The bandwidth one GPU has to a peer: NVLink (or PCIe) inside an NVLink domain; across domains
// its share of its host's network, which every GPU of the host uses at once (each sends to its
// own peer).
double peer_bytes_per_s(bool crosses_domains, const Cluster& cluster, const Links& l) {
  if (!crosses_domains) return l.intra;
  return l.inter / std::max(cluster.gpus_per_node, 1);
}

// Latency of one send, as NCCL's tuner prices one ring step: its base plus one hop.
double send_latency_s(bool crosses_domains, const Cluster& cluster, const Efficiencies& eff) {
  const Efficiencies::RingLatency& c = eff.nccl_ring;
  const double hop = crosses_domains          ? c.network_hop_s
                     : cluster.link == "pcie" ? c.pcie_hop_s
                                              : c.nvlink_hop_s;
  return c.base_s + hop;
}

// Megatron lays ranks out tensor-parallel innermost, then context-, data- and pipeline-parallel
// (parallel_state.py, order "tp-cp-ep-dp-pp"), and ranks fill NVLink domains in order: a group
// whose ranks are `stride` apart, `size` of them, stays on NVLink only when it spans no more
// than one domain's GPUs.
bool group_crosses_domains(double stride, double size, const Cluster& cluster) {
  return cluster.domains() > 1 && stride * size > cluster.domain_gpus();
}

}  // namespace

double pipeline_imbalance_s(const Setup& setup, const WorkProfile& work, const PassTime& pass,
                            double layer_s, double micro_steps) {
  const int layers = static_cast<int>(std::lround(work.layers));
  if (setup.pp <= 1 || layers <= 0) return 0;
  const std::vector<double> held = pipeline_stage_layers(layers, setup.pp, setup.vp);
  double slowest = 0;
  for (size_t r = 0; r < held.size(); ++r) {
    const double load = held[r] * layer_s + (r == 0 ? pass.embedding_s : 0) +
                        (r + 1 == held.size() ? pass.head_s : 0);
    slowest = std::max(slowest, load);
  }
  const double even = (layers * layer_s + pass.embedding_s + pass.head_s) / setup.pp;
  return std::max(0.0, slowest - even) * micro_steps;
}

PipelineTime pipeline_time(const Setup& setup, const Estimate& e, const WorkProfile& work,
                           const Cluster& cluster, const Links& l, const Efficiencies& eff,
                           const PassTime& pass, double compute_s) {
  PipelineTime out;
  if (setup.pp <= 1) return out;
  const double p = setup.pp, v = setup.vp, m = static_cast<double>(e.grad_accum_steps);
  // The 1F1B bubble is (p - 1) / m of the ideal time; v virtual stages per rank shrink each
  // stage's pass to 1 / v of it, and the bubble with it (Narayanan et al. 2021, sec. 2.2.1 and
  // 2.2.2: (p - 1) / (v m)).
  out.bubble_s = (p - 1) / (v * m) * compute_s;
  // Each stage boundary sends the micro-batch's activations forward and their gradient back:
  // s x b x h elements, of this GPU's s / cp tokens, and s / tp of those with sequence
  // parallelism (Megatron's p2p tensor_shape in schedules.py).
  const double tp_shard = setup.sequence_parallel ? setup.tp : 1.0;
  const double bytes =
      work.boundary_bytes_per_sample * static_cast<double>(e.micro_batch) / tp_shard;
  // A pipeline spread over NVLink domains crosses between them at some stage boundary, and every
  // boundary is on the path each micro-batch takes.
  const double stride = static_cast<double>(setup.tp) * setup.cp * setup.dp;
  const bool remote = group_crosses_domains(stride, p, cluster);
  const double send_s =
      bytes / peer_bytes_per_s(remote, cluster, l) + send_latency_s(remote, cluster, eff);
  // Every chunk of every micro-batch is received once forward and once backward: v times the
  // plain schedule's traffic (sec. 2.2.2).
  out.p2p_total_s = 2 * v * m * send_s;
  if (setup.vp == 1) {
    // Plain 1F1B waits for each send (Megatron's send_forward_recv_backward is blocking): two
    // per micro-batch in the steady state, and one per hop as the pipeline fills and drains.
    out.p2p_s = 2 * (m + p - 1) * send_s;
  } else {
    // The interleaved schedule overlaps its sends with the next chunk's compute (Megatron's
    // overlap_p2p_comm, on by default): only the fill and drain hops wait, and sends slower than
    // a chunk's compute.
    const double fwd_chunk = pass.forward_s / (p * v), bwd_chunk = pass.backward_s / (p * v);
    out.p2p_s = 2 * (p - 1) * send_s +
                v * m * (std::max(0.0, send_s - fwd_chunk) + std::max(0.0, send_s - bwd_chunk));
  }
  return out;
}

ContextParallelTime context_parallel_time(const Setup& setup, const Estimate& e,
                                          const WorkProfile& work, const Cluster& cluster,
                                          const Links& l, const Efficiencies& eff,
                                          const PassTime& pass, double recomputed) {
  ContextParallelTime out;
  if (setup.cp <= 1) return out;
  const double cp = setup.cp, mb = static_cast<double>(e.micro_batch);
  const double layers = std::max(work.layers / setup.pp, 1.0);
  const double micro_steps = static_cast<double>(e.grad_accum_steps);
  // The context-parallel group sits right outside the tensor-parallel one (Megatron's order).
  const bool remote = group_crosses_domains(setup.tp, cp, cluster);
  const double bw = peer_bytes_per_s(remote, cluster, l);
  const double latency = send_latency_s(remote, cluster, eff);
  // Per layer and micro-batch: this GPU's attention time (its share of the whole model's).
  const double attn_fwd = pass.forward_parts.attention / setup.pp / layers;
  const double attn_bwd = pass.backward_parts.attention / setup.pp / layers;
  double fwd = 0, bwd = 0, fwd_exposed = 0, bwd_exposed = 0;
  if (setup.cp_comm == ContextComm::ring) {
    // Ring attention (Megatron-Core / Transformer Engine AttnFuncWithCPAndKVP2P): cp - 1 steps,
    // each sending this GPU's K and V chunk (s / cp tokens, its tensor-parallel heads) to the
    // next rank while attention computes on the chunk at hand; backward passes K and V around
    // again and their gradients with them: twice the bytes. A step waits only for what its
    // chunk's compute does not cover.
    const double step_s = work.kv_bytes_per_sample * mb / bw + latency;
    fwd = (cp - 1) * step_s;
    bwd = 2 * fwd;
    fwd_exposed = (cp - 1) * std::max(0.0, step_s - attn_fwd / cp);
    bwd_exposed = (cp - 1) * std::max(0.0, 2 * step_s - attn_bwd / cp);
  } else {
    // All-to-all (DeepSpeed Ulysses; TE "a2a"): Q, K and V go from sequence shards to head shards
    // before attention and the output back after; backward mirrors them. Each GPU keeps 1 / cp
    // of what it holds and sends the rest; nothing overlaps them (Jacobs et al. 2023, sec. 3).
    const double held = (work.qkv_bytes_per_sample + work.attention_out_bytes_per_sample) * mb;
    fwd = held * (cp - 1) / cp / bw + 4 * latency;
    bwd = fwd;
    fwd_exposed = fwd;
    bwd_exposed = bwd;
  }
  out.comm_s = micro_steps * layers * ((1 + recomputed) * fwd + bwd);
  out.exposed_s = micro_steps * layers * ((1 + recomputed) * fwd_exposed + bwd_exposed);
  return out;
}

namespace {

// Transformer Engine's userbuffer overlap (transformer_engine/pytorch/module/base.py,
// initialize_ub at d0067d0): "ring_exchange" for the all-gathers before QKV and FC1 (and their
// dgrad counterparts), tp chunks on one SM each; "pipeline" for the reduce-scatters after the
// attention and FC2 projections, 4 splits; "bulk" for QKV's and FC1's dgrad/wgrad; pipeline and
// bulk take 16 SMs from the GEMM (num_sm = 16, set_sm_margin).
constexpr double kPipelineSplits = 4;
constexpr double kCommSms = 16;

struct Overlap {
  double tp;  // ranks
  int sms;    // of the GPU; 0: unknown (no SM margin charged)
  // What a GEMM of `gemm_s` loses to the SMs the communication kernels hold.
  double margin(double gemm_s) const {
    return sms > kCommSms ? gemm_s * kCommSms / (sms - kCommSms) : 0.0;
  }
  // All-gather in tp - 1 ring steps, each behind the GEMM chunk of the data already here.
  double ring(double comm_s, double gemm_s) const {
    return std::max(0.0, comm_s - gemm_s * (tp - 1) / tp);
  }
  // Reduce-scatter of each of 4 GEMM chunks behind the next one: the last chunk's waits.
  double pipeline(double comm_s, double gemm_s) const {
    return comm_s / kPipelineSplits +
           std::max(0.0, (comm_s - gemm_s) * (kPipelineSplits - 1) / kPipelineSplits) +
           margin(gemm_s);
  }
  // Backward of QKV and FC1: the all-gather behind the dgrad GEMM, the reduce-scatter behind
  // the wgrad GEMM (each half of the backward).
  double bulk(double comm_s, double backward_s) const {
    return 2 * std::max(0.0, comm_s - backward_s / 2) + margin(backward_s);
  }
};

}  // namespace

TensorParallelTime tensor_parallel_time(const Setup& setup, const Estimate& e,
                                        const WorkProfile& work, const Cluster& cluster,
                                        const Links& l, int sms, const PassTime& pass,
                                        double recomputed) {
  TensorParallelTime out;
  if (setup.tp <= 1 || work.tp_allreduces <= 0) return out;
  const double tp = setup.tp;
  const double bw = tp_busbw(setup, cluster, l);
  // Megatron's block: two all-reduces of s x b x h forward and two backward, each an
  // all-gather plus a reduce-scatter under sequence parallelism (the same bytes).
  const double bytes =
      work.tp_allreduce_bytes_per_sample / work.tp_allreduces * static_cast<double>(e.micro_batch);
  const double a = allgather_s(bytes, tp, bw);  // one all-gather (or reduce-scatter)
  const double layers = work.layers / setup.pp;
  const double micro_steps = static_cast<double>(e.grad_accum_steps);
  const double fwd = 4 * a, bwd = 4 * a;
  out.total_s = micro_steps * layers * ((1 + recomputed) * fwd + bwd);
  if (!setup.tp_comm_overlap) {
    out.exposed_s = out.total_s;
    return out;
  }
  // Each GEMM class of one layer (PassTime covers all of the model's layers).
  const double L = std::max(work.layers, 1.0);
  const PassTime::Split& f = pass.forward_parts;
  const PassTime::Split& b = pass.backward_parts;
  const Overlap o{tp, sms};
  const double fwd_exposed = o.ring(a, f.qkv / L) + o.pipeline(a, f.out / L) +
                             o.ring(a, f.mlp_in / L) + o.pipeline(a, f.mlp_out / L);
  const double bwd_exposed = o.ring(a, b.out / L) + o.ring(a, b.mlp_out / L) +
                             o.bulk(a, b.qkv / L) + o.bulk(a, b.mlp_in / L);
  out.exposed_s = micro_steps * layers * ((1 + recomputed) * fwd_exposed + bwd_exposed);
  return out;
}

}  // namespace gpuplan::training

namespace gpuplan {

std::vector<double> pipeline_stage_layers(int layers, int pp, int vp) {
  const int ranks = std::max(pp, 1), stages = ranks * std::max(vp, 1);
  std::vector<double> held(static_cast<size_t>(ranks), 0.0);
  if (layers % stages == 0) {
    for (double& h : held) h = static_cast<double>(layers / ranks);
    return held;
  }
  // layers + 2 items, the first the embedding and the last the loss: each rank takes `base`, the
  // earlier ranks one more while spare ones are left.
  const int items = layers + 2, base = items / ranks, spare = items % ranks;
  for (int r = 0; r < ranks; ++r) {
    int n = base + (r < spare ? 1 : 0);
    if (r == 0) n -= 1;          // the embedding
    if (r == ranks - 1) n -= 1;  // the loss
    held[static_cast<size_t>(r)] = std::max(n, 0);
  }
  return held;
}

}  // namespace gpuplan
