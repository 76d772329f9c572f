// Pipeline and context-parallel schedules, tensor-parallel overlap and causal attention, against
// figures derived by hand from the papers and the frameworks' code (each test says how).
#include <gtest/gtest.h>

#include "gpuplan/estimate.h"
#include "gpuplan/timing.h"
#include "test_util.h"

namespace gpuplan {
namespace {

const Efficiencies& eff() {
  return test::catalog().efficiencies;
}
const Gpu& h100() {
  const Gpu* g = test::catalog().find_gpu("h100-sxm5-80gb");
  EXPECT_NE(g, nullptr);
  static const Gpu none;
  return g ? *g : none;
}

// Llama-2-7B (32 layers, hidden 4096, 32 heads, vocab 32000) in mixed bf16 with flash attention.
gpuplan::Setup llama_setup() {
  gpuplan::Setup s;
  s.precision = Precision::mixed_bf16;
  s.attention = Attention::flash;
  s.seq_len = 4096;
  s.micro_batch = 1;
  return s;
}

struct Timed {
  Estimate e;
  WorkProfile w;
  StepTime t;
};

Timed run(const gpuplan::Setup& s, const Cluster& c, const Efficiencies& with = eff()) {
  const Model& m = test::model("llama-2-7b");
  Timed r;
  auto e = estimate(m, s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  if (!e.ok()) return r;
  r.e = e.value();
  auto w = build_work_profile(m, s, r.e);
  EXPECT_TRUE(w.ok());
  if (!w.ok()) return r;
  r.w = w.value();
  auto t = estimate_step_time(m, s, r.e, r.w, c, with);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  if (t.ok()) r.t = t.value();
  return r;
}

Cluster box(int gpus) {
  auto c = single_node_cluster(h100(), gpus);
  EXPECT_TRUE(c.ok());
  return c.ok() ? c.value() : Cluster{};
}

// NVLink's all-reduce bus bandwidth on an H100 node: 450 GB/s per direction x efficiency.
double nvlink_bw() {
  return h100().nvlink_bandwidth_bytes_per_s / 2 * eff().nvlink;
}
// One NCCL send inside a node: the ring base latency plus one NVLink hop (8.4 + 3.4 us).
double nvlink_send_latency() {
  return eff().nccl_ring.base_s + eff().nccl_ring.nvlink_hop_s;
}

TEST(Pipeline, InterleavingDividesTheBubbleByTheVirtualStages) {
  // pp 4 on 4 GPUs, 8 micro-batches: the 1F1B bubble is (p - 1) / m = 3/8 of the stage's compute;
  // with 2 virtual stages per rank (p - 1) / (v m) = 3/16 (Narayanan et al. 2021, sec. 2.2.2).
  gpuplan::Setup s = llama_setup();
  s.pp = 4;
  s.global_batch = 8;
  const Timed plain = run(s, box(4));
  s.vp = 2;
  const Timed interleaved = run(s, box(4));
  for (const Timed* r : {&plain, &interleaved}) {
    EXPECT_EQ(r->e.grad_accum_steps, 8);
  }
  const auto compute = [](const StepTime& t) { return t.forward_s + t.backward_s + t.recompute_s; };
  EXPECT_NEAR(plain.t.pp_bubble_s, 3.0 / 8 * compute(plain.t), 1e-12);
  EXPECT_NEAR(interleaved.t.pp_bubble_s, 3.0 / 16 * compute(interleaved.t), 1e-12);
  EXPECT_NEAR(compute(plain.t), compute(interleaved.t), 1e-12);
}

TEST(Pipeline, SendsActivationsBetweenStagesAndInterleavingSendsVTimesMore) {
  // Each boundary sends one micro-batch's hidden state, 4096 tokens x 4096 x 2 bytes, forward and
  // its gradient back. Plain 1F1B waits for each: 2 (m + p - 1) sends on the critical path. The
  // interleaved schedule sends 2 v m in all and, behind compute, waits only while filling and
  // draining: 2 (p - 1).
  gpuplan::Setup s = llama_setup();
  s.pp = 4;
  s.global_batch = 8;
  const double send = 4096.0 * 4096 * 2 / nvlink_bw() + nvlink_send_latency();
  const Timed plain = run(s, box(4));
  EXPECT_NEAR(plain.t.pp_p2p_s, 2 * (8 + 4 - 1) * send, 1e-12);
  EXPECT_NEAR(plain.t.pp_p2p_total_s, 2 * 8 * send, 1e-12);
  s.vp = 4;
  const Timed interleaved = run(s, box(4));
  EXPECT_NEAR(interleaved.t.pp_p2p_total_s, 2 * 4 * 8 * send, 1e-12);
  EXPECT_NEAR(interleaved.t.pp_p2p_s, 2 * (4 - 1) * send, 1e-12);
  // Sequence parallelism sends s / tp tokens per GPU.
  s.vp = 1;
  s.tp = 2;
  s.sequence_parallel = true;
  const Timed sp = run(s, box(8));
  const double half = 4096.0 * 4096 * 2 / 2 / nvlink_bw() + nvlink_send_latency();
  EXPECT_NEAR(sp.t.pp_p2p_s, 2 * (8 + 4 - 1) * half, 1e-12);
}

TEST(Pipeline, InterleavingKeepsMoreMicroBatchesInFlight) {
  // The first stage of pp 4 keeps 4 micro-batches of its 8 layers in flight under 1F1B; with v
  // virtual stages its warm-up holds p (1 + (p - 1) / (p v)) stages' worth (Korthikanti et al.
  // 2022, sec. 4.2.3): 4 x (1 + 3/8) = 5.5 at v 2, 4 x (1 + 3/16) = 4.75 at v 4. The output
  // head's terms do not change, so the block terms grow by 1.5/4 and 0.75/4.
  gpuplan::Setup s = llama_setup();
  s.pp = 4;
  s.global_batch = 8;
  auto act = [&](int v) {
    s.vp = v;
    auto e = estimate(test::model("llama-2-7b"), s);
    EXPECT_TRUE(e.ok());
    return e.ok() ? e.value().memory.activations : 0.0;
  };
  const double a1 = act(1), a2 = act(2), a4 = act(4);
  ASSERT_GT(a2, a1);
  EXPECT_NEAR((a2 - a1) / (a4 - a1), 1.5 / 0.75, 1e-9);
  // The head: final-norm input and head input (2 + 2 bytes x 4096 x 4096), 16-bit logits and the
  // fp32 log-softmax (2 + 4 bytes x 4096 x 32000).
  const double head = 4.0 * 4096 * 4096 + 6.0 * 4096 * 32000;
  EXPECT_NEAR((a2 - a1) / (a1 - head), 1.5 / 4, 1e-9);
}

TEST(Pipeline, MegatronsInterleavingConstraintsNameTheKey) {
  gpuplan::Setup s = llama_setup();
  s.pp = 4;
  s.vp = 2;
  s.global_batch = 6;  // 6 micro-batches: not a multiple of pp 4
  auto e = estimate(test::model("llama-2-7b"), s);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("--vp 2"), std::string::npos) << e.error().message;
  EXPECT_NE(e.error().message.find("multiple of --pp 4"), std::string::npos);
  s.global_batch = 8;
  s.vp = 9;  // 36 virtual stages for 32 layers: two would be empty beside embedding and loss
  e = estimate(test::model("llama-2-7b"), s);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("cannot fill --pp x --vp = 36"), std::string::npos)
      << e.error().message;
  s.pp = 2;
  s.vp = 17;  // 34 stages: 32 of a layer each, the embedding's and the loss's
  EXPECT_TRUE(estimate(test::model("llama-2-7b"), s).ok());
  s.pp = 1;
  s.vp = 2;
  e = estimate(test::model("llama-2-7b"), s);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("--vp 2 needs --pp 2 or more"), std::string::npos);
}

