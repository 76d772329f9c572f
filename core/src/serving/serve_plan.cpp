// Ranking instances for a serving load: for each instance type (or GPU) and tensor-parallel
// degree, one replica's highest rate within the SLO, the fleet for the day's curve, and its
// cost; the cheapest autoscaled on-demand fleet first. Replicas are evaluated once per
// (GPU, TP) and shared by every instance with that GPU.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "gpuplan/serve_plan.h"
#include "gpuplan/serve_validation.h"

namespace gpuplan {
namespace {

// The time of one decode step for a single sequence at the mean context (TPOT under no load).
double lone_decode_step_s(const ReplicaModel& r, const ServeWorkload& w) {
  StepLoad load;
  load.decode_seqs = 1;
  load.decode_context = w.prompt_tokens + w.output_tokens / 2;
  load.one_rank = true;
  return step_time(r, load).total_s;
}

// A replica that the interconnect, not its GPUs' math, holds back says so: when the first prefill
// chunk of a mean prompt spends longer in tensor- or expert-parallel communication than in its
// matmuls (tensor parallelism over PCIe is the usual case), a note names the link and the shares.
void bottleneck_note(const ReplicaModel& r, const ServeWorkload& w, ServeOption& o) {
  if (r.attention_dp > 1) return;  // no tensor-parallel all-reduce to blame
  StepLoad load;
  load.prefill_tokens = std::min(
      w.prompt_tokens, static_cast<double>(std::max<int64_t>(1, r.max_num_batched_tokens)));
  load.prefill_pairs = load.prefill_tokens * (load.prefill_tokens + 1) / 2;
  load.prefill_last = 1;
  load.one_rank = true;
  const StepBreakdown b = step_time(r, load);
  if (b.total_s <= 0 || b.comm_s <= b.weights_s) return;
  const auto pct = [&](double x) { return std::to_string(std::lround(100 * x / b.total_s)); };
  o.notes.push_back("prefill is bound by the interconnect: the tp " + std::to_string(o.tp) +
                    " all-reduces over " + (r.pcie_allreduce ? "PCIe" : gpu_fabric_name(*r.gpu)) +
                    " take " + pct(b.comm_s) + " % of a " +
                    std::to_string(std::lround(load.prefill_tokens)) + "-token step, the matmuls " +
                    pct(b.weights_s) +
                    " %; GPUs joined by NVLink, a replica on fewer GPUs where the model fits "
                    "them, or pipeline stages, which hand over one hidden state per token "
                    "instead of all-reducing every layer, spend less of it");
}

// A replica whose full batch the host paces says so: a decode step of every sequence the KV
// cache holds, at the mean context, when the runtime's executor takes longer over its requests
// than the GPUs over the step (RuntimeProfile::host_per_sequence_s).
void host_note(const ReplicaModel& r, const ServeWorkload& w, ServeOption& o) {
  if (r.profile.host_per_sequence_s <= 0 || o.max_seqs <= 0) return;
  StepLoad load;
  load.decode_seqs = static_cast<double>(o.max_seqs);
  load.decode_context = load.decode_seqs * (w.prompt_tokens + w.output_tokens / 2);
  const StepBreakdown b = step_time(r, load);
  if (b.host_s <= 0 || b.host_s < b.total_s - b.draft_s) return;  // the GPUs take longer
  const double own_gpu_s = b.weights_s + b.elementwise_s + b.attention_s + b.comm_s;
  auto ms = [](double s) { return std::to_string(std::lround(1000 * s)); };
  o.notes.push_back("a full batch is paced by the host: at " + std::to_string(o.max_seqs) +
                    " sequences the " + runtime_name(r.config.runtime) + " executor spends " +
                    ms(b.host_s) + " ms a decode step on its requests (" +
                    std::to_string(std::lround(r.profile.host_per_sequence_s * 1e6)) +
                    " us each) against about " + ms(own_gpu_s) +
                    " ms of GPU work; more replicas raise the rate, a larger GPU does not");
}

// The option's error bands: the replica's rate from validated throughput runs like it, the
// latencies at that rate from validated latency-at-rate runs (each a user's new source: every
// validated row counts, gpuplan/accuracy.h).
void set_bands(const Catalog& catalog, const Gpu& gpu, const ReplicaModel& r, double percentile,
               BandMemo& memo, ServeOption& o) {
  o.ground = serving_run_ground(r.model, weight_format_name(r.config.weights), o.tp * o.pp, &gpu,
                                o.tp * o.pp, r.config.runtime);
  const bool dp = r.attention_dp > 1;
  const auto& rows = catalog.accuracy.serving;
  o.rate_band = memo.band(rows, serving_band_family(kServingThroughputGroup, dp), o.ground);
  if (o.rate_band.rows > 0) o.max_rate_range = measured_range(o.rate.max_rate_per_s, o.rate_band);
  o.latency_band = memo.band(rows, serving_band_family(kServingLatencyGroup, dp), o.ground);
  if (o.latency_band.rows > 0) {
    o.ttft_range_s =
        measured_range(at_percentile(o.rate.at_max.ttft_s, percentile), o.latency_band);
    o.tpot_range_s =
        measured_range(at_percentile(o.rate.at_max.tpot_s, percentile), o.latency_band);
  }
}

// The monthly bill (on demand, autoscaled) with the fleet sized again at the ends of the rate's
// band: the band's high rate gives the low bill.
void set_bill_range(const ServeQuery& q, const FleetPrices& prices, double output_tokens,
                    ServeOption& o) {
  if (o.rate_band.rows == 0 || o.max_rate_range.low <= 0 || o.costs.empty()) return;
  const double weight_bytes = o.memory.weight_bytes * o.tp * o.pp;
  auto bill = [&](double rate) -> std::optional<double> {
    auto fleet = plan_fleet(q.curve, rate, weight_bytes, q.policy);
    if (!fleet.ok()) return std::nullopt;
    return fleet_costs(fleet.value(), prices, output_tokens).front().usd_per_month_autoscaled;
  };
  const auto low = bill(o.max_rate_range.high), high = bill(o.max_rate_range.low);
  if (low && high)
    o.usd_per_month_autoscaled_range = {o.costs.front().usd_per_month_autoscaled, *low, *high};
}

ServeEvaluation evaluate(const Catalog& catalog, const Model& model, const Gpu& gpu,
                         const ReplicaLayout& layout, const ServeQuery& query,
                         const ServingAssumptions& a, BandMemo& bands) {
  ServeQuery q = query;
  q.workload = resolved_workload(query.workload, a);
  ServeEvaluation e;
  e.layout = layout;
  const int tp = layout.tp, pp = layout.pp;
  auto r = build_static_batch_replica(model, gpu, replica_config(catalog, q, tp, pp),
                                      q.workload.prompt_tokens, q.workload.output_tokens, a,
                                      catalog.efficiencies);
  if (!r.ok()) {
    e.error = r.error();
    return e;
  }
  span_machines(r.value(), layout.machines, layout.network_bytes_per_s, catalog.efficiencies);
  ServeOption o;
  o.gpu = gpu.id;
  o.tp = tp;
  o.pp = pp;
  o.machines = layout.machines;
  o.memory = r.value().memory;
  o.notes = r.value().notes;
  o.max_seqs =
      max_concurrent_sequences(r.value(), q.workload.prompt_tokens, q.workload.output_tokens);
  const double cached = cached_prompt_tokens(q.workload.prompt_tokens, q.workload.prefix_hit_rate);
  o.prefill_s = prefill_time_s(r.value(), q.workload.prompt_tokens, cached);
  o.prefill_computed_share = (q.workload.prompt_tokens - cached) / q.workload.prompt_tokens;
  o.decode_step_s = lone_decode_step_s(r.value(), q.workload);
  o.tokens_per_step = r.value().spec.expected_tokens;
  o.itl_s = o.decode_step_s / o.tokens_per_step;
  bottleneck_note(r.value(), q.workload, o);
  host_note(r.value(), q.workload, o);
  auto rate = max_rate_within_slo(r.value(), q.workload, q.slo);
  if (!rate.ok()) {
    e.error = rate.error();
    return e;
  }
  o.rate = rate.value();
  set_bands(catalog, gpu, r.value(), q.slo.percentile, bands, o);
  auto fleet =
      plan_fleet(q.curve, o.rate.max_rate_per_s, o.memory.weight_bytes * tp * pp, q.policy);
  if (!fleet.ok()) {
    e.error = fleet.error();
    e.option = o;  // fits, but misses the SLO: kept to say by how much
    return e;
  }
  o.fleet = fleet.value();
  e.option = o;
  return e;
}

// The replica layouts (tp, pp) to try on `gpu`. A tensor-parallel group lives inside one NVLink
// domain (one host, or hosts that NVLink joins, as in a GB200 NVL72 rack): its all-reduce runs
// every layer, and nobody deploys it across single-GPU machines over the network. Pipeline
// stages hand their hidden states over PCIe or NVLink, so the whole replica (tp x pp) stays
// inside one machine or NVLink domain (`joined`). --pp 0 (auto) is one stage, and on GPUs
// without NVLink also pipelines of single GPUs (1 x 2, 4, 8), as vLLM advises for them
// ("leverage pipeline parallelism instead of tensor parallelism", docs/serving/
// parallelism_scaling.md), and the mixes between (2 x 2, 2 x 4, 4 x 2).
// A pipeline may also span machines whose host is its NVLink domain (8-GPU servers), each stage
// inside one machine, the hand-overs between them over the hosts' network (vLLM's guide: tensor
// parallel inside a node, pipeline parallel across nodes); --pp 0 (auto) then also tries a whole
// machine per stage over 2 and 4 machines.
std::vector<ReplicaLayout> layouts(const ServeQuery& q, const Gpu& gpu, const Instance& in) {
  const int domain = in.domain_gpus(), joined = std::max(domain, in.gpu_count);
  const bool spans = in.network_bytes_per_s > 0 && domain == in.gpu_count && in.gpu_count > 1;
  std::vector<ReplicaLayout> out;
  auto add = [&](int tp, int pp) {
    if (tp > domain) return;
    if (q.config.tp == 0 && q.config.ep > 1 && tp % q.config.ep != 0) return;
    if (tp * pp <= joined) {
      out.push_back({gpu.id, tp, pp});
    } else if (spans && in.gpu_count % tp == 0) {
      const int machines = (tp * pp + in.gpu_count - 1) / in.gpu_count;
      out.push_back({gpu.id, tp, pp, machines, in.network_bytes_per_s});
    }
  };
  const int pp = q.config.pp > 0 ? q.config.pp : 1;
  if (q.config.tp > 0) {
    add(q.config.tp, pp);
    return out;
  }
  for (int tp : {1, 2, 4, 8}) add(tp, pp);  // the expert-parallel GPUs divide the replica's
  if (q.config.pp == 0 && gpu.nvlink_bandwidth_bytes_per_s <= 0) {
    for (int stages : {2, 4, 8}) add(1, stages);
    for (auto [tp, stages] : {std::pair{2, 2}, {2, 4}, {4, 2}}) add(tp, stages);
  }
  if (q.config.pp == 0 && spans) {
    for (int machines : {2, 4}) add(in.gpu_count, machines);
  }
  return out;
}

bool instance_matches(const Instance& in, const ServeQuery& q) {
  if (!q.instance.empty() && in.id != q.instance) return false;
  if (!q.gpu.empty() && in.gpu != q.gpu) return false;
  if (!q.provider.empty() && in.provider != q.provider) return false;
  return true;
}

// Says why nothing works: memory (the last fit error) or latency (best idle replica vs target).
Error explain_failure(const std::vector<ServeEvaluation>& all, const Slo& slo) {
  const ServeOption* fastest_ttft = nullptr;
  const ServeOption* fastest_tpot = nullptr;
  for (const auto& e : all) {
    if (!e.option) continue;
    const ServeOption& o = *e.option;
    if (o.rate.max_rate_per_s > 0 && !e.error.message.empty())
      return e.error;  // the fleet, not the SLO
    if (!fastest_ttft ||
        o.rate.at_zero_load.ttft_s.p50 < fastest_ttft->rate.at_zero_load.ttft_s.p50)
      fastest_ttft = &o;
    if (!fastest_tpot || o.itl_s < fastest_tpot->itl_s) fastest_tpot = &o;
  }
  if (!fastest_ttft) {
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
      if (!it->error.message.empty()) return it->error;
    }
    return make_error(Errc::not_found, Msg::serve_no_match, {});
  }
  // Whole milliseconds: the templates add " ms".
  auto ms = [](double s) { return std::to_string(static_cast<int>(std::lround(s * 1000))); };
  const double ttft = fastest_ttft->rate.at_zero_load.ttft_s.p50;
  if (slo.ttft_s > 0 && ttft > slo.ttft_s) {
    return make_error(
        Errc::does_not_fit, Msg::serve_slo_ttft,
        {ms(ttft), fastest_ttft->gpu, replica_layout(*fastest_ttft), ms(ttft - slo.ttft_s)});
  }
  const double tpot = fastest_tpot->itl_s;
  if (slo.tpot_s > 0 && tpot > slo.tpot_s) {
    return make_error(
        Errc::does_not_fit, Msg::serve_slo_tpot,
        {ms(tpot), fastest_tpot->gpu, replica_layout(*fastest_tpot), ms(tpot - slo.tpot_s)});
  }
  return make_error(Errc::does_not_fit, Msg::serve_slo_both, {});
}

// The instances the query can price, with their GPU.
std::vector<std::pair<const Instance*, const Gpu*>> priced_instances(const Catalog& catalog,
                                                                     const ServeQuery& q) {
  std::vector<std::pair<const Instance*, const Gpu*>> out;
  for (const Instance& in : catalog.instances) {
    if (!instance_matches(in, q)) continue;
    const Gpu* g = catalog.find_gpu(in.gpu);
    if (g && quote_price(in, Pricing::on_demand, catalog.pricing, q.region).ok())
      out.emplace_back(&in, g);
  }
  return out;
}

}  // namespace

