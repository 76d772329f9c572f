// The precision table (precision.h) and what the estimate makes of it: bytes per parameter and
// per activation for each Transformer Engine recipe, against counts derived by hand from the
// formats (TE's docs and quantizers at NVIDIA/TransformerEngine@d0067d0d) and LLaMA-2-7B's
// shapes.
#include <gtest/gtest.h>

#include "gpuplan/estimate.h"
#include "gpuplan/precision.h"
#include "test_util.h"

namespace gpuplan {
namespace {

Estimate must(const gpuplan::Setup& s) {
  auto e = estimate(test::model("llama-2-7b"), s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  return e.ok() ? e.value() : Estimate{};
}

std::string error_of(const gpuplan::Setup& s) {
  auto e = estimate(test::model("llama-2-7b"), s);
  return e.ok() ? std::string() : e.error().message;
}

// LLaMA-2-7B: 6,738,415,616 parameters; the matrices TE quantises are the blocks' linear
// weights: per block q, k, v, o (4 x 4096 x 4096 = 67,108,864) and gate, up, down
// (3 x 4096 x 11008 = 135,266,304), 202,375,168 per block, 6,476,005,376 over 32 blocks.
constexpr double kParams = 6'738'415'616;
constexpr double kQuantised = 32.0 * 202'375'168;

TEST(PrecisionTable, BytesPerElementOfEachRecipe) {
  // fp8: 1-byte data, one fp32 scale per tensor (not per element); a weight in both usages
  // (row-wise, and the column-wise transpose Hopper needs) is 2 bytes.
  const PrecisionBytes& fp8 = precision_bytes(Precision::fp8);
  EXPECT_DOUBLE_EQ(fp8.quantized_weight, 1);
  EXPECT_DOUBLE_EQ(fp8.weight_copy, 2);
  EXPECT_DOUBLE_EQ(fp8.matmul_input, 1);
  EXPECT_STREQ(fp8.rate_key, "fp8");
  // fp8-blockwise: weights 1 + 4 bytes per 128 x 128 block = 1 + 1/4096; activations
  // 1 + 4 bytes per 1 x 128 = 1.03125.
  const PrecisionBytes& block = precision_bytes(Precision::fp8_blockwise);
  EXPECT_DOUBLE_EQ(block.quantized_weight, 1 + 1.0 / 4096);
  EXPECT_DOUBLE_EQ(block.weight_copy, 2 + 2.0 / 4096);
  EXPECT_DOUBLE_EQ(block.matmul_input, 1.03125);
  // mxfp8: 1 + one E8M0 byte per 32 = 1.03125, row-wise and column-wise copies.
  const PrecisionBytes& mx = precision_bytes(Precision::mxfp8);
  EXPECT_DOUBLE_EQ(mx.quantized_weight, 1.03125);
  EXPECT_DOUBLE_EQ(mx.weight_copy, 2.0625);
  EXPECT_DOUBLE_EQ(mx.matmul_input, 1.03125);
  EXPECT_STREQ(mx.rate_key, "fp8");
  // nvfp4: 0.5 + one E4M3 byte per 16 = 0.5625; both usages 1.125; FP4 tensor cores.
  const PrecisionBytes& nv = precision_bytes(Precision::nvfp4);
  EXPECT_DOUBLE_EQ(nv.quantized_weight, 0.5625);
  EXPECT_DOUBLE_EQ(nv.weight_copy, 1.125);
  EXPECT_DOUBLE_EQ(nv.matmul_input, 0.5625);
  EXPECT_STREQ(nv.rate_key, "fp4");
  // Every TE recipe keeps bf16 params, fp32 masters, main gradients and Adam states, bf16
  // activations, and runs what it leaves in 16 bits at the bf16 rate.
  for (Precision p :
       {Precision::fp8, Precision::fp8_blockwise, Precision::mxfp8, Precision::nvfp4}) {
    const PrecisionBytes& b = precision_bytes(p);
    EXPECT_EQ(std::make_tuple(b.param, b.master, b.gradient, b.state, b.activation, b.norm_input),
              std::make_tuple(2.0, 4.0, 4.0, 4.0, 2.0, 2.0))
        << precision_name(p);
    EXPECT_STREQ(b.rate16_key, "bf16");
    EXPECT_TRUE(is_low_precision(p));
  }
  EXPECT_FALSE(is_low_precision(Precision::mixed_bf16));
}

TEST(PrecisionMemory, QuantisedWeightCopiesPerRecipe) {
  // One GPU, no sharding: bf16 params (2 per parameter) plus each recipe's copies of the
  // quantised block weights; mixed-bf16 keeps none.
  gpuplan::Setup s;
  s.global_batch = 1;
  s.precision = Precision::mixed_bf16;
  EXPECT_NEAR(must(s).memory.weights, 2 * kParams, 1);
  const std::pair<Precision, double> copies[] = {{Precision::fp8, 2},
                                                 {Precision::fp8_blockwise, 2 + 2.0 / 4096},
                                                 {Precision::mxfp8, 2.0625},
                                                 {Precision::nvfp4, 1.125}};
  for (const auto& [p, per_weight] : copies) {
    s.precision = p;
    EXPECT_NEAR(must(s).memory.weights, 2 * kParams + per_weight * kQuantised, 1)
        << precision_name(p);
    // Masters, main gradients and Adam states as mixed-bf16's: 4 + 4 + 8 per parameter.
    EXPECT_NEAR(must(s).memory.gradients, 4 * kParams, 1);
    EXPECT_NEAR(must(s).memory.optimizer, 12 * kParams, 1);
  }
}

TEST(PrecisionMemory, SavedLinearInputsAreQuantisedColumnWise) {
  // seq 4096, no checkpointing, flash attention: each block saves its linear layers' inputs,
  // t x (h + q + h + f) = 4096 x (4096 + 4096 + 4096 + 11008) = 95,420,416 elements, as the
  // recipe's column-wise copy instead of bf16: 2 - matmul_input bytes less per element.
  gpuplan::Setup s;
  s.global_batch = 1;
  s.seq_len = 4096;
  s.precision = Precision::mixed_bf16;
  const double bf16 = must(s).memory.activations;
  const double inputs = 32.0 * 4096 * 23296;
  const std::pair<Precision, double> saved[] = {{Precision::fp8, 1},
                                                {Precision::fp8_blockwise, 1.03125},
                                                {Precision::mxfp8, 1.03125},
                                                {Precision::nvfp4, 0.5625}};
  for (const auto& [p, bytes] : saved) {
    s.precision = p;
    EXPECT_NEAR(bf16 - must(s).memory.activations, inputs * (2 - bytes), 1) << precision_name(p);
  }
}

TEST(PrecisionMemory, QuantizedParamsReplaceTheBf16Weights) {
  // --quantized-params (Megatron --fp8-param-gather): the quantised blocks' weights are kept
  // only quantised (both usages), the rest (embeddings, head, norms) in bf16.
  gpuplan::Setup s;
  s.global_batch = 1;
  s.quantized_params = true;
  s.precision = Precision::fp8;
  EXPECT_NEAR(must(s).memory.weights, 2 * (kParams - kQuantised) + 2 * kQuantised, 1);
  s.precision = Precision::nvfp4;
  EXPECT_NEAR(must(s).memory.weights, 2 * (kParams - kQuantised) + 1.125 * kQuantised, 1);
}

TEST(PrecisionMemory, Bf16EdgeLayersKeepNoQuantisedCopies) {
  // Megatron --first-last-layers-bf16 with one block at each end: 30 of 32 blocks quantised.
  gpuplan::Setup s;
  s.global_batch = 1;
  s.precision = Precision::fp8;
  s.bf16_first_layers = 1;
  s.bf16_last_layers = 1;
  EXPECT_NEAR(must(s).memory.weights, 2 * kParams + 2 * kQuantised * 30 / 32, 1);
}

TEST(PrecisionMemory, CheckpointedBlocksSaveNoCopyUnlessTheyAreCached) {
  // Full checkpointing runs each block's forward without saving for backward, so TE's copies
  // live one recomputed block at a time (2 x Q / 32); Megatron's weight cache keeps all 32.
  gpuplan::Setup s;
  s.global_batch = 1;
  s.precision = Precision::fp8;
  s.checkpointing = Checkpointing::full;
  EXPECT_NEAR(must(s).memory.weights, 2 * kParams + 2 * kQuantised / 32, 1);
  s.cache_quantized_weights = true;
  EXPECT_NEAR(must(s).memory.weights, 2 * kParams + 2 * kQuantised, 1);
}

TEST(PrecisionMemory, MegatronGradientStateAndMasterDtypes) {
  gpuplan::Setup s;
  s.global_batch = 1;
  s.precision = Precision::fp8;
  // grad_reduce_in_fp32=False: bf16 main gradients, 2 bytes instead of 4.
  s.grad_reduce = GradReduce::bf16;
  EXPECT_NEAR(must(s).memory.gradients, 2 * kParams, 1);
  // Precision-aware optimizer, --exp-avg-dtype / --exp-avg-sq-dtype bf16: 2 x 2 bytes of states
  // beside the 4-byte master.
  s.optimizer_state_dtype = StoreDtype::bf16;
  EXPECT_NEAR(must(s).memory.optimizer, (4 + 4) * kParams, 1);
  // --main-params-dtype fp16: a 2-byte master.
  s.master_dtype = StoreDtype::fp16;
  EXPECT_NEAR(must(s).memory.optimizer, (4 + 2) * kParams, 1);
}

TEST(PrecisionMemory, FsdpKeepsTeCopiesWhole) {
  // FSDP (ZeRO-3 over 8) shards the fp32 masters and gathers two bf16 blocks at a time, as for
  // mixed-bf16; TE's quantised copies are its own tensors, saved for backward unsharded.
  gpuplan::Setup s;
  s.precision = Precision::mixed_bf16;
  s.dp = 8;
  s.zero_stage = 3;
  s.global_batch = 8;
  const double mixed = must(s).memory.weights;
  EXPECT_NEAR(mixed, 4 * kParams / 8 + 2 * 2 * kParams / 32, 1);
  s.precision = Precision::fp8;
  EXPECT_NEAR(must(s).memory.weights - mixed, 2 * kQuantised, 1);
}

TEST(PrecisionErrors, FieldsThatDoNotFitTheRecipeAreNamed) {
  gpuplan::Setup s;
  s.precision = Precision::bf16;
  s.quantized_params = true;
  EXPECT_EQ(error_of(s),
            "--quantized-params applies to Transformer Engine's recipes (fp8, fp8-blockwise, "
            "mxfp8, nvfp4), not bf16");
  s = gpuplan::Setup{};
  s.precision = Precision::fp8;
  s.optimizer = Optimizer::sgd;
  s.optimizer_state_dtype = StoreDtype::bf16;
  EXPECT_EQ(error_of(s),
            "--optimizer-state-dtype applies to adam and adamw (Transformer Engine's FusedAdam), "
            "not sgd");
  s = gpuplan::Setup{};
  s.precision = Precision::fp8;
  s.master_dtype = StoreDtype::bf16;
  EXPECT_EQ(error_of(s), "--master-dtype must be fp32 or fp16 (Megatron's --main-params-dtype)");
  s.precision = Precision::amp_bf16;
  s.master_dtype = StoreDtype::fp16;
  EXPECT_EQ(error_of(s),
            "--master-dtype applies to recipes with master weights (mixed-*, fp8, fp8-blockwise, "
            "mxfp8, nvfp4), not amp-bf16");
}

TEST(PrecisionNames, RecipesAndDtypesRoundTrip) {
  for (const char* n : {"fp8", "fp8-blockwise", "mxfp8", "nvfp4"}) {
    auto p = parse_precision(n);
    ASSERT_TRUE(p.has_value()) << n;
    EXPECT_STREQ(precision_name(*p), n);
  }
  for (const char* n : {"auto", "fp32", "bf16", "fp16", "fp8"}) {
    auto d = parse_store_dtype(n);
    ASSERT_TRUE(d.has_value()) << n;
    EXPECT_STREQ(store_dtype_name(*d), n);
  }
  EXPECT_FALSE(parse_precision("fp4").has_value());
}

}  // namespace
}  // namespace gpuplan
