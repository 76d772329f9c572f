// Estimates as a whole: memory terms, parallelism, LoRA, inference, and the errors users see.
#include <gtest/gtest.h>

#include "gpuplan/estimate.h"
#include "gpuplan/serve_assumptions.h"
#include "gpuplan/serve_replica.h"
#include "gpuplan/transformer.h"
#include "test_util.h"

namespace gpuplan {
namespace {

Estimate must(const std::string& id, const gpuplan::Setup& s) {
  auto e = estimate(test::model(id), s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  return e.ok() ? e.value() : Estimate{};
}

std::string error_of(const std::string& id, const gpuplan::Setup& s) {
  auto e = estimate(test::model(id), s);
  return e.ok() ? "" : e.error().message;
}

TEST(EstimateMemory, AdamFp32KeepsSixteenBytesPerParameter) {
  // fp32 weights 4 + gradients 4 + Adam exp_avg and exp_avg_sq 8 (Rajbhandari et al. 2020).
  gpuplan::Setup s;
  s.optimizer = Optimizer::adam;
  const Estimate e = must("gpt2-small", s);
  const double n = 124'439'808;
  EXPECT_DOUBLE_EQ(e.memory.weights, 4 * n);
  EXPECT_DOUBLE_EQ(e.memory.gradients, 4 * n);
  EXPECT_DOUBLE_EQ(e.memory.optimizer, 8 * n);
}

TEST(EstimateMemory, Fp8KeepsMastersAndStatesInFp32) {
  gpuplan::Setup s;
  s.precision = Precision::fp8;
  const Estimate e = must("llama-2-7b", s);
  const double n = 6'738'415'616;
  EXPECT_DOUBLE_EQ(e.memory.optimizer, 12 * n);  // fp32 master + two fp32 Adam states
  EXPECT_DOUBLE_EQ(e.memory.gradients, 4 * n);
}

TEST(EstimateMemory, ZeroStagesShardStatesThenGradientsThenWeights) {
  gpuplan::Setup s;
  s.precision = Precision::bf16;
  s.dp = 8;
  s.global_batch = 8;
  double previous_total = 1e300;
  for (int stage = 0; stage <= 3; ++stage) {
    s.zero_stage = stage;
    const Estimate e = must("llama-2-7b", s);
    EXPECT_LT(e.memory.total(), previous_total) << "stage " << stage;
    previous_total = e.memory.total();
  }
  s.zero_stage = 3;
  const Estimate z3 = must("llama-2-7b", s);
  const double n = 6'738'415'616;
  // Weights: one eighth of the bf16 weights plus two gathered layers of 32 (the one computing
  // and the one FSDP prefetches).
  EXPECT_NEAR(z3.memory.weights, 2 * n / 8 + 2 * 2 * n / 32, 1);
  EXPECT_NEAR(z3.memory.optimizer, 4 * n / 8, 1);
}

TEST(EstimateMemory, MoreDataParallelGpusNeverRaisePerGpuWeightsUnderZero3) {
  gpuplan::Setup s;
  s.zero_stage = 3;
  double previous = 1e300;
  for (int dp : {1, 2, 4, 8, 16, 64}) {
    s.dp = dp;
    s.global_batch = dp;
    const Estimate e = must("llama-2-13b", s);
    EXPECT_LE(e.memory.weights, previous) << "dp " << dp;
    previous = e.memory.weights;
  }
}

TEST(EstimateMemory, TermsAddUpAndGrowWithBatchAndSequence) {
  gpuplan::Setup s;
  s.precision = Precision::amp_bf16;
  double previous = 0;
  for (int64_t batch : {1, 2, 4, 8}) {
    s.global_batch = batch;
    const Estimate e = must("gpt2-small", s);
    const MemoryBytes& m = e.memory;
    EXPECT_DOUBLE_EQ(m.total(), m.weights + m.gradients + m.optimizer + m.activations + m.kv_cache +
                                    m.workspace + m.context + m.fragmentation);
    EXPECT_GT(m.total(), previous);
    previous = m.total();
  }
  s.global_batch = 1;
  previous = 0;
  for (int64_t seq : {128, 256, 512, 1024}) {
    s.seq_len = seq;
    const Estimate e = must("gpt2-small", s);
    EXPECT_GT(e.memory.activations, previous);
    previous = e.memory.activations;
  }
}

TEST(EstimateMemory, KvCacheOfLlama2_7bIsTwoGibAt4096TokensFp16) {
  // 2 (K and V) x 32 layers x 32 heads x 128 dims x 4096 tokens x 2 bytes = 2 GiB.
  gpuplan::Setup s;
  s.mode = Mode::infer;
  s.precision = Precision::fp16;
  s.seq_len = 4096;
  const Estimate e = must("llama-2-7b", s);
  EXPECT_DOUBLE_EQ(e.memory.kv_cache, 2.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(e.memory.gradients, 0);
  EXPECT_EQ(e.memory.optimizer, 0);
  // Grouped-query attention shrinks it by heads / kv_heads = 4 (Mistral: 32 / 8).
  const Estimate gqa = must("mistral-7b", s);
  EXPECT_DOUBLE_EQ(gqa.memory.kv_cache, 2.0 * 1024 * 1024 * 1024 / 4);
}

TEST(EstimateLora, TrainsAdaptersOnlyAsPeftReports) {
  // PEFT on Llama-2-7b with r=8 on q_proj and v_proj prints "trainable params: 4,194,304":
  // 32 layers x 2 modules x 8 x (4096 + 4096).
  gpuplan::Setup s;
  s.lora_rank = 8;
  s.precision = Precision::bf16;
  const Estimate e = must("llama-2-7b", s);
  EXPECT_EQ(e.params.trainable, 4'194'304);
  EXPECT_DOUBLE_EQ(e.memory.gradients, 2.0 * 4'194'304);
  // Backward of frozen weights computes input gradients only: 1x forward, not 2x.
  EXPECT_DOUBLE_EQ(e.flops.backward_per_step, e.flops.forward_per_step);
}

TEST(EstimateLora, MegatronsFusedTargetsGetOneAdapterPerLayer) {
  // Megatron-Bridge's LoRA adapts a fused layer with one adapter of its whole width. Llama-3-70B
  // (h 8192, 64 query and 8 KV heads of 128, MLP 28672, 80 blocks), r = 16:
  //   linear_qkv: 16 x (8192 + 8192 + 2 x 1024) = 294,912 a block,
  //   linear_proj: 16 x (8192 + 8192) = 262,144, linear_fc1 (gate and up): 16 x (8192 + 2 x
  //   28672) = 1,048,576, linear_fc2: 16 x (28672 + 8192) = 589,824;
  // 2,195,456 a block, 175,636,480 in all, with 8 adapter tensors a block.
  gpuplan::Setup s;
  s.lora_rank = 16;
  s.precision = Precision::bf16;
  s.lora_targets = {"linear_qkv", "linear_proj", "linear_fc1", "linear_fc2"};
  const Estimate fused = must("llama-3-70b", s);
  EXPECT_EQ(fused.params.trainable, 80 * 2'195'456);
  EXPECT_EQ(fused.params.tensors, 80 * 8);
  // Per-module adapters on the same layers share no A matrix: q, k, v each read h again.
  s.lora_targets = {"q_proj", "k_proj", "v_proj"};
  EXPECT_EQ(must("llama-3-70b", s).params.trainable, 80 * 16 * (2 * 8192 + 2 * (8192 + 1024)));
  s.lora_targets = {"linear_q", "linear_k", "linear_v"};  // canonical LoRA: the same
  EXPECT_EQ(must("llama-3-70b", s).params.trainable, 80 * 16 * (2 * 8192 + 2 * (8192 + 1024)));
  // An MoE's experts each get their own fused adapter, the shared experts theirs.
  s.lora_targets = {"linear_fc1"};
  const Estimate moe = must("qwen3-30b-a3b", s);  // 48 blocks of 128 experts of 768, h 2048
  EXPECT_EQ(moe.params.trainable, 48LL * 128 * 16 * (2048 + 2 * 768));
}

TEST(EstimateMemory, HybridShardingDividesByTheShardGroup) {
  // ZeRO-3 over 32 GPUs in shard groups of 8: weights, gradients and states divided by 8.
  gpuplan::Setup s;
  s.precision = Precision::bf16;
  s.dp = 32;
  s.global_batch = 32;
  s.zero_stage = 3;
  const Estimate all = must("llama-2-7b", s);
  s.dp_shard = 8;
  const Estimate hsdp = must("llama-2-7b", s);
  EXPECT_DOUBLE_EQ(hsdp.memory.optimizer, 4 * all.memory.optimizer);
  s.dp_shard = 32;  // one group of all: plain ZeRO
  EXPECT_DOUBLE_EQ(must("llama-2-7b", s).memory.optimizer, all.memory.optimizer);
  s.dp_shard = 64;  // a group of more than every rank (a page's --dp-shard 8 on fewer GPUs)
  EXPECT_DOUBLE_EQ(must("llama-2-7b", s).memory.optimizer, all.memory.optimizer);
  EXPECT_EQ(hybrid_shard(s), 0);
  s.dp_shard = 5;
  EXPECT_EQ(estimate(test::model("llama-2-7b"), s).error().message,
            "--dp-shard 5 must divide the data-parallel GPUs (dp 32)");
  s.dp_shard = 8;
  s.zero_stage = 0;
  EXPECT_EQ(estimate(test::model("llama-2-7b"), s).error().message,
            "--dp-shard needs ZeRO (--zero 1, 2 or 3): without it nothing is sharded");
}

TEST(EstimateLora, QloraStoresTheBaseInAboutHalfAByte) {
  gpuplan::Setup s;
  s.lora_rank = 16;
  s.qlora = true;
  s.precision = Precision::bf16;
  const Estimate e = must("llama-2-7b", s);
  // Dettmers et al. 2023: 4-bit NF4 + double quantisation constants (0.127 bit/param).
  EXPECT_LT(e.memory.weights, 6'738'415'616 * 0.53);
  EXPECT_GT(e.memory.weights, 6'738'415'616 * 0.5);
}

TEST(EstimatePipeline, SplitsLayersAcrossStages) {
  gpuplan::Setup s;
  s.precision = Precision::bf16;
  s.global_batch = 8;
  s.micro_batch = 1;
  const Estimate one = must("llama-2-13b", s);
  s.pp = 4;
  const Estimate four = must("llama-2-13b", s);
  EXPECT_LT(four.memory.weights, one.memory.weights / 3);
  EXPECT_EQ(four.num_gpus, 4);
}

// Serving replicates a key/value head past tp = kv_heads (Qwen3-30B-A3B's 4 over 8 GPUs: one per
// GPU, as vLLM does); training splits whole heads only.
TEST(Estimate, InferenceReplicatesKeyValueHeadsPastTheirCount) {
  gpuplan::Setup s;
  s.mode = Mode::infer;
  s.precision = Precision::bf16;
  s.tp = 8;
  s.seq_len = 4096;
  const Estimate e = must("qwen3-30b-a3b", s);
  const TransformerSpec& spec = test::model("qwen3-30b-a3b").transformer;
  // 48 blocks x K and V x 1 head x 128 channels x 2 bytes x 4096 tokens.
  EXPECT_DOUBLE_EQ(e.memory.kv_cache, 48.0 * 2 * 128 * 2 * 4096);
  EXPECT_DOUBLE_EQ(e.memory.kv_cache, kv_cache_size(spec, 2, 4096, 8).total_bytes);
  s.mode = Mode::train;
  EXPECT_EQ(error_of("qwen3-30b-a3b", s),
            "--tp 8 does not divide the attention heads (32 query, 4 key/value heads)");
  s.mode = Mode::infer;
  s.tp = 6;
  EXPECT_EQ(error_of("qwen3-30b-a3b", s),
            "--tp 6 does not divide the attention heads (32 query, 4 key/value heads)");
}

// Inference holds the weights as they are served: a Transformer Engine recipe's quantised once,
// with no 16-bit copy; a checkpoint stored narrower than the precision (DeepSeek-V3's FP8,
// gpt-oss's MXFP4 experts, a name's "-FP8") as stored, the bytes `gpuplan serve` counts.
TEST(Estimate, InferenceHoldsTheWeightsAsServed) {
  gpuplan::Setup s;
  s.mode = Mode::infer;
  s.precision = Precision::fp8;
  s.seq_len = 1024;
  // Llama-3.3-70B: 68,451,041,280 block matrix weights at 1 byte; the embedding and the head
  // (128256 x 8192 each) and 161 norms of 8192 at 2.
  const Estimate fp8 = must("llama-3.3-70b", s);
  EXPECT_DOUBLE_EQ(fp8.memory.weights, 68451041280.0 + 2 * (2 * 1050673152.0 + 161 * 8192.0));
  const double total = static_cast<double>(fp8.params.total);
  EXPECT_DOUBLE_EQ(total, 68451041280.0 + 2 * 1050673152.0 + 161 * 8192.0);
  s.precision = Precision::bf16;
  EXPECT_DOUBLE_EQ(must("llama-3.3-70b", s).memory.weights, 2 * total);
  // A checkpoint's own format, equal to the serving replica's weights on each of its GPUs.
  auto served = [&](const Model& model, int tp) {
    ServeConfig c;
    c.checkpoint_weights = true;
    c.tp = tp;
    auto r = build_replica(model, *test::catalog().find_gpu("h200-sxm-141gb"), c, test::serving(),
                           test::catalog().efficiencies);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? r.value().memory.weight_bytes : 0.0;
  };
  const Model named =
      named_checkpoint(*resolve_model(test::catalog(), "nvidia/Llama-3.3-70B-Instruct-FP8"));
  for (const auto& [model, tp] : {std::pair{named, 2}, std::pair{test::model("deepseek-v3"), 8},
                                  std::pair{test::model("gpt-oss-120b"), 1}}) {
    s.tp = tp;
    auto e = estimate(model, s);
    ASSERT_TRUE(e.ok()) << e.error().message;
    EXPECT_NEAR(e.value().memory.weights / served(model, tp), 1.0, 0.002) << model.id;
  }
}

TEST(EstimateErrors, NameTheFieldAndTheProblem) {
  gpuplan::Setup s;
  s.tp = 5;
  EXPECT_EQ(error_of("gpt2-small", s),
            "--tp 5 does not divide the attention heads (12 query, 12 key/value heads)");
  s = gpuplan::Setup{};
  s.global_batch = 10;
  s.dp = 4;
  EXPECT_EQ(error_of("gpt2-small", s), "--batch 10 is not divisible by --dp 4");
  s = gpuplan::Setup{};
  s.global_batch = 16;
  s.dp = 2;
  s.micro_batch = 3;
  EXPECT_EQ(error_of("gpt2-small", s), "--batch 16 is not divisible by --dp x --micro-batch = 6");
  s = gpuplan::Setup{};
  s.seq_len = 2048;
  EXPECT_EQ(error_of("gpt2-small", s), "--seq 2048 exceeds model 'gpt2-small' max_positions 1024");
  s = gpuplan::Setup{};
  s.resolution = 300;
  EXPECT_EQ(error_of("gpt2-small", s),
            "--resolution does not apply to language model 'gpt2-small'; use --seq");
  s = gpuplan::Setup{};
  s.zero_stage = 4;
  EXPECT_EQ(error_of("gpt2-small", s), "--zero must be 0, 1, 2 or 3, got 4");
  s = gpuplan::Setup{};
  s.pp = 100;
  EXPECT_EQ(error_of("gpt2-small", s), "--pp 100 exceeds the 12 layers of model 'gpt2-small'");
  s = gpuplan::Setup{};
  s.lora_rank = 8;
  s.lora_targets = {"query_key_value"};
  EXPECT_EQ(error_of("llama-2-7b", s),
            "LoRA target 'query_key_value' matches no layer of model 'llama-2-7b'");
  s = gpuplan::Setup{};
  s.attention = Attention::flash;
  EXPECT_EQ(
      error_of("gpt2-small", s),
      "--attention flash needs 16-bit activations (fp16, bf16, amp-*, mixed-*, fp8), not fp32");
  s = gpuplan::Setup{};
  s.assumptions.cuda_context_bytes = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(error_of("gpt2-small", s), "memory assumptions must be finite and >= 0");
}

TEST(EstimateGraph, ResNetRejectsTransformerOnlyOptions) {
  gpuplan::Setup s;
  s.tp = 2;
  EXPECT_EQ(error_of("resnet50", s),
            "--tp and --pp are modelled for transformers only; model 'resnet50' is a layer graph");
  s = gpuplan::Setup{};
  s.seq_len = 128;
  EXPECT_EQ(error_of("resnet50", s),
            "--seq does not apply to image model 'resnet50'; use --resolution");
}

}  // namespace
}  // namespace gpuplan
