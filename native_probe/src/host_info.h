#pragma once
// Facts about the host for the file's provenance: an allow-list, never the whole environment
// (STYLE.md 14: signed files get shared).

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace gpuplan::probe {

struct HostInfo {
  std::string hostname, os, cpu_model;
  int cpus = 0;
  int64_t memory_bytes = 0;
};
HostInfo read_host_info();

// The environment variables the file may record (CUDA device selection, NCCL tuning, MPI size).
const std::vector<std::string>& environment_allow_list();

// The allow-listed variables that are set, in allow-list order. `get` is getenv in production.
std::vector<std::pair<std::string, std::string>> allowed_environment(
    const std::function<const char*(const char*)>& get);

// Current time as "2025-06-01T12:00:00Z".
std::string utc_now();

}  // namespace gpuplan::probe
