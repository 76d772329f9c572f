#include "gpuplan/report.h"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "gpuplan/cost.h"
#include "gpuplan/evaluate.h"
#include "gpuplan/measured_run.h"
#include "gpuplan/published.h"

namespace gpuplan {
namespace {

// Model ids and LoRA targets come from users as any bytes; invalid UTF-8 is written as U+FFFD
// rather than thrown (nlohmann's default), which would abort the page and the CLI.
// One aligned "  label   value" line of the text reports.
void append_row(std::string& out, const char* label, const std::string& value) {
  char line[200];
  std::snprintf(line, sizeof line, "  %-28s %s\n", label, value.c_str());
  out += line;
}

std::string dump(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

nlohmann::ordered_json moe_json(const MoeEstimate& m) {
  return {{"ep", m.ep},
          {"etp", m.etp},
          {"expert_dp", m.edp},
          {"local_experts", m.local_experts},
          {"rank_load", m.rank_load},
          {"expert_params_per_gpu", m.expert_params_per_gpu},
          {"dispatch_bytes_per_layer", m.dispatch_bytes_per_layer},
          {"dispatch_buffer_bytes", m.dispatch_buffer_bytes}};
}

// How the experts are laid out, for the text report.
void moe_text(const MoeEstimate& m, std::string& out) {
  char b[160];
  out += "Experts per GPU\n";
  std::snprintf(b, sizeof b, "%g per MoE block (ep %d, etp %d, expert data-parallel %d)",
                m.local_experts, m.ep, m.etp, m.edp);
  append_row(out, "routed experts", b);
  std::snprintf(b, sizeof b, "%.0f", m.expert_params_per_gpu);
  append_row(out, "expert parameters", b);
  std::snprintf(b, sizeof b, "%.3g x an even share of the tokens", m.rank_load);
  append_row(out, "busiest rank", b);
  if (m.dispatch_bytes_per_layer > 0)
    append_row(out, "dispatch per MoE block", format_bytes(m.dispatch_bytes_per_layer));
}

}  // namespace

std::string estimate_to_json(const Model& model, const Request& request, const Estimate& e,
                             int indent) {
  nlohmann::ordered_json j;
  j["model"] = model.id;
  j["mode"] = mode_name(request.setup.mode);
  nlohmann::ordered_json setup;
  for (const auto& [k, v] : request_to_args(request)) {
    if (k != "model") setup[k] = v;
  }
  j["setup"] = setup.is_null() ? nlohmann::ordered_json::object() : setup;
  j["global_batch"] = e.global_batch;
  j["micro_batch"] = e.micro_batch;
  j["grad_accum_steps"] = e.grad_accum_steps;
  if (e.seq_len > 0) j["seq_len"] = e.seq_len;
  if (e.resolution > 0) j["resolution"] = e.resolution;
  j["num_gpus"] = e.num_gpus;
  if (!e.attention.empty()) {
    j["attention"] = e.attention;
    j["attention_reason"] = attention_reason_name(e.attention_reason);
  }
  j["params"] = e.params.total;
  j["params_trainable"] = e.params.trainable;
  j["param_tensors_trainable"] = e.params.tensors;
  j["params_embedding"] = e.params.embedding;
  j["params_active_per_token"] = e.params.active_per_token;
  j["params_experts"] = e.params.experts;
  if (e.moe) j["moe"] = moe_json(*e.moe);
  const FlopCounts& f = e.flops;
  j["flops"] = {
      {"forward_per_sample", f.forward_per_sample},
      {"forward_matmul_per_sample", f.forward_matmul_per_sample},
      {"forward_attention_per_sample", f.forward_attention_per_sample},
      {"tokens_per_sample", f.tokens_per_sample},
      {"forward_per_step", f.forward_per_step},
      {"backward_per_step", f.backward_per_step},
      {"recompute_per_step", f.recompute_per_step},
      {"train_per_step", f.train_per_step},
      {"params_rule_per_token", f.params_rule_per_token},
      {"params_rule_active_per_token", f.params_rule_active_per_token},
      {"prefill", f.prefill},
      {"decode_per_token", f.decode_per_token},
      {"decode_bytes_per_token", f.decode_bytes_per_token},
  };
  nlohmann::ordered_json memory;
  for (const MemoryTerm& t : memory_terms(e.memory)) memory[t.key] = t.bytes;
  memory["total"] = e.memory.total();
  j["memory_bytes"] = memory;
  j["notes"] = e.notes;
  return dump(j, indent);
}

namespace {

nlohmann::ordered_json time_json(const StepTime& t) {
  nlohmann::ordered_json j = {
      {"step_s", t.step_s},
      {"samples_per_s", t.samples_per_s},
      {"tokens_per_s", t.tokens_per_s > 0 ? nlohmann::ordered_json(t.tokens_per_s)
                                          : nlohmann::ordered_json(nullptr)},
      {"mfu", t.mfu},
      {"forward_s", t.forward_s},
      {"backward_s", t.backward_s},
      {"recompute_s", t.recompute_s},
      {"optimizer_s", t.optimizer_s},
      {"tp_comm_s", t.tp_comm_s},
      {"tp_comm_total_s", t.tp_comm_total_s},
      {"dp_comm_s", t.dp_comm_s},
      {"dp_comm_exposed_s", t.dp_comm_exposed_s},
      {"pp_bubble_s", t.pp_bubble_s},
      {"pp_p2p_s", t.pp_p2p_s},
      {"pp_imbalance_s", t.pp_imbalance_s},
      {"pp_p2p_total_s", t.pp_p2p_total_s},
      {"cp_comm_s", t.cp_comm_s},
      {"cp_comm_exposed_s", t.cp_comm_exposed_s},
      {"ep_comm_s", t.ep_comm_s},
      {"ep_comm_exposed_s", t.ep_comm_exposed_s},
      {"offload_s", t.offload_s},
      {"offload_exposed_s", t.offload_exposed_s},
      {"prefill_s", t.prefill_s},
      {"decode_token_s", t.decode_token_s},
      {"peak_flop_per_s", t.peak_flop_per_s},
      {"input_needed_samples_per_s", t.input_needed_samples_per_s},
      {"input_capacity_samples_per_s", t.input_capacity_samples_per_s},
      {"input_bound", t.input_bound},
      {"suggested_num_workers", t.suggested_num_workers},
      {"notes", t.notes},
  };
  return j;
}

nlohmann::ordered_json cost_json(const PriceQuote& price, const RunCost* cost, int instances) {
  nlohmann::ordered_json j = {
      {"usd_per_hour", price.usd_per_hour * instances},
      {"instance_usd_per_hour", price.usd_per_hour},
      {"instances", instances},
      {"region", price.region},
      {"price_date", price.date},
      {"price_is_assumption", price.assumption},
      {"price_basis", price.basis},
  };
  j.update(price_quote_fields(price));  // published/assumed, rule, currency, commitment, break-even
  if (cost) {
    j["steps"] = cost->steps;
    j["hours"] = cost->hours;
    j["expected_hours"] = cost->expected_hours;
    j["usd_total"] = cost->usd_total;
    j["commitment_hours_charged"] = cost->commitment_h;
  }
  return j;
}

nlohmann::ordered_json plan_json(const Plan& p) {
  Request r;
  r.setup = p.setup;
  nlohmann::ordered_json setup = nlohmann::ordered_json::object();
  for (const auto& [k, v] : request_to_args(r)) setup[k] = v;
  return {
      {"instance", p.instance},
      {"provider", p.provider},
      {"gpu", p.gpu},
      {"nodes", p.nodes},
      {"gpus", p.gpus},
      {"setup", setup},
      {"memory_bytes_per_gpu", p.memory.total()},
      {"gpu_memory_bytes", p.gpu_memory_bytes},
      {"time", time_json(p.time)},
      {"cost", cost_json(p.price, &p.cost, p.nodes)},
      {"pareto", p.pareto},
  };
}

}  // namespace

std::string step_time_to_json(const StepTime& t, int indent) {
  return dump(time_json(t), indent);
}

std::string run_cost_to_json(const PriceQuote& price, const RunCost* cost, int instances,
                             int indent) {
  return dump(cost_json(price, cost, instances), indent);
}

namespace {

// plan_to_json's object, built once: the shown-currency overload adds to it rather than parsing
// the text back.
nlohmann::ordered_json plan_result_json(const PlanResult& r) {
  nlohmann::ordered_json j;
  j["schema_version"] = kQuerySchemaVersion;
  j["candidates"] = r.candidates;
  j["fitting"] = r.fitting;
  j["within_limits"] = r.within_limits;
  j["plans"] = nlohmann::ordered_json::array();
  for (const auto& p : r.plans) j["plans"].push_back(plan_json(p));
  j["pareto"] = nlohmann::ordered_json::array();
  for (const auto& p : r.pareto) j["pareto"].push_back(plan_json(p));
  j["notes"] = r.notes;
  return j;
}

}  // namespace

std::string plan_to_json(const PlanResult& r, int indent) {
  return dump(plan_result_json(r), indent);
}

// The expert-parallel, virtual-stage and context-parallel degrees of a plan, and its hybrid
// shard group, when it uses them (" ep8 vp2 cp2 shard8").
std::string extra_degrees(const Setup& s) {
  std::string out;
  if (s.ep > 1) out += " ep" + std::to_string(s.ep);
  if (s.vp > 1) out += " vp" + std::to_string(s.vp);
  if (s.cp > 1) out += " cp" + std::to_string(s.cp);
  if (hybrid_shard(s) > 0) out += " shard" + std::to_string(s.dp_shard);
  return out;
}

std::string plan_to_text(const PlanResult& r) {
  std::string out;
  char line[400];
  std::snprintf(line, sizeof line,
                "%lld configurations evaluated, %lld fit in memory, %lld within limits\n\n",
                static_cast<long long>(r.candidates), static_cast<long long>(r.fitting),
                static_cast<long long>(r.within_limits));
  out += line;
  std::snprintf(line, sizeof line, "%-3s %-40s %5s %5s %-32s %10s %12s %12s %6s\n", "#", "instance",
                "nodes", "GPUs", "dp/tp/pp zero mb ckpt", "hours", "USD", "USD/hour", "MFU");
  out += line;
  int rank = 1;
  for (const auto& p : r.plans) {
    char par[96];
    std::snprintf(par, sizeof par, "%d/%d/%d%s z%d mb%lld %s", p.setup.dp, p.setup.tp, p.setup.pp,
                  extra_degrees(p.setup).c_str(), p.setup.zero_stage,
                  static_cast<long long>(p.setup.micro_batch),
                  checkpointing_name(p.setup.checkpointing));
    std::snprintf(line, sizeof line, "%-3d %-40s %5d %5d %-32s %10.4g %12.4g %12.4g %5.1f%%%s\n",
                  rank++, p.instance.c_str(), p.nodes, p.gpus, par, p.cost.expected_hours,
                  p.cost.usd_total, p.cost.usd_per_hour, 100 * p.time.mfu,
                  (std::string(p.pareto ? " *" : "") + (p.price.assumption ? " ~" : "")).c_str());
    out += line;
  }
  out +=
      "\n* on the Pareto front of time against cost; ~ assumed price (a pricing rule, not a "
      "published price)\n";
  for (const auto& n : r.notes) out += "note: " + n + "\n";
  return out;
}

namespace {

std::string secs(double s) {
  char b[40];
  std::snprintf(b, sizeof b, "%.4g s", s);
  return b;
}

// A training step's terms (time_to_text).
void train_time_rows(const StepTime& t, std::string& out) {
  auto row = [&](const char* label, const std::string& value) { append_row(out, label, value); };
  row("  forward", secs(t.forward_s));
  row("  backward", secs(t.backward_s));
  row("  recompute", secs(t.recompute_s));
  row("  optimizer", secs(t.optimizer_s));
  row("  tensor-parallel comm", secs(t.tp_comm_s));
  row("  data-parallel comm exposed", secs(t.dp_comm_exposed_s));
  if (t.ep_comm_s > 0) {
    row("  expert all-to-all exposed", secs(t.ep_comm_exposed_s) + " of " + secs(t.ep_comm_s));
  }
  row("  pipeline bubble", secs(t.pp_bubble_s));
  if (t.pp_p2p_total_s > 0) row("  pipeline sends exposed", secs(t.pp_p2p_s));
  if (t.pp_imbalance_s > 0) row("  pipeline stage imbalance", secs(t.pp_imbalance_s));
  if (t.cp_comm_s > 0) row("  context-parallel comm exposed", secs(t.cp_comm_exposed_s));
  if (t.offload_s > 0) {
    row("  activation offload exposed", secs(t.offload_exposed_s) + " of " + secs(t.offload_s));
  }
}

}  // namespace

std::string time_to_text(const StepTime& t, const PriceQuote* price, const RunCost* cost) {
  std::string out;
  auto row = [&](const char* label, const std::string& value) { append_row(out, label, value); };
  out += "Time\n";
  row("step", secs(t.step_s));
  if (t.prefill_s > 0) {  // inference: the prompts' forward pass, then a step per token
    row("  prefill", secs(t.prefill_s));
    if (t.decode_token_s > 0) row("  decode step", secs(t.decode_token_s));
  } else {
    train_time_rows(t, out);
  }
  char b[64];
  std::snprintf(b, sizeof b, "%.1f", t.samples_per_s);
  row("samples/s", b);
  if (t.tokens_per_s > 0) {
    std::snprintf(b, sizeof b, "%.0f", t.tokens_per_s);
    row("tokens/s", b);
  }
  std::snprintf(b, sizeof b, "%.1f %%", 100 * t.mfu);
  row("MFU", b);
  if (t.input_capacity_samples_per_s > 0) {
    std::snprintf(b, sizeof b, "%.0f needed, %.0f decodable", t.input_needed_samples_per_s,
                  t.input_capacity_samples_per_s);
    row("input images/s per node", b);
    row("suggested num_workers/GPU", std::to_string(t.suggested_num_workers));
  }
  if (price) {
    out += "Cost\n";
    std::snprintf(b, sizeof b, "%.4f USD (%s)", price->usd_per_hour, price->region.c_str());
    row("per instance-hour", b);
    row("price basis", price->basis + ", " + price->date);
  }
  if (cost) {
    std::snprintf(b, sizeof b, "%.0f", cost->steps);
    row("steps", b);
    std::snprintf(b, sizeof b, "%.2f h (expected %.2f h)", cost->hours, cost->expected_hours);
    row("time to train", b);
    if (price) {
      std::snprintf(b, sizeof b, "%.2f USD", cost->usd_total);
      row("total", b);
    }
  }
  for (const auto& n : t.notes) out += "note: " + n + "\n";
  return out;
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (std::fabs(bytes) >= 1000 && u < 5) {
    bytes /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", bytes, units[u]);
  return buf;
}

std::string format_flops(double flops) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", flops);
  return buf;
}

std::string estimate_to_text(const Model& model, const Estimate& e) {
  std::string out;
  auto row = [&](const char* label, const std::string& value) { append_row(out, label, value); };
  out += model.name + " (" + model.id + ")\n";
  row("parameters", std::to_string(e.params.total));
  if (e.params.experts > 0) {
    row("  active per token", std::to_string(e.params.active_per_token));
    row("  routed experts", std::to_string(e.params.experts));
  }
  row("trainable parameters", std::to_string(e.params.trainable));
  row("trainable tensors", std::to_string(e.params.tensors));
  std::string shape = "global batch " + std::to_string(e.global_batch) + ", micro-batch " +
                      std::to_string(e.micro_batch) + ", accumulation " +
                      std::to_string(e.grad_accum_steps);
  row("batch", shape);
  if (e.seq_len > 0) row("sequence length", std::to_string(e.seq_len));
  if (e.resolution > 0) row("resolution", std::to_string(e.resolution));
  if (!e.attention.empty())
    row("attention", e.attention + ": " + attention_reason_text(e.attention_reason));
  out += "FLOPs\n";
  row("forward per sample", format_flops(e.flops.forward_per_sample));
  if (e.params.experts > 0) {
    row("6N per token, active", format_flops(e.flops.params_rule_active_per_token));
    row("6N per token, total", format_flops(e.flops.params_rule_per_token));
  }
  if (e.flops.train_per_step > 0) {
    row("train per step", format_flops(e.flops.train_per_step));
    row("  forward", format_flops(e.flops.forward_per_step));
    row("  backward", format_flops(e.flops.backward_per_step));
    row("  recompute", format_flops(e.flops.recompute_per_step));
  } else {  // inference, as the page shows it
    row("prefill (batch)", format_flops(e.flops.prefill));
    row("decode per token (batch)", format_flops(e.flops.decode_per_token));
  }
  out += "Memory per GPU\n";
  for (const MemoryTerm& t : memory_terms(e.memory)) row(t.label, format_bytes(t.bytes));
  row("total", format_bytes(e.memory.total()));
  if (e.moe) moe_text(*e.moe, out);
  for (const auto& n : e.notes) out += "note: " + n + "\n";
  return out;
}

}  // namespace gpuplan

namespace gpuplan {

std::string fit_line(const FitVerdict& f, const std::string& gpu_id) {
  if (f.band.rows == 0) {
    return std::string(fit_name(f.fit)) + ": needs " + format_bytes(f.memory_bytes.value) +
           " per GPU (no memory band: " + f.band.reason + "), " + gpu_id + " gives " +
           format_bytes(f.capacity_bytes);
  }
  return std::string(fit_name(f.fit)) + ": needs " + format_bytes(f.memory_bytes.value) +
         " per GPU (likely " + format_bytes(f.memory_bytes.low) + "-" +
         format_bytes(f.memory_bytes.high) + ", the 80 % memory band), " + gpu_id + " gives " +
         format_bytes(f.capacity_bytes);
}

std::string band_line(double step_s, const ErrorBand& band, const RunGround& ground) {
  if (band.rows == 0) return "step time has no error band: " + band.reason;
  const Range r = time_range_s(step_s, band);
  char line[160];
  std::snprintf(line, sizeof line,
                "step time %.4g s, likely %.4g-%.4g s (80 %% band of held-out error); ", r.value,
                r.low, r.high);
  return line + evidence_line(band, ground);
}

namespace {
// "190-447 ms", or in seconds from a second up: "4.01-10.4 s".
std::string latency_range(const Range& r) {
  char text[64];
  if (r.high >= 1) {
    std::snprintf(text, sizeof text, "%.3g-%.3g s", r.low, r.high);
  } else {
    std::snprintf(text, sizeof text, "%.3g-%.3g ms", r.low * 1000, r.high * 1000);
  }
  return text;
}
}  // namespace

std::string serve_band_line(const ServeOption& o, double percentile) {
  if (o.rate_band.rows == 0) return "replica rate has no error band: " + o.rate_band.reason;
  char line[240];
  std::snprintf(line, sizeof line,
                "likely %.3g-%.3g req/s per replica (80 %% band of held-out serving error)",
                o.max_rate_range.low, o.max_rate_range.high);
  std::string out = line;
  if (o.latency_band.rows > 0) {
    const std::string p = std::to_string(static_cast<int>(percentile));
    out += "; at that rate TTFT p" + p + " likely " + latency_range(o.ttft_range_s) + ", TPOT p" +
           p + " " + latency_range(o.tpot_range_s);
  }
  out += "; " + evidence_line(o.rate_band, o.ground);
  if (!o.rate_band.reason.empty()) out += "; " + o.rate_band.reason;
  return out;
}

namespace {

nlohmann::ordered_json band_json(const ErrorBand& b) {
  return {{"pool", b.pool},
          {"rows", b.rows},
          {"sources", b.sources},
          {"error_p10", b.low},
          {"error_p90", b.high},
          {"pool_error_p10", b.pool_low},
          {"pool_error_p90", b.pool_high},
          {"mape", b.mape},
          {"evidence",
           {{"runs", b.evidence_rows},
            {"sources", b.evidence_sources},
            {"max_gpus", b.evidence_max_gpus}}},
          {"outside", b.outside},
          {"never_validated", b.never_validated},
          {"reason", b.reason}};
}

nlohmann::ordered_json verdict_json(const FitVerdict& f) {
  return {{"verdict", fit_name(f.fit)},
          {"needed_bytes", f.memory_bytes.value},
          {"needed_bytes_range", {f.memory_bytes.low, f.memory_bytes.high}},
          {"capacity_bytes", f.capacity_bytes},
          {"margin_bytes", f.margin_bytes},
          {"band", band_json(f.band)}};
}

nlohmann::ordered_json accuracy_json(const Evaluation& ev) {
  nlohmann::ordered_json j = {{"family", ev.family},
                              {"ground", ground_json(ev.ground)},
                              {"band_family", ev.time_band.pool}};
  const nlohmann::ordered_json band = band_json(ev.time_band);
  for (const auto& [k, v] : band.items()) j[k] = v;
  if (ev.time) {
    const Range r = time_range_s(ev.time->step_s, ev.time_band);
    j["step_s_range"] = {r.low, r.high};
  }
  return j;
}

}  // namespace

nlohmann::ordered_json ground_json(const RunGround& g) {
  nlohmann::ordered_json j = {{"kind", g.kind},
                              {"precision", g.precision},
                              {"parallel", g.parallel},
                              {"arch", g.arch},
                              {"gpus", g.gpus}};
  if (!g.runtime.empty()) j["runtime"] = g.runtime;
  return j;
}

std::string evaluation_to_json(const Evaluation& ev, int indent) {
  nlohmann::ordered_json j = {{"schema_version", kQuerySchemaVersion}};
  const auto estimate =
      nlohmann::ordered_json::parse(estimate_to_json(ev.model, ev.query.request, ev.estimate, -1));
  for (const auto& [k, v] : estimate.items()) j[k] = v;
  if (ev.gpu) {
    j["gpu"] = ev.gpu->id;
    if (ev.instance) j["instance"] = ev.instance->id;
    j["fits"] = ev.fit.fits;
    j["gpu_memory_bytes"] = ev.fit.gpu_memory_bytes;
    j["largest_term"] = ev.fit.largest_term;
    j["fit_advice"] = ev.fit.advice;
    j["fit"] = verdict_json(ev.verdict);
  }
  if (ev.time) j["time"] = time_json(*ev.time);
  j["accuracy"] = accuracy_json(ev);
  if (ev.time_calibrated) j["time_calibrated"] = time_json(*ev.time_calibrated);
  auto cost = [&](const std::optional<RunCost>& c) -> nlohmann::ordered_json {
    if (ev.price) return cost_json(*ev.price, c ? &*c : nullptr, ev.query.nodes);
    return {{"steps", c->steps}, {"hours", c->hours}, {"expected_hours", c->expected_hours}};
  };
  if (ev.price || ev.cost) j["cost"] = cost(ev.cost);
  if (ev.price_error) j["price_error"] = ev.price_error->message;
  if (ev.cost_calibrated) j["cost_calibrated"] = cost(ev.cost_calibrated);
  return dump(j, indent);
}

std::string evaluation_report_json(const Evaluation& ev, const PricingRules& rules, int indent) {
  auto j = nlohmann::ordered_json::parse(evaluation_to_json(ev, -1));
  if (ev.measured_run)
    j["measured_run"] =
        nlohmann::ordered_json::parse(measured_comparison_to_json(*ev.measured_run));
  if (ev.gpu) j["published"] = nlohmann::ordered_json::array();
  for (const auto& c : ev.published)
    j["published"].push_back(nlohmann::ordered_json::parse(published_comparison_json(c)));
  if (ev.price && ev.cost && j.contains("cost")) {
    if (auto rate = usd_per_currency_unit(ev.query.currency, *ev.price, rules); rate.ok()) {
      j["cost"]["shown_currency"] = ev.query.currency;
      j["cost"]["total_in_shown_currency"] = ev.cost->usd_total / rate.value();
    }
  }
  return dump(j, indent);
}

namespace {

// A fleet's replicas for each hour of the day.
nlohmann::ordered_json replicas_per_hour_json(const FleetPlan& fleet) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& h : fleet.hours) out.push_back(h.replicas);
  return out;
}

nlohmann::ordered_json serve_option_json(const ServeOption& o) {
  using json = nlohmann::ordered_json;
  json j;
  j["instance"] = o.instance;
  j["provider"] = o.provider;
  j["gpu"] = o.gpu;
  j["tp"] = o.tp;
  j["pp"] = o.pp;
  j["gpus_per_replica"] = o.tp * o.pp;
  j["machines_per_replica"] = o.machines;
  j["kv_cache_bytes_per_gpu"] = o.memory.kv_bytes;
  j["kv_cache_tokens"] = o.memory.kv_tokens;
  j["weight_bytes_per_gpu"] = o.memory.weight_bytes;
  j["max_concurrent_sequences"] = o.max_seqs;
  j["prefill_s"] = o.prefill_s;
  j["decode_step_s"] = o.decode_step_s;
  j["tokens_per_step"] = o.tokens_per_step;
  j["itl_s"] = o.itl_s;
  j["prefill_computed_share"] = o.prefill_computed_share;
  j["spec_weight_bytes_per_gpu"] = o.memory.spec_weight_bytes;
  const auto& s = o.rate.at_max;
  j["replica_max_rate_per_s"] = o.rate.max_rate_per_s;
  j["at_max_rate"] = {
      {"ttft_s", {{"p50", s.ttft_s.p50}, {"p90", s.ttft_s.p90}, {"p99", s.ttft_s.p99}}},
      {"tpot_s", {{"p50", s.tpot_s.p50}, {"p90", s.tpot_s.p90}, {"p99", s.tpot_s.p99}}},
      {"output_tokens_per_s", s.output_tokens_per_s}};
  j["limit"] = o.rate.limit;
  j["band"] = {{"ground", ground_json(o.ground)},
               {"replica_max_rate_per_s_range", {o.max_rate_range.low, o.max_rate_range.high}},
               {"ttft_s_range", {o.ttft_range_s.low, o.ttft_range_s.high}},
               {"tpot_s_range", {o.tpot_range_s.low, o.tpot_range_s.high}},
               {"usd_per_month_autoscaled_range",
                {o.usd_per_month_autoscaled_range.low, o.usd_per_month_autoscaled_range.high}},
               {"rate_band", band_json(o.rate_band)},
               {"latency_band", band_json(o.latency_band)}};
  j["fixed_replicas"] = o.fleet.fixed_replicas;
  j["replicas_per_hour"] = replicas_per_hour_json(o.fleet);
  j["scale_up_delay_s"] = o.fleet.scale_up_delay_s;
  j["price_usd_per_hour"] = o.price.usd_per_hour;
  j["costs"] = json::array();
  for (const auto& c : o.costs) {
    j["costs"].push_back({{"pricing", c.pricing},
                          {"usd_per_month_fixed", c.usd_per_month_fixed},
                          {"usd_per_month_autoscaled", c.usd_per_month_autoscaled},
                          {"usd_per_million_output_tokens", c.usd_per_million_output_tokens},
                          {"note", c.note}});
  }
  j["notes"] = o.notes;
  return j;
}

// One pool of a disaggregated plan.
nlohmann::ordered_json disagg_pool_json(const DisaggPool& p) {
  nlohmann::ordered_json j;
  j["tp"] = p.tp;
  j["max_rate_per_s"] = p.rate.max_rate_per_s;
  j["limit"] = p.rate.limit;
  j["ttft_s_p90"] = p.rate.at_max.ttft_s.p90;
  j["tpot_s_p90"] = p.rate.at_max.tpot_s.p90;
  j["fixed_replicas"] = p.fleet.fixed_replicas;
  j["replicas_per_hour"] = replicas_per_hour_json(p.fleet);
  j["usd_per_month_fixed"] = p.costs.empty() ? 0.0 : p.costs.front().usd_per_month_fixed;
  j["usd_per_month_autoscaled"] = p.costs.empty() ? 0.0 : p.costs.front().usd_per_month_autoscaled;
  return j;
}

nlohmann::ordered_json disagg_json(const DisaggPlan& d) {
  nlohmann::ordered_json j;
  j["instance"] = d.instance;
  j["prefill"] = disagg_pool_json(d.prefill);
  j["decode"] = disagg_pool_json(d.decode);
  j["kv_bytes_per_request"] = d.kv_bytes_per_request;
  j["kv_transfer_s"] = d.kv_transfer_s;
  j["kv_link"] = d.kv_link;
  j["first_decode_step_s"] = d.first_decode_step_s;
  j["prefill_ttft_target_s"] = d.prefill_ttft_target_s;
  j["gpus_fixed"] = d.gpus_fixed;
  j["colocated_gpus_fixed"] = d.colocated_gpus_fixed;
  j["usd_per_month_fixed"] = d.usd_per_month_fixed;
  j["usd_per_month_autoscaled"] = d.usd_per_month_autoscaled;
  j["colocated_usd_per_month_fixed"] = d.colocated_usd_per_month_fixed;
  j["colocated_usd_per_month_autoscaled"] = d.colocated_usd_per_month_autoscaled;
  return j;
}

// serve_plan_to_json's object, built once for both overloads.
nlohmann::ordered_json serve_plan_json(const std::string& model, const LoadCurve& curve,
                                       const ServePlan& plan) {
  nlohmann::ordered_json out;
  out["model"] = model;
  out["load_curve_per_s"] = curve;
  // The serving features as given, with what they do to the best option.
  const ServeOption* best = plan.options.empty() ? nullptr : &plan.options.front();
  out["prefix_caching"] = {{"prefix_hit_rate", plan.prefix_hit_rate},
                           {"prefill_computed_share", best ? best->prefill_computed_share : 1.0}};
  out["speculative_decoding"] = {{"method", spec_method_name(plan.spec.method)},
                                 {"tokens", plan.spec.tokens},
                                 {"acceptance", plan.spec.acceptance},
                                 {"draft_model", plan.spec.draft_model},
                                 {"tokens_per_step", best ? best->tokens_per_step : 1.0}};
  out["options"] = nlohmann::ordered_json::array();
  for (const auto& o : plan.options) out["options"].push_back(serve_option_json(o));
  if (plan.disaggregated) out["disaggregated"] = disagg_json(*plan.disaggregated);
  if (plan.disaggregated_error)
    out["disaggregated"] = {{"error", plan.disaggregated_error->message},
                            {"id", message_id(plan.disaggregated_error->id)}};
  out["notes"] = plan.notes;
  return out;
}

}  // namespace

