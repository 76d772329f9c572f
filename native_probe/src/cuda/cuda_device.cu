// RealCudaDevice: discovery, versions, clocks, host and peer copies.
#include <cublasLt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_device.h"
#include "nvml.h"
#include "real_device.h"

namespace gpuplan::probe {

Failure cuda_failure(cudaError_t e, const char* expression, const char* file, int line) {
  Failure f;
  switch (e) {
    case cudaErrorMemoryAllocation:
      f.kind = Failure::Kind::out_of_memory;
      break;
    // Sticky errors: the context (often the GPU) is unusable for the rest of the process.
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorECCUncorrectable:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
    case cudaErrorDevicesUnavailable:
    case cudaErrorUnknown:
      f.kind = Failure::Kind::device_lost;
      break;
    case cudaErrorNotSupported:
      f.kind = Failure::Kind::unsupported;
      break;
    default:
      f.kind = Failure::Kind::error;
  }
  f.name = cudaGetErrorName(e);
  f.expression = expression;
  const char* base = std::strrchr(file, '/');
  f.location = std::string(base ? base + 1 : file) + ":" + std::to_string(line);
  f.message = std::string(cudaGetErrorString(e)) + " (" + f.name + ") in " + f.expression + " at " +
              f.location;
  cudaGetLastError();  // clear a non-sticky error so later cases can run
  return f;
}

StreamEvents::~StreamEvents() {
  for (cudaEvent_t e : events) cudaEventDestroy(e);
  if (stream) cudaStreamDestroy(stream);
}

cudaError_t StreamEvents::create(int n) {
  if (cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)) return e;
  for (int i = 0; i < n; ++i) {
    cudaEvent_t ev = nullptr;
    if (cudaError_t e = cudaEventCreate(&ev)) return e;
    events.push_back(ev);
  }
  return cudaSuccess;
}

std::unique_ptr<Device> make_cuda_device() {
  return std::make_unique<RealCudaDevice>();
}

namespace {

std::string cuda_version(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

// The no-GPU cases from the probe notes: each a fixed message, all exit code 3.
Failure no_device(cudaError_t e, int driver) {
  Failure f = cuda_failure(e, "cudaGetDeviceCount(&count)", __FILE__, __LINE__);
  f.kind = Failure::Kind::unsupported;
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  const std::string code = " (" + f.name + ", code " + std::to_string(int(e)) + ")";
  if (e == cudaErrorInsufficientDriver && driver == 0) {
    f.message = "no NVIDIA driver found (libcuda.so.1 is not installed)" + code +
                "; install the driver, or use --simulate GPU_ID to try the pipeline";
  } else if (e == cudaErrorInsufficientDriver) {
    f.message = "the NVIDIA driver supports CUDA " + cuda_version(driver) +
                " but this probe was built with CUDA " + cuda_version(runtime) + code +
                "; update the driver (CUDA 13 needs 580 or newer, CUDA 12 needs 525) "
                "or use the cu12 build";
  } else if (e == cudaErrorStubLibrary) {
    f.message = "libcuda.so.1 is the CUDA toolkit's stub, not a driver" + code +
                "; install the NVIDIA driver or remove the stubs folder from LD_LIBRARY_PATH";
  } else if (e == cudaErrorNoDevice || e == cudaSuccess) {
    f.message = "no CUDA device visible (check nvidia-smi and CUDA_VISIBLE_DEVICES)" +
                (e == cudaSuccess ? std::string(" (device count 0)") : code);
  } else {
    f.message = "CUDA cannot start: " + std::string(cudaGetErrorString(e)) + code;
  }
  return f;
}

}  // namespace

RealCudaDevice::~RealCudaDevice() {
  const auto& api = nccl::api();
  for (nccl::Comm c : comms_) {
    if (api.loaded) api.CommDestroy(c);
  }
}

Outcome<std::vector<GpuInfo>> RealCudaDevice::open() {
  int count = 0, driver = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  cudaDriverGetVersion(&driver);
  if (e != cudaSuccess || count == 0) return no_device(e, driver);
  Nvml& nvml = Nvml::get();
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    PROBE_CUDA(cudaGetDeviceProperties(&prop, i));
    GpuInfo g;
    g.index = i;
    g.name = prop.name;
    g.memory_bytes = int64_t(prop.totalGlobalMem);
    int v = 0;
    PROBE_CUDA(cudaDeviceGetAttribute(&g.cc_major, cudaDevAttrComputeCapabilityMajor, i));
    PROBE_CUDA(cudaDeviceGetAttribute(&g.cc_minor, cudaDevAttrComputeCapabilityMinor, i));
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, i) == cudaSuccess)
      g.sm_count = v;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth, i) == cudaSuccess)
      g.memory_bus_width_bits = v;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, i) == cudaSuccess && v > 0)
      g.max_sm_clock_mhz = v / 1000.0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, i) == cudaSuccess && v > 0)
      g.max_mem_clock_mhz = v / 1000.0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrEccEnabled, i) == cudaSuccess) g.ecc = v != 0;
    char uuid[64];
    const unsigned char* u = reinterpret_cast<const unsigned char*>(prop.uuid.bytes);
    std::snprintf(uuid, sizeof uuid,
                  "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
                  u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                  u[14], u[15]);
    g.uuid = uuid;
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, i) == cudaSuccess) g.pci_bus_id = bus;
    void* handle = nvml.device_for_pci(g.pci_bus_id);
    nvml.describe(handle, g);  // NVML's clocks (MHz, boost) replace the runtime's where present
    nvml_.push_back(handle);
    gpus_.push_back(g);
  }
  return gpus_;
}

