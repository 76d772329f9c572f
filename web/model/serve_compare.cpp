#include "model/serve_compare.h"

#include <algorithm>
#include <optional>

#include "gpuplan/query.h"
#include "model/i18n.h"
#include "model/serve_job.h"

namespace gpuplan::web {
namespace {

// The serve request of one entry: the state's, with the entry as its only GPU or instance.
ServeRequest entry_request(const Catalog& catalog, const ServeRequest& r, const std::string& id,
                           bool& is_instance) {
  ServeRequest e = r;
  is_instance = !catalog.find_gpu(id) && catalog.find_instance(id);
  e.gpu = is_instance ? "" : id;
  e.instance = is_instance ? id : "";
  return e;
}

// Ranks the current entry's replicas and fills its row with the first option.
void finish_row(const Catalog& catalog, const ServingAssumptions& serving, CompareJob& job,
                CompareRow& row) {
  const ServeQuery& q = job.queries[job.current];
  auto plan = finish_serve_search(catalog, serving, job.model, q, job.search);
  if (!plan.ok()) {
    row.error = plan.error();
    return;
  }
  row.option = plan.value().options.front();
  row.meets_targets = meets_slo(row.option->rate.at_max, q.slo);
}

// The next entry with a query (rows whose id was unknown have none).
void next_entry(CompareJob& job, const CompareResults& out) {
  ++job.current;
  job.started = false;
  while (job.current < out.rows.size() && !out.rows[job.current].error.message.empty())
    ++job.current;
}

}  // namespace

std::unique_ptr<CompareJob> start_compare_job(const Catalog& catalog, const PageState& state,
                                              CompareResults& out) {
  out = CompareResults{};
  auto job = std::make_unique<CompareJob>();
  job->done = true;
  if (state.serve_compare.empty()) return job;
  const ServeRequest& r = state.serve;
  if (state.query.custom.kind != CustomModel::Kind::none) {
    out.error = make_error(Errc::invalid_argument, tr(S::serve_zoo_only));
    return job;
  }
  if (auto err = check_serve_spec(r)) {
    out.error = *err;
    return job;
  }
  auto curve = load_curve_from_key(r.load_curve, r.rate_per_s);
  if (!curve.ok()) {
    out.error = curve.error();
    return job;
  }
  // The model (and a draft model) once for the whole set: an unknown one fails every row.
  auto model = find_serve_targets(catalog, state.query.request.model, "", "", r.spec_draft_model);
  if (!model.ok()) {
    out.error = model.error();
    return job;
  }
  job->model = model.value().model;
  for (const auto& id : state.serve_compare) {
    CompareRow row;
    row.target = id;
    const ServeRequest e = entry_request(catalog, r, id, row.is_instance);
    ServeQuery q = serve_query(e, curve.value());
    auto targets = find_serve_targets(catalog, state.query.request.model, e.gpu, e.instance);
    if (targets.ok())
      q.gpu = targets.value().gpu;
    else
      row.error = targets.error();
    job->queries.push_back(q);
    out.rows.push_back(row);
  }
  job->current = static_cast<size_t>(-1);
  next_entry(*job, out);
  job->done = job->current >= out.rows.size();
  out.progress = job->done ? 1 : 0;
  return job;
}

void step_compare_job(const Catalog& catalog, const ServingAssumptions& serving, CompareJob& job,
                      CompareResults& out) {
  if (job.done) return;
  const ServeQuery& q = job.queries[job.current];
  if (!job.started) {
    job.search = start_serve_search(catalog, q);
    job.started = true;
  }
  if (!job.search.finished()) {
    step_serve_search(catalog, serving, job.model, q, job.search);
  } else {
    finish_row(catalog, serving, job, out.rows[job.current]);
    next_entry(job, out);
  }
  job.done = job.current >= out.rows.size();
  // Each entry counts as one share, split over its replicas and its ranking.
  const double rows = static_cast<double>(out.rows.size());
  const double within = job.started ? static_cast<double>(job.search.next) /
                                          static_cast<double>(job.search.pending.size() + 1)
                                    : 0.0;
  const double done = (static_cast<double>(std::min(job.current, out.rows.size())) + within) / rows;
  out.progress = job.done ? 1.0 : std::min(done, 0.99);
}

std::vector<std::string> top_gpus(const ServePlan& plan, size_t n) {
  std::vector<std::string> out;
  for (const auto& o : plan.options) {
    if (out.size() >= n) break;
    if (std::find(out.begin(), out.end(), o.gpu) == out.end()) out.push_back(o.gpu);
  }
  return out;
}

namespace {

// A row's value in a column, for sorting; nullopt: none (no option, or no price).
std::optional<double> sort_value(const CompareRow& row, CompareColumn c, double percentile) {
  if (!row.option) return std::nullopt;
  const ServeOption& o = *row.option;
  switch (c) {
    case CompareColumn::tp:
      return o.tp * o.pp;
    case CompareColumn::replicas:
      return o.fleet.fixed_replicas;
    case CompareColumn::rate:
      return o.rate.max_rate_per_s;
    case CompareColumn::ttft:
      return at_percentile(o.rate.at_max.ttft_s, percentile);
    case CompareColumn::tpot:
      return at_percentile(o.rate.at_max.tpot_s, percentile);
    case CompareColumn::month:
      if (o.costs.empty()) return std::nullopt;
      return o.costs.front().usd_per_month_autoscaled;
    case CompareColumn::per_mtok:
      if (o.costs.empty()) return std::nullopt;
      return o.costs.front().usd_per_million_output_tokens;
    case CompareColumn::meets:
      return row.meets_targets ? 1 : 0;
    case CompareColumn::gpu:
    case CompareColumn::instance:
      break;
  }
  return std::nullopt;
}

std::string sort_text(const CompareRow& row, CompareColumn c) {
  if (c == CompareColumn::gpu) return row.option ? row.option->gpu : row.target;
  return row.option ? row.option->instance : "";
}

}  // namespace

std::vector<size_t> compare_order(const CompareResults& r, CompareSort sort, double percentile) {
  std::vector<size_t> order(r.rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const bool text = sort.column == CompareColumn::gpu || sort.column == CompareColumn::instance;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const CompareRow &x = r.rows[a], &y = r.rows[b];
    if (text) {
      const std::string tx = sort_text(x, sort.column), ty = sort_text(y, sort.column);
      return sort.descending ? ty < tx : tx < ty;
    }
    const auto vx = sort_value(x, sort.column, percentile);
    const auto vy = sort_value(y, sort.column, percentile);
    if (!vx || !vy) return vx.has_value() && !vy.has_value();  // none last, either way
    return sort.descending ? *vy < *vx : *vx < *vy;
  });
  return order;
}

}  // namespace gpuplan::web
