// Serving: KV capacity against hand counts, step-time shape, MoE touched experts, the
// simulator at zero load, autoscaling against its curve, costs, and the parsers' messages.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "gpuplan/embedded_data.h"
#include "gpuplan/evaluate.h"
#include "gpuplan/query.h"
#include "gpuplan/report.h"
#include "gpuplan/serve_plan.h"
#include "gpuplan/serve_validation.h"
#include "test_util.h"

namespace gpuplan {
namespace {

ReplicaModel replica(const std::string& model, const std::string& gpu, ServeConfig c = {}) {
  const Gpu* g = test::catalog().find_gpu(gpu);
  EXPECT_NE(g, nullptr);
  auto r = build_replica(test::model(model), *g, c, test::serving(), test::catalog().efficiencies);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : ReplicaModel{};
}

TEST(ServeAssumptions, RuntimeProfilesComeFromTheCatalog) {
  EXPECT_EQ(test::serving().kv_block_tokens, 16);
  EXPECT_DOUBLE_EQ(test::serving().vllm.memory_fraction, 0.9);
  EXPECT_TRUE(test::serving().trtllm.reserve_full_sequence);
  EXPECT_FALSE(test::serving().hf.continuous_batching);
}

TEST(ServeAssumptions, AnUnknownSourceIsNamed) {
  const std::string text =
      R"({"sources": {"a": {}}, "serving": {"kv_block_tokens": {"value": 16, "source": "b"}}})";
  auto r = parse_serving_assumptions(text, "assumptions.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "assumptions.json: serving.kv_block_tokens.source: 'b' is not in sources");
}

// Llama 3 8B: 32 layers, 8 KV heads of 128 (grouped-query attention).
TEST(ServeCapacity, KvBytesPerTokenMatchHandCountWithGqa) {
  // 2 (K and V) x 32 layers x 8 heads x 128 x 2 bytes = 131,072.
  EXPECT_DOUBLE_EQ(replica("llama-3-8b", "h100-sxm5-80gb").memory.kv_bytes_per_token, 131072.0);
  ServeConfig fp8;
  fp8.kv = KvFormat::fp8;
  EXPECT_DOUBLE_EQ(replica("llama-3-8b", "h100-sxm5-80gb", fp8).memory.kv_bytes_per_token, 65536.0);
  ServeConfig tp2;
  tp2.tp = 2;  // 4 KV heads per GPU
  EXPECT_DOUBLE_EQ(replica("llama-3-8b", "h100-sxm5-80gb", tp2).memory.kv_bytes_per_token, 65536.0);
}

// A Blackwell GPU for the tests: H100's memory and bandwidth with an FP4 peak (9e15 FLOP/s).
Gpu blackwell_for_test() {
  const Gpu* h100 = test::catalog().find_gpu("h100-sxm5-80gb");
  EXPECT_NE(h100, nullptr);
  Gpu g = h100 ? *h100 : Gpu{};
  g.id = "blackwell-test";
  g.architecture = "Blackwell";
  g.peak_dense_flops_per_s["fp4"] = 9e15;
  return g;
}

Result<ReplicaModel> replica_on(const Gpu& g, const std::string& model, ServeConfig c) {
  return build_replica(test::model(model), g, c, test::serving(), test::catalog().efficiencies);
}

TEST(ServeFormats, Fp4CheckpointsStoreTheirMatmulsInFourBitsWithScales) {
  // Llama 3 8B's block matmuls: per layer q and o 4096 x 4096, k and v 4096 x 1024, gate, up,
  // down 3 x 4096 x 14336: 218,103,808 weights, 6,979,321,856 over 32 layers, of which the MLP's
  // 5,637,144,576. NVFP4 stores them in 0.5 + 1/16 bytes (attention and MLP), MXFP4 in
  // 0.5 + 1/32 (the MLP only, as the gpt-oss checkpoints do); the rest stays bf16.
  const Gpu g = blackwell_for_test();
  ServeConfig c;
  const double bf16 = replica_on(g, "llama-3-8b", c).value().memory.weight_bytes;
  c.weights = WeightFormat::nvfp4;
  auto nv = replica_on(g, "llama-3-8b", c);
  ASSERT_TRUE(nv.ok()) << nv.error().message;
  EXPECT_NEAR(bf16 - nv.value().memory.weight_bytes, 6'979'321'856.0 * (2 - 0.5625), 1);
  EXPECT_EQ(nv.value().compute_precision, "fp4");
  c.weights = WeightFormat::mxfp4;
  auto mx = replica_on(g, "llama-3-8b", c);
  ASSERT_TRUE(mx.ok()) << mx.error().message;
  EXPECT_NEAR(bf16 - mx.value().memory.weight_bytes, 5'637'144'576.0 * (2 - 0.53125), 1);
  EXPECT_EQ(mx.value().compute_precision, "fp8");  // MXFP4 weights x MXFP8 activations
}

TEST(ServeFormats, Fp4WithoutFp4TensorCoresIsWeightOnlyOrAnError) {
  // vLLM runs NVFP4 weight-only through its Marlin kernel; TensorRT-LLM has no such path.
  const Gpu* h100 = test::catalog().find_gpu("h100-sxm5-80gb");
  ASSERT_NE(h100, nullptr);
  ServeConfig c;
  c.weights = WeightFormat::nvfp4;
  auto vllm = replica_on(*h100, "llama-3-8b", c);
  ASSERT_TRUE(vllm.ok()) << vllm.error().message;
  EXPECT_EQ(vllm.value().compute_precision, "bf16");
  ASSERT_FALSE(vllm.value().notes.empty());
  EXPECT_EQ(vllm.value().notes.back(),
            "h100-sxm5-80gb has no FP4 tensor cores: vllm runs the nvfp4 weights weight-only, "
            "matmuls at bf16");
  c.runtime = Runtime::trtllm;
  auto trtllm = replica_on(*h100, "llama-3-8b", c);
  ASSERT_FALSE(trtllm.ok());
  EXPECT_EQ(trtllm.error().message,
            "GPU 'h100-sxm5-80gb' has no FP4 tensor cores and trtllm has no weight-only nvfp4 "
            "kernel for it; serve it on Blackwell, with a runtime that has one, or choose fp8 or "
            "int4 weights");
}

TEST(ServeFormats, KvCacheFormatsAreTheRuntimes) {
  // FP4 KV: 0.5 + 1/16 bytes per element: 2 x 32 layers x 8 heads x 128 x 0.5625 = 36,864.
  ServeConfig c;
  c.kv = KvFormat::fp4;
  EXPECT_DOUBLE_EQ(replica("llama-3-8b", "h100-sxm5-80gb", c).memory.kv_bytes_per_token, 36864.0);
  // Transformers' own cache has no FP8 format.
  c.kv = KvFormat::fp8;
  c.runtime = Runtime::hf;
  auto hf = replica_on(*test::catalog().find_gpu("h100-sxm5-80gb"), "llama-3-8b", c);
  ASSERT_FALSE(hf.ok());
  EXPECT_EQ(hf.error().message,
            "hf has no fp8 KV cache (it stores bf16); choose another --kv or runtime");
  EXPECT_EQ(test::serving().trtllm.kv_formats,
            (std::vector<KvFormat>{KvFormat::bf16, KvFormat::fp8, KvFormat::fp4}));
}

TEST(ServeCapacity, AStaticBatchSharesTheMemoryWithItsPromptsActivations) {
  // transformers' generate has no step budget: a batch's prompts run in one forward pass, so its
  // activations grow with the batch. Llama 3 8B on one H100, 512-token prompts, 256-token answers:
  // one sequence's activations A and KV blocks K (48 blocks of 16 tokens), and the batch B the
  // rest holds: B (A + K) within what one sequence leaves plus its A, and B + 1 beyond it.
  ServeConfig c;
  c.runtime = Runtime::hf;
  const Gpu& h100 = *test::catalog().find_gpu("h100-sxm5-80gb");
  ServeConfig one = c;
  one.max_num_seqs = 1;
  one.max_num_batched_tokens = 512;
  const ReplicaMemory single = replica_on(h100, "llama-3-8b", one).value().memory;
  auto sized = build_static_batch_replica(test::model("llama-3-8b"), h100, c, 512, 256,
                                          test::serving(), test::catalog().efficiencies);
  ASSERT_TRUE(sized.ok()) << sized.error().message;
  const ReplicaModel& r = sized.value();
  const double a = single.activation_bytes, k = 48 * 16 * single.kv_bytes_per_token;
  const double left = single.kv_bytes + a;
  const auto b = static_cast<double>(r.max_num_seqs);
  EXPECT_LE(b * (a + k), left);
  EXPECT_GT((b + 1) * (a + k), left);
  EXPECT_EQ(r.max_num_batched_tokens, r.max_num_seqs * 512);
  EXPECT_NEAR(r.memory.activation_bytes, b * a, 1e-6 * b * a);
  EXPECT_EQ(max_concurrent_sequences(r, 512, 256), r.max_num_seqs);
  // Without the sizing the profile's "no limit" (10 M tokens) leaves nothing for the cache.
  EXPECT_FALSE(replica_on(h100, "llama-3-8b", c).ok());
}

TEST(ServeCapacity, KvHeadsAreReplicatedBeyondTheirCount) {
  ServeConfig tp16;
  tp16.tp = 16;  // 8 KV heads over 16 GPUs: one (copied) head each: 2 x 32 x 1 x 128 x 2
  EXPECT_DOUBLE_EQ(replica("llama-3-8b", "h100-sxm5-80gb", tp16).memory.kv_bytes_per_token,
                   16384.0);
}

TEST(ServeCapacity, BlocksAreWhatTheBudgetLeaves) {
  const ReplicaModel r = replica("llama-3-8b", "h100-sxm5-80gb");
  const ReplicaMemory& m = r.memory;
  // vLLM: 0.9 x memory - weights - activations - context, in blocks of 16 tokens.
  const double left = 0.9 * m.gpu_bytes - m.weight_bytes - m.activation_bytes - m.context_bytes;
  EXPECT_EQ(m.kv_blocks, static_cast<int64_t>(std::floor(left / (16 * m.kv_bytes_per_token))));
  // 8,030,261,248 parameters at 2 bytes.
  EXPECT_DOUBLE_EQ(m.weight_bytes, 8030261248.0 * 2);
  // 1000 + 200 tokens take 75 blocks; capped by vLLM's 1024 sequences on an H100.
  EXPECT_EQ(max_concurrent_sequences(r, 1000, 200), std::min<int64_t>(1024, m.kv_blocks / 75));
}

TEST(ServeCapacity, ModelThatDoesNotFitSaysByHowMuch) {
  auto r = build_replica(test::model("llama-3-70b"), *test::catalog().find_gpu("l4"), {},
                         test::serving(), test::catalog().efficiencies);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::does_not_fit);
  EXPECT_NE(r.error().message.find("does not fit on l4 at TP 1: weights 141.1 GB"),
            std::string::npos)
      << r.error().message;
}

// Pipeline stages: each of the 4 GPUs holds a quarter of Llama 3 8B's weights and of each
// token's keys and values; a step of 64 sequences runs as 4 micro-batches of 16 in the stages at
// once, in the time the whole model takes for 16 on one GPU (with 3 hand-overs between stages);
// a lone sequence passes the stages one after another.
TEST(ServePipeline, StagesHoldAShareAndOverlapTheirMicroBatches) {
  ServeConfig pp4;
  pp4.pp = 4;
  const ReplicaModel one = replica("llama-3-8b", "h100-sxm5-80gb");
  const ReplicaModel four = replica("llama-3-8b", "h100-sxm5-80gb", pp4);
  ASSERT_TRUE(four.pipelined);
  EXPECT_DOUBLE_EQ(four.memory.weight_bytes, one.memory.weight_bytes / 4);
  EXPECT_DOUBLE_EQ(four.memory.kv_bytes_per_token, one.memory.kv_bytes_per_token / 4);
  auto decode = [](double seqs) {
    StepLoad l;
    l.decode_seqs = seqs;
    l.decode_context = seqs * 1000;
    return l;
  };
  const double hops = 3 * (four.stage_hop_latency_s +
                           16 * four.stage_hop_bytes_per_token / four.stage_link_bytes_per_s);
  EXPECT_NEAR(step_time(four, decode(64)).total_s, step_time(one, decode(16)).total_s + hops,
              1e-12);
  const double lone_hops =
      3 * (four.stage_hop_latency_s + four.stage_hop_bytes_per_token / four.stage_link_bytes_per_s);
  EXPECT_NEAR(step_time(four, decode(1)).total_s, step_time(one, decode(1)).total_s + lone_hops,
              1e-12);
}

TEST(ServePipeline, StagesTheModelOrTheRuntimeCannotTakeAreRefused) {
  auto error = [](ServeConfig c) {
    auto r = build_replica(test::model("llama-3-8b"), *test::catalog().find_gpu("h100-sxm5-80gb"),
                           c, test::serving(), test::catalog().efficiencies);
    return r.ok() ? std::string("ok") : r.error().message;
  };
  ServeConfig c;
  c.pp = 33;
  EXPECT_EQ(error(c), "--pp must be between 1 and the model's 32 layers, got 33");
  c.pp = 2;
  c.runtime = Runtime::llamacpp;
  EXPECT_EQ(error(c),
            "--pp: the runtime already splits layers across the replica's GPUs (--tp); leave --pp "
            "at 1");
  auto moe = build_replica(
      test::model("mixtral-8x7b"), *test::catalog().find_gpu("h100-sxm5-80gb"),
      [] {
        ServeConfig m;
        m.tp = 2;
        m.pp = 2;
        m.attention_dp = true;
        return m;
      }(),
      test::serving(), test::catalog().efficiencies);
  ASSERT_FALSE(moe.ok());
  EXPECT_EQ(moe.error().message, "--pp with --attention-dp is not modelled; choose one");
}

TEST(ServeStep, DecodeTimeGrowsWithTheBatch) {
  const ReplicaModel r = replica("llama-3-8b", "h100-sxm5-80gb");
  double previous = 0;
  for (double batch : {1.0, 2.0, 8.0, 32.0, 128.0, 512.0}) {
    StepLoad load;
    load.decode_seqs = batch;
    load.decode_context = batch * 1000;
    const double t = step_time(r, load).total_s;
    EXPECT_GT(t, previous) << "batch " << batch;
    previous = t;
  }
}

// Llama 3 8B: hidden 4096, MLP 14336 (gated), 32 layers.
TEST(ServeStep, ElementwiseTrafficOfTheHiddenStateIsReplicatedUnderTensorParallelism) {
  // 16-bit: 32 layers x (10 x 4096 on the full hidden state + 3 x 14336 / tp of the activation).
  const ReplicaModel r1 = replica("llama-3-8b", "h100-sxm5-80gb");
  EXPECT_DOUBLE_EQ(r1.elementwise_bytes_per_token, 2.0 * 32 * 10 * 4096);
  EXPECT_DOUBLE_EQ(r1.mlp_elementwise_bytes_per_token, 2.0 * 32 * 3 * 14336);
  ServeConfig tp2;
  tp2.tp = 2;
  const ReplicaModel r2 = replica("llama-3-8b", "h100-sxm5-80gb", tp2);
  EXPECT_DOUBLE_EQ(r2.elementwise_bytes_per_token, 2.0 * 32 * 10 * 4096);
  EXPECT_DOUBLE_EQ(r2.mlp_elementwise_bytes_per_token, 2.0 * 32 * 3 * 14336 / 2.0);
  StepLoad load;
  load.decode_seqs = 100;
  load.decode_context = 100 * 500;
  EXPECT_DOUBLE_EQ(step_time(r2, load).elementwise_s,
                   100 * 2.0 * 32 * (10 * 4096 + 3 * 14336 / 2.0) / r2.hbm_bytes_per_s);
}

// Llama 3 8B (32 layers, hidden 4096), 256 sequences decoding: each layer all-reduces twice a
// 256 x 4096 x 2-byte tensor (2,097,152 bytes); a ring moves 2 (n-1)/n of it per GPU.
double decode_comm_s(const std::string& gpu, int tp) {
  ServeConfig c;
  c.tp = tp;
  c.runtime = Runtime::trtllm;
  StepLoad load;
  load.decode_seqs = 256;
  load.decode_context = 256 * 1000;
  return step_time(replica("llama-3-8b", gpu, c), load).comm_s;
}

TEST(ServeComm, TensorParallelAllReduceOverPcieIsNcclThroughTheHost) {
  // L40S (PCIe 4.0 x16: 16 GT/s x 16 x 128/130 / 8 = 31.508 GB/s per direction), TP 8: NCCL
  // ring at 0.444 of it (13.989 GB/s) and 42 us a call: 64 x (42 us + 3,670,016 B / 13.989 GB/s).
  EXPECT_NEAR(decode_comm_s("l40s", 8), 64 * (42e-6 + 3670016 / 13.9896e9), 1e-5);
  // TP 4: 0.556 of the x16 rate, 2 x 3/4 of the tensor.
  EXPECT_NEAR(decode_comm_s("l40s", 4), 64 * (42e-6 + 3145728 / 17.5186e9), 1e-5);
  // TP 2: one PCIe hop at the copy efficiency 0.781, half the tensor each way.
  EXPECT_NEAR(decode_comm_s("l40s", 2), 64 * (42e-6 + 2097152 / 24.6077e9), 1e-5);
  // H100 SXM over NVLink (450 GB/s per direction x 0.822): TensorRT-LLM's own kernel, 5.7 us.
  EXPECT_NEAR(decode_comm_s("h100-sxm5-80gb", 8), 64 * (5.7e-6 + 3670016 / 369.9e9), 1e-6);
  EXPECT_GT(decode_comm_s("l40s", 8), 15 * decode_comm_s("h100-sxm5-80gb", 8));
}

TEST(ServeComm, APcieCardsNvlinkBridgeJoinsTwoGpusOnly) {
  // A100 PCIe: NVLink bridge at TP 2 (the runtime's kernel), PCIe and NCCL from TP 4.
  ServeConfig c;
  c.runtime = Runtime::trtllm;
  c.tp = 2;
  const ReplicaModel two = replica("llama-3-8b", "a100-pcie-80gb", c);
  EXPECT_FALSE(two.pcie_allreduce);
  EXPECT_DOUBLE_EQ(two.allreduce_latency_s, test::serving().trtllm.allreduce_latency_s);
  c.tp = 4;
  const ReplicaModel four = replica("llama-3-8b", "a100-pcie-80gb", c);
  EXPECT_TRUE(four.pcie_allreduce);
  EXPECT_DOUBLE_EQ(four.allreduce_latency_s, 42e-6);
  EXPECT_LT(four.link_busbw_bytes_per_s, two.link_busbw_bytes_per_s / 10);
}

TEST(ServeStep, GemmQuantisationHandCounts) {
  Efficiencies e;
  e.gemm_tile_rows = 256;
  e.gemm_tile_cols = 128;
  // 2048 x 1280 outputs: 8 x 10 = 80 tiles on 132 SMs, one wave 80/132 full, no padding.
  EXPECT_DOUBLE_EQ(gemm_quantisation_efficiency(2048, 1280, 132, e), 80.0 / 132);
  // 300 x 1000: 2 x 8 tiles padded to 512 x 1024, 16 of 132 SMs busy.
  EXPECT_DOUBLE_EQ(gemm_quantisation_efficiency(300, 1000, 132, e),
                   300.0 * 1000 / (512 * 1024) * 16 / 132);
  EXPECT_DOUBLE_EQ(gemm_quantisation_efficiency(300, 1000, 0, e), 1.0);  // SM count unknown
}

TEST(ServeStep, PrefillMatmulsPayForWholeWaves) {
  // Llama 3 8B on an H100 (132 SMs), 2048 prompt tokens in 256 x 128 tiles: QKV (6144 columns),
  // O (4096), gate-up (28672) and down (4096) take 8 x 48, 8 x 32, 8 x 224 and 8 x 32 tiles,
  // i.e. 2.91, 1.94, 13.58 and 1.94 waves paid as 3, 2, 14 and 2: each 128/132 efficient.
  const ReplicaModel r = replica("llama-3-8b", "h100-sxm5-80gb");
  StepLoad load;
  load.prefill_tokens = 2048;
  load.prefill_pairs = 2048.0 * 2049 / 2;
  load.prefill_last = 1;  // one sampled row: the head is not quantised
  const double expected = 2048 * r.gemm_flops_per_token / r.compute_flop_per_s * 132 / 128 +
                          r.head_flops_per_token / r.compute_flop_per_s;
  EXPECT_NEAR(step_time(r, load).weights_s, expected, 1e-12 * expected);
  // Under 256 rows (one tile) kernels pick narrower tiles: no quantisation.
  StepLoad decode;
  decode.decode_seqs = 200;
  decode.decode_context = 200 * 100;
  const double flops = 200 * (r.gemm_flops_per_token + r.head_flops_per_token);
  EXPECT_GE(step_time(r, decode).weights_s, flops / r.compute_flop_per_s);
}

TEST(ServeStep, L40sPrefillMatmulsPayForWholeWavesOf142Sms) {
  // L40S: 142 SMs (AD102). Llama 3 8B, 2048 prompt tokens in 256 x 128 tiles: QKV 8 x 48 = 384
  // tiles = 2.70 waves paid as 3 (384/426 efficient), O and down 8 x 32 = 256 tiles = 1.80 waves
  // paid as 2 (256/284), gate-up 8 x 224 = 1792 tiles = 12.62 waves paid as 13 (1792/1846).
  const ReplicaModel r = replica("llama-3-8b", "l40s");
  ASSERT_EQ(r.sms, 142);
  ASSERT_EQ(r.gemms.size(), 4u);
  const double efficiency[] = {384.0 / 426, 256.0 / 284, 1792.0 / 1846, 256.0 / 284};
  double expected = r.head_flops_per_token / r.compute_flop_per_s;
  for (size_t i = 0; i < 4; ++i) {
    expected += 2048 * r.gemms[i].flops_per_token / (r.compute_flop_per_s * efficiency[i]);
  }
  StepLoad load;
  load.prefill_tokens = 2048;
  load.prefill_pairs = 2048.0 * 2049 / 2;
  load.prefill_last = 1;
  EXPECT_NEAR(step_time(r, load).weights_s, expected, 1e-12 * expected);
}

TEST(ServeStep, ExpertMatmulsRunAsOneGroupedLaunchAtTheGroupedRate) {
  // Qwen3-30B-A3B on an H100 (132 SMs, 256 x 128 tiles), 8192 prompt tokens: all 128 experts
  // touched, 8192 x 8 / 128 = 512 rows each. A fused MoE kernel launches every expert's tiles
  // together: gate-up (1536 columns) 128 x 2 x 12 = 3072 tiles = 23.27 waves paid as 24, down
  // (2048) 128 x 2 x 16 = 4096 tiles = 31.03 waves paid as 32, each at grouped_gemm (0.739) of
  // the dense rate. One expert alone would be 24 tiles on 132 SMs, 18 % efficient. The rest are
  // single GEMMs over 32 row tiles: QKV (5120 columns) 1280 tiles = 9.70 waves paid as 10, O
  // (2048) 512 = 3.88 paid as 4, the router (128) 32 tiles in one wave.
  const ReplicaModel r = replica("qwen3-30b-a3b", "h100-sxm5-80gb");
  ASSERT_EQ(r.sms, 132);
  ASSERT_EQ(r.gemms.size(), 5u);
  const double grouped = test::catalog().efficiencies.grouped_gemm;
  ASSERT_DOUBLE_EQ(grouped, 0.739);
  const double efficiency[] = {1280.0 / 1320, 512.0 / 528, grouped * 3072.0 / 3168,
                               grouped * 4096.0 / 4224, 32.0 / 132};
  double expected = r.head_flops_per_token / r.compute_flop_per_s;
  for (size_t i = 0; i < 5; ++i)
    expected += 8192 * r.gemms[i].flops_per_token / (r.compute_flop_per_s * efficiency[i]);
  StepLoad load;
  load.prefill_tokens = 8192;
  load.prefill_pairs = 8192.0 * 8193 / 2;
  load.prefill_last = 1;
  EXPECT_NEAR(step_time(r, load).weights_s, expected, 1e-12 * expected);
}

TEST(ServeStep, MoeTouchedExpertsAtBatchOneAndLarge) {
  EXPECT_DOUBLE_EQ(experts_touched(8, 2, 1), 2.0);      // one token: its k experts
  EXPECT_NEAR(experts_touched(8, 2, 1000), 8.0, 1e-9);  // a large batch touches all
  EXPECT_NEAR(experts_touched(8, 2, 2), 8 * (1 - 0.75 * 0.75), 1e-12);
  ServeConfig tp2;
  tp2.tp = 2;  // 93 GB of experts do not fit one H100
  const ReplicaModel r = replica("mixtral-8x7b", "h100-sxm5-80gb", tp2);
  StepLoad one;
  one.decode_seqs = 1;
  EXPECT_DOUBLE_EQ(step_time(r, one).experts_touched, 2.0);
}

TEST(ServeSimulation, TtftAtZeroLoadIsThePrefillTime) {
  const ReplicaModel r = replica("llama-3-8b", "h100-sxm5-80gb");
  ServeWorkload w;
  w.requests = 1;
  w.prompt_tokens = 3000;  // one chunk of the 8192-token budget
  w.output_tokens = 50;
  auto s = simulate(r, w);
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(s.value().ttft_s.p50, prefill_time_s(r, 3000), 1e-12);
  w.prompt_tokens = 20000;  // three chunks
  s = simulate(r, w);
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(s.value().ttft_s.p50, prefill_time_s(r, 20000), 1e-12);
}

// A client concurrency (vllm bench serve --max-concurrency) sends a request when an earlier one
// finishes: with one in flight every request runs alone, its TTFT the prefill of its prompt and
// the run as long as the requests one after another; all at once, they queue for the batch.
TEST(ServeSimulation, AClientConcurrencySendsARequestWhenOneFinishes) {
  const ReplicaModel r = replica("llama-3-8b", "h100-sxm5-80gb");
  ServeWorkload w;
  w.rate_per_s = 0;
  w.prompt_tokens = 3000;
  w.output_tokens = 50;
  w.requests = 1;
  auto alone = simulate(r, w);
  w.requests = 6;
  w.concurrency = 1;
  auto serial = simulate(r, w);
  ASSERT_TRUE(alone.ok() && serial.ok());
  EXPECT_NEAR(serial.value().ttft_s.p90, prefill_time_s(r, 3000), 1e-12);
  EXPECT_NEAR(serial.value().output_tokens_per_s, alone.value().output_tokens_per_s, 1e-9);
  EXPECT_EQ(serial.value().max_running, 1);
  w.concurrency = 0;
  auto burst = simulate(r, w);
  ASSERT_TRUE(burst.ok());
  EXPECT_GT(burst.value().ttft_s.p90, serial.value().ttft_s.p90);
  EXPECT_EQ(burst.value().max_running, 6);
}

// Blocks allocated as sequences grow run out: the newest sequence is preempted and recomputed
// (vLLM), the older one finishes. Two sequences of 100 + 300 tokens need 25 blocks of 16 each at
// their end; 30 blocks hold both only to 240 tokens. The recompute costs steps (a run without it
// takes 300: one prefill, 299 decodes), and no step is longer than two decodes at full context
// beside a whole prompt.
TEST(ServeSimulation, WhenBlocksRunOutTheNewestIsPreemptedAndRecomputed) {
  ReplicaModel r = replica("llama-3-8b", "h100-sxm5-80gb");
  ASSERT_FALSE(r.profile.reserve_full_sequence);
  ASSERT_EQ(r.block_tokens, 16);
  r.memory.kv_blocks = 30;
  r.memory.kv_tokens = 30 * 16;
  ServeWorkload w;
  w.rate_per_s = 0;
  w.requests = 2;
  w.prompt_tokens = 100;
  w.output_tokens = 300;
  auto s = simulate(r, w);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s.value().max_running, 2);
  EXPECT_GT(s.value().steps, 300);
  EXPECT_FALSE(s.value().saturated);
  StepLoad longest;
  longest.decode_seqs = 2;
  longest.decode_context = 2 * 400;
  longest.prefill_tokens = 100;
  longest.prefill_last = 1;
  longest.prefill_pairs = 100 * 101 / 2;
  EXPECT_LE(s.value().itl_s.p99, step_time(r, longest).total_s);
  EXPECT_GT(s.value().itl_s.p99, 0);
}

// Unless asked otherwise, a replica runs the checkpoint as published: GPT-OSS's MXFP4 experts
// (one H100 holds gpt-oss-120b), 16-bit for a model whose checkpoint names no format.
TEST(ServeReplica, RunsTheCheckpointsWeightsUnlessAsked) {
  ServeConfig c;
  c.checkpoint_weights = true;
  const ReplicaModel oss = replica("gpt-oss-120b", "h100-sxm5-80gb", c);
  EXPECT_EQ(oss.config.weights, WeightFormat::mxfp4);
  ASSERT_FALSE(oss.notes.empty());
  EXPECT_EQ(oss.notes[0],
            "weights: mxfp4, as the gpt-oss-120b checkpoint ships them (--weights sets another)");
  EXPECT_EQ(replica("llama-3-8b", "h100-sxm5-80gb", c).config.weights, WeightFormat::bf16);
  ServeConfig bf16;
  const Gpu* h100 = test::catalog().find_gpu("h100-sxm5-80gb");
  ASSERT_NE(h100, nullptr);
  EXPECT_FALSE(build_replica(test::model("gpt-oss-120b"), *h100, bf16, test::serving(),
                             test::catalog().efficiencies)
                   .ok());  // 120 B parameters at 16 bits do not fit 80 GB
}

// A burst of `requests` (at most `concurrency` in flight; 0: all at once) of Llama-3.1-8B on one
// H100, as validation simulates a row of vLLM's serving benchmark.
SimulationResult llama31_burst(double prompt, double output, int requests, int concurrency = 0) {
  const ReplicaModel r = replica("llama-3.1-8b", "h100-sxm5-80gb");
  ServeWorkload w;
  w.rate_per_s = 0;
  w.prompt_tokens = prompt;
  w.output_tokens = output;
  w.requests = requests;
  w.concurrency = concurrency;
  auto s = simulate(r, w);
  EXPECT_TRUE(s.ok());
  return s.ok() ? s.value() : SimulationResult{};
}

// ITL is every gap between a sequence's tokens. Alone, a request's gaps are its decode steps, so
// their mean is its TPOT; beside other requests' prompts a few gaps are long mixed steps, which
// lift the mean but not the median.
TEST(ServeSimulation, InterTokenGapsAreDecodeStepsWeightedByTheirSequences) {
  const ReplicaModel r = replica("llama-3-8b", "h100-sxm5-80gb");
  ServeWorkload w;
  w.requests = 1;
  w.prompt_tokens = 3000;
  w.output_tokens = 200;
  auto alone = simulate(r, w);
  ASSERT_TRUE(alone.ok());
  EXPECT_NEAR(alone.value().itl_s.mean, alone.value().tpot_s.mean,
              1e-12 * alone.value().tpot_s.mean);
  w.requests = 40;
  w.concurrency = 8;
  auto busy = simulate(r, w);
  ASSERT_TRUE(busy.ok());
  const Percentiles& itl = busy.value().itl_s;
  EXPECT_LT(itl.p50, itl.mean);
  StepLoad eight;
  eight.decode_seqs = 8;
  eight.decode_context = 8 * 3200.0;  // the longest context: no decode step of 8 is longer
  EXPECT_LE(itl.p50, step_time(r, eight).total_s);
}

TEST(ServeSimulation, HigherRateNeverLowersTtft) {
  const ReplicaModel r = replica("llama-3-8b", "h100-sxm5-80gb");
  ServeWorkload w;
  w.requests = 300;
  w.prompt_tokens = 1500;
  w.output_tokens = 300;
  w.rate_per_s = 1;
  auto low = simulate(r, w);
  w.rate_per_s = 40;
  auto high = simulate(r, w);
  ASSERT_TRUE(low.ok() && high.ok());
  EXPECT_GE(high.value().ttft_s.p90, low.value().ttft_s.p90);
  EXPECT_GT(high.value().mean_running, low.value().mean_running);
}

// Long answers: at half the replica's full-batch throughput each request takes about a minute,
// longer than a quarter of 60 requests' arrival span, with no queue; the run is not saturated
// for that. At twice that throughput it is.
TEST(ServeSimulation, LongAnswersAtHalfCapacityAreNotSaturation) {
  const ReplicaModel r = replica("llama-3-8b", "h100-sxm5-80gb");
  ServeWorkload w;
  w.requests = 60;
  w.prompt_tokens = 1000;
  w.output_tokens = 4000;
  const double capacity_per_s = burst_output_tokens_per_s(r, 1000, 4000) / 4000;
  w.rate_per_s = 0.5 * capacity_per_s;
  auto half = simulate(r, w);
  ASSERT_TRUE(half.ok());
  EXPECT_GT(half.value().ttft_s.p50 + 3999 * half.value().tpot_s.p50, 0.25 * 59 / w.rate_per_s);
  EXPECT_FALSE(half.value().saturated);
  w.rate_per_s = 2 * capacity_per_s;
  auto twice = simulate(r, w);
  ASSERT_TRUE(twice.ok());
  EXPECT_TRUE(twice.value().saturated);
}

TEST(ServeFleet, AutoscalingNeverLeavesTheSloUnmetOnAPreset) {
  for (const char* preset : {"flat", "business-hours", "diurnal"}) {
    auto curve = preset_load_curve(preset, 30);
    ASSERT_TRUE(curve.ok());
    ScalingPolicy policy;
    policy.instance_start_s = 300;
    auto plan = plan_fleet(curve.value(), 4.0, 140e9, policy);
    ASSERT_TRUE(plan.ok());
    for (const FleetHour& h : plan.value().hours) {
      EXPECT_GE(h.replicas * plan.value().replica_rate_per_s, h.rate_per_s - 1e-9) << preset;
    }
    EXPECT_GE(plan.value().fixed_replicas * plan.value().replica_rate_per_s, 30.0) << preset;
  }
}

TEST(ServeFleet, CostIsReplicasTimesPrice) {
  auto curve = preset_load_curve("business-hours", 10);
  ASSERT_TRUE(curve.ok());
  auto plan = plan_fleet(curve.value(), 2.5, 16e9, {});
  ASSERT_TRUE(plan.ok());
  FleetPrices prices;
  prices.on_demand_usd_per_hour = 4.0;
  prices.gpus_per_replica = 1;
  prices.gpus_per_instance = 1;
  const auto costs = fleet_costs(plan.value(), prices, 200);
  double replica_hours = 0;
  for (const FleetHour& h : plan.value().hours) replica_hours += h.replicas;
  ASSERT_FALSE(costs.empty());
  EXPECT_DOUBLE_EQ(costs.front().usd_per_day_autoscaled,
                   replica_hours * 4.0);  // no start delay given
  EXPECT_DOUBLE_EQ(costs.front().usd_per_day_fixed, 24.0 * plan.value().fixed_replicas * 4.0);
  // Two TP-4 replicas share one 8-GPU instance.
  prices.gpus_per_replica = 4;
  prices.gpus_per_instance = 8;
  EXPECT_EQ(instances_for(3, prices), 2);
}

TEST(ServeFleet, LoadCurveParserNamesTheProblem) {
  auto bad = parse_load_curve("1 2 x", "curve.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "curve.txt:1: 'x' is not a request rate (a number >= 0)");
  auto short_curve = parse_load_curve("1,2,3", "curve.txt");
  ASSERT_FALSE(short_curve.ok());
  EXPECT_EQ(short_curve.error().message, "curve.txt: expected 24 hourly rates (requests/s), got 3");
  std::string ok_text = "# hourly\n";
  for (int h = 0; h < 24; ++h) ok_text += std::to_string(h) + "\n";
  auto ok = parse_load_curve(ok_text, "curve.txt");
  ASSERT_TRUE(ok.ok());
  EXPECT_DOUBLE_EQ(ok.value()[23], 23.0);
}

// vLLM's fused_moe launches 7 kernels where a dense MLP launches 3 (router GEMM, top-k, align,
// two expert GEMMs, activation, sum): each of Mixtral's 32 MoE blocks pays 4 more kernel gaps a
// step.
TEST(ServeReplica, AMixtureOfExpertsBlockLaunchesVllmsFusedMoeKernels) {
  ServeConfig c;
  c.tp = 2;
  const ReplicaModel r = replica("mixtral-8x7b", "h100-sxm5-80gb", c);
  EXPECT_EQ(r.profile.moe_extra_kernels_per_layer, 4);
  ReplicaModel dense_count = r;
  dense_count.profile.moe_extra_kernels_per_layer = 0;
  StepLoad one;
  one.decode_seqs = 1;
  one.decode_context = 1000;
  EXPECT_NEAR(step_time(r, one).total_s - step_time(dense_count, one).total_s,
              32 * 4 * r.kernel_overhead_s, 1e-12);
}

TEST(ServeReplica, TensorRtLlmsPythonExecutorHandlesEachRequestOnTheHost) {
  // TensorRT-LLM's PyTorch backend: 45.11 ms of host time per iteration at 1536 requests a rank
  // (PR #10273), 29.37 us a request, beside the GPU's step. Llama 3 8B at FP8 on B200 with 2048
  // short decodes: the GPU's step is about 13 ms (8 GB of weights, 33 TFLOP at 3.4 PFLOP/s, 13 GB
  // of keys), the host's 2048 x 29.37 us = 60.1 ms, so the step takes the host's.
  const RuntimeProfile& trt = test::serving().profile(Runtime::trtllm);
  EXPECT_NEAR(trt.host_per_sequence_s, 45.11e-3 / 1536, 0.01e-6);
  ServeConfig c;
  c.runtime = Runtime::trtllm;
  c.weights = WeightFormat::fp8;
  c.kv = KvFormat::fp8;
  const ReplicaModel r = replica("llama-3-8b", "b200-sxm", c);
  StepLoad load;
  load.decode_seqs = 2048;
  load.decode_context = 2048 * 100.0;
  const StepBreakdown b = step_time(r, load);
  EXPECT_NEAR(b.total_s, 2048 * trt.host_per_sequence_s, 1e-12);
  EXPECT_LT(b.weights_s + b.elementwise_s + b.attention_s + b.comm_s, 0.5 * b.total_s);
  // vLLM's profile states no such cost: the same step is the GPU's.
  c.runtime = Runtime::vllm;
  const StepBreakdown v = step_time(replica("llama-3-8b", "b200-sxm", c), load);
  EXPECT_LT(v.total_s, 0.5 * b.total_s);
}

TEST(ServePlan, AReplicaPacedByItsHostSaysSo) {
  // Qwen3-30B-A3B (3 B active) on one B200 under TensorRT-LLM, 500-token prompts and 200-token
  // answers: ~1,670 sequences fit, and a decode step of all of them takes the executor
  // 1,670 x 29.4 us = 49 ms against about half that of GPU work.
  ServeQuery q = serving_example_query();
  q.workload.prompt_tokens = 500;
  q.workload.output_tokens = 200;
  q.gpu = "b200-sxm";
  q.config.runtime = Runtime::trtllm;
  q.config.tp = 1;
  auto note_of = [](const ServeOption& o) {
    for (const std::string& n : o.notes)
      if (n.rfind("a full batch is paced by the host", 0) == 0) return n;
    return std::string();
  };
  auto plan = plan_serving(test::catalog(), test::serving(), test::model("qwen3-30b-a3b"), q);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const ServeOption& best = plan.value().options.front();
  const std::string note = note_of(best);
  EXPECT_NE(note.find(std::to_string(best.max_seqs) + " sequences the trtllm executor"),
            std::string::npos)
      << note;
  // vLLM states no host time per request: no such note.
  q.config.runtime = Runtime::vllm;
  plan = plan_serving(test::catalog(), test::serving(), test::model("qwen3-30b-a3b"), q);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(note_of(plan.value().options.front()), "");
}

TEST(ServeValidation, OnlyThePyTorchBackendsRowsPayTheHostPerRequest) {
  // The same burst under TensorRT-LLM's C++ executor (a TensorRT engine) and its PyTorch
  // backend: Llama 3.1 8B FP8 on B200, 128/128, where the host bounds the Python executor.
  const std::string head = test::kServingCsvHeader;
  const std::string engine =
      "E,trtllm,Llama-3.1-8B,B200,1,1,FP8,TensorRT-LLM v0.17 (TRT engine),128,128,,,inf,"
      "output_tokens_per_s_total,30000,x,\n";
  const std::string pytorch =
      "P,trtllm,Llama-3.1-8B,B200,1,1,FP8,TensorRT-LLM v1.0 (PyTorch backend),128,128,,,inf,"
      "output_tokens_per_s_total,30000,x,\n";
  auto rep =
      validate_serving_csv(test::catalog(), test::serving(), head + engine + pytorch, "s.csv");
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  ASSERT_EQ(rep.value().rows.size(), 2u);
  const double engine_tps = rep.value().rows[0].predicted,
               pytorch_tps = rep.value().rows[1].predicted;
  EXPECT_LT(pytorch_tps, 0.8 * engine_tps);
  // Host-bound, a step of n decodes yields n tokens in n x 29.37 us (plus its prompts' share):
  // no more than 1 / 29.37 us = 34,050 tokens/s.
  EXPECT_LT(pytorch_tps, 1 / test::serving().profile(Runtime::trtllm).host_per_sequence_s);
}

TEST(ServeValidation, ReadsTheColumnsByNameAndSkipsWithAReason) {
  const std::string text = test::kServingCsvHeader +
                           "A1,gpt-fast,Llama-2-7B,A100-SXM 80GB,1,1,BF16,gpt-fast (PyTorch "
                           "native),5,,,1,,decode_tokens_per_s_batch1,104.9,x,\"a, b\"\n"
                           "A2,other,Falcon-40B,H100,8,8,FP8,TensorRT-LLM "
                           "v0.14.0,128,128,,,inf,output_tokens_per_s_total,1000,x,\n";
  auto rep = validate_serving_csv(test::catalog(), test::serving(), text, "s.csv");
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  ASSERT_EQ(rep.value().rows.size(), 1u);
  EXPECT_EQ(rep.value().rows[0].group, "batch-1 decode tokens/s");
  ASSERT_EQ(rep.value().skipped.size(), 1u);
  EXPECT_EQ(rep.value().skipped[0].second, "model 'Falcon-40B' is not in the zoo");
  auto bad =
      validate_serving_csv(test::catalog(), test::serving(), "id,source_kind,metric\n", "s.csv");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "s.csv:1: header lacks the column 'model'");
}

// A file of one source, or of none, is new ground: its rows' bands rest on the development
// rows the catalog holds (data/accuracy.json), not on the file's other rows alone.
TEST(ServeValidation, BandsRestOnTheValidatedServingRows) {
  ASSERT_GT(test::catalog().accuracy.serving.size(), 1000u);
  const std::string head =
      "id,source_kind,model,gpu,num_gpus,tp,precision,framework,input_len,output_len,"
      "concurrency_or_batch,request_rate,metric,value,notes";
  const std::string row =
      "N1,vllm,Llama-3.1-8B,H100 80GB HBM3,1,1,BF16,vLLM 0.6.0,1000,1000,,inf,"
      "output_tokens_per_s_total,9000,";
  for (const std::string& text :
       {head + ",source\n" + row + ",someone's blog\n", head + "\n" + row + "\n"}) {
    auto rep = validate_serving_csv(test::catalog(), test::serving(), text, "s.csv");
    ASSERT_TRUE(rep.ok()) << rep.error().message;
    ASSERT_EQ(rep.value().rows.size(), 1u);
    const ServingPrediction& p = rep.value().rows[0];
    EXPECT_EQ(p.ground.runtime, "vllm");
    EXPECT_GE(p.band.sources, 3);
    EXPECT_GE(p.band.rows, 100);
    EXPECT_LT(p.measured_range.low, p.predicted);
    EXPECT_GT(p.measured_range.high, p.predicted);
    EXPECT_EQ(rep.value().coverage.overall.rows, 1);
  }
}

// Precision as posts write it: a remark in parentheses, the KV cache's format alone, or nothing,
// where the weights are the checkpoint's (its name's suffix, else the zoo entry's published
// format); lengths as "~N (+-15%)".
TEST(ServeValidation, ReadsPrecisionAndLengthsAsWritten) {
  const std::string head = test::kServingCsvHeader;
  auto row = [](const std::string& id, const std::string& model, const std::string& gpu,
                const std::string& tp, const std::string& precision, const std::string& in) {
    return id + ",vllm," + model + "," + gpu + "," + tp + "," + tp + ",\"" + precision +
           "\",vLLM," + in + ",,,1,,decode_tokens_per_s_batch1,100,x,\n";
  };
  const std::string text =
      head +
      row("P1", "Llama-3.1-8B", "H100", "1", "BF16 (HF checkpoint, no quantization flag)", "128") +
      row("P2", "Llama-3.1-8B", "H100", "1", "KV cache FP8 (weights: model default, not restated)",
          "~20000 (+-15%)") +
      row("P3", "DeepSeek-V3", "H200", "8", "", "128") +
      row("P4", "meta-llama/Llama-3.1-8B-Instruct-FP8", "H100", "1", "", "128") +
      row("P5", "gpt-oss-120b", "H100", "1", "not stated", "128") +
      row("P6", "Llama-3.1-8B", "H100", "1", "FP6 (experimental)", "128");
  auto rep = validate_serving_csv(test::catalog(), test::serving(), text, "s.csv");
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  const auto& rows = rep.value().rows;
  ASSERT_EQ(rows.size(), 5u);
  const std::vector<std::string> weights = {"bf16", "bf16", "fp8", "fp8", "mxfp4"};
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].ground.precision, weights[i]) << i;
  ASSERT_EQ(rep.value().skipped.size(), 1u);
  EXPECT_EQ(rep.value().skipped[0].second,
            "precision 'FP6 (experimental)' is not a gpuplan weight format (bf16, fp16, fp8, int8, "
            "int4, int4-experts, nvfp4, mxfp4, mxfp4-fp8, nvfp4-fp8, q4_0, q8_0, q4_k_m)");
  // "~20000 (+-15%)" is a 20000-token context: slower than 128 tokens' decode.
  EXPECT_LT(rows[1].predicted, rows[0].predicted);
}

// TTFT of a run without a request rate: the stated requests ("150 requests" in the dataset
// column) at the stated client concurrency, simulated to the end.
TEST(ServeValidation, LatencyOfAConcurrencyRunIsSimulated) {
  const std::string text =
      test::kServingCsvHeader +
      "C1,vllm,Llama-3.1-8B,H100,1,1,BF16,vLLM bench serve,2000,200,\"synthetic, 150 requests\","
      "8,,ttft_ms_median,100,x,\n";
  auto rep = validate_serving_csv(test::catalog(), test::serving(), text, "s.csv");
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  ASSERT_EQ(rep.value().rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rep.value().rows[0].predicted,
                   llama31_burst(2000, 200, 150, 8).ttft_s.p50 * 1000);
}

// What a row leaves out: a TTFT needs no output length (the burst's prefill comes first), a
// TPOT needs the context it decodes over; a backend that runs only FP8 checkpoints states the
// weights ("FP8 MoE backends"); vLLM without chunked prefill takes every prompt of a burst in
// one step (max_num_batched_tokens = max_model_len).
TEST(ServeValidation, ReadsWhatARowLeavesOut) {
  const std::string text =
      test::kServingCsvHeader +
      "H1,vllm,Tencent Hunyuan Hy3,H20,8,,,vLLM main (vLLM default backend),8192,,,16,,"
      "ttft_ms_mean,7807,\"Table 6 (TTFT, input 8k, no chunked prefill/prefix caching)\",\n"
      "H2,vllm,Tencent Hunyuan Hy3,H20,8,,,vLLM main (HPC-Ops attention+FP8 MoE backends),8192,,,"
      "16,,ttft_ms_mean,5886,\"Table 6 (TTFT, input 8k, no chunked prefill/prefix caching)\",\n"
      "H3,vllm,Tencent Hunyuan Hy3,H20,8,,,vLLM main (vLLM default backend),8192,,,16,,"
      "ttft_ms_mean,7807,Table 6,\n"
      "H4,vllm,Tencent Hunyuan Hy3,H20,8,,,vLLM main (vLLM default backend),,4096,,16,,"
      "tpot_ms_mean,17.98,Table 5,\n";
  auto rep = validate_serving_csv(test::catalog(), test::serving(), text, "s.csv");
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  const auto& rows = rep.value().rows;
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].ground.precision, "bf16");  // Hy3's own checkpoint
  EXPECT_EQ(rows[1].ground.precision, "fp8");
  ASSERT_EQ(rep.value().skipped.size(), 1u);
  EXPECT_EQ(rep.value().skipped[0].second,
            "input length not stated: a decode step's time depends on the context it reads");
  // H1: vLLM's benchmark default of 1000 requests, 16 at a time: 62 waves of 16 prompts and one
  // of 8, each wave one step of all its prompts, which is each of its requests' TTFT.
  ServeConfig c;
  c.tp = 8;
  c.max_num_batched_tokens = 262144;  // Hy3's max_position_embeddings
  const ReplicaModel r = replica("hy3", "h20", c);
  auto wave_s = [&](double prompts) {
    StepLoad wave;
    wave.prefill_tokens = prompts * 8192;
    wave.prefill_pairs = prompts * 8192.0 * 8193 / 2;
    wave.prefill_last = prompts;
    return step_time(r, wave).total_s;
  };
  const double expected_ms = (992 * wave_s(16) + 8 * wave_s(8)) / 1000 * 1000;
  EXPECT_NEAR(rows[0].predicted, expected_ms, 1e-6 * expected_ms);
  // H3, chunked: the prompts queue through the step budget one after another, slower.
  EXPECT_GT(rows[2].predicted, rows[0].predicted * 1.1);
}

