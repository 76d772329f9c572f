// Payload JSON: provenance first, then devices, results and the summary.
#include "report.h"

#include <algorithm>

#ifndef GPUPLAN_PROBE_VERSION
#define GPUPLAN_PROBE_VERSION "0.0.0"
#endif
#ifndef GPUPLAN_GIT_REVISION
#define GPUPLAN_GIT_REVISION "unknown"
#endif

namespace gpuplan::probe {
namespace {

using ojson = nlohmann::ordered_json;

template <class T>
ojson opt(const std::optional<T>& v) {
  return v ? ojson(*v) : ojson(nullptr);
}

ojson sample_json(const ClockSample& s) {
  return {{"sm_mhz", opt(s.sm_mhz)},
          {"mem_mhz", opt(s.mem_mhz)},
          {"temperature_c", opt(s.temperature_c)},
          {"power_w", opt(s.power_w)},
          {"throttle_reasons", s.throttle_reasons}};
}

ojson clocks_json(const ClockWindow& w) {
  ojson before = ojson::array(), after = ojson::array(), during = ojson::array();
  for (const auto& s : w.before) before.push_back(sample_json(s));
  for (const auto& s : w.after) after.push_back(sample_json(s));
  for (const auto& d : w.during) {
    during.push_back({{"samples", d.samples},
                      {"sm_mhz_min", opt(d.sm_mhz_min)},
                      {"sm_mhz_max", opt(d.sm_mhz_max)},
                      {"temperature_c_max", opt(d.temperature_c_max)},
                      {"power_w_max", opt(d.power_w_max)},
                      {"throttle_reasons", d.throttle_reasons}});
  }
  return {{"gpus", w.gpus}, {"before", before}, {"during", during}, {"after", after}};
}

ojson row_json(const Row& r) {
  ojson j;
  j["case"] = r.case_name;
  j["gpu"] = opt(r.gpu);
  j["node"] = 0;  // one node; cluster/merge.cpp renumbers
  j["status"] = status_name(r.status);
  j["reason"] = r.reason.empty() ? ojson(nullptr) : ojson(r.reason);
  j["params"] = r.params;
  j["unit"] = r.unit.empty() ? ojson(nullptr) : ojson(r.unit);
  j["median"] = r.stats ? ojson(r.stats->median) : ojson(nullptr);
  j["min"] = r.stats ? ojson(r.stats->min) : ojson(nullptr);
  j["max"] = r.stats ? ojson(r.stats->max) : ojson(nullptr);
  j["n"] = r.stats ? r.stats->n : 0;
  j["clocks"] = r.clocks ? clocks_json(*r.clocks) : ojson(nullptr);
  if (r.error) {
    j["error"] = {{"kind", failure_kind_name(r.error->kind)},
                  {"name", r.error->name},
                  {"expression", r.error->expression},
                  {"location", r.error->location},
                  {"message", r.error->message}};
  } else {
    j["error"] = nullptr;
  }
  return j;
}

ojson gpu_json(const GpuInfo& g, const std::optional<std::string>& catalog_id) {
  return {{"index", g.index},
          {"node", 0},
          {"node_index", g.index},
          {"name", g.name},
          {"catalog_gpu_id", opt(catalog_id)},
          {"uuid", g.uuid},
          {"pci_bus_id", g.pci_bus_id},
          {"compute_capability", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)},
          {"architecture", architecture_name(g.cc_major, g.cc_minor)},
          {"sm_count", opt(g.sm_count)},
          {"memory_bytes", g.memory_bytes},
          {"memory_bus_width_bits", opt(g.memory_bus_width_bits)},
          {"max_sm_clock_mhz", opt(g.max_sm_clock_mhz)},
          {"max_mem_clock_mhz", opt(g.max_mem_clock_mhz)},
          {"pcie_gen_max", opt(g.pcie_gen_max)},
          {"pcie_width_max", opt(g.pcie_width_max)},
          {"pcie_gen_current", opt(g.pcie_gen_current)},
          {"pcie_width_current", opt(g.pcie_width_current)},
          {"power_limit_w", opt(g.power_limit_w)},
          {"mig", opt(g.mig)},
          {"ecc", opt(g.ecc)}};
}

// Best passed median of `case_name` on GPU `index` (several rows: GEMM sweeps keep one).
std::optional<double> best_on(const ojson& results, const std::string& case_name, int64_t index) {
  std::optional<double> best;
  for (const auto& r : results) {
    if (r["case"] == case_name && r["gpu"].is_number_integer() &&
        r["gpu"].get<int64_t>() == index && r["status"] == "passed" && r["median"].is_number()) {
      best = std::max(best.value_or(0.0), r["median"].get<double>());
    }
  }
  return best;
}

// Minimum over GPUs of each GPU's best median; nullopt when no GPU measured it.
std::optional<double> slowest_of(const ojson& gpus, const ojson& results,
                                 const std::string& case_name) {
  std::optional<double> low;
  for (const auto& g : gpus) {
    if (auto v = best_on(results, case_name, g["index"].get<int64_t>()))
      low = std::min(low.value_or(*v), *v);
  }
  return low;
}

}  // namespace

