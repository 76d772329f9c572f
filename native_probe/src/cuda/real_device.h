#pragma once
// RealCudaDevice: the Device on real GPUs (CUDA runtime, cuBLASLt, NVML and NCCL via dlopen).
// Shared by the .cu files: the class, the error macros and the event-timing loop.
// Source-compatible with CUDA 12 and 13 (device attributes, not the removed cudaDeviceProp
// clock fields).

#include <cuda_runtime.h>

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "../device.h"
#include "nccl_loader.h"

namespace gpuplan::probe {

// A Failure from a CUDA runtime error: out_of_memory, device_lost (sticky errors that leave the
// context unusable) or error; `file` is reduced to its base name.
Failure cuda_failure(cudaError_t e, const char* expression, const char* file, int line);

// Returns a Failure from the enclosing function when `expr` is not cudaSuccess.
#define PROBE_CUDA(expr)                                                            \
  do {                                                                              \
    const cudaError_t probe_err_ = (expr);                                          \
    if (probe_err_ != cudaSuccess) {                                                \
      return ::gpuplan::probe::cuda_failure(probe_err_, #expr, __FILE__, __LINE__); \
    }                                                                               \
  } while (0)

// Device memory for one measurement, freed on scope exit.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() {
    if (p_) cudaFree(p_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  cudaError_t allocate(size_t bytes) { return cudaMalloc(&p_, bytes); }
  template <class T = void>
  T* get() const {
    return static_cast<T*>(p_);
  }

 private:
  void* p_ = nullptr;
};

// A stream and the events of one timing loop, destroyed on scope exit.
class StreamEvents {
 public:
  ~StreamEvents();
  cudaError_t create(int events);
  cudaStream_t stream = nullptr;
  std::vector<cudaEvent_t> events;
};

// Runs `launch` it.warmup times, then it.timed times with an event before and after each
// (back to back, so launch overhead hides behind the previous iteration), and returns the
// seconds of each timed iteration. `launch` returns an optional Failure.
template <class Launch>
Outcome<Timings> time_on_stream(StreamEvents& se, Iterations it, Launch&& launch) {
  for (int i = 0; i < it.warmup; ++i) {
    if (auto f = launch()) return *f;
  }
  PROBE_CUDA(cudaEventRecord(se.events[0], se.stream));
  for (int i = 0; i < it.timed; ++i) {
    if (auto f = launch()) return *f;
    PROBE_CUDA(cudaEventRecord(se.events[size_t(i) + 1], se.stream));
  }
  PROBE_CUDA(cudaEventSynchronize(se.events[size_t(it.timed)]));
  Timings t;
  for (int i = 0; i < it.timed; ++i) {
    float ms = 0;
    PROBE_CUDA(cudaEventElapsedTime(&ms, se.events[size_t(i)], se.events[size_t(i) + 1]));
    t.push_back(double(ms) * 1e-3);
  }
  return t;
}

class RealCudaDevice : public Device {
 public:
  ~RealCudaDevice() override;
  bool simulated() const override { return false; }
  Outcome<std::vector<GpuInfo>> open() override;
  SoftwareInfo software() override;
  // Block-scaled recipes need cuBLASLt 12.8 or newer, at build and at run time (cuda_gemm.cu).
  std::string gemm_unsupported(int gpu, Precision p) override;
  Outcome<Timings> gemm(int gpu, Precision p, int64_t n, Iterations it) override;  // cuda_gemm.cu
  Outcome<Timings> memory(int gpu, MemOp op, int64_t array_bytes,
                          Iterations it) override;  // cuda_memory.cu
  Outcome<Timings> host_copy(int gpu, CopyDir dir, bool pinned, int64_t bytes,
                             Iterations it) override;
  bool peer_access(int src, int dst) override;
  Outcome<Timings> peer_copy(int src, int dst, int64_t bytes, Iterations it) override;
  std::string collectives_unavailable() override;
  std::string collective_id() override;
  Outcome<Timings> allreduce(const std::vector<int>& gpus, const CollectiveGroup& group,
                             int64_t bytes,
                             Iterations it) override;  // cuda_allreduce.cu
  ClockSample clocks(int gpu) override;

 private:
  std::vector<GpuInfo> gpus_;
  std::vector<void*> nvml_;  // NVML handle per CUDA device (or nullptr)
  std::mutex comm_mutex_;
  std::vector<nccl::Comm> comms_;  // cached across sizes: initialising takes long
  std::vector<int> comm_gpus_;
  std::string comm_id_;
};

}  // namespace gpuplan::probe
