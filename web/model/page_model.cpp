#include "model/page_model.h"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "gpuplan/evaluate.h"
#include "gpuplan/report.h"
#include "gpuplan/serve_generation.h"

namespace gpuplan::web {
namespace {

std::string lowered(std::string x) {
  for (char& c : x) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return x;
}

S advice_for(S term, Mode mode) {
  if (mode == Mode::infer && term == S::term_weights) return S::advice_weights_infer;
  if (mode == Mode::infer && term == S::term_activations) return S::advice_activations_infer;
  switch (term) {
    case S::term_activations:
      return S::advice_activations;
    case S::term_optimizer:
      return S::advice_optimizer;
    case S::term_gradients:
      return S::advice_gradients;
    case S::term_weights:
      return S::advice_weights;
    case S::term_kv_cache:
      return S::advice_kv;
    default:
      return S::advice_other;
  }
}

// The query for a state, with the probe file's measurements when calibrating and the measured
// run to compare with.
Query query_for(const PageState& state, const ProbeFile* probe, const ProbeFile* measured) {
  Query q = state.query;
  if (measured && measured->measured) {
    const bool unsigned_file = measured->signature == ProbeSignature::unsigned_file;
    q.measured = MeasuredInput{"measured", *measured->measured, unsigned_file};
  }
  if (probe && probe->payload) {
    ProbeCalibration cal;
    cal.name = "probe";
    cal.summary = probe->payload->summary;
    cal.simulated = probe->payload->simulated;
    cal.unsigned_file = probe->signature == ProbeSignature::unsigned_file;
    q.probe = cal;
  }
  return q;
}

}  // namespace

S term_name(const std::string& key) {
  static const std::pair<const char*, S> names[] = {
      {"weights", S::term_weights},     {"gradients", S::term_gradients},
      {"optimizer", S::term_optimizer}, {"activations", S::term_activations},
      {"kv_cache", S::term_kv_cache},   {"workspace", S::term_workspace},
      {"context", S::term_context},     {"fragmentation", S::term_fragmentation}};
  for (const auto& [k, id] : names) {
    if (key == k) return id;
  }
  return S::term_workspace;
}

S largest_term(const Evaluation& ev) {
  for (const auto& t : gpuplan::memory_terms(ev.estimate.memory)) {
    if (ev.fit.largest_term == t.label) return term_name(t.key);
  }
  return S::term_weights;
}

std::string fit_advice(const Evaluation& ev) {
  if (ev.fit.fits || !ev.gpu) return "";
  const MemoryBytes& m = ev.estimate.memory;
  const S largest = largest_term(ev);
  const S headline = ev.verdict.fit == Fit::tight ? S::tight_over : S::no_fit;
  return format(tr(headline), format_bytes(m.total()).c_str(), ev.gpu->name.c_str(),
                format_bytes(ev.gpu->memory_bytes).c_str(), tr(largest),
                format_bytes(ev.fit.largest_term_bytes).c_str(),
                tr(advice_for(largest, ev.query.request.setup.mode)));
}

std::string band_evidence(const ErrorBand& b) {
  std::string out = b.evidence_rows > 0
                        ? format(tr(S::band_evidence), b.evidence_rows, b.evidence_sources)
                        : std::string(tr(S::band_no_evidence));
  std::vector<std::string> why;
  bool combination = false;
  for (const auto& f : b.outside) {
    const bool never =
        std::find(b.never_validated.begin(), b.never_validated.end(), f) != b.never_validated.end();
    if (f == "scale") {
      why.push_back(format(tr(S::outside_scale), b.evidence_max_gpus));
    } else if (f == "sources") {
      why.push_back(tr(S::outside_sources));
    } else if (!never) {
      combination = true;
    } else {
      why.push_back(tr(f == "kind"        ? S::outside_kind
                       : f == "precision" ? S::outside_precision
                       : f == "parallel"  ? S::outside_parallel
                       : f == "runtime"   ? S::outside_runtime
                                          : S::outside_arch));
    }
  }
  if (combination) why.insert(why.begin(), tr(S::outside_combination));
  std::string list;
  for (const auto& w : why) list += (list.empty() ? "" : tr(S::list_separator)) + w;
  if (!list.empty()) out += format(tr(S::band_widened), list.c_str());
  return out;
}

std::string benchmarks_rows_url(const ErrorBand& b, BandTable table) {
  // site/sitegen/pages/benchmarks.py's anchor(): "decoder/16-bit/*" -> decoder-16-bit; serving
  // families "TTFT/TPOT at rate" -> ttft-tpot-at-rate.
  std::string slug;
  for (char ch : b.pool) {
    if (ch == '*') continue;
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_') {
      slug += c;
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  const char* kind = table == BandTable::memory    ? "#band-memory-"
                     : table == BandTable::serving ? "#band-serving-"
                                                   : "#band-time-";
  return std::string(language() == Lang::zh ? "../zh/benchmarks/" : "../benchmarks/") + kind + slug;
}

std::string help_url() {
  // site/mkdocs.yml: calculator-help.md and zh/calculator-help.md, beside calculator/.
  return language() == Lang::zh ? "../zh/calculator-help/" : "../calculator-help/";
}

std::vector<std::string> nearest_ids(const std::string& id,
                                     const std::vector<std::string>& candidates, size_t n) {
  const std::string a = lowered(id);
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
    for (size_t j = 0; j <= b.size(); ++j)
      best = std::min(best, static_cast<double>(row[j]) + 0.1 * static_cast<double>(b.size() - j));
    return best;
  };
  std::vector<std::pair<double, std::string>> scored;
  for (const auto& c : candidates) scored.push_back({distance(lowered(c)), c});
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& l, const auto& r) { return l.first < r.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < n; ++i) out.push_back(scored[i].second);
  return out;
}

