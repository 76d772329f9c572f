#include "page_model.h"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "gpuplan/report.h"

namespace gpuplan::web {
namespace {

// The hardware a state names: an instance (its GPU and count, times nodes), or a GPU and a
// count. Returns the GPU count, or 0 with c.error set.
int resolve_hardware(const Catalog& catalog, const PageState& state, Computed& c) {
  if (!state.instance.empty()) {
    c.instance = catalog.find_instance(state.instance);
    if (!c.instance) {
      c.error = "--instance: unknown instance '" + state.instance + "'";
      return 0;
    }
    c.gpu = catalog.find_gpu(c.instance->gpu);
    return c.instance->gpu_count * state.nodes;
  }
  c.gpu = catalog.find_gpu(state.gpu);
  if (!c.gpu) {
    c.error = "--gpu: unknown GPU '" + state.gpu + "'";
    return 0;
  }
  return state.gpus;
}

S advice_for(S term) {
  switch (term) {
    case S::term_activations: return S::advice_activations;
    case S::term_optimizer: return S::advice_optimizer;
    case S::term_gradients: return S::advice_gradients;
    case S::term_weights: return S::advice_weights;
    case S::term_kv_cache: return S::advice_kv;
    default: return S::advice_other;
  }
}

// Whether the estimate fits the GPU and its largest memory term (CUDA context and
// fragmentation are not terms a user can shrink, so they are not candidates).
void fit_report(Computed& c) {
  const MemoryBytes& m = c.estimate->memory;
  c.fits = m.total() <= c.gpu->memory_bytes;
  const auto terms = memory_terms(m);
  const auto largest = std::max_element(terms.begin(), terms.begin() + 6,
                                        [](const MemoryTerm& a, const MemoryTerm& b) { return a.bytes < b.bytes; });
  c.largest_term = largest->name;
}

// Micro-batch "auto": the largest micro-batch (a divisor of the batch per replica) whose
// estimate fits the GPU, rather than the whole batch per replica at once. Keeps `e` when the
// whole batch fits or nothing does.
void largest_fitting_micro_batch(const Model& model, const Gpu& gpu, Setup& setup, Estimate& e) {
  if (setup.micro_batch != 0 || e.memory.total() <= gpu.memory_bytes) return;
  const int64_t per_replica = e.global_batch / std::max(1, setup.dp);
  for (int64_t micro = per_replica - 1; micro >= 1; --micro) {
    if (per_replica % micro != 0) continue;
    Setup trial = setup;
    trial.global_batch = e.global_batch;
    trial.micro_batch = micro;
    auto t = estimate(model, trial);
    if (t.ok() && t.value().memory.total() <= gpu.memory_bytes) {
      setup = trial;
      e = t.value();
      return;
    }
  }
}

SpotAssumptions spot_assumptions(const Catalog& catalog) {
  SpotAssumptions spot;
  spot.restart_h = catalog.restart_s / 3600.0;
  if (catalog.pricing.spot_interruptions_per_hour) spot.interruptions_per_hour = *catalog.pricing.spot_interruptions_per_hour;
  return spot;
}

// Step time, price and cost; the calibrated pair when a probe file is given.
void time_and_cost(const Catalog& catalog, const PageState& state, const Setup& setup, int gpus, const ProbeFile* probe,
                   Computed& c) {
  auto work = build_work_profile(*c.model, setup, *c.estimate);
  if (!work.ok()) {
    c.time_error = work.error().message;
    return;
  }
  auto cluster = c.instance ? instance_cluster(*c.instance, *c.gpu, state.nodes) : single_node_cluster(*c.gpu, gpus);
  if (!cluster.ok()) {
    c.time_error = cluster.error().message;
    return;
  }
  auto t = estimate_step_time(*c.model, setup, *c.estimate, work.value(), cluster.value(), catalog.efficiencies,
                              catalog.input);
  if (!t.ok()) {
    c.time_error = t.error().message;
    return;
  }
  c.time = t.value();
  const SpotAssumptions spot = spot_assumptions(catalog);
  double usd_per_hour = 0;
  if (c.instance) {
    auto q = quote_price(*c.instance, state.pricing, catalog.pricing, state.region);
    if (q.ok()) {
      c.price = q.value();
      usd_per_hour = q.value().usd_per_hour * state.nodes;
    } else {
      c.time_error = q.error().message;
    }
  }
  if (!state.run.empty()) {
    auto cost = run_cost(*c.estimate, *c.time, state.run, usd_per_hour, state.pricing, spot);
    if (cost.ok()) c.cost = cost.value();
    else c.time_error = cost.error().message;
  }
  if (!probe || !probe->payload) return;
  const Calibrated cal = calibrate(catalog.efficiencies, probe->payload->summary, *c.gpu, setup.precision);
  c.calibration_notes = cal.notes;
  if (!cal.gpu_matches) return;
  auto tc = estimate_step_time(*c.model, setup, *c.estimate, work.value(), cluster.value(), cal.efficiencies,
                               catalog.input);
  if (!tc.ok()) return;
  c.time_calibrated = tc.value();
  if (state.run.empty()) return;
  auto cc = run_cost(*c.estimate, *c.time_calibrated, state.run, usd_per_hour, state.pricing, spot);
  if (cc.ok()) c.cost_calibrated = cc.value();
}

}  // namespace

std::vector<MemoryTerm> memory_terms(const MemoryBytes& m) {
  return {{S::term_weights, m.weights},         {S::term_gradients, m.gradients}, {S::term_optimizer, m.optimizer},
          {S::term_activations, m.activations}, {S::term_kv_cache, m.kv_cache},   {S::term_workspace, m.workspace},
          {S::term_context, m.context},         {S::term_fragmentation, m.fragmentation}};
}

std::string fit_advice(const Computed& c) {
  if (c.fits || !c.estimate || !c.gpu) return "";
  const MemoryBytes& m = c.estimate->memory;
  double largest = 0;
  for (const MemoryTerm& t : memory_terms(m)) {
    if (t.name == c.largest_term) largest = t.bytes;
  }
  return format(tr(S::no_fit), format_bytes(m.total()).c_str(), c.gpu->name.c_str(),
                format_bytes(c.gpu->memory_bytes).c_str(), tr(c.largest_term), format_bytes(largest).c_str(),
                tr(advice_for(c.largest_term)));
}

PlanSearch start_plan_search(const Catalog& catalog, const PageState& state) {
  PlanSearch search;
  if (!state.provider.empty()) {
    search.providers.push_back(state.provider);
  } else {
    for (const auto& p : catalog.providers) search.providers.push_back(p.id);
  }
  return search;
}

bool step_plan_search(const Catalog& catalog, const Model& model, const PageState& state, PlanSearch& search) {
  if (search.done()) return false;
  PlanQuery q = plan_query(catalog, state, model);
  q.provider = search.providers[search.next++];
  auto r = plan(catalog, model, q);
  if (!r.ok()) {
    if (!search.first_error) search.first_error = r.error();
    return true;
  }
  PlanResult& m = search.merged;
  m.candidates += r.value().candidates;
  m.fitting += r.value().fitting;
  m.within_limits += r.value().within_limits;
  for (auto& p : r.value().plans) m.plans.push_back(std::move(p));
  for (auto& p : r.value().pareto) m.pareto.push_back(std::move(p));
  for (auto& n : r.value().notes) {
    if (std::find(m.notes.begin(), m.notes.end(), n) == m.notes.end()) m.notes.push_back(std::move(n));
  }
  return true;
}

namespace {

// Sorted by time, each plan cheaper than every faster one (as plan() builds its front).
std::vector<Plan> time_cost_front(std::vector<Plan> plans) {
  std::sort(plans.begin(), plans.end(), [](const Plan& a, const Plan& b) {
    return a.cost.expected_hours != b.cost.expected_hours ? a.cost.expected_hours < b.cost.expected_hours
                                                          : a.cost.usd_total < b.cost.usd_total;
  });
  std::vector<Plan> front;
  double cheapest = 1e300;
  for (auto& p : plans) {
    if (p.cost.usd_total < cheapest) {
      cheapest = p.cost.usd_total;
      front.push_back(std::move(p));
    }
  }
  return front;
}

}  // namespace

Result<PlanResult> finish_plan_search(const PageState& state, PlanSearch& search) {
  PlanResult r = std::move(search.merged);
  auto other_gpu = [&](const Plan& p) { return !state.plan_gpu.empty() && p.gpu != state.plan_gpu; };
  r.plans.erase(std::remove_if(r.plans.begin(), r.plans.end(), other_gpu), r.plans.end());
  r.pareto.erase(std::remove_if(r.pareto.begin(), r.pareto.end(), other_gpu), r.pareto.end());
  if (r.plans.empty()) {
    if (search.first_error) return *search.first_error;
    return make_error(Errc::does_not_fit, "no plan on " + state.plan_gpu + " qualifies: pick another GPU or any");
  }
  const bool by_time = state.objective == Objective::time;
  std::stable_sort(r.plans.begin(), r.plans.end(), [by_time](const Plan& a, const Plan& b) {
    const double ha = a.cost.expected_hours, hb = b.cost.expected_hours, ua = a.cost.usd_total, ub = b.cost.usd_total;
    if (by_time) return ha != hb ? ha < hb : ua < ub;
    return ua != ub ? ua < ub : ha < hb;
  });
  if (r.plans.size() > 20) r.plans.resize(20);
  r.pareto = time_cost_front(std::move(r.pareto));
  for (Plan& p : r.plans) {
    p.pareto = std::any_of(r.pareto.begin(), r.pareto.end(),
                           [&](const Plan& f) { return f.instance == p.instance && f.nodes == p.nodes; });
  }
  return r;
}

std::vector<std::string> nearest_ids(const std::string& id, const std::vector<std::string>& candidates, size_t n) {
  auto lower = [](std::string x) {
    for (char& ch : x) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return x;
  };
  const std::string a = lower(id);
  // Levenshtein distance from `a` to the best prefix of `b`, plus a tenth per character left
  // over: "gtp2" is nearer "gpt2-small" than "resnet50", as a reader would expect.
  auto distance = [&](const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        const size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diag = up;
      }
    }
    double best = 1e18;
    for (size_t j = 0; j <= b.size(); ++j) best = std::min(best, static_cast<double>(row[j]) + 0.1 * static_cast<double>(b.size() - j));
    return best;
  };
  std::vector<std::pair<double, std::string>> scored;
  for (const auto& c : candidates) scored.push_back({distance(lower(c)), c});
  std::stable_sort(scored.begin(), scored.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < n; ++i) out.push_back(scored[i].second);
  return out;
}

