// Precision recipes, checkpointing modes and dropout as the frameworks run them, against byte
// counts derived by hand from what each framework keeps (see the Method page).
#include <gtest/gtest.h>

#include "gpuplan/estimate.h"
#include "gpuplan/hf_config.h"
#include "gpuplan/transformer.h"
#include "test_util.h"

namespace gpuplan {
namespace {

Estimate must(const Model& m, const Setup& s) {
  auto e = estimate(m, s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  return e.ok() ? e.value() : Estimate{};
}
Estimate must(const std::string& id, const Setup& s) {
  return must(test::model(id), s);
}

constexpr double kLlama7bParams = 6'738'415'616;

TEST(Recipes, MixedKeepsNormInputsAndScoresIn16BitsWhereAutocastKeepsFp32) {
  // GPT-2 small, seq 1024, no dropout, eager attention. Autocast keeps the two norm inputs per
  // block and the final norm's in fp32 (2 more bytes each) and the softmax output in fp32 beside
  // its 16-bit copy (4 more bytes per score); mixed-bf16 keeps all of them in bf16.
  gpuplan::Setup s;
  s.seq_len = 1024;
  s.dropout = 0;
  s.attention = Attention::eager;
  s.precision = Precision::amp_bf16;
  const Estimate amp = must("gpt2-small", s);
  s.precision = Precision::mixed_bf16;
  const Estimate mixed = must("gpt2-small", s);
  const double t = 1024, h = 768, a = 12, L = 12;
  EXPECT_NEAR(amp.memory.activations - mixed.memory.activations,
              L * (2 * 2 * t * h + 4 * a * t * t) + 2 * t * h, 1);
}

TEST(Recipes, FsdpMixedKeepsShardedFp32ParametersAndTwoGatheredLayers) {
  // FSDP MixedPrecision(param_dtype=bf16, reduce_dtype=fp32): sharded fp32 parameters (the
  // masters), fp32 gradients and Adam states; two gathered bf16 layers of 32 and one layer's
  // unsharded gradients live while a block computes.
  gpuplan::Setup s;
  s.precision = Precision::mixed_bf16;
  s.dp = 8;
  s.zero_stage = 3;
  s.global_batch = 8;
  const double n = kLlama7bParams, layer = n / 32;
  const Estimate e = must("llama-2-7b", s);
  EXPECT_NEAR(e.memory.weights, 4 * n / 8 + 2 * 2 * layer, 1);
  EXPECT_NEAR(e.memory.gradients, 4 * n / 8 + 4 * layer, 1);
  EXPECT_NEAR(e.memory.optimizer, 8 * n / 8, 1);
  s.grad_reduce = GradReduce::bf16;  // Composer PURE, FSDP reduce_dtype=bf16
  const Estimate pure = must("llama-2-7b", s);
  EXPECT_NEAR(pure.memory.gradients, 2 * n / 8 + 2 * layer, 1);
}

TEST(Recipes, MegatronMixedKeepsBf16ParamsFp32MainGradsMastersAndStates) {
  // Megatron --bf16 without a distributed optimizer: 2 + 4 (main_grad) + 4 (master) + 8 (Adam).
  gpuplan::Setup s;
  s.precision = Precision::mixed_bf16;
  s.global_batch = 1;
  const double n = kLlama7bParams;
  const Estimate e = must("llama-2-7b", s);
  EXPECT_NEAR(e.memory.weights, 2 * n, 1);
  EXPECT_NEAR(e.memory.gradients, 4 * n, 1);
  EXPECT_NEAR(e.memory.optimizer, 12 * n, 1);
}

TEST(Recipes, GradReduceIsOnlyForMixedRecipes) {
  gpuplan::Setup s;
  s.precision = Precision::amp_bf16;
  s.grad_reduce = GradReduce::bf16;
  auto e = estimate(test::model("gpt2-small"), s);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message,
            "--grad-reduce applies to recipes with master weights (mixed-*, fp8, fp8-blockwise, "
            "mxfp8, nvfp4), not amp-bf16");
}

TEST(Dropout, ConfigProbabilitiesZeroKeepNoMasks) {
  // fp32, eager: dropout keeps a 1-byte mask per residual element (2 per block) and, on the
  // attention probabilities, a mask and its own output (1 + 4 bytes per score).
  const std::string base = R"({"model_type": "gpt2", "n_layer": 12, "n_embd": 768, "n_head": 12,
    "vocab_size": 50257, "n_positions": 1024)";
  auto with = model_from_hf_config(base + "}", "config.json");
  auto without = model_from_hf_config(
      base + R"(, "attn_pdrop": 0.0, "resid_pdrop": 0.0, "embd_pdrop": 0.0})", "config.json");
  ASSERT_TRUE(with.ok() && without.ok());
  EXPECT_TRUE(with.value().transformer.dropout);
  EXPECT_FALSE(without.value().transformer.dropout);
  EXPECT_FALSE(without.value().transformer.attention_dropout_or_default());
  gpuplan::Setup s;
  s.seq_len = 1024;
  s.attention = Attention::eager;
  const double t = 1024, h = 768, a = 12, L = 12;
  const double diff =
      must(with.value(), s).memory.activations - must(without.value(), s).memory.activations;
  EXPECT_NEAR(diff, L * (2 * t * h + 5 * a * t * t), 1);
  s.dropout = 0;  // --dropout 0 does the same to the model with dropout
  EXPECT_NEAR(must(with.value(), s).memory.activations, must(without.value(), s).memory.activations,
              1);
}

Setup llama_block_setup(Checkpointing c) {
  gpuplan::Setup s;
  s.precision = Precision::mixed_bf16;
  s.seq_len = 4096;
  s.global_batch = 1;
  s.checkpointing = c;
  return s;
}

TEST(Checkpointing, OpSelectiveKeepsInputAttentionOutputAndEverySecondMatmul) {
  // LLaMA-2-7B block at bf16: block input 2h, attention output 2q, log-sum-exp 4 per head, and
  // the outputs of q (2q), v (2kv), gate (2f), down (2h) of q, k, v, o, gate, up, down.
  const double t = 4096, h = 4096, f = 11008, a = 32, L = 32;
  const double kept = 2 * h + 2 * h + 4 * a + 2 * (h + h + f + h);
  const Estimate full = must("llama-2-7b", llama_block_setup(Checkpointing::full));
  const Estimate op = must("llama-2-7b", llama_block_setup(Checkpointing::op_selective));
  EXPECT_NEAR(op.memory.activations - full.memory.activations, L * t * (kept - 2 * h), 1);
  // Recomputed: k, o and up (the 2nd, 4th, 6th matmuls), 2 FLOPs per multiply-add.
  EXPECT_NEAR(op.flops.recompute_per_step, L * 2 * t * (h * h + h * h + h * f), 1e3);
}

TEST(Checkpointing, EveryKLayersRebuildsOneBlockInK) {
  gpuplan::Setup s = llama_block_setup(Checkpointing::none);
  const Estimate none = must("llama-2-7b", s);
  const Estimate full = must("llama-2-7b", llama_block_setup(Checkpointing::full));
  s.checkpointing = Checkpointing::every_k_layers;
  s.checkpoint_every = 32;
  const Estimate one = must("llama-2-7b", s);  // one block of 32 checkpointed
  s.checkpoint_every = 2;
  const Estimate half = must("llama-2-7b", s);
  // With P a block's activations and I its input: none = 32P + head, full = 32I + P + head,
  // every 32nd = 31P + I + P + head, every 2nd = 16P + 16I + P + head.
  const double input = one.memory.activations - none.memory.activations;
  const double block = (none.memory.activations - full.memory.activations + 32 * input) / 31;
  EXPECT_NEAR(half.memory.activations, full.memory.activations + 16 * block - 16 * input, 1e3);
  EXPECT_NEAR(half.flops.recompute_per_step, full.flops.recompute_per_step / 2, 1e3);
}

TEST(Checkpointing, SelectiveSavesNothingOnceAttentionIsFlash) {
  const Estimate none = must("llama-2-7b", llama_block_setup(Checkpointing::none));
  const Estimate sel = must("llama-2-7b", llama_block_setup(Checkpointing::selective));
  EXPECT_EQ(none.attention, "flash");
  EXPECT_DOUBLE_EQ(sel.memory.activations, none.memory.activations);
  EXPECT_DOUBLE_EQ(sel.flops.recompute_per_step, 0);
  ASSERT_FALSE(sel.notes.empty());
  EXPECT_NE(sel.notes.back().find("saves nothing with flash attention"), std::string::npos);
}

TEST(Checkpointing, RecomputeModulesDropTheirOwnActivationsAndRunTheirMatmulsAgain) {
  // Megatron's --recompute-modules on a LLaMA-2-7B block at bf16, tp 1: layernorm drops the two
  // norm outputs (QKV and MLP inputs, 2 x 2th bytes); mlp drops the gated MLP's inner terms
  // (gate, up, activation output, product: 4 x 2tf) and runs its three matmuls again.
  const double t = 4096, h = 4096, f = 11008, L = 32;
  const Estimate none = must("llama-2-7b", llama_block_setup(Checkpointing::none));
  gpuplan::Setup s = llama_block_setup(Checkpointing::selective);
  s.recompute_modules = kRecomputeLayernorm;
  const Estimate norms = must("llama-2-7b", s);
  EXPECT_NEAR(none.memory.activations - norms.memory.activations, L * 2 * 2 * t * h, 1);
  EXPECT_DOUBLE_EQ(norms.flops.recompute_per_step, 0);  // memory-bound kernels: timed, no FLOPs
  s.recompute_modules = kRecomputeMlp | kRecomputeCoreAttn;  // flash: the core drops nothing
  const Estimate mlp = must("llama-2-7b", s);
  EXPECT_NEAR(none.memory.activations - mlp.memory.activations, L * 4 * 2 * t * f, 1);
  EXPECT_NEAR(mlp.flops.recompute_per_step, L * 2 * t * h * f * 3, 1e3);
  EXPECT_DOUBLE_EQ(mlp.flops.recompute_modules_per_step, mlp.flops.recompute_per_step);
  // Only selective checkpointing takes a module list.
  s.checkpointing = Checkpointing::full;
  auto refused = estimate(test::model("llama-2-7b"), s);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "--recompute-modules core_attn,mlp applies to --checkpointing selective, not full");
  EXPECT_EQ(parse_recompute_modules("moe-act,layernorm"), kRecomputeMoeAct | kRecomputeLayernorm);
  EXPECT_FALSE(parse_recompute_modules("layernorm,attention").has_value());
  EXPECT_FALSE(parse_recompute_modules(",").has_value());
}

TEST(FusedLoss, KeepsBf16LogitsAndALogSumExpInsteadOfFp32LogProbabilities) {
  gpuplan::Setup s = llama_block_setup(Checkpointing::full);
  const Estimate plain = must("llama-2-7b", s);
  s.fused_loss = true;
  const Estimate fused = must("llama-2-7b", s);
  const double t = 4096, v = 32000;
  EXPECT_NEAR(plain.memory.activations - fused.memory.activations, 4 * t * v - 4 * t, 1);
  EXPECT_LT(fused.memory.workspace, plain.memory.workspace);
}

}  // namespace
}  // namespace gpuplan
