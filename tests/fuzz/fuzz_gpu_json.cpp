// GPU catalog files (data/gpus/*.json): parse_gpu_json. A GPU that parses has positive, finite
// figures, and a small model gets a finite step time on it (1, 2 and 8 of them in one box).
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"

using namespace gpuplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto g = parse_gpu_json(text, "gpus/fuzz.json");
  if (!g.ok()) {
    fuzz::check_error(g.error());
    return 0;
  }
  const Gpu& gpu = g.value();
  FUZZ_CHECK(gpu.memory_bytes > 0 && std::isfinite(gpu.memory_bytes));
  FUZZ_CHECK(gpu.memory_bandwidth_bytes_per_s > 0 &&
             std::isfinite(gpu.memory_bandwidth_bytes_per_s));
  for (const auto* peaks : {&gpu.peak_dense_flops_per_s, &gpu.peak_sparse_flops_per_s}) {
    for (const auto& [name, flops] : *peaks) FUZZ_CHECK(flops > 0 && std::isfinite(flops));
  }
  FUZZ_CHECK(fuzz::finite_nonneg(gpu.tdp_w) &&
             fuzz::finite_nonneg(gpu.nvlink_bandwidth_bytes_per_s));
  const Model* model = fuzz::catalog().find_model("gpt2-small");
  FUZZ_CHECK(model);
  for (Precision p : {Precision::fp32, Precision::amp_bf16, Precision::fp8}) {
    Setup s;
    s.precision = p;
    s.global_batch = 8;
    for (int gpus : {1, 2, 8}) {
      s.dp = gpus;
      fuzz::exercise(*model, s, &gpu, gpus);
    }
  }
  return 0;
}
