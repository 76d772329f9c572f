// SimulatedDevice: catalog peak x default efficiency, deterministic jitter, injected faults.
#include "simulated_device.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpuplan/embedded_data.h"

namespace gpuplan::probe {
namespace {

// FNV-1a, so jitter is the same on every platform and run.
uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) h = (h ^ uint8_t(c)) * 1099511628211ull;
  return h;
}

Failure simulated_failure(Failure::Kind kind, const std::string& name, const std::string& what,
                          int line, const std::string& message) {
  return Failure{kind, name, "SimulatedDevice::" + what,
                 "simulated_device.cpp:" + std::to_string(line), message};
}

}  // namespace

const SimulatedEfficiency& simulated_efficiency() {
  static const SimulatedEfficiency e = [] {
    SimulatedEfficiency out;
    // The bundled catalog always loads (a test checks it); an empty one leaves zeros, which the
    // cases report as an unsupported figure rather than a made-up one.
    auto catalog = load_catalog(embedded_data_files());
    if (!catalog.ok()) return out;
    const Efficiencies& a = catalog.value().efficiencies;
    out.gemm = a.gemm;
    out.hbm_read = out.hbm_write = out.hbm_copy = out.hbm_triad = a.hbm;
    out.pcie_pinned = a.pcie;
    out.allreduce = a.nvlink;
    return out;
  }();
  return e;
}

std::string add_fault(SimulatedFaults& f, const std::string& spec) {
  const size_t colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  const std::string arg = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (arg.empty()) return "--fault: '" + spec + "' needs KIND:ARGUMENT (e.g. hang:gemm_bf16)";
  if (kind == "device-lost")
    f.device_lost_case = arg;
  else if (kind == "oom")
    f.oom_case = arg;
  else if (kind == "oom-always")
    f.oom_always_case = arg;
  else if (kind == "hang")
    f.hang_case = arg;
  else if (kind == "slow-gpu")
    f.slow_gpu = std::atoi(arg.c_str());
  else
    return "--fault: unknown kind '" + kind + "' (device-lost, oom, oom-always, hang, slow-gpu)";
  return {};
}

SimulatedDevice::SimulatedDevice(CatalogGpu gpu, int count, SimulatedFaults faults)
    : gpu_(std::move(gpu)), count_(count), faults_(std::move(faults)) {
  if (!gpu_.compute_capability ||
      std::sscanf(gpu_.compute_capability->c_str(), "%d.%d", &cc_major_, &cc_minor_) != 2) {
    // No compute capability in the catalog: assume the oldest one with the listed precisions.
    const auto& p = gpu_.peak_dense_tflops;
    if (p.count("fp4"))
      cc_major_ = 10, cc_minor_ = 0;
    else if (p.count("fp8"))
      cc_major_ = 8, cc_minor_ = 9;
    else if (p.count("bf16") || p.count("tf32"))
      cc_major_ = 8, cc_minor_ = 0;
    else
      cc_major_ = 7, cc_minor_ = 0;
    notes_.push_back("catalog entry " + gpu_.id + " has no compute_capability; simulated as sm_" +
                     std::to_string(cc_major_) + std::to_string(cc_minor_) +
                     " (the oldest architecture with its listed precisions)");
  }
  if (!gpu_.pcie_gen)
    notes_.push_back("catalog entry " + gpu_.id + " has no pcie_gen; simulated as PCIe gen 4 x16");
}

Outcome<std::vector<GpuInfo>> SimulatedDevice::open() {
  std::vector<GpuInfo> gpus;
  for (int i = 0; i < count_; ++i) {
    GpuInfo g;
    g.index = i;
    g.name = gpu_.name;
    g.uuid = "GPU-simulated-" + std::to_string(i);
    g.pci_bus_id = "simulated:" + std::to_string(i);
    g.cc_major = cc_major_;
    g.cc_minor = cc_minor_;
    g.memory_bytes = gpu_.memory_bytes;
    if (gpu_.pcie_gen) g.pcie_gen_max = g.pcie_gen_current = *gpu_.pcie_gen;
    gpus.push_back(std::move(g));
  }
  return gpus;
}

