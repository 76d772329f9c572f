// The page's model without a window (web/model/page_model.h, page_state.h, i18n.h): lenient links,
// nearest ids, numbers per language, page words for core messages, and the core call.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "ui/charts.h"
#include "model/exports.h"
#include "gpuplan/serve_plan.h"
#include "gpuplan/embedded_data.h"
#include "model/i18n.h"
#include "model/page_model.h"
#include "web_test_util.h"

namespace gpuplan::web {
namespace {

using page_test::catalog;

TEST(Bench, ServeTimesTheServingIssuesExampleOverTheWholeCatalog) {
  // bench_web's "serve" case plans what bench_serve plans natively: the same options.
  EXPECT_NE(bench_json(catalog(), "serve").find("no serving assumptions"), std::string::npos);
  const ServingAssumptions serving = serving_assumptions(embedded_data_files()).value();
  const nlohmann::json j = nlohmann::json::parse(bench_json(catalog(), "serve", &serving));
  auto plan = plan_serving(catalog(), serving, *catalog().find_model("llama-3-70b"),
                           serving_example_query());
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(j.at("options").get<size_t>(), plan.value().options.size());
  EXPECT_GT(j.at("options").get<int>(), 0);
  EXPECT_EQ(j.at("instances").get<size_t>(), catalog().instances.size());
  EXPECT_GT(j.at("median_ms").get<double>(), 0);
}

TEST(Link, OneBadFieldKeepsEveryOtherField) {
  ParsedLink link =
      page_state_from_link("model=llama-2-7b&precision=bf16&gpu=h100-sxm5-80gb&gpus=8&batch=-5");
  check_link_ids(catalog(), link);
  ASSERT_EQ(link.problems.size(), 1u);
  EXPECT_EQ(link.problems[0].key, "batch");
  EXPECT_EQ(link.problems[0].error.message, "--batch: -5 is out of range [1, 100000000]");
  EXPECT_EQ(link.problems[0].used, "auto");
  EXPECT_EQ(link.state.query.request.model, "llama-2-7b");
  EXPECT_EQ(link.state.query.request.setup.precision, Precision::bf16);
  EXPECT_EQ(link.state.query.gpu, "h100-sxm5-80gb");
  EXPECT_EQ(link.state.query.gpus, 8);
}

TEST(Link, BadPageKeysFallBackOneByOne) {
  ParsedLink link =
      page_state_from_link("model=gpt2-medium&gpus=0&pricing=cheap&tokens=5e9&tab=plans");
  check_link_ids(catalog(), link);
  ASSERT_EQ(link.problems.size(), 2u);
  EXPECT_EQ(link.problems[0].error.message, "--gpus: 0 is out of range [1, 100000]");
  EXPECT_EQ(
      link.problems[1].error.message,
      "--pricing: 'cheap' is not one of on-demand, monthly, reserved-1y, reserved-3y, bulk, spot");
  EXPECT_EQ(link.state.query.gpus, 0);  // left out: the core's default (1, or the instance's)
  EXPECT_EQ(link.state.query.run.tokens, 5e9);
  EXPECT_EQ(link.state.tab, Tab::plans);
  EXPECT_EQ(link.state.query.request.model, "gpt2-medium");
}

TEST(Link, UnknownIdsListTheNearestAndFallBack) {
  ParsedLink link = page_state_from_link("model=llama-9-7b&gpu=h100-sxm6-80gb");
  check_link_ids(catalog(), link);
  ASSERT_EQ(link.problems.size(), 2u);
  // The CLI's suggestions for the model ("did you mean one of: llama-2-7b, ...").
  EXPECT_EQ(link.problems[0].error.message.rfind(
                "--model: unknown id 'llama-9-7b'. Did you mean: llama-2-7b, ", 0),
            0u)
      << link.problems[0].error.message;
  EXPECT_EQ(link.problems[0].used, "gpt2-small");
  EXPECT_EQ(link.problems[1].used, "a100-sxm4-80gb");  // the default link's
  EXPECT_EQ(link.problems[1].error.message.rfind(
                "--gpu: unknown id 'h100-sxm6-80gb'. Did you mean: h100-sxm5-80gb", 0),
            0u)
      << link.problems[1].error.message;
  EXPECT_EQ(link.state.query.request.model, "gpt2-small");
  // A misspelling the CLI has no suggestion for gets the nearest ids.
  link = page_state_from_link("model=gtp2");
  check_link_ids(catalog(), link);
  ASSERT_EQ(link.problems.size(), 1u);
  EXPECT_EQ(
      link.problems[0].error.message.rfind("--model: unknown id 'gtp2'. Did you mean: gpt2-", 0),
      0u)
      << link.problems[0].error.message;
}

TEST(Link, NamesAreReadAsTheCliReadsThem) {
  // A Hugging Face id stays as written, so its checkpoint suffix sets the weights as on the CLI;
  // a GPU's name ("H100 SXM 80GB" is one of its aliases) becomes its id.
  ParsedLink link =
      page_state_from_link("model=nvidia/Llama-3.3-70B-Instruct-FP8&gpu=h100-sxm-80gb");
  check_link_ids(catalog(), link);
  EXPECT_TRUE(link.problems.empty()) << link.problems[0].error.message;
  EXPECT_EQ(link.state.query.request.model, "nvidia/Llama-3.3-70B-Instruct-FP8");
  EXPECT_EQ(link.state.query.gpu, "h100-sxm5-80gb");
  auto ev = compute(catalog(), link.state, nullptr, nullptr, nullptr);
  ASSERT_TRUE(ev.ok()) << ev.error().message;
  EXPECT_EQ(ev.value().model.id, "llama-3.3-70b");
  EXPECT_EQ(ev.value().model.checkpoint_weights, "fp8");
  link = page_state_from_link("model=llama2-7b");  // the CLI's --model takes it too
  check_link_ids(catalog(), link);
  EXPECT_TRUE(link.problems.empty());
}

TEST(ModelSearch, FindsANameAsWrittenOrSuggestsTheCliNames) {
  const ModelSearch all = search_models(catalog(), "");
  EXPECT_EQ(all.matches.size(), catalog().models.size());
  const ModelSearch hf = search_models(catalog(), "Qwen/Qwen2.5-32B-Instruct-AWQ");
  ASSERT_EQ(hf.matches.size(), 1u);
  EXPECT_EQ(hf.matches[0]->id, "qwen2.5-32b");
  const ModelSearch sub = search_models(catalog(), "gemma-3");
  EXPECT_EQ(sub.matches.size(), 4u);  // 1b, 4b, 12b, 27b
  EXPECT_TRUE(sub.suggested.empty());
  const ModelSearch miss = search_models(catalog(), "llama-9-7b");
  EXPECT_TRUE(miss.matches.empty());
  ASSERT_FALSE(miss.suggested.empty());
  EXPECT_EQ(miss.suggested[0]->id, "llama-2-7b");
  EXPECT_TRUE(search_models(catalog(), "zzzzqqqq").suggested.empty());
}

TEST(Link, StrictReadingStillNamesTheFirstBadKey) {
  auto s = page_state_from_query("model=gpt2-small&lang=fr");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "--lang: 'fr' is not one of en, zh");
}

TEST(Numbers, SeparatorsAndChineseCounts) {
  set_language(Lang::en);
  EXPECT_EQ(format_number(2e6), "2,000,000");
  EXPECT_EQ(format_number(1234.5, 5), "1,234.5");
  EXPECT_EQ(format_number(-0.25), "-0.25");
  EXPECT_EQ(format_count(124439808), "124,439,808");
  EXPECT_EQ(format_duration(0.0445), "2.67 min");
  EXPECT_EQ(format_usd(1234.567), "1,235 USD");
  set_language(Lang::zh);
  EXPECT_EQ(format_count(124439808), "1.244 亿");
  EXPECT_EQ(format_count(250000), "25 万");
  EXPECT_EQ(format_duration(0.0445), "2.67 分钟");
  set_language(Lang::en);
}

TEST(Messages, FlagsBecomePageControls) {
  set_language(Lang::en);
  EXPECT_EQ(page_message("--batch: 0 is out of range [1, 100000000]"),
            "Global batch: 0 is out of range [1, 100000000]");
  EXPECT_EQ(page_message("--seq: must be > 0"), "Sequence length: must be > 0");
  EXPECT_EQ(page_message("something else"), "something else");
  EXPECT_EQ(page_message("--batch 6 is not divisible by --dp x --micro-batch = 4"),
            "Global batch 6 is not divisible by --dp x Micro-batch (0 = auto) = 4");
  set_language(Lang::zh);
  EXPECT_EQ(page_message("--batch: 0 is out of range"),
            std::string("全局批量") + ": 0 is out of range");
  set_language(Lang::en);
  EXPECT_EQ(lang_from_code("zh-CN"), Lang::zh);
  EXPECT_EQ(lang_from_code("zh"), Lang::zh);
  EXPECT_EQ(lang_from_code("en-US"), Lang::en);
  EXPECT_EQ(lang_from_code("zu"), Lang::en);
}

// Every message id the core can emit has a Chinese template in strings.inc, whose English
// column is the core's template and whose placeholders are the same ({0}, {1}, ...).
TEST(Messages, EveryCoreMessageIdHasAChineseEntry) {
  ASSERT_FALSE(message_specs().empty());
  for (const MessageSpec& m : message_specs()) {
    S entry{};
    ASSERT_TRUE(core_message_string(m.msg, entry)) << "strings.inc has no entry for " << m.id;
    EXPECT_STREQ(tr(entry, Lang::en), m.english) << m.id;
    const std::string zh = tr(entry, Lang::zh);
    EXPECT_EQ(message_placeholders(zh), message_placeholders(m.english)) << m.id << ": " << zh;
    EXPECT_NE(zh, m.english) << m.id << " is not translated";
  }
  S none{};
  EXPECT_FALSE(core_message_string(Msg::none, none));
}

TEST(Messages, BadLinkInChineseShowsTheChineseMessage) {
  ParsedLink link = page_state_from_link("lang=zh&model=gpt2-small&batch=-5&gpu=h100-nope");
  check_link_ids(catalog(), link);
  ASSERT_EQ(link.problems.size(), 2u);
  set_language(Lang::zh);
  EXPECT_EQ(page_message(link.problems[0].error), "全局批量：-5 超出范围 [1, 100000000]");
  EXPECT_EQ(
      page_message(link.problems[1].error).rfind("GPU：未知 id“h100-nope”。你是不是要找：", 0), 0u)
      << page_message(link.problems[1].error);
  // A message without an id stays English; the CLI's text is unchanged.
  EXPECT_EQ(page_message(make_error(Errc::invalid_argument, "--seq: odd")), "序列长度: odd");
  set_language(Lang::en);
  EXPECT_EQ(page_message(link.problems[0].error),
            "Global batch: -5 is out of range [1, 100000000]");
  EXPECT_EQ(link.problems[0].error.message, "--batch: -5 is out of range [1, 100000000]");
}

TEST(Messages, ImpossibleSetupInChinese) {
  PageState s = default_page_state();
  s.query.gpus = 4;
  s.query.request.setup.tp = 3;
  const auto c = compute(catalog(), s, nullptr);
  ASSERT_FALSE(c.ok());
  ASSERT_EQ(c.error().id, Msg::eval_tp_pp_not_divide) << c.error().message;
  set_language(Lang::zh);
  EXPECT_EQ(page_message(c.error()), "张量并行 x 流水线并行 x 上下文并行 = 3，不能整除 4 块 GPU");
  set_language(Lang::en);
}

TEST(Compute, AutoMicroBatchIsTheLargestThatFits) {
  PageState s =
      page_state_from_query("model=gpt2-medium&batch=512&precision=amp-bf16&gpu=a100-sxm4-80gb")
          .value();
  const auto c = compute(catalog(), s, nullptr);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c.value().fit.fits);
  const int64_t micro = c.value().estimate.micro_batch;
  EXPECT_LT(micro, 512);
  EXPECT_EQ(512 % micro, 0);
  // The next divisor up does not fit.
  s.query.request.setup.micro_batch = micro * 2;
  EXPECT_FALSE(compute(catalog(), s, nullptr).value().fit.fits);
}

