// core/src/training/roofline.cpp: a kernel class takes the larger of its FLOPs at the rate its
// units reach and its bytes at memory bandwidth (Williams et al. 2009, "Roofline"), plus a gap
// per kernel; GEMMs pay for whole waves of output tiles. Checked on a made-up GPU whose figures
// make the hand arithmetic exact, then on the catalog's H100.
#include <gtest/gtest.h>

#include "gpuplan/timing.h"
#include "test_util.h"

namespace gpuplan {
namespace {

// 1 PFLOP/s dense bf16, 2 TB/s of HBM, no SM count (no tile quantisation).
Gpu test_gpu() {
  Gpu g;
  g.id = "test-gpu";
  g.architecture = "Test";
  g.peak_dense_flops_per_s["bf16"] = 1e15;
  g.memory_bandwidth_bytes_per_s = 2e12;
  return g;
}

// GEMMs at 80 % of peak, copies at 90 % of bandwidth, eager element-wise kernels at 45 %; no
// launch gaps or host time unless a test sets them.
Efficiencies test_efficiencies() {
  Efficiencies eff;
  eff.gemm = 0.8;
  eff.hbm = 0.9;
  eff.eager_memory_bound = 0.45;
  return eff;
}

gpuplan::Setup bf16_training() {
  gpuplan::Setup s;
  s.precision = Precision::bf16;
  return s;
}

PassTime time_of(const OpClass& op, const Efficiencies& eff, double batch = 1,
                 const Gpu& gpu = test_gpu()) {
  WorkProfile w;
  w.ops.push_back(op);
  auto t = pass_time_s(test::model("gpt2-small"), bf16_training(), w, gpu, eff, batch);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? t.value() : PassTime{};
}

TEST(Roofline, AMatmulWithFewBytesRunsAtItsAchievablePeak) {
  OpClass op;
  op.kind = WorkKind::matmul;
  op.flops_per_sample = 1e12;  // 1 TFLOP
  op.bytes_per_sample = 1e6;   // 1 MB: 0.56 us at bandwidth, far below the compute time
  // 1e12 / (1e15 x 0.8) = 1.25 ms; backward computes input and weight gradients: twice that.
  const PassTime t = time_of(op, test_efficiencies());
  EXPECT_NEAR(t.forward_s, 1.25e-3, 1e-15);
  EXPECT_NEAR(t.backward_s, 2.5e-3, 1e-15);
  // Eight samples: eight times the FLOPs, eight times the time.
  EXPECT_NEAR(time_of(op, test_efficiencies(), 8).forward_s, 10e-3, 1e-14);
}

TEST(Roofline, AMemoryBoundKernelRunsAtBandwidth) {
  OpClass op;
  op.kind = WorkKind::memory;
  op.bytes_per_sample = 1e9;  // 1 GB read and written, no FLOPs
  // 1e9 / (2e12 x 0.9) = 0.556 ms; backward moves gradients in and out: twice the bytes.
  const PassTime t = time_of(op, test_efficiencies());
  EXPECT_NEAR(t.forward_s, 1e9 / 1.8e12, 1e-15);
  EXPECT_NEAR(t.backward_s, 2e9 / 1.8e12, 1e-15);
  // Eager PyTorch's unfused kernel reaches 45 % of the spec bandwidth: 1e9 / 0.9e12 = 1.11 ms.
  op.eager = true;
  EXPECT_NEAR(time_of(op, test_efficiencies()).forward_s, 1e9 / 0.9e12, 1e-15);
  // Weights are read once per pass whatever the batch: 0.5 GB of them plus 4 x 1 GB.
  op.eager = false;
  op.weight_bytes = 0.5e9;
  EXPECT_NEAR(time_of(op, test_efficiencies(), 4).forward_s, 4.5e9 / 1.8e12, 1e-15);
}

TEST(Roofline, TheLargerOfComputeAndMemoryBindsAtTheRidgePoint) {
  // The ridge of this GPU: 0.8 PFLOP/s over 1.8 TB/s = 444.4 FLOPs per byte. 1 GB of traffic
  // takes as long as 444.4 GFLOPs; below that the kernel is memory-bound, above it compute-bound.
  OpClass op;
  op.kind = WorkKind::matmul;
  op.bytes_per_sample = 1e9;
  op.flops_per_sample = 400e9;
  EXPECT_NEAR(time_of(op, test_efficiencies()).forward_s, 1e9 / 1.8e12, 1e-15);
  op.flops_per_sample = 500e9;
  EXPECT_NEAR(time_of(op, test_efficiencies()).forward_s, 500e9 / 0.8e15, 1e-15);
}

TEST(Roofline, EachKernelPaysItsGapAndTheHostCanBeTheBound) {
  OpClass op;
  op.kind = WorkKind::memory;
  op.bytes_per_sample = 1.8e6;  // 1 us at 1.8 TB/s
  op.kernels = 10;
  Efficiencies eff = test_efficiencies();
  eff.kernel_overhead_s = 4e-6;
  // 1 us + 10 x 4 us forward; backward twice the bytes and twice the launches: 2 + 80 us.
  PassTime t = time_of(op, eff);
  EXPECT_NEAR(t.forward_s, 41e-6, 1e-15);
  EXPECT_NEAR(t.backward_s, 82e-6, 1e-15);
  // A host that needs 10 us per launch runs behind the GPU: the pass takes the host's 100 us,
  // backward (about twice the kernels) 200 us.
  eff.host_overhead_per_kernel_s = 10e-6;
  t = time_of(op, eff);
  EXPECT_NEAR(t.forward_s, 100e-6, 1e-15);
  EXPECT_NEAR(t.backward_s, 200e-6, 1e-15);
}

TEST(Roofline, MeasuredCeilingsReplaceSpecTimesEfficiency) {
  OpClass op;
  op.kind = WorkKind::matmul;
  op.flops_per_sample = 1e12;
  Gpu g = test_gpu();
  // The GPU's best measured matmul (a hardware ceiling) replaces 1e15 x 0.8: 1e12 / 7e14.
  g.matmul_max_achievable_flops_per_s["bf16"] = 7e14;
  EXPECT_NEAR(time_of(op, test_efficiencies(), 1, g).forward_s, 1e12 / 7e14, 1e-15);
  // A probe file's measurement replaces both: 1e12 / 5e14 = 2 ms.
  Efficiencies eff = test_efficiencies();
  eff.measured_gemm_flop_per_s = 5e14;
  EXPECT_NEAR(time_of(op, eff, 1, g).forward_s, 2e-3, 1e-15);
}

// Three GPUs of one tensor-core generation, two measured, and one of another generation.
std::vector<Gpu> one_generation() {
  auto gpu = [](const char* id, const char* cc, double bf16_peak, double fp4_peak) {
    Gpu g = test_gpu();
    g.id = id;
    g.vendor = "nvidia";
    g.architecture = "Test (+a CPU)";
    g.compute_capability = cc;
    g.peak_dense_flops_per_s["bf16"] = g.peak_dense_flops_per_s["fp16"] = bf16_peak;
    if (fp4_peak > 0) g.peak_dense_flops_per_s["fp4"] = fp4_peak;
    return g;
  };
  std::vector<Gpu> gpus = {gpu("a", "10.0", 2e15, 8e15), gpu("b", "10.3", 2e15, 0),
                           gpu("c", "10.0", 2.5e15, 1.2e16), gpu("d", "12.0", 1e15, 2e15)};
  gpus[0].matmul_max_achievable_flops_per_s["bf16"] = 1.6e15;  // 0.8 of peak
  gpus[0].matmul_max_achievable_flops_per_s["fp4"] = 4.8e15;   // 0.6
  gpus[1].matmul_max_achievable_flops_per_s["bf16"] = 1.4e15;  // 0.7
  gpus[2].architecture = "Test";  // a remark in the name does not split a generation
  derive_matmul_shares(gpus);
  return gpus;
}

TEST(Roofline, AnUnmeasuredPrecisionTakesTheShareItsGenerationMeasured) {
  const std::vector<Gpu> gpus = one_generation();
  const Gpu& c = gpus[2];
  // bf16: the mean of a's 0.8 and b's 0.7 (10.0 and 10.3 share the major version) of c's peak.
  EXPECT_NEAR(known_matmul_flop_per_s(c, "bf16"), 0.75 * 2.5e15, 1e3);
  EXPECT_EQ(c.matmul_generation_share.at("bf16").from, (std::vector<std::string>{"a", "b"}));
  // fp16 runs on the bf16 units: the same share. fp4: only a measured it, 0.6 of c's 1.2e16.
  EXPECT_NEAR(known_matmul_flop_per_s(c, "fp16"), 0.75 * 2.5e15, 1e3);
  EXPECT_NEAR(known_matmul_flop_per_s(c, "fp4"), 0.6 * 1.2e16, 1e3);
  // A GPU's own measurement wins; fp16 takes its own bf16 one where both peaks are equal.
  EXPECT_DOUBLE_EQ(known_matmul_flop_per_s(gpus[0], "fp16"), 1.6e15);
  EXPECT_TRUE(gpus[0].matmul_generation_share.count("bf16") == 0);
  // Another generation (sm_120) learns nothing; nor does a GPU without a compute capability.
  EXPECT_EQ(known_matmul_flop_per_s(gpus[3], "bf16"), 0);
  std::vector<Gpu> unknown = {gpus[0], gpus[2]};
  unknown[1].compute_capability.clear();
  derive_matmul_shares(unknown);
  EXPECT_EQ(known_matmul_flop_per_s(unknown[1], "bf16"), 0);
  // Timed, c's bf16 matmul runs at the derived rate, not peak x 0.8: 1e12 / 1.875e15.
  OpClass op;
  op.kind = WorkKind::matmul;
  op.flops_per_sample = 1e12;
  EXPECT_NEAR(time_of(op, test_efficiencies(), 1, c).forward_s, 1e12 / 1.875e15, 1e-15);
  EXPECT_NEAR(time_of(op, test_efficiencies(), 1, gpus[3]).forward_s, 1e12 / 0.8e15, 1e-15);
}

TEST(Roofline, BlackwellWithoutItsOwnFp4MeasurementRunsAtTheB200sShare) {
  // cuBLASLt's block-scaled FP4 GEMM reached 5,239 of the B200's 9,000 dense TFLOP/s
  // (data/gpus/b200-sxm.json); GB200 (10 PFLOP/s) and GB300 (15) have no measurement of their own.
  const Catalog& cat = test::catalog();
  const double share = 5239.0 / 9000.0;
  EXPECT_NEAR(known_matmul_flop_per_s(*cat.find_gpu("gb200"), "fp4"), share * 10000e12, 1e6);
  EXPECT_NEAR(known_matmul_flop_per_s(*cat.find_gpu("gb300"), "fp4"), share * 15000e12, 1e6);
  // GB300's FP8: the mean share of B200, B300 and GB200 (3,432.5 / 4,500, 3,353.3 / 4,500,
  // 3,615.6 / 5,000) of its 5,000.
  const double fp8 = (3432.5 / 4500 + 3353.3 / 4500 + 3615.6 / 5000) / 3;
  EXPECT_NEAR(known_matmul_flop_per_s(*cat.find_gpu("gb300"), "fp8"), fp8 * 5000e12, 1e6);
  // The RTX PRO 6000 (sm_120) is not of their generation.
  EXPECT_EQ(known_matmul_flop_per_s(*cat.find_gpu("rtx-pro-6000-blackwell-server"), "fp4"), 0);
}

TEST(GemmQuantisation, PaysForWholeWavesOfPaddedTiles) {
  Efficiencies eff;
  eff.gemm_tile_rows = 128;
  eff.gemm_tile_cols = 128;
  // 128 x 384 outputs: 3 tiles on 2 SMs take 2 waves, 3 of 4 tile slots used: 0.75.
  EXPECT_DOUBLE_EQ(gemm_quantisation_efficiency(128, 384, 2, eff), 0.75);
  // 129 x 128 on one SM: 2 row tiles (the second holds one row), 2 waves of 1 tile: padding
  // 129 x 128 / (256 x 128) = 0.50390625, whole waves exactly: 0.50390625.
  EXPECT_DOUBLE_EQ(gemm_quantisation_efficiency(129, 128, 1, eff), 129.0 / 256.0);
  // 132 tiles on 132 SMs: one full wave, no padding.
  EXPECT_DOUBLE_EQ(gemm_quantisation_efficiency(128 * 12, 128 * 11, 132, eff), 1.0);
  // Unknown SM count or tile: nothing to quantise.
  EXPECT_EQ(gemm_quantisation_efficiency(129, 128, 0, eff), 1.0);
  EXPECT_EQ(gemm_quantisation_efficiency(129, 128, 1, Efficiencies{}), 1.0);
}

TEST(Roofline, AMatmulOnARealGpuPaysForItsLastWave) {
  // 133 tiles on the H100's 132 SMs: a second wave for one tile; the matmul runs at 133/264 of
  // the H100's measured bf16 matmul ceiling (794.5 TFLOPS in the catalog, ml-engineering's
  // "Maximum Achievable Matmul FLOPS"), which replaces spec x efficiency, times the share of it
  // large production GEMMs reach (TensorRT-LLM's median large BF16 GEMM in aiconfigurator's
  // table: 771 TFLOPS).
  const Gpu* h100 = test::catalog().find_gpu("h100-sxm5-80gb");
  ASSERT_NE(h100, nullptr);
  ASSERT_EQ(h100->sm_count, 132);
  Efficiencies eff = test_efficiencies();
  eff.gemm_tile_rows = 128;
  eff.gemm_tile_cols = 128;
  OpClass op;
  op.kind = WorkKind::matmul;
  op.gemm_rows_per_sample = 128 * 7;
  op.gemm_cols = 128 * 19;  // 7 x 19 = 133 tiles
  op.flops_per_sample = 2.0 * op.gemm_rows_per_sample * op.gemm_cols * 4096;
  ASSERT_DOUBLE_EQ(h100->matmul_max_achievable_flops_per_s.at("bf16"), 794.5e12);
  ASSERT_DOUBLE_EQ(h100->serving_gemm.at("trtllm/bf16").matmul_flop_per_s, 771e12);
  const double rate = 771e12 * 133.0 / 264.0;
  EXPECT_NEAR(time_of(op, eff, 1, *h100).forward_s, op.flops_per_sample / rate, 1e-12);
}

TEST(Roofline, AGroupedGemmRunsAtItsMeasuredShareOfTheDenseRate) {
  // The local experts' grouped GEMM: 1e12 FLOPs at 1e15 x 0.8 as one GEMM (1.25 ms), and at
  // 0.739 of that as a grouped one (NVIDIA's MXFP8 grouped GEMM on a GB200, 2,672 of the GPU's
  // 3,615.6 TFLOP/s dense best): 1.25 ms / 0.739.
  Efficiencies eff = test_efficiencies();
  eff.grouped_gemm = 0.739;
  OpClass op;
  op.kind = WorkKind::matmul;
  op.flops_per_sample = 1e12;
  op.gemm_rows_per_sample = 4096;
  op.gemm_cols = 2048;
  EXPECT_NEAR(time_of(op, eff).forward_s, 1.25e-3, 1e-15);
  op.gemm_groups = 8;
  EXPECT_NEAR(time_of(op, eff).forward_s, 1.25e-3 / 0.739, 1e-12);
  // Backward: both gradients' GEMMs are grouped too.
  EXPECT_NEAR(time_of(op, eff).backward_s, 2 * 1.25e-3 / 0.739, 1e-12);
  // The catalog's figure is the one cited in data/assumptions.json.
  EXPECT_DOUBLE_EQ(test::catalog().efficiencies.grouped_gemm, 0.739);
}

// One pass of 1e15 forward FLOPs of fused attention (causal or not) with `kernel` on `gpu_id`, at
// the catalog's efficiencies.
PassTime attention_pass(const std::string& gpu_id, Attention kernel, bool causal) {
  WorkProfile w;
  OpClass op;
  op.kind = WorkKind::attention;
  op.flops_per_sample = 1e15;
  op.backward_flops_ratio = 2.5;
  op.causal = causal;
  w.ops.push_back(op);
  gpuplan::Setup s;
  s.precision = Precision::bf16;
  s.attention = kernel;
  const Gpu* gpu = test::catalog().find_gpu(gpu_id);
  EXPECT_NE(gpu, nullptr) << gpu_id;
  if (!gpu) return {};
  auto t = pass_time_s(test::model("llama-2-7b"), s, w, *gpu, test::catalog().efficiencies, 1);
  EXPECT_TRUE(t.ok());
  return t.ok() ? t.value() : PassTime{};
}

TEST(Roofline, FlashAttentionRunsAtItsPublishedShareOfPeakForwardAndBackward) {
  // One attention class of 1e15 FLOPs on an H100. FlashAttention-2 without a mask, head dim 128,
  // sequence 4k (FA3 paper, Figures 5 and 6): forward 368 and backward 310 TFLOPS/s of the
  // 989 dense BF16 peak, i.e. 0.372 and 0.313 as data/assumptions.json rounds them; backward
  // does 2.5x the FLOPs (five matmuls for two).
  PassTime t = attention_pass("h100-sxm5-80gb", Attention::flash, false);
  EXPECT_NEAR(t.forward_s, 1e15 / (989e12 * 0.372), 1e-6);
  EXPECT_NEAR(t.backward_s, 2.5e15 / (989e12 * 0.313), 1e-6);
  // Under a causal mask the forward runs at the causal bar on the halved count: 319 / 989 =
  // 0.323; the figure has no causal backward, so backward stays at 0.313.
  t = attention_pass("h100-sxm5-80gb", Attention::flash, true);
  EXPECT_NEAR(t.forward_s, 1e15 / (989e12 * 0.323), 1e-6);
  EXPECT_NEAR(t.backward_s, 2.5e15 / (989e12 * 0.313), 1e-6);
}

TEST(Roofline, CudnnAttentionOnAGb200RunsAtNvidiasPublishedRates) {
  // cuDNN 9.22 on a GB200 (cudnn-frontend's training SDPA benchmark, Llama-3.1 shapes, 8k): 1,771
  // forward and 1,404 backward TFLOP/s without a mask, 1,574 and 1,332 under a causal mask (on
  // FlashAttention's halved count), of the GB200's 2,500 dense BF16 peak.
  ASSERT_DOUBLE_EQ(test::catalog().find_gpu("gb200")->peak_dense_flops_per_s.at("bf16"), 2500e12);
  PassTime t = attention_pass("gb200", Attention::cudnn, false);
  EXPECT_NEAR(t.forward_s, 1e15 / 1770e12, 1e-3 * t.forward_s);
  EXPECT_NEAR(t.backward_s, 2.5e15 / 1405e12, 1e-3 * t.backward_s);
  t = attention_pass("gb200", Attention::cudnn, true);
  EXPECT_NEAR(t.forward_s, 1e15 / 1575e12, 1e-3 * t.forward_s);
  EXPECT_NEAR(t.backward_s, 2.5e15 / 1332.5e12, 1e-3 * t.backward_s);
}

// One causal attention class of 1e15 forward FLOPs under a TE recipe on `gpu_id`, cuDNN's kernel,
// with or without FP8 attention.
PassTime fp8_attention_pass(const std::string& gpu_id, Precision recipe, bool fp8_attention) {
  WorkProfile w;
  w.low_precision_share = 1;
  OpClass op;
  op.kind = WorkKind::attention;
  op.flops_per_sample = 1e15;
  op.backward_flops_ratio = 2.5;
  op.causal = true;
  op.fp8 = fp8_attention;  // as transformer_work sets it from Setup::fp8_attention
  w.ops.push_back(op);
  gpuplan::Setup s;
  s.precision = recipe;
  s.attention = Attention::cudnn;
  s.fp8_attention = fp8_attention;
  auto t = pass_time_s(test::model("llama-2-7b"), s, w, *test::catalog().find_gpu(gpu_id),
                       test::catalog().efficiencies, 1);
  EXPECT_TRUE(t.ok());
  return t.ok() ? t.value() : PassTime{};
}

TEST(Roofline, Fp8AttentionRunsAtCudnnsPublishedFp8RatesWhereThereAreAny) {
  // cuDNN 9.22 on a GB200 at 8k under a causal mask (cudnn-frontend's training SDPA benchmark):
  // per-tensor FP8 2,047 forward and 1,454 backward TFLOP/s, MXFP8 1,902 and 1,287, against
  // 1,574 and 1,332 in BF16 (timed above).
  PassTime t = fp8_attention_pass("gb200", Precision::fp8, true);
  EXPECT_NEAR(t.forward_s, 1e15 / 2045e12, 1e-3 * t.forward_s);  // 0.409 of 5,000
  EXPECT_NEAR(t.backward_s, 2.5e15 / 1455e12, 1e-3 * t.backward_s);
  t = fp8_attention_pass("gb200", Precision::mxfp8, true);
  EXPECT_NEAR(t.forward_s, 1e15 / 1900e12, 1e-3 * t.forward_s);
  EXPECT_NEAR(t.backward_s, 2.5e15 / 1285e12, 1e-3 * t.backward_s);
  // Without it the recipe leaves attention in BF16.
  t = fp8_attention_pass("gb200", Precision::mxfp8, false);
  EXPECT_NEAR(t.forward_s, 1e15 / 1575e12, 1e-3 * t.forward_s);
  // Hopper has no published FP8 rate that beats BF16 (the benchmark's H200 run is slower in
  // FP8 under a causal mask): FP8 attention there runs at the BF16 kernel's rate.
  EXPECT_DOUBLE_EQ(fp8_attention_pass("h100-sxm5-80gb", Precision::fp8, true).forward_s,
                   fp8_attention_pass("h100-sxm5-80gb", Precision::fp8, false).forward_s);
}

TEST(Roofline, BlackwellUltraRunsAttentionAtItsOwnPublishedRates) {
  // The same benchmark on a GB300 (compute capability 10.3, twice the exponential units): causal
  // 1,856 forward and 1,435 backward TFLOP/s in BF16, 2,897 and 1,781 in FP8, 2,570 and 1,404 in
  // MXFP8; the GB300's dense peaks are the GB200's (2,500 BF16, 5,000 FP8).
  const Gpu& gb300 = *test::catalog().find_gpu("gb300");
  ASSERT_EQ(gb300.compute_capability, "10.3");
  ASSERT_DOUBLE_EQ(gb300.peak_dense_flops_per_s.at("bf16"), 2500e12);
  PassTime t = attention_pass("gb300", Attention::cudnn, true);
  EXPECT_NEAR(t.forward_s, 1e15 / 1855e12, 1e-3 * t.forward_s);
  EXPECT_NEAR(t.backward_s, 2.5e15 / 1435e12, 1e-3 * t.backward_s);
  t = fp8_attention_pass("gb300", Precision::fp8, true);
  EXPECT_NEAR(t.forward_s, 1e15 / 2895e12, 1e-3 * t.forward_s);
  EXPECT_NEAR(t.backward_s, 2.5e15 / 1780e12, 1e-3 * t.backward_s);
  t = fp8_attention_pass("gb300", Precision::mxfp8, true);
  EXPECT_NEAR(t.forward_s, 1e15 / 2570e12, 1e-3 * t.forward_s);
  EXPECT_NEAR(t.backward_s, 2.5e15 / 1405e12, 1e-3 * t.backward_s);
  // B300 is the same chip (compute capability 10.3): the same shares, of its own BF16 peak.
  const Gpu& b300 = *test::catalog().find_gpu("b300-sxm");
  ASSERT_EQ(b300.compute_capability, "10.3");
  const double b300_peak = b300.peak_dense_flops_per_s.at("bf16");
  t = attention_pass("b300-sxm", Attention::cudnn, true);
  EXPECT_NEAR(t.forward_s, 1e15 / (1856.0 / 2500 * b300_peak), 1e-3 * t.forward_s);
}

TEST(Roofline, Fp8AttentionNeedsATeRecipeAndCudnnAttention) {
  gpuplan::Setup s;
  s.precision = Precision::mixed_bf16;
  s.attention = Attention::cudnn;
  s.fp8_attention = true;
  EXPECT_EQ(estimate(test::model("llama-2-7b"), s).error().message,
            "--fp8-attention applies to Transformer Engine's recipes (fp8, fp8-blockwise, mxfp8, "
            "nvfp4), not mixed-bf16");
  s.precision = Precision::fp8;
  s.attention = Attention::flash;
  EXPECT_EQ(estimate(test::model("llama-2-7b"), s).error().message,
            "--fp8-attention runs in Transformer Engine's cuDNN fused attention: set --attention "
            "cudnn (got flash)");
  s.attention = Attention::cudnn;
  auto e = estimate(test::model("llama-2-7b"), s);
  ASSERT_TRUE(e.ok()) << e.error().message;
  auto w = build_work_profile(test::model("llama-2-7b"), s, e.value());
  ASSERT_TRUE(w.ok());
  for (const auto& op : w.value().ops) {
    if (op.name == "attention.core") {
      EXPECT_TRUE(op.fp8);
    }
  }
}

// One pass of 1e15 forward FLOPs of fused attention (causal or not) with `kernel`, on an A100
// (312 TFLOPS BF16).
PassTime a100_attention_pass(Attention kernel, bool causal) {
  return attention_pass("a100-sxm4-80gb", kernel, causal);
}

TEST(Roofline, TritonAttentionRunsAtFlashAttention2sShareOverThePapersRatios) {
  // FlashAttention in Triton (MPT's attn_impl triton) on an A100: the FlashAttention-2 paper
  // (sec. 4.1) has FlashAttention-2 1.3-1.5x faster in the forward pass (middle: 1.4) and 2x in
  // the backward. FlashAttention-2's A100 figures: 0.73 forward, 0.63 backward, 0.633 causal
  // forward (0.73 x 319 / 368). So Triton: 0.73 / 1.4 = 0.521, 0.633 / 1.4 = 0.452 causal,
  // 0.63 / 2 = 0.315 backward (rounded to 3 places in the data).
  const PassTime causal = a100_attention_pass(Attention::triton, true);
  EXPECT_NEAR(causal.forward_s, 1e15 / (312e12 * 0.452), 1e-6);
  EXPECT_NEAR(causal.backward_s, 2.5e15 / (312e12 * 0.315), 1e-6);
  EXPECT_NEAR(a100_attention_pass(Attention::triton, false).forward_s, 1e15 / (312e12 * 0.521),
              1e-6);
}

TEST(Roofline, FirstFlashAttentionRunsAtHalfFlashAttention2s) {
  // The first FlashAttention (flash-attn before 2.0) on an A100: FlashAttention-2 is "around 2x
  // faster" (FlashAttention-2 paper, sec. 4.1), so half of FlashAttention-2's 0.73 forward, 0.633
  // causal forward and 0.63 backward: 0.365, 0.317 (rounded), 0.315; the forward is inside the
  // 25-40 % the paper's abstract gives the first kernel.
  const PassTime causal = a100_attention_pass(Attention::flash1, true);
  EXPECT_NEAR(causal.forward_s, 1e15 / (312e12 * 0.317), 1e-6);
  EXPECT_NEAR(causal.backward_s, 2.5e15 / (312e12 * 0.315), 1e-6);
  const PassTime full = a100_attention_pass(Attention::flash1, false);
  EXPECT_NEAR(full.forward_s, 1e15 / (312e12 * 0.365), 1e-6);
  // FlashAttention-2: twice as fast, pass for pass.
  const PassTime v2 = a100_attention_pass(Attention::flash, false);
  EXPECT_NEAR(full.forward_s / v2.forward_s, 2.0, 1e-9);
  EXPECT_NEAR(full.backward_s / v2.backward_s, 2.0, 1e-9);
}

TEST(Roofline, APrecisionTheGpuLacksNamesTheGpuAndTheFigure) {
  const Gpu g = test_gpu();  // bf16 only
  auto fp8 = dense_peak_flop_per_s(g, Precision::fp8);
  ASSERT_FALSE(fp8.ok());
  EXPECT_EQ(fp8.error().message,
            "GPU 'test-gpu' has no sourced dense fp8 peak (it may not support fp8); choose another "
            "precision or GPU");
  EXPECT_EQ(dense_peak_flop_per_s(g, Precision::amp_bf16).value(), 1e15);
}

}  // namespace
}  // namespace gpuplan
