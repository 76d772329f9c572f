// gpuplan estimate (--model ID | --hf-config FILE) [setup] [hardware] [run length] [--json]:
// one workload estimate; with --gpu or --instance also step time, and with a run length, cost.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli.h"

#include "gpuplan/accuracy.h"
#include "gpuplan/calibration.h"
#include "gpuplan/estimate.h"
#include "gpuplan/probe_file.h"
#include "gpuplan/signing.h"
#include "gpuplan/report.h"
#include "gpuplan/timing.h"

namespace gpuplan::cli {

namespace {

// "fits: 41.2 GB per GPU (38.9-43.6 GB as measured runs of its family went), h100-sxm5-80gb gives 79.6 GB"
std::string fit_line(const FitVerdict& f, const std::string& gpu_id) {
  return std::string(fit_name(f.fit)) + ": needs " + format_bytes(f.memory_bytes.value) + " per GPU (" +
         format_bytes(f.memory_bytes.low) + "-" + format_bytes(f.memory_bytes.high) + " within the measured error), " +
         gpu_id + " gives " + format_bytes(f.capacity_bytes);
}

std::string band_line(double step_s, const ErrorBand& band) {
  if (band.rows == 0) return "step time has no error band: no development runs of a similar family";
  const Range r = time_range_s(step_s, band);
  char line[256];
  std::snprintf(line, sizeof line, "step time %.4g s, likely %.4g-%.4g s (10th-90th percentile error of %d "
                "development runs, family %s)", r.value, r.low, r.high, band.rows, band.family.c_str());
  return line;
}

nlohmann::ordered_json fit_json(const FitVerdict& f) {
  return {{"verdict", fit_name(f.fit)}, {"needed_bytes", f.memory_bytes.value},
          {"needed_bytes_range", {f.memory_bytes.low, f.memory_bytes.high}}, {"capacity_bytes", f.capacity_bytes},
          {"margin_bytes", f.margin_bytes}};
}

nlohmann::ordered_json accuracy_json(const std::string& family, const ErrorBand& band, const Range& step) {
  return {{"family", family}, {"band_family", band.family}, {"rows", band.rows},
          {"error_p10", band.low}, {"error_p90", band.high}, {"mape", band.mape},
          {"step_s_range", {step.low, step.high}}};
}

}  // namespace

int cmd_estimate(Args args) {
  const bool json = take_flag(args, "json");
  const std::string gpu_id = take(args, "gpu");
  const std::string gpus_text = take(args, "gpus");
  const std::string instance_id = take(args, "instance");
  const std::string nodes_text = take(args, "nodes");
  const std::string probe_path = take(args, "probe");
  const std::string emit = take(args, "emit");
  auto run = take_run_options(args);
  if (!run.ok()) return fail(run.error());
  auto catalog = load_embedded_catalog();
  if (!catalog.ok()) return fail(catalog.error());
  const Catalog& cat = catalog.value();
  if (auto err = resolve_spot_bucket(run.value(), cat)) return fail(*err);
  auto workload = take_workload(args, cat);
  if (!workload.ok()) {
    return workload.error().message.find("is required") != std::string::npos ? usage_error("estimate: " + workload.error().message)
                                                                             : fail(workload.error());
  }
  Model& model = workload.value().model;
  Request& request = workload.value().request;

  // Hardware: an instance (its GPU and count), or a GPU and a count in one box.
  const Instance* instance = nullptr;
  const Gpu* gpu = nullptr;
  int nodes = 1;
  if (!nodes_text.empty()) {
    auto n = parse_int(nodes_text, "nodes");
    if (!n.ok()) return fail(n.error());
    if (n.value() < 1 || n.value() > 4096) return fail({Errc::invalid_argument, "--nodes must be between 1 and 4096"});
    nodes = static_cast<int>(n.value());
  }
  int gpus = 0;
  if (!instance_id.empty()) {
    instance = cat.find_instance(instance_id);
    if (!instance) return fail({Errc::not_found, "--instance: unknown instance '" + instance_id + "' (run 'gpuplan instances')"});
    gpu = cat.find_gpu(instance->gpu);
    if (!gpu_id.empty() && cat.find_gpu(gpu_id) != gpu) {
      return fail({Errc::invalid_argument, "--gpu " + gpu_id + " does not match instance '" + instance_id + "' (" + instance->gpu + ")"});
    }
    gpus = instance->gpu_count * nodes;
  } else if (!gpu_id.empty()) {
    gpu = cat.find_gpu(gpu_id);
    if (!gpu) {
      const std::string like = cat.similar_gpus(gpu_id);
      return fail({Errc::not_found, "--gpu: unknown GPU '" + gpu_id + "'" +
                                        (like.empty() ? " (run 'gpuplan gpus')" : "; did you mean one of: " + like)});
    }
    gpus = 1;
    if (!gpus_text.empty()) {
      auto n = parse_int(gpus_text, "gpus");
      if (!n.ok()) return fail(n.error());
      if (n.value() < 1 || n.value() > 4096) return fail({Errc::invalid_argument, "--gpus must be between 1 and 4096"});
      gpus = static_cast<int>(n.value());
    }
  } else if (!gpus_text.empty() || !nodes_text.empty() || !probe_path.empty()) {
    return usage_error("estimate: --gpus, --nodes and --probe need --gpu or --instance");
  }
  Setup& s = request.setup;
  if (gpu) {
    // Unless --dp is given, data parallelism fills the GPUs left by tensor and pipeline.
    bool dp_given = false;
    for (const auto& [k, v] : Args(args)) dp_given = dp_given || k == "dp";
    const int per_replica = s.tp * s.pp;
    if (!dp_given && s.dp == 1 && gpus % per_replica == 0) s.dp = gpus / per_replica;
    if (s.dp * per_replica != gpus) {
      return fail({Errc::invalid_argument, "--dp x --tp x --pp = " + std::to_string(s.dp * per_replica) +
                                               " does not equal the " + std::to_string(gpus) + " GPUs"});
    }
    if (s.global_batch == 0 && s.micro_batch == 0) s.global_batch = s.dp;
  }

  auto e = estimate(model, s);
  if (!e.ok()) return fail(e.error());
  if (!emit.empty()) return print_launch_config(emit, launch_inputs(model.id, s, e.value(), gpu ? gpus : s.dp, nodes));

  std::optional<StepTime> time;
  std::optional<StepTime> calibrated;
  std::optional<MeasuredComparison> measured_run;
  std::optional<PriceQuote> price;
  std::optional<RunCost> cost;
  std::optional<FitVerdict> fit;
  const std::string family = accuracy_family(model, s);
  const ErrorBand time_band = nearest_band(cat.accuracy.time, family);
  if (gpu) {
    auto cluster = instance ? instance_cluster(*instance, *gpu, nodes) : single_node_cluster(*gpu, gpus);
    if (!cluster.ok()) return fail(cluster.error());
    auto work = build_work_profile(model, s, e.value());
    if (!work.ok()) return fail(work.error());
    auto t = estimate_step_time(model, s, e.value(), work.value(), cluster.value(), cat.efficiencies, cat.input);
    if (!t.ok()) return fail(t.error());
    time = t.value();
    if (!probe_path.empty()) {
      // Calibrated beside spec-based: the probe's measured GEMM, HBM and all-reduce figures.
      std::string text, error;
      if (!read_file(probe_path, text, error, kMaxProbeFileBytes)) return fail({Errc::invalid_argument, error});
      auto f = signing::read_probe_file(text, {});
      if (!f.ok()) return fail({f.error().code, probe_path + ": " + f.error().message});
      if (f.value().signature == ProbeSignature::invalid) {
        return fail({Errc::signature_invalid, probe_path + ": signature invalid: " + f.value().reason});
      }
      // A measured model run (gpuplan-measure) is shown beside the prediction; a probe file calibrates.
      if (f.value().measured) measured_run = compare_measured(*f.value().measured, *time, *gpu, e.value().global_batch, gpus);
      if (f.value().measured && f.value().signature == ProbeSignature::unsigned_file) measured_run->notes.push_back("the file is unsigned");
      if (f.value().payload) {
        const Calibrated cal = calibrate(cat.efficiencies, f.value().payload->summary, *gpu, s.precision);
        if (!cal.gpu_matches) return fail({Errc::invalid_argument, probe_path + ": " + cal.notes.front()});
        auto tc = estimate_step_time(model, s, e.value(), work.value(), cluster.value(), cal.efficiencies, cat.input);
        if (!tc.ok()) return fail(tc.error());
        calibrated = tc.value();
        calibrated->notes.insert(calibrated->notes.begin(), cal.notes.begin(), cal.notes.end());
        if (f.value().payload->simulated) calibrated->notes.push_back("the probe file is SIMULATED (not measured)");
        if (f.value().signature == ProbeSignature::unsigned_file) calibrated->notes.push_back("the probe file is unsigned");
      }
    }
    fit = fit_verdict(e.value().memory.total(), gpu->memory_bytes, nearest_band(cat.accuracy.memory, family));
    time->notes.insert(time->notes.begin(), fit_line(*fit, gpu->id));
    time->notes.insert(time->notes.begin() + 1, band_line(time->step_s, time_band));
    if (instance) {
      auto q = quote_price(*instance, run.value().pricing, cat.pricing, run.value().region);
      if (!q.ok()) return fail(q.error());
      price = q.value();
      if (!run.value().run.empty()) {
        auto c = run_cost(e.value(), *time, run.value().run, price->usd_per_hour * nodes, run.value().pricing,
                          run.value().spot, run.value().commitment);
        if (!c.ok()) return fail(c.error());
        cost = c.value();
      }
    } else if (!run.value().run.empty()) {
      // No instance: time to train without a price.
      auto c = run_cost(e.value(), *time, run.value().run, 0, run.value().pricing, run.value().spot);
      if (!c.ok()) return fail(c.error());
      cost = c.value();
    }
  }
  if (!args.empty()) {
    // parse_request consumed known keys already; anything else was rejected there.
  }
  // Published runs measured under this setup (data/published), shown beside the prediction.
  const auto published = gpu ? published_beside(cat, model, *gpu, s, e.value(), time ? &*time : nullptr)
                             : std::vector<PublishedComparison>{};
  if (json) {
    auto j = nlohmann::ordered_json::parse(estimate_to_json(model, request, e.value()));
    if (gpu) {
      j["gpu"] = gpu->id;
      if (instance) j["instance"] = instance->id;
      j["fits"] = e.value().memory.total() <= gpu->memory_bytes;
      j["gpu_memory_bytes"] = gpu->memory_bytes;
    }
    if (fit) j["fit"] = fit_json(*fit);
    if (time) j["time"] = nlohmann::ordered_json::parse(step_time_to_json(*time));
    if (time) j["accuracy"] = accuracy_json(family, time_band, time_range_s(time->step_s, time_band));
    if (calibrated) j["time_calibrated"] = nlohmann::ordered_json::parse(step_time_to_json(*calibrated));
    if (measured_run) j["measured_run"] = nlohmann::ordered_json::parse(measured_comparison_to_json(*measured_run));
    if (gpu) j["published"] = nlohmann::ordered_json::array();
    for (const auto& c : published) j["published"].push_back(nlohmann::ordered_json::parse(published_comparison_json(c)));
    if (price) {
      j["cost"] = nlohmann::ordered_json::parse(run_cost_to_json(*price, cost ? &*cost : nullptr, nodes));
      if (auto rate = usd_per_currency_unit(run.value().currency, *price, cat.pricing); rate.ok() && cost) {
        j["cost"]["shown_currency"] = run.value().currency;
        j["cost"]["total_in_shown_currency"] = cost->usd_total / rate.value();
      }
    } else if (cost) {
      j["cost"] = {{"steps", cost->steps}, {"hours", cost->hours}, {"expected_hours", cost->expected_hours}};
    }
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s", estimate_to_text(model, e.value()).c_str());
    if (time) std::printf("%s", time_to_text(*time, price ? &*price : nullptr, cost ? &*cost : nullptr).c_str());
    if (price) print_price_lines(*price, cost ? &*cost : nullptr, run.value().currency, cat.pricing);
    if (calibrated) std::printf("Calibrated with %s\n%s", probe_path.c_str(), time_to_text(*calibrated, nullptr, nullptr).c_str());
    if (measured_run) std::printf("Measured with %s\n%s", probe_path.c_str(), measured_comparison_to_text(*measured_run).c_str());
    for (const auto& c : published) std::printf("%s\n", published_line(c).c_str());
  }
  return 0;
}

}  // namespace gpuplan::cli
