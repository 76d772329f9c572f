// data/assumptions.json: parse_assumptions_json. Whatever it accepts keeps step times finite and
// positive for a transformer and a CNN on one and eight GPUs.
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"

using namespace gpuplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Only the assumption fields are written; models and GPUs come from the bundled catalog.
  Catalog cat;
  if (auto err = parse_assumptions_json(text, "assumptions.json", cat)) {
    fuzz::check_error(*err);
    return 0;
  }
  // load_catalog refuses a file that leaves an efficiency unset (there is no other source).
  if (auto err = check_efficiencies(cat.efficiencies, "assumptions.json")) {
    fuzz::check_error(*err);
    return 0;
  }
  const Efficiencies& eff = cat.efficiencies;
  for (double v : {eff.gemm, eff.hbm, eff.nvlink, eff.pcie, eff.network})
    FUZZ_CHECK(v > 0 && std::isfinite(v));
  FUZZ_CHECK(fuzz::finite_nonneg(cat.restart_s));
  const Gpu* gpu = fuzz::catalog().find_gpu("h100-sxm5-80gb");
  for (const char* id : {"gpt2-small", "resnet50"}) {
    const Model* model = fuzz::catalog().find_model(id);
    FUZZ_CHECK(model);
    for (int gpus : {1, 8}) {
      Setup s;
      s.precision = Precision::amp_bf16;
      s.dp = gpus;
      s.global_batch = 8 * gpus;
      auto e = estimate(*model, s);
      FUZZ_CHECK(e.ok());
      auto work = build_work_profile(*model, s, e.value());
      FUZZ_CHECK(work.ok());
      auto cluster = single_node_cluster(*gpu, gpus);
      FUZZ_CHECK(cluster.ok());
      auto t =
          estimate_step_time(*model, s, e.value(), work.value(), cluster.value(), eff, cat.input);
      FUZZ_CHECK(t.ok());
      fuzz::check_step_time(t.value());
    }
  }
  return 0;
}
