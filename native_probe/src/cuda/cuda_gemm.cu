// GEMM through cuBLASLt, all precisions on one path: D = A^T B (TN, the layout FP8 requires),
// square n, algorithm from cublasLtMatmulAlgoGetHeuristic with a 32 MiB workspace, inputs of
// small multiples of 1/16 (exact in FP8; zeros would flatter power-limited clocks). After the
// timed loop, D[0,0] is checked against a host dot product.
//
// The block-scaled recipes (cuBLASLt 12.8+, sm_100+) add a scale tensor per operand: MXFP8 one
// UE8M0 byte per 32 E4M3 elements along K, NVFP4 one UE4M3 byte per 16 E2M1 elements (two per
// byte). Every scale is 1 (UE8M0 127 = 2^0, UE4M3 0x38 = 1.0), so the scale layout cuBLASLt
// expects (128 x 4 tiles) needs no swizzling and D[0,0] is the plain dot product; NVFP4 data
// takes values in {0, +-0.5, +-1}, exact in E2M1.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

// Block-scaled matmuls (CUBLASLT_MATMUL_DESC_A_SCALE_MODE, CUDA_R_4F_E2M1) came with cuBLAS 12.8;
// a CUDA 12.x build before that (the V100 build) compiles without them and waives the cases.
#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 120800
#define GPUPLAN_BLOCK_SCALED 1
#else
#define GPUPLAN_BLOCK_SCALED 0
#endif

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
  size_t ab_bits, cd_bytes;
  int block = 0;          // elements per block scale along K; 0: no block scales
  unsigned char one = 0;  // the scale byte meaning 1.0
  int mode = 0;           // cublasLtMatmulMatrixScale_t of A and B
};

