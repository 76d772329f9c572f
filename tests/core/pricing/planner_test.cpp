// Step time, cost and the planner: physical properties, and the seed guide's decision framework
// coming out of the ranking rather than being written into it.
#include <gtest/gtest.h>

#include <cmath>

#include "gpuplan/calibration.h"
#include "gpuplan/plan.h"
#include "gpuplan/timing.h"
#include "test_util.h"

namespace gpuplan {
namespace {

struct Timed {
  Estimate e;
  StepTime t;
};

Timed time_on(const std::string& model_id, const std::string& gpu_id, int gpus, gpuplan::Setup s) {
  const Model& m = test::model(model_id);
  const Gpu* gpu = test::catalog().find_gpu(gpu_id);
  EXPECT_NE(gpu, nullptr) << gpu_id;
  if (!gpu) return {};
  auto e = estimate(m, s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  auto w = build_work_profile(m, s, e.value());
  auto c = single_node_cluster(*gpu, gpus);
  auto t = estimate_step_time(m, s, e.value(), w.value(), c.value(), test::catalog().efficiencies);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return {e.value(), t.ok() ? t.value() : StepTime{}};
}

// All-reduce bus bandwidth inside a node: half the NVLink figure (one direction) x efficiency.
double nvlink_busbw(const std::string& gpu_id) {
  return test::catalog().find_gpu(gpu_id)->nvlink_bandwidth_bytes_per_s / 2 *
         test::catalog().efficiencies.nvlink;
}

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
  // TFLOPS, ml-engineering's table), nor be slower than all of them at flash attention's rate.
  gpuplan::Setup s;
  s.precision = Precision::bf16;
  s.global_batch = 4;
  const Timed x = time_on("llama-2-7b", "h100-sxm5-80gb", 1, s);
  const double flops = x.e.flops.forward_per_step + x.e.flops.backward_per_step;
  EXPECT_GE(x.t.forward_s + x.t.backward_s, flops / 794.5e12 * 0.999);
  EXPECT_LT(x.t.forward_s + x.t.backward_s, flops / (989e12 * 0.35));
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

// The forward pass of `model_id` on one `gpu_id` with efficiencies `eff`.
double forward_on(const std::string& model_id, const std::string& gpu_id, gpuplan::Setup s,
                  const Efficiencies& eff, WorkProfile* work_out = nullptr) {
  const Model& m = test::model(model_id);
  auto e = estimate(m, s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  if (!e.ok()) return 0;
  auto w = build_work_profile(m, s, e.value());
  if (work_out) *work_out = w.value();
  auto t = forward_time_s(m, s, w.value(), *test::catalog().find_gpu(gpu_id), eff,
                          static_cast<double>(e.value().micro_batch));
  EXPECT_TRUE(t.ok());
  return t.ok() ? t.value() : 0;
}

const OpClass& op_named(const WorkProfile& w, const std::string& name) {
  for (const auto& op : w.ops) {
    if (op.name == name) return op;
  }
  static const OpClass none;
  ADD_FAILURE() << "no op " << name;
  return none;
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

TEST(StepTime, EagerAttentionScalesAndMasksTheScoresInPassesOfTheirOwn) {
  // Per score element in FP32 training: written (4), scaled (4 + 4), masked (4 + 4), softmax (4 +
  // 4), dropout (4 + 4 + 1-byte mask), read by the second matmul (4) = 41 bytes
  // (BertSelfAttention).
  gpuplan::Setup s;
  s.precision = Precision::fp32;
  s.global_batch = 1;
  s.seq_len = 128;
  WorkProfile w;
  forward_on("bert-large", "a100-sxm4-80gb", s, test::catalog().efficiencies, &w);
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

TEST(Cost, EqualsTimeTimesPriceAndSpotAddsExpectedRework) {
  gpuplan::Setup s;
  s.global_batch = 8;
  const Timed x = time_on("gpt2-small", "a100-sxm4-80gb", 1, s);
  RunLength run;
  run.tokens = 1e9;
  auto c = run_cost(x.e, x.t, run, 3.0, Pricing::on_demand, {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.value().steps, std::ceil(1e9 / (8 * 1024)));
  EXPECT_NEAR(c.value().usd_total, c.value().hours * 3.0, 1e-9);
  SpotAssumptions spot{0.1, 1.0, 0.25};  // lose 0.5 + 0.25 h per interruption, 0.1 per hour
  auto sc = run_cost(x.e, x.t, run, 1.0, Pricing::spot, spot);
  ASSERT_TRUE(sc.ok());
  EXPECT_NEAR(sc.value().expected_hours, sc.value().hours / (1 - 0.075), 1e-12);
  SpotAssumptions hopeless{2.0, 1.0, 0.0};
  EXPECT_FALSE(run_cost(x.e, x.t, run, 1.0, Pricing::spot, hopeless).ok());
}

TEST(Pricing, PublishedPriceWinsOverTheRule) {
  const Instance* p4d = test::catalog().find_instance("aws-p4d.24xlarge");
  ASSERT_NE(p4d, nullptr);
  const PricingRules& rules = test::catalog().pricing;
  auto reserved = quote_price(*p4d, Pricing::reserved_1y, rules, "us-east-1");
  ASSERT_TRUE(reserved.ok());
  EXPECT_FALSE(reserved.value().assumption);
  EXPECT_DOUBLE_EQ(reserved.value().usd_per_hour, 13.921094);
  auto spot = quote_price(*p4d, Pricing::spot, rules, "us-east-1");
  ASSERT_TRUE(spot.ok());
  EXPECT_TRUE(spot.value().assumption);  // no published spot price: on-demand - 70 %
  EXPECT_NEAR(spot.value().usd_per_hour, 21.957642 * (1 - rules.spot), 1e-9);
  auto nowhere = quote_price(*p4d, Pricing::on_demand, rules, "mars-north-1");
  EXPECT_EQ(nowhere.error().message,
            "instance 'aws-p4d.24xlarge' has no published price in region 'mars-north-1'");
}

PlanQuery query(const std::string& model, Precision precision, int64_t batch) {
  PlanQuery q;
  q.request.model = model;
  q.request.setup.precision = precision;
  q.request.setup.global_batch = batch;
  q.efficiencies = test::catalog().efficiencies;
  return q;
}

const Gpu& gpu_of(const Plan& p) {
  return *test::catalog().find_gpu(p.gpu);
}

// The seed guide's framework: short experiment -> spot T4; mid-term -> reserved A40;
// long-term -> bulk H100-class cluster. Each follows from prices and the model, not a rule.
TEST(PlannerDecisionFramework, ShortExperimentOnSpotPicksT4) {
  PlanQuery q = query("resnet18", Precision::amp_fp16, 256);
  q.request.setup.resolution = 32;  // CIFAR-10-sized images
  q.run.epochs = 1;
  q.run.dataset_size = 50000;
  q.pricing = Pricing::spot;
  q.provider = "gcp";
  auto r = plan(test::catalog(), test::model("resnet18"), q);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().plans.front().gpu, "t4");
}

TEST(PlannerDecisionFramework, MidTermFineTuningOnReservedPicksA40) {
  // BERT-large fine-tuning for days, on GPUs with room to grow (>= 40 GB), reserved.
  PlanQuery q = query("bert-large", Precision::amp_fp16, 32);
  q.request.setup.seq_len = 512;
  q.run.epochs = 10;
  q.run.dataset_size = 400000;
  q.pricing = Pricing::reserved_1y;
  q.min_gpu_memory_bytes = 40e9;
  auto r = plan(test::catalog(), test::model("bert-large"), q);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().plans.front().gpu, "a40");
}

TEST(PlannerDecisionFramework, LongTermPretrainingOnBulkPicksALargeHopperClassCluster) {
  // LLaMA-2-70B on 2 T tokens within ~3 months at bulk prices: only multi-node clusters of the
  // fastest GPUs meet it; the cheapest of them wins.
  PlanQuery q = query("llama-2-70b", Precision::bf16, 1024);
  q.request.setup.seq_len = 4096;
  q.run.tokens = 2e12;
  q.pricing = Pricing::bulk;
  q.deadline_hours = 2000;
  q.max_nodes = 64;
  auto r = plan(test::catalog(), test::model("llama-2-70b"), q);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Plan& best = r.value().plans.front();
  EXPECT_GE(best.gpus, 64);
  EXPECT_GE(gpu_of(best).peak_dense_flops_per_s.at("bf16"), 989e12);  // H100-class or newer
  EXPECT_GT(r.value().candidates, 100000);
}

TEST(Planner, ParetoFrontIsMonotone) {
  PlanQuery q = query("gpt2-medium", Precision::amp_bf16, 64);
  q.run.tokens = 5e9;
  auto r = plan(test::catalog(), test::model("gpt2-medium"), q);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& front = r.value().pareto;
  ASSERT_GE(front.size(), 2u);
  for (size_t i = 1; i < front.size(); ++i) {
    EXPECT_GE(front[i].cost.expected_hours, front[i - 1].cost.expected_hours);
    EXPECT_LT(front[i].cost.usd_total, front[i - 1].cost.usd_total);
  }
  for (const auto& p : r.value().plans) {
    EXPECT_LE(p.memory.total(), p.gpu_memory_bytes);
    EXPECT_NEAR(p.cost.usd_total, p.cost.expected_hours * p.cost.usd_per_hour,
                1e-6 * p.cost.usd_total);
  }
}

TEST(Planner, SaysWhichLimitBinds) {
  PlanQuery q = query("llama-3-405b", Precision::bf16, 8);
  q.run.tokens = 1e9;
  q.max_nodes = 1;
  q.provider = "runpod";
  auto mem = plan(test::catalog(), test::model("llama-3-405b"), q);
  ASSERT_FALSE(mem.ok());
  EXPECT_EQ(mem.error().code, Errc::does_not_fit);
  EXPECT_NE(mem.error().message.find("memory binds"), std::string::npos) << mem.error().message;

  PlanQuery d = query("gpt2-small", Precision::amp_bf16, 8);
  d.run.tokens = 1e12;
  d.deadline_hours = 0.01;
  auto late = plan(test::catalog(), test::model("gpt2-small"), d);
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.error().message.find("deadline binds"), std::string::npos) << late.error().message;

  d.deadline_hours = 0;
  d.budget_usd = 0.01;
  auto poor = plan(test::catalog(), test::model("gpt2-small"), d);
  ASSERT_FALSE(poor.ok());
  EXPECT_NE(poor.error().message.find("budget binds"), std::string::npos) << poor.error().message;

  d.budget_usd = 0;
  d.provider = "nobody";
  auto none = plan(test::catalog(), test::model("gpt2-small"), d);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no priced instance matches the filters"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

TEST(StepTime, Fp32ConvolutionsOnTf32TensorCoresKeepMfuBelowOne) {
  // PyTorch runs fp32 convolutions on TF32 tensor cores by default, so MFU is measured against
  // the TF32 peak; against the fp32 peak it would exceed 100 %.
  gpuplan::Setup s;
  s.global_batch = 256;
  const Timed x = time_on("resnet50", "a100-sxm4-80gb", 1, s);
  EXPECT_DOUBLE_EQ(x.t.peak_flop_per_s, 156e12);
  EXPECT_LT(x.t.mfu, 1.0);
}

}  // namespace
}  // namespace gpuplan