// TensorRT-LLM's perf tables run some models as pipelines ("TP1,PP4"): four GPUs are one
// replica of four stages, not four replicas.
TEST(ServeValidation, APipelineIsOneReplicaOfItsStages) {
  const std::string text =
      test::kServingCsvHeader +
      "Q1,trtllm,Llama-3.1-8B,H100 80GB HBM3,4,1,BF16,TensorRT-LLM v1.0,128,2048,,,inf,"
      "output_tokens_per_s_total,1000,\"column TP1,PP4\",pipeline parallel PP=4\n";
  auto rep = validate_serving_csv(test::catalog(), test::serving(), text, "s.csv");
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  ASSERT_EQ(rep.value().rows.size(), 1u);
  ServeConfig c;
  c.runtime = Runtime::trtllm;
  c.pp = 4;
  const ReplicaModel r = replica("llama-3.1-8b", "h100-sxm5-80gb", c);
  EXPECT_DOUBLE_EQ(rep.value().rows[0].predicted, burst_output_tokens_per_s(r, 128, 2048));
}

TEST(ServeValidation, AStatedNumberOfRequestsIsSimulatedToTheEnd) {
  // The same max-throughput row, once as a steady state and once as a run of one request:
  // one request alone generates at the batch-1 rate, far below the steady state.
  const std::string head = test::kServingCsvHeader;
  const std::string row =
      ",trtllm,Llama-3.1-8B,H100 80GB HBM3,1,1,BF16,TensorRT-LLM v0.17,128,256,,,inf,"
      "output_tokens_per_s_total,1000,x,";
  auto rep =
      validate_serving_csv(test::catalog(), test::serving(),
                           head + "B1" + row + "\n" + "B2" + row + "num_requests=1\n", "s.csv");
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  ASSERT_EQ(rep.value().rows.size(), 2u);
  ServeConfig c;
  c.runtime = Runtime::trtllm;
  const ReplicaModel r = replica("llama-3-8b", "h100-sxm5-80gb", c);
  ServeWorkload one;
  one.rate_per_s = 0;
  one.prompt_tokens = 128;
  one.output_tokens = 256;
  one.requests = 1;
  auto s = simulate(r, one);
  ASSERT_TRUE(s.ok());
  EXPECT_DOUBLE_EQ(rep.value().rows[1].predicted, s.value().output_tokens_per_s);
  EXPECT_LT(rep.value().rows[1].predicted, rep.value().rows[0].predicted / 10);
}

