// The parsers and writers of queries and serve requests: the key table (keys.cpp) read and
// written as a whole, plus the checks that involve more than one key.
#include "gpuplan/query.h"
#include "gpuplan/quantity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <tuple>

#include "gpuplan/framework.h"
#include "gpuplan/keys.h"

namespace gpuplan {
namespace {

template <class T>
std::vector<std::string> names_of(const std::vector<KeyRow<T>>& rows) {
  std::vector<std::string> names;
  for (const auto& r : rows) names.emplace_back(r.name);
  return names;
}

Error not_a(Msg id, const std::string& key, const std::string& value) {
  Error e = make_error(Errc::invalid_argument, id, {key, value, ""});
  e.key = key;
  return e;
}

std::string bound_text(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.10g", x);
  return b;
}

bool is_request_key(const QueryKey& r) {
  return r.group == KeyGroup::setup || r.group == KeyGroup::parallelism;
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
  // As people write quantities: "2e9", "2B", "2,000,000", "2亿" (gpuplan/quantity.h).
  const auto parsed = parse_quantity(text);
  if (!parsed.ok() || !std::isfinite(parsed.value()))
    return not_a(Msg::query_not_number, key, text);
  const double x = parsed.value();
  if (x < min || x > max) {
    Error e = make_error(Errc::invalid_argument, Msg::query_out_of_range,
                         {key, text, bound_text(min), bound_text(max)});
    e.key = key;
    return e;
  }
  return x;
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

const std::vector<std::string>& query_keys() {
  static const std::vector<std::string> keys = names_of(query_key_rows());
  return keys;
}

const std::vector<std::string>& request_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> names;
    for (const auto& r : query_key_rows()) {
      if (is_request_key(r)) names.emplace_back(r.name);
    }
    return names;
  }();
  return keys;
}

Result<Request> parse_request(const Args& args, bool allow_other_keys) {
  Args setup_args;
  for (const auto& kv : args) {
    const QueryKey* r = find_query_key(kv.first);
    if (r && is_request_key(*r)) {
      setup_args.push_back(kv);
    } else if (!allow_other_keys) {
      return unknown_key_error(kv.first);
    }
  }
  auto q = parse_query(setup_args);
  if (!q.ok()) return q.error();
  return q.value().request;
}

Args request_to_args(const Request& request) {
  Query q;
  q.request = request;
  q.dp_given = request.setup.dp != Setup{}.dp;  // a fixed data parallelism is part of the setup
  Args out;
  for (const auto& r : query_key_rows()) {
    if (!is_request_key(r)) continue;
    if (auto text = r.write(q)) out.emplace_back(r.name, std::move(*text));
  }
  return out;
}

namespace {
// Whether `key` is among the args (framework presets fill only the keys not given).
bool arg_given(const char* key, const void* args) {
  for (const auto& kv : *static_cast<const Args*>(args))
    if (kv.first == key) return true;
  return false;
}
}  // namespace

Result<Query> parse_query(const Args& args) {
  Query q;
  // The editor's conventions fill the custom transformer's derived fields before the keys that
  // override them are read.
  auto conventions = [](Query& x) {
    if (x.custom.kind == CustomModel::Kind::transformer)
      x.custom.transformer = editor_conventions(x.custom.transformer);
  };
  if (auto err = read_keys<Query>(query_key_rows(), args, q, conventions)) return *err;
  if (q.run.tokens > 0 && q.run.epochs > 0) {
    Error e = make_error(Errc::invalid_argument, Msg::query_tokens_and_epochs, {});
    e.key = "epochs";
    return e;
  }
  apply_framework_defaults(q.request.setup, arg_given, &args);
  return q;
}

Result<Query> parse_query_string(std::string_view url_query) {
  auto args = query_to_args(url_query);
  if (!args.ok()) return args.error();
  return parse_query(args.value());
}

Args query_to_key_values(const Query& q) {
  return write_keys(query_key_rows(), q);
}

const std::vector<std::string>& serve_keys() {
  static const std::vector<std::string> keys = names_of(serve_key_rows());
  return keys;
}

std::optional<Error> check_serve_spec(const ServeRequest& r) {
  auto err = [](Msg id, const std::string& arg, const char* key) {
    return about_key(make_error(Errc::invalid_argument, id, {arg}), key);
  };
  const std::string method = spec_method_name(r.spec_method);
  if (r.spec_method == SpecMethod::none) {
    if (r.spec_tokens > 0) return err(Msg::serve_spec_needs_method, "spec-tokens", "spec-tokens");
    if (r.spec_acceptance > 0)
      return err(Msg::serve_spec_needs_method, "spec-acceptance", "spec-acceptance");
    if (!r.spec_draft_model.empty())
      return err(Msg::serve_spec_needs_method, "spec-draft-model", "spec-draft-model");
    return std::nullopt;
  }
  if (r.spec_tokens < 1) return err(Msg::serve_spec_tokens_required, method, "spec-tokens");
  if (!(r.spec_acceptance > 0))
    return err(Msg::serve_spec_acceptance_required, method, "spec-acceptance");
  if (r.spec_method == SpecMethod::draft && r.spec_draft_model.empty())
    return err(Msg::serve_spec_draft_required, "", "spec-draft-model");
  if (r.spec_method != SpecMethod::draft && !r.spec_draft_model.empty())
    return err(Msg::serve_spec_draft_only, method, "spec-draft-model");
  return std::nullopt;
}

std::optional<Error> check_serve_lengths(const ServeRequest& r) {
  if (r.lengths != LengthDistribution::sharegpt) return std::nullopt;
  const ServeRequest defaults;
  for (const auto& [value, fallback, key] :
       {std::make_tuple(r.prompt_tokens, defaults.prompt_tokens, "prompt-tokens"),
        std::make_tuple(r.output_tokens, defaults.output_tokens, "output-tokens")}) {
    if (value != fallback) {
      return about_key(
          make_error(Errc::invalid_argument, Msg::serve_lengths_fixed_only, {std::string(key)}),
          key);
    }
  }
  return std::nullopt;
}

Result<ServeRequest> parse_serve_request(const Args& args) {
  ServeRequest r;
  if (auto err = read_keys<ServeRequest>(serve_key_rows(), args, r)) return *err;
  return r;
}

Args serve_request_to_key_values(const ServeRequest& r) {
  return write_keys(serve_key_rows(), r);
}

ServeQuery serve_query(const ServeRequest& r, LoadCurve curve) {
  ServeQuery q;
  q.config.runtime = r.runtime;
  q.config.weights = r.weights.value_or(WeightFormat::bf16);
  q.config.checkpoint_weights = !r.weights.has_value();
  q.config.kv = r.kv;
  q.config.tp = r.tp;
  q.config.pp = r.pp;
  q.config.ep = r.ep;
  q.config.attention_dp = r.attention_dp;
  q.workload.prompt_tokens = r.prompt_tokens;
  q.workload.output_tokens = r.output_tokens;
  q.workload.lengths = r.lengths;
  q.workload.requests = r.requests;
  q.workload.prefix_hit_rate = r.prefix_hit_rate;
  q.config.spec.method = r.spec_method;
  q.config.spec.tokens = r.spec_tokens;
  q.config.spec.acceptance = r.spec_acceptance;
  q.config.spec.draft_model = r.spec_draft_model;
  q.disagg = {r.disaggregate, r.prefill_tp, r.decode_tp};
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

}  // namespace gpuplan
