// evidence/calibration.cpp: a probe file's measurements replace the catalog's spec x efficiency
// figures, each where it applies (inside a node or between nodes, TF32 convolutions or matmuls).
#include <gtest/gtest.h>

#include "gpuplan/calibration.h"
#include "gpuplan/timing.h"
#include "test_util.h"
#include "training/timed.h"

namespace gpuplan {
namespace {

using test::forward_on;

TEST(Calibration, AMultiNodeProbeFileSetsTheBandwidthBetweenNodesAndNotInside) {
  const Gpu* g = test::catalog().find_gpu("a100-sxm4-80gb");
  ASSERT_NE(g, nullptr);
  ProbeSummary s;
  s.catalog_gpu_id = "a100-sxm4-80gb";
  s.allreduce_busbw_bytes_per_s = 40e9;
  s.node_count = 1;
  const Calibrated one = calibrate(test::catalog().efficiencies, s, *g, Precision::amp_bf16);
  EXPECT_EQ(one.efficiencies.measured_intra_busbw_bytes_per_s, 40e9);
  EXPECT_EQ(one.efficiencies.measured_inter_busbw_bytes_per_s, 0);
  s.node_count = 2;
  const Calibrated two = calibrate(test::catalog().efficiencies, s, *g, Precision::amp_bf16);
  EXPECT_EQ(two.efficiencies.measured_intra_busbw_bytes_per_s, 0);
  EXPECT_EQ(two.efficiencies.measured_inter_busbw_bytes_per_s, 40e9);

  // Two 8-GPU nodes, data parallel over 16: the ring runs at the measured pace between nodes.
  const Model& m = test::model("gpt2-medium");
  gpuplan::Setup setup;
  setup.precision = Precision::amp_bf16;
  setup.dp = 16;
  setup.global_batch = 128;
  auto e = estimate(m, setup);
  ASSERT_TRUE(e.ok());
  auto w = build_work_profile(m, setup, e.value());
  Cluster c = single_node_cluster(*g, 8).value();
  c.nodes = 2;
  c.inter_node_bytes_per_s = 100e9;
  auto t = estimate_step_time(m, setup, e.value(), w.value(), c, two.efficiencies);
  ASSERT_TRUE(t.ok()) << t.error().message;
  const double bytes = 4.0 * static_cast<double>(e.value().params.trainable);
  EXPECT_NEAR(t.value().dp_comm_s, 2.0 * 15 / 16 * bytes / 40e9, 1e-12);
}

TEST(Calibration, Fp32ConvolutionsTakeTheMeasuredTf32FigureAndMatmulsTheFp32One) {
  const Gpu* g = test::catalog().find_gpu("a100-sxm4-80gb");
  ASSERT_NE(g, nullptr);
  ProbeSummary s;
  s.catalog_gpu_id = "a100-sxm4-80gb";
  s.gemm_flop_per_s.fp32 = 18e12;
  s.gemm_flop_per_s.tf32 = 120e12;
  const Calibrated cal = calibrate(test::catalog().efficiencies, s, *g, Precision::fp32);
  gpuplan::Setup setup;
  setup.precision = Precision::fp32;
  setup.global_batch = 64;
  // A GEMM-bound transformer in FP32 runs at the measured SGEMM rate (matmuls stay FP32)...
  const double gpt = forward_on("gpt2-large", "a100-sxm4-80gb", setup, cal.efficiencies);
  Efficiencies slower = cal.efficiencies;
  slower.measured_gemm_flop_per_s /= 2;
  EXPECT_GT(forward_on("gpt2-large", "a100-sxm4-80gb", setup, slower), 1.6 * gpt);
  // ...while ResNet-50's convolutions follow the TF32 measurement, not the FP32 one.
  const double cnn = forward_on("resnet50", "a100-sxm4-80gb", setup, cal.efficiencies);
  EXPECT_DOUBLE_EQ(forward_on("resnet50", "a100-sxm4-80gb", setup, slower), cnn);
  Efficiencies tf32_slower = cal.efficiencies;
  tf32_slower.measured_tf32_gemm_flop_per_s /= 2;
  EXPECT_GT(forward_on("resnet50", "a100-sxm4-80gb", setup, tf32_slower), cnn);
}

}  // namespace
}  // namespace gpuplan
