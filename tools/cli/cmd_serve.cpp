// gpuplan serve --model M --rate R --prompt-tokens P --output-tokens O [--ttft-ms X] [--tpot-ms Y]
//   [--load-curve FILE|R0,R1,...,R23|flat|business-hours|diurnal] [--gpu G | --instance I] [--tp N]
//   [--runtime vllm|trtllm|sglang|hf] [--weights auto|bf16|fp16|fp8|int8|int4|...] [--kv bf16|fp8]
//   [--prefix-hit-rate H] [--spec-method draft|eagle|mtp --spec-tokens K --spec-acceptance A
//   [--spec-draft-model M]] [--disaggregate [--prefill-tp N] [--decode-tp N]]
//   [--currency usd|cny] [--json]
// Ranks instances for a serving load: replicas for the peak, replicas per hour, cost per month
// (in CNY, with --currency cny, at pricing_rules.json's sourced rate, as the page shows it).
// --json states the currency and its rate (shown_currency), USD included, as plan --json does.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "gpuplan/report.h"
#include "gpuplan/embedded_data.h"
#include "gpuplan/query.h"
#include "gpuplan/serve_plan.h"
#include "gpuplan/serve_validation.h"

namespace gpuplan::cli {
namespace {

using json = nlohmann::ordered_json;

// A preset, the 24 hourly rates written out (as in a share link), or a file of them: what the
// link's key reads (a preset wins over a file of its name), else a file, unless it has a comma.
Result<LoadCurve> read_curve(const std::string& spec, double rate) {
  auto key = load_curve_from_key(spec, rate);
  if (key.ok() || spec.find(',') != std::string::npos) return key;
  std::string text, error;
  if (!read_file(spec, text, error, 64 * 1024)) {
    return make_error(Errc::invalid_argument, "--load-curve: '" + spec +
                                                  "' is not flat, business-hours, diurnal or a "
                                                  "file (" +
                                                  error + ")");
  }
  return parse_load_curve(text, spec);
}

// The serving features turned on, as given, with what they do to the best option.
void print_features(const ServeOption& b, const ServeQuery& q) {
  if (q.workload.prefix_hit_rate > 0) {
    std::printf(
        "prefix caching: %.0f %% of prompt tokens cached; prefill computes %.1f %% of each "
        "prompt (%.0f ms alone)\n",
        q.workload.prefix_hit_rate * 100, b.prefill_computed_share * 100, b.prefill_s * 1000);
  }
  const SpecDecoding& s = q.config.spec;
  if (s.method == SpecMethod::none) return;
  std::printf(
      "speculative decoding: %s%s%s, %d draft tokens at acceptance %.3g: %.4g tokens per "
      "step; step %.2f ms alone, ITL %.2f ms (%.0f tokens/s); drafter %.2f GB per GPU\n",
      spec_method_name(s.method), s.draft_model.empty() ? "" : " ", s.draft_model.c_str(), s.tokens,
      s.acceptance, b.tokens_per_step, b.decode_step_s * 1000, b.itl_s * 1000, 1 / b.itl_s,
      b.memory.spec_weight_bytes / 1e9);
}

// --disaggregate: the two pools on the best option's instance against the co-located fleet.
void print_disaggregated(const ServePlan& p, const ServeQuery& q, const std::string& unit,
                         double per_usd) {
  if (p.disaggregated_error) {
    std::printf("disaggregated: %s\n", p.disaggregated_error->message.c_str());
    return;
  }
  if (!p.disaggregated) return;
  const DisaggPlan& d = *p.disaggregated;
  std::printf(
      "disaggregated on %s (prefill and decode on separate replicas, the prompt's KV "
      "cache sent between them):\n",
      d.instance.c_str());
  auto limit = [](const DisaggPool& pool) {
    return pool.rate.limit.empty() ? "throughput" : pool.rate.limit.c_str();
  };
  std::printf(
      "  prefill tp %d: %.2f req/s per replica (bound by %s; TTFT p90 %.0f ms), %d "
      "replica(s) fixed\n",
      d.prefill.tp, d.prefill.rate.max_rate_per_s, limit(d.prefill),
      d.prefill.rate.at_max.ttft_s.p90 * 1000, d.prefill.fleet.fixed_replicas);
  std::printf(
      "  decode  tp %d: %.2f req/s per replica (bound by %s; TPOT p90 %.1f ms), %d "
      "replica(s) fixed\n",
      d.decode.tp, d.decode.rate.max_rate_per_s, limit(d.decode),
      d.decode.rate.at_max.tpot_s.p90 * 1000, d.decode.fleet.fixed_replicas);
  std::printf(
      "  KV cache %.0f MB a request over %s in %.1f ms; the decode replica's first step "
      "%.1f ms",
      d.kv_bytes_per_request / 1e6, d.kv_link.c_str(), d.kv_transfer_s * 1000,
      d.first_decode_step_s * 1000);
  if (q.slo.ttft_s > 0)
    std::printf("; the prefill pool's TTFT target %.0f ms", d.prefill_ttft_target_s * 1000);
  std::printf(
      "\n  fixed fleet %d GPUs (co-located %d): on-demand %s%.0f/month fixed (co-located "
      "%s%.0f), %s%.0f/month autoscaled (co-located %s%.0f)\n",
      d.gpus_fixed, d.colocated_gpus_fixed, unit.c_str(), d.usd_per_month_fixed * per_usd,
      unit.c_str(), d.colocated_usd_per_month_fixed * per_usd, unit.c_str(),
      d.usd_per_month_autoscaled * per_usd, unit.c_str(),
      d.colocated_usd_per_month_autoscaled * per_usd);
}

void print_text(const ServePlan& p, const ServeQuery& q, const ShownCurrency& money) {
  // "$" for USD, as before --currency; else the currency's code.
  const std::string unit = money.currency == "USD" ? "$" : money.currency + " ";
  const double per_usd = 1 / money.usd_per_unit;
  std::printf("%-4s %-36s %-16s %5s %9s %9s %9s %5s %12s %12s %9s\n", "rank", "instance", "gpu",
              "tp", "rate/rep", "TTFTp90", "TPOTp90", "fixed", (unit + "/mo fixed").c_str(),
              (unit + "/mo auto").c_str(), (unit + "/Mtok").c_str());
  int rank = 0;
  for (const auto& o : p.options) {
    const auto& s = o.rate.at_max;
    const double fixed = o.costs.empty() ? 0 : o.costs.front().usd_per_month_fixed * per_usd;
    const double autos = o.costs.empty() ? 0 : o.costs.front().usd_per_month_autoscaled * per_usd;
    const double per_m =
        o.costs.empty() ? 0 : o.costs.front().usd_per_million_output_tokens * per_usd;
    std::printf("%-4d %-36s %-16s %5s %9.2f %8.0fms %8.1fms %5d %12.0f %12.0f %9.3f\n", ++rank,
                o.instance.empty() ? "(no priced instance)" : o.instance.c_str(), o.gpu.c_str(),
                replica_layout(o).c_str(), o.rate.max_rate_per_s, s.ttft_s.p90 * 1000,
                s.tpot_s.p90 * 1000, o.fleet.fixed_replicas, fixed, autos, per_m);
  }
  const ServeOption& b = p.options.front();
  const std::string machines =
      b.machines > 1 ? ", over " + std::to_string(b.machines) + " machines" : "";
  const std::string stages = b.pp > 1 ? " (" + std::to_string(b.pp) + " pipeline stages of " +
                                            std::to_string(b.tp) + machines + ")"
                                      : "";
  std::printf(
      "\nbest: %s, %d GPU(s) per replica%s; KV cache %.1f GB per GPU (%lld tokens), %lld sequences "
      "at once; "
      "prefill %.0f ms, decode step %.1f ms alone\n",
      b.instance.empty() ? b.gpu.c_str() : b.instance.c_str(), b.tp * b.pp, stages.c_str(),
      b.memory.kv_bytes / 1e9, static_cast<long long>(b.memory.kv_tokens),
      static_cast<long long>(b.max_seqs), b.prefill_s * 1000, b.decode_step_s * 1000);
  std::printf("band: %s\n", serve_band_line(b, q.slo.percentile).c_str());
  if (b.usd_per_month_autoscaled_range.high > 0) {
    std::printf(
        "band: on-demand autoscaled bill likely %s%.0f-%.0f a month (the fleet sized at "
        "each end of the rate's band)\n",
        unit.c_str(), b.usd_per_month_autoscaled_range.low * per_usd,
        b.usd_per_month_autoscaled_range.high * per_usd);
  }
  std::printf("replicas per hour (00-23):");
  for (const auto& h : b.fleet.hours) std::printf(" %d", h.replicas);
  std::printf(
      "\nfixed fleet %d replicas for the peak %.2f req/s + %.0f%% headroom; scale-up delay %.0f "
      "s\n",
      b.fleet.fixed_replicas, *std::max_element(q.curve.begin(), q.curve.end()),
      q.policy.headroom * 100, b.fleet.scale_up_delay_s);
  for (const auto& c : b.costs) {
    std::printf(
        "  %-34s %s%10.0f/month fixed  %s%10.0f/month autoscaled  %s%.3f per million "
        "output tokens\n",
        c.pricing.c_str(), unit.c_str(), c.usd_per_month_fixed * per_usd, unit.c_str(),
        c.usd_per_month_autoscaled * per_usd, unit.c_str(),
        c.usd_per_million_output_tokens * per_usd);
  }
  if (money.currency != "USD") {
    std::printf("amounts in %s at %.4g USD/%s (%s, %s)\n", money.currency.c_str(),
                money.usd_per_unit, money.currency.c_str(), money.rate_source.title.c_str(),
                money.rate_source.date.c_str());
  }
  print_features(b, q);
  print_disaggregated(p, q, unit, per_usd);
  for (const auto& n : b.notes) std::printf("note: %s\n", n.c_str());
  for (const auto& n : p.notes) std::printf("note: %s\n", n.c_str());
}

}  // namespace

int cmd_serve(Args args) {
  const bool json_out = take_flag(args, "json");
  // The options are the page's Serving link keys: one parser (gpuplan/query.h) reads both.
  for (const auto& kv : args) {
    const auto& keys = serve_keys();
    if (std::find(keys.begin(), keys.end(), kv.first) == keys.end())
      return usage_error("serve: unknown option --" + kv.first);
  }
  auto request = parse_serve_request(args);
  if (!request.ok()) return fail(request.error());
  const ServeRequest& r = request.value();
  if (auto err = check_serve_spec(r)) return fail(*err);
  if (auto err = check_serve_lengths(r)) return fail(*err);
  if (r.model.empty()) return usage_error("serve: --model is required");
  if (r.rate_per_s <= 0) return usage_error("serve: --rate (peak requests/s) is required");
  auto curve = read_curve(r.load_curve, r.rate_per_s);
  if (!curve.ok()) return fail(curve.error());
  ServeQuery q = serve_query(r, curve.value());
  auto catalog = load_embedded_catalog();
  if (!catalog.ok()) return fail(catalog.error());
  const Catalog& cat = catalog.value();
  auto targets = find_serve_targets(cat, r.model, q.gpu, q.instance, r.spec_draft_model);
  if (!targets.ok()) return fail(targets.error());
  const Model* model = &targets.value().model;
  q.gpu = targets.value().gpu;
  auto serving = serving_assumptions(embedded_data_files());
  if (!serving.ok()) return fail(serving.error());
  auto money = shown_currency(r.currency, cat.pricing);
  if (!money.ok()) return fail(money.error());
  auto plan = plan_serving(cat, serving.value(), *model, q);
  if (!plan.ok()) return fail(plan.error());
  if (json_out) {
    std::printf("%s\n",
                serve_plan_to_json(model->id, q.curve, plan.value(), money.value()).c_str());
  } else {
    print_text(plan.value(), q, money.value());
  }
  return 0;
}

int validate_serving_file(const std::string& path, const std::string& text, bool json_out) {
  auto catalog = load_embedded_catalog();
  if (!catalog.ok()) return fail(catalog.error());
  auto serving = serving_assumptions(embedded_data_files());
  if (!serving.ok()) return fail(serving.error());
  auto report = validate_serving_csv(catalog.value(), serving.value(), text, path);
  if (!report.ok()) return fail(report.error());
  const ServingReport& rep = report.value();
  auto table = [](const std::vector<std::tuple<std::string, double, int>>& v) {
    json out = json::array();
    for (const auto& [k, m, n] : v) out.push_back({{"key", k}, {"mape", m}, {"rows", n}});
    return out;
  };
  if (json_out) {
    json out;
    out["kind"] = "serving";
    out["by_group"] = table(rep.by_group);
    out["by_metric"] = table(rep.by_metric);
    out["by_source"] = table(rep.by_source);
    out["rows"] = json::array();
    for (const auto& p : rep.rows) {
      out["rows"].push_back({{"id", p.row.id},
                             {"metric", p.row.metric},
                             {"group", p.group},
                             {"family", p.family},
                             {"source", p.source},
                             {"measured", p.row.value},
                             {"predicted", p.predicted},
                             {"error", p.error},
                             {"ground", ground_json(p.ground)},
                             {"band", band_row_json(p.band, p.measured_range, p.in_band)}});
    }
    out["coverage"] = band_coverage_json(rep.coverage);
    out["skipped"] = json::array();
    for (const auto& [id, why] : rep.skipped)
      out["skipped"].push_back({{"id", id}, {"reason", why}});
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("%-7s %-22s %-16s %-5s %-28s %12s %12s %8s\n", "id", "model", "gpu", "tp", "metric",
              "measured", "predicted", "error");
  for (const auto& p : rep.rows) {
    std::printf("%-7s %-22.22s %-16.16s %-5s %-28s %12.4g %12.4g %+7.1f%%\n", p.row.id.c_str(),
                p.row.model.c_str(), p.row.gpu.c_str(), p.row.tp.c_str(), p.row.metric.c_str(),
                p.row.value, p.predicted, 100 * p.error);
  }
  for (const auto& [id, why] : rep.skipped)
    std::printf("%-7s skipped: %s\n", id.c_str(), why.c_str());
  for (const auto& [name, v] :
       {std::pair<const char*, const std::vector<std::tuple<std::string, double, int>>*>{
            "group", &rep.by_group},
        {"metric", &rep.by_metric},
        {"source", &rep.by_source}}) {
    for (const auto& [k, m, n] : *v)
      std::printf("MAPE by %-6s %-28s %6.1f%% over %d rows\n", name, k.c_str(), 100 * m, n);
  }
  std::printf("%zu rows predicted, %zu skipped (gpuplan cannot express them; reasons above)\n",
              rep.rows.size(), rep.skipped.size());
  print_band_coverage(rep.coverage);
  return 0;
}

}  // namespace gpuplan::cli
