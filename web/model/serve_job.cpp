#include "model/serve_job.h"

#include <algorithm>
#include <iterator>

namespace gpuplan::web {
namespace {

// The latency curve's rates, as multiples of the replica's highest rate within the SLO: from a
// trickle to half again past it, where the queue grows and the latencies climb.
constexpr double kRateMultiples[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8,
                                     0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5};

std::unique_ptr<ServeJob> failed(ServeResults& out, Error error) {
  out.error = std::move(error);
  auto job = std::make_unique<ServeJob>();
  job->done = true;
  return job;
}

// Ranks the evaluated replicas; then prepares the first option's replica for the curve.
void rank(const Catalog& catalog, const ServingAssumptions& serving, ServeJob& job,
          ServeResults& out) {
  job.ranked = true;
  auto plan = finish_serve_search(catalog, serving, job.model, job.query, job.search);
  if (!plan.ok()) {
    out.error = plan.error();
    return;
  }
  out.plan = plan.value();
  const ServeOption& best = out.plan->options.front();
  const Gpu* gpu = catalog.find_gpu(best.gpu);
  if (!gpu || best.rate.max_rate_per_s <= 0) return;
  ServeConfig config = job.query.config;
  config.tp = best.tp;
  config.pp = best.pp;
  auto replica = build_replica(job.model, *gpu, config, serving, catalog.efficiencies);
  if (!replica.ok()) return;
  job.replica = replica.value();
  for (double m : kRateMultiples) job.rates.push_back(m * best.rate.max_rate_per_s);
}

void latency_point(ServeJob& job, ServeResults& out) {
  ServeWorkload w = job.query.workload;
  w.rate_per_s = job.rates[job.next_rate++];
  auto sim = simulate(*job.replica, w);
  if (!sim.ok()) return;
  const double p = job.query.slo.percentile;
  out.latency.push_back({w.rate_per_s, at_percentile(sim.value().ttft_s, p),
                         at_percentile(sim.value().tpot_s, p), sim.value().saturated});
}

}  // namespace

std::string typed_curve_seed(const ServeRequest& r, const ServeResults& shown) {
  if (!shown.curve.empty()) return load_curve_key(shown.curve);
  auto day = load_curve_from_key(r.load_curve, r.rate_per_s);
  return day.ok() ? load_curve_key(day.value()) : "";
}

S fleet_pricing_string(const std::string& pricing) {
  if (pricing == "reserved base + on-demand bursts") return S::fleet_reserved_on_demand;
  if (pricing == "reserved base + spot bursts") return S::fleet_reserved_spot;
  return S::fleet_on_demand;
}

std::unique_ptr<ServeJob> start_serve_job(const Catalog& catalog, const PageState& state,
                                          ServeResults& out) {
  out = ServeResults{};
  const ServeRequest& r = state.serve;
  if (state.query.custom.kind != CustomModel::Kind::none)
    return failed(out, make_error(Errc::invalid_argument, tr(S::serve_zoo_only)));
  // The CLI's checks and messages (find_serve_targets: message ids the page shows translated).
  if (auto err = check_serve_spec(r)) return failed(out, *err);
  if (auto err = check_serve_lengths(r)) return failed(out, *err);
  auto targets =
      find_serve_targets(catalog, state.query.request.model, r.gpu, r.instance, r.spec_draft_model);
  if (!targets.ok()) return failed(out, targets.error());
  const Model* model = &targets.value().model;
  auto curve = load_curve_from_key(r.load_curve, r.rate_per_s);
  if (!curve.ok()) return failed(out, curve.error());
  auto job = std::make_unique<ServeJob>();
  job->model = *model;
  job->query = serve_query(r, curve.value());
  job->query.gpu = targets.value().gpu;
  job->search = start_serve_search(catalog, job->query);
  out.model = model->id;
  out.curve = curve.value();
  out.progress = 0;
  return job;
}

void step_serve_job(const Catalog& catalog, const ServingAssumptions& serving, ServeJob& job,
                    ServeResults& out) {
  if (job.done) return;
  if (!job.search.finished()) {
    step_serve_search(catalog, serving, job.model, job.query, job.search);
  } else if (!job.ranked) {
    rank(catalog, serving, job, out);
  } else if (job.replica && job.next_rate < job.rates.size()) {
    latency_point(job, out);
  }
  const double total =
      static_cast<double>(job.search.pending.size() + 1 + std::size(kRateMultiples));
  const double done = static_cast<double>(job.search.next + (job.ranked ? 1 : 0) + job.next_rate);
  job.done = job.ranked && (!job.replica || job.next_rate >= job.rates.size());
  out.progress = job.done ? 1.0 : std::min(done / total, 0.99);
}

}  // namespace gpuplan::web
