// Model descriptions (data/models/*.json, custom uploads): parse_model_json, then the estimate of
// the parsed model at its defaults (transformers and layer graphs) on an A100.
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"

using namespace gpuplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto m = parse_model_json(text, "models/fuzz.json");
  if (!m.ok()) {
    fuzz::check_error(m.error());
    return 0;
  }
  const Model& model = m.value();
  const Gpu* a100 = fuzz::catalog().find_gpu("a100-sxm4-80gb");
  Setup train;
  train.precision = Precision::amp_fp16;
  train.global_batch = 2;
  fuzz::exercise(model, train, a100);
  Setup infer;
  infer.mode = Mode::infer;
  infer.precision = Precision::fp16;
  fuzz::exercise(model, infer, a100);
  return 0;
}
