// gpuplan estimate (--model ID | --hf-config FILE) [setup] [--json]: one workload estimate.
#include <cstdio>

#include "cli.h"
#include "gpuplan/estimate.h"
#include "gpuplan/hf_config.h"
#include "gpuplan/report.h"

namespace gpuplan::cli {

int cmd_estimate(Args args) {
  const bool json = take_flag(args, "json");
  const std::string hf_path = take(args, "hf-config");
  auto request = parse_request(args);
  if (!request.ok()) return fail(request.error());
  Model model;
  if (!hf_path.empty()) {
    if (!request.value().model.empty()) return usage_error("estimate: give --model or --hf-config, not both");
    std::string text, error;
    if (!read_file(hf_path, text, error, kMaxJsonBytes)) return fail({Errc::invalid_argument, error});
    auto m = model_from_hf_config(text, hf_path);
    if (!m.ok()) return fail(m.error());
    model = std::move(m).value();
    request.value().model = model.id;
  } else {
    if (request.value().model.empty()) return usage_error("estimate: --model ID or --hf-config FILE is required");
    auto catalog = load_embedded_catalog();
    if (!catalog.ok()) return fail(catalog.error());
    const Model* m = catalog.value().find_model(request.value().model);
    if (!m) {
      return fail({Errc::not_found, "--model: unknown model '" + request.value().model +
                                        "' (run 'gpuplan models' for the list)"});
    }
    model = *m;
  }
  auto e = estimate(model, request.value().setup);
  if (!e.ok()) return fail(e.error());
  if (json) {
    std::printf("%s\n", estimate_to_json(model, request.value(), e.value()).c_str());
  } else {
    std::printf("%s", estimate_to_text(model, e.value()).c_str());
  }
  return 0;
}

}  // namespace gpuplan::cli