TEST(Compute, FitAdviceOverTheCapacityFollowsTheVerdict) {
  // Over the capacity but within the memory error band: a caution, not "Does not fit".
  bool seen_tight_over = false, seen_over = false;
  for (int seq = 1024; seq <= 2048; seq += 16) {
    const PageState s =
        page_state_from_query(
            "model=mpt-1b&batch=10&micro-batch=10&precision=amp-bf16&attention=eager&gpu=a100-"
            "sxm4-80gb&seq=" +
            std::to_string(seq))
            .value();
    const auto r = compute(catalog(), s, nullptr);
    ASSERT_TRUE(r.ok()) << r.error().message;
    const Evaluation& c = r.value();
    if (c.fit.fits) continue;
    const bool tight = c.verdict.fit == Fit::tight;
    seen_tight_over |= tight;
    seen_over |= !tight;
    const std::string advice = fit_advice(c);
    EXPECT_EQ(advice.rfind(tight ? "Tight, may not fit" : "Does not fit", 0), 0u) << advice;
  }
  EXPECT_TRUE(seen_tight_over);
  EXPECT_TRUE(seen_over);
}

TEST(Compute, BandLinesStateTheirEvidenceAndLinkTheBenchmarksRows) {
  // No validated run used an Ada GPU: the page says the band was widened, in its language, and
  // links the rows of the band's pool on the Benchmarks page.
  const PageState s =
      page_state_from_query("model=llama-2-7b&gpu=l40s&gpus=8&zero=3&precision=mixed-bf16").value();
  const auto computed = compute(catalog(), s, nullptr);
  ASSERT_TRUE(computed.ok()) << computed.error().message;
  const Evaluation& c = computed.value();
  ASSERT_TRUE(c.time) << (c.hardware_error ? c.hardware_error->message : "");
  ASSERT_GT(c.time_band.rows, 0);
  EXPECT_NE(band_evidence(c.time_band).find("widened for an unvalidated GPU architecture"),
            std::string::npos)
      << band_evidence(c.time_band);
  const std::string url = benchmarks_rows_url(c.time_band, BandTable::time);
  EXPECT_EQ(url.rfind("../benchmarks/#band-time-decoder", 0), 0u) << url;
  EXPECT_EQ(url.find('*'), std::string::npos);
  EXPECT_EQ(benchmarks_rows_url(c.verdict.band, BandTable::memory)
                .rfind("../benchmarks/#band-memory-", 0),
            0u);
  set_language(Lang::zh);
  EXPECT_NE(band_evidence(c.time_band).find("未验证的 GPU 架构"), std::string::npos);
  EXPECT_EQ(
      benchmarks_rows_url(c.time_band, BandTable::time).rfind("../zh/benchmarks/#band-time-", 0),
      0u);
  EXPECT_EQ(help_url(), "../zh/calculator-help/");
  set_language(Lang::en);
  EXPECT_EQ(help_url(), "../calculator-help/");
}

