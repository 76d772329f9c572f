// Pricing as clouds sell it: currencies, spot only where sold, published prices over rules,
// commitments charged as commitments, break-even, undated prices, spot interruption buckets.
#include <gtest/gtest.h>

#include <cmath>

#include "gpuplan/cost.h"
#include "test_util.h"

namespace gpuplan {
namespace {

const Instance& instance(const std::string& id) {
  const Instance* in = test::catalog().find_instance(id);
  if (!in) {
    ADD_FAILURE() << "instance '" << id << "' is not in the catalog";
    static const Instance empty;
    return empty;
  }
  return *in;
}

// A run of exactly `hours` hours: one step of `hours` h over one sample.
struct OneStep {
  Estimate e;
  StepTime t;
  RunLength run;
  explicit OneStep(double hours) {
    e.global_batch = 1;
    e.flops.tokens_per_sample = 1;
    t.step_s = hours * 3600;
    run.tokens = 1;
  }
};

TEST(Pricing, CnyPriceIsStoredInCnyAndConvertedAtItsSourcedRate) {
  const Instance& gn6i = instance("alibaba-ecs.gn6i-c4g1.xlarge");
  auto q = quote_price(gn6i, Pricing::on_demand, test::catalog().pricing, "cn-hangzhou");
  ASSERT_TRUE(q.ok()) << q.error().message;
  EXPECT_EQ(q.value().currency, "CNY");
  EXPECT_DOUBLE_EQ(q.value().usd_per_cny, 0.138);
  EXPECT_NEAR(q.value().native_per_hour, 11.714, 1e-9);  // the snapshot's 1.616532 USD / 0.138
  EXPECT_NEAR(q.value().usd_per_hour, 11.714 * 0.138, 1e-9);
  auto rate = usd_per_currency_unit("CNY", q.value(), test::catalog().pricing);
  ASSERT_TRUE(rate.ok());
  EXPECT_NEAR(q.value().usd_per_hour / rate.value(), 11.714, 1e-9);
  EXPECT_FALSE(usd_per_currency_unit("EUR", q.value(), test::catalog().pricing).ok());
}

TEST(Pricing, UndatedSnapshotSaysSoAndIsStale) {
  auto q = quote_price(instance("alibaba-ecs.gn6i-c4g1.xlarge"), Pricing::on_demand,
                       test::catalog().pricing, "cn-hangzhou");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q.value().date, "date unknown, retrieved 2026-12-01");
  EXPECT_FALSE(q.value().date_known);
  EXPECT_TRUE(q.value().stale);
  auto dated = quote_price(instance("aws-p4d.24xlarge"), Pricing::on_demand,
                           test::catalog().pricing, "us-east-1");
  const PriceDateRange r = price_date_range({q.value(), dated.value()});
  EXPECT_EQ(r.label(), "2025-11-30 (1 undated)");
}

TEST(Pricing, NoSpotRuleWhereTheProviderSellsNoSpot) {
  auto q = quote_price(instance("lambda-gpu-1x-a10"), Pricing::spot, test::catalog().pricing, "");
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().message,
            "lambda does not sell spot capacity (instance 'lambda-gpu-1x-a10'; "
            "data/providers/lambda.json)");
  // On-demand still prices.
  EXPECT_TRUE(
      quote_price(instance("lambda-gpu-1x-a10"), Pricing::on_demand, test::catalog().pricing, "")
          .ok());
}

TEST(Pricing, PublishedSpotWinsOverTheCheaperRule) {
  // The -70 % rule would give 0.526 x 0.3 = 0.158 USD/h; the published spot price is 0.163.
  auto q =
      quote_price(instance("aws-g4dn.xlarge"), Pricing::spot, test::catalog().pricing, "us-east-1");
  ASSERT_TRUE(q.ok());
  EXPECT_FALSE(q.value().assumption);
  EXPECT_TRUE(q.value().rule.empty());
  EXPECT_DOUBLE_EQ(q.value().usd_per_hour, 0.163);
  EXPECT_EQ(q.value().date, "2024-09");  // the spot price's own source and date
  EXPECT_NE(q.value().source.find("cloudypad"), std::string::npos);
  // Where none is published the rule stays the fallback, and says so.
  auto ruled =
      quote_price(instance("aws-g4dn.xlarge"), Pricing::spot, test::catalog().pricing, "eu-west-1");
  ASSERT_TRUE(ruled.ok());
  EXPECT_TRUE(ruled.value().assumption);
  EXPECT_EQ(ruled.value().rule, "seed-guide-spot-70");
}

