// device_properties: what the driver and NVML report, checked for what skews the other cases.
#include "common.h"

namespace gpuplan::probe {
namespace {

class DeviceProperties : public Case {
 public:
  std::string name() const override { return "device_properties"; }
  std::string description() const override {
    return "name, SMs, clocks, memory, bus width, PCIe link, power limit, MIG and ECC (CUDA "
           "runtime + NVML)";
  }
  std::vector<Row> run(Context& ctx, int gpu) override {
    const GpuInfo& g = ctx.gpus.at(size_t(gpu));
    Row r;
    r.case_name = name();
    r.gpu = gpu;
    r.params = {
        {"name", g.name},
        {"compute_capability", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)},
        {"memory_bytes", g.memory_bytes}};
    const std::string who = "GPU " + std::to_string(gpu);
    if (g.memory_bytes <= 0 || g.name.empty()) {
      return {failed_row(name(), gpu,
                         Failure{Failure::Kind::error, "bad_properties", "Device::open", "device.h",
                                 who + " reports no name or no memory"})};
    }
    if (!g.max_sm_clock_mhz && !ctx.device.simulated()) {
      ctx.warnings.push_back(who +
                             ": NVML (libnvidia-ml.so.1) gave no clocks: clocks, power and "
                             "throttle reasons are not recorded");
    }
    if (g.mig.value_or(false))
      ctx.warnings.push_back(
          who + ": MIG mode is on; figures are for one MIG instance, not the whole GPU");
    if (g.pcie_gen_current && g.pcie_gen_max && *g.pcie_gen_current < *g.pcie_gen_max) {
      r.params["pcie_note"] = "link at gen " + std::to_string(*g.pcie_gen_current) + " of " +
                              std::to_string(*g.pcie_gen_max) +
                              " when idle (GPUs lower it to save power)";
    }
    return {r};
  }
};

}  // namespace

void add_device_properties_case(std::vector<std::unique_ptr<Case>>& out) {
  out.push_back(std::make_unique<DeviceProperties>());
}

}  // namespace gpuplan::probe
