// Device-memory bandwidth: grid-stride float4 kernels (read, write, copy, triad), sized to fill
// the GPU (occupancy x SMs), then a correctness check kept apart from the timed loop.
#include "real_device.h"

namespace gpuplan::probe {
namespace {

constexpr int kThreads = 256;
constexpr float kA = 1.0f, kB = 2.0f, kC = 0.5f, kScalar = 3.0f;

__global__ void fill_kernel(float4* a, size_t n, float v) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    a[i] = make_float4(v, v, v, v);
  }
}

__global__ void read_kernel(const float4* __restrict__ a, size_t n, float* sink) {
  float acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    const float4 v = a[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == -1.0f) *sink = acc;  // never true for positive data; keeps the loads alive
}

__global__ void write_kernel(float4* __restrict__ a, size_t n, float v) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    a[i] = make_float4(v, v, v, v);
  }
}

__global__ void copy_kernel(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    b[i] = a[i];
  }
}

__global__ void triad_kernel(float4* __restrict__ a, const float4* __restrict__ b,
                             const float4* __restrict__ c, float s, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    const float4 x = b[i], y = c[i];
    a[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w);
  }
}

// Reads a[i] for a few i and compares with `want`.
std::optional<Failure> check(const float4* a, size_t n, float want, const char* what) {
  for (size_t i : {size_t(0), n / 2, n - 1}) {
    float4 v{};
    if (cudaMemcpy(&v, a + i, sizeof v, cudaMemcpyDeviceToHost) != cudaSuccess || v.x != want ||
        v.w != want) {
      return Failure{Failure::Kind::error, "wrong_result", what, "cuda_memory.cu",
                     std::string(what) + " produced wrong data at element " + std::to_string(i) +
                         " (got " + std::to_string(v.x) + ", expected " + std::to_string(want) +
                         ")"};
    }
  }
  return std::nullopt;
}

}  // namespace

Outcome<Timings> RealCudaDevice::memory(int gpu, MemOp op, int64_t array_bytes, Iterations it) {
  PROBE_CUDA(cudaSetDevice(gpu));
  const size_t n = size_t(array_bytes) / sizeof(float4);
  DeviceBuffer a, b, c, sink;
  PROBE_CUDA(a.allocate(n * sizeof(float4)));
  if (memop_arrays(op) >= 2) PROBE_CUDA(b.allocate(n * sizeof(float4)));
  if (memop_arrays(op) >= 3) PROBE_CUDA(c.allocate(n * sizeof(float4)));
  PROBE_CUDA(sink.allocate(sizeof(float)));

  int sms = 0, per_sm = 0;
  PROBE_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, gpu));
  PROBE_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, triad_kernel, kThreads, 0));
  const unsigned blocks = unsigned(sms * (per_sm > 0 ? per_sm : 4));

  fill_kernel<<<blocks, kThreads>>>(a.get<float4>(), n, kA);
  if (b.get()) fill_kernel<<<blocks, kThreads>>>(b.get<float4>(), n, kB);
  if (c.get()) fill_kernel<<<blocks, kThreads>>>(c.get<float4>(), n, kC);
  PROBE_CUDA(cudaGetLastError());
  PROBE_CUDA(cudaDeviceSynchronize());

  StreamEvents se;
  PROBE_CUDA(se.create(it.timed + 1));
  auto timings = time_on_stream(se, it, [&]() -> std::optional<Failure> {
    switch (op) {
      case MemOp::read:
        read_kernel<<<blocks, kThreads, 0, se.stream>>>(a.get<float4>(), n, sink.get<float>());
        break;
      case MemOp::write:
        write_kernel<<<blocks, kThreads, 0, se.stream>>>(a.get<float4>(), n, kA);
        break;
      case MemOp::copy:
        copy_kernel<<<blocks, kThreads, 0, se.stream>>>(a.get<float4>(), b.get<float4>(), n);
        break;
      case MemOp::triad:
        triad_kernel<<<blocks, kThreads, 0, se.stream>>>(a.get<float4>(), b.get<float4>(),
                                                         c.get<float4>(), kScalar, n);
        break;
    }
    PROBE_CUDA(cudaGetLastError());
    return std::nullopt;
  });
  if (!timings.ok()) return timings;
  PROBE_CUDA(cudaStreamSynchronize(se.stream));
  std::optional<Failure> wrong;
  if (op == MemOp::write) wrong = check(a.get<float4>(), n, kA, "write_kernel");
  if (op == MemOp::copy) wrong = check(b.get<float4>(), n, kA, "copy_kernel");
  if (op == MemOp::triad) wrong = check(a.get<float4>(), n, kB + kScalar * kC, "triad_kernel");
  if (wrong) return *wrong;
  return timings;
}

}  // namespace gpuplan::probe
