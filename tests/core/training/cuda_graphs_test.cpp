// Megatron's training CUDA graphs (--cuda-graph-modules; Megatron --cuda-graph-scope): the kernels
// of the captured parts of each block are replayed by one graph launch, so the host launches
// fewer kernels and a host-bound pass runs at the GPU's pace.
#include <gtest/gtest.h>

#include "gpuplan/estimate.h"
#include "gpuplan/timing.h"
#include "test_util.h"

namespace gpuplan {
namespace {

// Mixtral 8x7B: 32 blocks, every one MoE, rotary positions, no dropout; 8 GPUs at ep 8.
gpuplan::Setup mixtral(unsigned graphs) {
  gpuplan::Setup s;
  s.precision = Precision::mixed_bf16;
  s.seq_len = 4096;
  s.micro_batch = 1;
  s.global_batch = 64;
  s.dp = 8;
  s.ep = 8;
  s.zero_stage = 1;
  s.attention = Attention::flash;
  s.cuda_graph_modules = graphs;
  return s;
}

WorkProfile work_of(const gpuplan::Setup& s, const std::string& id = "mixtral-8x7b") {
  const Model& m = test::model(id);
  auto e = estimate(m, s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  if (!e.ok()) return {};
  auto w = build_work_profile(m, s, e.value());
  EXPECT_TRUE(w.ok()) << (w.ok() ? "" : w.error().message);
  return w.ok() ? w.value() : WorkProfile{};
}

const OpClass& op_named(const WorkProfile& w, const std::string& name) {
  for (const auto& op : w.ops) {
    if (op.name == name) return op;
  }
  static const OpClass none;
  ADD_FAILURE() << "no kernel class " << name;
  return none;
}

double launched(const WorkProfile& w) {
  double kernels = w.graph_launches;
  for (const auto& op : w.ops) kernels += op.kernels - op.captured_kernels;
  return kernels;
}

TEST(CudaGraphs, AttentionGraphsHoldTheAttentionSideOfEachBlock) {
  const WorkProfile none = work_of(mixtral(0));
  const WorkProfile attn = work_of(mixtral(kGraphAttn));
  EXPECT_EQ(none.graph_launches, 0);
  for (const auto& op : none.ops) EXPECT_EQ(op.captured_kernels, 0) << op.name;
  for (const char* name : {"attention.qkv", "attention.core", "attention.out"}) {
    const OpClass& op = op_named(attn, name);
    EXPECT_GT(op.kernels, 0) << name;
    EXPECT_EQ(op.captured_kernels, op.kernels) << name;
  }
  // Per block the attention side is the input norm, the residual add and rotary's two kernels.
  EXPECT_EQ(op_named(attn, "elementwise").captured_kernels, 32 * 4);
  for (const char* name : {"moe.router", "moe.permute", "moe.experts.fc1", "head.logits"})
    EXPECT_EQ(op_named(attn, name).captured_kernels, 0) << name;
  EXPECT_EQ(attn.graph_launches, 32);  // one graph per block
  const double attention_kernels = op_named(none, "attention.qkv").kernels +
                                   op_named(none, "attention.core").kernels +
                                   op_named(none, "attention.out").kernels;
  EXPECT_DOUBLE_EQ(launched(none) - launched(attn), attention_kernels + 32 * 4 - 32);
}

TEST(CudaGraphs, RouterGraphsLeaveTheDroplessExpertsToTheHost) {
  const WorkProfile w = work_of(mixtral(kGraphAttn | kGraphMoeRouter | kGraphMoePreprocess));
  EXPECT_EQ(op_named(w, "moe.router").captured_kernels, op_named(w, "moe.router").kernels);
  EXPECT_EQ(op_named(w, "moe.router.topk").captured_kernels,
            op_named(w, "moe.router.topk").kernels);
  // The router's graph also holds the pre-MLP norm: 4 + 1 of each block's 6 element-wise kernels.
  EXPECT_EQ(op_named(w, "elementwise").kernels, 32 * 6);
  EXPECT_EQ(op_named(w, "elementwise").captured_kernels, 32 * 5);
  for (const char* name : {"moe.permute", "moe.experts.fc1", "moe.experts.fc2"})
    EXPECT_EQ(op_named(w, name).captured_kernels, 0) << name;
  EXPECT_EQ(w.graph_launches, 64);  // attention and router, per block
}

TEST(CudaGraphs, AWholePassGraphTakesTheHostOffAHostBoundPass) {
  // Token-drop routing padded to the capacity keeps the MoE blocks' shapes fixed.
  gpuplan::Setup eager = mixtral(0);
  eager.capacity_factor = 1;
  eager.moe_pad_to_capacity = true;
  gpuplan::Setup graphed = eager;
  graphed.cuda_graph_modules = kGraphFullIteration;
  const WorkProfile w = work_of(graphed);
  EXPECT_EQ(launched(w), 1);
  const Model& m = test::model("mixtral-8x7b");
  const Gpu& h100 = *test::catalog().find_gpu("h100-sxm5-80gb");
  Efficiencies slow_host = test::catalog().efficiencies;
  slow_host.host_overhead_per_kernel_s = 1e-3;  // a host far slower than the GPU
  Efficiencies no_host = slow_host;
  no_host.host_overhead_per_kernel_s = 0;
  const WorkProfile we = work_of(eager);
  auto host_bound = pass_time_s(m, eager, we, h100, slow_host, 1);
  auto gpu_only = pass_time_s(m, eager, we, h100, no_host, 1);
  auto replayed = pass_time_s(m, graphed, w, h100, slow_host, 1);
  ASSERT_TRUE(host_bound.ok() && gpu_only.ok() && replayed.ok());
  EXPECT_DOUBLE_EQ(host_bound.value().forward_s, launched(we) * 1e-3);
  EXPECT_GT(gpu_only.value().forward_s, 1e-3);  // one graph launch hides behind the GPU
  EXPECT_DOUBLE_EQ(replayed.value().forward_s, gpu_only.value().forward_s);
  EXPECT_DOUBLE_EQ(replayed.value().backward_s, gpu_only.value().backward_s);
}

TEST(CudaGraphs, AHostBoundStepSaysSoAndAGraphedOneDoesNot) {
  // A slow host against 8 H100s: the eager step is host-bound, the whole-pass graph is not.
  gpuplan::Setup eager = mixtral(0);
  eager.capacity_factor = 1;
  eager.moe_pad_to_capacity = true;
  gpuplan::Setup graphed = eager;
  graphed.cuda_graph_modules = kGraphFullIteration;
  const Model& m = test::model("mixtral-8x7b");
  const Gpu& h100 = *test::catalog().find_gpu("h100-sxm5-80gb");
  Efficiencies slow_host = test::catalog().efficiencies;
  slow_host.host_overhead_per_kernel_s = 1e-3;
  auto c = single_node_cluster(h100, 8);
  ASSERT_TRUE(c.ok());
  auto notes_of = [&](const gpuplan::Setup& s) {
    auto e = estimate(m, s);
    EXPECT_TRUE(e.ok());
    auto w = build_work_profile(m, s, e.value());
    auto t = estimate_step_time(m, s, e.value(), w.value(), c.value(), slow_host);
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
    std::string all;
    for (const auto& n : t.ok() ? t.value().notes : std::vector<std::string>{}) all += n + "\n";
    return all;
  };
  const std::string launches = std::to_string(static_cast<long long>(launched(work_of(eager))));
  EXPECT_NE(notes_of(eager).find("host-bound: the host launches " + launches + " kernels"),
            std::string::npos)
      << notes_of(eager);
  EXPECT_EQ(notes_of(graphed).find("host-bound"), std::string::npos) << notes_of(graphed);
}

TEST(CudaGraphs, MambaGraphsHoldAHybridsMambaLayersAndAttnItsAttentionLayers) {
  // Nemotron 3 Nano's pattern has 23 Mamba layers ('M'), 6 attention layers ('*') and 23 MoE
  // layers: Megatron captures MambaLayer under its own scope (CudaGraphModule.mamba), and the
  // attention scope holds the six attention layers only.
  gpuplan::Setup s = mixtral(kGraphAttn);
  const std::string nano = "nemotron-3-nano-30b-a3b";
  const WorkProfile attn = work_of(s, nano);
  EXPECT_EQ(attn.graph_launches, 6);
  EXPECT_EQ(op_named(attn, "linear_attention.core").captured_kernels, 0);
  EXPECT_EQ(op_named(attn, "attention.core").captured_kernels,
            op_named(attn, "attention.core").kernels);
  s.cuda_graph_modules = kGraphAttn | kGraphMamba;
  const WorkProfile both = work_of(s, nano);
  EXPECT_EQ(both.graph_launches, 6 + 23);
  for (const char* name : {"linear_attention.in", "linear_attention.core", "linear_attention.out"})
    EXPECT_EQ(op_named(both, name).captured_kernels, op_named(both, name).kernels) << name;
  EXPECT_LT(launched(both), launched(attn));
  // A model without Mamba layers has nothing for the scope to hold.
  auto dense = estimate(test::model("llama-3-8b"), mixtral(kGraphMamba));
  ASSERT_FALSE(dense.ok());
  EXPECT_EQ(dense.error().message,
            "--cuda-graph-modules mamba captures Mamba layers; model 'llama-3-8b' has none");
}

TEST(CudaGraphs, ImpossibleCapturesAreRefusedWithTheReason) {
  auto error_of = [](const gpuplan::Setup& s, const std::string& id = "mixtral-8x7b") {
    auto e = estimate(test::model(id), s);
    return e.ok() ? std::string() : e.error().message;
  };
  EXPECT_NE(error_of(mixtral(kGraphLayer)).find("dropless"), std::string::npos);
  EXPECT_NE(error_of(mixtral(kGraphMoePreprocess)).find("needs moe_router"), std::string::npos);
  gpuplan::Setup infer = mixtral(kGraphAttn);
  infer.mode = Mode::infer;
  EXPECT_NE(error_of(infer).find("applies to training"), std::string::npos);
  gpuplan::Setup overlap = mixtral(kGraphMoe);
  overlap.capacity_factor = 1;
  overlap.moe_pad_to_capacity = true;
  overlap.moe_a2a_overlap = true;
  EXPECT_NE(error_of(overlap).find("--moe-a2a-overlap"), std::string::npos);
  // A full-iteration graph of dropless blocks needs fixed shapes: HybridEP's per-rank budget
  // gives them, and Megatron overlaps the all-to-all inside such a graph (transformer_config.py
  // refuses the overlap only with per-layer graphs of MoE blocks).
  gpuplan::Setup budget = mixtral(kGraphFullIteration);
  EXPECT_NE(error_of(budget).find("--moe-rank-capacity"), std::string::npos);
  budget.moe_dispatcher = MoeDispatcher::hybridep;
  budget.moe_rank_capacity = 1.5;
  budget.moe_a2a_overlap = true;
  EXPECT_EQ(error_of(budget), "");
  budget.cuda_graph_modules = kGraphMoe;  // per-layer graphs: still drop-and-pad only
  EXPECT_NE(error_of(budget).find("dropless"), std::string::npos);
  gpuplan::Setup dense = mixtral(kGraphMoeRouter);
  dense.ep = 1;
  EXPECT_NE(error_of(dense, "llama-3-8b").find("no experts"), std::string::npos);
  gpuplan::Setup cnn;
  cnn.cuda_graph_modules = kGraphAttn;
  EXPECT_NE(error_of(cnn, "resnet50").find("transformer blocks"), std::string::npos);
  cnn.cuda_graph_modules = kGraphFullIteration;
  EXPECT_EQ(error_of(cnn, "resnet50"), "");
}

}  // namespace
}  // namespace gpuplan
