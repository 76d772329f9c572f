// Framework presets: each sets the defaults its code runs with, only where the user gave nothing,
// and a link or command line carries the choice and every override back unchanged.
#include <gtest/gtest.h>

#include "gpuplan/evaluate.h"
#include "gpuplan/framework.h"
#include "gpuplan/query.h"
#include "gpuplan/request.h"
#include "test_util.h"

namespace gpuplan {
namespace {

gpuplan::Setup parsed(const Args& args) {
  auto q = parse_query(args);
  EXPECT_TRUE(q.ok()) << (q.ok() ? "" : q.error().message);
  return q.ok() ? q.value().request.setup : gpuplan::Setup{};
}

TEST(Framework, MegatronFusesKernelsRunsCudnnAttentionAndWaitsForGradients) {
  // Megatron's fusions are on by default, TE picks cuDNN attention on Hopper, and the gradient
  // reduction is not overlapped unless --overlap-grad-reduce (distributed_data_parallel_config.py).
  const gpuplan::Setup s = parsed({{"framework", "megatron"}, {"precision", "mixed-bf16"}});
  EXPECT_EQ(s.framework, Framework::megatron);
  EXPECT_TRUE(s.fused_kernels);
  EXPECT_EQ(s.attention, Attention::cudnn);
  EXPECT_FALSE(s.overlap_grad_reduce);
  EXPECT_FALSE(s.tp_comm_overlap);
  EXPECT_EQ(s.zero_stage, 0);
}

TEST(Framework, MegatronBridgeFusesTheLossAndOverlapsItsDistributedOptimizer) {
  // Megatron-Bridge's model provider fuses the cross-entropy (Megatron-Core does not by default)
  // and its pretraining recipes run the distributed optimizer with both overlaps and fp32
  // gradient reduction (recipes/common.py).
  const gpuplan::Setup s = parsed({{"framework", "megatron-bridge"}, {"precision", "mixed-bf16"}});
  EXPECT_EQ(s.framework, Framework::megatron_bridge);
  EXPECT_TRUE(s.fused_kernels);
  EXPECT_EQ(s.attention, Attention::cudnn);
  EXPECT_TRUE(s.fused_loss);
  EXPECT_EQ(s.zero_stage, 1);
  EXPECT_TRUE(s.overlap_grad_reduce);
  EXPECT_TRUE(s.overlap_param_gather);
  EXPECT_EQ(s.grad_reduce, GradReduce::fp32);
  EXPECT_FALSE(parsed({{"framework", "megatron"}}).fused_loss);
  // The fused loss keeps no fp32 log-softmax beside the bf16 logits, only a log-sum-exp per
  // token: a Qwen3 micro-batch of 8 x 4,096 tokens (vocabulary 151,936) keeps 4 (V - 1) bytes a
  // token less, and needs no fp32 logits and gradient (2 x 4 V bytes a token) while it runs.
  const Args args = {{"model", "qwen3-30b-a3b"},
                     {"micro-batch", "8"},
                     {"seq", "4096"},
                     {"ep", "8"},
                     {"gpus", "8"},
                     {"gpu", "gb300"},
                     {"precision", "mixed-bf16"},
                     {"framework", "megatron-bridge"}};
  Args plain = args;
  plain.push_back({"fused-loss", "0"});
  auto with = evaluate(test::catalog(), parse_query(args).value());
  auto without = evaluate(test::catalog(), parse_query(plain).value());
  ASSERT_TRUE(with.ok() && without.ok());
  const double tokens = 8 * 4096.0, vocab = 151936;
  const MemoryBytes& a = with.value().estimate.memory;
  const MemoryBytes& b = without.value().estimate.memory;
  EXPECT_NEAR(b.activations - a.activations, 4 * tokens * (vocab - 1), 1e3);
  const double cublas = without.value().query.request.setup.assumptions.cublas_workspace_bytes;
  EXPECT_NEAR(b.workspace, cublas + 2 * 4 * tokens * vocab, 1e3);
  EXPECT_LT(a.workspace, b.workspace / 10);
}

TEST(Framework, TorchtitanShardsInMixedBf16WithCudnnFirst) {
  const gpuplan::Setup s = parsed({{"framework", "torchtitan"}});
  EXPECT_EQ(s.zero_stage, 3);
  EXPECT_EQ(s.precision, Precision::mixed_bf16);
  EXPECT_EQ(s.attention, Attention::cudnn);
}

TEST(Framework, EveryFieldItSetsCanStillBeOverriddenInEitherOrder) {
  // The user's keys win wherever they stand; a fused kernel is not forced on fp32 activations.
  for (const Args& args : {Args{{"overlap-grad-reduce", "1"}, {"framework", "megatron"}},
                           Args{{"framework", "megatron"}, {"overlap-grad-reduce", "1"}}}) {
    EXPECT_TRUE(parsed(args).overlap_grad_reduce);
  }
  const gpuplan::Setup fp32 = parsed({{"framework", "torchtitan"}, {"precision", "fp32"}});
  EXPECT_EQ(fp32.precision, Precision::fp32);
  EXPECT_EQ(fp32.attention, Attention::automatic);
  EXPECT_EQ(parsed({{"framework", "fsdp"}, {"zero", "2"}}).zero_stage, 2);
}

TEST(Framework, EachPresetCitesItsCode) {
  for (Framework f : {Framework::megatron, Framework::torchtitan, Framework::fsdp,
                      Framework::deepspeed, Framework::hf_trainer, Framework::megatron_bridge}) {
    ASSERT_FALSE(framework_defaults(f).empty()) << framework_name(f);
    for (const FrameworkDefault& d : framework_defaults(f)) {
      const std::string source = d.source;
      EXPECT_NE(source.find('@'), std::string::npos) << d.key << ": no commit";
      EXPECT_NE(source.find(".py"), std::string::npos) << d.key << ": no file";
    }
  }
  EXPECT_TRUE(framework_defaults(Framework::none).empty());
}

TEST(Framework, LinksCarryTheChoiceAndItsOverridesBack) {
  // What a link writes reads back as the same setup, including a preset field set back to
  // gpuplan's own default (fused kernels off under Megatron) and the schedule keys.
  const Args args = {{"model", "llama-2-7b"},
                     {"framework", "megatron"},
                     {"precision", "bf16"},
                     {"fused-kernels", "0"},
                     {"tp", "4"},
                     {"sp", "1"},
                     {"tp-comm-overlap", "1"},
                     {"pp", "4"},
                     {"vp", "2"},
                     {"cp", "2"},
                     {"cp-comm", "all-to-all"},
                     {"overlap-param-gather", "1"}};
  auto q = parse_query(args);
  ASSERT_TRUE(q.ok()) << q.error().message;
  const Args written = request_to_args(q.value().request);
  auto back = parse_query(written);
  ASSERT_TRUE(back.ok()) << back.error().message;
  const gpuplan::Setup& a = q.value().request.setup;
  const gpuplan::Setup& b = back.value().request.setup;
  EXPECT_FALSE(b.fused_kernels);
  EXPECT_EQ(a.attention, b.attention);
  EXPECT_EQ(b.attention, Attention::cudnn);
  EXPECT_EQ(b.precision, Precision::bf16);
  EXPECT_EQ(b.vp, 2);
  EXPECT_EQ(b.cp, 2);
  EXPECT_EQ(b.cp_comm, ContextComm::all_to_all);
  EXPECT_TRUE(b.tp_comm_overlap);
  EXPECT_TRUE(b.overlap_param_gather);
  EXPECT_FALSE(b.overlap_grad_reduce);
  EXPECT_EQ(request_to_args(back.value().request), written);
}

TEST(Framework, UnknownFrameworkNamesTheChoices) {
  auto q = parse_query({{"framework", "jax"}});
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().message,
            "--framework: 'jax' is not one of none, megatron, torchtitan, fsdp, deepspeed, "
            "hf-trainer, megatron-bridge");
}

}  // namespace
}  // namespace gpuplan
