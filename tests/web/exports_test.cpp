// The page's exports (web/model/exports.h): each tab exports its own table, and the JSON is what
// the CLI prints for the same question (`gpuplan estimate|plan|serve --json`), computed here the
// way the CLI computes it and written by the same core writers.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuplan/embedded_data.h"
#include "gpuplan/evaluate.h"
#include "gpuplan/query.h"
#include "gpuplan/report.h"
#include "gpuplan/serve_plan.h"
#include "model/exports.h"
#include "model/page_model.h"
#include "web_test_util.h"

namespace gpuplan::web {
namespace {

using page_test::catalog;
using page_test::csv_rows;
using page_test::serving;

// A number written with 10 significant digits reads back within that precision.
void expect_number(const std::string& cell, double want, const std::string& what) {
  ASSERT_FALSE(cell.empty()) << what;
  EXPECT_NEAR(std::stod(cell), want, 1e-9 * std::abs(want)) << what << ": " << cell;
}

// A page on `link` before its tab's work runs (each test runs the planner or the serving job
// itself).
PageModel page(const std::string& link) {
  return page_test::computed_page(link, false);
}

constexpr const char* kEstimateLink =
    "model=llama-2-7b&batch=16&precision=bf16&instance=aws-p5.48xlarge&checkpointing=full&zero=3&"
    "tokens=1e9";

TEST(Exports, TheResultsTabExportsItsQuantitiesAndTheEstimateJsonOfTheCli) {
  PageModel m = page(kEstimateLink);
  ASSERT_TRUE(m.ev) << m.error.message;
  const ExportFile csv = export_file(m, ExportKind::csv);
  EXPECT_EQ(csv.name, "gpuplan-results.csv");
  EXPECT_EQ(csv.mime, "text/csv");
  const auto rows = csv_rows(csv.text);
  ASSERT_GT(rows.size(), 10u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"quantity", "value", "unit"}));
  bool total = false;
  for (const auto& r : rows) {
    if (r[0] != "memory_total") continue;
    total = true;
    expect_number(r[1], m.ev->estimate.memory.total(), "memory_total");
  }
  EXPECT_TRUE(total);
  // `gpuplan estimate --json` for the same keys: parse, evaluate, write.
  const ExportFile json = export_file(m, ExportKind::json);
  EXPECT_EQ(json.name, "gpuplan-results.json");
  auto q = parse_query_string(kEstimateLink);
  ASSERT_TRUE(q.ok()) << q.error().message;
  auto cli = evaluate(catalog(), q.value());
  ASSERT_TRUE(cli.ok()) << cli.error().message;
  const auto want = nlohmann::json::parse(evaluation_report_json(cli.value(), catalog().pricing));
  EXPECT_EQ(nlohmann::json::parse(json.text), want);
  EXPECT_TRUE(want.contains("cost") && want.contains("time") && want.contains("published"));
  // Hardware and Benchmarks have no result table of their own: they export the results.
  m.state.tab = Tab::hardware;
  EXPECT_EQ(export_file(m, ExportKind::json).text, json.text);
}

TEST(Exports, AResultsExportWithoutAnEstimateSaysWhy) {
  PageModel m = page("model=llama-2-7b&gpus=3&tp=2");
  ASSERT_FALSE(m.ev);
  const auto j = nlohmann::json::parse(export_file(m, ExportKind::json).text);
  EXPECT_EQ(j.at("schema_version"), kQuerySchemaVersion);
  EXPECT_EQ(j.at("error"), m.error.message);
  EXPECT_FALSE(m.error.message.empty());
  EXPECT_EQ(csv_rows(export_file(m, ExportKind::csv).text).size(), 1u);  // the header
}

TEST(Exports, ThePlansTabExportsOneRowPerPlanAndThePlanJsonOfTheCli) {
  // The CLI's keys; the page adds its own (the tab).
  constexpr const char* keys =
      "model=gpt2-medium&batch=64&precision=amp-bf16&tokens=2000000000&provider=aws";
  PageModel m = page(std::string(keys) + "&tab=plans");
  ASSERT_TRUE(m.ev) << m.error.message;
  auto plans = plan(catalog(), m.ev->model, plan_query(catalog(), m.state, m.ev->model));
  ASSERT_TRUE(plans.ok()) << plans.error().message;
  m.plans = plans.value();
  ASSERT_GT(m.plans->plans.size(), 2u);
  const ExportFile csv = export_file(m, ExportKind::csv);
  EXPECT_EQ(csv.name, "gpuplan-plans.csv");
  const auto rows = csv_rows(csv.text);
  ASSERT_EQ(rows.size(), m.plans->plans.size() + 1);
  EXPECT_EQ(rows[0][1], "instance");
  EXPECT_EQ(rows[0][11], "time_h");
  EXPECT_EQ(rows[0][12], "cost_usd");
  EXPECT_EQ(rows[0][14], "mfu_percent");
  for (size_t i = 0; i < m.plans->plans.size(); ++i) {
    const Plan& p = m.plans->plans[i];
    const auto& r = rows[i + 1];
    ASSERT_EQ(r.size(), rows[0].size());
    EXPECT_EQ(r[0], std::to_string(i + 1));
    EXPECT_EQ(r[1], p.instance);
    EXPECT_EQ(r[2], p.gpu);
    EXPECT_EQ(r[3], std::to_string(p.nodes));
    EXPECT_EQ(r[5] + "/" + r[6] + "/" + r[7], std::to_string(p.setup.dp) + "/" +
                                                  std::to_string(p.setup.tp) + "/" +
                                                  std::to_string(p.setup.pp));
    expect_number(r[11], p.cost.expected_hours, "time_h");
    expect_number(r[12], p.cost.usd_total, "cost_usd");
    expect_number(r[14], 100 * p.time.mfu, "mfu_percent");
  }
  // `gpuplan plan --json` for the same keys: the CLI's planner query (no page GPU filter here).
  auto q = parse_query_string(keys);
  ASSERT_TRUE(q.ok()) << q.error().message;
  const Model& model = *catalog().find_model("gpt2-medium");
  auto cli = plan(catalog(), model, gpuplan::plan_query(catalog(), model, q.value()));
  ASSERT_TRUE(cli.ok()) << cli.error().message;
  const ExportFile json = export_file(m, ExportKind::json);
  EXPECT_EQ(json.name, "gpuplan-plans.json");
  EXPECT_EQ(nlohmann::json::parse(json.text),
            nlohmann::json::parse(plan_to_json(cli.value(), ShownCurrency{})));
}

