#include "gpuplan/query.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <type_traits>

namespace gpuplan {
namespace {

// The names of a key table's entries, in its order.
template <typename Spec>
std::vector<std::string> keys_of(const std::vector<Spec>& specs) {
  std::vector<std::string> keys;
  keys.reserve(specs.size());
  for (const auto& s : specs) keys.emplace_back(s.key);
  return keys;
}

// Applies one key's value to a query; returns the error, if any.
using Apply =
    std::function<std::optional<Error>(Query&, const std::string& key, const std::string& value)>;

struct KeySpec {
  const char* key;
  Apply apply;
};

std::string format_number(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.10g", x);
  return b;
}

// "--key: 'value' is not ..." (which `id` says); `list` for the ones that name choices.
Error not_a(Msg id, const std::string& key, const std::string& value,
            const std::string& list = "") {
  return make_error(Errc::invalid_argument, id, {key, value, list});
}

Error out_of_range(const std::string& key, const std::string& value, const std::string& min,
                   const std::string& max) {
  return make_error(Errc::invalid_argument, Msg::query_out_of_range, {key, value, min, max});
}

Result<int64_t> bounded_int(const std::string& key, const std::string& value, int64_t min,
                            int64_t max) {
  auto n = parse_int(value, key);
  if (!n.ok()) return n.error();
  if (n.value() < min || n.value() > max)
    return out_of_range(key, value, std::to_string(min), std::to_string(max));
  return n.value();
}

template <class Get>
auto integer(int64_t min, int64_t max, Get get) {
  return [=](auto& q, const std::string& k, const std::string& v) -> std::optional<Error> {
    auto n = bounded_int(k, v, min, max);
    if (!n.ok()) return n.error();
    auto& field = get(q);
    field = static_cast<std::remove_reference_t<decltype(field)>>(n.value());
    return std::nullopt;
  };
}

template <class Get>
auto number(double min, double max, Get get) {
  return [=](auto& q, const std::string& k, const std::string& v) -> std::optional<Error> {
    auto x = parse_bounded_number(k, v, min, max);
    if (!x.ok()) return x.error();
    get(q) = x.value();
    return std::nullopt;
  };
}

template <class Get>
auto text(Get get) {
  return [=](auto& q, const std::string&, const std::string& v) -> std::optional<Error> {
    get(q) = v;
    return std::nullopt;
  };
}

// A catalog id filter, where "auto" (or "any") means every one: stored as "".
template <class Get>
auto id_or_auto(Get get) {
  return [=](auto& q, const std::string&, const std::string& v) -> std::optional<Error> {
    get(q) = v == "auto" || v == "any" ? "" : v;
    return std::nullopt;
  };
}

template <class Get>
auto boolean(Get get) {
  return [=](auto& q, const std::string& k, const std::string& v) -> std::optional<Error> {
    if (v == "1" || v == "true")
      get(q) = true;
    else if (v == "0" || v == "false")
      get(q) = false;
    else
      return not_a(Msg::query_not_bool, k, v);
    return std::nullopt;
  };
}

// One of `names` (joined in the message); `set` receives the index.
Apply choice(std::vector<std::string> names, void (*set)(Query&, size_t)) {
  return [=](auto& q, const std::string& k, const std::string& v) -> std::optional<Error> {
    const auto it = std::find(names.begin(), names.end(), v);
    if (it != names.end()) {
      set(q, static_cast<size_t>(it - names.begin()));
      return std::nullopt;
    }
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    return not_a(Msg::query_not_one_of, k, v, list);
  };
}

template <class E, class Get>
auto enumeration(std::optional<E> (*parse)(const std::string&), const char* choices, Get get) {
  return [=](auto& q, const std::string& k, const std::string& v) -> std::optional<Error> {
    const std::optional<E> e = parse(v);
    if (!e) return not_a(Msg::query_not_one_of, k, v, choices);
    get(q) = *e;
    return std::nullopt;
  };
}

// A switch that may also be given bare ("--sp" or "sp=").
template <class Get>
auto flag(Get get) {
  return [=](auto& q, const std::string& k, const std::string& v) -> std::optional<Error> {
    if (v.empty()) {
      get(q) = true;
      return std::nullopt;
    }
    return boolean(get)(q, k, v);
  };
}

std::optional<Error> read_model(Query& q, const std::string& k, const std::string& v) {
  if (v.empty()) return make_error(Errc::invalid_argument, Msg::query_empty_model, {k});
  q.request.model = v;
  return std::nullopt;
}

std::optional<Error> read_lora_targets(Query& q, const std::string& k, const std::string& v) {
  std::vector<std::string>& targets = q.request.setup.lora_targets;
  targets.clear();
  for (size_t start = 0; start <= v.size();) {
    const size_t comma = std::min(v.find(',', start), v.size());
    if (comma > start) targets.push_back(v.substr(start, comma - start));
    start = comma + 1;
  }
  if (targets.empty()) return not_a(Msg::query_not_module_list, k, v);
  return std::nullopt;
}

// The workload and its setup (request_keys(), in display order).
std::vector<KeySpec> setup_keys() {
  auto s = [](Query& q) -> Setup& { return q.request.setup; };
  return {
      {"model", read_model},
      {"mode",
       enumeration(parse_mode, "train, infer", [s](Query& q) -> Mode& { return s(q).mode; })},
      {"batch", integer(1, 100'000'000, [s](Query& q) -> int64_t& { return s(q).global_batch; })},
      {"micro-batch",
       integer(1, 100'000'000, [s](Query& q) -> int64_t& { return s(q).micro_batch; })},
      {"seq", integer(1, 100'000'000, [s](Query& q) -> int64_t& { return s(q).seq_len; })},
      {"resolution", integer(1, 100'000, [s](Query& q) -> int64_t& { return s(q).resolution; })},
      {"precision",
       enumeration(parse_precision,
                   "fp32, tf32, fp16, bf16, amp-fp16, amp-bf16, mixed-fp16, mixed-bf16, fp8",
                   [s](Query& q) -> Precision& { return s(q).precision; })},
      {"optimizer",
       enumeration(parse_optimizer, "sgd, sgd-momentum, adam, adamw, adam-8bit, adafactor, lamb",
                   [s](Query& q) -> Optimizer& { return s(q).optimizer; })},
      {"optimizer-loop",
       enumeration(parse_optimizer_loop, "foreach, for-loop",
                   [s](Query& q) -> OptimizerLoop& { return s(q).optimizer_loop; })},
      {"clip-grad-norm", flag([s](Query& q) -> bool& { return s(q).clip_grad_norm; })},
      {"checkpointing",
       enumeration(parse_checkpointing, "none, selective, full, op-selective, every-k-layers",
                   [s](Query& q) -> Checkpointing& { return s(q).checkpointing; })},
      {"checkpoint-every",
       integer(1, 1'000'000, [s](Query& q) -> int& { return s(q).checkpoint_every; })},
      {"attention", enumeration(parse_attention, "auto, eager, flash",
                                [s](Query& q) -> Attention& { return s(q).attention; })},
      {"memory-format", enumeration(parse_memory_format, "auto, nchw, channels-last",
                                    [s](Query& q) -> MemoryFormat& { return s(q).memory_format; })},
      {"grad-reduce", enumeration(parse_grad_reduce, "auto, fp32, bf16",
                                  [s](Query& q) -> GradReduce& { return s(q).grad_reduce; })},
      {"dropout", number(0, 0.999, [s](Query& q) -> double& { return s(q).dropout; })},
      {"compile", flag([s](Query& q) -> bool& { return s(q).compile; })},
      {"fused-loss", flag([s](Query& q) -> bool& { return s(q).fused_loss; })},
      {"pytorch", enumeration(parse_torch_release, "1.10, 1.11+ (or a release number, e.g. 2.4)",
                              [s](Query& q) -> TorchRelease& { return s(q).torch_release; })},
      {"dp",
       [s](Query& q, const std::string& k, const std::string& v) -> std::optional<Error> {
         q.dp_given = true;  // otherwise data parallelism fills the GPUs
         return integer(1, 1'000'000, [s](Query& x) -> int& { return s(x).dp; })(q, k, v);
       }},
      {"zero", integer(0, 3, [s](Query& q) -> int& { return s(q).zero_stage; })},
      {"tp", integer(1, 1'000'000, [s](Query& q) -> int& { return s(q).tp; })},
      {"sp", flag([s](Query& q) -> bool& { return s(q).sequence_parallel; })},
      {"pp", integer(1, 1'000'000, [s](Query& q) -> int& { return s(q).pp; })},
      {"ep", integer(1, 1'000'000, [s](Query& q) -> int& { return s(q).ep; })},
      {"etp", integer(1, 1'000'000, [s](Query& q) -> int& { return s(q).etp; })},
      {"capacity-factor",
       number(0, 1e6, [s](Query& q) -> double& { return s(q).capacity_factor; })},
      {"moe-imbalance", number(1, 1e6, [s](Query& q) -> double& { return s(q).moe_imbalance; })},
      {"moe-dispatcher",
       enumeration(parse_moe_dispatcher, "alltoall, deepep",
                   [s](Query& q) -> MoeDispatcher& { return s(q).moe_dispatcher; })},
      {"moe-a2a-overlap", flag([s](Query& q) -> bool& { return s(q).moe_a2a_overlap; })},
      {"moe-pad-to-capacity", flag([s](Query& q) -> bool& { return s(q).moe_pad_to_capacity; })},
      {"lora-rank", integer(0, 65536, [s](Query& q) -> int64_t& { return s(q).lora_rank; })},
      {"qlora", flag([s](Query& q) -> bool& { return s(q).qlora; })},
      {"lora-targets", read_lora_targets},
      {"generate",
       integer(0, 100'000'000, [s](Query& q) -> int64_t& { return s(q).generate_tokens; })},
  };
}

std::vector<KeySpec> hardware_and_run_keys() {
  return {
      {"gpu", text([](Query& q) -> std::string& { return q.gpu; })},
      {"gpus", integer(1, 4096, [](Query& q) -> int& { return q.gpus; })},
      {"instance", text([](Query& q) -> std::string& { return q.instance; })},
      {"nodes", integer(1, 4096, [](Query& q) -> int& { return q.nodes; })},
      {"tokens", number(1, 1e16, [](Query& q) -> double& { return q.run.tokens; })},
      {"epochs", number(1e-3, 1e6, [](Query& q) -> double& { return q.run.epochs; })},
      {"dataset-size", number(1, 1e13, [](Query& q) -> double& { return q.run.dataset_size; })},
      {"pricing", choice({"on-demand", "monthly", "reserved-1y", "reserved-3y", "bulk", "spot"},
                         [](Query& q, size_t i) { q.pricing = static_cast<Pricing>(i); })},
      {"region", text([](Query& q) -> std::string& { return q.region; })},
      {"spot-interruptions-per-hour",
       number(0, 10, [](Query& q) -> double& { return q.spot.interruptions_per_hour; })},
      {"checkpoint-interval-hours",
       number(1e-3, 1e4, [](Query& q) -> double& { return q.spot.checkpoint_interval_h; })},
      {"restart-hours", number(0, 1e3, [](Query& q) -> double& { return q.spot.restart_h; })},
      {"spot-interruption-bucket", text([](Query& q) -> std::string& { return q.spot_bucket; })},
      {"reservation-utilisation",
       number(1e-3, 1, [](Query& q) -> double& { return q.commitment.utilisation; })},
      {"currency",
       choice({"usd", "cny"}, [](Query& q, size_t i) { q.currency = i == 0 ? "USD" : "CNY"; })},
  };
}

// --compliance: one of compliance_kinds(), or empty (any).
Apply compliance_choice() {
  return [](Query& q, const std::string& k, const std::string& v) -> std::optional<Error> {
    std::string list;
    for (const ComplianceKind& c : compliance_kinds()) {
      if (v == c.id) {
        q.compliance = v;
        return std::nullopt;
      }
      list += (list.empty() ? "" : ", ") + std::string(c.id);
    }
    if (v.empty()) {
      q.compliance.clear();
      return std::nullopt;
    }
    return not_a(Msg::query_not_one_of_or_empty, k, v, list);
  };
}

std::vector<KeySpec> planner_keys() {
  return {
      {"provider", text([](Query& q) -> std::string& { return q.provider; })},
      {"compliance", compliance_choice()},
      {"objective", choice({"cost", "time"},
                           [](Query& q, size_t i) { q.objective = static_cast<Objective>(i); })},
      {"deadline-hours", number(0, 1e7, [](Query& q) -> double& { return q.deadline_hours; })},
      {"budget-usd", number(0, 1e12, [](Query& q) -> double& { return q.budget_usd; })},
      {"min-gpu-memory-gb",
       [](Query& q, const std::string& k, const std::string& v) -> std::optional<Error> {
         auto gb = parse_bounded_number(k, v, 0, 1e4);
         if (!gb.ok()) return gb.error();
         q.min_gpu_memory_bytes = gb.value() * 1e9;  // decimal GB, as GPU makers count
         return std::nullopt;
       }},
      {"max-nodes", integer(1, kMaxPlanNodes, [](Query& q) -> int& { return q.max_nodes; })},
      {"top", integer(1, kMaxTopK, [](Query& q) -> int& { return q.top_k; })},
  };
}

// The page's custom model: a transformer ("c-" keys) or a CNN from a family builder.
std::vector<KeySpec> custom_model_keys() {
  using T = TransformerSpec;
  auto t = [](Query& q) -> T& { return q.custom.transformer; };
  return {
      {"custom",
       choice({"transformer", "cnn"},
              [](Query& q, size_t i) { q.custom.kind = static_cast<CustomModel::Kind>(i + 1); })},
      {"c-name", text([](Query& q) -> std::string& { return q.custom.name; })},
      {"c-layers", integer(1, 100000, [t](Query& q) -> int64_t& { return t(q).layers; })},
      {"c-hidden", integer(1, 1000000, [t](Query& q) -> int64_t& { return t(q).hidden; })},
      {"c-heads", integer(1, 100000, [t](Query& q) -> int64_t& { return t(q).heads; })},
      {"c-kv-heads", integer(0, 100000, [t](Query& q) -> int64_t& { return t(q).kv_heads; })},
      {"c-head-dim", integer(0, 100000, [t](Query& q) -> int64_t& { return t(q).head_dim; })},
      {"c-ffn", integer(1, 10000000, [t](Query& q) -> int64_t& { return t(q).ffn_hidden; })},
      {"c-vocab", integer(1, 10000000, [t](Query& q) -> int64_t& { return t(q).vocab; })},
      {"c-max-positions",
       integer(0, 100000000, [t](Query& q) -> int64_t& { return t(q).max_positions; })},
      {"c-gated", boolean([t](Query& q) -> bool& { return t(q).gated_mlp; })},
      {"c-tied", boolean([t](Query& q) -> bool& { return t(q).tied_embeddings; })},
      // One switch for the three bias groups, as the editor shows it.
      {"c-bias", boolean([t](Query& q) -> bool& { return t(q).qkv_bias; })},
      {"c-experts", integer(0, 100000, [t](Query& q) -> int64_t& { return t(q).experts; })},
      {"c-experts-per-token",
       integer(0, 100000, [t](Query& q) -> int64_t& { return t(q).experts_per_token; })},
      {"cnn", text([](Query& q) -> std::string& { return q.custom.cnn_builder; })},
      {"cnn-depth", integer(1, 1000, [](Query& q) -> int64_t& { return q.custom.cnn_depth; })},
      {"cnn-classes",
       integer(1, 1000000, [](Query& q) -> int64_t& { return q.custom.cnn_classes; })},
      {"cnn-width", number(0.05, 8, [](Query& q) -> double& { return q.custom.cnn_width; })},
      {"cnn-depth-multiple",
       number(0.05, 8, [](Query& q) -> double& { return q.custom.cnn_depth_multiple; })},
  };
}

const std::vector<KeySpec>& key_specs() {
  static const std::vector<KeySpec> specs = [] {
    std::vector<KeySpec> all;
    for (auto group :
         {setup_keys(), hardware_and_run_keys(), planner_keys(), custom_model_keys()}) {
      all.insert(all.end(), group.begin(), group.end());
    }
    return all;
  }();
  return specs;
}

// Conventions the page's transformer editor uses: gated MLPs go with RMSNorm and rotary
// positions (LLaMA); otherwise LayerNorm and learned positions (GPT-2).
void apply_transformer_conventions(TransformerSpec& t) {
  t.attn_out_bias = t.mlp_bias = t.qkv_bias;
  t.norm = t.gated_mlp ? NormKind::rmsnorm : NormKind::layernorm;
  t.norm_bias = !t.gated_mlp;
  t.activation = t.gated_mlp ? MlpActivation::silu : MlpActivation::gelu;
  t.positions = t.gated_mlp || t.max_positions == 0 ? PositionKind::rotary : PositionKind::learned;
  t.head = HeadKind::lm;
}

std::optional<Error> check_version(const std::string& value) {
  auto v = parse_int(value, "v");
  if (!v.ok()) return v.error();
  if (v.value() != kQuerySchemaVersion) {
    return make_error(Errc::unsupported_version, Msg::query_bad_version,
                      {value, std::to_string(kQuerySchemaVersion)});
  }
  return std::nullopt;
}

}  // namespace

const std::vector<ComplianceKind>& compliance_kinds() {
  static const std::vector<ComplianceKind> kinds = {
      {"hipaa", "HIPAA-eligible (a BAA is available)", &Region::hipaa},
      {"gdpr", "in the EU/EEA (GDPR)", &Region::gdpr_eu},
      {"gov", "government region", &Region::gov},
  };
  return kinds;
}

bool region_meets(const Region& region, const std::string& id) {
  if (id.empty()) return true;
  for (const ComplianceKind& c : compliance_kinds()) {
    if (id == c.id) return (region.*c.flag).value_or(false);
  }
  return false;
}

Result<double> parse_bounded_number(const std::string& key, const std::string& text, double min,
                                    double max) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double x = std::strtod(begin, &end);
  if (text.empty() || end != begin + text.size() || !std::isfinite(x))
    return not_a(Msg::query_not_number, key, text);
  if (x < min || x > max) return out_of_range(key, text, format_number(min), format_number(max));
  return x;
}

const std::vector<std::string>& query_keys() {
  static const std::vector<std::string> keys = keys_of(key_specs());
  return keys;
}

const std::vector<std::string>& request_keys() {
  static const std::vector<std::string> keys = keys_of(setup_keys());
  return keys;
}

Result<Request> parse_request(const Args& args, bool allow_other_keys) {
  const auto& keys = request_keys();
  Args setup_args;
  for (const auto& kv : args) {
    if (std::find(keys.begin(), keys.end(), kv.first) != keys.end()) {
      setup_args.push_back(kv);
    } else if (!allow_other_keys) {
      return make_error(Errc::invalid_argument, Msg::query_unknown_option, {kv.first});
    }
  }
  auto q = parse_query(setup_args);
  if (!q.ok()) return q.error();
  return q.value().request;
}

Result<int64_t> parse_int(std::string_view text, const std::string& key) {
  const std::string value(text);
  if (text.empty() || text.size() > 19) return not_a(Msg::query_not_integer, key, value);
  size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size()) return not_a(Msg::query_not_integer, key, value);
  int64_t x = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return not_a(Msg::query_not_integer, key, value);
    // 19 digits can pass int64: stop before the multiplication overflows.
    if (x > (std::numeric_limits<int64_t>::max() - (text[i] - '0')) / 10)
      return not_a(Msg::query_not_integer, key, value);
    x = x * 10 + (text[i] - '0');
  }
  return text[0] == '-' ? -x : x;
}