const ErrorBand& BandMemo::band(const std::vector<AccuracyRow>& rows, const std::string& family,
                                const RunGround& ground) {
  const std::string key = family + '|' + ground.kind + '|' + ground.precision + '|' +
                          ground.parallel + '|' + ground.arch + '|' + std::to_string(ground.gpus) +
                          '|' + ground.runtime;
  if (rows_ != &rows) {
    bands_.clear();
    rows_ = &rows;
  }
  auto it = bands_.find(key);
  if (it == bands_.end()) it = bands_.emplace(key, error_band(rows, family, ground)).first;
  return it->second;
}

ServeSearch start_serve_search(const Catalog& catalog, const ServeQuery& q) {
  ServeSearch search;
  for (const auto& [in, g] : priced_instances(catalog, q)) {
    for (const auto& key : layouts(q, *g, *in)) {
      if (std::find(search.pending.begin(), search.pending.end(), key) == search.pending.end())
        search.pending.push_back(key);
    }
  }
  return search;
}

bool step_serve_search(const Catalog& catalog, const ServingAssumptions& serving,
                       const Model& model, const ServeQuery& q, ServeSearch& search) {
  if (search.finished()) return false;
  const ReplicaLayout& next = search.pending[search.next++];
  if (const Gpu* g = catalog.find_gpu(next.gpu))
    search.done.push_back(evaluate(catalog, model, *g, next, q, serving, search.bands));
  return true;
}