TEST(Compute, PublishedRunOfTheSetupBesideThePrediction) {
  // DeepLearningExamples' ResNet-50 AMP row T002 (2,470 img/s on one A100 80GB at batch 256).
  PageState s =
      page_state_from_query("model=resnet50&batch=256&precision=amp-fp16&gpu=a100-sxm4-80gb")
          .value();
  const auto c = compute(catalog(), s, nullptr);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c.value().published.size(), 1u);
  const PublishedComparison& p = c.value().published[0];
  EXPECT_EQ(p.run.row.id, "T002");
  EXPECT_EQ(published_measured_text(p).rfind("measured: 2,470 img/s (NVIDIA DeepLearningExamples, "
                                             "DGX A100, 1 x a100-sxm4-80gb; table ",
                                             0),
            0u)
      << published_measured_text(p);
  ASSERT_TRUE(p.predicted);
  EXPECT_NE(published_predicted_text(p).find(signed_percent(p.error)), std::string::npos);
  // Another batch is another operating point: nothing matches.
  s.query.request.setup.global_batch = 64;
  EXPECT_TRUE(compute(catalog(), s, nullptr).value().published.empty());
}

TEST(Compute, MeasuredRunBesideThePrediction) {
  ProbeFile f;
  f.signature = ProbeSignature::valid;
  auto run = parse_measured_payload(
      R"({"schema_version": 1, "kind": "gpuplan-measure", "tool": {"name": "gpuplan-measure",
  "version": "0.1.0"}, "started_utc": "2026-12-01T15:00:00Z", "finished_utc": "2026-12-01T15:00:02Z",
  "arguments": [], "host": {"hostname": "vm", "os": "Linux", "python": "3.11.2", "torch": "1.13.0"},
  "device": {"type": "cpu", "name": "AMD EPYC", "count": 2, "memory_bytes": null, "sm_count": null,
             "compute_capability": null, "sm_clock_max_mhz": null, "memory_clock_max_mhz": null,
             "driver_version": null, "cuda_runtime": null},
  "setup": {"world_size": 1, "rank": 0, "batch_per_step": 16, "batch_source": "given",
            "param_dtype": "float32", "autocast_dtype": null, "parameters": 2372},
  "timing": {"cuda_synchronised": false, "warmup_steps": 5, "steps": 20,
             "step_s": {"median": 0.02, "mean": 0.021, "min": 0.019, "max": 0.03},
             "samples_per_s": 800.0},
  "memory": {"peak_allocated_bytes": null, "peak_reserved_bytes": null, "absent_reason": "CPU run"},
  "not_measured": [], "warnings": []})",
      "payload");
  ASSERT_TRUE(run.ok()) << run.error().message;
  f.measured = run.value();
  const PageState s = page_state_from_query("model=resnet18&batch=16&gpu=a100-sxm4-80gb").value();
  const auto r = compute(catalog(), s, nullptr, &f);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Evaluation& c = r.value();
  ASSERT_TRUE(c.measured_run && c.time);
  EXPECT_DOUBLE_EQ(c.measured_run->measured_step_s, 0.02);
  EXPECT_DOUBLE_EQ(c.measured_run->predicted_step_s, c.time->step_s);
  const auto rows = measured_rows(c, *f.measured);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].difference, signed_percent(c.measured_run->error));
  EXPECT_EQ(rows[1].measured, "800");
  EXPECT_EQ(rows[2].measured, "absent");  // memory is not measured on a CPU
  EXPECT_EQ(rows[3].measured, "absent");
  EXPECT_EQ(rows[3].difference, "-");
  EXPECT_FALSE(compute(catalog(), s, nullptr).value().measured_run);  // no file, no comparison
}