// vLLM's and SGLang's serving benchmarks send 1000 prompts unless told otherwise: a burst row of
// either that states no count is simulated over 1000 requests, waves and tail included.
TEST(ServeValidation, AVllmBurstWithoutACountRunsTheBenchmarksDefault) {
  const std::string text = test::kServingCsvHeader +
                           "V1,vllm,Llama-3.1-8B,H100 80GB HBM3,1,1,BF16,vLLM 0.11,2048,256,,,inf,"
                           "output_tokens_per_s_total,1000,x,\n";
  auto rep = validate_serving_csv(test::catalog(), test::serving(), text, "s.csv");
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  ASSERT_EQ(rep.value().rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rep.value().rows[0].predicted,
                   llama31_burst(2048, 256, 1000).output_tokens_per_s);
}

// A row whose notes call its ITL the median is a decode step of the simulated run; without the
// word it is the mean, the batch over its token rate, which also holds the prompts' steps.
TEST(ServeValidation, AMedianItlIsADecodeStepAndAMeanAlsoHoldsThePrompts) {
  const std::string row =
      ",vllm,Llama-3.1-8B,H100 80GB HBM3,1,1,BF16,vLLM 0.11,20000,2000,150 "
      "requests,8,,itl_ms,15,x,";
  auto rep = validate_serving_csv(
      test::catalog(), test::serving(),
      test::kServingCsvHeader + "M1" + row + "Median ITL (ms)\n" + "M2" + row + "ITL (ms)\n",
      "s.csv");
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  ASSERT_EQ(rep.value().rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rep.value().rows[0].predicted,
                   llama31_burst(20000, 2000, 150, 8).itl_s.p50 * 1000);
  EXPECT_GT(rep.value().rows[1].predicted, 1.05 * rep.value().rows[0].predicted);
}

