// Fleet sizing over a day: load curves (presets or typed), replicas per hour under a scaling
// policy, and cost per pricing model. Presets are shapes, not measurements: "flat" is the peak
// all day, "business-hours" the peak from 09:00 to 18:00 and a tenth of it otherwise,
// "diurnal" a cosine between a fifth of the peak at 02:00 and the peak at 14:00.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "gpuplan/serve_fleet.h"

namespace gpuplan {
namespace {

constexpr double kHoursPerMonth = 730.0;  // 8760 h / 12

Error invalid(Msg id, std::vector<std::string> args = {}) {
  return make_error(Errc::invalid_argument, id, std::move(args));
}

}  // namespace

Result<LoadCurve> preset_load_curve(const std::string& name, double peak_rate) {
  if (!(peak_rate > 0) || !std::isfinite(peak_rate)) return invalid(Msg::serve_rate_positive);
  LoadCurve c(24, peak_rate);
  if (name == "flat") return c;
  const double pi = std::acos(-1.0);
  for (int h = 0; h < 24; ++h) {
    if (name == "business-hours") {
      c[static_cast<size_t>(h)] = h >= 9 && h < 18 ? peak_rate : 0.1 * peak_rate;
    } else if (name == "diurnal") {
      c[static_cast<size_t>(h)] = peak_rate * (0.6 + 0.4 * std::cos(2 * pi * (h - 14) / 24.0));
    } else {
      return invalid(Msg::serve_curve_preset, {name});
    }
  }
  return c;
}

Result<LoadCurve> parse_load_curve(std::string_view text, const std::string& where) {
  if (text.size() > 64 * 1024)
    return make_error(Errc::too_large, Msg::serve_curve_too_large, {where});
  LoadCurve c;
  size_t line = 1;
  for (size_t i = 0; i < text.size();) {
    const char ch = text[i];
    if (ch == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (ch == '\n' || ch == ',' || ch == ';' ||
               std::isspace(static_cast<unsigned char>(ch))) {
      if (ch == '\n') ++line;
      ++i;
    } else {
      size_t end = i;
      while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) &&
             text[end] != ',' && text[end] != ';' && text[end] != '#') {
        ++end;
      }
      const std::string token(text.substr(i, end - i));
      char* stop = nullptr;
      const double v = std::strtod(token.c_str(), &stop);
      if (stop != token.c_str() + token.size() || !std::isfinite(v) || v < 0) {
        return make_error(Errc::parse_error, Msg::serve_curve_not_rate,
                          {where, std::to_string(line), token});
      }
      c.push_back(v);
      i = end;
    }
  }
  if (c.size() != 24) {
    return make_error(Errc::schema_error, Msg::serve_curve_size, {where, std::to_string(c.size())});
  }
  if (*std::max_element(c.begin(), c.end()) <= 0)
    return make_error(Errc::schema_error, Msg::serve_curve_all_zero, {where});
  return c;
}

Result<LoadCurve> load_curve_from_key(const std::string& value, double peak_rate) {
  if (value.empty() || value == "flat" || value == "business-hours" || value == "diurnal")
    return preset_load_curve(value.empty() ? "flat" : value, peak_rate);
  if (value.find(',') == std::string::npos) {
    return make_error(Errc::invalid_argument, Msg::serve_curve_key, {value});
  }
  return parse_load_curve(value, "--load-curve");
}

std::string load_curve_key(const LoadCurve& curve) {
  std::string out;
  char buf[32];
  for (double rate : curve) {
    std::snprintf(buf, sizeof buf, "%.6g", rate);
    if (!out.empty()) out += ',';
    out += buf;
  }
  return out;
}