TEST(Exports, ThePlansExportBeforeTheSearchSaysSo) {
  PageModel m = page("model=gpt2-small&tab=plans");
  const auto j = nlohmann::json::parse(export_file(m, ExportKind::json).text);
  EXPECT_NE(j.at("error").get<std::string>().find("has not run"), std::string::npos);
  EXPECT_EQ(csv_rows(export_file(m, ExportKind::csv).text).size(), 1u);
}

constexpr const char* kServeLink =
    "tab=serving&model=llama-3-8b&rate=30&load-curve=diurnal&prompt-tokens=1500&"
    "output-tokens=300&ttft-ms=1000&tpot-ms=50&gpu=h100-sxm5-80gb";

TEST(Exports, TheServingTabExportsItsRankingAndTheServeJsonOfTheCli) {
  PageModel m = page(kServeLink);
  auto job = start_serve_job(catalog(), m.state, m.serve);
  while (!job->done) step_serve_job(catalog(), serving(), *job, m.serve);
  ASSERT_TRUE(m.serve.plan) << m.serve.error.message;
  // `gpuplan serve` for the same keys: its request parser, query, targets and plan.
  const auto link = query_to_args(kServeLink);
  ASSERT_TRUE(link.ok()) << link.error().message;
  Args args;
  for (const auto& kv : link.value())
    if (kv.first != "tab") args.push_back(kv);
  const auto request = parse_serve_request(args);
  ASSERT_TRUE(request.ok()) << request.error().message;
  const ServeRequest& r = request.value();
  const auto curve = load_curve_from_key(r.load_curve, r.rate_per_s);
  ASSERT_TRUE(curve.ok()) << curve.error().message;
  ServeQuery q = serve_query(r, curve.value());
  const auto found = find_serve_targets(catalog(), r.model, q.gpu, q.instance);
  ASSERT_TRUE(found.ok()) << found.error().message;
  const ServeTargets& targets = found.value();
  q.gpu = targets.gpu;
  auto cli = plan_serving(catalog(), serving(), targets.model, q);
  ASSERT_TRUE(cli.ok()) << cli.error().message;
  const auto& options = cli.value().options;
  ASSERT_GT(options.size(), 0u);

  const ExportFile csv = export_file(m, ExportKind::csv);
  EXPECT_EQ(csv.name, "gpuplan-serving.csv");
  const auto rows = csv_rows(csv.text);
  ASSERT_EQ(rows.size(), options.size() + 1);
  EXPECT_EQ(rows[0][5], "ttft_p90_ms");
  for (size_t i = 0; i < options.size(); ++i) {
    const ServeOption& o = options[i];
    const auto& row = rows[i + 1];
    ASSERT_EQ(row.size(), rows[0].size());
    EXPECT_EQ(row[1], o.instance.empty() ? o.gpu : o.instance);
    EXPECT_EQ(row[2], o.gpu);
    EXPECT_EQ(row[3], std::to_string(o.tp));
    expect_number(row[4], o.rate.max_rate_per_s, "rate");
    expect_number(row[5], o.rate.at_max.ttft_s.p90 * 1000, "ttft");
    expect_number(row[6], o.rate.at_max.tpot_s.p90 * 1000, "tpot");
    EXPECT_EQ(row[7], std::to_string(o.fleet.fixed_replicas));
    if (o.costs.empty()) {
      EXPECT_EQ(row[11], "");
    } else {
      expect_number(row[11], o.costs.front().usd_per_month_autoscaled, "autoscaled");
    }
  }
  const ExportFile json = export_file(m, ExportKind::json);
  EXPECT_EQ(json.name, "gpuplan-serving.json");
  // `gpuplan serve --json` in USD: the plan with its currency stated, as the Plans export does.
  const auto page_json = nlohmann::json::parse(json.text);
  EXPECT_EQ(page_json, nlohmann::json::parse(serve_plan_to_json(targets.model.id, q.curve,
                                                                cli.value(), ShownCurrency{})));
  EXPECT_EQ(page_json.at("shown_currency").at("currency"), "USD");
  EXPECT_EQ(page_json.at("shown_currency").at("usd_per_unit"), 1.0);
  EXPECT_TRUE(page_json.at("shown_currency").at("rate_source").is_null());
  // Stating USD adds that block only: every other field is the plain writer's.
  auto without_block = page_json;
  without_block.erase("shown_currency");
  EXPECT_EQ(without_block,
            nlohmann::json::parse(serve_plan_to_json(targets.model.id, q.curve, cli.value())));
}

TEST(Exports, TextCellsWithACommaAreQuoted) {
  PlanResult r;
  Plan p;
  p.instance = "odd,name";
  p.gpu = "g\"1";
  r.plans.push_back(p);
  const std::string csv = plans_csv(r);
  EXPECT_NE(csv.find("\n1,\"odd,name\",\"g\"\"1\","), std::string::npos) << csv;
}

}  // namespace
}  // namespace gpuplan::web
