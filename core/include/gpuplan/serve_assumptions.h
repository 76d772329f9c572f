#pragma once
// Serving formats and runtimes, and what each runtime does: the "serving" object of
// data/assumptions.json (memory fractions, batch limits, kernel counts, all-reduce latency),
// each value with its source. Implemented in core/src/serving/serve_assumptions.cpp.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/precision.h"
#include "gpuplan/result.h"
#include "gpuplan/sharegpt.h"

namespace gpuplan {

// WeightFormat and KvFormat (precision.h): how weights and the KV cache are stored.
enum class Runtime { vllm, trtllm, sglang, hf, llamacpp };
const char* kv_format_name(KvFormat k);
const char* runtime_name(Runtime r);
std::optional<KvFormat> parse_kv_format(const std::string& s);
std::optional<Runtime> parse_runtime(const std::string& s);
// The weight format a checkpoint's name states ("-FP8", "-AWQ", "-NVFP4"); nullopt where it
// states none, or bitsandbytes' NF4, which gpuplan does not model.
std::optional<WeightFormat> checkpoint_name_weights(CheckpointFormat f);
// The matched model, its checkpoint's weights those its name states where it states them: serving
// and inference take them where --weights is not given.
Model named_checkpoint(const ModelMatch& match);

// What a serving runtime does, from data/assumptions.json "serving" (each value cited there).
struct RuntimeProfile {
  Runtime runtime = Runtime::vllm;
  double memory_fraction = 0.9;  // share of memory the runtime takes for itself
  bool fraction_of_free =
      false;                   // of the memory free after weights (TensorRT-LLM) or of all (vLLM)
  int64_t max_num_seqs = 256;  // running sequences (GPUs under 70 GiB or A100)
  int64_t max_num_seqs_large = 256;       // on GPUs of 70 GiB and more, not A100 (vLLM's rule)
  int64_t max_num_batched_tokens = 2048;  // tokens per step, small GPUs
  int64_t max_num_batched_tokens_large = 2048;  // tokens per step, large GPUs
  bool continuous_batching = true;              // false: static batches (a batch runs to its end)
  bool reserve_full_sequence = false;           // KV for prompt + output reserved at admission
  double kernels_per_layer = 10;                // GPU kernels per block and step (fusion)
  // Kernels a mixture-of-experts block adds over a dense MLP's (router, routing, sorting and the
  // sum over the experts); 0 where the runtime's count is not sourced.
  double moe_extra_kernels_per_layer = 0;
  bool cuda_graphs = true;  // false: the host issues each kernel (eager PyTorch)
  // Host time per request in a step: a Python executor's bookkeeping (inputs, block tables,
  // sampled tokens) for each running request, overlapped with the GPU's step (the step takes the
  // longer of the two); 0 where a C++ executor keeps it negligible.
  double host_per_sequence_s = 0;
  // Hybrid models share one block pool: attention blocks widened until one holds a linear
  // layer's state, each group of linear layers a block per sequence (vLLM's hybrid pages).
  bool hybrid_pages = false;
  // A windowed layer's cache holds its window only (vLLM's hybrid KV cache manager); false: every
  // layer's cache is sized to the longest window of any layer (TensorRT-LLM's cyclic KV cache), so
  // windows save memory only where every layer is windowed.
  bool window_sized_kv = true;
  // Chunked local attention (Llama 4) applies in decode steps too; false: only in prefill, and a
  // decode step attends to, and the cache keeps, every token (TensorRT-LLM).
  bool chunked_attention_decode = true;
  double allreduce_latency_s = 10e-6;                   // one small tensor-parallel all-reduce
  std::vector<KvFormat> kv_formats = {KvFormat::bf16};  // KV-cache formats it stores
  // 4-bit float checkpoints (nvfp4, mxfp4) it runs weight-only, dequantised to 16 bits, on GPUs
  // without FP4 tensor cores.
  std::vector<WeightFormat> fp4_weight_only;
  // The GPUs of a replica each hold a contiguous share of the layers and run one after another
  // (llama.cpp's default split mode), instead of splitting every layer (tensor parallelism).
  bool layer_split = false;
};

// Serving constants and the runtime profiles.
struct ServingAssumptions {
  int64_t kv_block_tokens = 16;  // paged-attention block
  // Tensor parallelism over PCIe (no NVLink between the group's GPUs): the runtimes' custom
  // all-reduce kernels need NVLink, so NCCL's ring runs through the PCIe switches and the host.
  // Its bus bandwidth as a fraction of the PCIe x16 per-direction rate, for groups of 3-4 and of
  // 5-8 GPUs (two GPUs: the PCIe copy efficiency), and the latency of one small all-reduce.
  double pcie_allreduce_fraction_4 = 1;
  double pcie_allreduce_fraction_8 = 1;
  double pcie_allreduce_latency_s = 0;
  RuntimeProfile vllm, trtllm, sglang, hf, llamacpp;
  // ShareGPT's lengths as vLLM's benchmark samples them ("serving.sharegpt"), scales solved.
  LengthSampler sharegpt;
  const RuntimeProfile& profile(Runtime r) const;
};

// Reads the "serving" object of data/assumptions.json (its text); errors name the field.
Result<ServingAssumptions> parse_serving_assumptions(std::string_view assumptions_json,
                                                     const std::string& where);
// The serving assumptions of the embedded catalog files (data/assumptions.json among `files`).
Result<ServingAssumptions> serving_assumptions(const std::vector<DataFile>& files);

}  // namespace gpuplan
