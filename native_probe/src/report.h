#pragma once
// The payload: schema_version 1, kind "gpuplan-probe" (data/schema/probe.schema.json). Built
// once, serialised once; the signature covers exactly these bytes.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cloud_metadata.h"
#include "device.h"
#include "harness.h"
#include "host_info.h"

namespace gpuplan::probe {

// Everything the payload records.
struct ReportInput {
  bool simulated = false;
  std::string started_utc, finished_utc;
  std::vector<std::string> arguments;
  std::vector<std::pair<std::string, std::string>> environment;
  HostInfo host;
  std::optional<CloudInfo> cloud;
  SoftwareInfo software;
  std::vector<GpuInfo> gpus;
  std::vector<std::optional<std::string>> catalog_ids;  // per GPU
  std::vector<std::vector<bool>> peer_access;           // [src][dst]
  RunResult run;
};

// The "summary" object (exact keys; base units; null when not measured) from the payload's
// "gpus" and "results". Each figure is the slowest GPU's (minimum over GPUs, or over GPU pairs
// for p2p); slowest_gpu is the "index" of the GPU with the lowest bf16 GEMM (else fp16, fp32,
// HBM copy) median; the all-reduce figure is the one at the largest size.
nlohmann::ordered_json summary_of(const nlohmann::ordered_json& gpus,
                                  const nlohmann::ordered_json& results, int64_t node_count);

// The whole payload as JSON text (pretty-printed, ends with a newline).
std::string build_payload(const ReportInput& in);

}  // namespace gpuplan::probe