SoftwareInfo RealCudaDevice::software() {
  SoftwareInfo s;
  s.driver_version = Nvml::get().driver_version();
  int v = 0;
  if (cudaDriverGetVersion(&v) == cudaSuccess) s.cuda_driver = v;
  if (cudaRuntimeGetVersion(&v) == cudaSuccess) s.cuda_runtime = v;
  s.cublas = int(cublasLtGetVersion());
  const auto& api = nccl::api();
  if (api.loaded && api.GetVersion(&v) == nccl::kSuccess) s.nccl = v;
  return s;
}

ClockSample RealCudaDevice::clocks(int gpu) {
  if (gpu < 0 || size_t(gpu) >= nvml_.size()) return {};
  return Nvml::get().sample(nvml_[size_t(gpu)]);
}

Outcome<Timings> RealCudaDevice::host_copy(int gpu, CopyDir dir, bool pinned, int64_t bytes,
                                           Iterations it) {
  PROBE_CUDA(cudaSetDevice(gpu));
  DeviceBuffer dev;
  PROBE_CUDA(dev.allocate(size_t(bytes)));
  struct Host {
    void* p = nullptr;
    bool pinned = false;
    ~Host() {
      if (pinned && p) cudaFreeHost(p);
      if (!pinned) std::free(p);
    }
  } host;
  host.pinned = pinned;
  if (pinned) {
    PROBE_CUDA(cudaMallocHost(&host.p, size_t(bytes)));
  } else {
    host.p = std::malloc(size_t(bytes));
    if (!host.p)
      return Failure{Failure::Kind::out_of_memory, "malloc", "malloc(bytes)", "cuda_device.cu",
                     "host out of memory"};
  }
  std::memset(host.p, 1, size_t(bytes));  // touch every page before timing
  void* dst = dir == CopyDir::h2d ? dev.get() : host.p;
  const void* src = dir == CopyDir::h2d ? static_cast<const void*>(host.p) : dev.get();
  const cudaMemcpyKind kind = dir == CopyDir::h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  if (pinned) {
    StreamEvents se;
    PROBE_CUDA(se.create(it.timed + 1));
    return time_on_stream(se, it, [&]() -> std::optional<Failure> {
      PROBE_CUDA(cudaMemcpyAsync(dst, src, size_t(bytes), kind, se.stream));
      return std::nullopt;
    });
  }
  // Pageable copies are staged by the driver and return when done: time them on the host.
  for (int i = 0; i < it.warmup; ++i) PROBE_CUDA(cudaMemcpy(dst, src, size_t(bytes), kind));
  Timings t;
  for (int i = 0; i < it.timed; ++i) {
    const auto start = std::chrono::steady_clock::now();
    PROBE_CUDA(cudaMemcpy(dst, src, size_t(bytes), kind));
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return t;
}

bool RealCudaDevice::peer_access(int src, int dst) {
  int can = 0;
  return src != dst && cudaDeviceCanAccessPeer(&can, src, dst) == cudaSuccess && can;
}

Outcome<Timings> RealCudaDevice::peer_copy(int src, int dst, int64_t bytes, Iterations it) {
  for (auto [a, b] : {std::pair<int, int>{src, dst}, {dst, src}}) {
    PROBE_CUDA(cudaSetDevice(a));
    const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled)
      cudaGetLastError();
    else
      PROBE_CUDA(e);
  }
  DeviceBuffer to;
  PROBE_CUDA(cudaSetDevice(dst));
  PROBE_CUDA(to.allocate(size_t(bytes)));
  DeviceBuffer from;
  PROBE_CUDA(cudaSetDevice(src));
  PROBE_CUDA(from.allocate(size_t(bytes)));
  PROBE_CUDA(cudaMemset(from.get(), 1, size_t(bytes)));
  StreamEvents se;
  PROBE_CUDA(se.create(it.timed + 1));
  return time_on_stream(se, it, [&]() -> std::optional<Failure> {
    PROBE_CUDA(cudaMemcpyPeerAsync(to.get(), dst, from.get(), src, size_t(bytes), se.stream));
    return std::nullopt;
  });
}

}  // namespace gpuplan::probe
