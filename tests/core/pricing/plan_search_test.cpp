// The planner's search in slices (what the page runs a frame at a time), its GPU filter, the
// degrees a user fixes (--tp, --pp) and the layouts a launcher can express (plan --emit).
#include <gtest/gtest.h>

#include "gpuplan/launch_config.h"
#include "gpuplan/plan.h"
#include "test_util.h"

namespace gpuplan {
namespace {

PlanQuery query(const std::string& model, Precision precision, int64_t batch, double tokens) {
  PlanQuery q;
  q.request.model = model;
  q.request.setup.precision = precision;
  q.request.setup.global_batch = batch;
  q.run.tokens = tokens;
  q.efficiencies = test::catalog().efficiencies;
  return q;
}

// A search where tensor and pipeline parallelism win: LLaMA-2-70B does not fit one 80 GB GPU's
// share under data parallelism alone at this batch, so the cheapest plans split the model.
PlanQuery split_model_query() {
  PlanQuery q = query("llama-2-70b", Precision::bf16, 64, 1e10);
  q.request.setup.seq_len = 4096;
  q.max_nodes = 4;
  return q;
}

void expect_same_plans(const std::vector<Plan>& a, const std::vector<Plan>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].instance, b[i].instance) << i;
    EXPECT_EQ(a[i].nodes, b[i].nodes) << i;
    EXPECT_EQ(a[i].setup.tp, b[i].setup.tp) << i;
    EXPECT_EQ(a[i].setup.pp, b[i].setup.pp) << i;
    EXPECT_EQ(a[i].setup.micro_batch, b[i].setup.micro_batch) << i;
    EXPECT_EQ(a[i].cost.usd_total, b[i].cost.usd_total) << i;
    EXPECT_EQ(a[i].pareto, b[i].pareto) << i;
  }
}

TEST(PlanSearch, SlicesGiveWhatPlanGivesOneInstanceTypePerSlice) {
  const PlanQuery q = query("gpt2-medium", Precision::amp_bf16, 64, 5e9);
  const Model& m = test::model("gpt2-medium");
  auto whole = plan(test::catalog(), m, q);
  ASSERT_TRUE(whole.ok()) << whole.error().message;

  auto search = start_plan_search(test::catalog(), m, q);
  ASSERT_TRUE(search.ok()) << search.error().message;
  PlanSearch& s = search.value();
  // Every priced instance type of the catalog passes this query's filters (no provider, region,
  // compliance or memory filter; amp-bf16 needs a bf16 peak, which some older GPUs lack).
  ASSERT_GT(s.pending.size(), 10u);
  ASSERT_LE(s.pending.size(), test::catalog().instances.size());
  EXPECT_EQ(s.progress(), 0.0);
  size_t slices = 0;
  int64_t work = 0;
  while (step_plan_search(test::catalog(), s)) {
    ++slices;
    EXPECT_EQ(s.next, slices);
    EXPECT_GE(s.candidates, work) << "the work done never goes back";
    work = s.candidates;
    EXPECT_DOUBLE_EQ(s.progress(),
                     static_cast<double>(slices) / static_cast<double>(s.pending.size()));
  }
  EXPECT_EQ(slices, s.pending.size());
  EXPECT_TRUE(s.finished());
  EXPECT_FALSE(step_plan_search(test::catalog(), s)) << "a finished search has no slice left";

  auto sliced = finish_plan_search(test::catalog(), s);
  ASSERT_TRUE(sliced.ok()) << sliced.error().message;
  EXPECT_EQ(sliced.value().candidates, whole.value().candidates);
  EXPECT_EQ(sliced.value().candidates, work);
  EXPECT_EQ(sliced.value().fitting, whole.value().fitting);
  EXPECT_EQ(sliced.value().within_limits, whole.value().within_limits);
  expect_same_plans(sliced.value().plans, whole.value().plans);
  expect_same_plans(sliced.value().pareto, whole.value().pareto);
}

TEST(PlanSearch, ABadQueryFailsAtTheStartAsPlanFails) {
  PlanQuery q = query("gpt2-small", Precision::amp_bf16, 8, 0);  // no run length
  auto s = start_plan_search(test::catalog(), test::model("gpt2-small"), q);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, plan(test::catalog(), test::model("gpt2-small"), q).error().message);
}