SoftwareInfo SimulatedDevice::software() {
  SoftwareInfo s;
  s.driver_version = "simulated";
  return s;
}

std::string SimulatedDevice::gemm_unsupported(int, Precision p) {
  // A block-scaled recipe runs at its element type's rate (MXFP8 at fp8, NVFP4 at fp4).
  const char* key = catalog_peak_key(p);
  if (!gpu_.peak_dense_tflops.count(key)) {
    return std::string("catalog entry ") + gpu_.id + " has no dense " + key + " peak to simulate " +
           precision_name(p) + " from";
  }
  return {};
}

double SimulatedDevice::pcie_bytes_per_s() const {
  // x16 link, one direction: GT/s x 16 lanes / 8 bits x 128b/130b encoding (gen 3 to 5).
  const int gen = gpu_.pcie_gen.value_or(4);
  const double gts = gen <= 3 ? 8.0 : gen == 4 ? 16.0 : gen == 5 ? 32.0 : 64.0;
  return gts * 16 / 8 * 128.0 / 130.0 * 1e9;
}

double SimulatedDevice::link_bytes_per_s() const {
  if (gpu_.nvlink_bandwidth_gb_per_s)
    return *gpu_.nvlink_bandwidth_gb_per_s / 2 * 1e9;  // catalog: both directions
  return pcie_bytes_per_s();
}

Outcome<Timings> SimulatedDevice::timed(const std::string& what, int gpu, double work, double rate,
                                        int64_t bytes_needed, Iterations it) {
  std::unique_lock<std::mutex> lock(m_);
  const std::string gpu_s = "GPU " + std::to_string(gpu);
  if (!faults_.device_lost_case.empty() && case_ == faults_.device_lost_case) {
    return simulated_failure(
        Failure::Kind::device_lost, "cudaErrorDevicesUnavailable", what, __LINE__,
        gpu_s + " fell off the bus (simulated fault --fault device-lost:" + case_ + ")");
  }
  if (!faults_.hang_case.empty() && case_ == faults_.hang_case) {
    cv_.wait(lock, [&] { return cancelled_; });
    return simulated_failure(
        Failure::Kind::cancelled, "cancelled", what, __LINE__,
        gpu_s + " hung (simulated fault --fault hang:" + case_ + ") and was cancelled");
  }
  const bool in_oom_case = !faults_.oom_case.empty() && case_ == faults_.oom_case;
  const bool oom_now = (!faults_.oom_always_case.empty() && case_ == faults_.oom_always_case) ||
                       (in_oom_case && !oom_fired_);
  if (oom_now || bytes_needed > gpu_.memory_bytes) {
    if (in_oom_case) oom_fired_ = true;
    return simulated_failure(
        Failure::Kind::out_of_memory, "cudaErrorMemoryAllocation", what, __LINE__,
        gpu_s + ": out of memory allocating " + std::to_string(bytes_needed) + " bytes");
  }
  if (gpu == faults_.slow_gpu) rate *= 0.8;
  const double t = work / rate;
  uint64_t state = fnv1a(case_ + "|" + what + "|" + std::to_string(gpu));
  Timings out;
  for (int i = 0; i < it.timed; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;  // LCG (Knuth MMIX)
    const double u = double(state >> 11) / double(1ull << 53);
    out.push_back(t * (1 + 0.02 * (u - 0.5)));
  }
  return out;
}

Outcome<Timings> SimulatedDevice::gemm(int gpu, Precision p, int64_t n, Iterations it) {
  const std::string why = gemm_unsupported(gpu, p);
  if (!why.empty())
    return simulated_failure(Failure::Kind::unsupported, "unsupported", "gemm", __LINE__, why);
  // Bytes per input element, scales included: MXFP8 1 + 1/32, NVFP4 1/2 + 1/16.
  const double in = p == Precision::fp64                             ? 8
                    : p == Precision::fp8                            ? 1
                    : p == Precision::mxfp8                          ? 1 + 1.0 / 32
                    : p == Precision::nvfp4                          ? 0.5 + 1.0 / 16
                    : (p == Precision::fp32 || p == Precision::tf32) ? 4
                                                                     : 2;
  const double out = p == Precision::fp64                             ? 8
                     : (p == Precision::fp32 || p == Precision::tf32) ? 4
                                                                      : 2;
  const double nn = double(n);
  const double rate =
      gpu_.peak_dense_tflops.at(catalog_peak_key(p)) * 1e12 * simulated_efficiency().gemm;
  return timed(std::string("gemm ") + precision_name(p) + " n=" + std::to_string(n), gpu,
               2 * nn * nn * nn, rate, int64_t(nn * nn * (2 * in + out)), it);
}