TEST(Pipeline, LayersThatDoNotSplitEvenlyOverVirtualStagesAreLaidOutByHand) {
  // 32 layers over pp 4 x vp 3 = 12 virtual stages: Megatron runs it with a hand layout
  // (--pipeline-model-parallel-layout, 3 + 3 + 2 layers per rank); the busiest rank holds
  // ceil(32 / 4) = 8 layers either way, so the activations match the even vp 2 split's.
  gpuplan::Setup s = llama_setup();
  s.pp = 4;
  s.global_batch = 8;
  s.vp = 2;
  auto even = estimate(test::model("llama-2-7b"), s);
  ASSERT_TRUE(even.ok()) << even.error().message;
  s.vp = 3;
  auto uneven = estimate(test::model("llama-2-7b"), s);
  ASSERT_TRUE(uneven.ok()) << uneven.error().message;
  EXPECT_DOUBLE_EQ(uneven.value().memory.weights, even.value().memory.weights);
  // More virtual stages hold fewer micro-batches' activations in flight: p (1 + (p - 1) / (p v)).
  EXPECT_LT(uneven.value().memory.activations, even.value().memory.activations);
}

TEST(Pipeline, RanksHoldTheLayersAsMegatronLaysThemOut) {
  // Even: Llama-3-70B's 80 layers over pp 4 x vp 5, 20 a rank (the embedding and head beside).
  EXPECT_EQ(pipeline_stage_layers(80, 4, 5), (std::vector<double>{20, 20, 20, 20}));
  // Qwen3-235B's 94 layers with the embedding and the loss counted as layers (its Megatron
  // recipe's --account-for-*-in-pipeline-split): 96 items, 12 a rank, the first and last rank
  // one layer fewer; pp 32 x vp 3: 3 items a rank.
  std::vector<double> qwen(8, 12.0);
  qwen.front() = qwen.back() = 11;
  EXPECT_EQ(pipeline_stage_layers(94, 8, 4), qwen);
  std::vector<double> deep(32, 3.0);
  deep.front() = deep.back() = 2;
  EXPECT_EQ(pipeline_stage_layers(94, 32, 3), deep);
  // DeepSeek-V3's 61 layers as "Et|(tt|)*30L" over pp 8 x vp 4: rank 0 holds stages 0, 8, 16, 24
  // (1 + 2 + 2 + 2 layers), rank 7 stages 7, 15, 23, 31 (2 + 2 + 2 + the loss alone).
  EXPECT_EQ(pipeline_stage_layers(61, 8, 4), (std::vector<double>{7, 8, 8, 8, 8, 8, 8, 6}));
}

