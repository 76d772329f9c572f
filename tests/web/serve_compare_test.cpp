// The Serving tab's comparison (web/model/serve_compare.h): each row is what `gpuplan serve
// --gpu ID` (or `--instance ID`) ranks first for the same load and targets, computed here as the
// CLI computes it (tools/cli/cmd_serve.cpp: its own link parsed, plan_serving at once); the
// compare set travels in the link; the table's order follows the column clicked.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuplan/embedded_data.h"
#include "gpuplan/query.h"
#include "gpuplan/serve_plan.h"
#include "model/page_model.h"
#include "model/serve_compare.h"
#include "web_test_util.h"

namespace gpuplan::web {
namespace {

using page_test::catalog;
using page_test::serving;

constexpr const char* kLoad =
    "model=llama-3-8b&rate=30&load-curve=diurnal&prompt-tokens=1500&output-tokens=300&"
    "ttft-ms=1000&tpot-ms=50";

// `gpuplan serve` with the load above and one more option (`gpu=ID` or `instance=ID`), as the
// CLI runs it.
Result<ServePlan> cli_serve(const std::string& option) {
  auto r = parse_serve_request(query_to_args(std::string(kLoad) + "&" + option).value());
  if (!r.ok()) return r.error();
  ServeQuery q = serve_query(r.value(), load_curve_from_key(r.value().load_curve, 30).value());
  auto targets = find_serve_targets(catalog(), r.value().model, q.gpu, q.instance);
  if (!targets.ok()) return targets.error();
  q.gpu = targets.value().gpu;
  return plan_serving(catalog(), serving(), targets.value().model, q);
}

CompareResults run_compare(const PageState& s, int* slices = nullptr) {
  CompareResults out;
  auto job = start_compare_job(catalog(), s, out);
  int n = 0;
  while (!job->done) {
    step_compare_job(catalog(), serving(), *job, out);
    ++n;
    EXPECT_LE(out.progress, 1.0);
  }
  if (slices) *slices = n;
  return out;
}

void expect_same_option(const ServeOption& row, const ServeOption& cli) {
  EXPECT_EQ(row.gpu, cli.gpu);
  EXPECT_EQ(row.instance, cli.instance);
  EXPECT_EQ(row.tp, cli.tp);
  EXPECT_EQ(row.rate.max_rate_per_s, cli.rate.max_rate_per_s);
  EXPECT_EQ(row.fleet.fixed_replicas, cli.fleet.fixed_replicas);
  ASSERT_EQ(row.fleet.hours.size(), cli.fleet.hours.size());
  for (size_t h = 0; h < cli.fleet.hours.size(); ++h)
    EXPECT_EQ(row.fleet.hours[h].replicas, cli.fleet.hours[h].replicas) << "hour " << h;
  ASSERT_EQ(row.costs.size(), cli.costs.size());
  for (size_t c = 0; c < cli.costs.size(); ++c) {
    EXPECT_EQ(row.costs[c].usd_per_month_fixed, cli.costs[c].usd_per_month_fixed);
    EXPECT_EQ(row.costs[c].usd_per_month_autoscaled, cli.costs[c].usd_per_month_autoscaled);
    EXPECT_EQ(row.costs[c].usd_per_million_output_tokens,
              cli.costs[c].usd_per_million_output_tokens);
  }
}

TEST(ServeCompare, EachRowIsTheFirstOptionOfGpuplanServeForItsGpuOrInstance) {
  const std::vector<std::string> ids = {"h100-sxm5-80gb", "a100-sxm4-80gb", "l40s",
                                        "aws-p4d.24xlarge"};
  PageState s = page_state_from_query(std::string(kLoad)).value();
  s.serve_compare = ids;
  int slices = 0;
  const CompareResults out = run_compare(s, &slices);
  ASSERT_TRUE(out.error.message.empty()) << out.error.message;
  EXPECT_EQ(out.progress, 1.0);
  // One replica search per slice: many slices, not one long one.
  EXPECT_GT(slices, static_cast<int>(ids.size()));
  ASSERT_EQ(out.rows.size(), ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    SCOPED_TRACE(ids[i]);
    const CompareRow& row = out.rows[i];
    EXPECT_EQ(row.target, ids[i]);
    EXPECT_EQ(row.is_instance, i == 3);
    auto cli = cli_serve((row.is_instance ? "instance=" : "gpu=") + ids[i]);
    if (!cli.ok()) {
      // The CLI's failure is the row's, word for word.
      EXPECT_FALSE(row.option);
      EXPECT_EQ(row.error.message, cli.error().message);
      continue;
    }
    ASSERT_TRUE(row.option) << row.error.message;
    expect_same_option(*row.option, cli.value().options.front());
    const ServeQuery q = serve_query(s.serve, load_curve_from_key("diurnal", 30).value());
    EXPECT_EQ(row.meets_targets, meets_slo(cli.value().options.front().rate.at_max, q.slo));
  }
  // The H100 meets these targets (the serving browser test's example ranks it).
  EXPECT_TRUE(out.rows[0].meets_targets);
}

TEST(ServeCompare, AnUnknownIdIsItsRowsErrorAndTheOthersStillRun) {
  PageState s = page_state_from_query(std::string(kLoad)).value();
  s.serve_compare = {"h100-sxm5-80gb", "h100-sxm9"};
  const CompareResults out = run_compare(s);
  ASSERT_EQ(out.rows.size(), 2u);
  ASSERT_TRUE(out.rows[0].option) << out.rows[0].error.message;
  EXPECT_FALSE(out.rows[1].option);
  EXPECT_EQ(out.rows[1].error.message, cli_serve("gpu=h100-sxm9").error().message);
  EXPECT_NE(out.rows[1].error.message, "");
}

TEST(ServeCompare, AModelNotInTheZooFailsTheWholeSet) {
  PageState s = page_state_from_query(std::string(kLoad)).value();
  s.query.request.model = "llama-9-9b";
  s.serve_compare = {"h100-sxm5-80gb"};
  const CompareResults out = run_compare(s);
  EXPECT_TRUE(out.rows.empty());
  EXPECT_EQ(out.error.message, cli_serve("gpu=h100-sxm5-80gb&model=llama-9-9b").error().message);
}

TEST(ServeCompare, AnEmptySetRunsNothing) {
  CompareResults out;
  auto job = start_compare_job(catalog(), page_state_from_query(kLoad).value(), out);
  EXPECT_TRUE(job->done);
  EXPECT_TRUE(out.rows.empty());
  EXPECT_EQ(out.progress, 1.0);
}

// Rows made by hand: the order is the table's sorting, whatever the numbers.
CompareRow priced_row(const std::string& gpu, double usd_per_month) {
  CompareRow row;
  row.target = gpu;
  ServeOption o;
  o.gpu = gpu;
  FleetCost c;
  c.usd_per_month_autoscaled = usd_per_month;
  o.costs.push_back(c);
  row.option = o;
  return row;
}

TEST(ServeCompare, SortingByCostOrdersTheRowsEitherWayWithUnpricedRowsLast) {
  CompareResults r;
  r.rows = {priced_row("b", 300), priced_row("a", 100), CompareRow{}, priced_row("c", 200)};
  r.rows[2].target = "unknown";
  using V = std::vector<size_t>;
  EXPECT_EQ(compare_order(r, {CompareColumn::month, false}, 90), (V{1, 3, 0, 2}));
  EXPECT_EQ(compare_order(r, {CompareColumn::month, true}, 90), (V{0, 3, 1, 2}));
  EXPECT_EQ(compare_order(r, {CompareColumn::gpu, false}, 90), (V{1, 0, 3, 2}));
}

TEST(ServeCompare, TheSetRoundTripsThroughTheLinkOnTheServingTab) {
  PageState s = page_state_from_query(std::string(kLoad) + "&tab=serving").value();
  s.serve_compare = {"h100-sxm5-80gb", "aws-p4d.24xlarge"};
  const std::string link = page_state_to_query(s);
  const ParsedLink back = page_state_from_link(link);
  ASSERT_TRUE(back.problems.empty()) << back.problems.front().error.message;
  EXPECT_EQ(back.state.serve_compare, s.serve_compare) << link;
  EXPECT_EQ(back.state.tab, Tab::serving);
  EXPECT_EQ(back.state.serve.rate_per_s, 30);
  EXPECT_NE(link.find("&serve-compare=h100-sxm5-80gb,aws-p4d.24xlarge"), std::string::npos) << link;
  // A page-only key, as tab and compare are: `gpuplan serve` takes one --gpu and no such option,
  // and the serving link's other keys are read by the CLI's parser as before.
  EXPECT_FALSE(find_serve_key("serve-compare"));
  EXPECT_FALSE(find_query_key("serve-compare"));
  // At most kServeCompareMax.
  const ParsedLink many = page_state_from_link("tab=serving&serve-compare=a,b,c,d,e,f,g,h");
  EXPECT_EQ(many.state.serve_compare.size(), kServeCompareMax);
}

}  // namespace
}  // namespace gpuplan::web
