// GEMM through cuBLASLt, all precisions on one path: D = A^T B (TN, the layout FP8 requires),
// square n, algorithm from cublasLtMatmulAlgoGetHeuristic with a 32 MiB workspace, inputs of
// small multiples of 1/16 (exact in FP8; zeros would flatter power-limited clocks). After the
// timed loop, D[0,0] is checked against a host dot product.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cmath>
#include <cstring>

#include "real_device.h"

namespace gpuplan::probe {
namespace {

constexpr size_t kWorkspaceBytes = 32u << 20;

Failure cublas_failure(cublasStatus_t s, const char* expression, int line) {
  Failure f;
  f.kind = s == CUBLAS_STATUS_NOT_SUPPORTED  ? Failure::Kind::unsupported
           : s == CUBLAS_STATUS_ALLOC_FAILED ? Failure::Kind::out_of_memory
                                             : Failure::Kind::error;
  f.name = cublasGetStatusName(s);
  f.expression = expression;
  f.location = "cuda_gemm.cu:" + std::to_string(line);
  f.message = std::string(cublasGetStatusString(s)) + " (" + f.name + ") in " + f.expression +
              " at " + f.location;
  return f;
}

#define PROBE_CUBLAS(expr)                                                                     \
  do {                                                                                         \
    const cublasStatus_t probe_st_ = (expr);                                                   \
    if (probe_st_ != CUBLAS_STATUS_SUCCESS) return cublas_failure(probe_st_, #expr, __LINE__); \
  } while (0)

struct Types {
  cudaDataType_t ab, cd, scale;
  cublasComputeType_t compute;
  size_t ab_bytes, cd_bytes;
};

Types types_of(Precision p) {
  switch (p) {
    case Precision::fp64:
      return {CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, 8, 8};
    case Precision::fp32:
      return {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, 4};
    case Precision::tf32:
      return {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4};
    case Precision::fp16:
      return {CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2, 2};
    case Precision::bf16:
      return {CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2, 2};
    case Precision::fp8:
      return {CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 1, 2};
  }
  return {};
}

// Values in {-8..8}/16: exact in every type used here.
__device__ __host__ inline float pattern(size_t i, unsigned seed) {
  const unsigned h = unsigned(i * 2654435761u) ^ seed;
  return float(int((h >> 7) % 17u) - 8) / 16.0f;
}

template <class T>
__global__ void fill_matrix(T* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    p[i] = T(pattern(i, seed));
  }
}

template <class T>
void fill(void* p, size_t n, unsigned seed, cudaStream_t s) {
  fill_matrix<T><<<1024, 256, 0, s>>>(static_cast<T*>(p), n, seed);
}

void fill_any(Precision p, void* ptr, size_t n, unsigned seed, cudaStream_t s) {
  switch (p) {
    case Precision::fp64:
      fill<double>(ptr, n, seed, s);
      break;
    case Precision::fp32:
    case Precision::tf32:
      fill<float>(ptr, n, seed, s);
      break;
    case Precision::fp16:
      fill<__half>(ptr, n, seed, s);
      break;
    case Precision::bf16:
      fill<__nv_bfloat16>(ptr, n, seed, s);
      break;
    case Precision::fp8:
      fill<__nv_fp8_e4m3>(ptr, n, seed, s);
      break;
  }
}

double to_double(const void* p, Precision prec, bool output) {
  if (output && prec == Precision::fp8)
    return double(__bfloat162float(*static_cast<const __nv_bfloat16*>(p)));
  switch (prec) {
    case Precision::fp64:
      return *static_cast<const double*>(p);
    case Precision::fp32:
    case Precision::tf32:
      return *static_cast<const float*>(p);
    case Precision::fp16:
      return double(__half2float(*static_cast<const __half*>(p)));
    case Precision::bf16:
      return double(__bfloat162float(*static_cast<const __nv_bfloat16*>(p)));
    case Precision::fp8:
      return double(float(*static_cast<const __nv_fp8_e4m3*>(p)));
  }
  return 0;
}

// cuBLASLt objects of one GEMM, destroyed on scope exit.
struct Lt {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  ~Lt() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
    if (handle) cublasLtDestroy(handle);
  }
};

}  // namespace

