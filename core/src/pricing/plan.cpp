// The planner: layouts (every parallelism, micro-batch, ZeRO stage and checkpointing a cluster
// allows), a cache of what does not depend on the hardware (estimates by layout, work profiles by
// tensor parallelism, forward times by GPU), the best plan per (instance, node count), then the
// ranking and the Pareto front of time against cost.
#include "gpuplan/plan.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <tuple>

#include "gpuplan/report.h"

namespace gpuplan {
namespace {

bool compliant(const Provider* provider, const std::string& region, const std::string& need) {
  if (need.empty()) return true;
  if (!provider) return false;
  const Region* r = provider->find_region(region);
  return r && region_meets(*r, need);
}

// Powers of two up to n (1, 2, 4, ...).
std::vector<int> powers_of_two(int n) {
  std::vector<int> out;
  for (int x = 1; x <= n; x *= 2) out.push_back(x);
  return out;
}

// One way to lay the workload out on a cluster.
struct Layout {
  int dp, tp, pp, zero;
  int64_t micro;
  Checkpointing ckpt;
  int ep = 1;        // expert-parallel ranks (mixture-of-experts models)
  int vp = 1;        // virtual pipeline stages per rank (interleaved 1F1B)
  int cp = 1;        // context-parallel ranks (each keeps seq / cp tokens)
  int dp_shard = 0;  // the ZeRO shard group (hybrid sharding); 0: all dp ranks
};

// What the model allows: tensor parallelism must divide the heads, pipeline stages the layers.
struct ModelShape {
  bool transformer;
  int64_t heads, kv_heads, layers;
  int64_t experts;  // routed experts per MoE block; 0: a dense model
  bool sequence;    // a token sequence context parallelism can split (not a vision transformer)
  explicit ModelShape(const Model& m)
      : transformer(m.kind == ModelKind::transformer),
        heads(transformer ? m.transformer.heads : 1),
        kv_heads(transformer ? m.transformer.kv_heads_or_default() : 1),
        layers(transformer ? m.transformer.layers + m.transformer.decoder_layers : 1),
        experts(transformer && m.transformer.is_moe() ? m.transformer.experts : 0),
        sequence(transformer && !m.transformer.is_vision()) {}
};

// The degrees to try: the fixed one, or powers of two up to `most`.
std::vector<int> degrees(int fixed, int most) {
  if (fixed > 0) return fixed <= most ? std::vector<int>{fixed} : std::vector<int>{};
  return powers_of_two(most);
}

// Expert-parallel degrees for `dp` data-parallel ranks of `tp`: the fixed one, else powers of two
// that divide the experts and fit the ranks Megatron carves them from (ep x etp divides
// dp x cp x tp; moe_layout.cpp checks the rest); a dense model has none but 1.
std::vector<int> expert_degrees(const ModelShape& shape, const Setup& base, int dp, int tp, int cp,
                                const PlanQuery& q) {
  if (shape.experts == 0) return {1};
  const int64_t etp = base.etp > 0 ? base.etp : tp;
  const int64_t ranks = int64_t{dp} * cp * tp;
  std::vector<int> out;
  for (int ep : degrees(q.ep, static_cast<int>(std::min<int64_t>(shape.experts, ranks)))) {
    if (shape.experts % ep == 0 && ranks % (ep * etp) == 0) out.push_back(ep);
  }
  return out;
}

// Virtual pipeline stages: the fixed number, else 1, 2 and 4 where every virtual stage keeps a
// layer and the micro-batches run in groups of pp (estimate.cpp's check_schedule).
std::vector<int> virtual_stages(const ModelShape& shape, int pp, int64_t micro_steps,
                                const PlanQuery& q) {
  if (pp <= 1) return {1};
  std::vector<int> out;
  for (int vp : degrees(q.vp, std::max(q.vp, 4))) {  // a fixed --vp above 4 is kept
    if (vp == 1 || (shape.layers >= int64_t{pp} * vp && micro_steps % pp == 0)) out.push_back(vp);
  }
  return out;
}

// Hybrid sharding's searched shard groups: one host's GPUs, as PyTorch's HYBRID_SHARD (FSDP:
// "FULL_SHARD within a node, and replicate parameters across nodes"; torchtitan's dp_shard x
// dp_replicate mesh) and Megatron's distributed optimizer instances lay them out. 8 is an HGX or
// DGX host, 4 a GB200 / GB300 compute tray; Search::try_layout keeps each for the instances whose
// hosts hold that many GPUs.
constexpr int kHostShardGroups[] = {4, 8};

// The ZeRO shard groups a layout of dp data-parallel ranks tries: none without ZeRO (0); with
// it, all the ranks (0) and the host-sized hybrid groups that leave two replicas or more; a
// fixed --dp-shard N alone, where it divides dp (dp <= N: every rank is in one group). Hybrid
// groups only at the stages the query allows them (PlanQuery::hybrid_zero_stages).
std::vector<int> shard_groups(const Setup& base, const PlanQuery& q, int dp, int zero) {
  if (zero == 0) return {0};
  const bool hybrid = (q.hybrid_zero_stages >> zero) & 1u;
  const int fixed = base.dp_shard;
  if (fixed > 0) {
    if (dp <= fixed) return {0};
    return hybrid && dp % fixed == 0 ? std::vector<int>{fixed} : std::vector<int>{};
  }
  if (!hybrid) return {0};
  std::vector<int> out = {0};
  for (int s : kHostShardGroups) {
    if (s < dp && dp % s == 0) out.push_back(s);
  }
  return out;
}

// The ways to split `global_batch` over dp data-parallel ranks of a (tp, pp, cp) grid: micro-batch,
// ZeRO stage with its shard group, checkpointing, expert-parallel and virtual-stage degrees.
void add_splits(std::vector<Layout>& out, const ModelShape& shape, const Setup& base,
                const PlanQuery& q, int dp, int tp, int pp, int cp) {
  const int64_t global_batch = base.global_batch;
  if (global_batch % dp != 0) return;
  // The search tries none, selective and full. A recompute module list (--recompute-modules)
  // names the checkpointing: selective alone; a mode the search does not try (block,
  // every-k-layers, op-selective) is kept as given; activation offloading runs without any.
  const Checkpointing given = base.checkpointing;
  const bool searched = given == Checkpointing::none || given == Checkpointing::selective ||
                        given == Checkpointing::full;
  const std::vector<Checkpointing> ckpts =
      !shape.transformer || base.offload_activation_layers > 0
          ? std::vector<Checkpointing>{Checkpointing::none}
      : base.recompute_modules != kRecomputeCoreAttn
          ? std::vector<Checkpointing>{Checkpointing::selective}
      : !searched ? std::vector<Checkpointing>{given}
                  : std::vector<Checkpointing>{Checkpointing::none, Checkpointing::selective,
                                               Checkpointing::full};
  for (int64_t micro :
       powers_of_two(static_cast<int>(std::min<int64_t>(global_batch / dp, 1 << 20)))) {
    if (global_batch % (dp * micro) != 0) continue;
    for (int zero = 0; zero <= (dp > 1 ? 3 : 0); ++zero) {
      for (int shard : shard_groups(base, q, dp, zero)) {
        for (Checkpointing ckpt : ckpts) {
          for (int ep : expert_degrees(shape, base, dp, tp, cp, q)) {
            for (int vp : virtual_stages(shape, pp, global_batch / (dp * micro), q))
              out.push_back({dp, tp, pp, zero, micro, ckpt, ep, vp, cp, shard});
          }
        }
      }
    }
  }
}

// The shortest slice of the sequence the search gives one context-parallel rank. A search-space
// bound, not a measured threshold: below it a rank's attention and matmuls shrink while the K/V
// exchange stays, and activation checkpointing or pipelining usually fits such a sequence
// cheaper; a --cp the user fixes is tried whatever the sequence.
constexpr int64_t kMinTokensPerContextRank = 4096;

// Context-parallel degrees: the fixed one, else 1 and the powers of two whose ranks keep at
// least kMinTokensPerContextRank tokens of a sequence split into 2 cp load-balanced chunks
// (Megatron-Core's causal layout; estimate.cpp checks the rest).
std::vector<int> context_degrees(const ModelShape& shape, int64_t seq_len, int most,
                                 const PlanQuery& q) {
  if (q.cp > 0) return q.cp <= most ? std::vector<int>{q.cp} : std::vector<int>{};
  std::vector<int> out = {1};
  if (!shape.sequence) return out;
  for (int cp = 2; cp <= most; cp *= 2) {
    if (seq_len % (2 * cp) != 0 || seq_len / cp < kMinTokensPerContextRank) break;
    out.push_back(cp);
  }
  return out;
}

// Every layout of `global_batch` over n GPUs with more than `above_tp`- and at most `max_tp`-way
// tensor parallelism (max_tp: the GPUs one NVLink domain holds; only the degrees the query fixes,
// when it fixes them), in ascending tensor parallelism: the layouts up to a smaller max_tp are a
// prefix of the list.
std::vector<Layout> layouts(const ModelShape& shape, const Setup& base, int n, int above_tp,
                            int max_tp, const PlanQuery& q) {
  std::vector<Layout> out;
  for (int tp : degrees(q.tp, std::min(max_tp, shape.transformer ? 64 : 1))) {
    if (tp <= above_tp) continue;
    if (shape.heads % tp != 0 || shape.kv_heads % tp != 0) continue;
    for (int pp :
         degrees(q.pp, shape.transformer ? static_cast<int>(std::min<int64_t>(n / tp, shape.layers))
                                         : 1)) {
      if (n % (tp * pp) != 0) continue;
      for (int cp : context_degrees(shape, base.seq_len, n / (tp * pp), q)) {
        if (n % (tp * pp * cp) == 0)
          add_splits(out, shape, base, q, n / (tp * pp * cp), tp, pp, cp);
      }
    }
  }
  return out;
}

// --plan-gpu names a GPU as --gpu does, so a near miss ("h100") gets the estimate's suggestions,
// under its own key.
Error unknown_plan_gpu_error(const Catalog& catalog, const std::string& name) {
  const std::string like = id_list(catalog.similar_gpus(name));
  if (like.empty())
    return about_key(make_error(Errc::not_found, Msg::plan_unknown_gpu, {name}), "plan-gpu");
  return about_key(make_error(Errc::not_found, Msg::plan_unknown_gpu_like, {name, like}),
                   "plan-gpu");
}

std::optional<Error> check_plan_query(const Catalog& catalog, const PlanQuery& q) {
  if (q.run.empty()) {
    return make_error(Errc::invalid_argument, Msg::plan_no_run_length, {});
  }
  if (q.top_k < 1 || q.top_k > kMaxTopK) {
    return make_error(Errc::invalid_argument, Msg::query_out_of_range,
                      {"top", std::to_string(q.top_k), "1", std::to_string(kMaxTopK)});
  }
  if (q.max_nodes < 1 || q.max_nodes > kMaxPlanNodes) {
    return make_error(
        Errc::invalid_argument, Msg::query_out_of_range,
        {"max-nodes", std::to_string(q.max_nodes), "1", std::to_string(kMaxPlanNodes)});
  }
  if (q.deadline_hours < 0 || q.budget_usd < 0 || !std::isfinite(q.deadline_hours) ||
      !std::isfinite(q.budget_usd)) {
    return make_error(Errc::invalid_argument, Msg::plan_limits_negative, {});
  }
  const auto& kinds = compliance_kinds();
  if (!q.compliance.empty() &&
      std::none_of(kinds.begin(), kinds.end(),
                   [&](const ComplianceKind& c) { return q.compliance == c.id; })) {
    return make_error(Errc::invalid_argument, Msg::query_not_one_of,
                      {"compliance", q.compliance, "hipaa, gdpr, gov"});
  }
  if (q.request.setup.mode != Mode::train)
    return make_error(Errc::invalid_argument, Msg::plan_train_only, {});
  if (!q.gpu.empty() && !catalog.find_gpu(q.gpu)) return unknown_plan_gpu_error(catalog, q.gpu);
  // Fixed degrees: 0 is "any"; the workload check (estimate) bounds the rest.
  for (const auto& [key, degree] : {std::pair<const char*, int>{"tp", q.tp},
                                    {"pp", q.pp},
                                    {"ep", q.ep},
                                    {"vp", q.vp},
                                    {"cp", q.cp}}) {
    if (degree < 0) {
      return make_error(Errc::invalid_argument, Msg::query_out_of_range,
                        {key, std::to_string(degree), "1", "1000000"});
    }
  }
  return std::nullopt;
}

// The cheapest price of `inst` that passes the region and compliance filters.
std::optional<PriceQuote> cheapest_price(const Catalog& catalog, const Instance& inst,
                                         const PlanQuery& q) {
  const Provider* provider = catalog.find_provider(inst.provider);
  std::optional<PriceQuote> price;
  for (const Price& p : inst.prices) {
    if (!q.region.empty() && p.region != q.region) continue;
    if (!compliant(provider, p.region, q.compliance)) continue;
    auto quote = quote_price(inst, q.pricing, catalog.pricing, p.region);
    if (quote.ok() && (!price || quote.value().usd_per_hour < price->usd_per_hour))
      price = quote.value();
  }
  return price;
}

// The host counts to try for `inst`, up to `max_nodes`: powers of two, and whole NVLink domains
// (1, 2, 4, ... domains) where a domain spans several hosts; only whole domains where the provider
// sells nothing smaller. With the default limit (`whole_domain`), a rack sold only whole (18 hosts
// of an NVL72) is tried once even when it has more hosts than the limit.
std::vector<int> host_counts(const Instance& inst, int max_nodes, bool whole_domain) {
  std::vector<int> out;
  const int domain = inst.hosts_per_domain();
  if (inst.min_hosts == 1) out = powers_of_two(max_nodes);
  if (domain > 1) {
    const int domains = std::max(max_nodes / domain, whole_domain && inst.min_hosts > 1 ? 1 : 0);
    for (int k : powers_of_two(domains)) out.push_back(k * domain);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// One instance type at one node count, priced.
struct Offer {
  const Instance* instance;
  const Gpu* gpu;
  PriceQuote price;
  int nodes;
  Cluster cluster;
};

// The search state: the caches, the counters the error messages need, the best plan per offer.
class Search {
 public:
  Search(const Model& model, const PlanQuery& q, const Setup& base)
      : model_(model), q_(q), base_(base), shape_(model), estimator_(model, base), setup_(base) {}

  // A layout with its hardware-free estimate and the memory it needs per GPU (no estimate and
  // infinite memory when the layout is refused): what the search reads for each offer, in one
  // compact list.
  struct Entry {
    Layout layout;
    const Estimate* estimate;
    double need_bytes;
  };
  struct Entries {  // a slice of a list, valid until the list grows
    const Entry* first;
    const Entry* last;
    const Entry* begin() const { return first; }
    const Entry* end() const { return last; }
  };
  // The layouts of `gpus` GPUs with at most `max_tp`-way tensor parallelism, estimated once:
  // every instance and node count with that many GPUs shares them. Valid until the next call.
  Entries entries(int gpus, int max_tp);

  // Times and costs a layout on `offer`; keeps it when it is the best for that offer so far.
  std::optional<Error> try_layout(const Offer& offer, const Entry& entry);

  PlanResult result;
  std::map<std::pair<const Instance*, int>, Plan> best;
  double best_fit_gap = 1e300;  // smallest (needed - capacity) over non-fitting, for the message
  std::string closest_gpu;
  double fastest_hours = 1e300, cheapest_usd = 1e300;

  bool better(double usd_a, double h_a, double usd_b, double h_b) const {
    if (q_.objective == Objective::time) return h_a != h_b ? h_a < h_b : usd_a < usd_b;
    return usd_a != usd_b ? usd_a < usd_b : h_a < h_b;
  }

 private:
  const Setup& setup_for(const Layout& layout);
  Entry add_estimate(const Layout& layout);
  // The layouts of one GPU count, estimated up to the largest max_tp asked for so far. A layout
  // fixes its GPU count (dp x tp x pp x cp), so no other list holds it, and a smaller max_tp
  // takes a prefix of this list: each layout is estimated once, with no lookup by layout.
  struct GpuCountLayouts {
    int max_tp = 0;
    std::vector<Entry> entries;  // ascending tensor parallelism (layouts())
  };
  const Result<WorkProfile>& work_of(const Setup& s, const Estimate& e, const Layout& layout);
  const Result<PassTime>& forward_of(const Setup& s, const WorkProfile& w, const Gpu* gpu,
                                     const Layout& layout);
  // Whether a plan of this cost beats the best kept for its (instance, nodes), which keep()
  // replaces.
  bool keeps(const Offer& offer, const RunCost& cost) const;
  void keep(const Offer& offer, const Setup& s, const Estimate& e, const StepTime& t,
            const RunCost& cost);

  const Model& model_;
  const PlanQuery& q_;
  const Setup& base_;
  const ModelShape shape_;
  // Every layout shares the base setup's mode and multi-token prediction layers: the model's own
  // validation and parameter tensors are worked out once.
  const Estimator estimator_;
  // The base setup with the last layout's degrees (setup_for): no Setup is copied per layout.
  Setup setup_;
  std::deque<Estimate> estimates_;  // hardware-free; a deque, so Entry's pointers stay valid
  std::map<int, GpuCountLayouts> layouts_;                          // by GPU count
  std::map<std::tuple<int, int, int>, Result<WorkProfile>> works_;  // by (tp, ep, cp)
  // By (gpu, tp, ep, cp, micro).
  std::map<std::tuple<const Gpu*, int, int, int, int64_t>, Result<PassTime>> forwards_;
};

const Setup& Search::setup_for(const Layout& layout) {
  Setup& s = setup_;
  s.dp = layout.dp;
  s.tp = layout.tp;
  s.pp = layout.pp;
  s.zero_stage = layout.zero;
  s.micro_batch = layout.micro;
  s.checkpointing = layout.ckpt;
  s.ep = layout.ep;
  s.vp = layout.vp;
  s.cp = layout.cp;
  s.dp_shard = layout.dp_shard;
  // Tensor with expert parallelism trains only with sequence parallelism (Megatron-Core,
  // model_parallel_config.py: 'sequence parallelism must be used'; the estimate refuses the pair
  // without it): the search turns it on for those layouts, which it otherwise never tried.
  s.sequence_parallel =
      base_.sequence_parallel || (layout.ep > 1 && layout.tp > 1 && base_.mode == Mode::train);
  return s;
}

Search::Entry Search::add_estimate(const Layout& layout) {
  auto e = estimator_(setup_for(layout));
  // The search reads no refusal's message: only that the layout has no estimate.
  if (!e.ok()) return {layout, nullptr, std::numeric_limits<double>::infinity()};
  const Estimate& kept = estimates_.emplace_back(std::move(e).value());
  return {layout, &kept, kept.memory.total()};
}

const Result<WorkProfile>& Search::work_of(const Setup& s, const Estimate& e,
                                           const Layout& layout) {
  const auto key = std::make_tuple(layout.tp, layout.ep, layout.cp);
  auto w = works_.find(key);
  if (w == works_.end()) w = works_.emplace(key, build_work_profile(model_, s, e)).first;
  return w->second;
}

const Result<PassTime>& Search::forward_of(const Setup& s, const WorkProfile& w, const Gpu* gpu,
                                           const Layout& layout) {
  const auto key = std::make_tuple(gpu, layout.tp, layout.ep, layout.cp, layout.micro);
  auto f = forwards_.find(key);
  if (f == forwards_.end()) {
    f = forwards_
            .emplace(key, pass_time_s(model_, s, w, *gpu, q_.efficiencies,
                                      static_cast<double>(layout.micro)))
            .first;
  }
  return f->second;
}

bool Search::keeps(const Offer& offer, const RunCost& cost) const {
  auto slot = best.find(std::make_pair(offer.instance, offer.nodes));
  return slot == best.end() ||
         better(cost.usd_total, cost.expected_hours, slot->second.cost.usd_total,
                slot->second.cost.expected_hours);
}

void Search::keep(const Offer& offer, const Setup& s, const Estimate& e, const StepTime& t,
                  const RunCost& cost) {
  const auto slot_key = std::make_pair(offer.instance, offer.nodes);
  Plan p;
  p.instance = offer.instance->id;
  p.provider = offer.instance->provider;
  p.gpu = offer.gpu->id;
  p.nodes = offer.nodes;
  p.gpus = offer.instance->gpu_count * offer.nodes;
  p.setup = s;
  p.memory = e.memory;
  p.gpu_memory_bytes = offer.gpu->memory_bytes;
  p.time = t;
  p.price = offer.price;
  p.cost = cost;
  best[slot_key] = std::move(p);
}

Search::Entries Search::entries(int gpus, int max_tp) {
  GpuCountLayouts& list = layouts_[gpus];
  if (max_tp > list.max_tp) {
    for (const Layout& layout : layouts(shape_, base_, gpus, list.max_tp, max_tp, q_))
      list.entries.push_back(add_estimate(layout));
    list.max_tp = max_tp;
  }
  const auto end = std::partition_point(list.entries.begin(), list.entries.end(),
                                        [&](const Entry& e) { return e.layout.tp <= max_tp; });
  return {list.entries.data(), list.entries.data() + (end - list.entries.begin())};
}

std::optional<Error> Search::try_layout(const Offer& offer, const Entry& entry) {
  // A searched hybrid shard group is one host's GPUs (kHostShardGroups); a fixed one is kept.
  const int shard = entry.layout.dp_shard;
  if (shard > 0 && base_.dp_shard == 0 && shard != offer.instance->gpu_count) return std::nullopt;
  ++result.candidates;
  if (!entry.estimate) return std::nullopt;
  const Layout& layout = entry.layout;
  const Estimate& e = *entry.estimate;
  const double need = entry.need_bytes;
  if (need > offer.gpu->memory_bytes) {
    if (need - offer.gpu->memory_bytes < best_fit_gap) {
      best_fit_gap = need - offer.gpu->memory_bytes;
      closest_gpu = offer.gpu->id;
    }
    return std::nullopt;
  }
  ++result.fitting;
  const Setup& s = setup_for(layout);
  const Result<WorkProfile>& w = work_of(s, e, layout);
  if (!w.ok()) return std::nullopt;
  const Result<PassTime>& f = forward_of(s, w.value(), offer.gpu, layout);
  if (!f.ok()) return std::nullopt;
  auto t = estimate_step_time_with(model_, s, e, w.value(), offer.cluster, q_.efficiencies,
                                   q_.input, f.value(), false);
  if (!t.ok()) return std::nullopt;
  auto cost =
      run_cost(e, t.value(), q_.run, offer.price.usd_per_hour * offer.nodes, q_.pricing, q_.spot);
  if (!cost.ok()) return cost.error();
  fastest_hours = std::min(fastest_hours, cost.value().expected_hours);
  cheapest_usd = std::min(cheapest_usd, cost.value().usd_total);
  if (q_.deadline_hours > 0 && cost.value().expected_hours > q_.deadline_hours) return std::nullopt;
  if (q_.budget_usd > 0 && cost.value().usd_total > q_.budget_usd) return std::nullopt;
  ++result.within_limits;
  if (keeps(offer, cost.value())) {
    // The plan's notes, left out while timing every candidate.
    auto noted = estimate_step_time_with(model_, s, e, w.value(), offer.cluster, q_.efficiencies,
                                         q_.input, f.value());
    keep(offer, s, e, noted.ok() ? noted.value() : t.value(), cost.value());
  }
  return std::nullopt;
}

// Which limit binds when nothing qualifies.
Error nothing_qualifies(const Search& s, int64_t matched_filters, const PlanQuery& q) {
  if (matched_filters == 0) {
    return make_error(Errc::does_not_fit, Msg::plan_no_instance, {});
  }
  if (s.result.candidates == 0 && (q.tp > 0 || q.pp > 0)) {
    return make_error(Errc::does_not_fit, Msg::plan_layout_unavailable,
                      {std::to_string(std::max(q.tp, 1)), std::to_string(std::max(q.pp, 1))});
  }
  if (s.result.fitting == 0) {
    return make_error(Errc::does_not_fit, Msg::plan_memory_binds,
                      {s.closest_gpu, format_bytes(s.best_fit_gap)});
  }
  // Every digit before the point kept (cutting the text at a width once turned 11,124,842,470
  // USD into 1112484247).
  auto fixed = [](double v, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, v);
    return std::string(text);
  };
  if (q.deadline_hours > 0 && s.fastest_hours > q.deadline_hours) {
    return make_error(Errc::does_not_fit, Msg::plan_deadline_binds,
                      {fixed(s.fastest_hours, s.fastest_hours < 10 ? 2 : 1)});
  }
  return make_error(Errc::does_not_fit, Msg::plan_budget_binds, {fixed(s.cheapest_usd, 2)});
}

// Ranks the best plans by the objective, marks the Pareto front of time against cost (sorted by
// time, each plan cheaper than all faster ones), keeps the top k.
void rank(Search& s, const PlanQuery& q) {
  std::vector<Plan> ranked;
  for (auto& [key, p] : s.best) ranked.push_back(p);
  std::sort(ranked.begin(), ranked.end(), [&](const Plan& a, const Plan& b) {
    return s.better(a.cost.usd_total, a.cost.expected_hours, b.cost.usd_total,
                    b.cost.expected_hours);
  });
  std::vector<Plan> by_time = ranked;
  std::sort(by_time.begin(), by_time.end(), [](const Plan& a, const Plan& b) {
    return a.cost.expected_hours != b.cost.expected_hours
               ? a.cost.expected_hours < b.cost.expected_hours
               : a.cost.usd_total < b.cost.usd_total;
  });
  double cheapest_so_far = 1e300;
  for (const auto& p : by_time) {
    if (p.cost.usd_total < cheapest_so_far) {
      cheapest_so_far = p.cost.usd_total;
      s.result.pareto.push_back(p);
      s.result.pareto.back().pareto = true;
    }
  }
  for (auto& p : ranked) {
    for (const auto& f : s.result.pareto) {
      if (f.instance == p.instance && f.nodes == p.nodes) p.pareto = true;
    }
  }
  if (ranked.size() > static_cast<size_t>(q.top_k)) ranked.resize(static_cast<size_t>(q.top_k));
  s.result.plans = std::move(ranked);
}

// The instance types that pass the filters, with their cheapest price, in catalog order.
std::vector<size_t> matching_instances(const Catalog& catalog, const PlanQuery& q,
                                       Precision precision) {
  std::vector<size_t> out;
  for (size_t i = 0; i < catalog.instances.size(); ++i) {
    const Instance& inst = catalog.instances[i];
    if (!q.provider.empty() && inst.provider != q.provider) continue;
    if (!q.gpu.empty() && inst.gpu != q.gpu) continue;
    const Gpu* gpu = catalog.find_gpu(inst.gpu);
    if (!gpu || gpu->memory_bytes < q.min_gpu_memory_bytes) continue;
    if (!dense_peak_flop_per_s(*gpu, precision).ok()) continue;
    if (!cheapest_price(catalog, inst, q)) continue;
    out.push_back(i);
  }
  return out;
}

}  // namespace

// The search's own copies of the model and the query, and what it has found so far.
struct PlanSearchState {
  PlanSearchState(const Model& m, const PlanQuery& q, const Setup& b)
      : model(m), query(q), base(b), search(model, query, base) {}
  const Model model;
  const PlanQuery query;
  const Setup base;
  Search search;
  std::optional<Error> error;  // a slice that failed (a price that cannot be costed)
};

bool PlanSearch::finished() const {
  return next >= pending.size() || (state && state->error);
}

Result<PlanSearch> start_plan_search(const Catalog& catalog, const Model& model,
                                     const PlanQuery& q) {
  if (auto err = check_plan_query(catalog, q)) return *err;
  Setup base = q.request.setup;
  // The batch is the query's (resolve_defaults gives one): the planner varies its split only.
  if (base.global_batch <= 0) {
    return about_key(
        make_error(Errc::invalid_argument, "--batch: the planner needs a global batch"), "batch");
  }
  if (q.tp > 0) base.tp = q.tp;
  if (q.pp > 0) base.pp = q.pp;
  if (q.ep > 0) base.ep = q.ep;
  if (q.vp > 0) base.vp = q.vp;
  if (q.cp > 0) base.cp = q.cp;
  // Checks the workload once, so a bad request reports its own error, not "nothing fits" (with
  // no shard group: each layout sets its ZeRO stage and its group).
  Setup unsharded = base;
  unsharded.dp_shard = 0;
  auto probe = estimate(model, unsharded);
  if (!probe.ok()) return probe.error();
  if (base.seq_len == 0) base.seq_len = probe.value().seq_len;  // the model's, for the cp search
  PlanSearch out;
  out.pending = matching_instances(catalog, q, base.precision);
  out.state = std::make_shared<PlanSearchState>(model, q, base);
  return out;
}

bool step_plan_search(const Catalog& catalog, PlanSearch& ps) {
  if (ps.finished()) return false;
  PlanSearchState& st = *ps.state;
  const PlanQuery& q = st.query;
  const Instance& inst = catalog.instances[ps.pending[ps.next++]];
  const Gpu* gpu = catalog.find_gpu(inst.gpu);
  const PriceQuote price = *cheapest_price(catalog, inst, q);
  for (int nodes : host_counts(inst, q.max_nodes, q.max_nodes_auto)) {
    auto cluster = instance_cluster(inst, *gpu, nodes);
    if (!cluster.ok()) break;  // more domains than the network data allows
    const Offer offer{&inst, gpu, price, nodes, cluster.value()};
    const int gpus = inst.gpu_count * nodes;
    const int max_tp = std::min(cluster.value().domain_gpus(), gpus);
    for (const Search::Entry& entry : st.search.entries(gpus, max_tp)) {
      if (auto err = st.search.try_layout(offer, entry)) {
        st.error = *err;
        break;
      }
    }
    if (st.error) break;
  }
  ps.candidates = st.search.result.candidates;
  return true;
}

Result<PlanResult> finish_plan_search(const Catalog& catalog, PlanSearch& ps) {
  while (step_plan_search(catalog, ps)) {
  }
  PlanSearchState& st = *ps.state;
  if (st.error) return *st.error;
  const PlanQuery& q = st.query;
  if (st.search.best.empty())
    return nothing_qualifies(st.search, static_cast<int64_t>(ps.pending.size()), q);
  rank(st.search, q);
  if (q.pricing == Pricing::spot && q.spot.interruptions_per_hour <= 0) {
    st.search.result.notes.push_back(
        "spot times assume no interruptions; set --spot-interruptions-per-hour");
  }
  return std::move(st.search.result);
}

Result<PlanResult> plan(const Catalog& catalog, const Model& model, const PlanQuery& q) {
  auto search = start_plan_search(catalog, model, q);
  if (!search.ok()) return search.error();
  return finish_plan_search(catalog, search.value());
}

}  // namespace gpuplan