TEST(PlanSearch, TheGpuFilterKeepsOnlyThatGpusInstances) {
  PlanQuery q = query("gpt2-small", Precision::amp_bf16, 64, 1e9);
  q.gpu = "a100-sxm4-80gb";
  auto r = plan(test::catalog(), test::model("gpt2-small"), q);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_FALSE(r.value().plans.empty());
  for (const Plan& p : r.value().plans) EXPECT_EQ(p.gpu, "a100-sxm4-80gb") << p.instance;
  for (const Plan& p : r.value().pareto) EXPECT_EQ(p.gpu, "a100-sxm4-80gb") << p.instance;

  q.gpu = "no-such-gpu";
  auto none = plan(test::catalog(), test::model("gpt2-small"), q);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().id, Msg::plan_unknown_gpu);
  EXPECT_EQ(none.error().message, "--plan-gpu: unknown GPU 'no-such-gpu' (run 'gpuplan gpus')");
  EXPECT_EQ(none.error().key, "plan-gpu");

  // A near miss gets the suggestions --gpu gives (unknown_gpu_error), under the planner's key.
  q.gpu = "h100";
  auto near = plan(test::catalog(), test::model("gpt2-small"), q);
  ASSERT_FALSE(near.ok());
  EXPECT_EQ(near.error().id, Msg::plan_unknown_gpu_like);
  EXPECT_EQ(near.error().key, "plan-gpu");
  EXPECT_EQ(near.error().message,
            "--plan-gpu: unknown GPU 'h100'; did you mean one of: h100-nvl-94gb, h100-pcie-80gb, "
            "h100-sxm5-80gb");
  EXPECT_EQ(near.error().args.at(1), unknown_gpu_error(test::catalog(), "h100").args.at(1));
}

TEST(PlanSearch, FixedDegreesAreTheOnlyOnesSearched) {
  const Model& m = test::model("llama-2-70b");
  PlanQuery q = split_model_query();
  auto free = plan(test::catalog(), m, q);
  ASSERT_TRUE(free.ok()) << free.error().message;

  q.tp = 4;
  q.pp = 2;
  auto fixed = plan(test::catalog(), m, q);
  ASSERT_TRUE(fixed.ok()) << fixed.error().message;
  ASSERT_FALSE(fixed.value().plans.empty());
  for (const Plan& p : fixed.value().plans) {
    EXPECT_EQ(p.setup.tp, 4) << p.instance;
    EXPECT_EQ(p.setup.pp, 2) << p.instance;
    EXPECT_EQ(p.setup.dp * 4 * 2, p.gpus) << p.instance;
  }
  EXPECT_LT(fixed.value().candidates, free.value().candidates);
}

TEST(PlanSearch, ARecomputeModuleListFixesSelectiveCheckpointing) {
  // --checkpointing selective --recompute-modules layernorm,mlp: the user named the recompute,
  // so no plan drops it for none or full; each plan's time counts the recomputed kernels.
  const Model& m = test::model("llama-2-70b");
  PlanQuery q = split_model_query();
  q.request.setup.checkpointing = Checkpointing::selective;
  q.request.setup.recompute_modules = kRecomputeLayernorm | kRecomputeMlp;
  auto r = plan(test::catalog(), m, q);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_FALSE(r.value().plans.empty());
  for (const Plan& p : r.value().plans) {
    EXPECT_EQ(p.setup.checkpointing, Checkpointing::selective) << p.instance;
    EXPECT_EQ(p.setup.recompute_modules, kRecomputeLayernorm | kRecomputeMlp) << p.instance;
    EXPECT_GT(p.time.recompute_s, 0) << p.instance;
  }
}

TEST(PlanSearch, AModeTheSearchDoesNotTryIsKeptAndOffloadingRunsWithoutRecompute) {
  // --checkpointing block --recompute-num-layers 5 (Megatron's block method): every plan keeps it.
  const Model& m = test::model("llama-2-70b");
  PlanQuery q = split_model_query();
  q.request.setup.checkpointing = Checkpointing::block;
  q.request.setup.recompute_num_layers = 5;
  auto r = plan(test::catalog(), m, q);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_FALSE(r.value().plans.empty());
  for (const Plan& p : r.value().plans) {
    EXPECT_EQ(p.setup.checkpointing, Checkpointing::block) << p.instance;
    EXPECT_GT(p.time.recompute_s, 0) << p.instance;
  }
  // Offloading activations (Megatron: no recompute, no pipeline stages): plans of one stage
  // without checkpointing only.
  q = split_model_query();
  q.request.setup.offload_activation_layers = 20;
  r = plan(test::catalog(), m, q);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_FALSE(r.value().plans.empty());
  for (const Plan& p : r.value().plans) {
    EXPECT_EQ(p.setup.checkpointing, Checkpointing::none) << p.instance;
    EXPECT_EQ(p.setup.pp, 1) << p.instance;
  }
}

