// gpuplan estimate (--model ID | --hf-config FILE) [setup] [hardware] [run length] [--probe FILE]
// [--json]: one workload estimate; with --gpu or --instance also step time, and with a run length,
// cost. A thin face over evaluate(): it reads files and prints, the core decides everything else.
#include <cstdio>

#include "cli.h"
#include "gpuplan/evaluate.h"
#include "gpuplan/report.h"

namespace gpuplan::cli {

int cmd_estimate(Args args) {
  const bool json = take_flag(args, "json");
  const std::string probe_path = take(args, "probe");
  auto query = take_query(args);
  if (!query.ok()) return fail(query.error());
  Query& q = query.value();
  if (!probe_path.empty()) {
    if (q.gpu.empty() && q.instance.empty())
      return usage_error("estimate: --probe needs --gpu or --instance");
    auto probe = read_probe_calibration(probe_path);
    if (!probe.ok()) return fail(probe.error());
    q.probe = std::move(probe).value();
  }
  auto catalog = load_embedded_catalog();
  if (!catalog.ok()) return fail(catalog.error());
  auto ev = evaluate(catalog.value(), q);
  if (!ev.ok()) {
    const bool missing = ev.error().message.find("is required") != std::string::npos;
    return missing ? usage_error("estimate: " + ev.error().message) : fail(ev.error());
  }
  const Evaluation& e = ev.value();
  if (e.hardware_error) return fail(*e.hardware_error);
  if (q.probe && !e.probe_gpu_matches) {
    return fail({Errc::invalid_argument, probe_path + ": " + e.calibration_notes.front()});
  }
  std::printf("%s", json ? (evaluation_to_json(e) + "\n").c_str() : evaluation_to_text(e).c_str());
  return 0;
}

}  // namespace gpuplan::cli