// A burst that holds one sequence at a time: its throughput is its prompt's chunks, then its
// decode steps, one after another; the prompt's compute does not hide under the decode steps.
TEST(ServeBurst, ALoneSequenceRunsItsPromptThenItsDecodes) {
  ReplicaModel r = replica("llama-3-8b", "h100-sxm5-80gb");
  r.max_num_seqs = 1;
  const double prompt = 2.0 * static_cast<double>(r.max_num_batched_tokens), output = 512;
  double decode_s = 0;
  for (double i = 1; i < output; ++i) {  // the prefill's last step samples the first token
    StepLoad step;
    step.decode_seqs = 1;
    step.decode_context = prompt + i;
    decode_s += step_time(r, step).total_s;
  }
  const double serial = output / (prefill_time_s(r, prompt) + decode_s);
  EXPECT_NEAR(burst_output_tokens_per_s(r, prompt, output), serial, 0.01 * serial);
  // Spread over every step, the prompt's tokens ride on memory-bound decode steps: faster.
  EXPECT_GT(burst_output_tokens_per_s(r, prompt, output, 0, BurstSteps::spread), 1.05 * serial);
}

TEST(ServePlan, ATensorParallelReplicaStaysInsideOneNvlinkDomain) {
  // TP 2 on H100: never two single-GPU machines joined over the network, only hosts (or NVLink
  // domains) of at least 2 GPUs; TP 16 fits no H100 host and says so.
  ServeQuery q = serving_example_query();
  q.gpu = "h100-sxm5-80gb";
  q.config.tp = 2;
  const Model& m = test::model("llama-3-8b");
  auto plan = plan_serving(test::catalog(), test::serving(), m, q);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_FALSE(plan.value().options.empty());
  for (const ServeOption& o : plan.value().options) {
    const Instance* in = test::catalog().find_instance(o.instance);
    ASSERT_NE(in, nullptr) << o.instance;
    EXPECT_GE(in->domain_gpus(), 2) << o.instance;
  }
  q.config.tp = 16;
  auto wide = plan_serving(test::catalog(), test::serving(), m, q);
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.error().message.rfind(
                "--tp 16: no matching instance holds that many GPUs in one NVLink domain", 0),
            0u)
      << wide.error().message;
}