ModelSearch search_models(const Catalog& catalog, const std::string& filter) {
  ModelSearch out;
  const std::string needle = lowered(filter);
  const Model* named = needle.empty() ? nullptr : catalog.find_model(filter);
  for (const Model& zoo : catalog.models) {
    if (needle.empty() || &zoo == named ||
        lowered(zoo.id + " " + zoo.name + " " + zoo.name_zh + " " + zoo.task).find(needle) !=
            std::string::npos)
      out.matches.push_back(&zoo);
  }
  if (out.matches.empty()) {
    for (const std::string& id : catalog.similar_models(filter))
      out.suggested.push_back(catalog.find_model(id));
  }
  return out;
}

namespace {

// An unknown id in the link: noted with the CLI's suggestions (`similar`) or else the nearest
// ids, and replaced by the default.
template <class T>
void reject_id(std::string& id, const std::vector<T>& known, const std::string& key,
               const std::string& fallback, std::vector<std::string> similar,
               std::vector<LinkProblem>& problems) {
  if (similar.empty()) {
    std::vector<std::string> ids;
    for (const auto& k : known) ids.push_back(k.id);
    similar = nearest_ids(id, ids);
  }
  problems.push_back(
      {key, make_error(Errc::not_found, Msg::link_unknown_id, {key, id, id_list(similar)}), ""});
  id = fallback;
}

}  // namespace

void check_link_ids(const Catalog& catalog, ParsedLink& link) {
  Query& q = link.state.query;
  const Query& d = default_page_state().query;
  // Names are read as the CLI reads them. A model keeps the name as written, whose checkpoint
  // suffix ("-FP8", "-AWQ") sets the weights; a GPU becomes its id, which the pickers show.
  if (q.custom.kind == CustomModel::Kind::none && !resolve_model(catalog, q.request.model)) {
    reject_id(q.request.model, catalog.models, "model", d.request.model,
              catalog.similar_models(q.request.model), link.problems);
  }
  if (!q.instance.empty() && !catalog.find_instance(q.instance))
    reject_id(q.instance, catalog.instances, "instance", "", {}, link.problems);
  if (const Gpu* g = q.gpu.empty() ? nullptr : catalog.find_gpu(q.gpu)) {
    q.gpu = g->id;
  } else if (!q.gpu.empty()) {
    reject_id(q.gpu, catalog.gpus, "gpu", d.gpu, catalog.similar_gpus(q.gpu), link.problems);
  }
  const std::string query = page_state_to_query(link.state);
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
  if (later.serve_compare_sort) serve_compare_sort = later.serve_compare_sort;
  if (later.launch_format) launch_format = later.launch_format;
  if (later.launch_plan) launch_plan = later.launch_plan;
  for (auto& p : later.platform) platform.push_back(std::move(p));
  for (auto& r : later.rects) rects.push_back(std::move(r));
}