TEST(Pipeline, TheSlowestStageSetsThePaceOfAnUnevenSplit) {
  // Llama-2-7B's 32 layers over pp 4 (8 a rank) in mixed bf16: the last rank also runs the output
  // head over 32,000 words, the first the embedding; every rank waits for the slowest each
  // micro-batch, so the step adds its work beyond the even split, 8 micro-batches over.
  gpuplan::Setup s = llama_setup();
  s.pp = 4;
  s.global_batch = 8;
  const Timed r = run(s, box(4));
  auto pass = pass_time_s(test::model("llama-2-7b"), s, r.w, h100(), eff(), 1);
  ASSERT_TRUE(pass.ok());
  const PassTime& p = pass.value();
  ASSERT_GT(p.head_s, p.embedding_s);
  const double layer = (p.forward_s + p.backward_s - p.head_s - p.embedding_s) / 32;
  const double even = (32 * layer + p.head_s + p.embedding_s) / 4;
  EXPECT_NEAR(r.t.pp_imbalance_s, 8 * (8 * layer + p.head_s - even), 1e-12);
  EXPECT_NEAR(r.t.step_s,
              r.t.forward_s + r.t.backward_s + r.t.recompute_s + r.t.pp_bubble_s + r.t.pp_p2p_s +
                  r.t.pp_imbalance_s + r.t.tp_comm_s + r.t.dp_comm_exposed_s + r.t.optimizer_s,
              1e-12);
  // Without pipeline stages there is nothing to balance.
  s.pp = 1;
  EXPECT_EQ(run(s, box(1)).t.pp_imbalance_s, 0);
}

TEST(ContextParallel, RingPassesKeyValueChunksAroundAndBackwardDoublesThem) {
  // cp 4 on one 8-GPU node (dp 2), seq 8192: each GPU holds 2048 tokens; its K and V chunk is
  // 2 x 2048 x 4096 x 2 bytes. The ring takes cp - 1 = 3 steps per layer forward, and backward
  // passes K, V and their gradients: twice. Per step, one send (bytes / NVLink + latency).
  gpuplan::Setup s = llama_setup();
  s.seq_len = 8192;
  s.cp = 4;
  s.dp = 2;
  s.global_batch = 2;
  const Timed r = run(s, box(8));
  const double step = 2.0 * 2048 * 4096 * 2 / nvlink_bw() + nvlink_send_latency();
  EXPECT_NEAR(r.t.cp_comm_s, 32 * (3 * step + 2 * 3 * step), 1e-12);
  // A step hides behind attention on the chunk at hand: at 8k tokens it does.
  EXPECT_LT(r.t.cp_comm_exposed_s, r.t.cp_comm_s);
  // Work and activations split four ways: each GPU computes a quarter of the tokens.
  gpuplan::Setup one = llama_setup();
  one.seq_len = 8192;
  one.dp = 2;
  one.global_batch = 2;
  const Timed whole = run(one, box(2));
  // (Kernel launch gaps do not shrink with the tokens: a little over a quarter.)
  EXPECT_GT(r.t.forward_s / whole.t.forward_s, 0.25);
  EXPECT_LT(r.t.forward_s / whole.t.forward_s, 0.30);
  EXPECT_EQ(r.e.num_gpus, 8);
}