Result<Query> parse_query(const Args& args) {
  Query q;
  for (const auto& kv : args) {
    const std::string& key = kv.first;  // not a structured binding: the lambda below captures it
    const std::string& value = kv.second;
    if (key == "v") {
      if (auto err = check_version(value)) return *err;
      continue;
    }
    const auto& specs = key_specs();
    const auto spec =
        std::find_if(specs.begin(), specs.end(), [&](const KeySpec& s) { return key == s.key; });
    if (spec == specs.end())
      return make_error(Errc::invalid_argument, Msg::query_unknown_option, {key});
    if (auto err = spec->apply(q, key, value)) return *err;
  }
  if (q.run.tokens > 0 && q.run.epochs > 0)
    return make_error(Errc::invalid_argument, Msg::query_tokens_and_epochs, {});
  if (q.custom.kind == CustomModel::Kind::transformer)
    apply_transformer_conventions(q.custom.transformer);
  return q;
}

Result<Query> parse_query_string(std::string_view url_query) {
  auto args = query_to_args(url_query);
  if (!args.ok()) return args.error();
  return parse_query(args.value());
}

namespace {

void custom_to_args(const CustomModel& c, Args& a) {
  if (c.kind == CustomModel::Kind::transformer) {
    const TransformerSpec& t = c.transformer;
    a.emplace_back("custom", "transformer");
    if (!c.name.empty()) a.emplace_back("c-name", c.name);
    a.emplace_back("c-layers", std::to_string(t.layers));
    a.emplace_back("c-hidden", std::to_string(t.hidden));
    a.emplace_back("c-heads", std::to_string(t.heads));
    if (t.kv_heads) a.emplace_back("c-kv-heads", std::to_string(t.kv_heads));
    if (t.head_dim) a.emplace_back("c-head-dim", std::to_string(t.head_dim));
    a.emplace_back("c-ffn", std::to_string(t.ffn_hidden));
    a.emplace_back("c-vocab", std::to_string(t.vocab));
    a.emplace_back("c-max-positions", std::to_string(t.max_positions));
    a.emplace_back("c-gated", t.gated_mlp ? "1" : "0");
    a.emplace_back("c-tied", t.tied_embeddings ? "1" : "0");
    a.emplace_back("c-bias", t.qkv_bias ? "1" : "0");
    if (t.experts > 1) {
      a.emplace_back("c-experts", std::to_string(t.experts));
      a.emplace_back("c-experts-per-token", std::to_string(t.experts_per_token));
    }
  } else if (c.kind == CustomModel::Kind::cnn) {
    a.emplace_back("custom", "cnn");
    a.emplace_back("cnn", c.cnn_builder);
    a.emplace_back("cnn-depth", std::to_string(c.cnn_depth));
    a.emplace_back("cnn-classes", std::to_string(c.cnn_classes));
    a.emplace_back("cnn-width", format_number(c.cnn_width));
    a.emplace_back("cnn-depth-multiple", format_number(c.cnn_depth_multiple));
  }
}

void hardware_and_run_to_args(const Query& q, Args& a) {
  const Query d;
  if (!q.instance.empty()) a.emplace_back("instance", q.instance);
  if (q.nodes != 0) a.emplace_back("nodes", std::to_string(q.nodes));
  if (!q.gpu.empty()) a.emplace_back("gpu", q.gpu);
  if (q.gpus != 0) a.emplace_back("gpus", std::to_string(q.gpus));
  if (q.run.tokens > 0) a.emplace_back("tokens", format_number(q.run.tokens));
  if (q.run.epochs > 0) a.emplace_back("epochs", format_number(q.run.epochs));
  if (q.run.dataset_size > 0) a.emplace_back("dataset-size", format_number(q.run.dataset_size));
  if (q.pricing != d.pricing) a.emplace_back("pricing", pricing_name(q.pricing));
  if (!q.region.empty()) a.emplace_back("region", q.region);
  if (q.spot.interruptions_per_hour != d.spot.interruptions_per_hour) {
    a.emplace_back("spot-interruptions-per-hour", format_number(q.spot.interruptions_per_hour));
  }
  if (q.spot.checkpoint_interval_h != d.spot.checkpoint_interval_h) {
    a.emplace_back("checkpoint-interval-hours", format_number(q.spot.checkpoint_interval_h));
  }
  if (q.spot.restart_h != d.spot.restart_h)
    a.emplace_back("restart-hours", format_number(q.spot.restart_h));
}

void planner_to_args(const Query& q, Args& a) {
  if (!q.provider.empty()) a.emplace_back("provider", q.provider);
  if (!q.compliance.empty()) a.emplace_back("compliance", q.compliance);
  if (q.objective == Objective::time) a.emplace_back("objective", "time");
  if (q.deadline_hours > 0) a.emplace_back("deadline-hours", format_number(q.deadline_hours));
  if (q.budget_usd > 0) a.emplace_back("budget-usd", format_number(q.budget_usd));
  if (q.min_gpu_memory_bytes > 0)
    a.emplace_back("min-gpu-memory-gb", format_number(q.min_gpu_memory_bytes / 1e9));
  if (q.max_nodes != 0) a.emplace_back("max-nodes", std::to_string(q.max_nodes));
  if (q.top_k != 0) a.emplace_back("top", std::to_string(q.top_k));
}

}  // namespace