std::string serve_plan_to_json(const std::string& model, const LoadCurve& curve,
                               const ServePlan& plan, int indent) {
  return dump(serve_plan_json(model, curve, plan), indent);
}

Result<ShownCurrency> shown_currency(const std::string& currency, const PricingRules& rules) {
  // An empty quote has no rate of its own: the catalog's, one factor for every amount.
  auto rate = usd_per_currency_unit(currency, PriceQuote{}, rules);
  if (!rate.ok()) return rate.error();
  ShownCurrency s;
  s.currency = currency == "CNY" || currency == "cny" ? "CNY" : "USD";
  s.usd_per_unit = rate.value();
  if (s.currency == "CNY") s.rate_source = rules.usd_per_cny_source;
  return s;
}

namespace {

// The currency amounts are also shown in, its rate and where the rate comes from (null for USD,
// which needs no rate).
nlohmann::ordered_json shown_currency_json(const ShownCurrency& shown) {
  auto text = [](const std::string& s) {
    return s.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(s);
  };
  return {{"currency", shown.currency},
          {"usd_per_unit", shown.usd_per_unit},
          {"rate_source", text(shown.rate_source.title)},
          {"rate_url", text(shown.rate_source.url)},
          {"rate_date", text(shown.rate_source.date)}};
}

}  // namespace