TEST(ServePlan, OnGpusWithoutNvlinkTheSearchAlsoTriesPipelines) {
  // --pp 0 (auto): on L40S (PCIe only) single-GPU pipelines of 2, 4 and 8 stages beside tp 1-8,
  // and the mixes 2 x 2, 2 x 4, 4 x 2, on instances whose one machine holds them; on H100
  // (NVLink) tensor parallelism only within a machine. A fixed --pp is the only depth tried.
  // (Whole-machine stages over networked machines: StagesMaySpanNetworkedMachinesOneMachineEach.)
  ServeQuery q = serving_example_query();
  q.config.pp = 0;
  auto depths = [&](const std::string& gpu) {
    q.gpu = gpu;
    std::set<std::pair<int, int>> out;
    for (const auto& r : start_serve_search(test::catalog(), q).pending) {
      if (r.machines == 1) out.insert({r.tp, r.pp});
    }
    return out;
  };
  const std::set<std::pair<int, int>> l40s = depths("l40s");
  for (const auto& want : {std::pair{1, 2}, std::pair{1, 4}, std::pair{1, 8}, std::pair{8, 1},
                           std::pair{2, 2}, std::pair{2, 4}, std::pair{4, 2}})
    EXPECT_EQ(l40s.count(want), 1u) << want.first << "x" << want.second;
  EXPECT_EQ(l40s.count({4, 4}), 0u);  // 16 GPUs: more than one machine
  for (const auto& [tp, pp] : depths("h100-sxm5-80gb")) EXPECT_EQ(pp, 1) << tp;
  q.config.pp = 2;
  for (const auto& [tp, pp] : depths("l40s")) EXPECT_EQ(pp, 2) << tp;
  // The plan keeps each pipeline inside one machine, or whole stages on networked machines:
  // none on the 1-GPU instances.
  q.config.pp = 0;
  q.gpu = "l40s";
  auto plan = plan_serving(test::catalog(), test::serving(), test::model("llama-3-70b"), q);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  for (const ServeOption& o : plan.value().options) {
    const Instance* in = test::catalog().find_instance(o.instance);
    ASSERT_NE(in, nullptr) << o.instance;
    EXPECT_GT(in->gpu_count, 1) << o.instance;
    if (o.machines == 1) {
      EXPECT_LE(o.tp * o.pp, in->gpu_count) << o.instance;
    } else {
      EXPECT_GT(in->network_bytes_per_s, 0) << o.instance;
    }
  }
}

