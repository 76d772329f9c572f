#pragma once
// Hardware and price catalogs: GPUs, cloud instances, providers and their regions, and the
// pricing rules (assumptions a user can change). Values are in base units (bytes, FLOP/s,
// bytes/s, USD per hour); each fact keeps the title and date of its source for display.

#include <map>
#include <optional>
#include <string>
#include <utility>
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
  // Dense peak by precision name ("fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "fp6", "fp4",
  // "int8"; NVFP4 and MXFP4 run at "fp4", MXFP8 at "fp8"); absent means unsupported or unknown.
  // Sparse figures are kept apart and never used for time.
  std::map<std::string, double> peak_dense_flops_per_s;
  std::map<std::string, double> peak_sparse_flops_per_s;
  // The best dense GEMM throughput measured on this GPU by precision (best shape, a hardware
  // ceiling, e.g. stas00/ml-engineering's "Maximum Achievable Matmul FLOPS"); absent: unknown.
  std::map<std::string, double> matmul_max_achievable_flops_per_s;
  // For a precision this GPU has no measurement of: the mean share of dense peak that the
  // measured GPUs of its tensor-core generation reach (derive_matmul_shares), and their ids.
  struct MatmulShare {
    double share = 0;
    std::vector<std::string> from;
  };
  std::map<std::string, MatmulShare> matmul_generation_share;
  // What a serving runtime's own GEMM kernels reach on this GPU, measured (specs.serving_gemm,
  // tools/serving_gemm.py), by "runtime/format" key ("trtllm/fp8", "vllm/bf16", "sglang/nvfp4"):
  // the bytes/s of a decode step's weight-streaming GEMMs (at most 16 rows) and the FLOP/s of a
  // prefill's large ones.
  struct ServingGemm {
    double weight_stream_bytes_per_s = 0;
    double matmul_flop_per_s = 0;
  };
  std::map<std::string, ServingGemm> serving_gemm;
  // For a runtime/format this GPU has no table of: the mean shares of memory bandwidth and of
  // dense peak that its tensor-core generation's measured GPUs reach (derive_serving_gemm_shares),
  // and their ids.
  struct ServingGemmShare {
    double bandwidth_share = 0;
    double peak_share = 0;
    std::vector<std::string> from;
  };
  std::map<std::string, ServingGemmShare> serving_gemm_generation_share;
  // The bytes/s at which a serving runtime's own fused-MoE kernels stream the touched experts'
  // weights in a decode step (at most 16 tokens per expert), measured (specs.serving_moe,
  // tools/serving_moe.py), by "runtime/format" key ("vllm/mxfp4", "trtllm/nvfp4").
  std::map<std::string, double> serving_moe_stream_bytes_per_s;
  int sm_count = 0;                         // streaming multiprocessors; 0: unknown
  double tdp_w = 0;                         // 0: unknown
  std::string compute_capability;           // "8.0"; empty: unknown
  std::string interconnect;                 // "pcie", "nvlink3", ..., "none"; empty: unknown
  double nvlink_bandwidth_bytes_per_s = 0;  // bidirectional total per GPU; 0: none/unknown
  int pcie_gen = 0;                         // 0: unknown
  // The GPU's path to host memory: "pcie" (x16 of pcie_gen), "nvlink-c2c" (a Grace superchip);
  // empty: PCIe where pcie_gen is known. host_link_bytes_per_s: per direction, where sourced.
  std::string host_link;
  double host_link_bytes_per_s = 0;
  std::map<std::string, FactSource> fact_sources;  // spec name -> its source
};

// The best matmul FLOP/s known for `gpu` at a precision key ("bf16", "fp8", "fp4", ...): its own
// measured maximum; for fp16 its bf16 one where both peaks are equal (the same units); else its
// dense peak x the share its generation measured (matmul_generation_share). 0 when none is known:
// callers fall back to dense peak x the published GEMM efficiency.
double known_matmul_flop_per_s(const Gpu& gpu, const std::string& key);

// The name of the GPU's own fabric between GPUs (nvlink_bandwidth_bytes_per_s): "Infinity Fabric"
// for AMD's, else "NVLink".
const char* gpu_fabric_name(const Gpu& gpu);

// A serving_gemm key's runtime and weight format ("trtllm/fp8" -> {"trtllm", "fp8"}).
std::pair<std::string, std::string> split_serving_gemm_key(const std::string& key);

// The dense-peak precision key of a serving weight-format key ("bf16", "fp8", "nvfp4" -> "fp4").
std::string serving_gemm_precision(const std::string& format);

// The GEMM rates a serving runtime's kernels reach on `gpu` for a weight format: its own
// measured figures (serving_gemm), else memory bandwidth and dense peak x the shares its
// generation measured (serving_gemm_generation_share); nullopt when neither is known.
std::optional<Gpu::ServingGemm> serving_gemm_rates(const Gpu& gpu, const std::string& runtime,
                                                   const std::string& format);

// Fills every GPU's serving_gemm_generation_share from the serving_gemm tables of the others of
// its tensor-core generation (derive_matmul_shares' generations).
void derive_serving_gemm_shares(std::vector<Gpu>& gpus);

