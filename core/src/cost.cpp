#include "gpuplan/cost.h"

#include <cmath>

namespace gpuplan {

const char* pricing_name(Pricing p) {
  switch (p) {
    case Pricing::on_demand: return "on-demand";
    case Pricing::monthly: return "monthly";
    case Pricing::reserved_1y: return "reserved-1y";
    case Pricing::reserved_3y: return "reserved-3y";
    case Pricing::bulk: return "bulk";
    case Pricing::spot: return "spot";
  }
  return "?";
}

std::optional<Pricing> parse_pricing(const std::string& s) {
  for (Pricing p : {Pricing::on_demand, Pricing::monthly, Pricing::reserved_1y, Pricing::reserved_3y,
                    Pricing::bulk, Pricing::spot}) {
    if (s == pricing_name(p)) return p;
  }
  return std::nullopt;
}

Result<PriceQuote> quote_price(const Instance& instance, Pricing pricing, const PricingRules& rules,
                               const std::string& region) {
  std::optional<PriceQuote> best;
  auto consider = [&](const PriceQuote& q) {
    if (!best || q.usd_per_hour < best->usd_per_hour) best = q;
  };
  for (const Price& p : instance.prices) {
    if (!region.empty() && p.region != region) continue;
    std::optional<double> published;
    switch (pricing) {
      case Pricing::reserved_1y: published = p.reserved_1y_usd_per_hour; break;
      case Pricing::reserved_3y: published = p.reserved_3y_usd_per_hour; break;
      case Pricing::spot: published = p.spot_usd_per_hour; break;
      default: break;
    }
    if (pricing == Pricing::on_demand && p.on_demand_usd_per_hour) {
      consider({*p.on_demand_usd_per_hour, p.region, p.date, false, "published on-demand price"});
    } else if (published) {
      consider({*published, p.region, p.date, false, std::string("published ") + pricing_name(pricing) + " price"});
    } else if (p.on_demand_usd_per_hour) {
      double discount = 0;
      switch (pricing) {
        case Pricing::monthly: discount = rules.monthly; break;
        case Pricing::reserved_1y:
        case Pricing::reserved_3y: discount = rules.reserved; break;
        case Pricing::bulk: discount = rules.bulk; break;
        case Pricing::spot: discount = rules.spot; break;
        case Pricing::on_demand: break;
      }
      const int pct = static_cast<int>(std::lround(discount * 100));
      consider({*p.on_demand_usd_per_hour * (1 - discount), p.region, p.date, true,
                "on-demand - " + std::to_string(pct) + " % (seed guide rule, an assumption)"});
    }
  }
  if (!best) {
    return make_error(Errc::not_found, "instance '" + instance.id + "' has no published price" +
                                           (region.empty() ? std::string() : " in region '" + region + "'"));
  }
  return *best;
}

Result<RunCost> run_cost(const Estimate& e, const StepTime& t, const RunLength& run, double usd_per_hour_total,
                         Pricing pricing, const SpotAssumptions& spot) {
  if (!(t.step_s > 0) || !std::isfinite(t.step_s)) {
    return make_error(Errc::invalid_argument, "step time is not positive");
  }
  RunCost c;
  const double samples_per_step = static_cast<double>(e.global_batch);
  if (run.tokens > 0) {
    const double tokens_per_step = samples_per_step * std::max(e.flops.tokens_per_sample, 1.0);
    c.steps = std::ceil(run.tokens / tokens_per_step);
  } else if (run.epochs > 0) {
    if (run.dataset_size <= 0) {
      return make_error(Errc::invalid_argument, "--epochs needs --dataset-size (samples per epoch)");
    }
    c.steps = std::ceil(run.epochs * run.dataset_size / samples_per_step);
  } else {
    return make_error(Errc::invalid_argument, "give a run length: --tokens N, or --epochs N with --dataset-size N");
  }
  c.hours = c.steps * t.step_s / 3600.0;
  c.expected_hours = c.hours;
  if (pricing == Pricing::spot && spot.interruptions_per_hour > 0) {
    // Each interruption loses half a checkpoint interval on average plus the restart time.
    const double loss_per_hour = spot.interruptions_per_hour * (spot.checkpoint_interval_h / 2 + spot.restart_h);
    if (loss_per_hour >= 1) {
      return make_error(Errc::invalid_argument,
                        "spot interruptions are too frequent for the checkpoint interval: the run would never finish "
                        "(checkpoint more often)");
    }
    c.expected_hours = c.hours / (1 - loss_per_hour);
  }
  c.usd_per_hour = usd_per_hour_total;
  c.usd_total = c.expected_hours * usd_per_hour_total;
  return c;
}

}  // namespace gpuplan
