// Transformer Engine's low-precision recipes in the step time (core/src/training with
// workload/precision.cpp): weights quantised once per step when the framework caches them, FP4 on
// a GPU without FP4 tensor cores, and NVFP4 / MXFP8 matmul rates, against hand-derived figures.
#include <gtest/gtest.h>

#include "gpuplan/timing.h"
#include "test_util.h"

namespace gpuplan {
namespace {

Estimate must(const Model& m, const Setup& s) {
  auto e = estimate(m, s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  return e.ok() ? e.value() : Estimate{};
}

// The step time of LLaMA-2-7B under fp8 on one H100, seq 2048, micro-batch 1, `steps`
// micro-batches per optimizer step, with or without TE's weight cache.
StepTime fp8_step(int64_t steps, bool cache) {
  gpuplan::Setup s;
  s.precision = Precision::fp8;
  s.seq_len = 2048;
  s.micro_batch = 1;
  s.global_batch = steps;
  s.cache_quantized_weights = cache;
  const Model& m = test::model("llama-2-7b");
  const Estimate e = must(m, s);
  const Gpu* h100 = test::catalog().find_gpu("h100-sxm5-80gb");
  EXPECT_NE(h100, nullptr);
  auto c = single_node_cluster(*h100, 1);
  auto w = build_work_profile(m, s, e);
  EXPECT_TRUE(c.ok() && w.ok());
  auto t = estimate_step_time(m, s, e, w.value(), c.value(), test::catalog().efficiencies);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? t.value() : StepTime{};
}

TEST(QuantisedWeights, CastOncePerStepWhenTheFrameworkCachesThem) {
  // Quantising the weights reads each bf16 block weight and writes its two FP8 usages:
  // 2 + 1 + 1 = 4 bytes per weight over (params - token embeddings) = 6,738,415,616 -
  // 32000 x 4096 = 6,607,343,616 weights, at H100 bandwidth x the HBM efficiency, plus 4 kernel
  // gaps per block (32 blocks). Forward only: backward reads the saved copies.
  const Gpu* h100 = test::catalog().find_gpu("h100-sxm5-80gb");
  ASSERT_NE(h100, nullptr);
  const Efficiencies& eff = test::catalog().efficiencies;
  const double cast_s = 4 * 6'607'343'616.0 / (h100->memory_bandwidth_bytes_per_s * eff.hbm) +
                        4 * 32 * eff.kernel_overhead_s;
  // Composer / llm-foundry (no is_first_microbatch): every micro-batch casts; Megatron-Core
  // (cached): the first does. One micro-batch: the same step; four: three casts fewer.
  EXPECT_NEAR(fp8_step(1, false).forward_s, fp8_step(1, true).forward_s, 1e-9);
  EXPECT_NEAR(fp8_step(4, false).forward_s - fp8_step(4, true).forward_s, 3 * cast_s, 1e-9);
  EXPECT_NEAR(fp8_step(4, false).backward_s, fp8_step(4, true).backward_s, 1e-9);
}

TEST(QuantisedWeights, Fp4OnAGpuWithoutFp4IsAnErrorNamingIt) {
  const Gpu* h100 = test::catalog().find_gpu("h100-sxm5-80gb");
  ASSERT_NE(h100, nullptr);
  auto nvfp4 = dense_peak_flop_per_s(*h100, Precision::nvfp4);
  ASSERT_FALSE(nvfp4.ok());
  EXPECT_EQ(nvfp4.error().message,
            "GPU 'h100-sxm5-80gb' has no FP4 tensor cores; nvfp4 needs Blackwell (sm_100 or "
            "later): choose fp8 or another GPU");
  auto mxfp8 = dense_peak_flop_per_s(*h100, Precision::mxfp8);
  ASSERT_FALSE(mxfp8.ok());
  EXPECT_EQ(mxfp8.error().message,
            "GPU 'h100-sxm5-80gb' has no block-scaled (MX) FP8 tensor cores; mxfp8 needs "
            "Blackwell (sm_100 or later): choose fp8 or fp8-blockwise, or another GPU");
  // The same error stops the step time.
  gpuplan::Setup s;
  s.precision = Precision::nvfp4;
  s.seq_len = 2048;
  const Model& m = test::model("llama-2-7b");
  const Estimate e = must(m, s);
  auto w = build_work_profile(m, s, e);
  auto c = single_node_cluster(*h100, 1);
  ASSERT_TRUE(w.ok() && c.ok());
  auto t = estimate_step_time(m, s, e, w.value(), c.value(), test::catalog().efficiencies);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, nvfp4.error().message);
}

TEST(QuantisedWeights, Nvfp4MatmulsRunAtTheFp4PeakAndBf16LayersAtBf16) {
  // A Blackwell GPU built for the test: B200's entry with an FP4 peak of 9e15 FLOP/s and its
  // measured FP4 ceiling removed, so FP4 matmuls run at 9e15 x the GEMM efficiency; the 16-bit
  // ones at B200's measured bf16 ceiling (1745 TFLOP/s).
  const Gpu* b200 = test::catalog().find_gpu("b200-sxm");
  ASSERT_NE(b200, nullptr);
  Gpu blackwell = *b200;
  blackwell.peak_dense_flops_per_s["fp4"] = 9e15;
  blackwell.matmul_max_achievable_flops_per_s.erase("fp4");
  const Efficiencies& eff = test::catalog().efficiencies;
  WorkProfile w;
  OpClass op;
  op.kind = WorkKind::matmul;
  op.flops_per_sample = 1e15;
  w.ops.push_back(op);
  gpuplan::Setup s;
  s.precision = Precision::nvfp4;
  auto t = pass_time_s(test::model("llama-2-7b"), s, w, blackwell, eff, 1);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_NEAR(t.value().forward_s, 1e15 / (9e15 * eff.gemm), 1e-12);
  // Half the blocks kept in bf16 (WorkProfile::low_precision_share): half the FLOPs at each, the
  // bf16 half at the measured BF16 ceiling (1745 TFLOP/s) times the share large production
  // GEMMs reach of it (TensorRT-LLM's median large BF16 GEMM, 1471 TFLOP/s; a rate from spec x
  // efficiency keeps its own).
  ASSERT_DOUBLE_EQ(b200->serving_gemm.at("trtllm/bf16").matmul_flop_per_s, 1471e12);
  const double large = 1471.0 / 1745.0;
  w.low_precision_share = 0.5;
  t = pass_time_s(test::model("llama-2-7b"), s, w, blackwell, eff, 1);
  ASSERT_TRUE(t.ok());
  EXPECT_NEAR(t.value().forward_s, 0.5e15 / (9e15 * eff.gemm) + 0.5e15 / (1745e12 * large), 1e-12);
  // B200's own entry: NVFP4 at its measured FP4 ceiling (cuBLASLt, DeepGEMM PR #348), 5239
  // TFLOP/s, not at its peak, both ceilings at the large-GEMM share.
  t = pass_time_s(test::model("llama-2-7b"), s, w, *b200, eff, 1);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_NEAR(t.value().forward_s, (0.5e15 / 5239e12 + 0.5e15 / 1745e12) / large, 1e-12);
  // MXFP8 runs on B200 (Blackwell) at its measured FP8 ceiling, 3432.5 TFLOP/s, at that share.
  s.precision = Precision::mxfp8;
  w.low_precision_share = 1;
  t = pass_time_s(test::model("llama-2-7b"), s, w, *b200, eff, 1);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_NEAR(t.value().forward_s, 1e15 / (3432.5e12 * large), 1e-12);
}

}  // namespace
}  // namespace gpuplan