// The page's frames over the core's sliced search (model/slices.h, as App runs them): a long
// search spreads over frames by the work each frame does, so the spread is the same on every
// machine, and the plans are plan()'s. The time bound is left out here (an hour): it only adds
// frames on a slow machine.
TEST(Plans, ALongSearchSpreadsOverFramesByWorkAndRanksAsOneSearch) {
  for (const char* link :
       {"model=llama-2-7b&precision=amp-bf16&batch=512&seq=4096&tokens=1e11&max-nodes=128",
        "model=llama-2-7b&batch=64&seq=2048&precision=bf16&zero=3&tokens=1e9&objective=time",
        "model=gpt2-medium&batch=64&precision=amp-bf16&tokens=2e9&plan-gpu=a100-sxm4-80gb"}) {
    const PageState s = page_state_from_query(link).value();
    const Model& model = *catalog().find_model(s.query.request.model);
    const PlanQuery q = plan_query(catalog(), s, model);
    auto whole = plan(catalog(), model, q);
    ASSERT_TRUE(whole.ok()) << whole.error().message;
    auto search = start_plan_search(catalog(), model, q);
    ASSERT_TRUE(search.ok()) << search.error().message;
    PlanSearch& ps = search.value();
    SliceStats stats;
    int64_t largest_slice = 0;
    auto step = [&] {
      const int64_t before = ps.candidates;
      const bool ran = step_plan_search(catalog(), ps);
      largest_slice = std::max(largest_slice, ps.candidates - before);
      return ran;
    };
    while (!ps.finished()) {
      run_slices_for_a_frame(
          step, [&] { return ps.candidates; }, [&] { return ps.finished(); },
          kPlanCandidatesPerFrame, std::chrono::hours(1), stats);
    }
    EXPECT_EQ(stats.slices, static_cast<int64_t>(ps.pending.size())) << link;
    EXPECT_EQ(stats.work, whole.value().candidates) << link;
    // No frame does more than its share and the one slice that crosses it.
    EXPECT_LT(stats.largest_frame, kPlanCandidatesPerFrame + largest_slice) << link;
    EXPECT_GE(stats.frames, (stats.work + kPlanCandidatesPerFrame + largest_slice - 1) /
                                (kPlanCandidatesPerFrame + largest_slice))
        << link;
    // The firstuse browser test's search (the first link) is long: it takes several frames there.
    if (std::string(link).find("max-nodes=128") != std::string::npos) {
      EXPECT_GE(stats.frames, 3);
    }
    auto sliced = finish_plan_search(catalog(), ps);
    ASSERT_TRUE(sliced.ok()) << sliced.error().message;
    ASSERT_EQ(sliced.value().plans.size(), whole.value().plans.size()) << link;
    for (size_t i = 0; i < whole.value().plans.size(); ++i) {
      EXPECT_EQ(sliced.value().plans[i].instance, whole.value().plans[i].instance)
          << link << " #" << i;
      EXPECT_EQ(sliced.value().plans[i].cost.usd_total, whole.value().plans[i].cost.usd_total);
      if (!s.query.plan_gpu.empty()) {
        EXPECT_EQ(sliced.value().plans[i].gpu, s.query.plan_gpu) << link;
      }
    }
    ASSERT_EQ(sliced.value().pareto.size(), whole.value().pareto.size()) << link;
  }
}

