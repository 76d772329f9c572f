// core/src/training/step_time.cpp: a whole step on a cluster (forward, backward, recompute,
// optimizer, data- and tensor-parallel communication, the pipeline bubble) against hand-derived
// figures and physical properties.
#include <gtest/gtest.h>

#include <cmath>

#include "gpuplan/timing.h"
#include "test_util.h"
#include "training/timed.h"

namespace gpuplan {
namespace {

using test::forward_on;
using test::nvlink_busbw;
using test::op_named;
using test::time_on;
using test::Timed;

Estimate must(const Model& m, const Setup& s) {
  auto e = estimate(m, s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  return e.ok() ? e.value() : Estimate{};
}

// The work of one sample of `model_id` of `seq_len` tokens at `precision` (timed on `gpu_id`).
WorkProfile one_sample(const std::string& model_id, const std::string& gpu_id, Precision precision,
                       int64_t seq_len) {
  gpuplan::Setup s;
  s.precision = precision;
  s.global_batch = 1;
  s.seq_len = seq_len;
  WorkProfile w;
  forward_on(model_id, gpu_id, s, test::catalog().efficiencies, &w);
  return w;
}

constexpr double kLlama7bParams = 6'738'415'616;  // Hugging Face's count (transformer_test)

TEST(StepTime, FasterGpuIsFasterAndMfuStaysBelowOne) {
  gpuplan::Setup s;
  s.precision = Precision::amp_bf16;
  s.global_batch = 8;
  const Timed a100 = time_on("gpt2-medium", "a100-sxm4-80gb", 1, s);
  const Timed h100 = time_on("gpt2-medium", "h100-sxm5-80gb", 1, s);
  EXPECT_LT(h100.t.step_s, a100.t.step_s);
  for (const Timed& x : {a100, h100}) {
    EXPECT_GT(x.t.mfu, 0.05);
    EXPECT_LT(x.t.mfu, 1.0);
    EXPECT_NEAR(x.t.samples_per_s * x.t.step_s, 8, 1e-9);
  }
}

TEST(StepTime, ComputeBoundStepLiesBetweenTheMatmulCeilingAndTheAttentionRate) {
  // A GEMM-dominated step cannot beat its FLOPs at the H100's measured best matmul rate (794.5
  // TFLOPS, ml-engineering's table), nor be slower than all of them at flash attention's slowest
  // rate (FlashAttention-2's backward on H100: 310 of 989 TFLOPS, 0.313).
  gpuplan::Setup s;
  s.precision = Precision::bf16;
  s.global_batch = 4;
  const Timed x = time_on("llama-2-7b", "h100-sxm5-80gb", 1, s);
  const double flops = x.e.flops.forward_per_step + x.e.flops.backward_per_step;
  EXPECT_GE(x.t.forward_s + x.t.backward_s, flops / 794.5e12 * 0.999);
  EXPECT_LT(x.t.forward_s + x.t.backward_s, flops / (989e12 * 0.313));
}

TEST(StepTime, DataParallelAllReduceFollowsTheRingFormula) {
  // 2 (n-1)/n x gradient bytes / bus bandwidth (nccl-tests doc/PERFORMANCE.md).
  gpuplan::Setup s;
  s.precision = Precision::amp_bf16;
  s.dp = 8;
  s.global_batch = 64;
  const Timed x = time_on("gpt2-medium", "a100-sxm4-80gb", 8, s);
  const double busbw = nvlink_busbw("a100-sxm4-80gb");
  const double bytes =
      4.0 * static_cast<double>(x.e.params.trainable);  // fp32 gradients under autocast
  EXPECT_NEAR(x.t.dp_comm_s, 2.0 * 7 / 8 * bytes / busbw, 1e-12);
  EXPECT_LE(x.t.dp_comm_exposed_s, x.t.dp_comm_s);
}

TEST(StepTime, EagerAttentionScalesAndMasksTheScoresInPassesOfTheirOwn) {
  // Per score element in FP32 training: written (4), scaled (4 + 4), masked (4 + 4), softmax (4 +
  // 4), dropout (4 + 4 + 1-byte mask), read by the second matmul (4) = 41 bytes
  // (BertSelfAttention).
  const WorkProfile w = one_sample("bert-large", "a100-sxm4-80gb", Precision::fp32, 128);
  const TransformerSpec& spec = test::model("bert-large").transformer;
  const double L = static_cast<double>(spec.layers), a = static_cast<double>(spec.heads), T = 128,
               h = static_cast<double>(spec.hidden);
  const double qkv_bytes = L * 4 * T * (2 * h + 2 * h);
  // Splitting and merging the heads copies Q, K, V and the context (read + write each).
  const double head_copies = L * 2 * 4 * (4 * T * h);
  EXPECT_NEAR(op_named(w, "attention.core").bytes_per_sample,
              qkv_bytes + head_copies + L * 41 * a * T * T, 1.0);
  // A vision transformer has no attention mask: one pass fewer (8 bytes per score), no dropout
  // here.
  gpuplan::Setup v;
  v.precision = Precision::fp32;
  v.global_batch = 1;
  v.mode = Mode::infer;
  WorkProfile vw;
  forward_on("vit-b-16", "a100-sxm4-80gb", v, test::catalog().efficiencies, &vw);
  const TransformerSpec& vs = test::model("vit-b-16").transformer;
  const double vT = 197, vL = static_cast<double>(vs.layers), va = static_cast<double>(vs.heads),
               vh = static_cast<double>(vs.hidden);
  EXPECT_NEAR(op_named(vw, "attention.core").bytes_per_sample,
              vL * 4 * vT * 4 * vh + vL * 2 * 4 * 4 * vT * vh + vL * (4 + 8 + 8 + 4) * va * vT * vT,
              1.0);
}

TEST(StepTime, AnMoeBlockQuantisesEachRoutedCopyOfATokenForItsExperts) {
  // Mixtral-8x7B routes each token to 2 of 8 experts (no shared expert): after the dispatch the
  // grouped experts quantise both copies of its hidden state, and both copies' FFN outputs for
  // the down projections. Per token and block: QKV input h, output-projection input q, 2 h, 2 f.
  const WorkProfile w = one_sample("mixtral-8x7b", "h100-sxm5-80gb", Precision::fp8, 1024);
  const TransformerSpec& spec = test::model("mixtral-8x7b").transformer;
  ASSERT_EQ(spec.experts_per_token, 2);
  ASSERT_EQ(spec.shared_experts, 0);
  const double L = static_cast<double>(spec.layers), T = 1024, h = static_cast<double>(spec.hidden),
               q = static_cast<double>(spec.heads * spec.head_dim_or_default()),
               f = static_cast<double>(spec.moe_ffn_hidden_or_default());
  EXPECT_NEAR(op_named(w, "quantize.inputs").bytes_per_sample, L * 4 * T * (h + q + 2 * h + 2 * f),
              1.0);
}

TEST(StepTime, Fp8CastsWriteTheCastAndItsTransposeInOneFusedKernel) {
  // Transformer Engine casts each linear layer's input (forward) to fp8 and writes its transpose
  // for the weight-gradient GEMM in the same kernel: read 2 bytes, write 1 + 1 per element.
  gpuplan::Setup s;
  s.precision = Precision::fp8;
  s.global_batch = 8;  // enough work that the host's kernel launches stay hidden
  s.seq_len = 2048;
  const Efficiencies& eff = test::catalog().efficiencies;
  WorkProfile w;
  const double forward_s = forward_on("mpt-1b", "h100-sxm5-80gb", s, eff, &w);
  const TransformerSpec& spec = test::model("mpt-1b").transformer;
  const double L = static_cast<double>(spec.layers), T = 2048, h = static_cast<double>(spec.hidden),
               f = static_cast<double>(spec.ffn_hidden);
  // Inputs of the QKV, output, MLP-in and MLP-out projections (MPT: q = h, no gated MLP).
  EXPECT_NEAR(op_named(w, "quantize.inputs").bytes_per_sample, L * 4 * T * (h + h + h + f), 1.0);
  // It is not one of eager PyTorch's unfused kernels: their bandwidth does not set its time.
  EXPECT_FALSE(op_named(w, "quantize.inputs").eager);
  EXPECT_FALSE(op_named(w, "quantize.weights").eager);
  EXPECT_TRUE(op_named(w, "elementwise").eager);
  Efficiencies slower_eager = eff;
  slower_eager.eager_memory_bound /= 2;
  const double eager_share_s = forward_on("mpt-1b", "h100-sxm5-80gb", s, slower_eager) - forward_s;
  s.precision = Precision::bf16;
  const double eager_share_bf16_s = forward_on("mpt-1b", "h100-sxm5-80gb", s, slower_eager) -
                                    forward_on("mpt-1b", "h100-sxm5-80gb", s, eff);
  // Halving eager bandwidth slows fp8 and bf16 by the same eager kernels, not the casts too.
  EXPECT_NEAR(eager_share_s, eager_share_bf16_s, 1e-3 * eager_share_bf16_s);
}

TEST(StepTime, NchwConvolutionsOnTensorCoresPayForTransposesAndChannelsLastDoesNot) {
  const Efficiencies& eff = test::catalog().efficiencies;
  gpuplan::Setup s;
  s.precision = Precision::amp_fp16;
  s.global_batch = 256;
  s.memory_format = MemoryFormat::nchw;
  const double nchw = forward_on("resnet50", "a100-sxm4-80gb", s, eff);
  s.memory_format = MemoryFormat::channels_last;
  const double nhwc = forward_on("resnet50", "a100-sxm4-80gb", s, eff);
  s.memory_format = MemoryFormat::automatic;  // 16 bits: channels-last, as NVIDIA's recipes run
  EXPECT_DOUBLE_EQ(forward_on("resnet50", "a100-sxm4-80gb", s, eff), nhwc);
  EXPECT_GT(nchw, nhwc * 1.1);
  // FP32 on a V100 runs on CUDA cores in NCHW: nothing to transpose, and no note.
  s.precision = Precision::fp32;
  s.memory_format = MemoryFormat::nchw;
  const double v_nchw = forward_on("resnet50", "v100-sxm2-16gb", s, eff);
  s.memory_format = MemoryFormat::channels_last;
  EXPECT_DOUBLE_EQ(forward_on("resnet50", "v100-sxm2-16gb", s, eff), v_nchw);
  // TF32 on an A100 (fp32 convolutions on tensor cores) in the default NCHW says so.
  s.memory_format = MemoryFormat::automatic;
  const Timed t = time_on("resnet50", "a100-sxm4-80gb", 1, s);
  bool noted = false;
  for (const auto& n : t.t.notes) noted |= n.find("cuDNN transposes") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(StepTime, AutocastCastsEveryConvWeightInAKernelOfItsOwn) {
  // Batch 1 is host-bound: the 54 casts (53 convolutions and the classifier of ResNet-50) and the
  // input's add 55 kernels of host time under autocast.
  const Efficiencies& eff = test::catalog().efficiencies;
  gpuplan::Setup s;
  s.mode = Mode::infer;
  s.global_batch = 1;
  s.precision = Precision::fp32;
  const double fp32 = forward_on("resnet50", "v100-sxm2-16gb", s, eff);
  s.precision = Precision::amp_fp16;
  const double amp = forward_on("resnet50", "v100-sxm2-16gb", s, eff);
  EXPECT_NEAR(amp - fp32, 55 * eff.host_overhead_per_kernel_s, 1e-9);
}

TEST(StepTime, Fp32OnCudaCoresUsesTheSgemmEfficiencyNotTheTensorCoreOne) {
  gpuplan::Setup s;
  s.precision = Precision::fp32;
  s.global_batch = 8;
  Efficiencies eff = test::catalog().efficiencies;
  const double base = forward_on("gpt2-large", "v100-sxm2-32gb", s, eff);
  Efficiencies tc = eff;
  tc.gemm /= 2;  // tensor cores are not used: no change
  EXPECT_DOUBLE_EQ(forward_on("gpt2-large", "v100-sxm2-32gb", s, tc), base);
  Efficiencies simt = eff;
  simt.simt_gemm /= 2;  // GEMM-bound: close to twice as long
  EXPECT_GT(forward_on("gpt2-large", "v100-sxm2-32gb", s, simt), base * 1.6);
}

TEST(StepTime, TheEmbeddingsGradientBucketIsReducedAfterBackwardEnds) {
  // DDP fills buckets in reverse layer order: the token embedding (first layer) comes last, in a
  // bucket of its own, so its all-reduce cannot overlap the backward pass.
  gpuplan::Setup s;
  s.precision = Precision::amp_fp16;
  s.dp = 8;
  s.global_batch = 256;
  const Timed x = time_on("transformer-xl-base", "a100-sxm4-80gb", 8, s);
  const double busbw = nvlink_busbw("a100-sxm4-80gb");
  const double embedding_bytes = 4.0 * static_cast<double>(x.e.params.embedding);  // fp32 gradients
  EXPECT_GT(x.t.backward_s / x.t.dp_comm_s, 1.0);  // the whole all-reduce would fit in backward...
  EXPECT_NEAR(x.t.dp_comm_exposed_s, 2.0 * 7 / 8 * embedding_bytes / busbw,
              1e-12);  // ...its last bucket not
  // A model without a large embedding still waits for one 25 MB bucket.
  const Timed r = time_on("resnet50", "a100-sxm4-80gb", 8, s);
  EXPECT_NEAR(r.t.dp_comm_exposed_s, 2.0 * 7 / 8 * 25.0 * 1024 * 1024 / busbw, 1e-12);
}

TEST(StepTime, AForLoopOptimizerPaysItsHostTimePerTensor) {
  // DeepLearningExamples' Transformer-XL: JIT LAMB visits its 182 tensors one by one after
  // clip_grad_norm_ has done the same; the multi-tensor step is bound by memory bandwidth only.
  gpuplan::Setup s;
  s.precision = Precision::mixed_fp16;
  s.micro_batch = 32;
  s.optimizer = Optimizer::lamb;
  const Timed foreach_step = time_on("transformer-xl-base", "a100-sxm4-40gb", 1, s);
  s.optimizer_loop = OptimizerLoop::for_loop;
  s.clip_grad_norm = true;
  const Timed loop = time_on("transformer-xl-base", "a100-sxm4-40gb", 1, s);
  const auto& per_tensor = test::catalog().efficiencies.optimizer_for_loop_per_tensor;
  EXPECT_LT(foreach_step.t.optimizer_s, 0.01);
  EXPECT_NEAR(loop.t.optimizer_s, 182 * (per_tensor.adamw_s + per_tensor.sgd_s), 1e-12);
  EXPECT_NEAR(loop.t.step_s - foreach_step.t.step_s,
              loop.t.optimizer_s - foreach_step.t.optimizer_s, 1e-12);
  // Without clipping, Adam's own figure; pipeline stages each loop over their share.
  s.clip_grad_norm = false;
  s.optimizer = Optimizer::adam;
  EXPECT_NEAR(time_on("transformer-xl-base", "a100-sxm4-40gb", 1, s).t.optimizer_s,
              182 * per_tensor.adam_s, 1e-12);
}

TEST(StepTime, PipelineBubbleIsPMinusOneOverM) {
  gpuplan::Setup s;
  s.precision = Precision::bf16;
  s.pp = 4;
  s.global_batch = 16;
  s.micro_batch = 1;
  const Timed x = time_on("llama-2-13b", "a100-sxm4-80gb", 4, s);
  const double compute = x.t.forward_s + x.t.backward_s + x.t.recompute_s;
  EXPECT_NEAR(x.t.pp_bubble_s, 3.0 / 16.0 * compute, 1e-12);
}

TEST(StepTime, MissingPrecisionNamesTheGpuAndFigure) {
  const Model& m = test::model("gpt2-small");
  gpuplan::Setup s;
  s.precision = Precision::bf16;
  auto e = estimate(m, s);
  auto w = build_work_profile(m, s, e.value());
  const Gpu* t4 = test::catalog().find_gpu("t4");
  auto t = estimate_step_time(m, s, e.value(), w.value(), single_node_cluster(*t4, 1).value(),
                              test::catalog().efficiencies);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message,
            "GPU 't4' has no sourced dense bf16 peak (it may not support bf16); choose another "
            "precision or GPU");
}

TEST(StepTime, Fp32ConvolutionsOnTf32TensorCoresKeepMfuBelowOne) {
  // PyTorch runs fp32 convolutions on TF32 tensor cores by default, so MFU is measured against
  // the TF32 peak; against the fp32 peak it would exceed 100 %.
  gpuplan::Setup s;
  s.global_batch = 256;
  const Timed x = time_on("resnet50", "a100-sxm4-80gb", 1, s);
  EXPECT_DOUBLE_EQ(x.t.peak_flop_per_s, 156e12);
  EXPECT_LT(x.t.mfu, 1.0);
}

TEST(FsdpTime, GathersParametersTwiceAndReduceScattersGradientsPerMicroBatch) {
  // 8 H100s on NVLink (450 GB/s per direction x the all-reduce efficiency); each micro-batch
  // all-gathers the bf16 parameters for forward and for backward and reduce-scatters fp32
  // gradients: (n-1)/n x bytes / busbw each, plus NCCL's ring latency per collective: one per
  // block (32) and one for the root unit, 8.4 us + 7 NVLink hops x 3.4 us each.
  gpuplan::Setup s;
  s.precision = Precision::mixed_bf16;
  s.dp = 8;
  s.zero_stage = 3;
  s.micro_batch = 1;
  s.global_batch = 16;
  s.seq_len = 2048;
  const Model& m = test::model("llama-2-7b");
  const Estimate e = must(m, s);
  const Gpu* h100 = test::catalog().find_gpu("h100-sxm5-80gb");
  ASSERT_NE(h100, nullptr);
  auto c = single_node_cluster(*h100, 8);
  auto w = build_work_profile(m, s, e);
  ASSERT_TRUE(c.ok() && w.ok());
  const Efficiencies& eff = test::catalog().efficiencies;
  auto t = estimate_step_time(m, s, e, w.value(), c.value(), eff);
  ASSERT_TRUE(t.ok());
  const double busbw = h100->nvlink_bandwidth_bytes_per_s / 2 * eff.nvlink;
  const double latency = 33 * (8.4e-6 + 7 * 3.4e-6);
  const double gather = 7.0 / 8 * kLlama7bParams * 2 / busbw + latency,
               reduce = 7.0 / 8 * kLlama7bParams * 4 / busbw + latency;
  EXPECT_NEAR(t.value().fsdp_comm_s, 2 * (2 * gather + reduce), 1e-9);
  EXPECT_GT(t.value().dp_comm_exposed_s, 0);
  EXPECT_LT(t.value().dp_comm_exposed_s, t.value().fsdp_comm_s);
}

TEST(FsdpTime, RingLatencyGrowsWithRanksAndOutlastsASmallModelsCompute) {
  // MPT-125M (12 blocks + the root unit) on 64 nodes of 8 H100s, micro-batch 4: each collective
  // crosses 511 ring steps, 63 between nodes: 8.4 + 448 x 3.4 + 63 x 14 = 2,413.6 us. A block's
  // 14 MB shard is no longer what limits it; 39 collectives of 2.4 ms outlast the compute.
  const Instance* p5 = test::catalog().find_instance("aws-p5.48xlarge");
  ASSERT_NE(p5, nullptr);
  const Gpu* h100 = test::catalog().find_gpu(p5->gpu);
  ASSERT_NE(h100, nullptr);
  const Model& m = test::model("mpt-125m");
  const Efficiencies& eff = test::catalog().efficiencies;
  Efficiencies no_latency = eff;
  no_latency.nccl_ring = {};
  auto step = [&](int nodes, const Efficiencies& with) {
    gpuplan::Setup s;
    s.precision = Precision::mixed_bf16;
    s.attention = Attention::flash;
    s.dp = 8 * nodes;
    s.zero_stage = 3;
    s.micro_batch = 4;
    s.global_batch = 4 * s.dp;
    s.seq_len = 2048;
    const Estimate e = must(m, s);
    auto c = instance_cluster(*p5, *h100, nodes);
    auto w = build_work_profile(m, s, e);
    EXPECT_TRUE(c.ok() && w.ok());
    return estimate_step_time(m, s, e, w.value(), c.value(), with).value();
  };
  const StepTime far = step(64, eff), far_no_latency = step(64, no_latency);
  EXPECT_NEAR(far.fsdp_comm_s - far_no_latency.fsdp_comm_s, 3 * 13 * 2413.6e-6, 1e-9);
  EXPECT_GT(far.dp_comm_exposed_s, far_no_latency.dp_comm_exposed_s + 0.03);
  // On one node the same collectives cost 8.4 + 7 x 3.4 us each: hidden behind compute.
  const StepTime near = step(1, eff), near_no_latency = step(1, no_latency);
  EXPECT_NEAR(near.fsdp_comm_s - near_no_latency.fsdp_comm_s, 3 * 13 * 32.2e-6, 1e-9);
  EXPECT_LT(near.step_s, 1.05 * near_no_latency.step_s);
  EXPECT_GT(far.step_s, 2 * near.step_s);
}

}  // namespace
}  // namespace gpuplan