Result<Evaluation> compute(const Catalog& catalog, const PageState& state, const ProbeFile* probe,
                           const ProbeFile* measured, const ServingAssumptions* serving) {
  // The core's one call (evaluate.h), as the CLI makes it: the same query gives the same time
  // and cost (micro-batch "auto" included).
  Query q = query_for(state, probe, measured);
  q.serving = serving;
  return evaluate(catalog, q);
}

bool times_generation(const PageState& state) {
  return generates_tokens(state.query.request.setup);
}

std::string run_total_text(const Evaluation& ev) {
  if (!ev.price || !ev.cost) return "";
  return (ev.price->assumption ? "≈ " : "") + format_price(ev.cost->usd_total, *ev.price);
}

std::string published_measured_text(const PublishedComparison& c) {
  const PublishedRun& r = c.run;
  return format(tr(S::published_measured), format_published_value(c, r.row.value).c_str(),
                r.publisher.c_str(), r.row.system.c_str(), r.row.num_gpus, r.row.gpu.c_str(),
                r.table.c_str());
}

std::string published_predicted_text(const PublishedComparison& c) {
  if (!c.predicted) return tr(S::published_no_time);
  return format(tr(S::published_predicted), format_published_value(c, *c.predicted).c_str(),
                signed_percent(c.error).c_str());
}

std::string signed_percent(double fraction) {
  return (fraction > 0 ? "+" : "") + format_number(100 * fraction, 3) + " %";
}

std::vector<MeasuredRow> measured_rows(const Evaluation& ev, const MeasuredRun& run) {
  std::vector<MeasuredRow> rows;
  if (!ev.measured_run) return rows;
  const MeasuredComparison& m = *ev.measured_run;
  const std::string absent = tr(S::absent);
  auto seconds = [](double s) { return format_duration(s / 3600); };
  rows.push_back({S::step_time, seconds(m.measured_step_s), seconds(m.predicted_step_s),
                  signed_percent(m.error)});
  MeasuredRow rate{S::samples_per_s, absent, format_number(m.predicted_samples_per_s, 4), "-"};
  if (m.measured_samples_per_s && *m.measured_samples_per_s > 0) {
    rate.measured = format_number(*m.measured_samples_per_s, 4);
    rate.difference = signed_percent(m.predicted_samples_per_s / *m.measured_samples_per_s - 1);
  }
  rows.push_back(rate);
  const double predicted = ev.estimate.memory.total();
  auto bytes = [](const std::optional<int64_t>& b) {
    return b ? format_bytes(static_cast<double>(*b)) : std::string(tr(S::absent));
  };
  rows.push_back({S::peak_allocated, bytes(run.peak_allocated_bytes), "-", "-"});
  MeasuredRow reserved{S::peak_reserved, bytes(run.peak_reserved_bytes), format_bytes(predicted),
                       "-"};
  if (run.peak_reserved_bytes && *run.peak_reserved_bytes > 0)
    reserved.difference =
        signed_percent(predicted / static_cast<double>(*run.peak_reserved_bytes) - 1);
  rows.push_back(reserved);
  return rows;
}

std::string measured_run_line(const ProbeFile& f) {
  const MeasuredRun& r = *f.measured;
  return format(tr(S::measured_line), r.device_name.c_str(), r.device_type.c_str(),
                static_cast<int>(r.device_count), static_cast<int>(r.steps),
                static_cast<int>(r.warmup_steps), probe_signature_name(f.signature));
}

PlanQuery plan_query(const Catalog& catalog, const PageState& state, const Model& model) {
  // The core's planner query (defaults resolved in one place); the planner, not the sidebar,
  // chooses the parallelism, ZeRO stage and micro-batch.
  PlanQuery q = gpuplan::plan_query(catalog, model, state.query);
  Setup& s = q.request.setup;
  s.dp = s.tp = s.pp = s.cp = 1;
  s.zero_stage = 0;
  s.micro_batch = 0;
  return q;
}

Money page_money(const PageModel& m) {
  if (!m.catalog) return Money{};
  auto money = money_for(m.state.query.currency, m.catalog->pricing);
  return money.ok() ? money.value() : Money{};
}

}  // namespace gpuplan::web
