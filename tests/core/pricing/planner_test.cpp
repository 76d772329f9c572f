// Cost and the planner: physical properties, and the seed guide's decision framework coming out
// of the ranking rather than being written into it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "gpuplan/evaluate.h"
#include "gpuplan/plan.h"
#include "gpuplan/timing.h"
#include "test_util.h"
#include "training/timed.h"

namespace gpuplan {
namespace {

using test::time_on;
using test::Timed;

TEST(Cost, EqualsTimeTimesPriceAndSpotAddsExpectedRework) {
  gpuplan::Setup s;
  s.global_batch = 8;
  const Timed x = time_on("gpt2-small", "a100-sxm4-80gb", 1, s);
  RunLength run;
  run.tokens = 1e9;
  auto c = run_cost(x.e, x.t, run, 3.0, Pricing::on_demand, {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.value().steps, std::ceil(1e9 / (8 * 1024)));
  EXPECT_NEAR(c.value().usd_total, c.value().hours * 3.0, 1e-9);
  SpotAssumptions spot{0.1, 1.0, 0.25};  // lose 0.5 + 0.25 h per interruption, 0.1 per hour
  auto sc = run_cost(x.e, x.t, run, 1.0, Pricing::spot, spot);
  ASSERT_TRUE(sc.ok());
  EXPECT_NEAR(sc.value().expected_hours, sc.value().hours / (1 - 0.075), 1e-12);
  SpotAssumptions hopeless{2.0, 1.0, 0.0};
  EXPECT_FALSE(run_cost(x.e, x.t, run, 1.0, Pricing::spot, hopeless).ok());
}

TEST(Pricing, PublishedPriceWinsOverTheRule) {
  const Instance* p4d = test::catalog().find_instance("aws-p4d.24xlarge");
  ASSERT_NE(p4d, nullptr);
  const PricingRules& rules = test::catalog().pricing;
  auto reserved = quote_price(*p4d, Pricing::reserved_1y, rules, "us-east-1");
  ASSERT_TRUE(reserved.ok());
  EXPECT_FALSE(reserved.value().assumption);
  EXPECT_DOUBLE_EQ(reserved.value().usd_per_hour, 13.921094);
  auto spot = quote_price(*p4d, Pricing::spot, rules, "us-east-1");
  ASSERT_TRUE(spot.ok());
  EXPECT_TRUE(spot.value().assumption);  // no published spot price: on-demand - 70 %
  EXPECT_NEAR(spot.value().usd_per_hour, 21.957642 * (1 - rules.spot), 1e-9);
  auto nowhere = quote_price(*p4d, Pricing::on_demand, rules, "mars-north-1");
  EXPECT_EQ(nowhere.error().message,
            "instance 'aws-p4d.24xlarge' has no published price in region 'mars-north-1'");
}

PlanQuery query(const std::string& model, Precision precision, int64_t batch) {
  PlanQuery q;
  q.request.model = model;
  q.request.setup.precision = precision;
  q.request.setup.global_batch = batch;
  q.efficiencies = test::catalog().efficiencies;
  return q;
}

const Gpu& gpu_of(const Plan& p) {
  return *test::catalog().find_gpu(p.gpu);
}

// One epoch of ResNet-18 on CIFAR-10 on GCP spot instances.
PlanQuery short_experiment() {
  PlanQuery q = query("resnet18", Precision::amp_fp16, 256);
  q.request.setup.resolution = 32;  // CIFAR-10-sized images
  q.run.epochs = 1;
  q.run.dataset_size = 50000;
  q.pricing = Pricing::spot;
  q.provider = "gcp";
  return q;
}

// The seed guide's framework: short experiment -> spot T4; mid-term -> reserved A40;
// long-term -> bulk H100-class cluster. Each follows from prices and the model, not a rule.
TEST(PlannerDecisionFramework, ShortExperimentOnSpotPicksT4) {
  const PlanQuery q = short_experiment();
  auto r = plan(test::catalog(), test::model("resnet18"), q);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().plans.front().gpu, "t4");
}

// The search times every candidate without writing its notes, then writes them for the plans it
// keeps: a plan carries the notes of the estimate of its own setup on its own instance (here the
// host pacing ResNet-18's small CIFAR steps).
TEST(Planner, AKeptPlanCarriesTheNotesOfItsOwnEstimate) {
  const PlanQuery q = short_experiment();
  auto r = plan(test::catalog(), test::model("resnet18"), q);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Plan& top = r.value().plans.front();
  ASSERT_FALSE(top.time.notes.empty());
  Query one;
  one.request = q.request;
  one.request.setup = top.setup;
  one.dp_given = true;
  one.instance = top.instance;
  one.nodes = top.nodes;
  one.run = q.run;
  one.pricing = q.pricing;
  auto e = evaluate(test::catalog(), one);
  ASSERT_TRUE(e.ok()) << e.error().message;
  ASSERT_TRUE(e.value().time.has_value());
  EXPECT_EQ(top.time.notes, e.value().time->notes);
}

TEST(PlannerDecisionFramework, MidTermFineTuningOnReservedPicksA40) {
  // BERT-large fine-tuning for days, on GPUs with room to grow (>= 40 GB), reserved.
  PlanQuery q = query("bert-large", Precision::amp_fp16, 32);
  q.request.setup.seq_len = 512;
  q.run.epochs = 10;
  q.run.dataset_size = 400000;
  q.pricing = Pricing::reserved_1y;
  q.min_gpu_memory_bytes = 40e9;
  auto r = plan(test::catalog(), test::model("bert-large"), q);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().plans.front().gpu, "a40");
}

TEST(PlannerDecisionFramework, LongTermPretrainingOnBulkPicksALargeHopperClassCluster) {
  // LLaMA-2-70B on 2 T tokens within ~3 months at bulk prices: only multi-node clusters of the
  // fastest GPUs meet it; the cheapest of them wins.
  PlanQuery q = query("llama-2-70b", Precision::bf16, 1024);
  q.request.setup.seq_len = 4096;
  q.run.tokens = 2e12;
  q.pricing = Pricing::bulk;
  q.deadline_hours = 2000;
  q.max_nodes = 64;
  auto r = plan(test::catalog(), test::model("llama-2-70b"), q);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Plan& best = r.value().plans.front();
  EXPECT_GE(best.gpus, 64);
  EXPECT_GE(gpu_of(best).peak_dense_flops_per_s.at("bf16"), 989e12);  // H100-class or newer
  EXPECT_GT(r.value().candidates, 100000);
}

// A GB200 NVL72 tray: tensor parallelism beyond the tray's 4 GPUs, over NVLink. MPT-70B (64
// heads) at a global batch of 1 on 16 trays (64 GPUs) has one data-parallel rank, so the GPUs split
// the model by tp x pp, and a pipeline of p stages at one micro-batch idles (p - 1)/1 of the time
// (1F1B). In the rack the fastest layout uses tp 8 over two trays (tp 64 would leave matmuls so
// small that kernel overheads rule); the same tray without its domain is held to its own 4 GPUs
// and pipelines the rest, and is slower.
TEST(Planner, AnNvl72RackRunsTensorParallelismAcrossItsTraysOverNvlink) {
  Catalog c = test::catalog();
  const Instance* found = c.find_instance("coreweave-gb200-nvl72");
  ASSERT_NE(found, nullptr);
  const Instance rack = *found;
  Instance alone = rack;
  alone.id = "test-tray-alone";
  alone.nvlink_domain_gpus = 0;
  alone.network_bytes_per_s = 200e9;
  c.instances = {rack, alone};
  PlanQuery q = query("mpt-70b", Precision::bf16, 1);
  q.request.setup.seq_len = 2048;
  q.run.tokens = 1e8;
  q.objective = Objective::time;
  q.max_nodes = 16;
  q.top_k = 100;
  auto r = plan(c, test::model("mpt-70b"), q);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Plan* in_rack = nullptr;
  const Plan* without = nullptr;
  for (const Plan& p : r.value().plans) {
    if (p.nodes != 16) continue;
    (p.instance == rack.id ? in_rack : without) = &p;
  }
  ASSERT_NE(in_rack, nullptr);
  ASSERT_NE(without, nullptr);
  EXPECT_GT(in_rack->setup.tp, 4);
  EXPECT_LE(without->setup.tp, 4);
  EXPECT_LT(in_rack->setup.pp, without->setup.pp);
  EXPECT_LT(in_rack->time.step_s, without->time.step_s);
}

TEST(Planner, ARackSoldOnlyWholeIsTriedOnceUnderTheDefaultNodeLimit) {
  // A rack of 18 trays sold only whole: the default limit (16 hosts) still tries the one rack;
  // a limit the user sets is kept.
  Catalog c = test::catalog();
  const Instance* found = c.find_instance("coreweave-gb200-nvl72");
  ASSERT_NE(found, nullptr);
  Instance rack = *found;
  rack.min_hosts = rack.hosts_per_domain();
  ASSERT_EQ(rack.min_hosts, 18);
  c.instances = {rack};
  PlanQuery q = query("mpt-70b", Precision::bf16, 72);
  q.request.setup.seq_len = 2048;
  q.run.tokens = 1e8;
  q.max_nodes = 16;
  q.max_nodes_auto = true;
  auto r = plan(c, test::model("mpt-70b"), q);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_FALSE(r.value().plans.empty());
  for (const Plan& p : r.value().plans) EXPECT_EQ(p.nodes, 18) << p.instance;
  q.max_nodes_auto = false;
  EXPECT_FALSE(plan(c, test::model("mpt-70b"), q).ok());
}

TEST(Planner, ParetoFrontIsMonotone) {
  PlanQuery q = query("gpt2-medium", Precision::amp_bf16, 64);
  q.run.tokens = 5e9;
  auto r = plan(test::catalog(), test::model("gpt2-medium"), q);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& front = r.value().pareto;
  ASSERT_GE(front.size(), 2u);
  for (size_t i = 1; i < front.size(); ++i) {
    EXPECT_GE(front[i].cost.expected_hours, front[i - 1].cost.expected_hours);
    EXPECT_LT(front[i].cost.usd_total, front[i - 1].cost.usd_total);
  }
  for (const auto& p : r.value().plans) {
    EXPECT_LE(p.memory.total(), p.gpu_memory_bytes);
    EXPECT_NEAR(p.cost.usd_total, p.cost.expected_hours * p.cost.usd_per_hour,
                1e-6 * p.cost.usd_total);
  }
}

TEST(Planner, SaysWhichLimitBinds) {
  PlanQuery q = query("llama-3-405b", Precision::bf16, 8);
  q.run.tokens = 1e9;
  q.max_nodes = 1;
  q.provider = "runpod";
  auto mem = plan(test::catalog(), test::model("llama-3-405b"), q);
  ASSERT_FALSE(mem.ok());
  EXPECT_EQ(mem.error().code, Errc::does_not_fit);
  EXPECT_NE(mem.error().message.find("memory binds"), std::string::npos) << mem.error().message;

  PlanQuery d = query("gpt2-small", Precision::amp_bf16, 8);
  d.run.tokens = 1e12;
  d.deadline_hours = 0.01;
  auto late = plan(test::catalog(), test::model("gpt2-small"), d);
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.error().message.find("deadline binds"), std::string::npos) << late.error().message;

