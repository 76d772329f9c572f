// Reading data/gpus entries for the probe (the full validation lives in the catalog tests).
#include "gpu_catalog.h"

#include <cctype>

#include <nlohmann/json.hpp>

namespace gpuplan::probe {
namespace {

std::string normalise(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += char(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

template <class T>
std::optional<T> spec_value(const nlohmann::json& specs, const char* key) {
  auto it = specs.find(key);
  if (it == specs.end() || !it->is_object() || !it->contains("value")) return std::nullopt;
  const auto& v = (*it)["value"];
  if constexpr (std::is_same_v<T, std::string>) {
    if (v.is_string()) return v.get<std::string>();
  } else {
    if (v.is_number()) return v.get<T>();
  }
  return std::nullopt;
}

}  // namespace

std::vector<CatalogGpu> load_catalog_gpus(const std::vector<DataFile>& files) {
  std::vector<CatalogGpu> out;
  for (const auto& f : files) {
    if (f.path.rfind("gpus/", 0) != 0) continue;
    const auto j = nlohmann::json::parse(f.text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object() || !j.contains("id") || !j.contains("specs")) continue;
    const auto& specs = j["specs"];
    CatalogGpu g;
    g.id = j.value("id", "");
    g.name = j.value("name", "");
    if (j.contains("aliases") && j["aliases"].is_array()) {
      for (const auto& a : j["aliases"]) {
        if (a.is_string()) g.aliases.push_back(a.get<std::string>());
      }
    }
    g.memory_bytes = spec_value<int64_t>(specs, "memory_bytes").value_or(0);
    g.memory_bandwidth_gb_per_s = spec_value<double>(specs, "memory_bandwidth_gb_per_s");
    g.nvlink_bandwidth_gb_per_s = spec_value<double>(specs, "nvlink_bandwidth_gb_per_s");
    g.pcie_gen = spec_value<int>(specs, "pcie_gen");
    g.compute_capability = spec_value<std::string>(specs, "compute_capability");
    g.interconnect = spec_value<std::string>(specs, "interconnect").value_or("");
    if (specs.contains("peak_dense_tflops") && specs["peak_dense_tflops"].is_object()) {
      for (const auto& [k, v] : specs["peak_dense_tflops"].items()) {
        if (v.is_object() && v.contains("value") && v["value"].is_number())
          g.peak_dense_tflops[k] = v["value"].get<double>();
      }
    }
    if (g.id.empty() || g.memory_bytes <= 0) continue;
    out.push_back(std::move(g));
  }
  return out;
}

const CatalogGpu* find_catalog_gpu(const std::vector<CatalogGpu>& gpus, std::string_view id) {
  for (const auto& g : gpus) {
    if (g.id == id) return &g;
  }
  return nullptr;
}

std::optional<std::string> match_catalog_gpu(const std::vector<CatalogGpu>& gpus,
                                             std::string_view device_name) {
  const std::string want = normalise(device_name);
  if (want.empty()) return std::nullopt;
  for (const auto& g : gpus) {
    if (normalise(g.id) == want || normalise(g.name) == want) return g.id;
    for (const auto& a : g.aliases) {
      if (normalise(a) == want) return g.id;
    }
  }
  return std::nullopt;
}

}  // namespace gpuplan::probe
