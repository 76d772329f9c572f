// Activation offloading (Setup::offload_activation_layers, Megatron --cpu-offloading-num-layers):
// the GPU keeps L - N blocks' saved activations, the copies to host memory and back are timed on
// the GPU's host link, and the setups Megatron refuses are refused with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "gpuplan/estimate.h"
#include "gpuplan/precision.h"
#include "gpuplan/timing.h"
#include "gpuplan/transformer.h"
#include "test_util.h"
#include "training/timed.h"

namespace gpuplan {
namespace {

using test::time_on;
using test::Timed;

gpuplan::Setup llama_7b_setup(int offloaded) {
  gpuplan::Setup s;
  s.precision = Precision::bf16;
  s.attention = Attention::flash;
  s.global_batch = 4;
  s.micro_batch = 1;
  s.seq_len = 4096;
  s.offload_activation_layers = offloaded;
  return s;
}

std::string error_of(const std::string& id, const gpuplan::Setup& s) {
  auto e = estimate(test::model(id), s);
  return e.ok() ? "" : e.error().message;
}

TEST(Offload, TheGpuKeepsTheOtherBlocksActivations) {
  // LLaMA-2-7B's 32 blocks at 4096 tokens, bf16, flash: one block keeps linear_bytes +
  // attention_scores_bytes (transformer_layer_activations); offloading 8 blocks takes exactly 8
  // of them off the GPU, whatever the head keeps.
  const Model& m = test::model("llama-2-7b");
  const LayerActivations la = transformer_layer_activations(
      m.transformer, 4096, precision_bytes(Precision::bf16).activation,
      precision_bytes(Precision::bf16).norm_input, AttentionImpl::flash);
  const double block = la.linear_bytes + la.attention_scores_bytes;
  auto none = estimate(m, llama_7b_setup(0));
  auto eight = estimate(m, llama_7b_setup(8));
  ASSERT_TRUE(none.ok() && eight.ok());
  EXPECT_DOUBLE_EQ(none.value().offload_bytes_per_layer, 0);
  EXPECT_NEAR(eight.value().offload_bytes_per_layer, block, 1e-6 * block);
  EXPECT_NEAR(none.value().memory.activations - eight.value().memory.activations, 8 * block,
              1e-6 * block);
  const auto& notes = eight.value().notes;
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.rfind("activation offloading: 8 blocks' saved activations (", 0) == 0;
  }));
}

TEST(Offload, CopiesOverPcieShowWhereComputeCannotHideThem) {
  // One H100 SXM: host link PCIe Gen5 x16, 32 GT/s x 16 x 128/130 / 8 = 63.0 GB/s per direction,
  // at the measured PCIe share. Each of N blocks moves its activations out in the forward pass
  // and back in the backward: offload_s = 2 N t per micro-batch (4 micro-batches).
  const Efficiencies& eff = test::catalog().efficiencies;
  const double link = 32e9 * 16 * 128.0 / 130.0 / 8 * eff.pcie;
  const Timed eight = time_on("llama-2-7b", "h100-sxm5-80gb", 1, llama_7b_setup(8));
  const double t = eight.e.offload_bytes_per_layer / link;
  EXPECT_NEAR(eight.t.offload_s, 2 * 8 * t * 4, 1e-9 * eight.t.offload_s);
  EXPECT_GE(eight.t.offload_exposed_s, 0);
  EXPECT_LE(eight.t.offload_exposed_s, eight.t.offload_s);
  // The step adds exactly the exposed part.
  const Timed none = time_on("llama-2-7b", "h100-sxm5-80gb", 1, llama_7b_setup(0));
  EXPECT_NEAR(eight.t.step_s - none.t.step_s, eight.t.offload_exposed_s, 1e-9 * none.t.step_s);
  // Offloading all but one block cannot be hidden behind one block's compute: each block's copy
  // (0.64 GB at 49 GB/s, 13 ms) outlasts its forward (about 4 ms).
  const Timed most = time_on("llama-2-7b", "h100-sxm5-80gb", 1, llama_7b_setup(31));
  EXPECT_GT(most.t.offload_exposed_s, eight.t.offload_exposed_s);
  EXPECT_GT(most.t.offload_exposed_s, 0);
}

TEST(Offload, NvlinkC2cAtItsSourcedRateHidesWhatPcieCannot) {
  // A GB200 GPU reaches Grace memory over its own NVLink-C2C link: 900 GB/s both ways, 450 each
  // (Transformer Engine's CPU offloading page), taken at that rate.
  const Timed gb200 = time_on("llama-2-7b", "gb200", 1, llama_7b_setup(31));
  EXPECT_NEAR(gb200.t.offload_s, 2 * 31 * gb200.e.offload_bytes_per_layer / 450e9 * 4,
              1e-9 * gb200.t.offload_s);
  const Timed h100 = time_on("llama-2-7b", "h100-sxm5-80gb", 1, llama_7b_setup(31));
  EXPECT_LT(gb200.t.offload_exposed_s, h100.t.offload_exposed_s);
}

TEST(Offload, AGpuWithoutASourcedHostLinkSaysSoAndTimesNoCopies) {
  // GB300 is a Grace superchip part (NVLink-C2C) whose link bandwidth has no source here: its
  // PCIe generation is not its host link, so nothing is timed and a note says why.
  const Timed gb300 = time_on("llama-2-7b", "gb300", 1, llama_7b_setup(8));
  EXPECT_EQ(gb300.t.offload_s, 0);
  const auto& notes = gb300.t.notes;
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n ==
           "activation offloading: gb300 has no sourced host-link bandwidth, so its copies "
           "are taken as hidden behind compute";
  }));
}

TEST(Offload, SetupsMegatronRefusesAreRefused) {
  gpuplan::Setup s = llama_7b_setup(8);
  s.pp = 2;
  EXPECT_EQ(
      error_of("llama-2-7b", s),
      "--offload-activation-layers needs --pp 1 (Megatron offloads no pipeline-parallel run)");
  s = llama_7b_setup(8);
  s.checkpointing = Checkpointing::full;
  EXPECT_EQ(error_of("llama-2-7b", s),
            "--offload-activation-layers needs --checkpointing none, not full (Megatron offloads "
            "instead of recomputing)");
  s = llama_7b_setup(8);
  s.mode = Mode::infer;
  EXPECT_EQ(error_of("llama-2-7b", s),
            "--offload-activation-layers applies to training (--mode train)");
  s = llama_7b_setup(32);
  EXPECT_EQ(error_of("llama-2-7b", s),
            "--offload-activation-layers 32 must be fewer than the model's 32 blocks");
  s = gpuplan::Setup{};
  s.offload_activation_layers = 1;
  EXPECT_EQ(error_of("resnet50", s),
            "--offload-activation-layers applies to transformer models, not 'resnet50'");
  s.offload_activation_layers = -1;
  EXPECT_EQ(error_of("resnet50", s),
            "--offload-activation-layers must be between 0 and 1000000, got -1");
}

}  // namespace
}  // namespace gpuplan
