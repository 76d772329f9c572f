// A training step (or an inference request) on a cluster: the passes of every micro-batch, the
// pipeline bubble, tensor- and data-parallel communication and what of it is hidden, the
// optimizer step and the input pipeline.
#include <algorithm>
#include <cstdio>
#include <cmath>

#include "gpuplan/framework.h"
#include "gpuplan/precision.h"
#include "gpuplan/timing.h"
#include "training/internal.h"

namespace gpuplan {

using namespace training;

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

void infer_time(const Setup& setup, const Estimate& e, const WorkProfile& work, const Rates& r,
                const Efficiencies& eff, double forward_s, int total_gpus, StepTime& st) {
  st.prefill_s = forward_s / setup.pp * static_cast<double>(e.grad_accum_steps);
  // One decode step: every weight and the KV cache are read once per token (Pope et al. 2022).
  // A decoder-only language model's is the serving replica model's instead (evaluate()).
  if (setup.generate_tokens > 0) {
    const double layers = std::max(work.layers, 1.0);
    const double flops_gpu = e.flops.decode_per_token / (setup.dp * setup.tp);
    st.decode_token_s = std::max(flops_gpu / r.compute, e.flops.decode_bytes_per_token / r.memory) +
                        layers * 10 * eff.kernel_overhead_s;
  }
  st.step_s = st.prefill_s + static_cast<double>(setup.generate_tokens) * st.decode_token_s;
  st.samples_per_s = static_cast<double>(e.global_batch) / st.step_s;
  st.tokens_per_s = setup.generate_tokens > 0
                        ? static_cast<double>(e.global_batch) / st.decode_token_s
                        : st.samples_per_s * work.tokens_per_sample;
  st.mfu =
      (e.flops.prefill + e.flops.decode_per_token * static_cast<double>(setup.generate_tokens)) /
      (st.step_s * total_gpus * st.peak_flop_per_s);
}

// The group that reduces gradients and shards optimizer states: the data-parallel ranks with
// their context-parallel peers, which hold the same weights (Megatron's data-parallel group with
// cp; torchtitan's FSDP mesh over dp_shard x cp).
Setup reducing_group(const Setup& setup) {
  Setup r = setup;
  r.dp = setup.dp * setup.cp;
  return r;
}

// The groups a ZeRO shard moves over (Setup::dp_shard): the shard group, shard_ranks consecutive
// ranks (all of the reducing group without HSDP), which gathers and reduce-scatters; and HSDP's
// replica group, one rank of each shard group, which all-reduces the shard's gradients. The shard
// group leaves the NVLink domain when it does not fit in one; the replica group once the whole
// reducing group does, and then shares the domain's network with the domain's other
// min(GPUs per domain, tp x shard) replica rings.
struct ShardGroups {
  Setup shard;  // the shard group as a reducing group (its dp: the ranks)
  double shard_busbw = 0;
  double replicas = 1;
  double replica_busbw = 0;
  // The all-reduce of `bytes` of a shard over the replicas (0 without HSDP).
  double replica_allreduce_s(double bytes) const {
    return replicas > 1 ? allreduce_s(bytes, replicas, replica_busbw) : 0.0;
  }
};
ShardGroups shard_groups(const Setup& setup, const Cluster& cluster, const Links& l) {
  ShardGroups g;
  g.shard = setup;
  g.shard.dp = shard_ranks(setup);
  g.shard_busbw = dp_busbw(g.shard, cluster, l);
  if (hybrid_shard(setup) > 0) g.replicas = static_cast<double>(setup.dp / hybrid_shard(setup));
  const double rings = std::min<double>(cluster.domain_gpus(), setup.tp * g.shard.dp);
  g.replica_busbw = dp_group_domains(reducing_group(setup), cluster) > 1
                        ? std::min(l.intra, l.inter_domain / rings)
                        : l.intra;
  return g;
}

// The gradients' (and, sharded, the parameters') last bucket, reduced after backward ends:
// buckets fill in reverse layer order, so the first layers' come last. PyTorch DDP: 25 MB
// (bucket_cap_mb), or the whole token embedding, a tensor that gets a bucket of its own when
// larger (Li et al. 2020, "PyTorch Distributed", sec. 3.2.3 and 4.2). Megatron:
// max(40M, 1M x dp) parameters per bucket (distributed_data_parallel.py).
double last_bucket_bytes(const Setup& setup, const Estimate& e, double bytes, double per_param) {
  const double split = static_cast<double>(setup.tp * setup.pp);
  if (runs_megatron_core(setup.framework)) {
    const double params = std::max(40e6, 1e6 * setup.dp * setup.cp);
    return std::min(bytes, params * per_param);
  }
  const double embedding_bytes =
      static_cast<double>(std::min(e.params.embedding, e.params.trainable)) / split * per_param;
  return std::min(bytes, std::max(25.0 * 1024 * 1024, embedding_bytes));
}

// DDP and ZeRO-1/2: the gradients are all-reduced once per step, or under ZeRO-1/2 (Megatron's
// distributed optimizer) reduce-scattered and the updated 16-bit parameters all-gathered after
// the optimizer step. With overlap the reduction runs in buckets behind the last micro-batch's
// backward (Li et al. 2020; Megatron --overlap-grad-reduce) and the all-gather behind the next
// step's first forward (--overlap-param-gather); without, each waits whole.
void ddp_comm(const Setup& setup, const Estimate& e, const Cluster& cluster, const Links& l,
              const PassTime& pass, StepTime& st) {
  const Setup group = reducing_group(setup);
  const double grad_bytes = gradient_bytes(setup);
  const double split = static_cast<double>(setup.tp * setup.pp);
  // Routed experts' gradients are reduced over their own (expert-data-parallel) group, after the
  // dense ones (gradient_shards: dense and expert shares of this GPU's trainable parameters).
  const GradientShards shards = gradient_shards(setup, e);
  const double bytes = shards.dense * grad_bytes;
  const double n = group.dp;
  const double bw = dp_busbw(group, cluster, l);
  const bool sharded = setup.zero_stage >= 1;
  // Sharded: reduce-scatter over the shard group, then (HSDP) all-reduce the shard over the
  // replicas; the parameters gather over the shard group only.
  const ShardGroups g = shard_groups(setup, cluster, l);
  const double ns = g.shard.dp, bws = g.shard_busbw;
  auto reduced_s = [&](double b) {
    return sharded ? allgather_s(b, ns, bws) + g.replica_allreduce_s(b / ns)
                   : allreduce_s(b, n, bw);
  };
  const double reduce =
      reduced_s(bytes) + expert_grad_allreduce_s(shards, grad_bytes, setup, cluster, l);
  const double param_bytes = static_cast<double>(e.params.trainable) / split * gather_bytes(setup);
  const double gather = sharded ? allgather_s(param_bytes, ns, bws) : 0.0;
  st.dp_comm_s = reduce + gather;
  const double last = last_bucket_bytes(setup, e, bytes, grad_bytes);
  const double last_s = reduced_s(last);
  const double bwd_window = pass.backward_s / setup.pp;
  const double reduce_exposed =
      setup.overlap_grad_reduce ? std::max(reduce - bwd_window, last_s) : reduce;
  double gather_exposed = gather;
  if (gather > 0 && setup.overlap_param_gather) {
    const double first = last_bucket_bytes(setup, e, param_bytes, gather_bytes(setup));
    gather_exposed = std::max(gather - pass.forward_s / setup.pp, allgather_s(first, ns, bws));
  }
  st.dp_comm_exposed_s = reduce_exposed + gather_exposed;
}

// ZeRO-3 / FSDP FULL_SHARD: every micro-batch all-gathers each block's parameters before its
// forward and again before its backward (reshard_after_forward), and reduce-scatters its
// gradients after (Zhao et al. 2023, "PyTorch FSDP", sec. 3.3 and 4). FSDP prefetches the next
// block's all-gather while the current one computes, so per pass only the first all-gather (and
// in backward the last reduce-scatter) is exposed, plus whatever communication outlasts compute.
// Each block is one collective of each kind, and the root unit (embeddings, head) one more: each
// pays the ring's latency, which grows with the ranks while a block's share of bytes shrinks.
// HSDP gathers and reduce-scatters over the shard group only, and all-reduces each backward's
// gradient shard over the replicas (FSDP2 with a replicate x shard mesh).
void fsdp_comm(const Setup& run, const Estimate& e, const WorkProfile& work, const Cluster& cluster,
               const Links& l, const Efficiencies& eff, const PassTime& pass, StepTime& st) {
  const ShardGroups g = shard_groups(run, cluster, l);
  const Setup& setup = g.shard;
  const double split = static_cast<double>(setup.tp * setup.pp);
  // Routed experts are sharded over ep x etp ranks before FSDP shards them again.
  const GradientShards shards = gradient_shards(setup, e);
  const double params =
      static_cast<double>(e.params.total - e.params.experts) / split + shards.experts;
  const double bw = g.shard_busbw;
  const double layers = std::max(work.layers / setup.pp, 1.0);
  const double latency =
      (layers + 1) * ring_latency_s(setup.dp, dp_group_domains(setup, cluster), cluster, eff);
  const double gather = allgather_s(params * gather_bytes(setup), setup.dp, bw) + latency;
  const double grads = (shards.dense + shards.experts) * gradient_bytes(setup);
  const double reduce =
      allgather_s(grads, setup.dp, bw) + latency + g.replica_allreduce_s(grads / setup.dp);
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
  const GradientShards shards = gradient_shards(setup, e);
  const bool sharded = setup.zero_stage >= 1;
  const int expert_shard = hybrid_shard(setup) > 0 ? expert_dp_shard(setup, shards.expert_dp)
                                                   : static_cast<int>(shards.expert_dp);
  const double n = shards.dense / (sharded ? shard_ranks(setup) : 1) +
                   shards.experts / (sharded ? std::max(expert_shard, 1) : 1);
  // The parameter the optimizer updates (the master, or the parameter itself) and its states
  // (precision.h), each read and written; its gradient read.
  const PrecisionBytes& pb = precision_bytes(setup.precision);
  const double w = has_master_weights(setup.precision) ? master_bytes(setup) : pb.param;
  const double state = state_bytes(setup);
  double per_param = 2 * w + gradient_bytes(setup);
  switch (setup.optimizer) {
    case Optimizer::sgd:
      break;
    case Optimizer::sgd_momentum:
      per_param += 2 * state;
      break;
    case Optimizer::adam:
    case Optimizer::adamw:
      per_param += 4 * state;
      break;
    case Optimizer::lamb:
      per_param += 4 * state + 2 * w;  // Adam's states, then the norms read the weight and update
      break;
    case Optimizer::adam_8bit:
      per_param += 4;
      break;
    case Optimizer::adafactor:
      per_param += 0.1 * w;
      break;
  }
  // Recipes with masters write the compute copy of each updated master: 16-bit, or under
  // --quantized-params the quantised weight (Megatron casts the master shard straight to FP8).
  if (has_master_weights(setup.precision)) per_param += gather_bytes(setup);
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

// The rate a copy to host memory and back runs at: the PCIe link at the measured PCIe share;
// NVLink-C2C, with no measured copy rate here, at its spec rate. 0 (with a note): not sourced.
double offload_link_bytes_per_s(const Gpu& gpu, const Efficiencies& eff, StepTime& st) {
  const double link = host_link_bytes_per_s(gpu) * (gpu.host_link_bytes_per_s > 0 ? 1.0 : eff.pcie);
  if (link <= 0) {
    st.notes.push_back("activation offloading: " + gpu.id +
                       " has no sourced host-link bandwidth, so its copies are taken as hidden "
                       "behind compute");
  }
  return link;
}

// Fine-grained activation offloading (Setup::offload_modules): each MoE block of the stage sends
// its modules' inputs to the host on a stream beside the compute after its forward, and loads
// them back before its backward; a copy longer than a block's forward (or backward) shows by the
// difference, the next block waiting for the copy engine.
void module_offload_time(const Setup& setup, const Estimate& e, const WorkProfile& work,
                         const Cluster& cluster, const Efficiencies& eff, const PassTime& pass,
                         double micro_steps, StepTime& st) {
  const double bytes = e.offload_module_bytes_per_layer, layers = work.layers;
  if (bytes <= 0 || layers <= 0) return;
  const double link = offload_link_bytes_per_s(*cluster.gpu, eff, st);
  if (link <= 0) return;
  const double t = bytes / link, blocks = e.offload_module_layers / setup.pp;
  const double f = pass.forward_s / layers, b = pass.backward_s / layers;
  st.offload_s += 2 * blocks * t * micro_steps;
  st.offload_exposed_s += blocks * (std::max(0.0, t - f) + std::max(0.0, t - b)) * micro_steps;
}

// Activation offloading (Setup::offload_activation_layers = N of L blocks, one stage). Transformer
// Engine's DefaultOffloadSynchronizer (pytorch/cpu_offload.py at NVIDIA/TransformerEngine@d0067d0d)
// copies block i's saved activations to the host on one stream from block i + 1's forward on and
// must finish by block L - N + i's; in the backward it starts reloading block i before block
// L - 1 - N + i's backward. With the copies in series (t each) and f per block's forward, the
// forward takes max(L f, N t + 2 f); the backward likewise with b per block, the copies at
// offload_link_bytes_per_s's rate. Fine-grained offloading's copies come first.
void offload_time(const Setup& setup, const Estimate& e, const WorkProfile& work,
                  const Cluster& cluster, const Efficiencies& eff, const PassTime& pass,
                  double micro_steps, StepTime& st) {
  module_offload_time(setup, e, work, cluster, eff, pass, micro_steps, st);
  const double n = setup.offload_activation_layers, layers = work.layers;
  if (n <= 0 || e.offload_bytes_per_layer <= 0 || layers <= 0) return;
  const double link = offload_link_bytes_per_s(*cluster.gpu, eff, st);
  if (link <= 0) return;
  const double t = e.offload_bytes_per_layer / link;
  const double f = pass.forward_s / layers, b = pass.backward_s / layers;
  st.offload_s = 2 * n * t * micro_steps;
  st.offload_exposed_s =
      (std::max(0.0, n * t + 2 * f - layers * f) + std::max(0.0, n * t + 2 * b - layers * b)) *
      micro_steps;
}

void train_time(const Model& model, const Setup& setup, const Estimate& e, const WorkProfile& work,
                const Cluster& cluster, const Efficiencies& eff, const InputAssumptions& input,
                const Rates& r, const PassTime& pass, StepTime& st) {
  const double micro_steps = static_cast<double>(e.grad_accum_steps);
  const double pp = setup.pp;
  // Recomputation at the forward pass's pace, except the selective recompute modules' kernels,
  // timed themselves (PassTime::recompute_modules_s).
  const double rec_ratio = e.flops.forward_per_step > 0
                               ? (e.flops.recompute_per_step - e.flops.recompute_modules_per_step) /
                                     e.flops.forward_per_step
                               : 0;
  st.forward_s = pass.forward_s / pp * micro_steps;
  st.backward_s = pass.backward_s / pp * micro_steps;
  const double modules_s =
      setup.checkpointing == Checkpointing::selective ? pass.recompute_modules_s : 0.0;
  st.recompute_s = rec_ratio * st.forward_s + modules_s / pp * micro_steps;
  // Work done once per step (cached weight quantisation) runs in the first micro-batch's forward.
  st.forward_s += pass.per_step_s / pp;
  const double compute_s = st.forward_s + st.backward_s + st.recompute_s;
  const Links l = links_for(cluster, eff);
  const PipelineTime pipe = pipeline_time(setup, e, work, cluster, l, eff, pass, compute_s);
  st.pp_bubble_s = pipe.bubble_s;
  st.pp_p2p_s = pipe.p2p_s;
  st.pp_p2p_total_s = pipe.p2p_total_s;
  const double recomputed = setup.checkpointing == Checkpointing::full ? 1 : 0;
  const TensorParallelTime tp =
      tensor_parallel_time(setup, e, work, cluster, l, r.sms, pass, recomputed);
  st.tp_comm_total_s = tp.total_s;
  st.tp_comm_s = tp.exposed_s;
  const ContextParallelTime cp =
      context_parallel_time(setup, e, work, cluster, l, eff, pass, recomputed);
  st.cp_comm_s = cp.comm_s;
  st.cp_comm_exposed_s = cp.exposed_s;
  expert_comm(setup, e, work, cluster, l, eff, pass, r, st);
  if (setup.dp * setup.cp > 1 && setup.zero_stage >= 3) {
    fsdp_comm(setup, e, work, cluster, l, eff, pass, st);
  } else if (setup.dp * setup.cp > 1) {
    ddp_comm(setup, e, cluster, l, pass, st);
  }
  st.optimizer_s = optimizer_s(setup, e, r, eff);
  offload_time(setup, e, work, cluster, eff, pass, micro_steps, st);
  if (setup.pp > 1 && work.layers > 0) {
    // One layer's work per micro-batch: its compute, recompute and exposed tensor-, context- and
    // expert-parallel communication (each timed above for this rank's even share of layers).
    const double per_layer_comm = st.tp_comm_s + st.cp_comm_exposed_s + st.ep_comm_exposed_s;
    const double layers_s = pass.forward_s + pass.backward_s - pass.embedding_s - pass.head_s +
                            (st.recompute_s + per_layer_comm) * pp / micro_steps;
    st.pp_imbalance_s =
        pipeline_imbalance_s(setup, work, pass, layers_s / work.layers, micro_steps);
  }
  st.step_s = compute_s + st.pp_bubble_s + st.pp_p2p_s + st.pp_imbalance_s + st.tp_comm_s +
              st.cp_comm_exposed_s + st.ep_comm_exposed_s + st.dp_comm_exposed_s + st.optimizer_s +
              st.offload_exposed_s;
  st.samples_per_s = static_cast<double>(e.global_batch) / st.step_s;
  input_pipeline(model, e, cluster, input, st);
}

}  // namespace

namespace {

// A training pass the host paces (roofline.cpp): says so, with what moves the pace back to the GPU.
void host_bound_note(const PassTime& pass, const Efficiencies& eff, StepTime& st) {
  const double host_s = pass.host_launches * eff.host_overhead_per_kernel_s;
  if (host_s <= pass.gpu_forward_s || pass.host_launches <= 0) return;
  char text[400];
  std::snprintf(text, sizeof text,
                "host-bound: the host launches %.0f kernels a micro-batch's forward pass (%.3g ms "
                "at %.3g us each) against %.3g ms of GPU work; a larger micro-batch, or CUDA "
                "graphs (--cuda-graph-modules), lets the GPU set the pace",
                pass.host_launches, host_s * 1e3, eff.host_overhead_per_kernel_s * 1e6,
                pass.gpu_forward_s * 1e3);
  st.notes.push_back(text);
}

}  // namespace

Result<StepTime> estimate_step_time_with(const Model& model, const Setup& setup, const Estimate& e,
                                         const WorkProfile& work, const Cluster& cluster,
                                         const Efficiencies& eff, const InputAssumptions& input,
                                         const PassTime& pass, bool write_notes) {
  if (!cluster.gpu) return invalid("no GPU given");
  const int total_gpus = cluster.gpus_per_node * cluster.nodes;
  if (e.num_gpus != total_gpus) {
    return invalid(Msg::time_gpus_mismatch,
                   {std::to_string(e.num_gpus), std::to_string(total_gpus)});
  }
  auto rates = rates_for(model, setup, *cluster.gpu, eff);
  if (!rates.ok()) return rates.error();
  const Rates& r = rates.value();
  StepTime st;
  st.peak_flop_per_s = r.peak;
  if (write_notes && r.tf32_convs)
    st.notes.push_back("fp32 convolutions use TF32 tensor cores (cuDNN default in PyTorch)");
  if (write_notes && r.tensor_cores && e.memory_format == "nchw") {
    st.notes.push_back(
        "NCHW tensors on tensor cores: cuDNN transposes every convolution's input and output "
        "(model.to(memory_format=torch.channels_last) avoids it; --memory-format channels-last)");
  }
  if (setup.mode == Mode::infer) {
    infer_time(setup, e, work, r, eff, pass.forward_s, total_gpus, st);
    return st;
  }
  train_time(model, setup, e, work, cluster, eff, input, r, pass, st);
  if (write_notes) host_bound_note(pass, eff, st);
  if (write_notes && setup.moe_a2a_overlap && st.ep_comm_s > 0 && r.host_paced_a2a_overlap) {
    st.notes.push_back("1F1B all-to-all overlap (--moe-a2a-overlap): on " + cluster.gpu->id +
                       " it hides none of the all-to-all; Megatron-LM found its benefit negative "
                       "on GB200, its synchronisation adding to the host's overhead");
  }
  st.tokens_per_s = st.samples_per_s * work.tokens_per_sample;
  st.mfu = (e.flops.forward_per_step + e.flops.backward_per_step) /
           (st.step_s * total_gpus * st.peak_flop_per_s);
  return st;
}

}  // namespace gpuplan