TEST(ContextParallel, AllToAllSwapsSequenceForHeadShardsUnhidden) {
  // Ulysses on cp 4: per layer forward, Q, K, V (3 x 2048 x 4096 x 2 bytes) and the output
  // (2048 x 4096 x 2) are exchanged, each GPU sending 3/4 of them; backward mirrors it. Four
  // all-to-alls per pass pay a send latency each. None of it is hidden.
  gpuplan::Setup s = llama_setup();
  s.seq_len = 8192;
  s.cp = 4;
  s.cp_comm = ContextComm::all_to_all;
  s.dp = 2;
  s.global_batch = 2;
  const Timed r = run(s, box(8));
  const double pass = 4.0 * 2048 * 4096 * 2 * 3 / 4 / nvlink_bw() + 4 * nvlink_send_latency();
  EXPECT_NEAR(r.t.cp_comm_s, 32 * 2 * pass, 1e-12);
  EXPECT_DOUBLE_EQ(r.t.cp_comm_exposed_s, r.t.cp_comm_s);
}

TEST(ContextParallel, ConstraintsNameTheKey) {
  gpuplan::Setup s = llama_setup();
  s.seq_len = 4100;  // not a multiple of 2 x cp = 8
  s.cp = 4;
  auto e = estimate(test::model("llama-2-7b"), s);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("2 x cp = 8"), std::string::npos) << e.error().message;
  s.seq_len = 4098;  // 6 chunks of 683
  s.cp = 3;
  s.cp_comm = ContextComm::all_to_all;  // 32 heads do not split over 3
  e = estimate(test::model("llama-2-7b"), s);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("--cp-comm all-to-all"), std::string::npos);
  s.seq_len = 4096;
  s.cp = 2;
  s.cp_comm = ContextComm::ring;
  s.attention = Attention::eager;
  e = estimate(test::model("llama-2-7b"), s);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("--cp needs a fused attention kernel"), std::string::npos);
}

TEST(TensorParallel, UserbufferOverlapLeavesTheLastPipelinedChunkExposed) {
  // tp 8 with sequence parallelism: per layer and pass, two all-gathers and two reduce-scatters
  // of 4096 x 4096 x 2 bytes, each 7/8 of it over NVLink (a). Without overlap all of it waits.
  // With Transformer Engine's defaults the all-gathers ring behind their GEMMs (hidden when the
  // GEMM is longer), each reduce-scatter leaves its last of 4 chunks (a / 4) and slows its GEMM
  // by the 16 SMs it holds; backward's bulk overlaps hide the rest.
  gpuplan::Setup s = llama_setup();
  s.tp = 8;
  s.sequence_parallel = true;
  s.global_batch = 1;
  const Timed plain = run(s, box(8));
  const double a = 7.0 / 8 * 4096 * 4096 * 2 / nvlink_bw();
  EXPECT_NEAR(plain.t.tp_comm_total_s, 32 * 8 * a, 1e-12);
  EXPECT_DOUBLE_EQ(plain.t.tp_comm_s, plain.t.tp_comm_total_s);
  s.tp_comm_overlap = true;
  const Timed overlapped = run(s, box(8));
  EXPECT_DOUBLE_EQ(overlapped.t.tp_comm_total_s, plain.t.tp_comm_total_s);
  auto pass = pass_time_s(test::model("llama-2-7b"), s, overlapped.w, h100(), eff(), 1);
  ASSERT_TRUE(pass.ok());
  const PassTime::Split f = pass.value().forward_parts, b = pass.value().backward_parts;
  const double sms = h100().sm_count, margin = 16 / (sms - 16);
  auto ring = [&](double g) { return std::max(0.0, a - g / 32 * 7 / 8); };
  auto pipe = [&](double g) {
    return a / 4 + std::max(0.0, (a - g / 32) * 3 / 4) + g / 32 * margin;
  };
  auto bulk = [&](double g) { return 2 * std::max(0.0, a - g / 64) + g / 32 * margin; };
  const double per_layer = ring(f.qkv) + pipe(f.out) + ring(f.mlp_in) + pipe(f.mlp_out) +
                           ring(b.out) + ring(b.mlp_out) + bulk(b.qkv) + bulk(b.mlp_in);
  EXPECT_NEAR(overlapped.t.tp_comm_s, 32 * per_layer, 1e-12);
  EXPECT_LT(overlapped.t.tp_comm_s, plain.t.tp_comm_s);
  EXPECT_GE(overlapped.t.tp_comm_s, 32 * 2 * a / 4);
  // It needs sequence parallelism, as Megatron asserts.
  s.sequence_parallel = false;
  auto e = estimate(test::model("llama-2-7b"), s);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("--tp-comm-overlap needs sequence parallelism"),
            std::string::npos);
}

