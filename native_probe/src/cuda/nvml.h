#pragma once
// NVML through dlopen("libnvidia-ml.so.1"): the driver ships it, but the toolkit has no nvml.h
// or stub, so the few entry points used are declared here. Everything is optional: without
// NVML, clocks, power and throttle reasons stay null.

#include <optional>
#include <string>

#include "../device.h"

namespace gpuplan::probe {

class Nvml {
 public:
  // The process-wide instance; loads and initialises NVML on first use (thread-safe).
  static Nvml& get();
  bool available() const { return handle_ != nullptr; }
  // The driver version string, e.g. "580.65.06".
  std::optional<std::string> driver_version() const;
  // The NVML device for a PCI bus id ("0000:18:00.0"), or nullptr.
  void* device_for_pci(const std::string& bus_id) const;
  // Fills what NVML knows: clocks, bus width, PCIe, power limit, MIG, ECC.
  void describe(void* device, GpuInfo& g) const;
  // Current clocks, temperature, power and throttle reasons.
  ClockSample sample(void* device) const;

 private:
  Nvml();
  void* lib_ = nullptr;
  void* handle_ = nullptr;  // non-null once nvmlInit succeeded
};

}  // namespace gpuplan::probe