TEST(Compute, NearestIds) {
  EXPECT_EQ(nearest_ids("gtp2", {"gpt2-small", "gpt2", "resnet50"}, 2),
            (std::vector<std::string>{"gpt2", "gpt2-small"}));
}

// The issue-14 example as a link: the same keys as `gpuplan serve`'s options.
constexpr const char* kServeLink =
    "model=llama-3-8b&rate=30&load-curve=diurnal&prompt-tokens=1500&output-tokens=300&"
    "ttft-ms=1000&tpot-ms=50&gpu=h100-sxm5-80gb";

TEST(Serving, ALinkWithServeKeysOpensTheServingTabAndRoundTrips) {
  ParsedLink link = page_state_from_link(kServeLink);
  check_link_ids(catalog(), link);
  ASSERT_TRUE(link.problems.empty()) << link.problems.front().error.message;
  const PageState& s = link.state;
  EXPECT_EQ(s.tab, Tab::serving);
  EXPECT_EQ(s.query.request.model, "llama-3-8b");
  EXPECT_EQ(s.serve.rate_per_s, 30);
  EXPECT_EQ(s.serve.prompt_tokens, 1500);
  EXPECT_EQ(s.serve.tpot_ms, 50);
  EXPECT_EQ(s.serve.load_curve, "diurnal");
  EXPECT_EQ(s.serve.gpu, "h100-sxm5-80gb");
  EXPECT_EQ(s.query.gpu, default_page_state().query.gpu);  // the serving filter is not the GPU
  const std::string written = page_state_to_query(s);
  EXPECT_EQ(written, std::string("v=1&") + kServeLink + "&tab=serving");
  EXPECT_EQ(page_state_to_query(page_state_from_query(written).value()), written);
  // tab=serving alone opens on the page's example; the calculator's links stay as they were.
  EXPECT_EQ(page_state_from_query("tab=serving").value().serve.rate_per_s, 30);
  EXPECT_EQ(page_state_from_query("tab=serving").value().serve.tpot_ms, 50);
  EXPECT_EQ(page_state_from_query("model=gpt2-medium&tp=2").value().tab, Tab::results);
}

