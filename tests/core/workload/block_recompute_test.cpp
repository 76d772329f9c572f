// Megatron's block recompute (--recompute-granularity full --recompute-method block
// --recompute-num-layers N, Checkpointing::block): the first N blocks of each model chunk are
// rebuilt from their inputs in backward, the others keep everything.
#include <gtest/gtest.h>

#include "gpuplan/estimate.h"
#include "test_util.h"
#include "training/timed.h"

namespace gpuplan {
namespace {

using test::time_on;
using test::Timed;

gpuplan::Setup llama_setup(Checkpointing c, int recomputed = 1) {
  gpuplan::Setup s;
  s.precision = Precision::bf16;
  s.attention = Attention::flash;
  s.global_batch = 8;
  s.micro_batch = 1;
  s.seq_len = 4096;
  s.checkpointing = c;
  s.recompute_num_layers = recomputed;
  return s;
}

Estimate must(const gpuplan::Setup& s) {
  auto e = estimate(test::model("llama-2-7b"), s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  return e.ok() ? e.value() : Estimate{};
}

TEST(BlockRecompute, RebuildsTheFirstNBlocksOfEachChunk) {
  // LLaMA-2-7B, 32 blocks on one stage: N = 8 rebuilds a quarter of what full recompute rebuilds.
  const Estimate full = must(llama_setup(Checkpointing::full));
  const Estimate none = must(llama_setup(Checkpointing::none));
  const Estimate eight = must(llama_setup(Checkpointing::block, 8));
  EXPECT_NEAR(eight.flops.recompute_per_step, full.flops.recompute_per_step / 4,
              1e-9 * full.flops.recompute_per_step);
  // Memory: 8 blocks keep only their inputs, 24 keep everything, and one rebuilt block is live
  // during its backward: between full recompute and none.
  EXPECT_GT(eight.memory.activations, full.memory.activations);
  EXPECT_LT(eight.memory.activations, none.memory.activations);
  // All 32 (or more) recomputed is full recompute, byte for byte.
  for (int n : {32, 40}) {
    const Estimate all = must(llama_setup(Checkpointing::block, n));
    EXPECT_DOUBLE_EQ(all.memory.activations, full.memory.activations) << n;
    EXPECT_DOUBLE_EQ(all.flops.recompute_per_step, full.flops.recompute_per_step) << n;
  }
}

TEST(BlockRecompute, CountsPerVirtualStage) {
  // pp 2 x vp 2: four chunks of 8 blocks; N = 4 rebuilds half of each chunk, as N = 16 of one
  // 32-block stage would.
  gpuplan::Setup s = llama_setup(Checkpointing::block, 4);
  s.pp = 2;
  s.vp = 2;
  EXPECT_DOUBLE_EQ(block_recompute_share(s, 32), 0.5);
  const Estimate e = must(s);
  const Estimate full = must(llama_setup(Checkpointing::full));
  EXPECT_NEAR(e.flops.recompute_per_step, full.flops.recompute_per_step / 2,
              1e-9 * full.flops.recompute_per_step);
}

TEST(BlockRecompute, TimesAQuarterOfFullRecompute) {
  const Timed full = time_on("llama-2-7b", "h100-sxm5-80gb", 1, llama_setup(Checkpointing::full));
  const Timed eight =
      time_on("llama-2-7b", "h100-sxm5-80gb", 1, llama_setup(Checkpointing::block, 8));
  EXPECT_NEAR(eight.t.recompute_s, full.t.recompute_s / 4, 1e-9 * full.t.recompute_s);
  EXPECT_NEAR(eight.t.forward_s, full.t.forward_s, 1e-12);
}

TEST(BlockRecompute, ACountBelowOneIsRefused) {
  auto e = estimate(test::model("llama-2-7b"), llama_setup(Checkpointing::block, 0));
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "--recompute-num-layers must be between 1 and 1000000, got 0");
}

}  // namespace
}  // namespace gpuplan
