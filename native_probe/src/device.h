#pragma once
// The measuring interface. Cases talk only to a Device: RealCudaDevice (src/cuda/, built when
// nvcc is found) measures a GPU; SimulatedDevice derives figures from a data/gpus catalog entry
// so the whole pipeline runs, and is tested, on machines without a GPU.
//
// Errors are data (STYLE.md 13): every call returns an Outcome holding either a value or a
// Failure that names the failing call, its expression and its source location.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gpuplan::probe {

// What went wrong in a device call.
struct Failure {
  enum class Kind { error, out_of_memory, device_lost, unsupported, timeout, cancelled };
  Kind kind = Kind::error;
  std::string name;        // e.g. "cudaErrorMemoryAllocation", "CUBLAS_STATUS_NOT_SUPPORTED"
  std::string expression;  // the call as written, e.g. "cudaMalloc(&a, bytes)"
  std::string location;    // "file.cu:123"
  std::string message;     // one line for people
};
// "error", "out_of_memory", "device_lost", ...
const char* failure_kind_name(Failure::Kind k);

// A value or a Failure.
template <class T>
class [[nodiscard]] Outcome {
 public:
  Outcome(T value) : v_(std::move(value)) {}            // NOLINT: implicit by design
  Outcome(Failure failure) : v_(std::move(failure)) {}  // NOLINT: implicit by design
  bool ok() const { return v_.index() == 0; }
  const T& value() const { return std::get<0>(v_); }
  T& value() { return std::get<0>(v_); }
  const Failure& failure() const { return std::get<1>(v_); }

 private:
  std::variant<T, Failure> v_;
};

// GEMM precisions, in the order results and summaries list them. mxfp8 and nvfp4 are the
// block-scaled recipes of Blackwell's tensor cores (sm_100 and newer): MXFP8 is E4M3 data with
// one power-of-two (UE8M0) scale per 32 elements along K, NVFP4 is E2M1 data with one E4M3 scale
// per 16 elements (OCP Microscaling spec v1.0; cuBLASLt CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0
// and _VEC16_UE4M3).
enum class Precision { fp64, fp32, tf32, fp16, bf16, fp8, mxfp8, nvfp4 };
inline constexpr Precision kPrecisions[] = {Precision::fp64,  Precision::fp32, Precision::tf32,
                                            Precision::fp16,  Precision::bf16, Precision::fp8,
                                            Precision::mxfp8, Precision::nvfp4};
const char* precision_name(Precision p);
// Whether `p` is a block-scaled recipe (mxfp8, nvfp4): sm_100 or newer and CUDA 12.8 or newer.
bool block_scaled(Precision p);
// The data/gpus peak a precision runs at: "fp8" for mxfp8, "fp4" for nvfp4, else its own name.
const char* catalog_peak_key(Precision p);
// The architecture of a compute capability as NVIDIA names it: "Blackwell" for 10.x and 12.x
// (sm_100 B200/GB200, sm_103 B300/GB300, sm_120 RTX PRO 6000 / RTX 50), "Hopper" for 9.0, ...;
// "unknown" otherwise.
const char* architecture_name(int cc_major, int cc_minor);

// Device-memory kernels (STREAM-style over float4 arrays).
enum class MemOp { read, write, copy, triad };
const char* memop_name(MemOp op);
// Arrays touched per element: read 1, write 1, copy 2 (a -> b), triad 3 (a = b + s*c).
int memop_arrays(MemOp op);

// Host <-> device copy direction.
enum class CopyDir { h2d, d2h };

// Iteration counts of one measurement.
struct Iterations {
  int warmup = 1;
  int timed = 1;
};

// Seconds per timed iteration, in order.
using Timings = std::vector<double>;

// One GPU as the driver (and NVML, when present) describe it. Unknown fields stay empty.
struct GpuInfo {
  int index = 0;
  std::string name;
  std::string uuid;
  std::string pci_bus_id;
  int cc_major = 0, cc_minor = 0;
  std::optional<int> sm_count;
  int64_t memory_bytes = 0;
  std::optional<int> memory_bus_width_bits;
  std::optional<double> max_sm_clock_mhz, max_mem_clock_mhz;
  std::optional<int> pcie_gen_max, pcie_width_max, pcie_gen_current, pcie_width_current;
  std::optional<double> power_limit_w;
  std::optional<bool> mig, ecc;
};

// Driver and library versions (CUDA encodes versions as 1000*major + 10*minor).
struct SoftwareInfo {
  std::optional<std::string> driver_version;  // NVML's string, e.g. "580.65.06"
  std::optional<int> cuda_driver, cuda_runtime, cublas, nccl;
};

// Clocks and health of one GPU at one moment (NVML); empty fields when unavailable.
struct ClockSample {
  std::optional<double> sm_mhz, mem_mhz, temperature_c, power_w;
  std::vector<std::string> throttle_reasons;  // e.g. "sw_power_cap", "hw_thermal_slowdown"
};

// Who takes part in a collective: all local GPUs in one process (world = local count, first
// rank 0, empty id), or this process's share of a multi-node job (ranks from MPI).
struct CollectiveGroup {
  int world_ranks = 0;
  int first_rank = 0;
  std::string unique_id;  // ncclUniqueId bytes from rank 0; empty = make one here
};

class Device {
 public:
  virtual ~Device() = default;
  // True for SimulatedDevice: results are marked "simulated" in the file.
  virtual bool simulated() const = 0;
  // Opens the driver and lists the GPUs. A Failure here means no usable GPU (exit code 3).
  virtual Outcome<std::vector<GpuInfo>> open() = 0;
  virtual SoftwareInfo software() = 0;
  // Empty when `gpu` can run GEMMs in `p`; otherwise why not (the case is waived).
  virtual std::string gemm_unsupported(int gpu, Precision p) = 0;
  // Times C = A*B for square n x n matrices.
  virtual Outcome<Timings> gemm(int gpu, Precision p, int64_t n, Iterations it) = 0;
  // Times a STREAM-style kernel over arrays of `array_bytes` bytes each.
  virtual Outcome<Timings> memory(int gpu, MemOp op, int64_t array_bytes, Iterations it) = 0;
  // Times one host <-> device copy of `bytes` from pinned or pageable host memory.
  virtual Outcome<Timings> host_copy(int gpu, CopyDir dir, bool pinned, int64_t bytes,
                                     Iterations it) = 0;
  // Whether `src` can write to `dst` directly (NVLink or PCIe peer-to-peer).
  virtual bool peer_access(int src, int dst) = 0;
  // Times a copy of `bytes` from GPU `src` to GPU `dst`.
  virtual Outcome<Timings> peer_copy(int src, int dst, int64_t bytes, Iterations it) = 0;
  // Empty when collectives can run; otherwise why not (e.g. libnccl.so.2 not found).
  virtual std::string collectives_unavailable() = 0;
  // A fresh NCCL unique id (rank 0 of a multi-node job shares it); empty on failure.
  virtual std::string collective_id() = 0;
  // Times an all-reduce (sum, fp32) of `bytes` per GPU over `gpus` within `group`.
  virtual Outcome<Timings> allreduce(const std::vector<int>& gpus, const CollectiveGroup& group,
                                     int64_t bytes, Iterations it) = 0;
  // Current clocks, temperature, power and throttle reasons of `gpu`. Thread-safe.
  virtual ClockSample clocks(int gpu) = 0;
  // Tells the device which case runs next (for logs and for simulated fault injection).
  virtual void begin_case(const std::string& name) { (void)name; }
  // Called from another thread when a case runs past its timeout: stop waiting if possible.
  virtual void cancel() {}
};

}  // namespace gpuplan::probe