TEST(SequenceParallel, ShardsElementwiseWorkInTime) {
  // Norms, residual adds and dropouts run on s / tp tokens per GPU: the elementwise class moves
  // 1/tp of the bytes it moves without sequence parallelism; rotary embedding (per head, already
  // split by tp) is the rest.
  gpuplan::Setup s = llama_setup();
  s.tp = 4;
  s.global_batch = 1;
  const Model& m = test::model("llama-2-7b");
  auto bytes = [&](bool sp) {
    s.sequence_parallel = sp;
    auto e = estimate(m, s);
    auto w = build_work_profile(m, s, e.value());
    for (const auto& op : w.value().ops)
      if (op.name == "elementwise") return op.bytes_per_sample;
    return 0.0;
  };
  // Per layer, bf16 (residual and activation 2 bytes): norms 2 x 4 x t h, adds 2 x 3 x 2 x t h;
  // rotary 2 x 2 x t x (q + kv) / tp. No dropout.
  const double t = 4096, h = 4096;
  const double rotary = 32 * 2 * 2 * t * (2 * h) / 4;
  const double rest = 32 * (2 * 4 * t * h + 12 * t * h);
  EXPECT_NEAR(bytes(false), rest + rotary, 1);
  EXPECT_NEAR(bytes(true), rest / 4 + rotary, 1);
}

TEST(CausalAttention, CountsHalfTheScoresForTimeMfuAndFlops) {
  // Llama-2-7B at 4096 tokens: Q K^T and P V over all pairs are 32 x 4 x 4096^2 x 4096 FLOPs per
  // sample; a causal LM computes half of them (FlashAttention's benchmark count), and the flash
  // kernel is timed on that half.
  gpuplan::Setup s = llama_setup();
  auto e = estimate(test::model("llama-2-7b"), s);
  ASSERT_TRUE(e.ok());
  const double full = 32 * 4 * 4096.0 * 4096 * 4096;
  EXPECT_NEAR(e.value().flops.forward_attention_unmasked_per_sample, full, 1);
  EXPECT_NEAR(e.value().flops.forward_attention_per_sample, full / 2, 1);
  auto w = build_work_profile(test::model("llama-2-7b"), s, e.value());
  ASSERT_TRUE(w.ok());
  for (const auto& op : w.value().ops) {
    if (op.name == "attention.core") {
      EXPECT_NEAR(op.flops_per_sample, full / 2, 1);
      EXPECT_TRUE(op.causal);  // runs at the kernel's causal share of peak
    }
  }
  // Eager attention computes every score and masks after: its kernels do the whole square.
  s.attention = Attention::eager;
  e = estimate(test::model("llama-2-7b"), s);
  w = build_work_profile(test::model("llama-2-7b"), s, e.value());
  for (const auto& op : w.value().ops) {
    if (op.name == "attention.core") {
      EXPECT_NEAR(op.flops_per_sample, full, 1);
    }
  }
  EXPECT_NEAR(e.value().flops.forward_attention_per_sample, full / 2, 1);
  // A bidirectional encoder keeps the whole square.
  gpuplan::Setup b;
  b.seq_len = 512;
  auto bert = estimate(test::model("bert-large"), b);
  ASSERT_TRUE(bert.ok());
  EXPECT_DOUBLE_EQ(bert.value().flops.forward_attention_per_sample,
                   bert.value().flops.forward_attention_unmasked_per_sample);
}

