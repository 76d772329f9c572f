// Hugging Face config.json uploads: model_from_hf_config, then the estimate of what it describes
// (training and inference at the model's defaults) on an H100.
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"
#include "gpuplan/hf_config.h"

using namespace gpuplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto m = model_from_hf_config(text, "config.json");
  if (!m.ok()) {
    fuzz::check_error(m.error());
    return 0;
  }
  const Model& model = m.value();
  FUZZ_CHECK(model.kind == ModelKind::transformer);
  FUZZ_CHECK(!validate_transformer(model.transformer, "config.json"));
  const Gpu* h100 = fuzz::catalog().find_gpu("h100-sxm5-80gb");
  Setup train;
  train.precision = Precision::amp_bf16;
  fuzz::exercise(model, train, h100);
  Setup infer;
  infer.mode = Mode::infer;
  infer.precision = Precision::bf16;
  infer.generate_tokens = 16;
  fuzz::exercise(model, infer, h100);
  return 0;
}