std::string plan_to_json(const PlanResult& r, const ShownCurrency& shown, int indent) {
  auto j = plan_result_json(r);
  for (const char* list : {"plans", "pareto"}) {
    for (auto& p : j[list]) {
      p["cost"]["shown_currency"] = shown.currency;
      p["cost"]["total_in_shown_currency"] =
          p["cost"]["usd_total"].get<double>() / shown.usd_per_unit;
    }
  }
  j["shown_currency"] = shown_currency_json(shown);
  return dump(j, indent);
}

std::string serve_plan_to_json(const std::string& model, const LoadCurve& curve,
                               const ServePlan& plan, const ShownCurrency& shown, int indent) {
  auto j = serve_plan_json(model, curve, plan);
  // USD amounts are already there as usd_*: only the top-level block says so, as plan --json's
  // does, so a reader finds the currency in the same place whatever it is.
  j["shown_currency"] = shown_currency_json(shown);
  if (shown.currency == "USD") return dump(j, indent);
  for (auto& o : j["options"]) {
    for (auto& c : o["costs"]) {
      for (const char* f : {"per_month_fixed", "per_month_autoscaled", "per_million_output_tokens"})
        c[std::string("shown_") + f] =
            c[std::string("usd_") + f].get<double>() / shown.usd_per_unit;
      c["shown_currency"] = shown.currency;
    }
  }
  return dump(j, indent);
}