Outcome<Timings> RealCudaDevice::gemm(int gpu, Precision p, int64_t n64, Iterations it) {
  PROBE_CUDA(cudaSetDevice(gpu));
  const Types t = types_of(p);
  const uint64_t n = uint64_t(n64);
  const size_t elems = size_t(n * n);
  DeviceBuffer a, b, d, ws;
  PROBE_CUDA(a.allocate(elems * t.ab_bytes));
  PROBE_CUDA(b.allocate(elems * t.ab_bytes));
  PROBE_CUDA(d.allocate(elems * t.cd_bytes));
  PROBE_CUDA(ws.allocate(kWorkspaceBytes));
  StreamEvents se;
  PROBE_CUDA(se.create(it.timed + 1));
  fill_any(p, a.get(), elems, 0x1234u, se.stream);
  fill_any(p, b.get(), elems, 0x5678u, se.stream);
  PROBE_CUDA(cudaGetLastError());

  Lt lt;
  PROBE_CUBLAS(cublasLtCreate(&lt.handle));
  PROBE_CUBLAS(cublasLtMatmulDescCreate(&lt.op, t.compute, t.scale));
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  PROBE_CUBLAS(cublasLtMatmulDescSetAttribute(lt.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  PROBE_CUBLAS(cublasLtMatmulDescSetAttribute(lt.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  PROBE_CUBLAS(cublasLtMatrixLayoutCreate(&lt.a, t.ab, n, n, int64_t(n)));  // k x m, transposed
  PROBE_CUBLAS(cublasLtMatrixLayoutCreate(&lt.b, t.ab, n, n, int64_t(n)));  // k x n
  PROBE_CUBLAS(cublasLtMatrixLayoutCreate(&lt.c, t.cd, n, n, int64_t(n)));  // m x n
  PROBE_CUBLAS(cublasLtMatmulPreferenceCreate(&lt.pref));
  const uint64_t ws_bytes = kWorkspaceBytes;
  PROBE_CUBLAS(cublasLtMatmulPreferenceSetAttribute(
      lt.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes));
  cublasLtMatmulHeuristicResult_t algo{};
  int found = 0;
  PROBE_CUBLAS(cublasLtMatmulAlgoGetHeuristic(lt.handle, lt.op, lt.a, lt.b, lt.c, lt.c, lt.pref, 1,
                                              &algo, &found));
  if (found == 0) {
    return Failure{Failure::Kind::unsupported, "no_algorithm", "cublasLtMatmulAlgoGetHeuristic",
                   "cuda_gemm.cu",
                   std::string("cuBLASLt has no ") + precision_name(p) +
                       " algorithm for n = " + std::to_string(n)};
  }
  const double alpha64 = 1, beta64 = 0;
  const float alpha32 = 1, beta32 = 0;
  const void* alpha = p == Precision::fp64 ? static_cast<const void*>(&alpha64) : &alpha32;
  const void* beta = p == Precision::fp64 ? static_cast<const void*>(&beta64) : &beta32;

  auto timings = time_on_stream(se, it, [&]() -> std::optional<Failure> {
    PROBE_CUBLAS(cublasLtMatmul(lt.handle, lt.op, alpha, a.get(), lt.a, b.get(), lt.b, beta,
                                d.get(), lt.c, d.get(), lt.c, &algo.algo, ws.get(), kWorkspaceBytes,
                                se.stream));
    return std::nullopt;
  });
  if (!timings.ok()) return timings;

  // D[0,0] = sum_l A[l,0] * B[l,0]: the first column of each stored matrix.
  std::vector<unsigned char> ha(size_t(n) * t.ab_bytes), hb(size_t(n) * t.ab_bytes), hd(t.cd_bytes);
  PROBE_CUDA(cudaStreamSynchronize(se.stream));
  PROBE_CUDA(cudaMemcpy(ha.data(), a.get(), ha.size(), cudaMemcpyDeviceToHost));
  PROBE_CUDA(cudaMemcpy(hb.data(), b.get(), hb.size(), cudaMemcpyDeviceToHost));
  PROBE_CUDA(cudaMemcpy(hd.data(), d.get(), hd.size(), cudaMemcpyDeviceToHost));
  double want = 0, scale = 0;
  for (size_t l = 0; l < size_t(n); ++l) {
    const double x =
        to_double(&ha[l * t.ab_bytes], p, false) * to_double(&hb[l * t.ab_bytes], p, false);
    want += x;
    scale += std::fabs(x);
  }
  const double got = to_double(hd.data(), p, true);
  const double tolerance = (p == Precision::fp64   ? 1e-9
                            : p == Precision::fp32 ? 1e-4
                                                   : 1e-2) *
                           (scale + 1);
  if (std::fabs(got - want) > tolerance) {
    return Failure{Failure::Kind::error, "wrong_result", "cublasLtMatmul", "cuda_gemm.cu",
                   std::string(precision_name(p)) + " GEMM gave D[0,0] = " + std::to_string(got) +
                       ", expected " + std::to_string(want)};
  }
  return timings;
}

}  // namespace gpuplan::probe