TEST(PlanSearch, ContextParallelismIsSearchedForLongSequencesOnly) {
  // Llama-3-8B on 128k-token samples: each context-parallel rank keeps seq / cp tokens, so the
  // search tries cp 2, 4, ... while a rank keeps at least 4096 tokens; at 4096 tokens none.
  const Model& m = test::model("llama-3-8b");
  PlanQuery q = query("llama-3-8b", Precision::amp_bf16, 64, 1e9);
  q.request.setup.seq_len = 131072;
  q.max_nodes = 2;
  auto long_seq = plan(test::catalog(), m, q);
  ASSERT_TRUE(long_seq.ok()) << long_seq.error().message;
  ASSERT_FALSE(long_seq.value().plans.empty());
  bool any_cp = false;
  for (const Plan& p : long_seq.value().plans) {
    EXPECT_EQ(p.setup.dp * p.setup.tp * p.setup.pp * p.setup.cp, p.gpus) << p.instance;
    any_cp |= p.setup.cp > 1;
  }
  EXPECT_TRUE(any_cp) << "no ranked plan splits a 128k-token sequence";

  // A fixed degree is the only one tried; the search without it tries more.
  q.cp = 2;
  auto fixed = plan(test::catalog(), m, q);
  ASSERT_TRUE(fixed.ok()) << fixed.error().message;
  for (const Plan& p : fixed.value().plans) EXPECT_EQ(p.setup.cp, 2) << p.instance;
  EXPECT_LT(fixed.value().candidates, long_seq.value().candidates);

  q.cp = 0;
  q.request.setup.seq_len = 4096;
  auto short_seq = plan(test::catalog(), m, q);
  ASSERT_TRUE(short_seq.ok()) << short_seq.error().message;
  for (const Plan& p : short_seq.value().plans) EXPECT_EQ(p.setup.cp, 1) << p.instance;
}

TEST(PlanSearch, ExpertAndVirtualStageDegreesAreSearchedUnlessFixed) {
  // Mixtral's 8 experts: the planner tries ep 1, 2, 4, 8 (each dividing the experts and the data-
  // parallel ranks) and, with pipeline stages, 1, 2 or 4 virtual stages per rank.
  const Model& m = test::model("mixtral-8x7b");
  PlanQuery q = query("mixtral-8x7b", Precision::mixed_bf16, 256, 1e10);
  q.request.setup.seq_len = 4096;
  q.max_nodes = 2;
  auto free = plan(test::catalog(), m, q);
  ASSERT_TRUE(free.ok()) << free.error().message;
  for (const Plan& p : free.value().plans) {
    EXPECT_EQ(8 % p.setup.ep, 0) << p.instance;
    EXPECT_EQ((p.setup.dp * p.setup.tp) % (p.setup.ep * p.setup.tp), 0) << p.instance;
    if (p.setup.vp > 1) {
      EXPECT_GT(p.setup.pp, 1) << p.instance;
    }
  }
  // Fixed: only that degree, and fewer candidates.
  q.ep = 1;
  q.vp = 1;
  auto fixed = plan(test::catalog(), m, q);
  ASSERT_TRUE(fixed.ok()) << fixed.error().message;
  for (const Plan& p : fixed.value().plans) {
    EXPECT_EQ(p.setup.ep, 1) << p.instance;
    EXPECT_EQ(p.setup.vp, 1) << p.instance;
  }
  EXPECT_LT(fixed.value().candidates, free.value().candidates);
  // A fixed degree beyond the searched ones (1, 2, 4) is kept, not dropped.
  q.pp = 2;
  q.vp = 8;
  q.request.setup.micro_batch = 1;  // the start's workload check: 256 micro-batches, groups of 2
  auto eight = plan(test::catalog(), m, q);
  ASSERT_TRUE(eight.ok()) << eight.error().message;
  for (const Plan& p : eight.value().plans) EXPECT_EQ(p.setup.vp, 8) << p.instance;
  // A dense model has no expert degree to search: ep stays 1 and costs no extra candidates.
  PlanQuery dense = split_model_query();
  auto d = plan(test::catalog(), test::model("llama-2-70b"), dense);
  ASSERT_TRUE(d.ok()) << d.error().message;
  for (const Plan& p : d.value().plans) EXPECT_EQ(p.setup.ep, 1) << p.instance;
}

