#pragma once
// What the training time model's units share (roofline.cpp, collectives.cpp, step_time.cpp):
// the rates a GPU reaches for a setup, and the collectives over a cluster's links. Private to
// core/src/training.

#include <string>
#include <utility>
#include <vector>

#include "gpuplan/timing.h"

namespace gpuplan::training {

inline Error invalid(const std::string& m) {
  return make_error(Errc::invalid_argument, m);
}
inline Error invalid(Msg id, std::vector<std::string> args) {
  return make_error(Errc::invalid_argument, id, std::move(args));
}

// What one GPU reaches for a setup's precision.
struct Rates {
  double peak = 0;          // dense peak for the precision (for MFU)
  double compute = 0;       // achievable FLOP/s for matmuls/convolutions at their best shape
  double memory = 0;        // achievable bytes/s
  double eager_memory = 0;  // what eager PyTorch's unfused non-matmul kernels reach
  double compute16 = 0;     // fp8 runs: the 16-bit matmul rate of the work left in 16 bits
  double peak16 = 0;
  double peak8 = 0;  // TE recipes: the FP8 peak, FP8 attention's rate (nvfp4's matmuls run faster)
  bool compiled = false;          // torch.compile fuses them (memory-bound at `memory`)
  AttentionEfficiency attention;  // flash attention's fraction of `peak`
  // FP8 attention's fractions of `peak8` (Setup::fp8_attention); forward 0: none published for
  // the GPU's architecture, so it runs at `attention` on the 16-bit peak.
  AttentionEfficiency attention8;
  bool tf32_convs = false;
  bool tensor_cores = false;  // matmuls and convolutions run on tensor cores
  int sms = 0;                // for wave quantisation; 0: unknown (not applied)
  // Matmuls take every SM for their whole run (a persistent schedule, one block per SM): a
  // communication kernel beside one waits for its SMs, and one started beside a communication
  // kernel finishes only after it (expert_comm).
  bool persistent_gemms = false;
  // Megatron's 1F1B all-to-all overlap hides none of the all-to-all (expert_comm): on Blackwell
  // it 'aggravates the CPU overhead, so the overall benefit is negative on the GB200' (Megatron-LM
  // docs/discussions/deepseek-v3-gb200-optimization, eb0783b6, sec. 3.2), and NVIDIA's B200/B300
  // recipes turn it off where its H100 recipes turn it on (Megatron-Bridge perf_recipes/qwen).
  bool host_paced_a2a_overlap = false;
  // The shares of `compute` and `compute16` (best-shape ceilings) that a model's large dense
  // GEMMs reach with production kernels (large_gemm_share in roofline.cpp); 1 for a probe's
  // measurement, a rate from spec x efficiency, or where no measurement says less.
  double large_gemm_share = 1;
  double large_gemm_share16 = 1;
};

// A fused attention kernel's share of peak on a GPU (roofline.cpp).
AttentionEfficiency attention_efficiency(Attention kernel, const Gpu& gpu, const Efficiencies& eff);

// The rates of `gpu` for `setup` (roofline.cpp): a probe's measurement, the measured matmul
// ceiling, or the spec peak x efficiency.
Result<Rates> rates_for(const Model& model, const Setup& setup, const Gpu& gpu,
                        const Efficiencies& eff);

// Bus bandwidths a collective reaches inside an NVLink domain, from one host to the network, and
// from one domain to the network (all its hosts' NICs; equal to `inter` when the host is the
// domain).
struct Links {
  double intra = 0;
  double inter = 0;
  double inter_domain = 0;
};

Links links_for(const Cluster& cluster, const Efficiencies& eff);

// Ring all-reduce of `bytes` over `n` ranks at bus bandwidth `busbw`; all-gather (or
// reduce-scatter) moves half of it.
double allreduce_s(double bytes, double n, double busbw);
double allgather_s(double bytes, double n, double busbw);
// NCCL's ring latency of one all-gather or reduce-scatter over `ranks` GPUs in `domains` NVLink
// domains.
double ring_latency_s(double ranks, double domains, const Cluster& cluster,
                      const Efficiencies& eff);
// Whether each tensor-parallel group lies inside one NVLink domain, and its bus bandwidth.
bool tp_in_domain(const Setup& setup, const Cluster& cluster);
double tp_busbw(const Setup& setup, const Cluster& cluster, const Links& l);
// The NVLink domains a data-parallel group spans, and its bus bandwidth.
double dp_group_domains(const Setup& setup, const Cluster& cluster);
double dp_busbw(const Setup& setup, const Cluster& cluster, const Links& l);

// What the pipeline schedule adds to a stage's compute (schedule.cpp): the bubble, and the
// point-to-point sends between stages, exposed and in all.
struct PipelineTime {
  double bubble_s = 0;
  double p2p_s = 0;
  double p2p_total_s = 0;
};
// `compute_s`: the stage's forward, backward and recompute over all micro-batches.
PipelineTime pipeline_time(const Setup& setup, const Estimate& e, const WorkProfile& work,
                           const Cluster& cluster, const Links& l, const Efficiencies& eff,
                           const PassTime& pass, double compute_s);

// What the slowest pipeline rank adds over an even split of the step's work (schedule.cpp): its
// layers (pipeline_stage_layers) at `layer_s` each per micro-batch, the embedding's and the
// head's time (PassTime::embedding_s, head_s) on the first and last rank, over the micro-batches.
double pipeline_imbalance_s(const Setup& setup, const WorkProfile& work, const PassTime& pass,
                            double layer_s, double micro_steps);

// Context parallelism's communication over a step (schedule.cpp), and what attention leaves
// exposed of it. `recomputed`: forward passes recomputed per micro-batch (full checkpointing: 1).
struct ContextParallelTime {
  double comm_s = 0;
  double exposed_s = 0;
};
ContextParallelTime context_parallel_time(const Setup& setup, const Estimate& e,
                                          const WorkProfile& work, const Cluster& cluster,
                                          const Links& l, const Efficiencies& eff,
                                          const PassTime& pass, double recomputed);

// Tensor-parallel communication over a step (schedule.cpp): all of it, and what its GEMMs do not
// hide (all of it unless setup.tp_comm_overlap). `sms`: the GPU's SM count (0: unknown).
struct TensorParallelTime {
  double total_s = 0;
  double exposed_s = 0;
};
TensorParallelTime tensor_parallel_time(const Setup& setup, const Estimate& e,
                                        const WorkProfile& work, const Cluster& cluster,
                                        const Links& l, int sms, const PassTime& pass,
                                        double recomputed);
// Mixture of experts under expert parallelism (expert_parallel.cpp).
// The MoE blocks' kernels of one forward pass, per sample on the busiest expert-parallel rank:
// router, permutations, the experts' grouped GEMMs and activation, shared experts; and the
// all-to-all traffic in w.moe. `run` is the spec as run (run_spec).
void add_moe_ops(WorkProfile& w, const TransformerSpec& run, const Setup& setup, const Estimate& e,
                 double activation_bytes, double weight_bytes);
// Matrix parameters one GPU's GEMMs read, all layers (tensor- and expert-parallel shares).
double gemm_params_per_gpu(const Setup& setup, const Estimate& e);
// Trainable parameters of one GPU of one pipeline stage, apart by the group that reduces their
// gradients: the dense ones over dp, the routed experts over the expert-data-parallel group.
struct GradientShards {
  double dense = 0;
  double experts = 0;
  int expert_dp = 1;      // the expert-data-parallel group's ranks
  int expert_stride = 1;  // ep x etp: how far apart its ranks sit
};
GradientShards gradient_shards(const Setup& setup, const Estimate& e);
// The routed experts' gradient all-reduce over the expert-data-parallel group.
double expert_grad_allreduce_s(const GradientShards& g, double bytes_per_param, const Setup& setup,
                               const Cluster& cluster, const Links& l);
// One layer of Megatron's EP all-to-all overlap (expert_parallel.cpp): a dispatch or combine of
// a2a_s, and the compute nodes beside them, one micro-batch's forward and another's backward.
struct ComputeNode {
  double work_s = 0;
  double gemm_s = 0;  // of work_s, the matmuls'
};
struct MergedLayer {
  double a2a_s = 0;  // one dispatch or combine, with its expert-tensor-parallel gather
  ComputeNode attn_fwd, mlp_fwd, attn_bwd, mlp_bwd;
  double shared_rate = 1;  // compute's speed while a communication kernel runs
  bool exclusive_gemms = false;
};

// Seconds `layers` such layers take, the two streams in Megatron's program order.
double merged_layers_s(const MergedLayer& x, int layers);

// The token all-to-alls and expert-tensor-parallel gathers of a step (st.ep_comm_s) and what of
// them compute does not hide (st.ep_comm_exposed_s). `pass`: one micro-batch's kernels; `r`: the
// GPU's rates (its SMs, whether its matmuls are persistent).
void expert_comm(const Setup& setup, const Estimate& e, const WorkProfile& work,
                 const Cluster& cluster, const Links& l, const Efficiencies& eff,
                 const PassTime& pass, const Rates& r, StepTime& st);

}  // namespace gpuplan::training
