// Host facts from POSIX calls and /proc, /etc/os-release.
#include "host_info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <climits>
#include <ctime>
#include <fstream>

namespace gpuplan::probe {
namespace {

// The value after "KEY=" / "key :" on the first matching line of `path`.
std::string field_of(const char* path, const std::string& key, char sep) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    const size_t p = line.find(sep);
    if (p == std::string::npos) continue;
    std::string v = line.substr(p + 1);
    v.erase(0, v.find_first_not_of(" \t\""));
    v.erase(v.find_last_not_of(" \t\"") + 1);
    return v;
  }
  return {};
}

}  // namespace

HostInfo read_host_info() {
  HostInfo h;
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof name - 1) == 0) h.hostname = name;
  struct utsname u {};
  const std::string pretty = field_of("/etc/os-release", "PRETTY_NAME=", '=');
  h.os = pretty.empty() ? "unknown" : pretty;
  if (uname(&u) == 0) h.os += std::string("; ") + u.sysname + " " + u.release + " " + u.machine;
  h.cpu_model = field_of("/proc/cpuinfo", "model name", ':');
  h.cpus = int(sysconf(_SC_NPROCESSORS_ONLN));
  h.memory_bytes = int64_t(sysconf(_SC_PHYS_PAGES)) * int64_t(sysconf(_SC_PAGESIZE));
  return h;
}

const std::vector<std::string>& environment_allow_list() {
  static const std::vector<std::string> names = {"CUDA_VISIBLE_DEVICES",
                                                 "CUDA_DEVICE_ORDER",
                                                 "CUDA_DEVICE_MAX_CONNECTIONS",
                                                 "CUDA_MODULE_LOADING",
                                                 "NVIDIA_VISIBLE_DEVICES",
                                                 "NVIDIA_TF32_OVERRIDE",
                                                 "CUBLAS_WORKSPACE_CONFIG",
                                                 "OMP_NUM_THREADS",
                                                 "NCCL_ALGO",
                                                 "NCCL_PROTO",
                                                 "NCCL_P2P_DISABLE",
                                                 "NCCL_P2P_LEVEL",
                                                 "NCCL_SHM_DISABLE",
                                                 "NCCL_IB_DISABLE",
                                                 "NCCL_NET",
                                                 "NCCL_NET_GDR_LEVEL",
                                                 "NCCL_NVLS_ENABLE",
                                                 "NCCL_COLLNET_ENABLE",
                                                 "NCCL_CROSS_NIC",
                                                 "NCCL_MIN_NCHANNELS",
                                                 "NCCL_MAX_NCHANNELS",
                                                 "NCCL_BUFFSIZE",
                                                 "NCCL_NSOCKS_PERTHREAD",
                                                 "NCCL_SOCKET_NTHREADS",
                                                 "OMPI_COMM_WORLD_SIZE",
                                                 "SLURM_NTASKS"};
  return names;
}

std::vector<std::pair<std::string, std::string>> allowed_environment(
    const std::function<const char*(const char*)>& get) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& name : environment_allow_list()) {
    if (const char* v = get(name.c_str())) out.emplace_back(name, std::string(v).substr(0, 256));
  }
  return out;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace gpuplan::probe