// Megatron trains tensor with expert parallelism only with sequence parallelism, and the estimate
// refuses the pair without it; the search turns it on for those layouts rather than dropping
// them. At a fixed tp 2, Mixtral's plans without --sp include expert-parallel ones, each with
// sequence parallelism.
TEST(PlanSearch, TensorWithExpertParallelLayoutsRunSequenceParallel) {
  const Model& m = test::model("mixtral-8x7b");
  PlanQuery q = query("mixtral-8x7b", Precision::mixed_bf16, 256, 1e10);
  q.request.setup.seq_len = 4096;
  q.max_nodes = 2;
  q.tp = 2;
  q.top_k = 50;
  ASSERT_FALSE(q.request.setup.sequence_parallel);
  auto r = plan(test::catalog(), m, q);
  ASSERT_TRUE(r.ok()) << r.error().message;
  int expert_parallel = 0;
  for (const Plan& p : r.value().plans) {
    ASSERT_EQ(p.setup.tp, 2) << p.instance;
    if (p.setup.ep == 1) continue;
    ++expert_parallel;
    EXPECT_TRUE(p.setup.sequence_parallel) << p.instance << " ep " << p.setup.ep;
  }
  EXPECT_GT(expert_parallel, 0);
}

// Hybrid sharding (HSDP). ZeRO-3 over dp ranks gathers the parameters twice a step (forward,
// backward) and reduce-scatters the gradients: over a ring that spans hosts each crosses every
// host's network link once, 3 shards' worth of bytes. Sharded within a host, the gathers stay on
// NVLink and only the gradient all-reduce between replicas, 2 shards' worth, crosses it. On hosts
// with a slow network that makes the hybrid layout the faster; the planner tries it with one
// host's GPUs as the shard group, and a fixed --dp-shard is the only group it tries.
// (plan.cpp's kHostShardGroups; step_time.cpp's ShardGroups times both.)
TEST(PlanSearch, HybridShardingIsSearchedPerHostAndAFixedShardGroupIsKept) {
  Catalog c = test::catalog();
  Instance host = *c.find_instance("aws-p5.48xlarge");
  ASSERT_EQ(host.gpu_count, 8);
  host.network_bytes_per_s = 12.5e9;  // 100 Gb/s Ethernet
  c.instances = {host};
  const Model& m = test::model("llama-3.1-8b");
  PlanQuery q = query("llama-3.1-8b", Precision::bf16, 64, 1e9);
  q.request.setup.seq_len = 8192;
  q.objective = Objective::time;
  q.max_nodes = 8;
  q.top_k = 100;
  auto free = plan(c, m, q);
  ASSERT_TRUE(free.ok()) << free.error().message;
  const Plan& fastest = free.value().plans.front();
  EXPECT_EQ(fastest.nodes, 8);
  EXPECT_EQ(fastest.setup.dp_shard, 8)
      << fastest.setup.dp << " dp, zero " << fastest.setup.zero_stage;
  for (const Plan& p : free.value().plans) {
    if (p.setup.dp_shard == 0) continue;
    EXPECT_EQ(p.setup.dp_shard, host.gpu_count);
    EXPECT_GT(p.setup.dp, p.setup.dp_shard);
    EXPECT_GE(p.setup.zero_stage, 1);
  }

  q.request.setup.dp_shard = 16;
  auto fixed = plan(c, m, q);
  ASSERT_TRUE(fixed.ok()) << fixed.error().message;
  for (const Plan& p : fixed.value().plans) {
    if (p.setup.dp > 16 && p.setup.zero_stage > 0) {
      EXPECT_EQ(p.setup.dp_shard, 16) << p.nodes;
    } else {
      EXPECT_EQ(p.setup.dp_shard, 0) << p.nodes;  // one group holds every rank, or no ZeRO
    }
  }
  EXPECT_GT(fixed.value().plans.front().time.step_s, fastest.time.step_s);

  // With --emit, hybrid groups only at the ZeRO stages the launcher can say: every plan emits
  // (Megatron-LM's under its mixed-precision recipe, as it has no pure bf16 one).
  q.request.setup.dp_shard = 0;
  for (LaunchFormat f : {LaunchFormat::torchrun, LaunchFormat::accelerate, LaunchFormat::deepspeed,
                         LaunchFormat::megatron}) {
    PlanQuery narrowed = q;
    if (f == LaunchFormat::megatron) narrowed.request.setup.precision = Precision::mixed_bf16;
    ASSERT_FALSE(restrict_to_launcher(narrowed, f).has_value());
    auto r = plan(c, m, narrowed);
    ASSERT_TRUE(r.ok()) << r.error().message;
    for (const Plan& p : r.value().plans) {
      auto text = emit_launch_config(launch_inputs(m, p), f);
      EXPECT_TRUE(text.ok()) << launch_format_name(f) << ": " << text.error().message;
    }
  }
}

