#pragma once
// Prices and run costs: which hourly price applies under a pricing model, how many steps a run
// takes, and what it costs, with the expected extra time of spot interruptions.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuplan/estimate.h"
#include "gpuplan/hardware.h"
#include "gpuplan/result.h"
#include "gpuplan/timing.h"

namespace gpuplan {

enum class Pricing { on_demand, monthly, reserved_1y, reserved_3y, bulk, spot };
const char* pricing_name(Pricing p);  // "on-demand", "reserved-1y", ...
std::optional<Pricing> parse_pricing(const std::string& s);

// An hourly price for one instance.
struct PriceQuote {
  double usd_per_hour = 0;
  std::string region;
  std::string date;         // the price's date, or "date unknown, retrieved YYYY-MM-DD"
  bool assumption = false;  // derived from a pricing rule, not a published price
  std::string basis;        // e.g. "published spot price" or "on-demand - 70 % (seed guide rule)"
  std::string rule;  // the rule's name when assumed ("seed-guide-spot-70"); empty when published
  std::string
      source;  // title of the document the price (or the on-demand price a rule used) comes from
  bool date_known = true;
  bool stale = false;
  std::string currency = "USD";  // the currency the provider prices this in
  double native_per_hour = 0;    // the price in `currency` (== usd_per_hour for USD)
  double usd_per_cny = 0;        // the rate used when currency is CNY
  std::string usd_per_cny_source;
  double commitment_h = 0;  // hours the pricing model commits to (a reservation's term); 0: none
  // For a commitment: the share of the term a user must use for it to cost less than on-demand
  // (commitment price / on-demand price, same region); absent when no on-demand price is known.
  std::optional<double> break_even_utilisation;
};

// Hours of the commitment a pricing model sells: a month (8760 / 12), one or three years; 0 for
// on-demand, spot and bulk, which are charged per hour used.
double commitment_hours(Pricing p);

// The lowest price of `instance` under `pricing` in `region` (empty: any region). A published
// price for the pricing model always wins over a rule applied to the on-demand price; a rule is
// applied only where the provider sells that pricing model (instance.offered), and an error says
// so where it does not (e.g. "lambda does not sell spot capacity").
Result<PriceQuote> quote_price(const Instance& instance, Pricing pricing, const PricingRules& rules,
                               const std::string& region);

// The quote's fields for a JSON export: published or assumed (and the rule), currency, date,
// commitment and break-even, so every face can mark an assumed price.
nlohmann::ordered_json price_quote_fields(const PriceQuote& q);

// "Prices as of": the oldest and newest dated price among `quotes`, and how many had no date.
struct PriceDateRange {
  std::string oldest;
  std::string newest;
  int undated = 0;
  std::string label() const;  // "2025-07-13 to 2026-10-10 (2 undated)"
};
PriceDateRange price_date_range(const std::vector<PriceQuote>& quotes);

// USD per unit of `currency` ("USD": 1; "CNY": the quote's own conversion rate when the provider
// prices in CNY, else the catalog's sourced usd_per_cny), so amount_in_currency = usd / rate.
// Error for another currency or when no rate is known.
Result<double> usd_per_currency_unit(const std::string& currency, const PriceQuote& q,
                                     const PricingRules& rules);

// How long a run is: a token budget, or epochs over a dataset.
struct RunLength {
  double tokens = 0;
  double epochs = 0;
  double dataset_size = 0;  // samples per epoch
  bool empty() const { return tokens <= 0 && epochs <= 0; }
};

// Spot interruptions: each costs on average half a checkpoint interval of lost work plus the
// restart time (Young 1974 first-order model of checkpoint/restart).
struct SpotAssumptions {
  double interruptions_per_hour = 0;
  double checkpoint_interval_h = 1;
  double restart_h = 0;
};

// The hourly interruption rate of a published monthly bucket (e.g. AWS Spot Advisor "10-15%"):
// a fraction f of spot capacity reclaimed per month (730 h) is read as a Poisson rate
// -ln(1 - f) / 730 per hour, taking the bucket's upper bound (its lower bound for an open-ended
// bucket such as ">20%"), so the estimate errs towards more interruptions.
Result<double> interruptions_per_hour_from_bucket(const PricingRules& rules,
                                                  const std::string& bucket_id);

// A commitment's use: the share of the committed term the user expects to use for work like this
// run (0: not stated, so the run is charged whole terms).
struct Commitment {
  double utilisation = 0;
};

// Time and money of a whole run.
struct RunCost {
  double steps = 0;
  double hours = 0;           // uninterrupted
  double expected_hours = 0;  // with spot interruptions
  double usd_per_hour = 0;    // all instances together
  double usd_total =
      0;  // for a commitment: whole terms, or the run's share at the stated utilisation
  double commitment_h = 0;  // the term charged (all terms the run spans); 0: pay per hour
  double utilisation = 0;   // the stated share of the term used; 0: not stated
};

// A commitment (monthly, reserved) is charged as a commitment: without a stated utilisation the
// run pays every term it spans (a 10-hour job on a 1-year reservation pays the year); with one,
// it pays its hours divided by the utilisation. Never less than its hours at the committed rate.
Result<RunCost> run_cost(const Estimate& e, const StepTime& t, const RunLength& run,
                         double usd_per_hour_total, Pricing pricing, const SpotAssumptions& spot,
                         const Commitment& commitment = {});

}  // namespace gpuplan
