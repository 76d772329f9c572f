#pragma once
// SimulatedDevice: figures from a data/gpus catalog entry (spec peak x a stated default
// efficiency), so the pipeline cases -> JSON -> sign -> verify runs without a GPU. Files it
// produces say "simulated": true. It can also inject faults for tests.

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "device.h"
#include "gpu_catalog.h"

namespace gpuplan::probe {

// Fractions of spec peak that a simulated run reports. The ones the time model calibrates with
// (GEMM, HBM, PCIe pinned, all-reduce busbw) are data/assumptions.json's, read from the embedded
// catalog, so a simulated probe file calibrates to the spec-based prediction; the rest are
// figures the time model does not use (probe-and-signing notes, section 3: pageable PCIe ~0.5,
// peer copies 0.80).
struct SimulatedEfficiency {
  double gemm = 0;
  double hbm_read = 0, hbm_write = 0, hbm_copy = 0, hbm_triad = 0;
  double pcie_pinned = 0, pcie_pageable = 0.50;
  double p2p = 0.80;     // of the unidirectional link rate (NVLink total / 2, or PCIe)
  double allreduce = 0;  // busbw over the unidirectional link rate
  // Across nodes: the all_reduce busbw measured on 3 nodes x 8 A100 SXM4 with 4 x 200 Gb/s HDR
  // InfiniBand per node (NVIDIA/nccl-tests issue 119, average over 8 B - 128 MiB), a figure of
  // one real cluster, not of the one simulated.
  double network_busbw_bytes_per_s = 84.8e9;
};
// The efficiencies above, from the catalog embedded in the binary (loaded once).
const SimulatedEfficiency& simulated_efficiency();

// Faults a test can inject (--fault, repeatable). Case names as in --list.
struct SimulatedFaults {
  std::string device_lost_case;  // "device-lost:CASE": the GPU is lost when CASE starts
  std::string oom_case;          // "oom:CASE": the first try in CASE runs out of memory
  std::string oom_always_case;   // "oom-always:CASE": every size in CASE runs out of memory
  std::string hang_case;         // "hang:CASE": CASE blocks until cancelled (timeout test)
  int slow_gpu = -1;             // "slow-gpu:N": GPU N runs at 80 % (slowest-GPU test)
};
// Adds one --fault value; returns an error message, or empty.
std::string add_fault(SimulatedFaults& faults, const std::string& spec);

class SimulatedDevice : public Device {
 public:
  SimulatedDevice(CatalogGpu gpu, int count, SimulatedFaults faults);

  bool simulated() const override { return true; }
  Outcome<std::vector<GpuInfo>> open() override;
  SoftwareInfo software() override;
  std::string gemm_unsupported(int gpu, Precision p) override;
  Outcome<Timings> gemm(int gpu, Precision p, int64_t n, Iterations it) override;
  Outcome<Timings> memory(int gpu, MemOp op, int64_t array_bytes, Iterations it) override;
  Outcome<Timings> host_copy(int gpu, CopyDir dir, bool pinned, int64_t bytes,
                             Iterations it) override;
  bool peer_access(int src, int dst) override;
  Outcome<Timings> peer_copy(int src, int dst, int64_t bytes, Iterations it) override;
  std::string collectives_unavailable() override { return {}; }
  std::string collective_id() override { return std::string(128, 's'); }
  Outcome<Timings> allreduce(const std::vector<int>& gpus, const CollectiveGroup& group,
                             int64_t bytes, Iterations it) override;
  ClockSample clocks(int gpu) override;
  void begin_case(const std::string& name) override;
  void cancel() override;

  // Assumptions made because the catalog entry lacks a figure (added to the file's warnings).
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  // Timings for `work` units at `rate` units/s, with +-1 % deterministic jitter.
  Outcome<Timings> timed(const std::string& what, int gpu, double work, double rate,
                         int64_t bytes_needed, Iterations it);
  double pcie_bytes_per_s() const;
  double link_bytes_per_s() const;  // unidirectional GPU-GPU link

  CatalogGpu gpu_;
  int count_;
  SimulatedFaults faults_;
  int cc_major_ = 0, cc_minor_ = 0;
  std::vector<std::string> notes_;
  std::mutex m_;
  std::condition_variable cv_;
  std::string case_;
  bool oom_fired_ = false;
  bool cancelled_ = false;
};

}  // namespace gpuplan::probe