TEST(Serving, ABadServeKeyFallsBackAndKeepsTheRest) {
  ParsedLink link = page_state_from_link("model=llama-3-8b&rate=12&tp=99&kv=fp2");
  ASSERT_EQ(link.problems.size(), 2u);
  EXPECT_EQ(link.problems[0].error.message, "--tp: 99 is out of range [1, 64]");
  EXPECT_EQ(link.problems[1].error.message, "--kv: 'fp2' is not one of bf16, fp8, fp4");
  EXPECT_EQ(link.state.serve.rate_per_s, 12);
  EXPECT_EQ(link.state.serve.tp, 0);
  EXPECT_EQ(link.state.tab, Tab::serving);
}

TEST(Serving, TheSlicedJobRanksAsPlanServing) {
  const PageState s = page_state_from_query(kServeLink).value();
  ServeResults out;
  auto job = start_serve_job(catalog(), s, out);
  ASSERT_TRUE(out.error.message.empty()) << out.error.message;
  EXPECT_EQ(out.progress, 0);
  const ServingAssumptions serving = serving_assumptions(embedded_data_files()).value();
  int slices = 0;
  while (!job->done) {
    step_serve_job(catalog(), serving, *job, out);
    ++slices;
    EXPECT_LE(out.progress, 1.0);
  }
  ASSERT_TRUE(out.error.message.empty()) << out.error.message;
  EXPECT_GT(slices, 2);
  EXPECT_EQ(out.progress, 1.0);
  const ServeQuery q = serve_query(s.serve, preset_load_curve("diurnal", 30).value());
  auto whole = plan_serving(catalog(), serving, *catalog().find_model("llama-3-8b"), q);
  ASSERT_TRUE(whole.ok()) << whole.error().message;
  ASSERT_TRUE(out.plan);
  ASSERT_EQ(out.plan->options.size(), whole.value().options.size());
  for (size_t i = 0; i < out.plan->options.size(); ++i) {
    EXPECT_EQ(out.plan->options[i].instance, whole.value().options[i].instance);
    EXPECT_EQ(out.plan->options[i].fleet.fixed_replicas,
              whole.value().options[i].fleet.fixed_replicas);
    EXPECT_EQ(out.plan->options[i].costs.front().usd_per_month_autoscaled,
              whole.value().options[i].costs.front().usd_per_month_autoscaled);
  }
  // The latency curve climbs with the rate, and at the replica's highest rate within the SLO
  // the simulation meets the TPOT target.
  ASSERT_EQ(out.latency.size(), 15u);
  EXPECT_LT(out.latency.front().tpot_s, out.latency.back().tpot_s);
  EXPECT_LE(out.latency[9].tpot_s, 0.050);
}

