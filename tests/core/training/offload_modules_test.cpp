// Fine-grained activation offloading (Megatron --fine-grained-activation-offloading
// --offload-modules expert_fc1,moe_act): the named modules' inputs leave the GPU for host memory
// between each MoE block's forward and backward pass, their copies timed beside the compute.
#include <gtest/gtest.h>

#include "gpuplan/estimate.h"
#include "gpuplan/timing.h"
#include "test_util.h"

namespace gpuplan {
namespace {

// Mixtral 8x7B (hidden 4096, 2 of 8 experts of width 14336, gated, 32 MoE blocks) on 8 GPUs,
// ep 8, one 4096-token sample per micro-batch, an even share of the tokens per expert.
gpuplan::Setup mixtral(unsigned offload) {
  gpuplan::Setup s;
  s.precision = Precision::mixed_bf16;
  s.seq_len = 4096;
  s.micro_batch = 1;
  s.global_batch = 64;
  s.dp = 8;
  s.ep = 8;
  s.zero_stage = 1;
  s.attention = Attention::flash;
  s.moe_imbalance = 1;
  s.offload_modules = offload;
  return s;
}

Estimate estimated(const gpuplan::Setup& s) {
  auto e = estimate(test::model("mixtral-8x7b"), s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  return e.ok() ? e.value() : Estimate{};
}

// Per MoE block and sample, in bf16: expert_fc1's input is each token once per routed expert,
// 2 x 4096 x 4096 x 2 bytes; moe_act's input is the first GEMM's gate and up outputs,
// 2 x 4096 x 14336 x 2 x 2 bytes.
constexpr double kFc1Input = 2.0 * 4096 * 4096 * 2;       // 67,108,864
constexpr double kActInput = 2.0 * 4096 * 14336 * 2 * 2;  // 469,762,048

TEST(OffloadModules, EachModulesInputLeavesEveryBlocksSavedActivations) {
  const Estimate none = estimated(mixtral(0));
  const Estimate fc1 = estimated(mixtral(kOffloadExpertFc1));
  const Estimate both = estimated(mixtral(kOffloadExpertFc1 | kOffloadMoeAct));
  EXPECT_DOUBLE_EQ(fc1.offload_module_bytes_per_layer, kFc1Input);
  EXPECT_DOUBLE_EQ(both.offload_module_bytes_per_layer, kFc1Input + kActInput);
  EXPECT_EQ(both.offload_module_layers, 32);
  // 32 blocks, one micro-batch in flight without pipeline stages.
  EXPECT_NEAR(none.memory.activations - fc1.memory.activations, 32 * kFc1Input, 1);
  EXPECT_NEAR(none.memory.activations - both.memory.activations, 32 * (kFc1Input + kActInput), 1);
  EXPECT_EQ(none.offload_module_bytes_per_layer, 0);
}

TEST(OffloadModules, CopiesBeyondABlocksComputeAreExposed) {
  // Over the H100's PCIe (gen 5 x16 at the measured PCIe share) each block's copy takes t; a
  // block's forward takes f, its backward b: the step shows what t exceeds them by.
  const Model& m = test::model("mixtral-8x7b");
  const gpuplan::Setup s = mixtral(kOffloadExpertFc1 | kOffloadMoeAct);
  const Estimate e = estimated(s);
  auto w = build_work_profile(m, s, e);
  ASSERT_TRUE(w.ok());
  const Gpu& h100 = *test::catalog().find_gpu("h100-sxm5-80gb");
  const Efficiencies& eff = test::catalog().efficiencies;
  auto c = single_node_cluster(h100, 8);
  ASSERT_TRUE(c.ok());
  auto t = estimate_step_time(m, s, e, w.value(), c.value(), eff);
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto pass = pass_time_s(m, s, w.value(), h100, eff, 1);
  ASSERT_TRUE(pass.ok());
  const double link = 32e9 * 16 * 128 / 130 / 8 * eff.pcie;       // PCIe 5.0 x16, 128b/130b
  const double copy = (kFc1Input + kActInput) / link, steps = 8;  // 64 samples over dp 8
  const double f = pass.value().forward_s / 32, b = pass.value().backward_s / 32;
  EXPECT_NEAR(t.value().offload_s, 2 * 32 * copy * steps, 1e-9);
  EXPECT_NEAR(t.value().offload_exposed_s,
              32 * (std::max(0.0, copy - f) + std::max(0.0, copy - b)) * steps, 1e-9);
  EXPECT_GT(t.value().offload_exposed_s, 0);  // 537 MB a block outlasts its forward over PCIe
}

TEST(OffloadModules, RefusedWhereMegatronRefusesIt) {
  auto error_of = [](const gpuplan::Setup& s, const std::string& model = "mixtral-8x7b") {
    auto e = estimate(test::model(model), s);
    return e.ok() ? std::string("(accepted)") : e.error().message;
  };
  gpuplan::Setup s = mixtral(kOffloadMoeAct);
  s.checkpointing = Checkpointing::selective;
  s.recompute_modules = kRecomputeMoe;
  EXPECT_EQ(error_of(s),
            "--offload-modules moe_act: --checkpointing selective --recompute-modules moe keeps "
            "none of the MoE layer's activations to offload (Megatron refuses offloading inside a "
            "recomputed MoE layer)");
  s.recompute_modules = kRecomputeMoeAct | kRecomputeLayernorm;  // NVIDIA's GB200 recipe: fine
  EXPECT_EQ(error_of(s), "(accepted)");
  s = mixtral(kOffloadExpertFc1);
  s.offload_activation_layers = 4;
  EXPECT_EQ(error_of(s),
            "--offload-modules and --offload-activation-layers cannot be combined (Megatron "
            "refuses fine-grained activation offloading beside --cpu-offloading)");
  s = mixtral(kOffloadExpertFc1);
  s.ep = 1;
  s.dp = 1;
  s.moe_imbalance = 0;
  EXPECT_EQ(error_of(s, "llama-2-7b"),
            "--offload-modules applies to mixture-of-experts models; model 'llama-2-7b' has no "
            "experts");
  EXPECT_EQ(parse_offload_modules("moe-act,expert_fc1"), kOffloadExpertFc1 | kOffloadMoeAct);
  EXPECT_EQ(parse_offload_modules("core_attn"), std::nullopt);  // not modelled
  EXPECT_EQ(offload_modules_name(kOffloadMoeAct | kOffloadExpertFc1), "expert_fc1,moe_act");
}

}  // namespace
}  // namespace gpuplan