namespace {

// An unknown id in the link: noted with its nearest matches, and replaced by the default.
template <class T>
void check_id(std::string& id, const std::vector<T>& known, const std::string& key, const std::string& fallback,
              std::vector<LinkProblem>& problems) {
  std::vector<std::string> ids;
  for (const auto& k : known) {
    if (k.id == id) return;
    ids.push_back(k.id);
  }
  std::string list;
  for (const auto& near : nearest_ids(id, ids)) list += (list.empty() ? "" : ", ") + near;
  problems.push_back({key, "--" + key + ": unknown id '" + id + "'. " + format(tr(S::err_nearest), list.c_str()), ""});
  id = fallback;
}

}  // namespace

void check_link_ids(const Catalog& catalog, ParsedLink& link) {
  PageState& s = link.state;
  const PageState d = default_page_state();
  if (s.custom.kind == CustomModel::Kind::none) check_id(s.request.model, catalog.models, "model", d.request.model, link.problems);
  if (!s.instance.empty()) check_id(s.instance, catalog.instances, "instance", "", link.problems);
  check_id(s.gpu, catalog.gpus, "gpu", d.gpu, link.problems);
  const std::string query = page_state_to_query(s);
  auto args = query_to_args(query);
  for (auto& p : link.problems) {
    p.used = tr(S::auto_choice);
    if (!args.ok()) continue;
    for (const auto& [k, v] : args.value()) {
      if (k == p.key) p.used = v;
    }
  }
}