TEST(AttentionKernels, EachRunsAtItsOwnShareOfPeakOrFlashAttention2s) {
  // On Hopper cuDNN and FlashAttention-3 have figures of their own; on Ampere neither does, and
  // both run at FlashAttention-2's (what Transformer Engine falls back to there).
  const Efficiencies& e = eff();
  ASSERT_TRUE(e.cudnn_attention.count("Hopper"));
  ASSERT_TRUE(e.flash3_attention.count("Hopper"));
  EXPECT_EQ(e.cudnn_attention.count("Ampere"), 0u);
  WorkProfile w;
  OpClass op;
  op.kind = WorkKind::attention;
  op.flops_per_sample = 1e15;
  op.backward_flops_ratio = 2.5;
  w.ops.push_back(op);
  gpuplan::Setup s = llama_setup();
  for (Attention k : {Attention::flash, Attention::flash3, Attention::cudnn}) {
    s.attention = k;
    auto t = pass_time_s(test::model("llama-2-7b"), s, w, h100(), e, 1);
    ASSERT_TRUE(t.ok());
    const AttentionEfficiency a = k == Attention::cudnn    ? e.cudnn_attention.at("Hopper")
                                  : k == Attention::flash3 ? e.flash3_attention.at("Hopper")
                                                           : e.flash_attention.at("Hopper");
    EXPECT_NEAR(t.value().forward_s, 1e15 / (989e12 * a.forward), 1e-9);
    EXPECT_NEAR(t.value().backward_s, 2.5e15 / (989e12 * a.backward), 1e-9);
  }
  const Gpu* a100 = test::catalog().find_gpu("a100-sxm4-80gb");
  ASSERT_NE(a100, nullptr);
  s.attention = Attention::cudnn;
  auto t = pass_time_s(test::model("llama-2-7b"), s, w, *a100, e, 1);
  ASSERT_TRUE(t.ok());
  EXPECT_NEAR(t.value().forward_s, 1e15 / (312e12 * e.flash_attention.at("Ampere").forward), 1e-9);
}

TEST(DataParallel, DistributedOptimizerReduceScattersAndGathersWithOrWithoutOverlap) {
  // ZeRO-1 on 8 GPUs: fp32 gradients reduce-scattered (7/8 x 4 bytes x N / busbw) and bf16
  // parameters all-gathered (7/8 x 2 bytes x N). Without overlap both wait in full.
  gpuplan::Setup s = llama_setup();
  s.dp = 8;
  s.zero_stage = 1;
  s.global_batch = 16;
  s.overlap_grad_reduce = false;
  const Timed r = run(s, box(8));
  const double n = static_cast<double>(r.e.params.trainable);
  const double reduce = 7.0 / 8 * n * 4 / nvlink_bw(), gather = 7.0 / 8 * n * 2 / nvlink_bw();
  EXPECT_NEAR(r.t.dp_comm_s, reduce + gather, 1e-9);
  EXPECT_NEAR(r.t.dp_comm_exposed_s, reduce + gather, 1e-9);
  // Overlapped: what backward and the next forward do not cover, at least the last bucket each.
  s.overlap_grad_reduce = true;
  s.overlap_param_gather = true;
  const Timed o = run(s, box(8));
  EXPECT_LT(o.t.dp_comm_exposed_s, 0.5 * r.t.dp_comm_exposed_s);
}

TEST(Scale, ClustersReachOneHundredThousandGpus) {
  // 100,000 GPUs: in one count, or as 12,500 nodes of 8; one more is refused with the bound.
  EXPECT_TRUE(single_node_cluster(h100(), kMaxClusterGpus).ok());
  auto over = single_node_cluster(h100(), kMaxClusterGpus + 1);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().message.find("100000"), std::string::npos);
  const Instance* p5 = test::catalog().find_instance("aws-p5.48xlarge");
  ASSERT_NE(p5, nullptr);
  auto c = instance_cluster(*p5, h100(), 12'500);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(instance_cluster(*p5, h100(), 12'501).ok());
  // A data-parallel step over all of them is timed.
  gpuplan::Setup s = llama_setup();
  s.tp = 8;
  s.sequence_parallel = true;
  s.pp = 4;
  s.dp = 3125;
  s.zero_stage = 1;
  s.global_batch = 4 * 3125;
  const Timed r = run(s, c.value());
  EXPECT_EQ(r.e.num_gpus, 100'000);
  EXPECT_GT(r.t.step_s, 0);
  EXPECT_GT(r.t.dp_comm_s, 0);
}

}  // namespace
}  // namespace gpuplan