namespace {

// The serve keys, in the style of the query's (the same value readers and messages).
using ServeApply = std::function<std::optional<Error>(ServeRequest&, const std::string& key,
                                                      const std::string& value)>;
struct ServeKeySpec {
  const char* key;
  ServeApply apply;
};

std::optional<Error> read_serve_model(ServeRequest& r, const std::string& k, const std::string& v) {
  if (v.empty()) return make_error(Errc::invalid_argument, Msg::query_empty_model, {k});
  r.model = v;
  return std::nullopt;
}

std::optional<Error> read_percentile(ServeRequest& r, const std::string& k, const std::string& v) {
  if (v != "50" && v != "90" && v != "99") return not_a(Msg::query_not_one_of, k, v, "50, 90, 99");
  r.percentile = std::stoi(v);
  return std::nullopt;
}

std::optional<LengthDistribution> parse_lengths(const std::string& v) {
  if (v == "fixed") return LengthDistribution::fixed;
  if (v == "sharegpt") return LengthDistribution::sharegpt;
  return std::nullopt;
}

const std::vector<ServeKeySpec>& serve_key_specs() {
  using R = ServeRequest;
  static const std::vector<ServeKeySpec> specs = {
      {"model", read_serve_model},
      {"rate", number(1e-6, 1e7, [](R& r) -> double& { return r.rate_per_s; })},
      {"load-curve", text([](R& r) -> std::string& { return r.load_curve; })},
      {"prompt-tokens", number(1, 1e7, [](R& r) -> double& { return r.prompt_tokens; })},
      {"output-tokens", number(1, 1e7, [](R& r) -> double& { return r.output_tokens; })},
      {"ttft-ms", number(0, 1e7, [](R& r) -> double& { return r.ttft_ms; })},
      {"tpot-ms", number(0, 1e7, [](R& r) -> double& { return r.tpot_ms; })},
      {"percentile", read_percentile},
      {"runtime", enumeration(parse_runtime, "vllm, trtllm, sglang, hf",
                              [](R& r) -> Runtime& { return r.runtime; })},
      {"weights", enumeration(parse_weight_format, "bf16, fp16, fp8, int8, int4",
                              [](R& r) -> WeightFormat& { return r.weights; })},
      {"kv", enumeration(parse_kv_format, "bf16, fp8", [](R& r) -> KvFormat& { return r.kv; })},
      {"tp", integer(1, 64, [](R& r) -> int& { return r.tp; })},
      {"lengths", enumeration(parse_lengths, "fixed, sharegpt",
                              [](R& r) -> LengthDistribution& { return r.lengths; })},
      {"requests", integer(1, 20000, [](R& r) -> int& { return r.requests; })},
      {"min-replicas", integer(0, 10000, [](R& r) -> int& { return r.min_replicas; })},
      {"target-utilisation", number(0.01, 1, [](R& r) -> double& { return r.target_utilisation; })},
      {"headroom", number(0, 10, [](R& r) -> double& { return r.headroom; })},
      {"start-s", number(0, 86400, [](R& r) -> double& { return r.start_s; })},
      {"load-gb-per-s", number(0, 1e4, [](R& r) -> double& { return r.load_gb_per_s; })},
      {"top", integer(1, 1000, [](R& r) -> int& { return r.top; })},
      {"gpu", id_or_auto([](R& r) -> std::string& { return r.gpu; })},
      {"instance", id_or_auto([](R& r) -> std::string& { return r.instance; })},
      {"provider", text([](R& r) -> std::string& { return r.provider; })},
      {"region", text([](R& r) -> std::string& { return r.region; })},
  };
  return specs;
}

}  // namespace

