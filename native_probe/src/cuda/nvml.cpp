// NVML entry points, declared by hand (signatures from NVML's public API, stable since r450).
#include "nvml.h"

#include <dlfcn.h>

namespace gpuplan::probe {
namespace {

using nvmlDevice_t = void*;
struct nvmlMemory_t {
  unsigned long long total, free, used;
};
constexpr int NVML_SUCCESS = 0;
constexpr int NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2;
constexpr int NVML_TEMPERATURE_GPU = 0;

struct Api {
  int (*init)() = nullptr;
  int (*driver_version)(char*, unsigned) = nullptr;
  int (*by_pci)(const char*, nvmlDevice_t*) = nullptr;
  int (*max_clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  int (*clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  int (*temperature)(nvmlDevice_t, int, unsigned*) = nullptr;
  int (*power)(nvmlDevice_t, unsigned*) = nullptr;
  int (*power_limit)(nvmlDevice_t, unsigned*) = nullptr;
  int (*throttle)(nvmlDevice_t, unsigned long long*) = nullptr;
  int (*bus_width)(nvmlDevice_t, unsigned*) = nullptr;
  int (*pcie_gen_max)(nvmlDevice_t, unsigned*) = nullptr;
  int (*pcie_width_max)(nvmlDevice_t, unsigned*) = nullptr;
  int (*pcie_gen)(nvmlDevice_t, unsigned*) = nullptr;
  int (*pcie_width)(nvmlDevice_t, unsigned*) = nullptr;
  int (*mig)(nvmlDevice_t, unsigned*, unsigned*) = nullptr;
  int (*ecc)(nvmlDevice_t, int*, int*) = nullptr;
};
Api g_api;

template <class F>
void bind(void* lib, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
}

// nvmlClocksEventReasons bits (formerly "throttle reasons").
const std::pair<unsigned long long, const char*> kReasons[] = {{0x1, "gpu_idle"},
                                                               {0x2, "applications_clocks_setting"},
                                                               {0x4, "sw_power_cap"},
                                                               {0x8, "hw_slowdown"},
                                                               {0x10, "sync_boost"},
                                                               {0x20, "sw_thermal_slowdown"},
                                                               {0x40, "hw_thermal_slowdown"},
                                                               {0x80, "hw_power_brake_slowdown"},
                                                               {0x100, "display_clock_setting"}};

}  // namespace

Nvml& Nvml::get() {
  static Nvml instance;
  return instance;
}

Nvml::Nvml() {
  lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib_) return;
  Api& a = g_api;
  bind(lib_, a.init, "nvmlInit_v2");
  bind(lib_, a.driver_version, "nvmlSystemGetDriverVersion");
  bind(lib_, a.by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
  bind(lib_, a.max_clock, "nvmlDeviceGetMaxClockInfo");
  bind(lib_, a.clock, "nvmlDeviceGetClockInfo");
  bind(lib_, a.temperature, "nvmlDeviceGetTemperature");
  bind(lib_, a.power, "nvmlDeviceGetPowerUsage");
  bind(lib_, a.power_limit, "nvmlDeviceGetEnforcedPowerLimit");
  bind(lib_, a.throttle, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!a.throttle) bind(lib_, a.throttle, "nvmlDeviceGetCurrentClocksThrottleReasons");
  bind(lib_, a.bus_width, "nvmlDeviceGetMemoryBusWidth");
  bind(lib_, a.pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration");
  bind(lib_, a.pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth");
  bind(lib_, a.pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration");
  bind(lib_, a.pcie_width, "nvmlDeviceGetCurrPcieLinkWidth");
  bind(lib_, a.mig, "nvmlDeviceGetMigMode");
  bind(lib_, a.ecc, "nvmlDeviceGetEccMode");
  if (a.init && a.by_pci && a.init() == NVML_SUCCESS) handle_ = lib_;
}

std::optional<std::string> Nvml::driver_version() const {
  char buf[96] = {};
  if (!handle_ || !g_api.driver_version || g_api.driver_version(buf, sizeof buf) != NVML_SUCCESS)
    return std::nullopt;
  return std::string(buf);
}

void* Nvml::device_for_pci(const std::string& bus_id) const {
  nvmlDevice_t d = nullptr;
  if (!handle_ || g_api.by_pci(bus_id.c_str(), &d) != NVML_SUCCESS) return nullptr;
  return d;
}

void Nvml::describe(void* d, GpuInfo& g) const {
  if (!handle_ || !d) return;
  const Api& a = g_api;
  unsigned u = 0, v = 0;
  if (a.max_clock && a.max_clock(d, NVML_CLOCK_SM, &u) == NVML_SUCCESS) g.max_sm_clock_mhz = u;
  if (a.max_clock && a.max_clock(d, NVML_CLOCK_MEM, &u) == NVML_SUCCESS) g.max_mem_clock_mhz = u;
  if (a.bus_width && a.bus_width(d, &u) == NVML_SUCCESS) g.memory_bus_width_bits = int(u);
  if (a.pcie_gen_max && a.pcie_gen_max(d, &u) == NVML_SUCCESS) g.pcie_gen_max = int(u);
  if (a.pcie_width_max && a.pcie_width_max(d, &u) == NVML_SUCCESS) g.pcie_width_max = int(u);
  if (a.pcie_gen && a.pcie_gen(d, &u) == NVML_SUCCESS) g.pcie_gen_current = int(u);
  if (a.pcie_width && a.pcie_width(d, &u) == NVML_SUCCESS) g.pcie_width_current = int(u);
  if (a.power_limit && a.power_limit(d, &u) == NVML_SUCCESS) g.power_limit_w = u / 1000.0;
  if (a.mig && a.mig(d, &u, &v) == NVML_SUCCESS) g.mig = u == 1;
  int e = 0, pending = 0;
  if (a.ecc && a.ecc(d, &e, &pending) == NVML_SUCCESS) g.ecc = e == 1;
}

ClockSample Nvml::sample(void* d) const {
  ClockSample s;
  if (!handle_ || !d) return s;
  const Api& a = g_api;
  unsigned u = 0;
  if (a.clock && a.clock(d, NVML_CLOCK_SM, &u) == NVML_SUCCESS) s.sm_mhz = u;
  if (a.clock && a.clock(d, NVML_CLOCK_MEM, &u) == NVML_SUCCESS) s.mem_mhz = u;
  if (a.temperature && a.temperature(d, NVML_TEMPERATURE_GPU, &u) == NVML_SUCCESS)
    s.temperature_c = u;
  if (a.power && a.power(d, &u) == NVML_SUCCESS) s.power_w = u / 1000.0;
  unsigned long long bits = 0;
  if (a.throttle && a.throttle(d, &bits) == NVML_SUCCESS) {
    for (const auto& [bit, name] : kReasons) {
      if ((bits & bit) && bit != 0x1) s.throttle_reasons.push_back(name);  // idle is not a slowdown
    }
  }
  return s;
}

}  // namespace gpuplan::probe