// Every option states where its measured figures would likely lie: the band of the validated
// serving runs (an H100 replica under vLLM at 16 bits has validated runs of its kind), around
// the predicted rate and latencies, and the bill with the fleet sized at the band's ends.
TEST(ServePlan, EveryOptionCarriesItsBandAndTheBillItImplies) {
  ServeQuery q = serving_example_query();
  q.gpu = "h100-sxm5-80gb";
  auto plan = plan_serving(test::catalog(), test::serving(), test::model("llama-3-8b"), q);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  for (const ServeOption& o : plan.value().options) {
    EXPECT_EQ(o.ground.runtime, "vllm");
    EXPECT_EQ(o.ground.arch, "Hopper");
    EXPECT_EQ(o.rate_band.family, "output tokens/s");
    EXPECT_GT(o.rate_band.rows, 100);
    EXPECT_LT(o.max_rate_range.low, o.rate.max_rate_per_s) << o.instance;
    EXPECT_GT(o.max_rate_range.high, o.rate.max_rate_per_s) << o.instance;
    EXPECT_EQ(o.latency_band.family, "TTFT/TPOT at rate");
    EXPECT_LT(o.tpot_range_s.low, o.rate.at_max.tpot_s.p90) << o.instance;
    EXPECT_GT(o.tpot_range_s.high, o.rate.at_max.tpot_s.p90) << o.instance;
    const Range& bill = o.usd_per_month_autoscaled_range;
    EXPECT_EQ(bill.value, o.costs.front().usd_per_month_autoscaled) << o.instance;
    EXPECT_LE(bill.low, bill.value) << o.instance;
    EXPECT_GE(bill.high, bill.value) << o.instance;
  }
  const std::string line = serve_band_line(plan.value().options.front(), 90);
  EXPECT_NE(line.find("req/s per replica (80 % band of held-out serving error)"), std::string::npos)
      << line;
  EXPECT_NE(line.find("TPOT p90"), std::string::npos) << line;
}