const std::vector<std::string>& serve_keys() {
  static const std::vector<std::string> keys = keys_of(serve_key_specs());
  return keys;
}

Result<ServeRequest> parse_serve_request(const Args& args) {
  ServeRequest r;
  const auto& specs = serve_key_specs();
  for (const auto& kv : args) {
    const std::string& key = kv.first;
    if (key == "v") {
      if (auto err = check_version(kv.second)) return *err;
      continue;
    }
    const auto spec = std::find_if(specs.begin(), specs.end(),
                                   [&](const ServeKeySpec& s) { return key == s.key; });
    if (spec == specs.end())
      return make_error(Errc::invalid_argument, Msg::query_unknown_option, {key});
    if (auto err = spec->apply(r, key, kv.second)) return *err;
  }
  return r;
}

Args serve_request_to_key_values(const ServeRequest& r) {
  const ServeRequest d;
  Args a;
  auto text_key = [&](const char* k, const std::string& v, const std::string& dv) {
    if (v != dv) a.emplace_back(k, v);
  };
  auto number_key = [&](const char* k, double v, double dv) {
    if (v != dv) a.emplace_back(k, format_number(v));
  };
  text_key("model", r.model, d.model);
  number_key("rate", r.rate_per_s, d.rate_per_s);
  text_key("load-curve", r.load_curve, d.load_curve);
  number_key("prompt-tokens", r.prompt_tokens, d.prompt_tokens);
  number_key("output-tokens", r.output_tokens, d.output_tokens);
  number_key("ttft-ms", r.ttft_ms, d.ttft_ms);
  number_key("tpot-ms", r.tpot_ms, d.tpot_ms);
  number_key("percentile", r.percentile, d.percentile);
  text_key("runtime", runtime_name(r.runtime), runtime_name(d.runtime));
  text_key("weights", weight_format_name(r.weights), weight_format_name(d.weights));
  text_key("kv", kv_format_name(r.kv), kv_format_name(d.kv));
  number_key("tp", r.tp, d.tp);
  if (r.lengths != d.lengths) a.emplace_back("lengths", "sharegpt");
  number_key("requests", r.requests, d.requests);
  number_key("min-replicas", r.min_replicas, d.min_replicas);
  number_key("target-utilisation", r.target_utilisation, d.target_utilisation);
  number_key("headroom", r.headroom, d.headroom);
  number_key("start-s", r.start_s, d.start_s);
  number_key("load-gb-per-s", r.load_gb_per_s, d.load_gb_per_s);
  number_key("top", r.top, d.top);
  for (auto [k, v] : {std::pair<const char*, const std::string*>{"gpu", &r.gpu},
                      {"instance", &r.instance},
                      {"provider", &r.provider},
                      {"region", &r.region}}) {
    text_key(k, *v, "");
  }
  return a;
}

