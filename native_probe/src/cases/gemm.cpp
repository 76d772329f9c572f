// gemm_<precision>: cuBLASLt matrix multiply throughput, FLOP/s = 2 n^3 / t, at large square
// shapes (GEMM needs them to approach peak). --quick measures n = 8192 (smaller if memory or
// time demands); --full sweeps 4096, 8192 and 16384 and reports the fastest.
#include "common.h"

namespace gpuplan::probe {
namespace {

class Gemm : public Case {
 public:
  explicit Gemm(Precision p) : p_(p) {}
  std::string name() const override { return std::string("gemm_") + precision_name(p_); }
  std::string description() const override {
    switch (p_) {
      case Precision::fp64:
        return "FP64 GEMM (cuBLASLt, 64F compute)";
      case Precision::fp32:
        return "FP32 GEMM (cuBLASLt, 32F compute, no TF32)";
      case Precision::tf32:
        return "TF32 tensor-core GEMM (FP32 data, 32F_FAST_TF32 compute; sm_80+)";
      case Precision::fp16:
        return "FP16 GEMM, FP32 accumulate (sm_70+)";
      case Precision::bf16:
        return "BF16 GEMM, FP32 accumulate (sm_80+)";
      case Precision::fp8:
        return "FP8 E4M3 GEMM, TN layout, BF16 output, FP32 accumulate (sm_89+)";
      case Precision::mxfp8:
        return "MXFP8 block-scaled GEMM: E4M3 data, a UE8M0 scale per 32 elements, BF16 output "
               "(sm_100+, CUDA 12.8+)";
      case Precision::nvfp4:
        return "NVFP4 block-scaled GEMM: E2M1 data, an E4M3 scale per 16 elements, BF16 output "
               "(sm_100+, CUDA 12.8+)";
    }
    return "";
  }
  std::string filter(const Context& ctx, int gpu) const override {
    const GpuInfo& g = ctx.gpus.at(size_t(gpu));
    const int cc = g.cc_major * 10 + g.cc_minor;
    const int need = block_scaled(p_)                                   ? 100
                     : p_ == Precision::fp8                             ? 89
                     : (p_ == Precision::tf32 || p_ == Precision::bf16) ? 80
                                                                        : 0;
    if (cc < need) {
      return std::string(precision_name(p_)) + " GEMM needs sm_" + std::to_string(need) +
             " or newer (GPU " + std::to_string(gpu) + " is sm_" + std::to_string(cc) + ")";
    }
    return ctx.device.gemm_unsupported(gpu, p_);
  }
  std::vector<Row> run(Context& ctx, int gpu) override {
    const std::vector<int64_t> sweep =
        ctx.full ? std::vector<int64_t>{16384, 8192, 4096} : std::vector<int64_t>{8192};
    Budget b = budget_for(ctx.full, 0.25, 1.0);
    b.warmup_s = ctx.full ? 1.0 : 0.4;  // GEMM clocks take about a second to settle
    std::optional<Row> best;
    nlohmann::ordered_json tried = nlohmann::ordered_json::array();
    for (size_t i = 0; i < sweep.size(); ++i) {
      // Each sweep point falls back to smaller shapes if it does not fit.
      std::vector<int64_t> ladder(sweep.begin() + long(i), sweep.end());
      for (int64_t n = ladder.back() / 2; n >= 1024; n /= 2) ladder.push_back(n);
      auto m = ctx.measure(
          ladder, b, [&](int64_t n, Iterations it) { return ctx.device.gemm(gpu, p_, n, it); },
          name() + " gpu " + std::to_string(gpu));
      if (!m.ok()) {
        if (best) break;  // keep what the larger shapes gave
        return {failed_row(name(), gpu, m.failure())};
      }
      const double n = double(m.value().size);
      Row r =
          rate_row(name(), gpu, m.value(), 2 * n * n * n, "flop_per_s",
                   {{"m", m.value().size},
                    {"n", m.value().size},
                    {"k", m.value().size},
                    {"precision", precision_name(p_)},
                    {"flop_per_iteration", 2 * m.value().size * m.value().size * m.value().size}});
      tried.push_back({{"n", m.value().size}, {"median", r.stats->median}});
      if (!best || r.stats->median > best->stats->median) best = r;
      if (m.value().size < ladder.front()) break;  // already below this sweep point
      b.warmup_s = 0.3;                            // clocks are warm after the first point
    }
    if (ctx.full) best->params["sweep"] = tried;
    return {*best};
  }

 private:
  Precision p_;
};

}  // namespace

void add_gemm_cases(std::vector<std::unique_ptr<Case>>& out) {
  for (Precision p : kPrecisions) out.push_back(std::make_unique<Gemm>(p));
}

}  // namespace gpuplan::probe
