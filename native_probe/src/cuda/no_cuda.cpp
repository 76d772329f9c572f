// make_cuda_device() for builds without nvcc: --simulate still works; real runs exit 3.
#include "cuda_device.h"

namespace gpuplan::probe {
namespace {

class NoCudaDevice : public Device {
 public:
  bool simulated() const override { return false; }
  Outcome<std::vector<GpuInfo>> open() override {
    return Failure{Failure::Kind::unsupported, "built_without_cuda", "make_cuda_device()",
                   "no_cuda.cpp",
                   "this gpuplan-probe was built without CUDA (no nvcc at configure time, or a "
                   "sanitizer build); rebuild on a "
                   "machine with the CUDA toolkit, or use --simulate GPU_ID"};
  }
  SoftwareInfo software() override { return {}; }
  std::string gemm_unsupported(int, Precision) override { return "built without CUDA"; }
  Outcome<Timings> gemm(int, Precision, int64_t, Iterations) override { return none(); }
  Outcome<Timings> memory(int, MemOp, int64_t, Iterations) override { return none(); }
  Outcome<Timings> host_copy(int, CopyDir, bool, int64_t, Iterations) override { return none(); }
  bool peer_access(int, int) override { return false; }
  Outcome<Timings> peer_copy(int, int, int64_t, Iterations) override { return none(); }
  std::string collectives_unavailable() override { return "built without CUDA"; }
  std::string collective_id() override { return {}; }
  Outcome<Timings> allreduce(const std::vector<int>&, const CollectiveGroup&, int64_t,
                             Iterations) override {
    return none();
  }
  ClockSample clocks(int) override { return {}; }

 private:
  static Failure none() {
    return Failure{Failure::Kind::unsupported, "built_without_cuda", "", "no_cuda.cpp",
                   "built without CUDA"};
  }
};

}  // namespace

std::unique_ptr<Device> make_cuda_device() {
  return std::make_unique<NoCudaDevice>();
}

}  // namespace gpuplan::probe