std::string evaluate_link_json(const Catalog& catalog, std::string_view link, int indent) {
  auto query = parse_query_string(link);
  auto ev = query.ok() ? evaluate(catalog, query.value()) : Result<Evaluation>(query.error());
  if (!ev.ok()) {
    return dump({{"schema_version", kQuerySchemaVersion}, {"error", ev.error().message}}, indent);
  }
  return evaluation_to_json(ev.value(), indent);
}

std::string evaluation_to_text(const Evaluation& ev) {
  std::string out = estimate_to_text(ev.model, ev.estimate);
  if (ev.gpu && !ev.fit.fits) out += ev.fit.advice + "\n";
  if (ev.gpu) {
    out += "note: " + fit_line(ev.verdict, ev.gpu->id) + "\n";
    if (!ev.verdict.band.reason.empty())
      out += "note: memory band: " + ev.verdict.band.reason + "\n";
  }
  const PriceQuote* price = ev.price ? &*ev.price : nullptr;
  if (ev.time) {
    out += "note: " + band_line(ev.time->step_s, ev.time_band, ev.ground) + "\n";
    if (ev.time_band.rows > 0 && !ev.time_band.reason.empty())
      out += "note: " + ev.time_band.reason + "\n";
  }
  if (ev.time) out += time_to_text(*ev.time, price, ev.cost ? &*ev.cost : nullptr);
  if (ev.time && ev.price_error) out += "note: not costed: " + ev.price_error->message + "\n";
  if (ev.time_calibrated) {
    out += "Calibrated with " +
           (ev.query.probe ? ev.query.probe->name : std::string("a probe file")) + "\n";
    out += time_to_text(*ev.time_calibrated, price,
                        ev.cost_calibrated ? &*ev.cost_calibrated : nullptr);
  }
  return out;
}

}  // namespace gpuplan
