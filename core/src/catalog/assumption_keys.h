#pragma once
// The time model's constants in data/assumptions.json ("assumptions" map), each written once:
// its key, the Efficiencies field it fills, the bounds a value must lie in, and whether the time
// model needs it. The parser (hardware.cpp) reads every key of this table and refuses any other;
// the catalog check (model.cpp) refuses a catalog that leaves out a required one. The schema
// (data/schema/assumptions.schema.json) lists the same keys with additionalProperties false, so
// a key added here but not there, or there but not here, fails the schema or the parse test.

#include "gpuplan/timing.h"

namespace gpuplan::detail {

struct AssumptionKey {
  const char* key;
  double& (*field)(Efficiencies&);
  double min;
  double max;
  bool required;  // the time model has no other source for it
};

// A reference to one field of Efficiencies.
#define GPUPLAN_FIELD(member) [](Efficiencies& e) -> double& { return e.member; }

inline constexpr AssumptionKey kAssumptionKeys[] = {
    {"gemm_efficiency", GPUPLAN_FIELD(gemm), 0.05, 1.0, true},
    {"simt_gemm_efficiency", GPUPLAN_FIELD(simt_gemm), 0.05, 1.0, true},
    {"hbm_efficiency", GPUPLAN_FIELD(hbm), 0.05, 1.0, true},
    {"nvlink_allreduce_busbw_efficiency", GPUPLAN_FIELD(nvlink), 0.05, 1.2, true},
    {"pcie_efficiency", GPUPLAN_FIELD(pcie), 0.05, 1.0, true},
    {"network_allreduce_efficiency", GPUPLAN_FIELD(network), 0.05, 1.2, true},
    {"kernel_launch_overhead_s", GPUPLAN_FIELD(kernel_overhead_s), 1e-7, 1e-3, true},
    {"eager_host_overhead_per_kernel_s", GPUPLAN_FIELD(host_overhead_per_kernel_s), 1e-7, 1e-2,
     true},
    {"eager_memory_bound_efficiency", GPUPLAN_FIELD(eager_memory_bound), 0.01, 1.0, true},
    {"optimizer_for_loop_s_per_tensor_sgd", GPUPLAN_FIELD(optimizer_for_loop_per_tensor.sgd_s),
     1e-7, 1e-2, true},
    {"optimizer_for_loop_s_per_tensor_adam", GPUPLAN_FIELD(optimizer_for_loop_per_tensor.adam_s),
     1e-7, 1e-2, true},
    {"optimizer_for_loop_s_per_tensor_adamw", GPUPLAN_FIELD(optimizer_for_loop_per_tensor.adamw_s),
     1e-7, 1e-2, true},
    {"nccl_ring_base_latency_s", GPUPLAN_FIELD(nccl_ring.base_s), 1e-7, 1e-3, true},
    {"nccl_ring_hop_latency_nvlink_s", GPUPLAN_FIELD(nccl_ring.nvlink_hop_s), 1e-8, 1e-3, true},
    {"nccl_ring_hop_latency_pcie_s", GPUPLAN_FIELD(nccl_ring.pcie_hop_s), 1e-8, 1e-3, true},
    {"nccl_ring_hop_latency_network_s", GPUPLAN_FIELD(nccl_ring.network_hop_s), 1e-8, 1e-3, true},
    {"gemm_tile_rows", GPUPLAN_FIELD(gemm_tile_rows), 8, 1024, true},
    {"gemm_tile_cols", GPUPLAN_FIELD(gemm_tile_cols), 8, 1024, true},
    {"grouped_gemm_efficiency", GPUPLAN_FIELD(grouped_gemm), 0.05, 1.0, true},
    // Flash attention per architecture. Ampere's (FlashAttention-2's reference GPU) is required:
    // architectures without figures of their own take it.
    {"flash_attention_forward_efficiency_ampere", GPUPLAN_FIELD(flash_attention["Ampere"].forward),
     0.05, 1.0, true},
    {"flash_attention_backward_efficiency_ampere",
     GPUPLAN_FIELD(flash_attention["Ampere"].backward), 0.05, 1.0, true},
    {"flash_attention_forward_efficiency_hopper", GPUPLAN_FIELD(flash_attention["Hopper"].forward),
     0.05, 1.0, false},
    {"flash_attention_backward_efficiency_hopper",
     GPUPLAN_FIELD(flash_attention["Hopper"].backward), 0.05, 1.0, false},
    {"flash_attention_causal_forward_efficiency_ampere",
     GPUPLAN_FIELD(flash_attention["Ampere"].causal_forward), 0.05, 1.0, false},
    {"flash_attention_causal_forward_efficiency_hopper",
     GPUPLAN_FIELD(flash_attention["Hopper"].causal_forward), 0.05, 1.0, false},
    // FlashAttention-3 and cuDNN's fused attention; an architecture without them takes
    // FlashAttention-2's figures.
    {"flash3_attention_forward_efficiency_hopper",
     GPUPLAN_FIELD(flash3_attention["Hopper"].forward), 0.05, 1.0, false},
    {"flash3_attention_backward_efficiency_hopper",
     GPUPLAN_FIELD(flash3_attention["Hopper"].backward), 0.05, 1.0, false},
    {"cudnn_attention_forward_efficiency_hopper", GPUPLAN_FIELD(cudnn_attention["Hopper"].forward),
     0.05, 1.0, false},
    {"cudnn_attention_backward_efficiency_hopper",
     GPUPLAN_FIELD(cudnn_attention["Hopper"].backward), 0.05, 1.0, false},
    {"flash3_attention_causal_forward_efficiency_hopper",
     GPUPLAN_FIELD(flash3_attention["Hopper"].causal_forward), 0.05, 1.0, false},
    {"cudnn_attention_causal_forward_efficiency_hopper",
     GPUPLAN_FIELD(cudnn_attention["Hopper"].causal_forward), 0.05, 1.0, false},
    {"cudnn_attention_forward_efficiency_blackwell",
     GPUPLAN_FIELD(cudnn_attention["Blackwell"].forward), 0.05, 1.0, false},
    {"cudnn_attention_backward_efficiency_blackwell",
     GPUPLAN_FIELD(cudnn_attention["Blackwell"].backward), 0.05, 1.0, false},
    {"cudnn_attention_causal_forward_efficiency_blackwell",
     GPUPLAN_FIELD(cudnn_attention["Blackwell"].causal_forward), 0.05, 1.0, false},
    {"cudnn_attention_causal_backward_efficiency_blackwell",
     GPUPLAN_FIELD(cudnn_attention["Blackwell"].causal_backward), 0.05, 1.0, false},
    // Blackwell Ultra (compute capability 10.3: GB300, B300), whose exponential units are twice
    // Blackwell's: its own cuDNN figures (training::attention_efficiency).
    {"cudnn_attention_forward_efficiency_blackwell_ultra",
     GPUPLAN_FIELD(cudnn_attention["Blackwell Ultra"].forward), 0.05, 1.0, false},
    {"cudnn_attention_backward_efficiency_blackwell_ultra",
     GPUPLAN_FIELD(cudnn_attention["Blackwell Ultra"].backward), 0.05, 1.0, false},
    {"cudnn_attention_causal_forward_efficiency_blackwell_ultra",
     GPUPLAN_FIELD(cudnn_attention["Blackwell Ultra"].causal_forward), 0.05, 1.0, false},
    {"cudnn_attention_causal_backward_efficiency_blackwell_ultra",
     GPUPLAN_FIELD(cudnn_attention["Blackwell Ultra"].causal_backward), 0.05, 1.0, false},
    // cuDNN's FP8 attention, as shares of the FP8 peak.
    {"cudnn_fp8_attention_forward_efficiency_blackwell",
     GPUPLAN_FIELD(cudnn_fp8_attention["Blackwell"].forward), 0.05, 1.0, false},
    {"cudnn_fp8_attention_backward_efficiency_blackwell",
     GPUPLAN_FIELD(cudnn_fp8_attention["Blackwell"].backward), 0.05, 1.0, false},
    {"cudnn_fp8_attention_causal_forward_efficiency_blackwell",
     GPUPLAN_FIELD(cudnn_fp8_attention["Blackwell"].causal_forward), 0.05, 1.0, false},
    {"cudnn_fp8_attention_causal_backward_efficiency_blackwell",
     GPUPLAN_FIELD(cudnn_fp8_attention["Blackwell"].causal_backward), 0.05, 1.0, false},
    {"cudnn_fp8_attention_forward_efficiency_blackwell_ultra",
     GPUPLAN_FIELD(cudnn_fp8_attention["Blackwell Ultra"].forward), 0.05, 1.0, false},
    {"cudnn_fp8_attention_backward_efficiency_blackwell_ultra",
     GPUPLAN_FIELD(cudnn_fp8_attention["Blackwell Ultra"].backward), 0.05, 1.0, false},
    {"cudnn_fp8_attention_causal_forward_efficiency_blackwell_ultra",
     GPUPLAN_FIELD(cudnn_fp8_attention["Blackwell Ultra"].causal_forward), 0.05, 1.0, false},
    {"cudnn_fp8_attention_causal_backward_efficiency_blackwell_ultra",
     GPUPLAN_FIELD(cudnn_fp8_attention["Blackwell Ultra"].causal_backward), 0.05, 1.0, false},
    {"cudnn_mxfp8_attention_forward_efficiency_blackwell",
     GPUPLAN_FIELD(cudnn_mxfp8_attention["Blackwell"].forward), 0.05, 1.0, false},
    {"cudnn_mxfp8_attention_backward_efficiency_blackwell",
     GPUPLAN_FIELD(cudnn_mxfp8_attention["Blackwell"].backward), 0.05, 1.0, false},
    {"cudnn_mxfp8_attention_causal_forward_efficiency_blackwell",
     GPUPLAN_FIELD(cudnn_mxfp8_attention["Blackwell"].causal_forward), 0.05, 1.0, false},
    {"cudnn_mxfp8_attention_causal_backward_efficiency_blackwell",
     GPUPLAN_FIELD(cudnn_mxfp8_attention["Blackwell"].causal_backward), 0.05, 1.0, false},
    {"cudnn_mxfp8_attention_forward_efficiency_blackwell_ultra",
     GPUPLAN_FIELD(cudnn_mxfp8_attention["Blackwell Ultra"].forward), 0.05, 1.0, false},
    {"cudnn_mxfp8_attention_backward_efficiency_blackwell_ultra",
     GPUPLAN_FIELD(cudnn_mxfp8_attention["Blackwell Ultra"].backward), 0.05, 1.0, false},
    {"cudnn_mxfp8_attention_causal_forward_efficiency_blackwell_ultra",
     GPUPLAN_FIELD(cudnn_mxfp8_attention["Blackwell Ultra"].causal_forward), 0.05, 1.0, false},
    {"cudnn_mxfp8_attention_causal_backward_efficiency_blackwell_ultra",
     GPUPLAN_FIELD(cudnn_mxfp8_attention["Blackwell Ultra"].causal_backward), 0.05, 1.0, false},
    // FlashAttention in Triton (MPT / llm-foundry attn_impl "triton").
    {"triton_attention_forward_efficiency_ampere",
     GPUPLAN_FIELD(triton_attention["Ampere"].forward), 0.05, 1.0, false},
    {"triton_attention_backward_efficiency_ampere",
     GPUPLAN_FIELD(triton_attention["Ampere"].backward), 0.05, 1.0, false},
    {"triton_attention_causal_forward_efficiency_ampere",
     GPUPLAN_FIELD(triton_attention["Ampere"].causal_forward), 0.05, 1.0, false},
    {"triton_attention_forward_efficiency_hopper",
     GPUPLAN_FIELD(triton_attention["Hopper"].forward), 0.05, 1.0, false},
    {"triton_attention_backward_efficiency_hopper",
     GPUPLAN_FIELD(triton_attention["Hopper"].backward), 0.05, 1.0, false},
    {"triton_attention_causal_forward_efficiency_hopper",
     GPUPLAN_FIELD(triton_attention["Hopper"].causal_forward), 0.05, 1.0, false},
    // The first FlashAttention (flash-attn before 2.0).
    {"flash1_attention_forward_efficiency_ampere",
     GPUPLAN_FIELD(flash1_attention["Ampere"].forward), 0.05, 1.0, false},
    {"flash1_attention_backward_efficiency_ampere",
     GPUPLAN_FIELD(flash1_attention["Ampere"].backward), 0.05, 1.0, false},
    {"flash1_attention_causal_forward_efficiency_ampere",
     GPUPLAN_FIELD(flash1_attention["Ampere"].causal_forward), 0.05, 1.0, false},
    {"flash1_attention_forward_efficiency_hopper",
     GPUPLAN_FIELD(flash1_attention["Hopper"].forward), 0.05, 1.0, false},
    {"flash1_attention_backward_efficiency_hopper",
     GPUPLAN_FIELD(flash1_attention["Hopper"].backward), 0.05, 1.0, false},
    {"flash1_attention_causal_forward_efficiency_hopper",
     GPUPLAN_FIELD(flash1_attention["Hopper"].causal_forward), 0.05, 1.0, false},
};
#undef GPUPLAN_FIELD

// Keys of the same map that are not time-model efficiencies (hardware.cpp reads them itself).
inline constexpr const char* kOtherAssumptionKeys[] = {"jpeg_decode_images_per_s_per_core",
                                                       "checkpoint_restart_overhead_s",
                                                       "spot_interruptions_per_hour"};

}  // namespace gpuplan::detail
