#include "model/exports.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>

#include "gpuplan/evaluate.h"
#include "gpuplan/measured_run.h"
#include "gpuplan/published.h"
#include "gpuplan/query.h"
#include "gpuplan/report.h"
#include "gpuplan/serve_plan.h"
#include "model/launch.h"

namespace gpuplan::web {
namespace {

using Json = nlohmann::ordered_json;

// "usd" or "cny": a CSV header's currency.
std::string lower_code(const Money& money) {
  return money.currency == "CNY" ? "cny" : "usd";
}

Json json_or_null(const std::optional<std::string>& s) {
  return s ? Json(*s) : Json();
}

void put_estimate(const PageModel& m, Json& j) {
  if (!m.ev) {
    j["estimate"] = nullptr;
    return;
  }
  const Evaluation& c = *m.ev;
  j["estimate"] = Json::parse(estimate_to_json(c.model, c.query.request, c.estimate, -1));
  j["gpu"] = c.gpu ? Json(c.gpu->id) : Json();
  j["instance"] = c.instance ? Json(c.instance->id) : Json();
  j["fits"] = c.fit.fits;
  j["largest_term"] = tr(largest_term(c), Lang::en);
  j["fit_advice"] = fit_advice(c);
}

void put_time_and_cost(const PageModel& m, Json& j) {
  const Evaluation empty;
  const Evaluation& c = m.ev ? *m.ev : empty;
  j["time_error"] = c.hardware_error ? c.hardware_error->message : "";
  j["price_error"] = c.price_error ? c.price_error->message : "";
  j["time"] = c.time ? Json::parse(step_time_to_json(*c.time)) : Json();
  j["time_calibrated"] =
      c.time_calibrated ? Json::parse(step_time_to_json(*c.time_calibrated)) : Json();
  if (c.price) {
    j["cost"] = Json::parse(run_cost_to_json(*c.price, c.cost ? &*c.cost : nullptr, c.query.nodes));
    if (c.cost) j["cost"]["total_shown"] = run_total_text(c);  // as the Results tab shows it
  } else if (c.cost) {
    j["cost"] = {{"steps", c.cost->steps},
                 {"hours", c.cost->hours},
                 {"expected_hours", c.cost->expected_hours}};
  } else {
    j["cost"] = nullptr;
  }
}

Json plans_json(const PageModel& m) {
  if (!m.plans)
    return m.plan_error.message.empty() ? Json() : Json({{"error", m.plan_error.message}});
  Json top = Json::array();
  for (const auto& p : m.plans->plans) {
    top.push_back({{"instance", p.instance},
                   {"gpu", p.gpu},
                   {"nodes", p.nodes},
                   {"dp", p.setup.dp},
                   {"tp", p.setup.tp},
                   {"pp", p.setup.pp},
                   {"hours", p.cost.expected_hours},
                   {"usd_total", p.cost.usd_total},
                   {"cost_shown", format_money(p.cost.usd_total)},  // as the table shows it
                   {"price_assumed", p.price.assumption},
                   {"memory_headroom_bytes", p.gpu_memory_bytes - p.memory.total()},
                   {"pareto", p.pareto}});
  }
  return {{"candidates", m.plans->candidates}, {"top", top}};
}

// Published runs of this setup beside the prediction: the core's comparison (measured, unit,
// predicted, error, source, link) and the two lines the Results tab shows.
Json published_json(const PageModel& m) {
  Json out = Json::array();
  if (!m.ev) return out;
  for (const auto& c : m.ev->published) {
    Json j = Json::parse(published_comparison_json(c));
    j["shown"] = {published_measured_text(c), published_predicted_text(c)};
    out.push_back(std::move(j));
  }
  return out;
}

// The loaded measured-run file against the prediction: the core's comparison, the file's memory
// figures (null where absent, with the reason) and the table's rows as shown.
Json measured_run_json(const PageModel& m) {
  if (!m.measured || !m.measured->measured) return Json();
  const MeasuredRun& run = *m.measured->measured;
  Json j = {{"signature", probe_signature_name(m.measured->signature)},
            {"device_type", run.device_type},
            {"device_name", run.device_name},
            {"line", measured_run_line(*m.measured)}};
  j["comparison"] = m.ev && m.ev->measured_run
                        ? Json::parse(measured_comparison_to_json(*m.ev->measured_run))
                        : Json();
  auto bytes = [](const std::optional<int64_t>& b) { return b ? Json(*b) : Json(); };
  j["peak_allocated_bytes"] = bytes(run.peak_allocated_bytes);
  j["peak_reserved_bytes"] = bytes(run.peak_reserved_bytes);
  j["memory_absent_reason"] = json_or_null(run.memory_absent_reason);
  Json rows = Json::array();
  for (const auto& r : m.ev ? measured_rows(*m.ev, run) : std::vector<MeasuredRow>{}) {
    rows.push_back({{"quantity", tr(r.quantity)},
                    {"measured", r.measured},
                    {"predicted", r.predicted},
                    {"difference", r.difference}});
  }
  j["rows"] = rows;
  return j;
}

Json upload_json(const PageModel& m) {
  Json upload = {{"status", m.upload_status}, {"error", m.upload_error}};
  if (m.probe) {
    const ProbeFile& f = *m.probe;
    upload["signature"] = probe_signature_name(f.signature);
    upload["fingerprint"] = f.fingerprint;
    upload["trusted"] = f.trusted;
    upload["simulated"] = f.payload ? f.payload->simulated : false;
    upload["gpu"] = f.payload ? json_or_null(f.payload->summary.catalog_gpu_id) : Json();
  }
  upload["calibrate"] = m.calibrate;
  return upload;
}

// The Serving tab: what it shows, with the fields of `gpuplan serve --json` it shows.
// How a sliced search spread over frames (model/slices.h): tests count its work, not frames.
Json slices_json(const SliceStats& s) {
  return {{"slices", s.slices},
          {"frames", s.frames},
          {"work", s.work},
          {"largest_frame", s.largest_frame},
          {"work_per_frame", s.work_per_frame}};
}

const char* compare_column_name(CompareColumn c) {
  switch (c) {
    case CompareColumn::gpu:
      return "gpu";
    case CompareColumn::instance:
      return "instance";
    case CompareColumn::tp:
      return "tp";
    case CompareColumn::replicas:
      return "replicas";
    case CompareColumn::rate:
      return "rate";
    case CompareColumn::ttft:
      return "ttft";
    case CompareColumn::tpot:
      return "tpot";
    case CompareColumn::month:
      return "month";
    case CompareColumn::per_mtok:
      return "per-mtok";
    case CompareColumn::meets:
      return "meets";
  }
  return "";
}

Json compare_row_json(const CompareRow& row, double percentile) {
  Json j = {{"target", row.target},
            {"is_instance", row.is_instance},
            {"error", row.error.message},
            {"error_shown", page_message(row.error)},
            {"meets_targets", row.meets_targets}};
  if (!row.option) return j;
  const ServeOption& o = *row.option;
  j["gpu"] = o.gpu;
  j["instance"] = o.instance;
  j["tp"] = o.tp;
  j["pp"] = o.pp;
  j["fixed_replicas"] = o.fleet.fixed_replicas;
  j["replica_max_rate_per_s"] = o.rate.max_rate_per_s;
  j["ttft_s"] = at_percentile(o.rate.at_max.ttft_s, percentile);
  j["tpot_s"] = at_percentile(o.rate.at_max.tpot_s, percentile);
  if (!o.costs.empty()) {
    const FleetCost& c = o.costs.front();
    j["usd_per_month_fixed"] = c.usd_per_month_fixed;
    j["usd_per_month_autoscaled"] = c.usd_per_month_autoscaled;
    j["usd_per_million_output_tokens"] = c.usd_per_million_output_tokens;
    j["month_shown"] = format_money(c.usd_per_month_autoscaled);
  }
  return j;
}

// The Serving tab's comparison: its rows in the order the table shows them.
Json serve_compare_json(const PageModel& m) {
  const CompareResults& r = m.serve_compare;
  const double percentile = m.state.serve.percentile;
  Json rows = Json::array();
  for (size_t i : compare_order(r, m.serve_compare_sort, percentile))
    rows.push_back(compare_row_json(r.rows[i], percentile));
  return {{"progress", r.progress},
          {"search", slices_json(r.slices)},
          {"error", r.error.message},
          {"sort",
           {{"column", compare_column_name(m.serve_compare_sort.column)},
            {"descending", m.serve_compare_sort.descending}}},
          {"rows", rows}};
}

Json serving_json(const PageModel& m) {
  const ServeResults& r = m.serve;
  Json options = Json::array();
  if (r.plan) {
    for (const auto& o : r.plan->options) {
      Json hours = Json::array();
      for (const auto& h : o.fleet.hours) hours.push_back(h.replicas);
      Json costs = Json::array();
      for (const auto& c : o.costs) {
        costs.push_back({{"pricing", c.pricing},
                         {"usd_per_month_fixed", c.usd_per_month_fixed},
                         {"usd_per_month_autoscaled", c.usd_per_month_autoscaled},
                         {"usd_per_million_output_tokens", c.usd_per_million_output_tokens}});
      }
      options.push_back(
          {{"instance", o.instance},
           {"gpu", o.gpu},
           {"tp", o.tp},
           {"pp", o.pp},
           {"replica_max_rate_per_s", o.rate.max_rate_per_s},
           {"replica_max_rate_per_s_range", {o.max_rate_range.low, o.max_rate_range.high}},
           {"rate_band_pool", o.rate_band.pool},
           {"fixed_replicas", o.fleet.fixed_replicas},
           {"replicas_per_hour", hours},
           {"costs", costs}});
    }
  }
  Json latency = Json::array();
  for (const auto& p : r.latency)
    latency.push_back({{"rate_per_s", p.rate_per_s}, {"ttft_s", p.ttft_s}, {"tpot_s", p.tpot_s}});
  // --disaggregate: the two pools as the tab shows them (null when not asked or not planned).
  Json disagg = nullptr;
  if (r.plan && r.plan->disaggregated) {
    const DisaggPlan& d = *r.plan->disaggregated;
    disagg = {{"instance", d.instance},
              {"prefill_tp", d.prefill.tp},
              {"decode_tp", d.decode.tp},
              {"prefill_fixed_replicas", d.prefill.fleet.fixed_replicas},
              {"decode_fixed_replicas", d.decode.fleet.fixed_replicas},
              {"kv_link", d.kv_link},
              {"kv_transfer_s", d.kv_transfer_s},
              {"gpus_fixed", d.gpus_fixed},
              {"usd_per_month_fixed", d.usd_per_month_fixed}};
  }
  return {{"progress", r.progress},      {"search", slices_json(r.slices)},
          {"error", r.error.message},    {"error_shown", page_message(r.error)},
          {"load_curve_per_s", r.curve}, {"options", options},
          {"latency", latency},          {"compare", serve_compare_json(m)},
          {"disaggregated", disagg}};
}

// A launch config as shown: its text, or the core's error and the text null.
Json launch_shown(const Result<std::string>& config) {
  if (!config.ok()) return {{"text", nullptr}, {"error", config.error().message}};
  return {{"text", config.value()}, {"error", ""}};
}

// The launch configs of the Results and Plans tabs for the launcher chosen, with the notes shown.
Json launch_json(const PageModel& m) {
  const LaunchFormat format = shown_launch_format(m.launch_format, m.ev ? &*m.ev : nullptr);
  Json j = {{"format", launch_format_name(format)},
            {"copied", m.launch_copied_frames > 0},
            {"results", nullptr},
            {"plans", nullptr}};
  if (m.ev) {
    j["results"] = launch_shown(estimate_launch_config(*m.ev, format));
    j["results"]["fill_in"] = tr(launch_fill_in(format, m.ev->query.nodes));
  }
  const Plan* p = m.plans && m.ev ? launch_plan(*m.plans, m.launch_plan) : nullptr;
  if (p) {
    j["plans"] = launch_shown(plan_launch_config(m.ev->model, *p, format));
    j["plans"]["plan"] = p - m.plans->plans.data();
    j["plans"]["fill_in"] = tr(launch_fill_in(format, p->nodes));
  }
  return j;
}

// The core's notes and errors as the tabs show them (core_note, page_message: the page's language,
// the values kept), so a test can read what a Chinese page says in words.
Json notes_shown_json(const PageModel& m) {
  Json results = Json::array(), plans = Json::array(), serving = Json::array();
  auto notes = [](Json& out, const std::vector<std::string>& v) {
    for (const auto& n : v) out.push_back(core_note(n));
  };
  auto error = [](Json& out, const Error& e) {
    if (!e.message.empty()) out.push_back(page_message(e));
  };
  error(results, m.error);
  if (m.ev) {
    const Evaluation& c = *m.ev;
    if (c.hardware_error) error(results, *c.hardware_error);
    if (!fit_advice(c).empty()) results.push_back(fit_advice(c));
    notes(results, c.estimate.notes);
    if (c.time) notes(results, c.time->notes);
    notes(results, c.calibration_notes);
    if (c.measured_run) notes(results, c.measured_run->notes);
  }
  error(plans, m.plan_error);
  if (m.plans) notes(plans, m.plans->notes);
  error(serving, m.serve.error);
  if (m.serve.plan) {
    notes(serving, m.serve.plan->notes);
    if (!m.serve.plan->options.empty()) notes(serving, m.serve.plan->options.front().notes);
    if (m.serve.plan->disaggregated_error) error(serving, *m.serve.plan->disaggregated_error);
  }
  return {{"results", results}, {"plans", plans}, {"serving", serving}};
}

}  // namespace

std::string results_json(const PageModel& m, const std::string& widgets_json) {
  Json j;
  j["query"] = page_state_to_query(m.state);
  const bool link = !m.link_problems.empty() && !m.link_error.empty();
  j["error"] = link ? m.link_error : m.error.message;
  j["error_shown"] = page_message(link ? m.link_problems.front().error : m.error);
  Json problems = Json::array();
  for (const auto& p : m.link_problems) {
    problems.push_back({{"key", p.key},
                        {"message", p.error.message},
                        {"shown", page_message(p.error)},
                        {"used", p.used}});
  }
  j["link_problems"] = problems;
  j["opened_link"] = m.opened_link;
  j["link_copied"] = m.copied_frames > 0;
  j["popup_open"] = m.popup_open;
  j["plan_progress"] = m.plan_progress;
  j["plan_search"] = slices_json(m.plan_slices);
  j["tab"] = tab_name(m.state.tab);
  j["lang"] = lang_code(language());
  j["cjk_font"] = m.cjk_font;
  j["title"] = tr(S::app_title);
  put_estimate(m, j);
  put_time_and_cost(m, j);
  j["plans"] = plans_json(m);
  // The page's currency (money(), set by the App), as the Plans tab shows it.
  j["money"] = {{"currency", money().currency},
                {"usd_per_unit", money().usd_per_unit},
                {"rate_source", money().rate_source},
                {"cost_header", tr(money_label(S::col_usd))},
                {"budget_label", tr(money_label(S::key_budget_usd))},
                {"budget_shown", usd_to_shown(m.state.query.budget_usd)}};
  j["serving"] = serving_json(m);
  j["notes_shown"] = notes_shown_json(m);
  j["launch"] = launch_json(m);
  j["upload"] = upload_json(m);
  j["published"] = published_json(m);
  j["measured_run"] = measured_run_json(m);
  j["prices_as_of"] = m.catalog->prices_as_of;
  j["widgets"] = widgets_json.empty() ? Json::object() : Json::parse(widgets_json);
  return j.dump();
}

namespace {

// A number as the CSV writes it: 10 significant digits, "" for none.
std::string csv_number(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.10g", v);
  return b;
}

// A text cell, quoted when it holds a comma, a quote or a line break (RFC 4180).
std::string csv_text(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_line(const std::vector<std::string>& cells) {
  std::string out;
  for (const auto& c : cells) out += (out.empty() ? "" : ",") + c;
  return out + "\n";
}

std::string error_json(const std::string& message, bool versioned) {
  Json j;
  if (versioned) j["schema_version"] = kQuerySchemaVersion;
  j["error"] = message;
  return j.dump(2);
}

}  // namespace

std::string results_csv(const PageModel& m) {
  std::string out = "quantity,value,unit\n";
  auto row = [&](const std::string& q, double v, const char* unit) {
    out += csv_line({q, csv_number(v), unit});
  };
  if (!m.ev) return out;
  const Evaluation& c = *m.ev;
  const Estimate& e = c.estimate;
  row("params", static_cast<double>(e.params.total), "count");
  row("params_trainable", static_cast<double>(e.params.trainable), "count");
  row("flops_forward_per_sample", e.flops.forward_per_sample, "FLOP");
  row("flops_train_per_step", e.flops.train_per_step, "FLOP");
  const MemoryBytes& mem = e.memory;
  for (auto [name, v] : {std::pair<const char*, double>{"weights", mem.weights},
                         {"gradients", mem.gradients},
                         {"optimizer", mem.optimizer},
                         {"activations", mem.activations},
                         {"kv_cache", mem.kv_cache},
                         {"workspace", mem.workspace},
                         {"context", mem.context},
                         {"fragmentation", mem.fragmentation},
                         {"total", mem.total()}}) {
    row(std::string("memory_") + name, v, "bytes");
  }
  if (c.time) {
    row("step", c.time->step_s, "s");
    row("samples_per_s", c.time->samples_per_s, "1/s");
    if (c.time->tokens_per_s > 0) row("tokens_per_s", c.time->tokens_per_s, "1/s");
    row("mfu", c.time->mfu, "fraction");
  }
  if (c.cost) {
    row("steps", c.cost->steps, "count");
    row("hours", c.cost->expected_hours, "h");
    row("usd_total", c.cost->usd_total, "USD");
    const Money money = page_money(m);
    if (money.currency != "USD")  // the total as the page shows it, at the page's one rate
      row("cny_total", c.cost->usd_total / money.usd_per_unit, money.currency.c_str());
  }
  return out;
}

std::string results_export_json(const PageModel& m) {
  if (!m.ev) return error_json(m.error.message, true);
  return evaluation_report_json(*m.ev, m.catalog->pricing);
}

std::string plans_csv(const PlanResult& plans, const Money& money) {
  // The Plans table's columns, its "ZeRO, micro-batch, checkpointing" and "dp/tp/pp" cells split;
  // the cost in the page's currency, named in the header.
  std::string out =
      csv_line({"rank", "instance", "gpu", "nodes", "gpus", "dp", "tp", "pp", "zero_stage",
                "micro_batch", "checkpointing", "time_h", "cost_" + lower_code(money),
                "price_assumed", "mfu_percent", "pareto"});
  int rank = 0;
  for (const auto& p : plans.plans) {
    out += csv_line({std::to_string(++rank), csv_text(p.instance), csv_text(p.gpu),
                     std::to_string(p.nodes), std::to_string(p.gpus), std::to_string(p.setup.dp),
                     std::to_string(p.setup.tp), std::to_string(p.setup.pp),
                     std::to_string(p.setup.zero_stage), std::to_string(p.setup.micro_batch),
                     checkpointing_name(p.setup.checkpointing), csv_number(p.cost.expected_hours),
                     csv_number(p.cost.usd_total / money.usd_per_unit),
                     p.price.assumption ? "true" : "false", csv_number(100 * p.time.mfu),
                     p.pareto ? "true" : "false"});
  }
  return out;
}

std::string plans_export_json(const PageModel& m) {
  if (m.plans) {
    // `gpuplan plan --currency --json`, at the page's rate (page_money: the catalog's, or USD).
    auto shown = shown_currency(page_money(m).currency, m.catalog->pricing);
    return plan_to_json(*m.plans, shown.ok() ? shown.value() : ShownCurrency{});
  }
  return error_json(m.plan_error.message.empty()
                        ? "the planner has not run yet (open the Plans tab)"
                        : m.plan_error.message,
                    false);
}

std::string serving_csv(const ServePlan& plan, double percentile, const Money& money) {
  const std::string p = "p" + csv_number(percentile), c = lower_code(money);
  std::string out = csv_line({"rank", "instance", "gpu", "tp", "replica_max_rate_per_s",
                              "ttft_" + p + "_ms", "tpot_" + p + "_ms", "fixed_replicas",
                              "fixed_gpus", "peak_replicas", c + "_per_month_fixed",
                              c + "_per_month_autoscaled", c + "_per_million_output_tokens"});
  int rank = 0;
  for (const auto& o : plan.options) {
    int peak = 0;
    for (const auto& h : o.fleet.hours) peak = std::max(peak, h.replicas);
    // The on-demand cost, as the table shows; "" where the option has no priced instance.
    auto usd = [&](double FleetCost::*field) {
      return o.costs.empty() ? std::string()
                             : csv_number(o.costs.front().*field / money.usd_per_unit);
    };
    const auto& at = o.rate.at_max;
    out +=
        csv_line({std::to_string(++rank), csv_text(o.instance.empty() ? o.gpu : o.instance),
                  csv_text(o.gpu), replica_layout(o), csv_number(o.rate.max_rate_per_s),
                  csv_number(at_percentile(at.ttft_s, percentile) * 1000),
                  csv_number(at_percentile(at.tpot_s, percentile) * 1000),
                  std::to_string(o.fleet.fixed_replicas),
                  std::to_string(o.fleet.fixed_replicas * o.tp * o.pp), std::to_string(peak),
                  usd(&FleetCost::usd_per_month_fixed), usd(&FleetCost::usd_per_month_autoscaled),
                  usd(&FleetCost::usd_per_million_output_tokens)});
  }
  return out;
}

std::string serving_export_json(const PageModel& m) {
  const ServeResults& r = m.serve;
  if (r.plan) {
    // `gpuplan serve --currency`'s JSON, at the page's rate (page_money: the catalog's, or USD).
    auto shown = shown_currency(page_money(m).currency, m.catalog->pricing);
    return serve_plan_to_json(r.model, r.curve, *r.plan,
                              shown.ok() ? shown.value() : ShownCurrency{});
  }
  return error_json(r.error.message.empty() ? "the serving plan has not finished (open the "
                                              "Serving tab)"
                                            : r.error.message,
                    false);
}

ExportFile export_file(const PageModel& m, ExportKind kind) {
  const bool csv = kind == ExportKind::csv;
  ExportFile f;
  f.mime = csv ? "text/csv" : "application/json";
  std::string tab = "results";
  if (m.state.tab == Tab::plans) {
    tab = "plans";
    f.text =
        csv ? plans_csv(m.plans ? *m.plans : PlanResult{}, page_money(m)) : plans_export_json(m);
  } else if (m.state.tab == Tab::serving) {
    tab = "serving";
    f.text = csv ? serving_csv(m.serve.plan ? *m.serve.plan : ServePlan{}, m.state.serve.percentile,
                               page_money(m))
                 : serving_export_json(m);
  } else {
    f.text = csv ? results_csv(m) : results_export_json(m);
  }
  f.name = "gpuplan-" + tab + (csv ? ".csv" : ".json");
  return f;
}

namespace {

// Median seconds per call of `f` over `rounds` rounds of `calls` calls.
double median_seconds(const std::function<void()>& f, int rounds, int calls) {
  std::vector<double> t;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
                calls);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

namespace {

// The serving issue's example (serving_example_query), as bench/bench_serve.cpp times it.
std::string bench_serve_json(const Catalog& catalog, const ServingAssumptions& serving) {
  const std::string model = serving_example_request().model;
  const Model* m = catalog.find_model(model);
  if (!m) return nlohmann::json{{"error", model + " is not in the catalog"}}.dump();
  const ServeQuery q = serving_example_query();
  int options = 0;
  const double s = median_seconds(
      [&] {
        auto p = plan_serving(catalog, serving, *m, q);
        options = p.ok() ? static_cast<int>(p.value().options.size()) : -1;
      },
      3, 1);
  return nlohmann::json{{"kind", "serve"},
                        {"median_ms", s * 1e3},
                        {"options", options},
                        {"gpus", catalog.gpus.size()},
                        {"instances", catalog.instances.size()}}
      .dump();
}

}  // namespace

std::string bench_json(const Catalog& catalog, const std::string& kind,
                       const ServingAssumptions* serving) {
  if (kind == "serve") {
    if (!serving) return nlohmann::json{{"error", "no serving assumptions"}}.dump();
    return bench_serve_json(catalog, *serving);
  }
  // "plan-moe": issue 26's search of >= 1,000,000 candidates (DeepSeek-V3, expert parallelism
  // searched too, up to 64 nodes), as bench_planner's last case.
  const bool moe = kind == "plan-moe";
  const std::string id = moe ? "deepseek-v3" : "llama-2-7b";
  const Model* m = catalog.find_model(id);
  if (!m) return nlohmann::json{{"error", id + " is not in the catalog"}}.dump();
  int64_t candidates = 0;
  double s = 0;
  if (kind == "estimate") {
    Setup setup;
    setup.precision = Precision::amp_bf16;
    setup.global_batch = 64;
    setup.dp = 8;
    setup.zero_stage = 3;
    setup.checkpointing = Checkpointing::selective;
    double sink = 0;
    s = median_seconds([&] { sink += estimate(*m, setup).ok() ? 1 : 0; }, 7, 2000);
    candidates = sink > 0 ? 1 : 0;
  } else {
    PlanQuery q;
    q.request.model = m->id;
    q.request.setup.precision = moe ? Precision::mixed_bf16 : Precision::amp_bf16;
    q.request.setup.global_batch = moe ? 1024 : 512;
    q.request.setup.seq_len = 4096;
    q.run.tokens = 1e11;
    q.max_nodes = 64;
    q.efficiencies = catalog.efficiencies;
    s = median_seconds(
        [&] {
          auto r = plan(catalog, *m, q);
          candidates = r.ok() ? r.value().candidates : -1;
        },
        5, 1);
  }
  return nlohmann::json{{"kind", kind}, {"median_ms", s * 1e3}, {"candidates", candidates}}.dump();
}

std::string estimate_query_json(const Catalog& catalog, const std::string& query) {
  // The CLI's `estimate --json` estimate for the same keys: evaluate() with its defaults.
  auto q = parse_query_string(query);
  if (!q.ok()) return nlohmann::json{{"error", q.error().message}}.dump();
  auto ev = evaluate(catalog, q.value());
  if (!ev.ok()) return nlohmann::json{{"error", ev.error().message}}.dump();
  return estimate_to_json(ev.value().model, ev.value().query.request, ev.value().estimate, -1);
}

}  // namespace gpuplan::web