TEST(PlanSearch, ADegreeNoInstanceCanLayOutSaysSo) {
  PlanQuery q = query("gpt2-small", Precision::amp_bf16, 64, 1e9);
  // GPT-2 small has 12 heads: tensor parallelism of 12 divides them, but no instance has 12 (or
  // more than 8) GPUs in a node, and the planner keeps tensor parallelism inside a node.
  q.tp = 12;
  auto r = plan(test::catalog(), test::model("gpt2-small"), q);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, Msg::plan_layout_unavailable);
  EXPECT_NE(r.error().message.find("--tp 12 --pp 1"), std::string::npos) << r.error().message;

  // A degree the model cannot take is the workload's own error (heads not divisible).
  q.tp = 5;
  auto heads = plan(test::catalog(), test::model("gpt2-small"), q);
  ASSERT_FALSE(heads.ok());
  EXPECT_NE(heads.error().id, Msg::plan_layout_unavailable) << heads.error().message;
}

TEST(PlanSearch, ALauncherNarrowsTheSearchToWhatItCanEmit) {
  const Model& m = test::model("llama-2-70b");
  PlanQuery q = split_model_query();
  auto free = plan(test::catalog(), m, q);
  ASSERT_TRUE(free.ok()) << free.error().message;
  // Without the launcher the best plan splits the model, which no launcher config expresses.
  const Plan& best = free.value().plans.front();
  ASSERT_TRUE(best.setup.tp > 1 || best.setup.pp > 1) << best.instance;
  EXPECT_FALSE(emit_launch_config(launch_inputs(m, best), LaunchFormat::deepspeed).ok());

  for (LaunchFormat f :
       {LaunchFormat::torchrun, LaunchFormat::accelerate, LaunchFormat::deepspeed}) {
    PlanQuery narrowed = q;
    ASSERT_FALSE(restrict_to_launcher(narrowed, f).has_value());
    EXPECT_EQ(narrowed.tp, 1);
    EXPECT_EQ(narrowed.pp, 1);
    auto r = plan(test::catalog(), m, narrowed);
    ASSERT_TRUE(r.ok()) << r.error().message;
    for (const Plan& p : r.value().plans) {
      EXPECT_EQ(p.setup.tp, 1) << p.instance;
      EXPECT_EQ(p.setup.pp, 1) << p.instance;
    }
    auto text = emit_launch_config(launch_inputs(m, r.value().plans.front()), f);
    EXPECT_TRUE(text.ok()) << launch_format_name(f) << ": " << text.error().message;
  }
}

TEST(PlanSearch, ALauncherRefusesADegreeTheUserFixedAboveOne) {
  PlanQuery q = split_model_query();
  q.tp = 2;
  auto err = restrict_to_launcher(q, LaunchFormat::deepspeed);
  ASSERT_TRUE(err.has_value());
  EXPECT_NE(err->message.find("--emit deepspeed: --tp 2 cannot be expressed"), std::string::npos)
      << err->message;
  q.tp = 1;  // stated but expressible
  q.pp = 0;
  EXPECT_FALSE(restrict_to_launcher(q, LaunchFormat::torchrun).has_value());
}

}  // namespace
}  // namespace gpuplan