TEST(ServePlan, ABandMemoGivesErrorBandsOwnBandOncePerFamilyAndGround) {
  // Two replicas of one size on two Hopper GPUs share their ground: the memo computes the band
  // once, equal to error_band's; a ground of another size or another table is computed anew.
  const auto& rows = test::catalog().accuracy.serving;
  const Gpu* h100 = test::catalog().find_gpu("h100-sxm5-80gb");
  const Gpu* h200 = test::catalog().find_gpu("h200-sxm-141gb");
  ASSERT_TRUE(h100 && h200);
  const RunGround a = serving_run_ground(nullptr, "bf16", 2, h100, 2, Runtime::vllm);
  const RunGround b = serving_run_ground(nullptr, "bf16", 2, h200, 2, Runtime::vllm);
  const RunGround wider = serving_run_ground(nullptr, "bf16", 4, h100, 4, Runtime::vllm);
  const std::string family = serving_band_family(kServingThroughputGroup, false);
  BandMemo memo;
  const ErrorBand& first = memo.band(rows, family, a);
  const ErrorBand direct = error_band(rows, family, a);
  EXPECT_EQ(first.rows, direct.rows);
  EXPECT_EQ(first.low, direct.low);
  EXPECT_EQ(first.high, direct.high);
  EXPECT_EQ(&memo.band(rows, family, b), &first);  // the same entry, not computed again
  const ErrorBand& other = memo.band(rows, family, wider);
  EXPECT_NE(&other, &first);
  EXPECT_EQ(other.high, error_band(rows, family, wider).high);
  // Another table: the memo forgets what it held.
  std::vector<AccuracyRow> few(rows.begin(), rows.begin() + 30);
  EXPECT_EQ(memo.band(few, family, a).rows, error_band(few, family, a).rows);
}