void UiActions::merge(UiActions&& later) {
  if (later.state) state = std::move(later.state);
  select_tab |= later.select_tab;
  if (later.tab) tab = later.tab;
  if (later.calibrate) calibrate = later.calibrate;
  if (later.trust_key) trust_key = std::move(later.trust_key);
  if (later.model_filter) model_filter = std::move(later.model_filter);
  if (later.instance_sort) instance_sort = later.instance_sort;
  for (auto& p : later.platform) platform.push_back(std::move(p));
  for (auto& r : later.rects) rects.push_back(std::move(r));
}

Computed compute(const Catalog& catalog, const PageState& state, const ProbeFile* probe) {
  Computed c;
  auto model = resolve_model(catalog, state);
  if (!model.ok()) {
    c.error = model.error().message;
    return c;
  }
  c.model = model.value();
  Setup setup = state.request.setup;
  const int gpus = resolve_hardware(catalog, state, c);
  if (gpus == 0) return c;
  if (gpus % (setup.tp * setup.pp) != 0) {
    c.error = "--tp x --pp = " + std::to_string(setup.tp * setup.pp) + " does not divide the " +
              std::to_string(gpus) + " GPUs";
    return c;
  }
  setup.dp = gpus / (setup.tp * setup.pp);
  if (setup.global_batch == 0 && setup.micro_batch == 0) setup.global_batch = setup.dp;
  auto e = estimate(*c.model, setup);
  if (!e.ok()) {
    c.error = e.error().message;
    return c;
  }
  c.estimate = e.value();
  largest_fitting_micro_batch(*c.model, *c.gpu, setup, *c.estimate);
  fit_report(c);
  time_and_cost(catalog, state, setup, gpus, probe, c);
  return c;
}

PlanQuery plan_query(const Catalog& catalog, const PageState& state, const Model& model) {
  PlanQuery q;
  q.request = state.request;
  q.request.setup.dp = 1;
  q.request.setup.tp = 1;
  q.request.setup.pp = 1;
  q.request.setup.zero_stage = 0;
  q.request.setup.micro_batch = 0;
  q.run = state.run;
  q.pricing = state.pricing;
  q.objective = state.objective;
  q.deadline_hours = state.deadline_hours;
  q.budget_usd = state.budget_usd;
  q.provider = state.provider;
  q.region = state.region;
  q.compliance = state.compliance;
  q.max_nodes = state.max_nodes;
  // With a GPU filter the page keeps that GPU's plans from a longer list (the planner has no
  // GPU filter of its own).
  q.top_k = state.plan_gpu.empty() ? 20 : 1000;
  q.efficiencies = catalog.efficiencies;
  q.input = catalog.input;
  q.spot.restart_h = catalog.restart_s / 3600.0;
  if (q.run.epochs > 0 && q.run.dataset_size == 0) q.run.dataset_size = static_cast<double>(model.dataset_size);
  return q;
}

}  // namespace gpuplan::web
