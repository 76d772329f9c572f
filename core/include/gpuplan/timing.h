#pragma once
// Step time: how long one optimizer step (or one generated token) takes on a given cluster.
//
// Each class of kernels of the forward pass is timed with a roofline: the larger of its FLOPs
// at the precision's dense peak x efficiency and its bytes at HBM bandwidth x efficiency, plus a
// launch overhead per kernel (Williams et al. 2009, "Roofline"). Backward costs twice the
// forward (Narayanan et al. 2021, sec. 5.1). Communication uses ring all-reduce,
// 2(n-1)/n x bytes / bus bandwidth (nccl-tests doc/PERFORMANCE.md), overlapped with the last
// micro-batch's backward for data parallelism; tensor-parallel collectives are exposed unless
// overlapped with their GEMMs (Transformer Engine userbuffers); the 1F1B pipeline bubble adds
// (p-1)/(v m) of the compute with v virtual stages (Narayanan et al. 2021, sec. 2.2), plus the
// stages' point-to-point sends; context parallelism passes K/V around a ring behind attention.

#include <map>
#include <string>
#include <vector>

#include "gpuplan/estimate.h"
#include "gpuplan/hardware.h"
#include "gpuplan/model.h"
#include "gpuplan/result.h"

namespace gpuplan {

// What bounds a class of kernels: tensor-core (or SIMT) matrix multiplications, fused attention
// (its own published efficiency), or memory traffic alone.
enum class WorkKind { matmul, attention, memory };

// One class of kernels of a forward pass, per sample on one GPU (after tensor-parallel split).
struct OpClass {
  std::string name;                // "attention.qkv", "conv2d", "elementwise", ...
  double flops_per_sample = 0;     // matmul/conv FLOPs (multiply-add = 2)
  double bytes_per_sample = 0;     // activation bytes read and written
  double weight_bytes = 0;         // parameter bytes read, independent of batch size
  double kernels = 0;              // kernel launches per forward (for the overhead term)
  bool tensor_cores_only = false;  // work that exists only when convolutions run on tensor cores
  WorkKind kind = WorkKind::memory;
  // GEMM shape for tile and wave quantisation: rows per sample (tokens) and output columns on
  // this GPU; 0 where unknown (convolutions).
  double gemm_rows_per_sample = 0;
  double gemm_cols = 0;
  // GEMMs of that shape one grouped kernel computes together (a rank's local experts).
  double gemm_groups = 1;
  // Backward FLOPs per forward FLOP: 2 for a matmul (input and weight gradients), 2.5 for flash
  // attention (recomputes Q K^T, then dV, dP, dQ, dK: five matmuls for two; Dao et al. 2022,
  // alg. 4); 0: as the model's (1 for frozen weights under LoRA).
  double backward_flops_ratio = 0;
  // An unfused non-matmul kernel of eager PyTorch (norms, activations, residual adds, casts):
  // reaches Efficiencies::eager_memory_bound of the bandwidth unless torch.compile fuses it.
  bool eager = false;
  // Runs at the precision's rate; false: stays in 16 bits under a Transformer Engine recipe
  // (precision.h: attention, the LM head).
  bool fp8 = true;
  // Fused attention under a causal mask (runs at AttentionEfficiency::causal_*).
  bool causal = false;
  // Work of the forward pass only, with no backward counterpart (quantising weights: the
  // backward GEMMs read the copies the forward made).
  bool forward_only = false;
  // Done once per optimizer step, not per micro-batch (Transformer Engine's cached weight casts,
  // Setup::cache_quantized_weights): timed into PassTime::per_step_s.
  bool once_per_step = false;
  // The recompute modules (RecomputeModule bits) whose selective recompute runs this kernel
  // class's forward again, and the share of it they run (the norms of the element-wise class,
  // MLA's up projections of the QKV class).
  unsigned rerun_by = 0;
  double rerun_share = 1;
  // Of `kernels`, those a CUDA graph replays (Setup::cuda_graph_modules): the host launches the
  // graph, not them.
  double captured_kernels = 0;
};

// The expert-parallel traffic of one forward pass of a mixture-of-experts model, per sample on
// one GPU (expert_parallel.h); all 0 without expert parallelism.
struct ExpertTraffic {
  double moe_layers = 0;  // MoE blocks (pipeline stages split these)
  // One block's dispatch all-to-all: this GPU's tokens x routed experts x hidden x bytes (the
  // combine returns as many; backward repeats both).
  double dispatch_bytes_per_sample = 0;
  // One block's expert-tensor-parallel all-gather of the received tokens (its output on one
  // GPU), and as much reduce-scattered before the combine; 0 when etp is 1.
  double etp_gather_bytes_per_sample = 0;
  double rank_load = 1;  // the busiest rank receives this many times an even share
  double top_k = 0;
  int ep = 1;
  int etp = 1;
  MoeDispatcher dispatcher = MoeDispatcher::alltoall;
  bool overlap = false;  // 1F1B A2A overlap
};

// What one forward pass is made of, for the time model. Built once per model and setup shape;
// evaluated for any GPU and micro-batch.
struct WorkProfile {
  std::vector<OpClass> ops;
  double layers = 0;                         // blocks (pipeline stages split these)
  double tp_allreduce_bytes_per_sample = 0;  // per forward, summed over layers (Megatron: 2/layer)
  double tp_allreduces = 0;                  // count per forward
  double tokens_per_sample = 1;              // 0 for layer graphs (images have no tokens)
  // What the schedules move, per sample on one GPU (its s / cp tokens; transformers only): the
  // hidden state a pipeline stage hands on, this GPU's key and value chunk (ring attention) and
  // its Q, K, V and attention output (all-to-all).
  double boundary_bytes_per_sample = 0;
  double kv_bytes_per_sample = 0;
  double qkv_bytes_per_sample = 0;
  double attention_out_bytes_per_sample = 0;
  ExpertTraffic moe;
  // Share of the `fp8` matmul FLOPs at the recipe's low-precision rate; the rest (blocks kept in
  // bf16, Setup::bf16_first_layers / bf16_last_layers) runs at the 16-bit rate.
  double low_precision_share = 1;
  // CUDA graphs the host launches per forward pass (one per captured part of each block).
  double graph_launches = 0;
};

// Builds the forward work of `model` under `setup` (shapes as resolved by `e`).
Result<WorkProfile> build_work_profile(const Model& model, const Setup& setup, const Estimate& e);

// Fused (flash) attention's share of the tensor-core peak, forward and backward, for one GPU
// architecture.
// A fused attention kernel's share of peak, on FlashAttention's count (a causal mask halves the
// FLOPs). Causal runs reach less on that count (the tiles on the diagonal are computed whole and
// masked; row blocks carry unequal work): causal_* where the kernel's benchmark gives it, 0 to
// run at the non-causal figure.
struct AttentionEfficiency {
  double forward = 0;
  double backward = 0;
  double causal_forward = 0;
  double causal_backward = 0;
};

// Fractions of peak that real kernels reach. There are no defaults here on purpose:
// data/assumptions.json is the one source (load_catalog fills Catalog::efficiencies and refuses a
// catalog without them), and a probe file replaces them with what was measured. 0 means unset.
struct Efficiencies {
  double gemm = 0;               // dense tensor-core GEMM vs spec peak
  double simt_gemm = 0;          // FP32 GEMM on CUDA cores (no tensor cores) vs spec FP32 peak
  double hbm = 0;                // STREAM-like copy vs spec bandwidth
  double nvlink = 0;             // all-reduce bus bandwidth vs NVLink per-direction peak
  double pcie = 0;               // vs PCIe per-direction peak
  double network = 0;            // vs the instance's network bandwidth
  double kernel_overhead_s = 0;  // GPU-side gap per kernel launch
  // What eager PyTorch's unfused norm and element-wise kernels of a transformer block reach,
  // as a fraction of spec bandwidth, on the bytes they must move.
  double eager_memory_bound = 0;
  // Flash attention by GPU architecture ("Ampere", "Hopper", ...); an architecture without an
  // entry takes `flash_attention_default` (Ampere's, FlashAttention-2's reference GPU).
  std::map<std::string, AttentionEfficiency> flash_attention;
  AttentionEfficiency flash_attention_default;
  // FlashAttention-3 and cuDNN's fused attention by architecture; one without its own figures
  // runs at FlashAttention-2's (Transformer Engine falls back to FlashAttention before Hopper).
  // All are on FlashAttention's count: causal attention at half the FLOPs.
  std::map<std::string, AttentionEfficiency> flash3_attention;
  std::map<std::string, AttentionEfficiency> cudnn_attention;
  // cuDNN's FP8 attention (Setup::fp8_attention) by architecture, per-tensor FP8 and MXFP8, as
  // shares of the FP8 peak; an architecture without them runs FP8 attention at the 16-bit
  // kernel's rate.
  std::map<std::string, AttentionEfficiency> cudnn_fp8_attention;
  std::map<std::string, AttentionEfficiency> cudnn_mxfp8_attention;
  // FlashAttention in Triton (flash_attn_triton.py, MPT's attn_impl "triton"), by architecture.
  std::map<std::string, AttentionEfficiency> triton_attention;
  // The first FlashAttention (flash-attn 0.x/1.x, 2022), by architecture.
  std::map<std::string, AttentionEfficiency> flash1_attention;
  // Output tile of the GEMM kernels, for tile and wave quantisation (rows x columns).
  double gemm_tile_rows = 0;
  double gemm_tile_cols = 0;
  // A grouped GEMM (a rank's local experts, OpClass::gemm_groups > 1) against one GEMM of the
  // same FLOPs at the GPU's best dense rate: what Transformer Engine's grouped kernels reach.
  double grouped_gemm = 0;
  // Host time per kernel in eager PyTorch (Python, dispatcher, launch); the host runs ahead of
  // the GPU asynchronously, so a pass takes the larger of the two.
  double host_overhead_per_kernel_s = 0;
  // Host time per parameter tensor of a for-loop optimizer step (OptimizerLoop::for_loop), as
  // measured for torch.optim's single-tensor SGD, Adam and AdamW.
  struct ForLoop {
    double sgd_s = 0;
    double adam_s = 0;
    double adamw_s = 0;
  } optimizer_for_loop_per_tensor;
  // NCCL's ring latency (its tuner's model, Simple protocol): a base per collective, then one
  // hop per ring step, by the link the step crosses.
  struct RingLatency {
    double base_s = 0;
    double nvlink_hop_s = 0;
    double pcie_hop_s = 0;
    double network_hop_s = 0;
  } nccl_ring;
  // Measured peaks from a probe file (0: use spec x efficiency above).
  double measured_gemm_flop_per_s = 0;       // for the run's precision
  double measured_tf32_gemm_flop_per_s = 0;  // for FP32 convolutions on TF32 tensor cores
  double measured_hbm_bytes_per_s = 0;
  double measured_intra_busbw_bytes_per_s = 0;
  double measured_inter_busbw_bytes_per_s = 0;  // all-reduce across nodes (multi-node probe)
  // Measured GEMM FLOP/s of the low-precision recipes a probe timed ("fp8", "mxfp8", "nvfp4"):
  // what a recipe's matmuls reach on this GPU, in place of its spec peak x efficiency.
  std::map<std::string, double> measured_recipe_gemm_flop_per_s;
};

// Useful work / work paid for of a GEMM with `rows` x `cols` outputs computed in tiles of
// eff.gemm_tile_rows x eff.gemm_tile_cols on `sms` SMs, one tile per SM at a time (tile and wave
// quantisation); 1 when the SM count or the tile is unknown.
double gemm_quantisation_efficiency(double rows, double cols, int sms, const Efficiencies& eff);
// The same for a grouped GEMM of `groups` GEMMs of that shape, whose tiles share the waves
// (a mixture-of-experts layer's local experts in one kernel).
double grouped_gemm_quantisation_efficiency(double rows, double cols, double groups, int sms,
                                            const Efficiencies& eff);

// Per-direction bandwidth between a GPU and host memory: its sourced host link (NVLink-C2C on a
// Grace superchip), else PCIe x16 of its generation; 0 when neither is known.
double host_link_bytes_per_s(const Gpu& gpu);

// The GPUs a run uses and how they are connected. A node is a host (one machine); an NVLink domain
// is the GPUs that reach each other over NVLink, a whole number of hosts: the host itself for an
// 8-GPU server, 72 GPUs over 18 hosts for an NVL72 rack. Ranks fill hosts, and hosts fill
// domains, in order; only traffic between domains crosses the network.
struct Cluster {
  const Gpu* gpu = nullptr;
  int gpus_per_node = 1;                    // GPUs per host
  int nodes = 1;                            // hosts
  int gpus_per_domain = 0;                  // GPUs per NVLink domain; 0: the host is its own domain
  double intra_node_busbw_bytes_per_s = 0;  // per-direction link peak inside an NVLink domain
  double inter_node_bytes_per_s = 0;        // per host, to other domains; 0: unknown (one domain)
  int vcpus_per_node = 0;                   // per host; 0: unknown (no input-pipeline check)
  std::string link;                         // "nvswitch", "nvlink", "pcie"
  // GPUs of one NVLink domain (at least a host's) and the hosts it spans.
  int domain_gpus() const {
    return gpus_per_domain > gpus_per_node ? gpus_per_domain : gpus_per_node;
  }
  int hosts_per_domain() const { return domain_gpus() / gpus_per_node; }
  // The domains the cluster's hosts fill (the last one possibly in part).
  int domains() const { return (nodes + hosts_per_domain() - 1) / hosts_per_domain(); }
};

// The most GPUs a cluster may have (the CLI's --gpus, --nodes x GPUs per node, validation rows).
inline constexpr int kMaxClusterGpus = 100'000;

// A cluster of `count` GPUs of one kind in one box (no instance known): NVLink if the GPU
// has a sourced NVLink bandwidth, else PCIe of its generation.
Result<Cluster> single_node_cluster(const Gpu& gpu, int count);
// The cluster of `nodes` hosts of one instance type, in its NVLink domains. An error when the
// provider sells the instance only by whole domains and `nodes` is not a whole number of them, or
// when the hosts span more than one domain and the instance has no sourced network bandwidth.
Result<Cluster> instance_cluster(const Instance& instance, const Gpu& gpu, int nodes);

// Step time by term, for the whole cluster.
struct StepTime {
  double forward_s = 0;  // all micro-batches of a step, one pipeline stage
  double backward_s = 0;
  double recompute_s = 0;
  double optimizer_s = 0;
  double tp_comm_s = 0;          // tensor-parallel communication not hidden behind GEMMs
  double tp_comm_total_s = 0;    // all of it, hidden or not
  double dp_comm_s = 0;          // the whole gradient all-reduce
  double dp_comm_exposed_s = 0;  // the part not hidden behind backward
  // ZeRO-3 / FSDP full sharding: parameter all-gathers (forward and backward) and gradient
  // reduce-scatters, whole step; the exposed part is inside dp_comm_exposed_s.
  double fsdp_comm_s = 0;
  double pp_bubble_s = 0;
  double pp_p2p_s = 0;  // pipeline point-to-point sends on the critical path
  // The slowest pipeline stage's work beyond an even split: its rank's layers, the embedding on
  // the first and the output head on the last (pipeline_stage_layers).
  double pp_imbalance_s = 0;
  double pp_p2p_total_s =
      0;                 // all of a stage's sends (the interleaved schedule sends v times more)
  double cp_comm_s = 0;  // context parallelism's K/V exchange (or all-to-alls), whole step
  double cp_comm_exposed_s = 0;  // the part attention does not hide
  // Expert parallelism: the token all-to-alls (dispatch and combine, forward, backward and
  // recompute) and expert-tensor-parallel gathers of the whole step, and what of them is exposed.
  double ep_comm_s = 0;
  double ep_comm_exposed_s = 0;
  // Activation offloading's copies to host memory and back (Setup::offload_activation_layers),
  // whole step, and the part compute does not hide.
  double offload_s = 0;
  double offload_exposed_s = 0;
  double step_s = 0;
  double samples_per_s = 0;
  double tokens_per_s = 0;
  double mfu = 0;              // model FLOPs / (step time x GPUs x dense peak)
  double peak_flop_per_s = 0;  // the dense peak used, per GPU
  // Inference (mode infer): prefill of the prompt and one decode step for the whole batch.
  double prefill_s = 0;
  double decode_token_s = 0;
  // Input pipeline (seed guide sec. 3.2): samples/s the GPUs need vs what the CPUs decode.
  double input_needed_samples_per_s = 0;
  double input_capacity_samples_per_s = 0;  // 0: not checked
  bool input_bound = false;
  int suggested_num_workers = 0;
  std::vector<std::string> notes;
};

// Per-core sample preparation rates for the input-pipeline check (0: unknown, skip check).
struct InputAssumptions {
  double image_samples_per_s_per_core = 0;
};

Result<StepTime> estimate_step_time(const Model& model, const Setup& setup, const Estimate& e,
                                    const WorkProfile& work, const Cluster& cluster,
                                    const Efficiencies& eff, const InputAssumptions& input = {});

// One forward and one backward pass of a micro-batch over the whole model (all layers, one
// tensor-parallel shard), kernel class by kernel class.
struct PassTime {
  double forward_s = 0;
  double backward_s = 0;
  // The parts tensor, context and expert parallelism overlap their communication with: the four
  // GEMM classes tensor parallelism splits, fused attention, and the MoE blocks' routed and
  // shared experts (what Megatron's EP overlap schedules as the "mlp" node), forward and
  // backward, all layers.
  // `gemm`: the blocks' matmul classes (the head's excluded), of which `experts_gemm` the
  // experts' (what a communication kernel beside them contends with for SMs).
  struct Split {
    double qkv = 0, out = 0, mlp_in = 0, mlp_out = 0, attention = 0, experts = 0;
    double gemm = 0, experts_gemm = 0;
  } forward_parts, backward_parts;
  double per_step_s = 0;  // work done once per optimizer step (OpClass::once_per_step)
  // Of forward_s + backward_s: the embedding's and the output head's (logits and loss), which a
  // pipeline places on its first and last stage.
  double embedding_s = 0;
  double head_s = 0;
  // The forward kernels Megatron's selective recompute of Setup::recompute_modules runs again
  // (other than the attention core), whatever the checkpointing: counted under selective only.
  double recompute_modules_s = 0;
  // What bounds the forward pass: the kernels the host launches one by one (CUDA graphs' replays
  // excluded, each graph counted once) at the host's time per launch, against the GPU's time.
  double host_launches = 0;
  double gpu_forward_s = 0;
};

// The layers each pipeline rank holds, as Megatron lays `layers` blocks out over pp ranks of vp
// virtual stages each (rank r holds virtual stages r, r + pp, ...): layers / (pp vp) per virtual
// stage where that divides, the embedding on the first and the output head on the last. Otherwise
// the embedding and the loss count as a layer each, as --account-for-embedding-in-pipeline-split
// and --account-for-loss-in-pipeline-split and hand layouts such as DeepSeek-V3's "Et|(tt|)*30L"
// place them: layers + 2 items spread over the ranks, the earlier ranks taking the spare ones.
std::vector<double> pipeline_stage_layers(int layers, int pp, int vp);

// The roofline times of `micro_batch` samples. estimate_step_time uses it; the planner caches it.
Result<PassTime> pass_time_s(const Model& model, const Setup& setup, const WorkProfile& work,
                             const Gpu& gpu, const Efficiencies& eff, double micro_batch);

// The forward part of pass_time_s.
Result<double> forward_time_s(const Model& model, const Setup& setup, const WorkProfile& work,
                              const Gpu& gpu, const Efficiencies& eff, double micro_batch);

// As estimate_step_time, with pass_time_s(...) for the setup's micro-batch already known.
// `write_notes` false leaves out the notes on the hardware and its pace (host-bound, TF32, NCHW,
// the all-to-all overlap): the planner times every candidate and writes them for the plans it
// keeps (formatting them was 8 % of a search).
Result<StepTime> estimate_step_time_with(const Model& model, const Setup& setup, const Estimate& e,
                                         const WorkProfile& work, const Cluster& cluster,
                                         const Efficiencies& eff, const InputAssumptions& input,
                                         const PassTime& pass, bool write_notes = true);

// The dense peak of `gpu` for a setup's precision; an Error names the missing figure, or the
// missing tensor cores (nvfp4 and mxfp4 need Blackwell's).
Result<double> dense_peak_flop_per_s(const Gpu& gpu, Precision precision);

// Whether `gpu`'s tensor cores do block-scaled MMA (MXFP8, MXFP4, NVFP4): Blackwell's.
bool has_block_scaled_mma(const Gpu& gpu);

}  // namespace gpuplan
