#include "gpuplan/cost.h"

#include <cmath>

namespace gpuplan {

const char* pricing_name(Pricing p) {
  switch (p) {
    case Pricing::on_demand:
      return "on-demand";
    case Pricing::monthly:
      return "monthly";
    case Pricing::reserved_1y:
      return "reserved-1y";
    case Pricing::reserved_3y:
      return "reserved-3y";
    case Pricing::bulk:
      return "bulk";
    case Pricing::spot:
      return "spot";
  }
  return "?";
}

std::optional<Pricing> parse_pricing(const std::string& s) {
  for (Pricing p : {Pricing::on_demand, Pricing::monthly, Pricing::reserved_1y,
                    Pricing::reserved_3y, Pricing::bulk, Pricing::spot}) {
    if (s == pricing_name(p)) return p;
  }
  return std::nullopt;
}

namespace {

// The published hourly USD price of one kind in one price entry; nullopt when not published.
std::optional<double> published_usd(const Price& p, Pricing pricing) {
  switch (pricing) {
    case Pricing::on_demand:
      return p.on_demand_usd_per_hour;
    case Pricing::reserved_1y:
      return p.reserved_1y_usd_per_hour;
    case Pricing::reserved_3y:
      return p.reserved_3y_usd_per_hour;
    case Pricing::spot:
      return p.spot_usd_per_hour;
    default:
      return std::nullopt;
  }
}

double rule_discount(const PricingRules& rules, Pricing pricing) {
  switch (pricing) {
    case Pricing::monthly:
      return rules.monthly;
    case Pricing::reserved_1y:
    case Pricing::reserved_3y:
      return rules.reserved;
    case Pricing::bulk:
      return rules.bulk;
    case Pricing::spot:
      return rules.spot;
    case Pricing::on_demand:
      break;
  }
  return 0;
}

// A quote from one price entry: `usd` of kind `kind`, its native figure, date and source (the
// kind's own source when the entry names one).
PriceQuote quote_from(const Price& p, const std::string& kind, double usd, double native) {
  PriceQuote q;
  q.usd_per_hour = usd;
  q.region = p.region;
  q.date = p.date_label();
  q.date_known = !p.date.empty();
  q.stale = p.stale;
  q.source = p.source.title;
  q.currency = p.currency;
  q.native_per_hour = native;
  q.usd_per_cny = p.usd_per_cny;
  q.usd_per_cny_source = p.rate_source.title;
  if (auto o = p.origin_by_kind.find(kind); o != p.origin_by_kind.end()) {
    q.source = o->second.source.title;
    q.date = o->second.date;
    q.date_known = true;
  }
  return q;
}

double native_of(const Price& p, const std::string& kind, double usd) {
  auto it = p.native_per_hour.find(kind);
  return it != p.native_per_hour.end() ? it->second : usd;
}

// The lowest published on-demand price in `region`, for break-even.
std::optional<double> on_demand_in(const Instance& instance, const std::string& region) {
  std::optional<double> best;
  for (const Price& p : instance.prices) {
    if (p.region == region && p.on_demand_usd_per_hour &&
        (!best || *p.on_demand_usd_per_hour < *best)) {
      best = p.on_demand_usd_per_hour;
    }
  }
  return best;
}

}  // namespace

double commitment_hours(Pricing p) {
  switch (p) {
    case Pricing::monthly:
      return 8760.0 / 12;
    case Pricing::reserved_1y:
      return 8760.0;
    case Pricing::reserved_3y:
      return 3 * 8760.0;
    default:
      return 0;
  }
}

Result<PriceQuote> quote_price(const Instance& instance, Pricing pricing, const PricingRules& rules,
                               const std::string& region) {
  const std::string kind = pricing_name(pricing);
  std::optional<PriceQuote> published, ruled;
  bool any = false;
  const double discount = rule_discount(rules, pricing);
  for (const Price& p : instance.prices) {
    if (!region.empty() && p.region != region) continue;
    any = true;
    if (auto usd = published_usd(p, pricing)) {
      PriceQuote q = quote_from(p, kind, *usd, native_of(p, kind, *usd));
      q.basis = "published " + kind + " price";
      if (!published || q.usd_per_hour < published->usd_per_hour) published = q;
    } else if (pricing != Pricing::on_demand && p.on_demand_usd_per_hour) {
      const double od = *p.on_demand_usd_per_hour;
      PriceQuote q = quote_from(p, "on-demand", od * (1 - discount),
                                native_of(p, "on-demand", od) * (1 - discount));
      const int pct = static_cast<int>(std::lround(discount * 100));
      q.assumption = true;
      q.rule = "seed-guide-" + kind + "-" + std::to_string(pct);
      q.basis = "on-demand - " + std::to_string(pct) +
                " % (seed guide rule, an assumption: no published " + kind + " price)";
      if (!ruled || q.usd_per_hour < ruled->usd_per_hour) ruled = q;
    }
  }
  const Error none = region.empty() ? make_error(Errc::not_found, Msg::price_none, {instance.id})
                                    : make_error(Errc::not_found, Msg::price_none_in_region,
                                                 {instance.id, region});
  if (!any) return none;
  auto offer = instance.offered.find(kind);
  if (!published && ruled && offer != instance.offered.end() && !offer->second) {
    return make_error(Errc::not_found, Msg::price_not_sold,
                      {instance.provider, kind, instance.id, instance.provider});
  }
  if (!published && ruled && offer == instance.offered.end()) {
    ruled->basis += "; whether " + instance.provider + " sells " + kind + " is not known";
  }
  std::optional<PriceQuote> best = published ? published : ruled;
  if (!best) return none;
  best->commitment_h = commitment_hours(pricing);
  if (best->commitment_h > 0) {
    if (auto od = on_demand_in(instance, best->region); od && *od > 0)
      best->break_even_utilisation = best->usd_per_hour / *od;
  }
  return *best;
}

nlohmann::ordered_json price_quote_fields(const PriceQuote& q) {
  nlohmann::ordered_json j = {
      {"price_is_published", !q.assumption},
      {"price_rule", q.rule.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(q.rule)},
      {"price_source", q.source},
      {"price_date_known", q.date_known},
      {"price_stale", q.stale},
      {"currency", q.currency},
      {"native_per_hour", q.native_per_hour},
      {"usd_per_cny",
       q.currency == "CNY" ? nlohmann::ordered_json(q.usd_per_cny) : nlohmann::ordered_json()},
      {"commitment_hours", q.commitment_h},
      {"break_even_utilisation", q.break_even_utilisation
                                     ? nlohmann::ordered_json(*q.break_even_utilisation)
                                     : nlohmann::ordered_json()},
  };
  return j;
}

std::string PriceDateRange::label() const {
  std::string out = oldest.empty()     ? std::string("none dated")
                    : oldest == newest ? oldest
                                       : oldest + " to " + newest;
  if (undated > 0) out += " (" + std::to_string(undated) + " undated)";
  return out;
}

PriceDateRange price_date_range(const std::vector<PriceQuote>& quotes) {
  PriceDateRange r;
  for (const PriceQuote& q : quotes) {
    if (!q.date_known) {
      ++r.undated;
      continue;
    }
    if (r.oldest.empty() || q.date < r.oldest) r.oldest = q.date;
    if (r.newest.empty() || q.date > r.newest) r.newest = q.date;
  }
  return r;
}

Result<double> usd_per_currency_unit(const std::string& currency, const PriceQuote& q,
                                     const PricingRules& rules) {
  if (currency == "USD" || currency == "usd") return 1.0;
  if (currency != "CNY" && currency != "cny") {
    return make_error(Errc::invalid_argument, "currency '" + currency + "' is not usd or cny");
  }
  const double rate = q.currency == "CNY" && q.usd_per_cny > 0 ? q.usd_per_cny : rules.usd_per_cny;
  if (!(rate > 0))
    return make_error(Errc::not_found,
                      "no USD/CNY conversion rate in the catalog (pricing_rules.json usd_per_cny)");
  return rate;
}

Result<double> interruptions_per_hour_from_bucket(const PricingRules& rules,
                                                  const std::string& bucket_id) {
  std::string ids;
  for (const SpotBucket& b : rules.spot_buckets) {
    if (b.id == bucket_id) {
      const double f =
          b.max_fraction_per_month < 1 ? b.max_fraction_per_month : b.min_fraction_per_month;
      return -std::log1p(-f) / 730.0;
    }
    ids += (ids.empty() ? "" : ", ") + b.id;
  }
  return make_error(Errc::not_found, Msg::price_spot_bucket,
                    {bucket_id, ids.empty() ? std::string("none") : ids});
}

Result<RunCost> run_cost(const Estimate& e, const StepTime& t, const RunLength& run,
                         double usd_per_hour_total, Pricing pricing, const SpotAssumptions& spot,
                         const Commitment& commitment) {
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
      return make_error(Errc::invalid_argument, Msg::cost_epochs_need_dataset, {});
    }
    c.steps = std::ceil(run.epochs * run.dataset_size / samples_per_step);
  } else {
    return make_error(Errc::invalid_argument, Msg::plan_no_run_length, {});
  }
  c.hours = c.steps * t.step_s / 3600.0;
  c.expected_hours = c.hours;
  if (pricing == Pricing::spot && spot.interruptions_per_hour > 0) {
    // Each interruption loses half a checkpoint interval on average plus the restart time.
    const double loss_per_hour =
        spot.interruptions_per_hour * (spot.checkpoint_interval_h / 2 + spot.restart_h);
    if (loss_per_hour >= 1) {
      return make_error(Errc::invalid_argument, Msg::cost_spot_too_frequent, {});
    }
    c.expected_hours = c.hours / (1 - loss_per_hour);
  }
  c.usd_per_hour = usd_per_hour_total;
  c.usd_total = c.expected_hours * usd_per_hour_total;
  if (const double term = commitment_hours(pricing); term > 0) {
    if (commitment.utilisation < 0 || commitment.utilisation > 1) {
      return make_error(Errc::invalid_argument,
                        "reservation utilisation must be between 0 and 1 (a share of the term)");
    }
    c.utilisation = commitment.utilisation;
    c.commitment_h = std::ceil(c.expected_hours / term) * term;  // every term the run spans
    // The run's share of a term used at the stated utilisation, else every term it spans; never
    // less than its own hours at the committed rate.
    c.usd_total = c.utilisation > 0 ? c.expected_hours * usd_per_hour_total / c.utilisation
                                    : c.commitment_h * usd_per_hour_total;
  }
  return c;
}

}  // namespace gpuplan