ServeQuery serve_query(const ServeRequest& r, LoadCurve curve) {
  ServeQuery q;
  q.config.runtime = r.runtime;
  q.config.weights = r.weights;
  q.config.kv = r.kv;
  q.config.tp = r.tp;
  q.workload.prompt_tokens = r.prompt_tokens;
  q.workload.output_tokens = r.output_tokens;
  q.workload.lengths = r.lengths;
  q.workload.requests = r.requests;
  q.slo = {r.ttft_ms / 1000, r.tpot_ms / 1000, static_cast<double>(r.percentile)};
  q.curve = std::move(curve);
  q.policy.target_utilisation = r.target_utilisation;
  q.policy.min_replicas = r.min_replicas;
  q.policy.instance_start_s = r.start_s;
  q.policy.model_load_bytes_per_s = r.load_gb_per_s * 1e9;  // decimal GB
  q.policy.headroom = r.headroom;
  q.gpu = r.gpu;
  q.instance = r.instance;
  q.provider = r.provider;
  q.region = r.region;
  q.top_k = r.top;
  return q;
}

ServeRequest serving_example_request() {
  ServeRequest r;
  r.model = "llama-3-70b";
  r.rate_per_s = 30;
  r.load_curve = "diurnal";
  r.prompt_tokens = 1500;
  r.output_tokens = 300;
  r.ttft_ms = 1000;
  r.tpot_ms = 50;
  return r;
}

ServeQuery serving_example_query() {
  const ServeRequest r = serving_example_request();
  return serve_query(r, load_curve_from_key(r.load_curve, r.rate_per_s).value());
}

Args query_to_key_values(const Query& q) {
  Args a = request_to_args(q.request);
  custom_to_args(q.custom, a);
  hardware_and_run_to_args(q, a);
  planner_to_args(q, a);
  return a;
}

}  // namespace gpuplan