namespace {

// What --lengths sharegpt drew, for the plan's notes.
std::string lengths_note(const LengthSampler& s) {
  const LengthStats st = length_stats(s);
  const DatasetLengths& d = s.dataset;
  auto n = [](double x) { return std::to_string(std::lround(x)); };
  return "lengths: ShareGPT as vLLM's benchmark samples it: prompt mean " + n(st.prompt_mean) +
         " (median " + n(static_cast<double>(st.prompt_median)) + ") tokens, output mean " +
         n(st.output_mean) + " (median " + n(static_cast<double>(st.output_median)) +
         "); prompts of " + n(static_cast<double>(d.min_tokens)) + "-" +
         n(static_cast<double>(d.max_prompt_tokens)) + " tokens, prompt + output at most " +
         n(static_cast<double>(d.max_total_tokens));
}

// --tp larger than every priced instance's NVLink domain, or --tp x --pp more GPUs than any of
// them joins where none can spread the stages over networked machines (layouts).
std::optional<Error> tp_beyond_every_domain(
    const std::vector<std::pair<const Instance*, const Gpu*>>& priced, const ServeQuery& q) {
  if (priced.empty()) return std::nullopt;
  int largest = 0, joined = 0;
  for (const auto& [in, g] : priced) {
    largest = std::max(largest, in->domain_gpus());
    joined = std::max({joined, in->domain_gpus(), in->gpu_count});
  }
  if (q.config.tp > largest)
    return make_error(Errc::does_not_fit, Msg::serve_tp_domain,
                      {std::to_string(q.config.tp), std::to_string(largest)});
  const int tp = std::max(1, q.config.tp), pp = std::max(1, q.config.pp);
  bool spans = false;  // an instance whose machines can hold the stages, networked
  for (const auto& [in, g] : priced) {
    spans = spans || (!layouts(q, *g, *in).empty() && tp * pp > in->gpu_count);
  }
  if (pp > 1 && tp * pp > joined && !spans)
    return make_error(Errc::does_not_fit, Msg::serve_pp_domain,
                      {std::to_string(tp), std::to_string(pp), std::to_string(joined)});
  return std::nullopt;
}

// The cheapest autoscaled on-demand fleet first (options without a price last), the top k kept.
void rank_options(int top_k, std::vector<ServeOption>& options) {
  std::stable_sort(options.begin(), options.end(), [](const ServeOption& a, const ServeOption& b) {
    const double ca = a.costs.empty() ? 1e300 : a.costs.front().usd_per_day_autoscaled;
    const double cb = b.costs.empty() ? 1e300 : b.costs.front().usd_per_day_autoscaled;
    return ca < cb;
  });
  if (static_cast<int>(options.size()) > top_k)
    options.resize(static_cast<size_t>(std::max(1, top_k)));
}

// --disaggregate: the two pools on the best option's instance, or why they cannot be planned.
void add_disaggregated(const Catalog& catalog, const ServingAssumptions& serving,
                       const Model& model, const ServeQuery& q, ServePlan& plan) {
  auto d = plan_disaggregated(catalog, serving, model, q, plan.options.front());
  if (d.ok()) {
    plan.disaggregated = d.value();
  } else {
    plan.disaggregated_error = d.error();
  }
}

}  // namespace

