// Mixture of experts under expert parallelism: the layout Megatron-Core uses, the token
// all-to-all's bytes and time, the experts' grouped GEMMs and load, and their memory. Figures are
// derived by hand from Mixtral 8x7B's config.json (32 layers, hidden 4096, 8 experts of FFN width
// 14336, top-2, 8 key/value heads, vocabulary 32000).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "gpuplan/expert_parallel.h"
#include "gpuplan/timing.h"
#include "test_util.h"
#include "training/internal.h"

namespace gpuplan {
namespace {

// One routed expert of Mixtral: gate, up and down projections, 3 x 4096 x 14336.
constexpr double kExpertParams = 3.0 * 4096 * 14336;  // 176,160,768
constexpr double kMixtralTotal = 46'702'792'704;      // HF MixtralForCausalLM

gpuplan::Setup mixtral_setup(int dp, int ep) {
  gpuplan::Setup s;
  s.precision = Precision::mixed_bf16;
  s.seq_len = 4096;
  s.micro_batch = 1;
  s.dp = dp;
  s.ep = ep;
  s.zero_stage = 1;
  s.attention = Attention::flash;
  return s;
}

Estimate estimated(const Setup& s, const std::string& id = "mixtral-8x7b") {
  auto e = estimate(test::model(id), s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  return e.ok() ? e.value() : Estimate{};
}

std::string error_of(const Setup& s, const std::string& id = "mixtral-8x7b") {
  auto e = estimate(test::model(id), s);
  return e.ok() ? "" : e.error().message;
}

struct Timed {
  Estimate e;
  WorkProfile w;
  StepTime t;
};

Timed timed(const Setup& s, const Cluster& c) {
  const Model& m = test::model("mixtral-8x7b");
  Timed x;
  x.e = estimated(s);
  auto w = build_work_profile(m, s, x.e);
  EXPECT_TRUE(w.ok());
  x.w = w.value();
  auto t = estimate_step_time(m, s, x.e, x.w, c, test::catalog().efficiencies);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  if (t.ok()) x.t = t.value();
  return x;
}

const Gpu& h100() {
  return *test::catalog().find_gpu("h100-sxm5-80gb");
}

const OpClass* op(const WorkProfile& w, const std::string& name) {
  for (const OpClass& o : w.ops)
    if (o.name == name) return &o;
  ADD_FAILURE() << "no op " << name;
  static const OpClass none;
  return &none;
}

TEST(ExpertParallel, MixtralTotalAndActiveParametersMatchThePublishedCounts) {
  // Jiang et al. 2024: 47B parameters, 13B active. By hand: a token skips 6 of 8 experts in
  // each of 32 layers, 46,702,792,704 - 32 x 6 x 176,160,768 = 12,879,925,248.
  const Estimate e = estimated(mixtral_setup(1, 1));
  EXPECT_EQ(e.params.total, 46'702'792'704);
  EXPECT_EQ(e.params.experts, static_cast<int64_t>(32 * 8 * kExpertParams));
  EXPECT_EQ(e.params.active_per_token, 12'879'925'248);
  // 6 N over the non-embedding parameters (embedding 32000 x 4096; the head is not embedding).
  EXPECT_DOUBLE_EQ(e.flops.params_rule_active_per_token, 6.0 * (12'879'925'248 - 131'072'000));
}

TEST(ExpertParallel, DispatchBytesPerLayerAreTokensTimesRoutedExpertsTimesHiddenTimesBytes) {
  // One sample of 4096 tokens, top-2, hidden 4096, bf16: 4096 x 2 x 4096 x 2 = 67,108,864 bytes
  // per MoE layer and direction; with --tp 2 and sequence parallelism each rank routes half.
  const TransformerSpec& mixtral = test::model("mixtral-8x7b").transformer;
  EXPECT_DOUBLE_EQ(dispatch_bytes_per_sample(mixtral, 4096, 1, 2.0), 67'108'864.0);
  EXPECT_DOUBLE_EQ(dispatch_bytes_per_sample(mixtral, 4096, 2, 2.0), 33'554'432.0);
  gpuplan::Setup s = mixtral_setup(8, 8);
  s.micro_batch = 2;
  s.global_batch = 16;
  const Estimate e = estimated(s);
  ASSERT_TRUE(e.moe);
  EXPECT_DOUBLE_EQ(e.moe->dispatch_bytes_per_layer, 2 * 67'108'864.0);
  auto w = build_work_profile(test::model("mixtral-8x7b"), s, e);
  EXPECT_DOUBLE_EQ(w.value().moe.dispatch_bytes_per_sample, 67'108'864.0);
  EXPECT_EQ(w.value().moe.moe_layers, 32);
  // The MoE blocks exchange tokens by all-to-all instead of their MLP's tensor-parallel reduce.
  EXPECT_EQ(w.value().tp_allreduces, 32);
}

TEST(ExpertParallel, TheLayoutShardsExpertsOverRanksCarvedOutOfDataParallelism) {
  gpuplan::Setup s = mixtral_setup(8, 4);
  auto x = expert_layout(test::model("mixtral-8x7b").transformer, s, "mixtral-8x7b");
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(x.value().etp, 1);  // etp follows tp
  EXPECT_EQ(x.value().edp, 2);  // 8 data-parallel ranks / 4 expert-parallel
  EXPECT_EQ(x.value().local_experts, 2);
  // The busiest rank: the busiest expert (1.52 x even, the cited default) and one at even.
  EXPECT_DOUBLE_EQ(x.value().rank_load, (1.52 + 1) / 2);
  s.moe_imbalance = 1;  // an even router
  EXPECT_DOUBLE_EQ(expert_layout(test::model("mixtral-8x7b").transformer, s, "m").value().rank_load,
                   1.0);
  s.moe_imbalance = 2;
  s.capacity_factor = 1.25;  // the busiest expert drops what exceeds 1.25 x even
  EXPECT_DOUBLE_EQ(expert_layout(test::model("mixtral-8x7b").transformer, s, "m").value().rank_load,
                   (1.25 + 1) / 2);
  // Padded to capacity (Megatron-Bridge's token-drop recipes: 1.0, padded), every expert computes
  // exactly 1.25 x an even share, however the router spreads the tokens.
  s.moe_pad_to_capacity = true;
  EXPECT_DOUBLE_EQ(expert_layout(test::model("mixtral-8x7b").transformer, s, "m").value().rank_load,
                   1.25);
  s.capacity_factor = 0;
  EXPECT_EQ(expert_layout(test::model("mixtral-8x7b").transformer, s, "m").error().message,
            "--moe-pad-to-capacity needs --capacity-factor (the capacity experts are padded to)");
}

TEST(ExpertParallel, ARankBudgetDropsWhatExceedsItAndSizesTheReceiveBuffers) {
  // HybridEP's fixed per-rank budget (Megatron --moe-expert-rank-capacity-factor): 4 ranks of
  // 2 experts, the busiest expert at 2 x even: that rank receives (2 + 1) / 2 = 1.5 x even.
  gpuplan::Setup s = mixtral_setup(8, 4);
  s.moe_imbalance = 2;
  s.moe_dispatcher = MoeDispatcher::hybridep;
  const TransformerSpec& m = test::model("mixtral-8x7b").transformer;
  s.moe_rank_capacity = 1.25;  // below what arrives: the rank keeps 1.25 x, its buffers too
  auto x = expert_layout(m, s, "m");
  ASSERT_TRUE(x.ok()) << x.error().message;
  EXPECT_DOUBLE_EQ(x.value().rank_load, 1.25);
  EXPECT_DOUBLE_EQ(x.value().receive_share, 1.25);
  s.moe_rank_capacity = 2;  // above: every token kept, the buffers hold the whole budget
  x = expert_layout(m, s, "m");
  EXPECT_DOUBLE_EQ(x.value().rank_load, 1.5);
  EXPECT_DOUBLE_EQ(x.value().receive_share, 2.0);
  // Memory: one dispatch's send buffer and its receive buffer at the budget.
  auto e = estimate(test::model("mixtral-8x7b"), s);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_DOUBLE_EQ(e.value().moe->dispatch_buffer_bytes,
                   e.value().moe->dispatch_bytes_per_layer * (1 + 2.0));
  s.moe_dispatcher = MoeDispatcher::deepep;
  EXPECT_EQ(expert_layout(m, s, "m").error().message,
            "--moe-rank-capacity is HybridEP's per-rank budget: set --moe-dispatcher hybridep "
            "(got deepep)");
  gpuplan::Setup dense;
  dense.moe_rank_capacity = 1.5;
  EXPECT_NE(estimate(test::model("llama-3-8b"), dense)
                .error()
                .message.find("--moe-rank-capacity applies to mixture-of-experts models"),
            std::string::npos);
}

TEST(ExpertParallel, ValidDegreesDivideTheExpertsAndTheDataAndTensorParallelRanks) {
  const TransformerSpec& mixtral = test::model("mixtral-8x7b").transformer;
  // 64 GPUs in 4 pipeline stages: 16 data x tensor ranks; ep divides 8 experts and 16 ranks.
  EXPECT_EQ(valid_expert_parallel_degrees(mixtral, 64, 1, 4), (std::vector<int>{1, 2, 4, 8}));
  // tp 4 (etp 4 by default): ep x 4 must divide 16.
  EXPECT_EQ(valid_expert_parallel_degrees(mixtral, 64, 4, 4), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(valid_expert_parallel_degrees(mixtral, 64, 4, 4, 1), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(valid_expert_parallel_degrees(test::model("llama-2-7b").transformer, 64, 1, 1),
            (std::vector<int>{1}));
}

TEST(ExpertParallel, ADecodeStepReadsTheExpertsItsTokensTouch) {
  // Mixtral (8 experts, top 2) decoding one sequence on one GPU reads the dense weights and 2 of
  // the 8 experts per layer: E (1 - (1 - k/E)^1) = k. bf16: 2 bytes per weight; the KV cache too.
  gpuplan::Setup s;
  s.mode = Mode::infer;
  s.precision = Precision::bf16;
  s.seq_len = 512;
  s.generate_tokens = 128;
  s.global_batch = 1;
  auto e = estimate(test::model("mixtral-8x7b"), s);
  ASSERT_TRUE(e.ok()) << e.error().message;
  const Estimate& x = e.value();
  const double experts = static_cast<double>(x.params.experts);
  const double dense = static_cast<double>(x.params.total) - experts;
  EXPECT_NEAR(x.flops.decode_bytes_per_token - x.memory.kv_cache, 2 * (dense + experts * 2 / 8),
              1e-6 * x.flops.decode_bytes_per_token);
  // 64 sequences touch nearly all of them: 8 (1 - (3/4)^64).
  s.global_batch = 64;
  auto many = estimate(test::model("mixtral-8x7b"), s);
  ASSERT_TRUE(many.ok());
  EXPECT_NEAR(many.value().flops.decode_bytes_per_token - many.value().memory.kv_cache,
              2 * (dense + experts * (1 - std::pow(0.75, 64))),
              1e-6 * many.value().flops.decode_bytes_per_token);
}

TEST(ExpertParallel, ContextParallelRanksHoldExpertsToo) {
  // Megatron-Core carves ep x etp out of dp x cp x tp: 8 GPUs of cp 8 and dp 1 hold 8 experts,
  // one each (expert-data-parallel group of 1).
  gpuplan::Setup s = mixtral_setup(1, 8);
  s.cp = 8;
  s.seq_len = 32768;
  auto e = estimate(test::model("mixtral-8x7b"), s);
  ASSERT_TRUE(e.ok()) << e.error().message;
  ASSERT_TRUE(e.value().moe);
  EXPECT_EQ(e.value().moe->edp, 1);
  EXPECT_EQ(e.value().moe->local_experts, 1);
}

TEST(ExpertParallel, ErrorsNameTheKeyAndWhatItMustDivide) {
  EXPECT_EQ(error_of(mixtral_setup(8, 3)),
            "--ep 3 does not divide the 8 experts of model 'mixtral-8x7b'");
  EXPECT_EQ(error_of(mixtral_setup(4, 8)),
            "--ep x --etp = 8 does not divide --dp x --cp x --tp = 4 (experts are sharded over "
            "the data-, context- and tensor-parallel GPUs)");
  EXPECT_EQ(error_of(mixtral_setup(8, 2), "llama-2-7b"),
            "--ep applies to mixture-of-experts models; model 'llama-2-7b' has no experts");
  gpuplan::Setup s = mixtral_setup(4, 2);
  s.tp = 2;
  s.etp = 2;
  EXPECT_EQ(error_of(s),
            "--ep with --tp 2 needs sequence parallelism (--sp), as Megatron-Core's MoE layers do");
  s.sequence_parallel = true;
  s.etp = 3;
  s.dp = 6;
  s.ep = 2;
  EXPECT_EQ(error_of(s), "--etp 3 does not divide the experts' FFN width 14336");
  gpuplan::Setup t = mixtral_setup(8, 8);
  t.moe_imbalance = 5;
  EXPECT_EQ(error_of(t),
            "--moe-imbalance 5 is outside [1, 4]: the busiest of 8 experts with 2 per token "
            "takes at most every token");
  gpuplan::Setup g;
  g.ep = 2;
  g.dp = 2;
  EXPECT_EQ(error_of(g, "resnet50"),
            "--ep applies to mixture-of-experts models; model 'resnet50' has no experts");
}

TEST(ExpertParallel, ExpertStatesAreShardedOverTheExpertDataParallelGroup) {
  // dp 8, ep 8: each GPU holds one expert per layer, 32 x 176,160,768 parameters, and every
  // other parameter (46,702,792,704 - 256 x 176,160,768 = 1,605,636,096).
  const double experts = 32 * kExpertParams;
  const double dense = kMixtralTotal - 256 * kExpertParams;
  const Estimate e = estimated(mixtral_setup(8, 8));
  ASSERT_TRUE(e.moe);
  EXPECT_EQ(e.moe->edp, 1);
  EXPECT_DOUBLE_EQ(e.moe->expert_params_per_gpu, experts);
  // mixed-bf16: bf16 weights; fp32 gradients, whole under ZeRO-1; Adam's two fp32 states and
  // the fp32 master, 12 bytes, sharded by ZeRO-1 over dp 8 for dense parameters and over edp 1
  // (not at all) for the experts.
  EXPECT_NEAR(e.memory.weights, 2 * (dense + experts), 1.0);
  EXPECT_NEAR(e.memory.gradients, 4 * (dense + experts), 1.0);
  EXPECT_NEAR(e.memory.optimizer, 12 * dense / 8 + 12 * experts, 1.0);
  // Without expert parallelism every GPU holds all 8 experts and shards their states over 8.
  const Estimate dp_only = estimated(mixtral_setup(8, 1));
  EXPECT_NEAR(dp_only.memory.optimizer, 12 * kMixtralTotal / 8, 1.0);
}

TEST(ExpertParallel, TheBusiestRankKeepsMoreRoutedActivationsAndDispatchBuffers) {
  gpuplan::Setup even = mixtral_setup(8, 8);
  even.moe_imbalance = 1;
  gpuplan::Setup skewed = even;
  skewed.moe_imbalance = 2;
  const Estimate a = estimated(even), b = estimated(skewed);
  // Per layer, the routed part is the experts' inputs (k x s x h x 2 bytes) and inner activations
  // (gated: 4 x k x s x ffn x 2 bytes); twice the tokens keep twice that, over 32 layers.
  const double routed = 2.0 * 4096 * 4096 * 2 + 4.0 * 2 * 4096 * 14336 * 2;
  EXPECT_NEAR(b.memory.activations - a.memory.activations, 32 * routed, 1.0);
  // Send buffer plus a receive buffer rank_load times as large.
  EXPECT_DOUBLE_EQ(a.moe->dispatch_buffer_bytes, 2 * 67'108'864.0);
  EXPECT_DOUBLE_EQ(b.moe->dispatch_buffer_bytes, 3 * 67'108'864.0);
}

TEST(ExpertParallel, RecomputedMoeModulesDropTheirActivationsAndRepeatTheAllToAll) {
  // Mixtral, ep 8 on one node, an even router. moe_act drops the experts' activation output
  // (fc2's input, k x s x ffn x 2 bytes); moe drops the whole layer's: the router's fp32 logits
  // (4 x s x E), the experts' inputs (k x s x h x 2) and inner terms (4 x k x s x ffn x 2), and
  // runs router and experts again, with the dispatch and combine: three passes of them, not two.
  gpuplan::Setup s = mixtral_setup(8, 8);
  s.moe_imbalance = 1;
  const Cluster node = single_node_cluster(h100(), 8).value();
  const Timed none = timed(s, node);
  s.checkpointing = Checkpointing::selective;
  s.recompute_modules = kRecomputeMoeAct;
  const Timed act = timed(s, node);
  const double t = 4096, h = 4096, k = 2, f = 14336, E = 8, L = 32;
  EXPECT_NEAR(none.e.memory.activations - act.e.memory.activations, L * k * t * f * 2, 1);
  EXPECT_GT(act.t.recompute_s, 0);
  EXPECT_DOUBLE_EQ(act.t.ep_comm_s, none.t.ep_comm_s);
  s.recompute_modules = kRecomputeMoe;
  const Timed moe = timed(s, node);
  EXPECT_NEAR(none.e.memory.activations - moe.e.memory.activations,
              L * (4 * t * E + k * t * h * 2 + 4 * k * t * f * 2), 1);
  const double batch = 8;  // dp 8 x micro-batch 1
  EXPECT_NEAR(moe.e.flops.recompute_per_step, batch * L * 2 * t * h * (E + k * f * 3), 1e4);
  EXPECT_NEAR(moe.t.ep_comm_s, 1.5 * none.t.ep_comm_s, 1e-12);
  EXPECT_GT(moe.t.recompute_s, act.t.recompute_s);
}

TEST(ExpertParallel, TheBusiestRanksGroupedGemmsTakeItsShareOfTheTokens) {
  gpuplan::Setup s = mixtral_setup(8, 8);
  s.moe_imbalance = 1.5;
  const Estimate e = estimated(s);
  auto w = build_work_profile(test::model("mixtral-8x7b"), s, e).value();
  const OpClass* fc1 = op(w, "moe.experts.fc1");
  // 4096 tokens x 2 routed experts x 1.5 on one local expert: 2 x 12288 x 4096 x 28672 per layer.
  EXPECT_DOUBLE_EQ(fc1->flops_per_sample, 32 * 2 * 12288.0 * 4096 * 2 * 14336);
  EXPECT_DOUBLE_EQ(fc1->gemm_rows_per_sample, 12288);
  EXPECT_EQ(fc1->gemm_groups, 1);
  EXPECT_DOUBLE_EQ(fc1->weight_bytes, 32 * 2.0 * 4096 * 2 * 14336);  // one expert's gate and up
  // Without expert parallelism one GPU runs all 8 experts on an even share each.
  gpuplan::Setup one = mixtral_setup(1, 1);
  one.moe_imbalance = 1;
  auto w1 = build_work_profile(test::model("mixtral-8x7b"), one, estimated(one)).value();
  EXPECT_EQ(op(w1, "moe.experts.fc1")->gemm_groups, 8);
  EXPECT_DOUBLE_EQ(op(w1, "moe.experts.fc1")->gemm_rows_per_sample, 4096.0 * 2 / 8);
}

TEST(ExpertParallel, DeepSeekV3HasDenseBlocksSharedExpertsAndRoutedOnes) {
  // config.json: 61 layers, the first 3 dense (width 18432), then 58 MoE blocks of 256 routed
  // experts (width 2048, top-8) and 1 shared expert of the same width.
  const TransformerSpec& v3 = test::model("deepseek-v3").transformer;
  const MoeShape m = moe_shape(v3);
  EXPECT_EQ(m.moe_layers, 58);
  EXPECT_EQ(m.dense_layers, 3);
  EXPECT_EQ(m.experts, 256);
  EXPECT_EQ(m.top_k, 8);
  EXPECT_EQ(m.expert_ffn, 2048);
  EXPECT_EQ(m.shared_ffn, 2048);
  EXPECT_EQ(m.dense_ffn, 18432);
  // ep 64 on 64 GPUs: 4 experts of each MoE block per GPU, 3 x 7168 x 2048 parameters each, in
  // the 58 blocks and the multi-token prediction module's block (trained with the model).
  gpuplan::Setup s;
  s.precision = Precision::mixed_bf16;
  s.seq_len = 4096;
  s.micro_batch = 1;
  s.dp = 64;
  s.ep = 64;
  s.moe_imbalance = 1;
  const Estimate e = estimated(s, "deepseek-v3");
  ASSERT_TRUE(e.moe);
  EXPECT_EQ(e.moe->local_experts, 4);
  EXPECT_DOUBLE_EQ(e.moe->expert_params_per_gpu, 59.0 * 4 * 3 * 7168 * 2048);
  auto w = build_work_profile(test::model("deepseek-v3"), s, e).value();
  // The dense blocks' MLP at 18432 wide, the shared expert in every MoE block at 2048 (gate and
  // up: 2 matrices in), and the routed experts' fc1 over 4096 x 8 token copies.
  EXPECT_DOUBLE_EQ(op(w, "mlp.in")->flops_per_sample, 3 * 2 * 4096.0 * 7168 * 18432 * 2);
  EXPECT_DOUBLE_EQ(op(w, "moe.shared.in")->flops_per_sample, 58 * 2 * 4096.0 * 7168 * 2048 * 2);
  EXPECT_DOUBLE_EQ(op(w, "moe.experts.fc1")->flops_per_sample,
                   58 * 2 * 4096.0 * 8 * 7168 * 2048 * 2);
  EXPECT_EQ(op(w, "moe.experts.fc1")->gemm_groups, 4);
  EXPECT_EQ(w.moe.moe_layers, 58);
}

TEST(ExpertParallel, GroupedGemmTilesShareTheWaves) {
  Efficiencies e;
  e.gemm_tile_rows = 256;
  e.gemm_tile_cols = 128;
  // 100 x 1280 per group: 1 x 10 tiles, rows padded to 256. 8 groups: 80 tiles, one wave of 132
  // SMs 80/132 full; 16 groups: 160 tiles, two waves, the second 28/132 full.
  EXPECT_DOUBLE_EQ(grouped_gemm_quantisation_efficiency(100, 1280, 8, 132, e),
                   100.0 / 256 * (80.0 / 132));
  EXPECT_DOUBLE_EQ(grouped_gemm_quantisation_efficiency(100, 1280, 16, 132, e),
                   100.0 / 256 * (160.0 / 132) / 2);
  EXPECT_DOUBLE_EQ(grouped_gemm_quantisation_efficiency(100, 1280, 1, 132, e),
                   gemm_quantisation_efficiency(100, 1280, 132, e));
}

TEST(ExpertParallel, AllToAllInsideANodeMovesSevenEighthsOverNvlink) {
  // dp 8 = ep 8 on one 8-GPU node, one micro-batch, an even router: each of 32 layers sends
  // 67,108,864 bytes to dispatch and as many to combine, 7/8 to other GPUs, in forward and again
  // in backward: 4 x 32 all-to-alls, each paying NCCL's base latency and an NVLink hop.
  gpuplan::Setup s = mixtral_setup(8, 8);
  s.moe_imbalance = 1;
  const Timed x = timed(s, single_node_cluster(h100(), 8).value());
  const Efficiencies& eff = test::catalog().efficiencies;
  const double busbw = h100().nvlink_bandwidth_bytes_per_s / 2 * eff.nvlink;
  const double one =
      67'108'864.0 * 7 / 8 / busbw + eff.nccl_ring.base_s + eff.nccl_ring.nvlink_hop_s;
  EXPECT_NEAR(x.t.ep_comm_s, 4 * 32 * one, 1e-12);
  EXPECT_DOUBLE_EQ(x.t.ep_comm_exposed_s, x.t.ep_comm_s);  // nothing overlaps it by default
  EXPECT_NEAR(x.t.step_s,
              x.t.forward_s + x.t.backward_s + x.t.recompute_s + x.t.pp_bubble_s + x.t.tp_comm_s +
                  x.t.dp_comm_exposed_s + x.t.ep_comm_exposed_s + x.t.optimizer_s,
              1e-12);
}

// Two nodes of 4 H100s: NVLink inside (450 GB/s one way), 800 Gbit/s of network per node.
Cluster two_nodes_of_four() {
  Cluster c;
  c.gpu = &h100();
  c.gpus_per_node = 4;
  c.nodes = 2;
  c.intra_node_busbw_bytes_per_s = 450e9;
  c.inter_node_bytes_per_s = 100e9;
  c.link = "nvswitch";
  return c;
}

TEST(ExpertParallel, AllToAllAcrossNodesSendsTheRemoteHalfOverTheNetwork) {
  // ep 8 over two 4-GPU nodes: of each GPU's send, 3/8 goes to its 3 node peers over NVLink and
  // 4/8 over the network at once, the network's share per GPU a quarter of the node's.
  const Efficiencies& eff = test::catalog().efficiencies;
  const double intra = 450e9 * eff.nvlink, network = 100e9 * eff.network / 4;
  const double latency = eff.nccl_ring.base_s + eff.nccl_ring.network_hop_s;
  const double bytes = 67'108'864.0;
  gpuplan::Setup s = mixtral_setup(8, 8);
  s.moe_imbalance = 1;
  const Timed x = timed(s, two_nodes_of_four());
  EXPECT_NEAR(x.t.ep_comm_s,
              4 * 32 * (std::max(bytes * 3 / 8 / intra, bytes * 4 / 8 / network) + latency), 1e-12);
  // ep 4 fits one node: nothing crosses the network.
  s.ep = 4;
  const Timed local = timed(s, two_nodes_of_four());
  const double one = bytes * 3 / 4 / intra + eff.nccl_ring.base_s + eff.nccl_ring.nvlink_hop_s;
  EXPECT_NEAR(local.t.ep_comm_s, 4 * 32 * one, 1e-12);
}

TEST(ExpertParallel, DeepEpCrossesTheNetworkOncePerRemoteNode) {
  // The same ep 8 over two nodes: a token's 2 experts both miss the other node with
  // probability (1/2)^2, so DeepEP sends it there 3/4 of the time, 3/8 of the all-to-all's bytes
  // where NCCL's all-to-all sends 4/8; it forwards 3/4 of what lands over NVLink.
  const Efficiencies& eff = test::catalog().efficiencies;
  const double network = 100e9 * eff.network / 4, intra = 450e9 * eff.nvlink;
  const double latency = eff.nccl_ring.base_s + eff.nccl_ring.network_hop_s;
  const double bytes = 67'108'864.0;
  gpuplan::Setup s = mixtral_setup(8, 8);
  s.moe_imbalance = 1;
  s.moe_dispatcher = MoeDispatcher::deepep;
  const Timed x = timed(s, two_nodes_of_four());
  const double nvlink = bytes * 3 / 8 + bytes * 4 / 8 * 3 / 4;
  EXPECT_NEAR(x.t.ep_comm_s, 4 * 32 * (std::max(nvlink / intra, bytes * 3 / 8 / network) + latency),
              1e-12);
}

// Megatron's EP overlap runs a layer's forward of one micro-batch beside a layer's backward of
// the previous one: each dispatch and combine under the other's attention or experts. On one
// NVLink node the all-to-alls are short beside the kernels, so only the first forward's and the
// last backward's, which have no partner, stay exposed.
TEST(ExpertParallel, OneFOneBOverlapHidesTheAllToAllUnderTheOtherMicroBatch) {
  gpuplan::Setup s = mixtral_setup(8, 8);
  s.global_batch = 64;  // 8 micro-batches per replica
  const Cluster c = single_node_cluster(h100(), 8).value();
  const Timed plain = timed(s, c);
  s.moe_a2a_overlap = true;
  const Timed overlapped = timed(s, c);
  const double m = 8, comm = plain.t.ep_comm_s / m;
  EXPECT_DOUBLE_EQ(overlapped.t.ep_comm_s, plain.t.ep_comm_s);
  EXPECT_NEAR(overlapped.t.ep_comm_exposed_s, comm, 1e-9 * comm);
  EXPECT_LT(overlapped.t.step_s, plain.t.step_s);
}

// On Blackwell the 1F1B overlap hides nothing: Megatron-LM found its benefit negative on GB200 (its
// stage synchronisation adds to the host's overhead). The step is the plain schedule's, all of
// the all-to-all exposed, and the estimate says why.
TEST(ExpertParallel, OneFOneBOverlapHidesNothingOnBlackwell) {
  gpuplan::Setup s = mixtral_setup(8, 8);
  s.global_batch = 64;
  const Cluster c = single_node_cluster(*test::catalog().find_gpu("gb200"), 8).value();
  const Timed plain = timed(s, c);
  s.moe_a2a_overlap = true;
  const Timed overlapped = timed(s, c);
  ASSERT_GT(plain.t.ep_comm_s, 0);
  EXPECT_DOUBLE_EQ(overlapped.t.ep_comm_exposed_s, plain.t.ep_comm_s);
  EXPECT_DOUBLE_EQ(overlapped.t.step_s, plain.t.step_s);
  const auto& notes = overlapped.t.notes;
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("on gb200 it hides none of the all-to-all") != std::string::npos;
  }));
}

// DeepEP's kernels hold 20 of the H100's 132 SMs while they run, HybridEP's 32 (Megatron's
// model-zoo scripts): the kernels beside each of a layer's four all-to-alls of a seconds run on
// the rest and finish a x 20/132 (a x 32/132) later.
TEST(ExpertParallel, DeepEpOverlapSlowsTheKernelsBesideIt) {
  for (const auto& [dispatcher, sms] :
       {std::pair{MoeDispatcher::deepep, 20.0}, std::pair{MoeDispatcher::hybridep, 32.0}}) {
    gpuplan::Setup s = mixtral_setup(8, 8);
    s.global_batch = 64;
    s.moe_dispatcher = dispatcher;
    s.moe_a2a_overlap = true;
    const Timed x = timed(s, single_node_cluster(h100(), 8).value());
    const double m = 8, comm = x.t.ep_comm_s / m;
    EXPECT_NEAR(x.t.ep_comm_exposed_s, comm + (m - 1) * comm * sms / 132, 1e-9 * comm)
        << moe_dispatcher_name(dispatcher);
  }
}

// HybridEP routes as DeepEP does: the same bytes over the same links.
TEST(ExpertParallel, HybridEpRoutesAsDeepEp) {
  gpuplan::Setup s = mixtral_setup(8, 8);
  s.moe_imbalance = 1;
  s.moe_dispatcher = MoeDispatcher::deepep;
  const Timed deepep = timed(s, two_nodes_of_four());
  s.moe_dispatcher = MoeDispatcher::hybridep;
  EXPECT_DOUBLE_EQ(timed(s, two_nodes_of_four()).t.ep_comm_s, deepep.t.ep_comm_s);
}

// With pipeline stages, the warm-up's forwards have no backward beside them, nor the cool-down's
// backwards a forward: Megatron's interleaved schedule warms up the first stage with
// 2 (pp - 1) + (vp - 1) pp model chunks, here 4 chunks of 2, two micro-batches.
TEST(ExpertParallel, PipelineWarmUpLeavesItsAllToAllsExposed) {
  gpuplan::Setup s = mixtral_setup(4, 4);
  s.pp = 2;
  s.vp = 2;
  s.global_batch = 64;  // 16 micro-batches per replica
  s.moe_a2a_overlap = true;
  const Timed x = timed(s, single_node_cluster(h100(), 8).value());
  const double m = 16, comm = x.t.ep_comm_s / m;
  EXPECT_NEAR(x.t.ep_comm_exposed_s, 2 * comm, 1e-9 * comm);
}

// Across nodes over a slow network the all-to-alls outlast the kernels beside them: the overlap
// hides at most the other micro-batch's kernels, and never more than there is to hide.
TEST(ExpertParallel, OverlapHidesNoMoreThanTheKernelsBesideIt) {
  gpuplan::Setup s = mixtral_setup(8, 8);
  s.global_batch = 64;
  Cluster c = two_nodes_of_four();
  c.inter_node_bytes_per_s = 12.5e9;  // 100 Gb/s per node
  const Timed plain = timed(s, c);
  s.moe_a2a_overlap = true;
  const Timed x = timed(s, c);
  const double m = 8, comm = plain.t.ep_comm_s / m;
  const double kernels = (plain.t.forward_s + plain.t.backward_s) / m;
  ASSERT_GT(comm, kernels);  // the case this test is about
  EXPECT_LT(x.t.ep_comm_exposed_s, plain.t.ep_comm_exposed_s);
  EXPECT_GE(x.t.ep_comm_exposed_s, comm + (m - 1) * (comm - kernels) - 1e-9 * comm);
}

// Hopper's and Blackwell's matmuls run one persistent block per SM: a dispatch or combine waits
// for a matmul's SMs, and a matmul beside one finishes only after it. Hand-timed layers of
// all-to-alls of 1 s: compute that is all matmuls runs after the communication, never beside it;
// compute with no matmuls is unaffected; a layer's other kernels still hide what they can.
TEST(ExpertParallel, PersistentMatmulsDoNotShareTheGpuWithTheAllToAll) {
  using training::MergedLayer;
  MergedLayer all_gemm;
  all_gemm.a2a_s = 1;
  all_gemm.attn_fwd = {3, 3};
  all_gemm.mlp_fwd = {2, 2};
  all_gemm.attn_bwd = {6, 6};
  all_gemm.mlp_bwd = {4, 4};
  all_gemm.exclusive_gemms = true;
  // Serialised: four all-to-alls and the 15 s of kernels, per layer.
  EXPECT_NEAR(training::merged_layers_s(all_gemm, 1), 4 + 15, 1e-12);
  EXPECT_NEAR(training::merged_layers_s(all_gemm, 3), 3 * (4 + 15), 1e-12);
  // Shared (Ampere's kernels, or none of them matmuls): every all-to-all finds the other
  // micro-batch's kernels beside it (combine_bwd beside attn_fwd, dispatch_fwd beside dgrad,
  // dispatch_bwd beside wgrad, combine_fwd beside attn_bwd): 15 s a layer.
  MergedLayer shared = all_gemm;
  shared.exclusive_gemms = false;
  EXPECT_NEAR(training::merged_layers_s(shared, 3), 3 * 15, 1e-12);
  MergedLayer no_gemm = all_gemm;
  for (auto* c : {&no_gemm.attn_fwd, &no_gemm.mlp_fwd, &no_gemm.attn_bwd, &no_gemm.mlp_bwd})
    c->gemm_s = 0;
  EXPECT_NEAR(training::merged_layers_s(no_gemm, 3), 3 * 15, 1e-12);
  // Each node's first 0.5 s other kernels, the rest matmuls: each all-to-all hides 0.5 s under
  // them and holds the matmuls after them back 0.5 s, 2 s a layer.
  MergedLayer mixed = all_gemm;
  for (auto* c : {&mixed.attn_fwd, &mixed.mlp_fwd, &mixed.attn_bwd}) c->gemm_s = c->work_s - 0.5;
  mixed.mlp_bwd.gemm_s = mixed.mlp_bwd.work_s - 1;  // dgrad and wgrad, 0.5 s of other each
  EXPECT_NEAR(training::merged_layers_s(mixed, 3), 3 * (15 + 2), 1e-12);
}

}  // namespace
}  // namespace gpuplan
