#pragma once
// A fleet sized for a 24-hour load curve (presets or typed), replicas per hour under a scaling
// policy, and its cost per pricing model. Implemented in core/src/serving/serve_fleet.cpp.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/result.h"

namespace gpuplan {

// A day's load as 24 hourly rates (requests/s).
using LoadCurve = std::vector<double>;
// Presets scaled so their peak is `peak_rate`: "flat", "business-hours", "diurnal".
Result<LoadCurve> preset_load_curve(const std::string& name, double peak_rate);
// Reads 24 numbers separated by commas, spaces or newlines ('#' comments allowed).
Result<LoadCurve> parse_load_curve(std::string_view text, const std::string& where);
// The load-curve key's value: a preset's name ("" is flat), or the 24 rates written out
// ("4,3,3,...": the page's typed curve; its peak is its own, not `peak_rate`).
Result<LoadCurve> load_curve_from_key(const std::string& value, double peak_rate);
// The 24 rates written out as load_curve_from_key reads them back.
std::string load_curve_key(const LoadCurve& curve);

struct ScalingPolicy {
  double target_utilisation = 0.8;  // of a replica's max rate within the SLO
  int min_replicas = 1;
  double instance_start_s = 0;        // boot to ready (stated by the user)
  double model_load_bytes_per_s = 0;  // weights read from disk or network; 0: not counted
  double headroom = 0.2;              // fixed fleet: peak x (1 + headroom)
};
struct FleetHour {
  double rate_per_s = 0;
  int replicas = 0;
};
struct FleetPlan {
  double replica_rate_per_s = 0;   // one replica's max rate within the SLO x target utilisation
  int fixed_replicas = 0;          // for the peak with headroom
  std::vector<FleetHour> hours;    // autoscaled, 24 entries
  double scale_up_delay_s = 0;     // instance start + model load
  int scale_ups = 0;               // replicas started per day
  double replica_hours_fixed = 0;  // per day
  double replica_hours_autoscaled = 0;  // per day, scale-up lead time included
};
// Replicas per hour for a known daily curve: enough for each hour's rate at the target
// utilisation (never fewer than min_replicas); each replica added is started scale_up_delay_s
// ahead of its hour, and billed for that lead time, so a rising load never finds it missing.
Result<FleetPlan> plan_fleet(const LoadCurve& curve, double replica_max_rate, double model_bytes,
                             const ScalingPolicy& policy);

// Cost of a fleet under one pricing model.
struct FleetCost {
  std::string pricing;  // "on-demand", "reserved", "reserved base + spot bursts"
  double usd_per_day_fixed = 0;
  double usd_per_day_autoscaled = 0;
  double usd_per_month_fixed = 0;  // 730 hours
  double usd_per_month_autoscaled = 0;
  double usd_per_million_output_tokens = 0;  // autoscaled
  std::string note;
};
// Prices per instance-hour; a replica uses gpus_per_replica GPUs of instances with
// gpus_per_instance (several replicas share an instance; a large one spans instances).
struct FleetPrices {
  double on_demand_usd_per_hour = 0;
  std::optional<double> reserved_usd_per_hour;
  std::optional<double> spot_usd_per_hour;
  int gpus_per_replica = 1;
  int gpus_per_instance = 1;
};
// Instances needed for `replicas`.
int instances_for(int replicas, const FleetPrices& p);
// Daily and monthly cost, fixed vs autoscaled, for each pricing model with a price.
std::vector<FleetCost> fleet_costs(const FleetPlan& plan, const FleetPrices& prices,
                                   double output_tokens_per_request);

}  // namespace gpuplan