TEST(ServePlan, StagesMaySpanNetworkedMachinesOneMachineEach) {
  // Llama 3 405B at 16 bits (810 GB of weights) fills no 8-GPU H100 machine (640 GB); vLLM's
  // guide runs tensor parallelism inside a node and pipeline stages across nodes. --pp auto tries
  // a whole machine per stage over 2 and 4 machines where the instance states its network, and
  // the hand-over between machines crosses it.
  ServeQuery q = serving_example_query();
  q.gpu = "h100-sxm5-80gb";
  q.config.pp = 0;
  auto plan = plan_serving(test::catalog(), test::serving(), test::model("llama-3-405b"), q);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  for (const ServeOption& o : plan.value().options) {
    const Instance* in = test::catalog().find_instance(o.instance);
    ASSERT_NE(in, nullptr) << o.instance;
    EXPECT_GT(o.machines, 1) << o.instance;  // nothing fits one machine
    EXPECT_EQ(o.tp, in->gpu_count) << o.instance;
    EXPECT_EQ(o.machines, o.pp) << o.instance;
    EXPECT_GT(in->network_bytes_per_s, 0) << o.instance;
  }
  // The replica's step: one of its stage hand-overs goes over the network instead of PCIe.
  const Gpu* h100 = test::catalog().find_gpu("h100-sxm5-80gb");
  ASSERT_NE(h100, nullptr);
  ServeConfig c;
  c.tp = 8;
  c.pp = 4;
  auto built = build_replica(test::model("llama-3-405b"), *h100, c, test::serving(),
                             test::catalog().efficiencies);
  ASSERT_TRUE(built.ok()) << built.error().message;
  ReplicaModel two = built.value();
  const Efficiencies& eff = test::catalog().efficiencies;
  span_machines(two, 2, 50e9, eff);
  EXPECT_DOUBLE_EQ(two.stage_network_hops, 1);
  StepLoad load;
  load.decode_seqs = 64;
  load.decode_context = 64 * 1000;
  // Four stages: 64 sequences in 4 micro-batches of 16 tokens.
  const double tokens = 16, bytes = tokens * two.stage_hop_bytes_per_token;
  const double expected = (eff.nccl_ring.network_hop_s + bytes / 50e9) -
                          (two.stage_hop_latency_s + bytes / two.stage_link_bytes_per_s);
  EXPECT_NEAR(step_time(two, load).comm_s - step_time(built.value(), load).comm_s, expected, 1e-12);
}

TEST(ServePlan, AReplicaHeldBackByItsInterconnectSaysSo) {
  // Llama-3-70B with 2,000-token prompts: on L40S (PCIe only) the tp 4 all-reduces take longer
  // than the matmuls of a prefill step, and the option says so; on H100 over NVLink they do not.
  ServeQuery q = serving_example_query();
  q.workload.prompt_tokens = 2000;
  q.config.tp = 4;
  q.slo.ttft_s = 5;  // within reach of both: the note is about why, not whether
  q.slo.tpot_s = 0.2;
  const Model& m = test::model("llama-3-70b");
  auto note_of = [&](const std::string& gpu) {
    q.gpu = gpu;
    auto plan = plan_serving(test::catalog(), test::serving(), m, q);
    EXPECT_TRUE(plan.ok() && !plan.value().options.empty())
        << gpu << ": " << (plan.ok() ? "no option" : plan.error().message);
    if (!plan.ok() || plan.value().options.empty()) return std::string("no plan");
    for (const std::string& n : plan.value().options.front().notes) {
      if (n.rfind("prefill is bound by the interconnect", 0) == 0) return n;
    }
    return std::string();
  };
  const std::string l40s = note_of("l40s");
  EXPECT_NE(l40s.find("the tp 4 all-reduces over PCIe take"), std::string::npos) << l40s;
  EXPECT_NE(l40s.find("GPUs joined by NVLink"), std::string::npos) << l40s;
  EXPECT_EQ(note_of("h100-sxm5-80gb"), "");
}

TEST(ServeTargets, ACheckpointNamedWithItsFormatServesThoseWeights) {
  // "-FP8", "-AWQ" in the name: the replica runs fp8 or int4 weights unless --weights says
  // otherwise; a plain name keeps the zoo entry's checkpoint (16-bit for Llama, fp8 for
  // DeepSeek), and bitsandbytes' NF4, which is not modelled, states nothing.
  const Catalog& c = test::catalog();
  auto weights = [&](const std::string& name) {
    auto t = find_serve_targets(c, name, "", "");
    return t.ok() ? t.value().model.checkpoint_weights : "(error) " + t.error().message;
  };
  EXPECT_EQ(weights("nvidia/Llama-3.3-70B-Instruct-FP8"), "fp8");
  EXPECT_EQ(weights("Qwen/Qwen2.5-32B-Instruct-AWQ"), "int4");
  EXPECT_EQ(weights("nvidia/DeepSeek-R1-FP4"), "nvfp4");
  EXPECT_EQ(weights("meta-llama/Llama-3.3-70B-Instruct"), "");
  EXPECT_EQ(weights("deepseek-ai/DeepSeek-R1"), "fp8");
  EXPECT_EQ(weights("unsloth/Llama-3.3-70B-Instruct-bnb-4bit"), "");
  // The replica built from the FP8 name holds half the 16-bit weights.
  ServeConfig config;
  config.checkpoint_weights = true;
  const Model named =
      find_serve_targets(c, "nvidia/Llama-3.3-70B-Instruct-FP8", "", "").value().model;
  auto fp8 =
      build_replica(named, *c.find_gpu("h100-sxm5-80gb"), config, test::serving(), c.efficiencies);
  ASSERT_TRUE(fp8.ok()) << fp8.error().message;
  EXPECT_EQ(fp8.value().config.weights, WeightFormat::fp8);
  // Its note names the checkpoint as the user did, not the zoo entry it resolved to.
  EXPECT_EQ(fp8.value().notes.front(),
            "weights: fp8, as the nvidia/Llama-3.3-70B-Instruct-FP8 checkpoint ships them "
            "(--weights sets another)");
}

TEST(ServeTargets, UnknownModelGpuAndInstanceCarryMessageIds) {
  const Catalog& c = test::catalog();
  auto ok = find_serve_targets(c, "llama-3-8b", "H100 80GB HBM3", "aws-p5.48xlarge");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok.value().model.id, "llama-3-8b");
  EXPECT_EQ(ok.value().gpu, "h100-sxm5-80gb");  // an alias resolved to the catalog id
  auto model = find_serve_targets(c, "zzqq-9b", "", "");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.error().id, Msg::eval_unknown_model);
  EXPECT_EQ(model.error().message,
            "--model: unknown model 'zzqq-9b' (run 'gpuplan models' for the list)");
  auto gpu = find_serve_targets(c, "llama-3-8b", "zzqq", "");
  ASSERT_FALSE(gpu.ok());
  EXPECT_EQ(gpu.error().id, Msg::eval_unknown_gpu);
  EXPECT_EQ(gpu.error().message, "--gpu: unknown GPU 'zzqq' (run 'gpuplan gpus')");
  auto instance = find_serve_targets(c, "llama-3-8b", "", "aws-zz");
  ASSERT_FALSE(instance.ok());
  EXPECT_EQ(instance.error().id, Msg::eval_unknown_instance);
  EXPECT_EQ(instance.error().args, std::vector<std::string>{"aws-zz"});
}

TEST(ServeTargets, UnknownNamesReadAsInEstimate) {
  const Catalog& c = test::catalog();
  auto same = [&](const std::string& model, const std::string& gpu, const std::string& instance,
                  const std::string& link) {
    auto serve = find_serve_targets(c, model, gpu, instance);
    auto estimate = evaluate(c, parse_query_string(link).value());
    ASSERT_FALSE(serve.ok()) << link;
    ASSERT_FALSE(estimate.ok()) << link;
    EXPECT_EQ(serve.error().id, estimate.error().id) << link;
    EXPECT_EQ(serve.error().message, estimate.error().message);
    EXPECT_EQ(serve.error().args, estimate.error().args);
  };
  same("llama 2", "", "", "model=llama%202");                   // did you mean llama-2-13b, ...
  same("llama-3-8b", "A100", "", "model=llama-3-8b&gpu=A100");  // did you mean a100-pcie-40gb, ...
  same("llama-3-8b", "", "aws-zz", "model=llama-3-8b&instance=aws-zz");
}

}  // namespace
}  // namespace gpuplan