Outcome<Timings> SimulatedDevice::memory(int gpu, MemOp op, int64_t array_bytes, Iterations it) {
  const auto& e = simulated_efficiency();
  const double eff = op == MemOp::read    ? e.hbm_read
                     : op == MemOp::write ? e.hbm_write
                     : op == MemOp::copy  ? e.hbm_copy
                                          : e.hbm_triad;
  const double bytes = double(memop_arrays(op)) * double(array_bytes);
  const double rate = gpu_.memory_bandwidth_gb_per_s.value_or(0) * 1e9 * eff;
  if (rate <= 0) {
    return simulated_failure(Failure::Kind::unsupported, "unsupported", "memory", __LINE__,
                             "catalog entry " + gpu_.id + " has no memory_bandwidth_gb_per_s");
  }
  return timed(std::string("memory ") + memop_name(op) + " " + std::to_string(array_bytes), gpu,
               bytes, rate, int64_t(bytes), it);
}

Outcome<Timings> SimulatedDevice::host_copy(int gpu, CopyDir dir, bool pinned, int64_t bytes,
                                            Iterations it) {
  const double eff =
      pinned ? simulated_efficiency().pcie_pinned : simulated_efficiency().pcie_pageable;
  return timed(std::string(dir == CopyDir::h2d ? "h2d " : "d2h ") +
                   (pinned ? "pinned " : "pageable ") + std::to_string(bytes),
               gpu, double(bytes), pcie_bytes_per_s() * eff, bytes, it);
}

bool SimulatedDevice::peer_access(int src, int dst) {
  return src != dst && src < count_ && dst < count_;
}

Outcome<Timings> SimulatedDevice::peer_copy(int src, int dst, int64_t bytes, Iterations it) {
  return timed(
      "peer " + std::to_string(src) + "->" + std::to_string(dst) + " " + std::to_string(bytes), src,
      double(bytes), link_bytes_per_s() * simulated_efficiency().p2p, bytes, it);
}

Outcome<Timings> SimulatedDevice::allreduce(const std::vector<int>& gpus,
                                            const CollectiveGroup& group, int64_t bytes,
                                            Iterations it) {
  const double n = group.world_ranks > 0 ? group.world_ranks : double(gpus.size());
  double busbw = link_bytes_per_s() * simulated_efficiency().allreduce;
  if (group.world_ranks > int(gpus.size())) {
    busbw = std::min(busbw, simulated_efficiency().network_busbw_bytes_per_s);
    std::lock_guard<std::mutex> lock(m_);
    const std::string note =
        "simulated all-reduce across nodes: busbw capped at 84.8 GB/s, as measured on 3 nodes x 8 "
        "A100 with "
        "4 x HDR InfiniBand each (NVIDIA/nccl-tests issue 119)";
    if (std::find(notes_.begin(), notes_.end(), note) == notes_.end()) notes_.push_back(note);
  }
  const double algbw = busbw * n / (2 * (n - 1));
  int slowest = gpus.empty() ? 0 : gpus.front();
  for (int g : gpus) {
    if (g == faults_.slow_gpu) slowest = g;  // a collective runs at its slowest member's pace
  }
  return timed("allreduce " + std::to_string(bytes), slowest, double(bytes), algbw, 2 * bytes, it);
}

ClockSample SimulatedDevice::clocks(int) {
  return {};
}

void SimulatedDevice::begin_case(const std::string& name) {
  std::lock_guard<std::mutex> lock(m_);
  case_ = name;
  oom_fired_ = false;
}

void SimulatedDevice::cancel() {
  std::lock_guard<std::mutex> lock(m_);
  cancelled_ = true;
  cv_.notify_all();
}

}  // namespace gpuplan::probe
