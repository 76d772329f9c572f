#pragma once
// The data/gpus catalog as the probe needs it: spec figures for SimulatedDevice, and aliases to
// name the catalog entry a real device matches. Read from the catalog embedded in the binary.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/catalog.h"

namespace gpuplan::probe {

// One data/gpus/<id>.json entry, spec values only (units as in the file's key names).
struct CatalogGpu {
  std::string id, name;
  std::vector<std::string> aliases;
  int64_t memory_bytes = 0;
  std::optional<double> memory_bandwidth_gb_per_s, nvlink_bandwidth_gb_per_s;
  std::map<std::string, double> peak_dense_tflops;  // "fp64", "fp32", ... as listed
  std::optional<int> pcie_gen;
  std::optional<std::string> compute_capability;  // "9.0"
  std::string interconnect;                       // "nvlink4", "pcie", ... or empty
};

// Reads every gpus/*.json of `files`; entries that lack an id or memory are skipped.
std::vector<CatalogGpu> load_catalog_gpus(const std::vector<DataFile>& files);

// The entry with this id, or nullptr.
const CatalogGpu* find_catalog_gpu(const std::vector<CatalogGpu>& gpus, std::string_view id);

// The id whose name, id or alias equals `device_name` (case and spacing ignored), if any.
std::optional<std::string> match_catalog_gpu(const std::vector<CatalogGpu>& gpus,
                                             std::string_view device_name);

}  // namespace gpuplan::probe
