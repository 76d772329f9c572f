// The page's model without a window (web/page_model.h, page_state.h, i18n.h): lenient links,
// nearest ids, numbers per language, page words for core messages, and the core call.
#include <gtest/gtest.h>

#include "gpuplan/embedded_data.h"
#include "i18n.h"
#include "page_model.h"

namespace gpuplan::web {
namespace {

const Catalog& catalog() {
  static const Catalog c = load_catalog(embedded_data_files()).value();
  return c;
}

TEST(Link, OneBadFieldKeepsEveryOtherField) {
  ParsedLink link =
      page_state_from_link("model=llama-2-7b&precision=bf16&gpu=h100-sxm5-80gb&gpus=8&batch=-5");
  check_link_ids(catalog(), link);
  ASSERT_EQ(link.problems.size(), 1u);
  EXPECT_EQ(link.problems[0].key, "batch");
  EXPECT_EQ(link.problems[0].error.message, "--batch: -5 is out of range [1, 100000000]");
  EXPECT_EQ(link.problems[0].used, "auto");
  EXPECT_EQ(link.state.request.model, "llama-2-7b");
  EXPECT_EQ(link.state.request.setup.precision, Precision::bf16);
  EXPECT_EQ(link.state.gpu, "h100-sxm5-80gb");
  EXPECT_EQ(link.state.gpus, 8);
}

TEST(Link, BadPageKeysFallBackOneByOne) {
  ParsedLink link =
      page_state_from_link("model=gpt2-medium&gpus=0&pricing=cheap&tokens=5e9&tab=plans");
  check_link_ids(catalog(), link);
  ASSERT_EQ(link.problems.size(), 2u);
  EXPECT_EQ(link.problems[0].error.message, "--gpus: 0 is out of range [1, 4096]");
  EXPECT_EQ(
      link.problems[1].error.message,
      "--pricing: 'cheap' is not one of on-demand, monthly, reserved-1y, reserved-3y, bulk, spot");
  EXPECT_EQ(link.state.gpus, 1);
  EXPECT_EQ(link.state.run.tokens, 5e9);
  EXPECT_EQ(link.state.tab, Tab::plans);
  EXPECT_EQ(link.state.request.model, "gpt2-medium");
}

TEST(Link, UnknownIdsListTheNearestAndFallBack) {
  ParsedLink link = page_state_from_link("model=llama2-7b&gpu=h100-sxm-80gb");
  check_link_ids(catalog(), link);
  ASSERT_EQ(link.problems.size(), 2u);
  EXPECT_EQ(link.problems[0].error.message.rfind(
                "--model: unknown id 'llama2-7b'. Did you mean: llama-2-7b", 0),
            0u)
      << link.problems[0].error.message;
  EXPECT_EQ(link.problems[0].used, "gpt2-small");
  EXPECT_EQ(link.problems[1].error.message.rfind(
                "--gpu: unknown id 'h100-sxm-80gb'. Did you mean: h100-sxm5-80gb", 0),
            0u)
      << link.problems[1].error.message;
  EXPECT_EQ(link.state.request.model, "gpt2-small");
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
  s.gpus = 4;
  s.request.setup.tp = 3;
  const Computed c = compute(catalog(), s, nullptr);
  ASSERT_EQ(c.error.id, Msg::eval_tp_pp_not_divide) << c.error.message;
  set_language(Lang::zh);
  EXPECT_EQ(page_message(c.error), "张量并行 x 流水线并行 = 3，不能整除 4 块 GPU");
  set_language(Lang::en);
}

TEST(Compute, AutoMicroBatchIsTheLargestThatFits) {
  PageState s =
      page_state_from_query("model=gpt2-medium&batch=512&precision=amp-bf16&gpu=a100-sxm4-80gb")
          .value();
  const Computed c = compute(catalog(), s, nullptr);
  ASSERT_TRUE(c.estimate) << c.error.message;
  EXPECT_TRUE(c.fits);
  const int64_t micro = c.estimate->micro_batch;
  EXPECT_LT(micro, 512);
  EXPECT_EQ(512 % micro, 0);
  // The next divisor up does not fit.
  s.request.setup.micro_batch = micro * 2;
  EXPECT_FALSE(compute(catalog(), s, nullptr).fits);
}

TEST(Plans, SlicedSearchRanksAsOneSearch) {
  for (const char* link :
       {"model=gpt2-medium&batch=64&precision=amp-bf16&tokens=2e9",
        "model=llama-2-7b&batch=64&seq=2048&precision=bf16&zero=3&tokens=1e9&objective=time"}) {
    const PageState s = page_state_from_query(link).value();
    const Model& model = *catalog().find_model(s.request.model);
    auto whole = plan(catalog(), model, plan_query(catalog(), s, model));
    ASSERT_TRUE(whole.ok()) << whole.error().message;
    PlanSearch search = start_plan_search(catalog(), s);
    EXPECT_GT(search.providers.size(), 1u);
    while (step_plan_search(catalog(), model, s, search)) {
    }
    auto sliced = finish_plan_search(s, search);
    ASSERT_TRUE(sliced.ok()) << sliced.error().message;
    EXPECT_EQ(sliced.value().candidates, whole.value().candidates) << link;
    ASSERT_EQ(sliced.value().plans.size(), whole.value().plans.size()) << link;
    for (size_t i = 0; i < whole.value().plans.size(); ++i) {
      EXPECT_EQ(sliced.value().plans[i].instance, whole.value().plans[i].instance)
          << link << " #" << i;
      EXPECT_EQ(sliced.value().plans[i].nodes, whole.value().plans[i].nodes) << link << " #" << i;
      EXPECT_EQ(sliced.value().plans[i].cost.usd_total, whole.value().plans[i].cost.usd_total);
      EXPECT_EQ(sliced.value().plans[i].pareto, whole.value().plans[i].pareto) << link << " #" << i;
    }
    ASSERT_EQ(sliced.value().pareto.size(), whole.value().pareto.size()) << link;
  }
}

TEST(Compute, NearestIds) {
  EXPECT_EQ(nearest_ids("gtp2", {"gpt2-small", "gpt2", "resnet50"}, 2),
            (std::vector<std::string>{"gpt2", "gpt2-small"}));
}

}  // namespace
}  // namespace gpuplan::web