Result<FleetPlan> plan_fleet(const LoadCurve& curve, double replica_max_rate, double model_bytes,
                             const ScalingPolicy& policy) {
  if (curve.size() != 24) return invalid(Msg::serve_curve_hours);
  if (!(policy.target_utilisation > 0 && policy.target_utilisation <= 1)) {
    return invalid(Msg::serve_target_utilisation);
  }
  if (policy.min_replicas < 0 || policy.headroom < 0 || policy.instance_start_s < 0 ||
      policy.model_load_bytes_per_s < 0) {
    return invalid(Msg::serve_scaling_negative);
  }
  if (!(replica_max_rate > 0)) {
    return make_error(Errc::does_not_fit, Msg::serve_fleet_no_rate, {});
  }
  FleetPlan p;
  p.replica_rate_per_s = replica_max_rate * policy.target_utilisation;
  const double peak = *std::max_element(curve.begin(), curve.end());
  if (!(peak * (1 + policy.headroom) / p.replica_rate_per_s < 1e6)) {
    return make_error(Errc::does_not_fit, Msg::serve_fleet_too_many, {});
  }
  auto replicas_for = [&](double rate) {
    return std::max(policy.min_replicas,
                    static_cast<int>(std::ceil(rate / p.replica_rate_per_s - 1e-9)));
  };
  p.fixed_replicas = std::max(1, replicas_for(peak * (1 + policy.headroom)));
  p.scale_up_delay_s =
      policy.instance_start_s +
      (policy.model_load_bytes_per_s > 0 ? model_bytes / policy.model_load_bytes_per_s : 0.0);
  for (double rate : curve) p.hours.push_back({rate, replicas_for(rate)});
  p.replica_hours_fixed = 24.0 * p.fixed_replicas;
  for (size_t h = 0; h < 24; ++h) {
    const int before = p.hours[(h + 23) % 24].replicas;  // the curve repeats daily
    const int added = std::max(0, p.hours[h].replicas - before);
    p.scale_ups += added;
    p.replica_hours_autoscaled += p.hours[h].replicas + added * p.scale_up_delay_s / 3600.0;
  }
  return p;
}

int instances_for(int replicas, const FleetPrices& p) {
  const int per_instance = std::max(1, p.gpus_per_instance);
  const long gpus = static_cast<long>(replicas) * std::max(1, p.gpus_per_replica);
  return static_cast<int>((gpus + per_instance - 1) / per_instance);
}

std::vector<FleetCost> fleet_costs(const FleetPlan& plan, const FleetPrices& prices,
                                   double output_tokens_per_request) {
  // Instance-hours: the hourly fleet rounded up to whole instances, plus scale-up lead time.
  double auto_instance_hours = 0;
  int base = plan.hours.empty() ? 0 : plan.hours.front().replicas;
  for (const FleetHour& h : plan.hours) {
    auto_instance_hours += instances_for(h.replicas, prices);
    base = std::min(base, h.replicas);
  }
  const double lead_h = plan.scale_ups * plan.scale_up_delay_s / 3600.0;
  auto_instance_hours += instances_for(1, prices) * lead_h;
  const double fixed_instance_hours = 24.0 * instances_for(plan.fixed_replicas, prices);
  const double base_hours = 24.0 * instances_for(base, prices);
  double tokens = 0;
  for (const FleetHour& h : plan.hours) tokens += h.rate_per_s * 3600.0 * output_tokens_per_request;

  std::vector<FleetCost> out;
  auto add = [&](const std::string& name, double fixed_rate, double base_rate, double burst_rate,
                 std::string note) {
    FleetCost c;
    c.pricing = name;
    c.usd_per_day_fixed = fixed_instance_hours * fixed_rate;
    c.usd_per_day_autoscaled =
        base_hours * base_rate + std::max(0.0, auto_instance_hours - base_hours) * burst_rate;
    c.usd_per_month_fixed = c.usd_per_day_fixed * kHoursPerMonth / 24.0;
    c.usd_per_month_autoscaled = c.usd_per_day_autoscaled * kHoursPerMonth / 24.0;
    c.usd_per_million_output_tokens = tokens > 0 ? c.usd_per_day_autoscaled / tokens * 1e6 : 0;
    c.note = std::move(note);
    out.push_back(c);
  };
  const double od = prices.on_demand_usd_per_hour;
  add("on-demand", od, od, od, "every instance-hour at the on-demand price");
  if (prices.reserved_usd_per_hour) {
    const double res = *prices.reserved_usd_per_hour;
    add("reserved base + on-demand bursts", res, res, od,
        "the fixed fleet, and the autoscaled fleet's all-day minimum, reserved; replicas above it "
        "on demand");
  }
  if (prices.reserved_usd_per_hour && prices.spot_usd_per_hour) {
    add("reserved base + spot bursts", *prices.reserved_usd_per_hour, *prices.reserved_usd_per_hour,
        *prices.spot_usd_per_hour,
        "burst replicas on spot can be reclaimed (AWS gives two minutes' notice): keep on-demand "
        "fallback");
  }
  return out;
}

}  // namespace gpuplan
