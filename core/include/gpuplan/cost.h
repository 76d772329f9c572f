#pragma once
// Prices and run costs: which hourly price applies under a pricing model, how many steps a run
// takes, and what it costs, with the expected extra time of spot interruptions.

#include <optional>
#include <string>

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
  std::string date;        // the price's date
  bool assumption = false; // derived from a pricing rule, not a published price
  std::string basis;       // e.g. "published spot price" or "on-demand - 70 % (seed guide rule)"
};

// The lowest price of `instance` under `pricing` in `region` (empty: any region). A published
// price for the pricing model wins over a rule applied to the on-demand price.
Result<PriceQuote> quote_price(const Instance& instance, Pricing pricing, const PricingRules& rules,
                               const std::string& region);

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

// Time and money of a whole run.
struct RunCost {
  double steps = 0;
  double hours = 0;            // uninterrupted
  double expected_hours = 0;   // with spot interruptions
  double usd_per_hour = 0;     // all instances together
  double usd_total = 0;
};

Result<RunCost> run_cost(const Estimate& e, const StepTime& t, const RunLength& run, double usd_per_hour_total,
                         Pricing pricing, const SpotAssumptions& spot);

}  // namespace gpuplan
