#pragma once
// Hardware and price catalogs: GPUs, cloud instances, providers and their regions, and the
// pricing rules (assumptions a user can change). Values are in base units (bytes, FLOP/s,
// bytes/s, USD per hour); each fact keeps the title and date of its source for display.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuplan {

// Where a fact comes from: the catalog file's source entry.
struct FactSource {
  std::string title;
  std::string url;   // may be empty
  std::string date;  // YYYY-MM-DD
};

// One accelerator model.
struct Gpu {
  std::string id;    // file name in data/gpus, e.g. "a100-sxm4-80gb"
  std::string name;  // "NVIDIA A100 SXM4 80GB"
  std::string vendor;
  std::string architecture;
  std::vector<std::string> aliases;  // names nvidia-smi and clouds print
  double memory_bytes = 0;
  double memory_bandwidth_bytes_per_s = 0;
  // Dense peak by precision name ("fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8");
  // absent means unsupported or unknown. Sparse figures are kept apart and never used for time.
  std::map<std::string, double> peak_dense_flops_per_s;
  std::map<std::string, double> peak_sparse_flops_per_s;
  // The best dense GEMM throughput measured on this GPU by precision (best shape, a hardware
  // ceiling, e.g. stas00/ml-engineering's "Maximum Achievable Matmul FLOPS"); absent: unknown.
  std::map<std::string, double> matmul_max_achievable_flops_per_s;
  int sm_count = 0;                        // streaming multiprocessors; 0: unknown
  double tdp_w = 0;                        // 0: unknown
  std::string compute_capability;          // "8.0"; empty: unknown
  std::string interconnect;                // "pcie", "nvlink3", ..., "none"; empty: unknown
  double nvlink_bandwidth_bytes_per_s = 0; // bidirectional total per GPU; 0: none/unknown
  int pcie_gen = 0;                        // 0: unknown
  std::map<std::string, FactSource> fact_sources;  // spec name -> its source
};

// One price of an instance in one region, per instance-hour. Absent: not published.
struct Price {
  std::string region;
  std::string date;
  FactSource source;
  std::optional<double> on_demand_usd_per_hour;
  std::optional<double> reserved_1y_usd_per_hour;
  std::optional<double> reserved_3y_usd_per_hour;
  std::optional<double> spot_usd_per_hour;
};

// One cloud instance type.
struct Instance {
  std::string id;        // "aws-p4d.24xlarge"
  std::string provider;  // provider id
  std::string instance_type;
  std::string gpu;       // Gpu id
  int gpu_count = 0;
  int vcpus = 0;                       // 0: unknown
  double ram_bytes = 0;                // 0: unknown
  std::string gpu_interconnect;        // "nvswitch", "nvlink", "pcie"; empty: unknown
  double network_bytes_per_s = 0;      // between instances; 0: unknown
  std::vector<Price> prices;
};

// A provider's region and the compliance facts known for it (absent: unknown).
struct Region {
  std::string id;
  std::string name;
  std::string country;
  std::optional<bool> hipaa;    // HIPAA-eligible (a BAA is available)
  std::optional<bool> gdpr_eu;  // located in the EU/EEA
  std::optional<bool> gov;      // a government-cloud region
};

struct Provider {
  std::string id;
  std::string name;
  std::vector<Region> regions;
  const Region* find_region(const std::string& id) const;
};

// The seed guide's discounts, as fractions off the on-demand price. Assumptions, not facts:
// a sourced price for the same pricing model always wins.
struct PricingRules {
  double monthly = 0;
  double reserved = 0;
  double bulk = 0;
  double spot = 0;
  std::optional<double> spot_interruptions_per_hour;
  FactSource source;
};

}  // namespace gpuplan