// Fills every GPU's matmul_generation_share from the measurements of the others of its
// tensor-core generation: the same vendor, architecture and compute-capability major (B200, B300,
// GB200 and GB300 are one; the RTX PRO 6000's sm_120 is another). A GPU without a compute
// capability has no generation.
void derive_matmul_shares(std::vector<Gpu>& gpus);

// Where one kind of price (on-demand, spot, ...) comes from when it is not the price entry's own
// source: a published spot price is often found in another document, of another date.
struct PriceOrigin {
  FactSource source;
  std::string date;  // YYYY-MM-DD or YYYY-MM
};

// One price of an instance in one region, per instance-hour. Absent: not published.
// The *_usd_per_hour figures are always in USD; a price published in CNY keeps its CNY figure in
// native_per_hour and the rate it was converted at (with the rate's source).
struct Price {
  std::string region;
  std::string date;       // YYYY-MM-DD or YYYY-MM; empty when the source states no date
  std::string retrieved;  // when an undated price was retrieved (YYYY-MM-DD); empty otherwise
  bool stale = false;     // the catalog marks this price as stale (e.g. an undated snapshot)
  FactSource source;
  std::optional<double> on_demand_usd_per_hour;
  std::optional<double> reserved_1y_usd_per_hour;
  std::optional<double> reserved_3y_usd_per_hour;
  std::optional<double> spot_usd_per_hour;
  // What one published figure buys, as the provider sells it: "instance" (one host), "gpu" (one
  // of its GPUs) or "nvlink-domain" (a whole NVLink domain, e.g. an NVL72 rack, sold only whole).
  // The figures above (and native_per_hour) are converted to one instance (host) hour.
  std::string sold_per = "instance";
  std::string currency = "USD";  // the currency the source publishes: "USD" or "CNY"
  double usd_per_cny = 0;        // conversion rate when currency is CNY
  FactSource rate_source;        // where that rate comes from
  std::map<std::string, double>
      native_per_hour;  // kind ("on-demand", "spot", ...) -> price in `currency`
  std::map<std::string, PriceOrigin>
      origin_by_kind;  // kind -> its own source and date, when it differs
  // "date unknown, retrieved YYYY-MM-DD" or the date itself.
  std::string date_label() const;
};

// One cloud instance type: one host (a machine with its GPUs, vCPUs and memory) and the NVLink
// domain it belongs to. An 8-GPU HGX server is its own domain; a GB200 NVL72 compute tray is a
// host of 4 GPUs in a domain of 72 GPUs over 18 hosts, where NVLink crosses hosts and only traffic
// between domains takes the network.
struct Instance {
  std::string id;        // "aws-p4d.24xlarge"
  std::string provider;  // provider id
  std::string instance_type;
  std::string gpu;    // Gpu id
  int gpu_count = 0;  // GPUs per host
  // GPUs that reach each other over NVLink, a whole number of hosts; 0: the host is its own domain.
  int nvlink_domain_gpus = 0;
  // Hosts rented together: 1, or a whole domain when the provider sells it only whole.
  int min_hosts = 1;
  int vcpus = 0;                   // per host; 0: unknown
  double ram_bytes = 0;            // per host; 0: unknown
  std::string gpu_interconnect;    // "nvswitch", "nvlink", "pcie"; empty: unknown
  double network_bytes_per_s = 0;  // per host, to hosts outside its NVLink domain; 0: unknown
  std::vector<Price> prices;
  // Pricing model ("spot", "monthly", "reserved-1y", ...) -> whether the provider sells it, copied
  // from data/providers when the catalog is loaded; absent: not known.
  std::map<std::string, bool> offered;
  // GPUs of the NVLink domain (gpu_count when the host is its own domain) and its hosts.
  int domain_gpus() const;
  int hosts_per_domain() const;
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

// Whether a provider sells one pricing model, with the source that says so.
struct PricingOffer {
  bool offered = false;
  FactSource source;
};

struct Provider {
  std::string id;
  std::string name;
  std::vector<Region> regions;
  // Pricing model ("on-demand", "spot", "monthly", "reserved-1y", "reserved-3y", "bulk") -> offer;
  // absent: not known.
  std::map<std::string, PricingOffer> pricing_models;
  const Region* find_region(const std::string& id) const;
};

// One published spot interruption-frequency bucket, e.g. AWS Spot Advisor's "5-10%": the share of
// spot capacity reclaimed per month. max_fraction_per_month is 1 for an open-ended bucket (">20%").
struct SpotBucket {
  std::string id;        // "aws-5-10", ...
  std::string provider;  // provider id
  std::string label;     // as published: "5-10%"
  double min_fraction_per_month = 0;
  double max_fraction_per_month = 0;
  FactSource source;
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
  // USD per CNY for showing USD prices in CNY (and CNY prices in USD when an entry states no rate).
  double usd_per_cny = 0;
  FactSource usd_per_cny_source;
  // The spot interruption-frequency buckets providers publish (selectable assumptions).
  std::vector<SpotBucket> spot_buckets;
};

}  // namespace gpuplan
