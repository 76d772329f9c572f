// gpuplan estimate (--model ID | --hf-config FILE) [setup] [hardware] [run length] [--probe FILE]
// [--emit torchrun|accelerate|deepspeed|megatron] [--currency usd|cny] [--json]: one workload
// estimate; with --gpu or --instance also step time, and with a run length, cost. A thin face over
// evaluate(): it reads files and prints; beside the evaluation it shows what evaluate() matched:
// published runs of the same setup and a measured run of the user's own model (--probe FILE).
#include <cstdio>

#include "cli.h"
#include "gpuplan/evaluate.h"
#include "gpuplan/embedded_data.h"
#include "gpuplan/report.h"
#include "gpuplan/serve_assumptions.h"

namespace gpuplan::cli {
namespace {

void print_text(const Catalog& cat, const Evaluation& e, const std::string& probe_path) {
  std::printf("%s", evaluation_to_text(e).c_str());
  if (e.price)
    print_price_lines(*e.price, e.cost ? &*e.cost : nullptr, e.query.currency, cat.pricing);
  if (e.measured_run) {
    std::printf("Measured with %s\n%s", probe_path.c_str(),
                measured_comparison_to_text(*e.measured_run).c_str());
  }
  for (const auto& c : e.published) std::printf("%s\n", published_line(c).c_str());
}

}  // namespace

int cmd_estimate(Args args) {
  const bool json = take_flag(args, "json");
  const std::string probe_path = take(args, "probe");
  const std::string emit = take(args, "emit");
  auto query = take_query(args);
  if (!query.ok()) return fail(query.error());
  Query& q = query.value();
  std::optional<ProbeInput> probe;
  if (!probe_path.empty()) {
    if (q.gpu.empty() && q.instance.empty())
      return usage_error("estimate: --probe needs --gpu or --instance");
    auto read = read_probe_input(probe_path);
    if (!read.ok()) return fail(read.error());
    probe = std::move(read).value();
    q.probe = probe->calibration;
    q.measured = probe->measured;
  }
  auto catalog = load_embedded_catalog();
  if (!catalog.ok()) return fail(catalog.error());
  const Catalog& cat = catalog.value();
  // A generation is timed by the serving runtimes' profiles, as gpuplan serve times it.
  auto serving = serving_assumptions(embedded_data_files());
  if (!serving.ok()) return fail(serving.error());
  q.serving = &serving.value();
  auto ev = evaluate(cat, q);
  if (!ev.ok()) {
    const bool missing = ev.error().message.find("is required") != std::string::npos;
    return missing ? usage_error("estimate: " + ev.error().message) : fail(ev.error());
  }
  const Evaluation& e = ev.value();
  if (e.hardware_error) return fail(*e.hardware_error);
  if (q.probe && !e.probe_gpu_matches) {
    return fail(
        make_error(Errc::invalid_argument, probe_path + ": " + e.calibration_notes.front()));
  }
  if (!emit.empty()) {
    return print_launch_config(
        emit, launch_inputs(e.model, e.query.request.setup, e.estimate,
                            e.gpu ? e.gpus : e.query.request.setup.dp, e.query.nodes));
  }
  if (json)
    std::printf("%s\n", evaluation_report_json(e, cat.pricing).c_str());
  else
    print_text(cat, e, probe_path);
  return 0;
}

}  // namespace gpuplan::cli
