// evaluate(): the one chain under the CLI and the page. Defaults are resolved in one place, the
// efficiencies come from the catalog (data/assumptions.json), and the result matches the parts
// called one by one.
#include "gpuplan/evaluate.h"
#include "gpuplan/report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "test_util.h"

namespace gpuplan {
namespace {

Query query_of(const std::string& link) {
  auto q = parse_query_string(link);
  EXPECT_TRUE(q.ok()) << link << ": " << (q.ok() ? "" : q.error().message);
  return q.ok() ? q.value() : Query{};
}

Evaluation evaluated(const std::string& link, const Catalog& catalog = test::catalog()) {
  auto ev = evaluate(catalog, query_of(link));
  EXPECT_TRUE(ev.ok()) << link << ": " << (ev.ok() ? "" : ev.error().message);
  return ev.ok() ? ev.value() : Evaluation{};
}

std::string error_of(const std::string& link) {
  auto ev = evaluate(test::catalog(), query_of(link));
  return ev.ok() ? "(accepted)" : ev.error().message;
}

TEST(Evaluate, MatchesTheChainCalledStepByStep) {
  const Catalog& cat = test::catalog();
  const Evaluation ev = evaluated("model=gpt2-small&batch=32&gpu=a100-sxm4-80gb&gpus=4&tokens=1e9");
  ASSERT_TRUE(ev.time && ev.cost);
  const gpuplan::Setup s = ev.query.request.setup;
  EXPECT_EQ(s.dp, 4);  // data parallelism filled the four GPUs
  const Model& m = test::model("gpt2-small");
  auto e = estimate(m, s);
  ASSERT_TRUE(e.ok());
  const Gpu& gpu = *cat.find_gpu("a100-sxm4-80gb");
  auto work = build_work_profile(m, s, e.value());
  auto cluster = single_node_cluster(gpu, 4);
  auto t = estimate_step_time(m, s, e.value(), work.value(), cluster.value(), cat.efficiencies,
                              cat.input);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(ev.time->step_s, t.value().step_s);
  EXPECT_EQ(ev.estimate.memory.total(), e.value().memory.total());
  auto c = run_cost(e.value(), t.value(), ev.query.run, 0, Pricing::on_demand, ev.query.spot);
  EXPECT_EQ(ev.cost->expected_hours, c.value().expected_hours);
  EXPECT_EQ(ev.cost->usd_total, 0);  // a GPU without an instance has no price
}

TEST(Evaluate, TakesEfficienciesFromTheCatalogOnly) {
  Catalog slower = test::catalog();
  // Every rate at half and every overhead doubled: each term of the step takes about twice as long.
  Efficiencies& e = slower.efficiencies;
  for (double* rate :
       {&e.gemm, &e.simt_gemm, &e.hbm, &e.eager_memory_bound, &e.nvlink, &e.pcie, &e.network}) {
    *rate /= 2;
  }
  for (auto& [arch, fa] : e.flash_attention) fa = {fa.forward / 2, fa.backward / 2};
  e.flash_attention_default = {e.flash_attention_default.forward / 2,
                               e.flash_attention_default.backward / 2};
  // The GPUs' measured matmul ceilings are hardware facts the time model uses before gemm.
  for (Gpu& g : slower.gpus) {
    for (auto& [precision, flops] : g.matmul_max_achievable_flops_per_s) flops /= 2;
  }
  e.kernel_overhead_s *= 2;
  e.host_overhead_per_kernel_s *= 2;
  const std::string link =
      "model=llama-2-7b&batch=8&seq=2048&precision=amp-bf16&gpu=h100-sxm5-80gb&gpus=8&zero=3";
  const Evaluation base = evaluated(link);
  const Evaluation half = evaluated(link, slower);
  ASSERT_TRUE(base.time && half.time);
  EXPECT_GT(half.time->step_s, base.time->step_s * 1.6);
}

TEST(Evaluate, PricesAnInstanceAndCostsTheRun) {
  const Evaluation ev =
      evaluated("model=resnet50&batch=256&instance=aws-p4d.24xlarge&nodes=2&epochs=1");
  ASSERT_TRUE(ev.price && ev.cost);
  EXPECT_EQ(ev.gpus, 16);
  EXPECT_EQ(ev.query.request.setup.dp, 16);
  EXPECT_EQ(ev.query.run.dataset_size,
            test::model("resnet50").dataset_size);  // the model's dataset
  EXPECT_DOUBLE_EQ(ev.cost->usd_per_hour, ev.price->usd_per_hour * 2);
  EXPECT_DOUBLE_EQ(ev.cost->usd_total, ev.cost->expected_hours * ev.cost->usd_per_hour);
}

TEST(Evaluate, AnInstanceWithoutAPriceIsTimedButNotCosted) {
  // AWS publishes no price for a p6e-gb200 UltraServer; its step time needs none. The run's
  // hours are there, its dollars are not, and the reason is kept.
  const Evaluation ev = evaluated(
      "model=llama-3-8b&precision=bf16&batch=16&seq=4096&instance=aws-u-p6e-gb200x72&tokens=1e9");
  ASSERT_TRUE(ev.time && ev.cost && ev.price_error);
  EXPECT_FALSE(ev.price);
  EXPECT_GT(ev.time->step_s, 0);
  EXPECT_GT(ev.cost->expected_hours, 0);
  EXPECT_EQ(ev.price_error->message, "instance 'aws-u-p6e-gb200x72' has no published price");
  const std::string text = evaluation_to_text(ev);
  EXPECT_NE(text.find("note: not costed: instance 'aws-u-p6e-gb200x72' has no published price"),
            std::string::npos);
  EXPECT_EQ(text.find(" USD"), std::string::npos) << text;  // no "0.00 USD" total
  // A region without a price is the user's choice to change: an error, and no time.
  const Evaluation mars =
      evaluated("model=resnet50&batch=256&instance=aws-p4d.24xlarge&region=mars-1");
  ASSERT_TRUE(mars.hardware_error);
  EXPECT_FALSE(mars.time || mars.price_error);
  EXPECT_EQ(mars.hardware_error->message,
            "instance 'aws-p4d.24xlarge' has no published price in region 'mars-1'");
}

TEST(Evaluate, ResolvesSpotAndPlannerDefaultsFromTheCatalog) {
  const Catalog& cat = test::catalog();
  auto q =
      resolve_defaults(cat, test::model("gpt2-small"), query_of("model=gpt2-small&pricing=spot"));
  ASSERT_TRUE(q.ok());
  EXPECT_DOUBLE_EQ(q.value().spot.restart_h, cat.restart_s / 3600.0);
  EXPECT_EQ(q.value().max_nodes, kDefaultMaxNodes);
  EXPECT_EQ(q.value().top_k, kDefaultTopK);
  // Given values stay.
  auto given = resolve_defaults(cat, test::model("gpt2-small"),
                                query_of("model=gpt2-small&restart-hours=2&top=3"));
  EXPECT_EQ(given.value().spot.restart_h, 2);
  EXPECT_EQ(given.value().top_k, 3);
  const PlanQuery p = plan_query(cat, test::model("gpt2-small"),
                                 query_of("model=gpt2-small&tokens=1e9&max-nodes=4"));
  EXPECT_EQ(p.max_nodes, 4);
  EXPECT_EQ(p.efficiencies.gemm, cat.efficiencies.gemm);
  EXPECT_DOUBLE_EQ(p.spot.restart_h, cat.restart_s / 3600.0);
  // --plan-gpu (an alias too) narrows the planner to that GPU's instances; --gpu is the
  // estimate's GPU and narrows nothing; no GPU: any.
  EXPECT_EQ(
      plan_query(cat, test::model("gpt2-small"), query_of("model=gpt2-small&plan-gpu=gb200")).gpu,
      "gb200");
  EXPECT_EQ(plan_query(cat, test::model("gpt2-small"), query_of("model=gpt2-small&gpu=gb200")).gpu,
            "");
  EXPECT_EQ(p.gpu, "");
}

TEST(Evaluate, OverTheCapacityButWithinTheMemoryErrorIsTightNotDoesNotFit) {
  // Sequences from inside to well over an A100's memory: the advice's headline follows the
  // verdict, so a run the band allows is never told "Does not fit".
  bool seen_tight_over = false, seen_over = false;
  for (int seq = 1024; seq <= 2048; seq += 16) {
    const Evaluation ev = evaluated(
        "model=mpt-1b&batch=10&micro-batch=10&precision=amp-bf16&attention=eager&gpu=a100-sxm4-"
        "80gb&seq=" +
        std::to_string(seq));
    if (ev.fit.fits) continue;
    const bool tight = ev.verdict.fit == Fit::tight;
    seen_tight_over |= tight;
    seen_over |= ev.verdict.fit == Fit::does_not_fit;
    const std::string headline = tight ? "Tight, may not fit" : "Does not fit: needs ";
    EXPECT_EQ(ev.fit.advice.rfind(headline, 0), 0u) << seq << ": " << ev.fit.advice;
  }
  EXPECT_TRUE(seen_tight_over);
  EXPECT_TRUE(seen_over);
}

TEST(Evaluate, SaysWhatToChangeWhenItDoesNotFit) {
  const Evaluation ev =
      evaluated("model=llama-2-7b&batch=1&seq=128&precision=fp32&optimizer=adamw&gpu=t4");
  EXPECT_FALSE(ev.fit.fits);
  EXPECT_EQ(ev.fit.largest_term, "optimizer states");
  EXPECT_EQ(ev.fit.advice.rfind("Does not fit: needs ", 0), 0u) << ev.fit.advice;
  EXPECT_NE(ev.fit.advice.find("use ZeRO stage 1-3 across data-parallel GPUs"), std::string::npos)
      << ev.fit.advice;
  // At inference, what an inference can change: no ZeRO, no QLoRA.
  const Evaluation infer =
      evaluated("model=llama-3.3-70b&mode=infer&precision=bf16&gpu=h100-sxm5-80gb");
  EXPECT_EQ(infer.fit.largest_term, "weights");
  EXPECT_NE(infer.fit.advice.find("use tensor or pipeline parallelism, or narrower weights"),
            std::string::npos)
      << infer.fit.advice;
  EXPECT_EQ(infer.fit.advice.find("ZeRO"), std::string::npos) << infer.fit.advice;
  const Evaluation small = evaluated("model=gpt2-small&batch=1&gpu=a100-sxm4-80gb");
  EXPECT_TRUE(small.fit.fits);
  EXPECT_EQ(small.fit.advice, "");
}

// Micro-batch "auto" (not given): the whole batch when it fits, else the largest divisor of the
// batch per replica that fits, with gradient accumulation for the rest; a given one is kept.
TEST(Evaluate, AnUnsetMicroBatchIsTheLargestThatFits) {
  const std::string link = "model=gpt2-medium&batch=64&seq=1024&precision=amp-bf16&gpu=t4";
  const Evaluation ev = evaluated(link);
  EXPECT_TRUE(ev.fit.fits);
  const int64_t micro = ev.estimate.micro_batch;
  EXPECT_LT(micro, 64);
  EXPECT_EQ(64 % micro, 0);
  EXPECT_EQ(ev.estimate.global_batch, 64);
  EXPECT_EQ(ev.estimate.grad_accum_steps, 64 / micro);
  // The next larger divisor does not fit: the choice is the largest.
  int64_t next = micro + 1;
  while (64 % next != 0) ++next;
  EXPECT_FALSE(evaluated(link + "&micro-batch=" + std::to_string(next)).fit.fits);
  // A micro-batch given by the user is theirs, fitting or not.
  EXPECT_EQ(evaluated(link + "&micro-batch=64").estimate.micro_batch, 64);
  EXPECT_FALSE(evaluated(link + "&micro-batch=64").fit.fits);
}

TEST(Evaluate, NamesTheFieldOfEachError) {
  EXPECT_EQ(error_of("model=gpt2-small&gpu=h9000"),
            "--gpu: unknown GPU 'h9000' (run 'gpuplan gpus')");
  EXPECT_EQ(error_of("model=gpt2-small&gpu=a100-sxm4-80gb&gpus=6&tp=4"),
            "--tp x --pp x --cp = 4 does not divide the 6 GPUs");
  EXPECT_EQ(error_of("model=gpt2-small&gpu=a100-sxm4-80gb&gpus=8&dp=2"),
            "--dp x --tp x --pp x --cp = 2 does not equal the 8 GPUs");
  EXPECT_EQ(error_of("model=gpt2-small&gpus=2"), "--gpus and --nodes need --gpu or --instance");
  EXPECT_EQ(error_of("model=gpt2-small&instance=nope"),
            "--instance: unknown instance 'nope' (run 'gpuplan instances')");
  EXPECT_EQ(error_of("batch=8"), "--model ID or --hf-config FILE is required");
}

TEST(Evaluate, KeepsTheEstimateWhenTheHardwareCannotRunIt) {
  // FP8 needs a GPU with FP8 tensor cores; the estimate stands, the time does not.
  const Evaluation ev =
      evaluated("model=gpt2-small&batch=8&precision=fp8&gpu=v100-sxm2-32gb&tokens=1e9");
  EXPECT_GT(ev.estimate.memory.total(), 0);
  ASSERT_TRUE(ev.hardware_error.has_value());
  EXPECT_FALSE(ev.time.has_value());
  EXPECT_FALSE(ev.cost.has_value());
}

TEST(Evaluate, EstimatesAloneWithoutHardware) {
  const Evaluation ev = evaluated("model=gpt2-small&batch=8");
  EXPECT_EQ(ev.gpu, nullptr);
  EXPECT_FALSE(ev.time.has_value());
  EXPECT_GT(ev.estimate.params.total, 0);
}

TEST(Evaluate, ResolvesCustomModels) {
  const Evaluation t = evaluated(
      "custom=transformer&c-layers=2&c-hidden=64&c-heads=4&c-ffn=256&c-vocab=100&batch=2");
  EXPECT_EQ(t.model.id, "custom");
  EXPECT_EQ(t.query.request.model, "custom");
  const Evaluation cnn = evaluated("custom=cnn&cnn=resnet&cnn-depth=18&batch=2");
  EXPECT_EQ(cnn.model.kind, ModelKind::graph);
}

TEST(Evaluate, CarriesThePublishedRunsOfTheSetupAndTheMeasuredRun) {
  // DeepLearningExamples' ResNet-50 AMP row T002: 2,470 img/s on one A100 80GB at batch 256.
  const Catalog& cat = test::catalog();
  EXPECT_FALSE(cat.published.empty());
  Query q = query_of("model=resnet50&batch=256&precision=amp-fp16&gpu=a100-sxm4-80gb");
  auto ev = evaluate(cat, q);
  ASSERT_TRUE(ev.ok() && ev.value().time);
  ASSERT_EQ(ev.value().published.size(), 1u);
  const PublishedComparison& p = ev.value().published[0];
  EXPECT_EQ(p.run.row.id, "T002");
  EXPECT_EQ(p.run.row.value, 2470);
  EXPECT_EQ(*p.predicted, ev.value().time->samples_per_s);
  EXPECT_FALSE(ev.value().measured_run);
  // Without a GPU there is nothing to match; with a measured run it is set beside the time.
  EXPECT_TRUE(evaluated("model=resnet50&batch=256&precision=amp-fp16").published.empty());
  MeasuredRun run;
  run.device_type = "cpu";
  run.device_name = "AMD EPYC";
  run.step.median_s = 0.5;
  q.measured = MeasuredInput{"m.json", run, true};
  ev = evaluate(cat, q);
  ASSERT_TRUE(ev.ok() && ev.value().measured_run);
  EXPECT_EQ(ev.value().measured_run->measured_step_s, 0.5);
  EXPECT_EQ(ev.value().measured_run->predicted_step_s, ev.value().time->step_s);
  const auto& notes = ev.value().measured_run->notes;
  EXPECT_NE(std::find(notes.begin(), notes.end(), "the file is unsigned"), notes.end());
}

TEST(EvaluateLinkJson, IsTheEvaluationOfTheLinksQueryOrItsError) {
  const std::string link = "model=gpt2-small&batch=8&gpu=a100-sxm4-80gb&tokens=1e9";
  EXPECT_EQ(evaluate_link_json(test::catalog(), link), evaluation_to_json(evaluated(link), -1));
  EXPECT_EQ(evaluate_link_json(test::catalog(), "model=gpt2-small&nodes=0"),
            R"({"schema_version":1,"error":"--nodes: 0 is out of range [1, 100000]"})");
}

TEST(MemoryTerms, AddUpToTheTotalInDisplayOrder) {
  const Evaluation ev = evaluated("model=llama-2-7b&batch=2&mode=infer&generate=16");
  const auto terms = memory_terms(ev.estimate.memory);
  const double sum = std::accumulate(terms.begin(), terms.end(), 0.0,
                                     [](double a, const MemoryTerm& t) { return a + t.bytes; });
  EXPECT_DOUBLE_EQ(sum, ev.estimate.memory.total());
  ASSERT_EQ(terms.size(), 8u);
  EXPECT_STREQ(terms[0].key, "weights");
  EXPECT_STREQ(terms[4].key, "kv_cache");
  EXPECT_STREQ(terms[7].key, "fragmentation");
}

}  // namespace
}  // namespace gpuplan