  d.deadline_hours = 0;
  d.budget_usd = 0.01;
  auto poor = plan(test::catalog(), test::model("gpt2-small"), d);
  ASSERT_FALSE(poor.ok());
  EXPECT_NE(poor.error().message.find("budget binds"), std::string::npos) << poor.error().message;

  d.budget_usd = 0;
  d.provider = "nobody";
  auto none = plan(test::catalog(), test::model("gpt2-small"), d);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no priced instance matches the filters"), std::string::npos);
}

// The binding budget's message states the cheapest plan's cost in full: eleven digits of USD
// were once cut to ten, a tenth of the cost with no warning.
TEST(Planner, ABindingBudgetStatesTheCheapestCostInFull) {
  PlanQuery q = query("llama-3.1-405b", Precision::amp_bf16, 512);
  q.run.tokens = 1e16;
  auto all = plan(test::catalog(), test::model("llama-3.1-405b"), q);
  ASSERT_TRUE(all.ok()) << all.error().message;
  double cheapest = 1e300;
  for (const Plan& p : all.value().plans) cheapest = std::min(cheapest, p.cost.usd_total);
  ASSERT_GT(cheapest, 1e10);  // the case this test is about
  q.budget_usd = 1;
  auto poor = plan(test::catalog(), test::model("llama-3.1-405b"), q);
  ASSERT_FALSE(poor.ok());
  ASSERT_EQ(poor.error().id, Msg::plan_budget_binds);
  EXPECT_NEAR(std::stod(poor.error().args.at(0)), cheapest, 0.01) << poor.error().message;
}

}  // namespace
}  // namespace gpuplan
