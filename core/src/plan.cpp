#include "gpuplan/plan.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "gpuplan/report.h"

namespace gpuplan {
namespace {

bool compliant(const Provider* provider, const std::string& region, const std::string& need) {
  if (need.empty()) return true;
  if (!provider) return false;
  const Region* r = provider->find_region(region);
  if (!r) return false;
  if (need == "hipaa") return r->hipaa.value_or(false);
  if (need == "gdpr") return r->gdpr_eu.value_or(false);
  if (need == "gov") return r->gov.value_or(false);
  return false;
}

// Powers of two up to n (1, 2, 4, ...).
std::vector<int> powers_of_two(int n) {
  std::vector<int> out;
  for (int x = 1; x <= n; x *= 2) out.push_back(x);
  return out;
}

struct SetupKey {
  int dp, tp, pp, zero;
  int64_t micro;
  Checkpointing ckpt;
  bool operator<(const SetupKey& o) const {
    return std::tie(dp, tp, pp, zero, micro, ckpt) < std::tie(o.dp, o.tp, o.pp, o.zero, o.micro, o.ckpt);
  }
};

}  // namespace

Result<PlanResult> plan(const Catalog& catalog, const Model& model, const PlanQuery& q) {
  if (q.run.empty()) {
    return make_error(Errc::invalid_argument, "give a run length: --tokens N, or --epochs N with --dataset-size N");
  }
  if (q.top_k < 1 || q.top_k > 1000) return make_error(Errc::invalid_argument, "--top must be between 1 and 1000");
  if (q.max_nodes < 1 || q.max_nodes > 1024) return make_error(Errc::invalid_argument, "--max-nodes must be between 1 and 1024");
  if (q.deadline_hours < 0 || q.budget_usd < 0 || !std::isfinite(q.deadline_hours) || !std::isfinite(q.budget_usd)) {
    return make_error(Errc::invalid_argument, "--deadline-hours and --budget-usd must be positive numbers");
  }
  if (!q.compliance.empty() && q.compliance != "hipaa" && q.compliance != "gdpr" && q.compliance != "gov") {
    return make_error(Errc::invalid_argument, "--compliance: '" + q.compliance + "' is not one of hipaa, gdpr, gov");
  }
  Setup base = q.request.setup;
  if (base.mode != Mode::train) return make_error(Errc::invalid_argument, "plan supports --mode train");
  if (base.global_batch == 0) base.global_batch = base.micro_batch > 0 ? base.micro_batch : 256;
  const bool transformer = model.kind == ModelKind::transformer;
  const int64_t heads = transformer ? model.transformer.heads : 1;
  const int64_t kv_heads = transformer ? model.transformer.kv_heads_or_default() : 1;
  const int64_t layers = transformer ? model.transformer.layers + model.transformer.decoder_layers : 1;

  // Checks the workload once, so a bad request reports its own error, not "nothing fits".
  {
    auto probe = estimate(model, base);
    if (!probe.ok()) return probe.error();
  }

  PlanResult result;
  struct Candidate {
    Setup setup;
    Result<Estimate> estimate;
  };
  std::map<SetupKey, Candidate> estimates;
  std::map<int, Result<WorkProfile>> works;  // by tp
  std::map<std::tuple<const Gpu*, int, int64_t>, Result<PassTime>> forwards;  // (gpu, tp, micro)
  // The best configuration of each (instance, node count), by the objective.
  auto better_cost_time = [&](double usd_a, double h_a, double usd_b, double h_b) {
    if (q.objective == Objective::time) return h_a != h_b ? h_a < h_b : usd_a < usd_b;
    return usd_a != usd_b ? usd_a < usd_b : h_a < h_b;
  };
  std::map<std::pair<const Instance*, int>, Plan> best;
  int64_t matched_filters = 0;
  double best_fit_gap = 1e300;  // smallest (needed - capacity) over non-fitting, for the message
  std::string closest_gpu;
  double fastest_hours = 1e300, cheapest_usd = 1e300;

  const std::vector<Checkpointing> ckpts =
      transformer ? std::vector<Checkpointing>{Checkpointing::none, Checkpointing::selective, Checkpointing::full}
                  : std::vector<Checkpointing>{Checkpointing::none};

  for (const Instance& inst : catalog.instances) {
    if (!q.provider.empty() && inst.provider != q.provider) continue;
    const Gpu* gpu = catalog.find_gpu(inst.gpu);
    if (!gpu || gpu->memory_bytes < q.min_gpu_memory_bytes) continue;
    if (!dense_peak_flop_per_s(*gpu, base.precision).ok()) continue;
    const Provider* provider = catalog.find_provider(inst.provider);
    // The cheapest price that passes the region and compliance filters.
    std::optional<PriceQuote> price;
    for (const Price& p : inst.prices) {
      if (!q.region.empty() && p.region != q.region) continue;
      if (!compliant(provider, p.region, q.compliance)) continue;
      auto quote = quote_price(inst, q.pricing, catalog.pricing, p.region);
      if (quote.ok() && (!price || quote.value().usd_per_hour < price->usd_per_hour)) price = quote.value();
    }
    if (!price) continue;
    ++matched_filters;

    for (int nodes : powers_of_two(q.max_nodes)) {
      if (nodes > 1 && inst.network_bytes_per_s <= 0) break;
      auto cluster = instance_cluster(inst, *gpu, nodes);
      if (!cluster.ok()) break;
      const int n = inst.gpu_count * nodes;
      for (int tp : powers_of_two(std::min(inst.gpu_count, transformer ? 64 : 1))) {
        if (heads % tp != 0 || kv_heads % tp != 0) continue;
        for (int pp : powers_of_two(transformer ? static_cast<int>(std::min<int64_t>(n / tp, layers)) : 1)) {
          if (n % (tp * pp) != 0) continue;
          const int dp = n / (tp * pp);
          if (base.global_batch % dp != 0) continue;
          for (int64_t micro : powers_of_two(static_cast<int>(std::min<int64_t>(base.global_batch / dp, 1 << 20)))) {
            if (base.global_batch % (dp * micro) != 0) continue;
            for (int zero = 0; zero <= (dp > 1 ? 3 : 0); ++zero) {
              for (Checkpointing ckpt : ckpts) {
                ++result.candidates;
                const SetupKey key{dp, tp, pp, zero, micro, ckpt};
                auto it = estimates.find(key);
                if (it == estimates.end()) {
                  Setup s = base;
                  s.dp = dp;
                  s.tp = tp;
                  s.pp = pp;
                  s.zero_stage = zero;
                  s.micro_batch = micro;
                  s.checkpointing = ckpt;
                  auto e = estimate(model, s);
                  it = estimates.emplace(key, Candidate{std::move(s), std::move(e)}).first;
                }
                if (!it->second.estimate.ok()) continue;
                const Estimate& e = it->second.estimate.value();
                const Setup& s = it->second.setup;
                const double need = e.memory.total();
                if (need > gpu->memory_bytes) {
                  if (need - gpu->memory_bytes < best_fit_gap) {
                    best_fit_gap = need - gpu->memory_bytes;
                    closest_gpu = gpu->id;
                  }
                  continue;
                }
                ++result.fitting;
                auto w = works.find(tp);
                if (w == works.end()) w = works.emplace(tp, build_work_profile(model, s, e)).first;
                if (!w->second.ok()) continue;
                auto f = forwards.find({gpu, tp, micro});
                if (f == forwards.end()) {
                  f = forwards.emplace(std::make_tuple(gpu, tp, micro),
                                       pass_time_s(model, s, w->second.value(), *gpu, q.efficiencies,
                                                      static_cast<double>(micro)))
                          .first;
                }
                if (!f->second.ok()) continue;
                auto t = estimate_step_time_with(model, s, e, w->second.value(), cluster.value(), q.efficiencies,
                                                 q.input, f->second.value());
                if (!t.ok()) continue;
                auto c = run_cost(e, t.value(), q.run, price->usd_per_hour * nodes, q.pricing, q.spot);
                if (!c.ok()) return c.error();
                fastest_hours = std::min(fastest_hours, c.value().expected_hours);
                cheapest_usd = std::min(cheapest_usd, c.value().usd_total);
                if (q.deadline_hours > 0 && c.value().expected_hours > q.deadline_hours) continue;
                if (q.budget_usd > 0 && c.value().usd_total > q.budget_usd) continue;
                ++result.within_limits;
                auto slot = best.find({&inst, nodes});
                const bool wins = slot == best.end() ||
                                  better_cost_time(c.value().usd_total, c.value().expected_hours,
                                                   slot->second.cost.usd_total, slot->second.cost.expected_hours);
                if (!wins) continue;
                Plan p;
                p.instance = inst.id;
                p.provider = inst.provider;
                p.gpu = gpu->id;
                p.nodes = nodes;
                p.gpus = n;
                p.setup = s;
                p.memory = e.memory;
                p.gpu_memory_bytes = gpu->memory_bytes;
                p.time = t.value();
                p.price = *price;
                p.cost = c.value();
                best[{&inst, nodes}] = std::move(p);
              }
            }
          }
        }
      }
    }
  }

  if (matched_filters == 0) {
    return make_error(Errc::does_not_fit, "no priced instance matches the filters (provider, region, compliance, "
                                          "minimum GPU memory, precision support): relax them");
  }
  if (result.fitting == 0) {
    return make_error(Errc::does_not_fit,
                      "memory binds: no configuration fits in GPU memory; the closest (" + closest_gpu + ") is " +
                          format_bytes(best_fit_gap) + " short (try --checkpointing full, a smaller --batch, "
                          "more --max-nodes, or --lora-rank)");
  }
  if (best.empty()) {
    std::string why;
    if (q.deadline_hours > 0 && fastest_hours > q.deadline_hours) {
      why = "deadline binds: the fastest plan takes " + std::to_string(fastest_hours).substr(0, 8) + " h";
    } else {
      why = "budget binds: the cheapest plan costs " + std::to_string(cheapest_usd).substr(0, 10) + " USD";
    }
    return make_error(Errc::does_not_fit, why + " (relax --deadline-hours or --budget-usd, or raise --max-nodes)");
  }

  auto better = [&](const Plan& a, const Plan& b) {
    return better_cost_time(a.cost.usd_total, a.cost.expected_hours, b.cost.usd_total, b.cost.expected_hours);
  };
  std::vector<Plan> ranked;
  for (auto& [key, p] : best) ranked.push_back(p);
  std::sort(ranked.begin(), ranked.end(), better);
  // Pareto front over time and cost: sorted by time, keep each that is cheaper than all faster.
  std::vector<Plan> by_time = ranked;
  std::sort(by_time.begin(), by_time.end(), [](const Plan& a, const Plan& b) {
    return a.cost.expected_hours != b.cost.expected_hours ? a.cost.expected_hours < b.cost.expected_hours
                                                          : a.cost.usd_total < b.cost.usd_total;
  });
  double cheapest_so_far = 1e300;
  for (const auto& p : by_time) {
    if (p.cost.usd_total < cheapest_so_far) {
      cheapest_so_far = p.cost.usd_total;
      result.pareto.push_back(p);
      result.pareto.back().pareto = true;
    }
  }
  for (auto& p : ranked) {
    for (const auto& f : result.pareto) {
      if (f.instance == p.instance && f.nodes == p.nodes) p.pareto = true;
    }
  }
  if (ranked.size() > static_cast<size_t>(q.top_k)) ranked.resize(static_cast<size_t>(q.top_k));
  result.plans = std::move(ranked);
  if (q.pricing == Pricing::spot && q.spot.interruptions_per_hour <= 0) {
    result.notes.push_back("spot times assume no interruptions; set --spot-interruptions-per-hour");
  }
  return result;
}

}  // namespace gpuplan