// --disaggregate in a link: the page's sliced job plans the two pools as `gpuplan serve` does,
// and the tab's mirror shows them.
TEST(Serving, ADisaggregatedLinkPlansThePoolsAsTheCliDoes) {
  const std::string link =
      "model=llama-3-70b&rate=20&prompt-tokens=2000&output-tokens=200&ttft-ms=1000&tpot-ms=50&"
      "instance=aws-p5.48xlarge&tp=4&disaggregate=1&decode-tp=2&tab=serving";
  const PageModel m = page_test::computed_page(link);
  ASSERT_TRUE(m.serve.plan && m.serve.plan->disaggregated);
  const ServeRequest r = page_state_from_query(link).value().serve;
  const ServingAssumptions serving = serving_assumptions(embedded_data_files()).value();
  auto whole = plan_serving(catalog(), serving, *catalog().find_model("llama-3-70b"),
                            serve_query(r, preset_load_curve("flat", 20).value()));
  ASSERT_TRUE(whole.ok() && whole.value().disaggregated) << whole.error().message;
  const DisaggPlan& page = *m.serve.plan->disaggregated;
  const DisaggPlan& cli = *whole.value().disaggregated;
  EXPECT_EQ(page.decode.tp, 2);
  EXPECT_EQ(page.gpus_fixed, cli.gpus_fixed);
  EXPECT_DOUBLE_EQ(page.usd_per_month_fixed, cli.usd_per_month_fixed);
  const auto j = nlohmann::json::parse(results_json(m, ""));
  EXPECT_EQ(j["serving"]["disaggregated"]["gpus_fixed"], cli.gpus_fixed);
  EXPECT_EQ(j["serving"]["disaggregated"]["kv_link"], "NVLink");
}

TEST(Serving, ATypedLoadCurveAndThePolicyTravelInTheLinkAndReachThePlan) {
  // The diurnal preset written out, with its small hours doubled: 24 rates of the user's own.
  LoadCurve typed = preset_load_curve("diurnal", 30).value();
  for (size_t h = 0; h < 6; ++h) typed[h] *= 2;
  const std::string link =
      std::string(kServeLink)
          .replace(std::string(kServeLink).find("diurnal"), 7, load_curve_key(typed)) +
      "&min-replicas=2&target-utilisation=0.6";
  ParsedLink parsed = page_state_from_link(link);
  ASSERT_TRUE(parsed.problems.empty()) << parsed.problems.front().error.message;
  EXPECT_EQ(parsed.state.serve.min_replicas, 2);
  EXPECT_EQ(parsed.state.serve.target_utilisation, 0.6);
  ServeResults out;
  auto job = start_serve_job(catalog(), parsed.state, out);
  ASSERT_TRUE(out.error.message.empty()) << out.error.message;
  ASSERT_EQ(out.curve.size(), 24u);
  for (size_t h = 0; h < 24; ++h) EXPECT_NEAR(out.curve[h], typed[h], 1e-5 * typed[h]) << h;
  const ServingAssumptions serving = serving_assumptions(embedded_data_files()).value();
  while (!job->done) step_serve_job(catalog(), serving, *job, out);
  ASSERT_TRUE(out.plan) << out.error.message;
  for (const auto& o : out.plan->options) {
    for (const auto& h : o.fleet.hours) EXPECT_GE(h.replicas, 2) << o.instance;
  }
  // 23 numbers is an error that says what is wrong, not a plan.
  parsed.state.serve.load_curve = load_curve_key(LoadCurve(23, 1.0));
  EXPECT_TRUE(start_serve_job(catalog(), parsed.state, out)->done);
  EXPECT_NE(out.error.message.find("expected 24 hourly rates"), std::string::npos)
      << out.error.message;
}

TEST(Serving, ACustomModelOrUnknownGpuIsAnErrorNotACrash) {
  ServeResults out;
  PageState s = page_state_from_query(kServeLink).value();
  s.serve.gpu = "z100";
  EXPECT_TRUE(start_serve_job(catalog(), s, out)->done);
  EXPECT_EQ(out.error.message, "--gpu: unknown GPU 'z100' (run 'gpuplan gpus')");  // the CLI's
  EXPECT_NE(out.error.id, Msg::none);  // so the page shows it in Chinese too
  set_language(Lang::zh);
  const std::string zh = page_message(out.error);
  set_language(Lang::en);
  EXPECT_NE(zh.find("z100"), std::string::npos) << zh;
  EXPECT_EQ(zh.find("unknown GPU"), std::string::npos) << zh;
  s.serve.gpu.clear();
  s.query.custom.kind = CustomModel::Kind::transformer;
  EXPECT_TRUE(start_serve_job(catalog(), s, out)->done);
  EXPECT_NE(out.error.message, "");
}