ServeWorkload resolved_workload(const ServeWorkload& w, const ServingAssumptions& a) {
  ServeWorkload out = w;
  if (w.lengths == LengthDistribution::sharegpt) use_dataset_lengths(out, a.sharegpt);
  return out;
}

ServeConfig replica_config(const Catalog& catalog, const ServeQuery& q, int tp, int pp) {
  ServeConfig c = q.config;
  c.tp = tp;
  c.pp = pp;
  if (c.spec.method == SpecMethod::draft && !c.spec.draft && !c.spec.draft_model.empty())
    c.spec.draft = catalog.find_model(c.spec.draft_model);
  return c;
}

std::string replica_layout(const ServeOption& o) {
  return o.pp > 1 ? std::to_string(o.tp) + "x" + std::to_string(o.pp) : std::to_string(o.tp);
}

Result<ServePlan> finish_serve_search(const Catalog& catalog, const ServingAssumptions& serving,
                                      const Model& model, const ServeQuery& q,
                                      ServeSearch& search) {
  while (step_serve_search(catalog, serving, model, q, search)) {
  }
  std::vector<ServeEvaluation>& all = search.done;
  // Replicas are evaluated once per (GPU, TP, PP) and shared by every instance with that GPU.
  auto eval = [&](const ReplicaLayout& r, const Gpu& g) -> const ServeEvaluation& {
    for (const auto& e : all) {
      if (e.layout == r) return e;
    }
    all.push_back(evaluate(catalog, model, g, r, q, serving, search.bands));
    return all.back();
  };
  ServePlan plan;
  const ServeWorkload w = resolved_workload(q.workload, serving);
  if (w.lengths == LengthDistribution::sharegpt) plan.notes.push_back(lengths_note(w.sampler));
  plan.prefix_hit_rate = q.workload.prefix_hit_rate;
  plan.spec = q.config.spec;
  const auto priced = priced_instances(catalog, q);
  for (const auto& [instance, g] : priced) {
    const Instance& in = *instance;
    auto price = quote_price(in, Pricing::on_demand, catalog.pricing, q.region);
    std::optional<ServeOption> best;
    for (const auto& layout : layouts(q, *g, in)) {
      const ServeEvaluation& e = eval(layout, *g);
      ++plan.evaluated;
      if (!e.option || e.option->fleet.hours.empty()) continue;
      ServeOption o = *e.option;
      o.instance = in.id;
      o.provider = in.provider;
      o.gpus_per_instance = in.gpu_count;
      o.price = price.value();
      FleetPrices fp;
      fp.on_demand_usd_per_hour = price.value().usd_per_hour;
      if (auto r = quote_price(in, Pricing::reserved_1y, catalog.pricing, q.region); r.ok())
        fp.reserved_usd_per_hour = r.value().usd_per_hour;
      if (auto s = quote_price(in, Pricing::spot, catalog.pricing, q.region); s.ok())
        fp.spot_usd_per_hour = s.value().usd_per_hour;
      fp.gpus_per_replica = layout.tp * layout.pp;
      fp.gpus_per_instance = in.gpu_count;
      o.costs = fleet_costs(o.fleet, fp, w.output_tokens);
      set_bill_range(q, fp, w.output_tokens, o);
      if (!best ||
          o.costs.front().usd_per_day_autoscaled < best->costs.front().usd_per_day_autoscaled)
        best = o;
    }
    if (best) plan.options.push_back(*best);
  }
  if (plan.options.empty()) {
    if (auto err = tp_beyond_every_domain(priced, q)) return *err;
  }
  if (plan.options.empty() && !q.gpu.empty() && q.instance.empty() && priced.empty()) {
    // A GPU with no priced instance: the replica and fleet without cost (on an 8-GPU host).
    if (const Gpu* g = catalog.find_gpu(q.gpu)) {
      Instance host;  // an 8-GPU host of its own NVLink domain, network unknown
      host.gpu = g->id;
      host.gpu_count = 8;
      host.nvlink_domain_gpus = 8;
      for (const auto& layout : layouts(q, *g, host)) {
        const ServeEvaluation& e = eval(layout, *g);
        ++plan.evaluated;
        if (e.option && !e.option->fleet.hours.empty()) {
          plan.options.push_back(*e.option);
          break;
        }
      }
      if (!plan.options.empty())
        plan.notes.push_back("no priced instance has " + q.gpu + ": replicas without cost");
    }
  }
  if (plan.options.empty()) return explain_failure(all, q.slo);
  rank_options(q.top_k, plan.options);
  if (q.disagg.on) add_disaggregated(catalog, serving, model, q, plan);
  return plan;
}

Result<ServeTargets> find_serve_targets(const Catalog& catalog, const std::string& model,
                                        const std::string& gpu, const std::string& instance,
                                        const std::string& draft_model) {
  ServeTargets t;
  const auto match = resolve_model(catalog, model);
  if (!match) return unknown_model_error(catalog, model);
  t.model = named_checkpoint(*match);
  if (!draft_model.empty()) {
    t.draft = catalog.find_model(draft_model);
    if (!t.draft) {
      return about_key(make_error(Errc::not_found, Msg::serve_unknown_draft, {draft_model}),
                       "spec-draft-model");
    }
  }
  if (!gpu.empty()) {
    const Gpu* g = catalog.find_gpu(gpu);
    if (!g) return unknown_gpu_error(catalog, gpu);
    t.gpu = g->id;
  }
  if (!instance.empty() && !catalog.find_instance(instance))
    return unknown_instance_error(instance);
  return t;
}

Result<ServePlan> plan_serving(const Catalog& catalog, const ServingAssumptions& serving,
                               const Model& model, const ServeQuery& q) {
  ServeSearch search = start_serve_search(catalog, q);
  return finish_serve_search(catalog, serving, model, q, search);
}

}  // namespace gpuplan