TEST(Pricing, ReservationIsChargedItsTermNeverLess) {
  const OneStep ten_hours(10);
  auto c = run_cost(ten_hours.e, ten_hours.t, ten_hours.run, 2.0, Pricing::reserved_1y, {});
  ASSERT_TRUE(c.ok());
  EXPECT_DOUBLE_EQ(c.value().commitment_h, 8760);
  EXPECT_DOUBLE_EQ(c.value().usd_total, 8760 * 2.0);  // the whole year, not 10 hours
  auto shared = run_cost(ten_hours.e, ten_hours.t, ten_hours.run, 2.0, Pricing::reserved_1y, {},
                         Commitment{0.5});
  ASSERT_TRUE(shared.ok());
  EXPECT_DOUBLE_EQ(shared.value().usd_total, 10 * 2.0 / 0.5);
  EXPECT_GE(shared.value().usd_total, 10 * 2.0);
  const OneStep long_run(9000);  // spans two yearly terms
  EXPECT_DOUBLE_EQ(run_cost(long_run.e, long_run.t, long_run.run, 1.0, Pricing::reserved_1y, {})
                       .value()
                       .usd_total,
                   2 * 8760.0);
  auto bad = run_cost(ten_hours.e, ten_hours.t, ten_hours.run, 2.0, Pricing::reserved_1y, {},
                      Commitment{1.5});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "reservation utilisation must be between 0 and 1 (a share of the term)");
  // Pay-as-you-go pricings are untouched.
  EXPECT_DOUBLE_EQ(run_cost(ten_hours.e, ten_hours.t, ten_hours.run, 2.0, Pricing::on_demand, {})
                       .value()
                       .usd_total,
                   20);
}

TEST(Pricing, BreakEvenUtilisationIsReservedOverOnDemand) {
  auto q = quote_price(instance("aws-p4d.24xlarge"), Pricing::reserved_1y, test::catalog().pricing,
                       "us-east-1");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(q.value().break_even_utilisation.has_value());
  EXPECT_NEAR(*q.value().break_even_utilisation, 13.921094 / 21.957642, 1e-12);
  EXPECT_DOUBLE_EQ(q.value().commitment_h, 8760);
  auto od = quote_price(instance("aws-p4d.24xlarge"), Pricing::on_demand, test::catalog().pricing,
                        "us-east-1");
  EXPECT_FALSE(od.value().break_even_utilisation.has_value());
}

TEST(Pricing, SpotBucketBecomesAnHourlyRate) {
  auto r = interruptions_per_hour_from_bucket(test::catalog().pricing, "aws-5-10");
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r.value(), -std::log(1 - 0.10) / 730, 1e-15);
  auto open = interruptions_per_hour_from_bucket(test::catalog().pricing,
                                                 "aws-gt20");  // lower bound of ">20%"
  EXPECT_NEAR(open.value(), -std::log(1 - 0.20) / 730, 1e-15);
  auto bad = interruptions_per_hour_from_bucket(test::catalog().pricing, "aws-99");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "spot interruption bucket 'aws-99' is not in pricing_rules.json (known: aws-lt5, "
            "aws-5-10, aws-10-15, "
            "aws-15-20, aws-gt20)");
}

TEST(Pricing, CnyPriceWithoutItsRateIsRejected) {
  const std::string text =
      R"({"schema_version": 1, "id": "x", "provider": "alibaba", "instance_type": "x", "gpu": "t4",
    "gpu_count": 1, "gpu_source": "s", "sources": {"s": {"title": "t", "url": null, "date": "2026-12-01"}}, "specs": {},
    "prices": [{"region": "cn-hangzhou", "source": "s", "date": "unknown", "retrieved": "2026-12-01", "stale": true,
                "currency": "CNY", "on_demand_cny_per_hour": 11.7}]})";
  auto in = parse_instance_json(text, "instances/x.json");
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.error().message,
            "instances/x.json: prices[0].usd_per_cny: a CNY price needs its conversion rate (a "
            "sourced fact)");
  std::string undated_fresh = text;
  undated_fresh.replace(undated_fresh.find("\"stale\": true"), 13, "\"stale\": false");
  EXPECT_EQ(
      parse_instance_json(undated_fresh, "instances/x.json").error().message,
      "instances/x.json: prices[0].stale: an undated price must be marked stale (\"stale\": true)");
}

}  // namespace
}  // namespace gpuplan