nlohmann::ordered_json summary_of(const nlohmann::ordered_json& gpus,
                                  const nlohmann::ordered_json& results, int64_t node_count) {
  int64_t slowest = gpus.empty() ? 0 : gpus.front()["index"].get<int64_t>();
  for (const char* primary : {"gemm_bf16", "gemm_fp16", "gemm_fp32", "hbm_copy"}) {
    std::optional<double> low;
    for (const auto& g : gpus) {
      auto v = best_on(results, primary, g["index"].get<int64_t>());
      if (v && (!low || *v < *low)) {
        low = v;
        slowest = g["index"].get<int64_t>();
      }
    }
    if (low) break;
  }
  std::optional<double> p2p;
  std::optional<std::pair<int64_t, double>> allreduce;  // (bytes, busbw) at the largest size
  for (const auto& r : results) {
    if (r["status"] != "passed" || !r["median"].is_number()) continue;
    const double median = r["median"].get<double>();
    if (r["case"] == "p2p_copy") p2p = std::min(p2p.value_or(median), median);
    if (r["case"] == "nccl_allreduce") {
      const int64_t bytes = r["params"].value("bytes", int64_t(0));
      if (!allreduce || bytes > allreduce->first) allreduce = std::make_pair(bytes, median);
    }
  }
  int64_t memory = 0;
  const ojson* sg = nullptr;
  for (const auto& g : gpus) {
    const int64_t m = g["memory_bytes"].get<int64_t>();
    memory = memory == 0 ? m : std::min(memory, m);
    if (g["index"].get<int64_t>() == slowest) sg = &g;
  }
  ojson gemm;
  ojson recipes = ojson::array();  // the low-precision recipes whose GEMM was measured
  for (Precision p : kPrecisions) {
    const auto rate = slowest_of(gpus, results, std::string("gemm_") + precision_name(p));
    gemm[precision_name(p)] = opt(rate);
    if (rate && (p == Precision::fp8 || block_scaled(p))) recipes.push_back(precision_name(p));
  }
  ojson s;
  s["gpu_name"] = sg ? (*sg)["name"] : ojson("");
  s["catalog_gpu_id"] = sg ? (*sg)["catalog_gpu_id"] : ojson(nullptr);
  s["gpu_count"] = int64_t(gpus.size());
  s["node_count"] = node_count;
  s["slowest_gpu"] = slowest;
  s["gemm_flop_per_s"] = gemm;
  s["gemm_recipes_measured"] = recipes;
  s["hbm_copy_bytes_per_s"] = opt(slowest_of(gpus, results, "hbm_copy"));
  s["hbm_triad_bytes_per_s"] = opt(slowest_of(gpus, results, "hbm_triad"));
  s["h2d_pinned_bytes_per_s"] = opt(slowest_of(gpus, results, "h2d_pinned"));
  s["d2h_pinned_bytes_per_s"] = opt(slowest_of(gpus, results, "d2h_pinned"));
  s["p2p_bytes_per_s"] = opt(p2p);
  s["allreduce_busbw_bytes_per_s"] = allreduce ? ojson(allreduce->second) : ojson(nullptr);
  s["memory_bytes"] = memory;
  return s;
}

std::string build_payload(const ReportInput& in) {
  ojson j;
  j["schema_version"] = 1;
  j["kind"] = "gpuplan-probe";
  j["tool"] = {{"name", "gpuplan-probe"},
               {"version", GPUPLAN_PROBE_VERSION},
               {"git_revision", GPUPLAN_GIT_REVISION}};
  j["simulated"] = in.simulated;
  j["started_utc"] = in.started_utc;
  j["finished_utc"] = in.finished_utc;
  j["arguments"] = in.arguments;
  ojson env = ojson::object();
  for (const auto& [k, v] : in.environment) env[k] = v;
  j["environment"] = env;
  ojson cloud = nullptr;
  if (in.cloud) {
    cloud = {{"provider", in.cloud->provider},
             {"instance_type", opt(in.cloud->instance_type)},
             {"region", opt(in.cloud->region)}};
  }
  j["host"] = {{"hostname", in.host.hostname},         {"os", in.host.os},
               {"cpu_model", in.host.cpu_model},       {"cpus", in.host.cpus},
               {"memory_bytes", in.host.memory_bytes}, {"cloud", cloud}};
  const SoftwareInfo& sw = in.software;
  j["software"] = {{"driver_version", opt(sw.driver_version)},
                   {"cuda_driver", opt(sw.cuda_driver)},
                   {"cuda_runtime", opt(sw.cuda_runtime)},
                   {"cublas", opt(sw.cublas)},
                   {"nccl", opt(sw.nccl)}};
  // One entry per node; a multi-node file (cluster/merge.cpp) lists every node's host.
  j["nodes"] = ojson::array({{{"node", 0},
                              {"first_gpu", 0},
                              {"gpu_count", int64_t(in.gpus.size())},
                              {"host", j["host"]},
                              {"software", j["software"]}}});
  ojson gpus = ojson::array();
  for (size_t i = 0; i < in.gpus.size(); ++i) {
    gpus.push_back(
        gpu_json(in.gpus[i], i < in.catalog_ids.size() ? in.catalog_ids[i] : std::nullopt));
  }
  j["gpus"] = gpus;
  j["topology"] = {{"peer_access", in.peer_access}};
  ojson results = ojson::array();
  for (const auto& r : in.run.rows) results.push_back(row_json(r));
  j["results"] = results;
  j["warnings"] = in.run.warnings;
  j["summary"] = summary_of(j["gpus"], j["results"], 1);
  return j.dump(2) + "\n";
}

}  // namespace gpuplan::probe
