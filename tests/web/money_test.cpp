// The page's currency (web/model/i18n.h Money, page_model.h page_money): one sourced rate converts
// every amount shown, a link carries the currency on every tab, exports name it, and the page's
// words for the core's English price dates, uploaded-config names and planner notes.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuplan/embedded_data.h"
#include "gpuplan/hf_config.h"
#include "gpuplan/plan.h"
#include "model/exports.h"
#include "model/i18n.h"
#include "model/page_model.h"
#include "web_test_util.h"

namespace gpuplan::web {
namespace {

using page_test::catalog;
using page_test::csv_rows;

using page_test::computed_page;

constexpr const char* kPlansLink =
    "model=gpt2-medium&batch=64&precision=amp-bf16&tokens=2000000000&provider=aws&tab=plans";

TEST(Money, UsdIsOneAndCnyIsTheCatalogsSourcedRate) {
  const PricingRules& rules = catalog().pricing;
  ASSERT_GT(rules.usd_per_cny, 0) << "data/pricing_rules.json states usd_per_cny";
  auto usd = money_for("usd", rules);
  ASSERT_TRUE(usd.ok());
  EXPECT_EQ(usd.value().currency, "USD");
  EXPECT_EQ(usd.value().usd_per_unit, 1);
  auto cny = money_for("CNY", rules);
  ASSERT_TRUE(cny.ok());
  EXPECT_EQ(cny.value().currency, "CNY");
  EXPECT_EQ(cny.value().usd_per_unit, rules.usd_per_cny);
  EXPECT_EQ(cny.value().rate_source, rules.usd_per_cny_source.title);
  EXPECT_FALSE(cny.value().rate_source.empty()) << "the rate names its source";
}

TEST(Money, AnotherCurrencyOrNoRateIsAnErrorNamingIt) {
  auto eur = money_for("eur", catalog().pricing);
  ASSERT_FALSE(eur.ok());
  EXPECT_EQ(eur.error().message, "currency 'eur' is not usd or cny");
  auto none = money_for("cny", PricingRules{});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("pricing_rules.json usd_per_cny"), std::string::npos);
}

TEST(Money, AmountsConvertByTheOneRateBothWays) {
  const Money cny = money_for("cny", catalog().pricing).value();
  set_money(cny);
  EXPECT_DOUBLE_EQ(usd_to_shown(cny.usd_per_unit * 1000), 1000);
  EXPECT_DOUBLE_EQ(shown_to_usd(usd_to_shown(123.45)), 123.45);
  set_language(Lang::en);
  EXPECT_EQ(format_money(cny.usd_per_unit * 1234), "1,234 CNY");
  EXPECT_EQ(format_money(cny.usd_per_unit * 12.5), "12.50 CNY");
  // The Chinese page writes a CNY amount with the yen sign, as Chinese prices are written.
  set_language(Lang::zh);
  EXPECT_EQ(format_money(cny.usd_per_unit * 1234), "¥1,234");
  EXPECT_EQ(format_money(cny.usd_per_unit * 12.5), "¥12.50");
  EXPECT_EQ(format_money(-cny.usd_per_unit * 12.5), "-¥12.50");
  EXPECT_EQ(format_cny("0.1234"), "¥0.1234");
  set_language(Lang::en);
  EXPECT_EQ(format_cny("0.1234"), "0.1234 CNY");
  set_money(Money{});
  EXPECT_EQ(format_money(1234), "1,234 USD");
}

TEST(Money, PlansExportInCnyKeepsTheOrderAndConvertsEveryCost) {
  PageModel m = computed_page(kPlansLink);
  ASSERT_TRUE(m.plans);
  ASSERT_GT(m.plans->plans.size(), 2u);
  const Money cny = money_for("cny", catalog().pricing).value();
  const auto usd_rows = csv_rows(plans_csv(*m.plans));
  const auto cny_rows = csv_rows(plans_csv(*m.plans, cny));
  ASSERT_EQ(usd_rows.size(), cny_rows.size());
  EXPECT_EQ(usd_rows[0][12], "cost_usd");
  EXPECT_EQ(cny_rows[0][12], "cost_cny");
  for (size_t i = 1; i < usd_rows.size(); ++i) {
    EXPECT_EQ(cny_rows[i][1], usd_rows[i][1]) << "row " << i << ": same plan at the same rank";
    EXPECT_NEAR(std::stod(cny_rows[i][12]), std::stod(usd_rows[i][12]) / cny.usd_per_unit,
                1e-8 * std::stod(cny_rows[i][12]));
  }
  // The JSON export: the CLI's plan JSON, each cost also in CNY, and the rate with its source.
  m.state.query.currency = "CNY";
  const auto j = nlohmann::json::parse(export_file(m, ExportKind::json).text);
  EXPECT_EQ(j.at("shown_currency").at("usd_per_unit").get<double>(), cny.usd_per_unit);
  EXPECT_EQ(j.at("shown_currency").at("rate_source"), cny.rate_source);
  for (const auto& p : j.at("plans")) {
    EXPECT_EQ(p.at("cost").at("shown_currency"), "CNY");
    EXPECT_DOUBLE_EQ(p.at("cost").at("total_in_shown_currency").get<double>(),
                     p.at("cost").at("usd_total").get<double>() / cny.usd_per_unit);
  }
}

TEST(Money, TheRunTotalIsShownAndPublishedInThePagesCurrency) {
  PageModel m = computed_page(
      "model=mpt-1b&batch=256&precision=amp-bf16&instance=lambda-gpu-1x-h100-sxm5&tokens=2.6e10");
  ASSERT_TRUE(m.ev && m.ev->cost && m.ev->price);
  const double usd = m.ev->cost->usd_total;
  const Money cny = money_for("cny", catalog().pricing).value();
  set_money(cny);
  set_language(Lang::zh);
  const std::string shown = run_total_text(*m.ev);
  EXPECT_EQ(shown, format_money(usd));
  EXPECT_EQ(shown.rfind("¥", 0), 0u) << shown;
  // The state the page publishes (window.gpuplanState) carries the same text beside the USD.
  const auto j = nlohmann::json::parse(results_json(m, ""));
  EXPECT_EQ(j.at("cost").at("total_shown"), shown);
  EXPECT_EQ(j.at("cost").at("usd_total").get<double>(), usd);
  set_money(Money{});
  set_language(Lang::en);
  EXPECT_EQ(run_total_text(*m.ev), format_usd(usd));
  // Without a price (a bare GPU) there is no total to show.
  PageModel bare = computed_page("model=mpt-1b&batch=256&gpu=h100-sxm5-80gb&tokens=2.6e10");
  ASSERT_TRUE(bare.ev);
  EXPECT_EQ(run_total_text(*bare.ev), "");
}

TEST(Money, ALinkCarriesTheCurrencyOnEveryTab) {
  for (const char* link :
       {"model=gpt2-small&currency=cny", "model=gpt2-small&currency=cny&tab=plans",
        "model=llama-3-8b&rate=5&currency=cny&tab=serving"}) {
    auto s = page_state_from_query(link);
    ASSERT_TRUE(s.ok()) << link << ": " << s.error().message;
    EXPECT_EQ(s.value().query.currency, "CNY") << link;
    const std::string written = page_state_to_query(s.value());
    EXPECT_NE(written.find("currency=cny"), std::string::npos) << written;
    auto back = page_state_from_query(written);
    ASSERT_TRUE(back.ok()) << written;
    EXPECT_EQ(back.value().query.currency, "CNY") << written;
  }
  // A serving link's bad currency is named, the rest of the link kept.
  ParsedLink bad = page_state_from_link("model=llama-3-8b&rate=5&currency=eur&tab=serving");
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_EQ(bad.problems[0].key, "currency");
  EXPECT_EQ(bad.state.serve.rate_per_s, 5);
  // A Chinese page reads a link without a currency as CNY: there USD is written out.
  PageState usd = page_state_from_query("model=gpt2-small").value();
  EXPECT_EQ(page_link(usd, false), page_state_to_query(usd));
  EXPECT_TRUE(link_states_currency(page_link(usd, true)));
  EXPECT_EQ(page_state_from_query(page_link(usd, true)).value().query.currency, "USD");
  usd.query.currency = "CNY";
  EXPECT_EQ(page_link(usd, true), page_state_to_query(usd));
  EXPECT_TRUE(link_states_currency("model=gpt2-small&currency=usd"));
  EXPECT_FALSE(link_states_currency("model=gpt2-small&lang=zh"));
}

TEST(PageWords, UndatedPricesUploadedConfigsAndPlannerNotesInChinese) {
  set_language(Lang::zh);
  PriceQuote q;
  q.date_known = false;
  q.date = "date unknown, retrieved 2026-12-01";  // Price::date_label's English
  const std::string date = price_date(q);
  EXPECT_NE(date.find("2026-12-01"), std::string::npos) << date;
  EXPECT_EQ(date.find("retrieved"), std::string::npos) << date;
  EXPECT_EQ(date.find("unknown"), std::string::npos) << date;
  // An uploaded config.json's name as the core writes it: "<its _name_or_path or file name>
  // (<model_type>, uploaded config)".
  std::ifstream in(std::string(GPUPLAN_SOURCE_DIR) + "/tests/fixtures/hf/llama-2-7b.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto uploaded = model_from_hf_config(text, "config.json");
  ASSERT_TRUE(uploaded.ok()) << uploaded.error().message;
  EXPECT_EQ(uploaded.value().name, "meta-llama/Llama-2-7b-hf (llama, uploaded config)");
  EXPECT_EQ(model_name(uploaded.value()), "meta-llama/Llama-2-7b-hf（llama，上传的配置）");
  EXPECT_EQ(model_name("config (1).json (qwen2, uploaded config)"),
            "config (1).json（qwen2，上传的配置）");
  EXPECT_EQ(model_name("x (llama4 text model without the vision encoder, uploaded config)"),
            "x（llama4 文本模型（不含视觉编码器），上传的配置）");
  EXPECT_EQ(model_name("GPT-2 small"), "GPT-2 small");
  // The planner's spot note names the page's control, not the CLI flag, in Chinese.
  const std::string note = core_note(
      "spot times assume no interruptions; set "
      "--spot-interruptions-per-hour");
  EXPECT_EQ(note.find("--"), std::string::npos) << note;
  EXPECT_EQ(note.find("spot"), std::string::npos) << note;
  EXPECT_NE(note.find(tr(S::key_spot_interruptions_per_hour)), std::string::npos) << note;
  // An assumed price's basis (quote_price's English) in Chinese: the rule's share and the
  // provider kept, no English words.
  PriceQuote ruled;
  ruled.assumption = true;
  ruled.rule = "seed-guide-spot-70";
  ruled.basis =
      "on-demand - 70 % (seed guide rule, an assumption: no published spot price); "
      "whether acme sells spot is not known";
  const std::string basis = price_basis(ruled, Pricing::spot, "acme");
  EXPECT_NE(basis.find("70 %"), std::string::npos) << basis;
  EXPECT_NE(basis.find("acme"), std::string::npos) << basis;
  for (const char* english : {"on-demand", "seed", "published", "whether", "spot"})
    EXPECT_EQ(basis.find(english), std::string::npos) << basis;
  // Every region the catalog prices in reads as Chinese or as a cloud's region id (a two-letter
  // area and '-', "cn-hangzhou", or a number, "FIN-03"); the catalog's words ("various") do not
  // stay English.
  for (const Instance& instance : catalog().instances) {
    for (const Price& p : instance.prices) {
      const std::string shown = region_text(p.region);
      const bool cloud_id = (p.region.size() > 3 && p.region[2] == '-') ||
                            p.region.find_first_of("0123456789") != std::string::npos;
      if (cloud_id) {
        EXPECT_EQ(shown, p.region) << instance.id;
      } else {
        EXPECT_EQ(shown.find_first_of("abcdefghijklmnopqrstuvwxyz"), std::string::npos)
            << instance.id << ": region '" << p.region << "' shown as '" << shown << "'";
      }
    }
  }
  set_language(Lang::en);
  EXPECT_EQ(price_basis(ruled, Pricing::spot, "acme"), ruled.basis);
  EXPECT_EQ(price_date(q), "date unknown, retrieved 2026-12-01");
}

TEST(PageWords, TheCoresKnownNotesInChinese) {
  // ResNet-50 in fp32 on an A100: the step time's notes on TF32 convolutions and NCHW tensors.
  const PageState s =
      page_state_from_query("model=resnet50&batch=64&precision=fp32&gpu=a100-sxm4-80gb").value();
  auto ev = compute(catalog(), s, nullptr);
  ASSERT_TRUE(ev.ok()) << ev.error().message;
  ASSERT_TRUE(ev.value().time);
  const std::vector<std::string>& notes = ev.value().time->notes;
  ASSERT_GE(notes.size(), 2u);
  set_language(Lang::zh);
  for (const std::string& n : notes) {
    const std::string shown = core_note(n);
    EXPECT_NE(shown, n) << "a step-time note left in English: " << n;
    EXPECT_EQ(shown.find("cuDNN default"), std::string::npos) << shown;
    EXPECT_EQ(shown.find("transposes"), std::string::npos) << shown;
  }
  set_language(Lang::en);
  for (const std::string& n : notes) EXPECT_EQ(core_note(n), page_message(n));
}

}  // namespace
}  // namespace gpuplan::web
