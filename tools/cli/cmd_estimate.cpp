// gpuplan estimate (--model ID | --hf-config FILE) [setup] [hardware] [run length] [--probe FILE]
// [--emit torchrun|accelerate|deepspeed] [--currency usd|cny] [--json]: one workload estimate;
// with --gpu or --instance also step time, and with a run length, cost. A thin face over
// evaluate(): it reads files and prints; beside the evaluation it shows what evaluate() matched:
// published runs of the same setup and a measured run of the user's own model (--probe FILE).
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "gpuplan/evaluate.h"
#include "gpuplan/report.h"

namespace gpuplan::cli {
namespace {

void print_json(const Catalog& cat, const Evaluation& e) {
  auto j = nlohmann::ordered_json::parse(evaluation_to_json(e));
  if (e.measured_run)
    j["measured_run"] = nlohmann::ordered_json::parse(measured_comparison_to_json(*e.measured_run));
  if (e.gpu) j["published"] = nlohmann::ordered_json::array();
  for (const auto& c : e.published)
    j["published"].push_back(nlohmann::ordered_json::parse(published_comparison_json(c)));
  if (e.price && e.cost && j.contains("cost")) {
    if (auto rate = usd_per_currency_unit(e.query.currency, *e.price, cat.pricing); rate.ok()) {
      j["cost"]["shown_currency"] = e.query.currency;
      j["cost"]["total_in_shown_currency"] = e.cost->usd_total / rate.value();
    }
  }
  std::printf("%s\n", j.dump(2).c_str());
}

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
        emit, launch_inputs(e.model.id, e.query.request.setup, e.estimate,
                            e.gpu ? e.gpus : e.query.request.setup.dp, e.query.nodes));
  }
  if (json)
    print_json(cat, e);
  else
    print_text(cat, e, probe_path);
  return 0;
}

}  // namespace gpuplan::cli