Types types_of(Precision p) {
  switch (p) {
    case Precision::fp64:
      return {CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, 64, 8};
    case Precision::fp32:
      return {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 32, 4};
    case Precision::tf32:
      return {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 32, 4};
    case Precision::fp16:
      return {CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 16, 2};
    case Precision::bf16:
      return {CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 16, 2};
    case Precision::fp8:
      return {CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 8, 2};
#if GPUPLAN_BLOCK_SCALED
    case Precision::mxfp8:
      return {CUDA_R_8F_E4M3,
              CUDA_R_16BF,
              CUDA_R_32F,
              CUBLAS_COMPUTE_32F,
              8,
              2,
              32,
              127,
              CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0};
    case Precision::nvfp4:
      return {CUDA_R_4F_E2M1,
              CUDA_R_16BF,
              CUDA_R_32F,
              CUBLAS_COMPUTE_32F,
              4,
              2,
              16,
              0x38,
              CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3};
#else
    case Precision::mxfp8:
    case Precision::nvfp4:
      break;  // waived by gemm_unsupported
#endif
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

// E2M1 codes of {0, 0.5, 1, -0.5, -1} (sign bit 3, then 2 exponent bits and 1 mantissa bit).
__device__ __host__ inline unsigned fp4_code(size_t i, unsigned seed) {
  const unsigned codes[5] = {0x0, 0x1, 0x2, 0x9, 0xA};
  return codes[(unsigned(i * 2654435761u) ^ seed) % 5u];
}
__host__ inline double fp4_value(unsigned code) {
  const double magnitude[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  return (code & 8u ? -1 : 1) * magnitude[code & 7u];
}

// Two E2M1 elements a byte, element 2j in the low nibble.
__global__ void fill_fp4(unsigned char* p, size_t elements, unsigned seed) {
  for (size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x; 2 * j < elements;
       j += size_t(gridDim.x) * blockDim.x) {
    p[j] = static_cast<unsigned char>(fp4_code(2 * j, seed) | (fp4_code(2 * j + 1, seed) << 4));
  }
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
    case Precision::mxfp8:
      fill<__nv_fp8_e4m3>(ptr, n, seed, s);
      break;
    case Precision::nvfp4:
      fill_fp4<<<1024, 256, 0, s>>>(static_cast<unsigned char*>(ptr), n, seed);
      break;
  }
}

// Element `i` of a host copy of a matrix (of D when `output`).
double element(const unsigned char* base, size_t i, Precision prec, bool output) {
  if (!output && prec == Precision::nvfp4) {
    const unsigned byte = base[i / 2];
    return fp4_value(i % 2 ? byte >> 4 : byte & 0xFu);
  }
  const size_t bytes = output ? types_of(prec).cd_bytes : types_of(prec).ab_bits / 8;
  const void* p = base + i * bytes;
  if (output && (prec == Precision::fp8 || block_scaled(prec)))
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
    case Precision::mxfp8:
      return double(float(*static_cast<const __nv_fp8_e4m3*>(p)));
    case Precision::nvfp4:
      break;  // handled above
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

// The matmul and layout descriptors of D = A^T B, with the block-scale modes and pointers of A
// and B for a block-scaled recipe.
std::optional<Failure> describe(Lt& lt, const Types& t, uint64_t n, void* scale_a, void* scale_b) {
  PROBE_CUBLAS(cublasLtCreate(&lt.handle));
  PROBE_CUBLAS(cublasLtMatmulDescCreate(&lt.op, t.compute, t.scale));
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  PROBE_CUBLAS(cublasLtMatmulDescSetAttribute(lt.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  PROBE_CUBLAS(cublasLtMatmulDescSetAttribute(lt.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
#if GPUPLAN_BLOCK_SCALED
  if (t.block > 0) {
    const int32_t mode = t.mode;
    PROBE_CUBLAS(cublasLtMatmulDescSetAttribute(lt.op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode,
                                                sizeof mode));
    PROBE_CUBLAS(cublasLtMatmulDescSetAttribute(lt.op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode,
                                                sizeof mode));
    PROBE_CUBLAS(cublasLtMatmulDescSetAttribute(lt.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                                &scale_a, sizeof scale_a));
    PROBE_CUBLAS(cublasLtMatmulDescSetAttribute(lt.op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                                &scale_b, sizeof scale_b));
  }
#else
  (void)scale_a;
  (void)scale_b;
#endif
  PROBE_CUBLAS(cublasLtMatrixLayoutCreate(&lt.a, t.ab, n, n, int64_t(n)));  // k x m, transposed
  PROBE_CUBLAS(cublasLtMatrixLayoutCreate(&lt.b, t.ab, n, n, int64_t(n)));  // k x n
  PROBE_CUBLAS(cublasLtMatrixLayoutCreate(&lt.c, t.cd, n, n, int64_t(n)));  // m x n
  PROBE_CUBLAS(cublasLtMatmulPreferenceCreate(&lt.pref));
  const uint64_t ws_bytes = kWorkspaceBytes;
  PROBE_CUBLAS(cublasLtMatmulPreferenceSetAttribute(
      lt.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes));
  return std::nullopt;
}

// D[0,0] = sum_l A[l,0] * B[l,0] (the first column of each stored matrix; every block scale is
// 1), checked after the timed loop.
std::optional<Failure> check_corner(Precision p, const Types& t, uint64_t n, const void* a,
                                    const void* b, const void* d) {
  const size_t column_bytes = size_t(n) * t.ab_bits / 8;
  std::vector<unsigned char> ha(column_bytes), hb(column_bytes), hd(t.cd_bytes);
  PROBE_CUDA(cudaMemcpy(ha.data(), a, ha.size(), cudaMemcpyDeviceToHost));
  PROBE_CUDA(cudaMemcpy(hb.data(), b, hb.size(), cudaMemcpyDeviceToHost));
  PROBE_CUDA(cudaMemcpy(hd.data(), d, hd.size(), cudaMemcpyDeviceToHost));
  double want = 0, scale = 0;
  for (size_t l = 0; l < size_t(n); ++l) {
    const double x = element(ha.data(), l, p, false) * element(hb.data(), l, p, false);
    want += x;
    scale += std::fabs(x);
  }
  const double got = element(hd.data(), 0, p, true);
  const double tolerance = (p == Precision::fp64   ? 1e-9
                            : p == Precision::fp32 ? 1e-4
                                                   : 1e-2) *
                           (scale + 1);
  if (std::fabs(got - want) > tolerance) {
    return Failure{Failure::Kind::error, "wrong_result", "cublasLtMatmul", "cuda_gemm.cu",
                   std::string(precision_name(p)) + " GEMM gave D[0,0] = " + std::to_string(got) +
                       ", expected " + std::to_string(want)};
  }
  return std::nullopt;
}

}  // namespace

std::string RealCudaDevice::gemm_unsupported(int, Precision p) {
  if (!block_scaled(p)) return {};
#if GPUPLAN_BLOCK_SCALED
  const size_t runtime = cublasLtGetVersion();
  if (runtime < 120800) {
    return std::string(precision_name(p)) + " GEMM needs cuBLASLt 12.8 or newer (this one is " +
           std::to_string(runtime) + ")";
  }
  return {};
#else
  return std::string(precision_name(p)) + " GEMM needs cuBLAS 12.8 or newer; this probe was " +
         "built with cuBLAS " + std::to_string(CUBLAS_VERSION);
#endif
}

Outcome<Timings> RealCudaDevice::gemm(int gpu, Precision p, int64_t n64, Iterations it) {
  PROBE_CUDA(cudaSetDevice(gpu));
  const Types t = types_of(p);
  const uint64_t n = uint64_t(n64);
  const size_t elems = size_t(n * n);
  // One scale byte per block of K; n is a multiple of 128, so the 128 x 4 scale tiles are full.
  const size_t scale_bytes = t.block > 0 ? elems / size_t(t.block) : 0;
  DeviceBuffer a, b, d, ws, sa, sb;
  PROBE_CUDA(a.allocate(elems * t.ab_bits / 8));
  PROBE_CUDA(b.allocate(elems * t.ab_bits / 8));
  PROBE_CUDA(d.allocate(elems * t.cd_bytes));
  PROBE_CUDA(ws.allocate(kWorkspaceBytes));
  StreamEvents se;
  PROBE_CUDA(se.create(it.timed + 1));
  if (scale_bytes > 0) {
    PROBE_CUDA(sa.allocate(scale_bytes));
    PROBE_CUDA(sb.allocate(scale_bytes));
    PROBE_CUDA(cudaMemsetAsync(sa.get(), t.one, scale_bytes, se.stream));
    PROBE_CUDA(cudaMemsetAsync(sb.get(), t.one, scale_bytes, se.stream));
  }
  fill_any(p, a.get(), elems, 0x1234u, se.stream);
  fill_any(p, b.get(), elems, 0x5678u, se.stream);
  PROBE_CUDA(cudaGetLastError());

  Lt lt;
  if (auto f = describe(lt, t, n, sa.get(), sb.get())) return *f;
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
  PROBE_CUDA(cudaStreamSynchronize(se.stream));
  if (auto f = check_corner(p, t, n, a.get(), b.get(), d.get())) return *f;
  return timings;
}

}  // namespace gpuplan::probe