// A link with lengths=sharegpt plans with ShareGPT's own lengths (the plan's note says so); with
// a prompt length as well it is the CLI's error, which the page shows in Chinese too.
TEST(Serving, AShareGptLinkPlansWithTheDatasetsLengths) {
  ServeResults out;
  PageState s =
      page_state_from_query(
          "model=llama-3-8b&rate=30&ttft-ms=1000&tpot-ms=50&gpu=h100-sxm5-80gb&lengths=sharegpt")
          .value();
  auto job = start_serve_job(catalog(), s, out);
  ASSERT_TRUE(out.error.message.empty()) << out.error.message;
  const ServingAssumptions serving = serving_assumptions(embedded_data_files()).value();
  while (!job->done) step_serve_job(catalog(), serving, *job, out);
  ASSERT_TRUE(out.plan) << out.error.message;
  ASSERT_FALSE(out.plan->notes.empty());
  EXPECT_NE(out.plan->notes.front().find("ShareGPT"), std::string::npos);
  s.serve.prompt_tokens = 1500;
  EXPECT_TRUE(start_serve_job(catalog(), s, out)->done);
  EXPECT_EQ(out.error.message,
            "--prompt-tokens: --lengths sharegpt draws ShareGPT's own prompt and output lengths; "
            "drop --prompt-tokens or use --lengths fixed");
  set_language(Lang::zh);
  const std::string zh = page_message(out.error);
  set_language(Lang::en);
  EXPECT_NE(zh.find("ShareGPT 自身"), std::string::npos) << zh;
}

TEST(Serving, PickingTypedInAnErrorStartsFromThePresetsDay) {
  ServeResults out;
  PageState s = page_state_from_query(kServeLink).value();
  ASSERT_EQ(s.serve.load_curve, "diurnal");
  const std::string diurnal =
      load_curve_key(preset_load_curve("diurnal", s.serve.rate_per_s).value());
  start_serve_job(catalog(), s, out);
  EXPECT_EQ(typed_curve_seed(s.serve, out), diurnal);  // the day shown
  s.serve.gpu = "z100";                                // an error: the tab shows no day
  EXPECT_TRUE(start_serve_job(catalog(), s, out)->done);
  ASSERT_TRUE(out.curve.empty());
  EXPECT_EQ(typed_curve_seed(s.serve, out), diurnal);  // not "" (read back as flat)
  s.serve.load_curve = "";
  EXPECT_EQ(typed_curve_seed(s.serve, out),
            load_curve_key(LoadCurve(24, s.serve.rate_per_s)));  // flat at the peak rate
}

// The charts' ticks (chart_ticks.cpp): linear axes and a log axis too narrow for its 1-2-5 and
// 1-9 mantissas share one rule, round steps of 2, 5 or 10 times a power of ten.
TEST(Charts, LinearTicksAreRoundStepsCoveringTheRange) {
  EXPECT_EQ(linear_ticks(0, 33), (std::vector<double>{0, 10, 20, 30}));
  const std::vector<double> small = linear_ticks(0, 1.1);
  ASSERT_EQ(small.size(), 3u);
  EXPECT_DOUBLE_EQ(small[1], 0.5);
  EXPECT_DOUBLE_EQ(small[2], 1.0);
  EXPECT_TRUE(linear_ticks(5, 5).empty());
}

TEST(Charts, LogTicksUseMantissasThenTheLinearSteps) {
  EXPECT_EQ(log_ticks(0, 2), (std::vector<double>{1, 2, 5, 10, 20, 50, 100}));
  // 10 to 13: one mantissa tick (10) only, so the linear axes' steps (of 1 here: a fifth of
  // the range, 0.6, rounded up to 1).
  const std::vector<double> narrow = log_ticks(1, std::log10(13.0));
  ASSERT_EQ(narrow.size(), 4u);
  for (size_t i = 0; i < narrow.size(); ++i)
    EXPECT_NEAR(narrow[i], 10.0 + static_cast<double>(i), 1e-9) << i;
}

}  // namespace
}  // namespace gpuplan::web
