#include "page_state.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "gpuplan/catalog.h"

namespace gpuplan::web {
namespace {

Error bad(const std::string& key, const std::string& value, const std::string& what) {
  return make_error(Errc::invalid_argument, "--" + key + ": '" + value + "' is not " + what);
}

Result<double> number(const std::string& key, const std::string& v, double min, double max) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(x) || x < min || x > max) {
    char range[96];
    std::snprintf(range, sizeof range, "a number in [%g, %g]", min, max);
    return bad(key, v, range);
  }
  return x;
}

Result<int64_t> integer(const std::string& key, const std::string& v, int64_t min, int64_t max) {
  auto n = parse_int(v, key);
  if (!n.ok()) return n.error();
  if (n.value() < min || n.value() > max) {
    return bad(key, v, "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return n.value();
}

Result<bool> boolean(const std::string& key, const std::string& v) {
  if (v == "1" || v == "true") return true;
  if (v == "0" || v == "false") return false;
  return bad(key, v, "0 or 1");
}

// "a,b,c" -> {"a", "b", "c"} (at most 4: the compare view's limit).
std::vector<std::string> split_list(const std::string& v) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= v.size() && out.size() < 4) {
    const size_t comma = std::min(v.find(',', start), v.size());
    if (comma > start) out.push_back(v.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::string fmt(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.10g", x);
  return b;
}

}  // namespace

const char* tab_name(Tab t) {
  switch (t) {
    case Tab::results: return "results";
    case Tab::plans: return "plans";
    case Tab::hardware: return "hardware";
    case Tab::benchmarks: return "benchmarks";
  }
  return "results";
}

PageState default_page_state() {
  PageState s;
  s.request.model = "gpt2-small";
  s.request.setup.global_batch = 8;
  s.request.setup.precision = Precision::amp_bf16;
  s.run.tokens = 1e9;
  return s;
}

namespace {

// Sets one page key (hardware, run, pricing, planner, tab, language); an Error leaves the field
// as it was.
std::optional<Error> apply_page_key(PageState& s, const std::string& k, const std::string& v) {
  std::optional<Error> err;
  auto set_int = [&](auto& field, int64_t min, int64_t max) {
    auto n = integer(k, v, min, max);
    if (n.ok()) field = static_cast<std::remove_reference_t<decltype(field)>>(n.value());
    else err = n.error();
  };
  auto set_num = [&](double& field, double min, double max) {
    auto x = number(k, v, min, max);
    if (x.ok()) field = x.value();
    else err = x.error();
  };
  if (k == "gpu") s.gpu = v;
  else if (k == "gpus") set_int(s.gpus, 1, 4096);
  else if (k == "instance") s.instance = v;
  else if (k == "nodes") set_int(s.nodes, 1, 4096);
  else if (k == "tokens") set_num(s.run.tokens, 1, 1e16);
  else if (k == "epochs") set_num(s.run.epochs, 1e-3, 1e6);
  else if (k == "dataset-size") set_num(s.run.dataset_size, 1, 1e13);
  else if (k == "pricing") {
    auto p = parse_pricing(v);
    if (p) s.pricing = *p;
    else err = bad(k, v, "one of on-demand, monthly, reserved-1y, reserved-3y, bulk, spot");
  } else if (k == "region") s.region = v;
  else if (k == "provider") s.provider = v;
  else if (k == "compliance") {
    if (v == "hipaa" || v == "gdpr" || v == "gov" || v.empty()) s.compliance = v;
    else err = bad(k, v, "one of hipaa, gdpr, gov");
  } else if (k == "objective") {
    if (v == "cost") s.objective = Objective::cost;
    else if (v == "time") s.objective = Objective::time;
    else err = bad(k, v, "cost or time");
  } else if (k == "deadline-hours") set_num(s.deadline_hours, 0, 1e7);
  else if (k == "budget-usd") set_num(s.budget_usd, 0, 1e12);
  else if (k == "max-nodes") set_int(s.max_nodes, 1, 256);
  else if (k == "plan-gpu") s.plan_gpu = v;
  else if (k == "compare") s.compare = split_list(v);
  else if (k == "lang") {
    if (v == "en" || v == "zh") s.lang = v;
    else err = bad(k, v, "en or zh");
  } else if (k == "tab") {
    bool found = false;
    for (Tab tab : {Tab::results, Tab::plans, Tab::hardware, Tab::benchmarks}) {
      if (v == tab_name(tab)) {
        s.tab = tab;
        found = true;
      }
    }
    if (!found) err = bad(k, v, "one of results, plans, hardware, benchmarks");
  } else {
    err = make_error(Errc::invalid_argument, "--" + k + ": unknown option");
  }
  return err;
}

// Sets one key of the custom model ("custom", "c-" transformer keys, "cnn" family keys);
// nullopt with `handled` false when the key is not one of them.
std::optional<Error> apply_custom_key(PageState& s, const std::string& k, const std::string& v, bool& handled) {
  std::optional<Error> err;
  TransformerSpec& t = s.custom.transformer;
  auto set_int = [&](auto& field, int64_t min, int64_t max) {
    auto n = integer(k, v, min, max);
    if (n.ok()) field = static_cast<std::remove_reference_t<decltype(field)>>(n.value());
    else err = n.error();
  };
  auto set_bool = [&](bool& field) {
    auto b = boolean(k, v);
    if (b.ok()) field = b.value();
    else err = b.error();
  };
  handled = true;
  if (k == "custom") {
    if (v == "transformer") s.custom.kind = CustomModel::Kind::transformer;
    else if (v == "cnn") s.custom.kind = CustomModel::Kind::cnn;
    else err = bad(k, v, "transformer or cnn");
  } else if (k == "c-name") s.custom.name = v;
  else if (k == "c-layers") set_int(t.layers, 1, 100000);
  else if (k == "c-hidden") set_int(t.hidden, 1, 1000000);
  else if (k == "c-heads") set_int(t.heads, 1, 100000);
  else if (k == "c-kv-heads") set_int(t.kv_heads, 0, 100000);
  else if (k == "c-head-dim") set_int(t.head_dim, 0, 100000);
  else if (k == "c-ffn") set_int(t.ffn_hidden, 1, 10000000);
  else if (k == "c-vocab") set_int(t.vocab, 1, 10000000);
  else if (k == "c-max-positions") set_int(t.max_positions, 0, 100000000);
  else if (k == "c-gated") set_bool(t.gated_mlp);
  else if (k == "c-tied") set_bool(t.tied_embeddings);
  else if (k == "c-bias") {
    bool b = false;
    set_bool(b);
    t.qkv_bias = t.attn_out_bias = t.mlp_bias = b;
  } else if (k == "c-experts") set_int(t.experts, 0, 100000);
  else if (k == "c-experts-per-token") set_int(t.experts_per_token, 0, 100000);
  else if (k == "cnn") s.custom.cnn_builder = v;
  else if (k == "cnn-depth") set_int(s.custom.cnn_depth, 1, 1000);
  else if (k == "cnn-classes") set_int(s.custom.cnn_classes, 1, 1000000);
  else if (k == "cnn-width") {
    auto x = number(k, v, 0.05, 8);
    if (x.ok()) s.custom.cnn_width = x.value();
    else err = x.error();
  } else if (k == "cnn-depth-multiple") {
    auto x = number(k, v, 0.05, 8);
    if (x.ok()) s.custom.cnn_depth_multiple = x.value();
    else err = x.error();
  } else {
    handled = false;
  }
  return err;
}

// The link key an Error names ("--batch: ..." -> "batch"), or "".
std::string key_of(const Error& e) {
  const std::string& m = e.message;
  if (m.rfind("--", 0) != 0) return "";
  const size_t colon = m.find(':');
  return colon == std::string::npos ? "" : m.substr(2, colon - 2);
}

// The request keys (the CLI's), read by the core's parser; a key it rejects is dropped and
// noted, and the rest is read again, so one bad value keeps every other field.
Request lenient_request(Args args, std::vector<LinkProblem>& problems) {
  for (size_t tries = 0; tries <= args.size(); ++tries) {
    auto request = parse_request(args, /*allow_other_keys=*/true);
    if (request.ok()) return request.value();
    const std::string key = key_of(request.error());
    const auto it = std::find_if(args.begin(), args.end(), [&](const auto& kv) { return kv.first == key; });
    problems.push_back({key, request.error().message, ""});
    if (key.empty() || it == args.end()) break;
    args.erase(it);
  }
  Request fallback;
  return fallback;
}

void apply_editor_conventions(TransformerSpec& t) {
  // Conventions the editor uses: gated MLPs go with RMSNorm and rotary positions (LLaMA);
  // otherwise LayerNorm and learned positions (GPT-2).
  t.norm = t.gated_mlp ? NormKind::rmsnorm : NormKind::layernorm;
  t.norm_bias = !t.gated_mlp;
  t.activation = t.gated_mlp ? MlpActivation::silu : MlpActivation::gelu;
  t.positions = t.gated_mlp || t.max_positions == 0 ? PositionKind::rotary : PositionKind::learned;
  t.head = HeadKind::lm;
}

}  // namespace

ParsedLink page_state_from_link(const std::string& query) {
  ParsedLink out{default_page_state(), {}};
  PageState& s = out.state;
  auto args = query_to_args(query);
  if (!args.ok()) {
    out.problems.push_back({"", args.error().message, ""});
    return out;
  }
  if (args.value().empty()) return out;
  // The request keys are the CLI's; start from its defaults when the link sets any.
  s.request = lenient_request(args.value(), out.problems);
  if (s.request.model.empty()) s.request.model = default_page_state().request.model;
  s.run = RunLength{};
  const auto& keys = request_keys();
  for (const auto& [k, v] : args.value()) {
    if (std::find(keys.begin(), keys.end(), k) != keys.end()) continue;
    bool handled = false;
    auto err = apply_custom_key(s, k, v, handled);
    if (!handled) err = apply_page_key(s, k, v);
    if (err) out.problems.push_back({k, err->message, ""});
  }
  if (s.custom.kind == CustomModel::Kind::transformer) apply_editor_conventions(s.custom.transformer);
  return out;
}

Result<PageState> page_state_from_query(const std::string& query) {
  ParsedLink link = page_state_from_link(query);
  if (!link.problems.empty()) return make_error(Errc::invalid_argument, link.problems.front().message);
  return link.state;
}

std::string page_state_to_query(const PageState& s) {
  Args a = request_to_args(s.request);
  const PageState d = default_page_state();
  if (s.custom.kind == CustomModel::Kind::transformer) {
    const TransformerSpec& t = s.custom.transformer;
    a.emplace_back("custom", "transformer");
    if (!s.custom.name.empty()) a.emplace_back("c-name", s.custom.name);
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
  } else if (s.custom.kind == CustomModel::Kind::cnn) {
    a.emplace_back("custom", "cnn");
    a.emplace_back("cnn", s.custom.cnn_builder);
    a.emplace_back("cnn-depth", std::to_string(s.custom.cnn_depth));
    a.emplace_back("cnn-classes", std::to_string(s.custom.cnn_classes));
    a.emplace_back("cnn-width", fmt(s.custom.cnn_width));
    a.emplace_back("cnn-depth-multiple", fmt(s.custom.cnn_depth_multiple));
  }
  if (!s.instance.empty()) {
    a.emplace_back("instance", s.instance);
    if (s.nodes != 1) a.emplace_back("nodes", std::to_string(s.nodes));
  } else {
    a.emplace_back("gpu", s.gpu);
    if (s.gpus != 1) a.emplace_back("gpus", std::to_string(s.gpus));
  }
  if (s.run.tokens > 0) a.emplace_back("tokens", fmt(s.run.tokens));
  if (s.run.epochs > 0) a.emplace_back("epochs", fmt(s.run.epochs));
  if (s.run.dataset_size > 0) a.emplace_back("dataset-size", fmt(s.run.dataset_size));
  if (s.pricing != d.pricing) a.emplace_back("pricing", pricing_name(s.pricing));
  if (!s.region.empty()) a.emplace_back("region", s.region);
  if (!s.provider.empty()) a.emplace_back("provider", s.provider);
  if (!s.compliance.empty()) a.emplace_back("compliance", s.compliance);
  if (s.objective != d.objective) a.emplace_back("objective", "time");
  if (s.deadline_hours > 0) a.emplace_back("deadline-hours", fmt(s.deadline_hours));
  if (s.budget_usd > 0) a.emplace_back("budget-usd", fmt(s.budget_usd));
  if (s.max_nodes != d.max_nodes) a.emplace_back("max-nodes", std::to_string(s.max_nodes));
  if (!s.plan_gpu.empty()) a.emplace_back("plan-gpu", s.plan_gpu);
  if (!s.compare.empty()) {
    std::string list;
    for (const auto& c : s.compare) list += (list.empty() ? "" : ",") + c;
    a.emplace_back("compare", list);
  }
  if (s.tab != d.tab) a.emplace_back("tab", tab_name(s.tab));
  if (!s.lang.empty()) a.emplace_back("lang", s.lang);
  return args_to_query(a);
}

Result<Model> resolve_model(const Catalog& catalog, const PageState& s) {
  if (s.custom.kind == CustomModel::Kind::transformer) {
    Model m;
    m.id = "custom";
    m.name = s.custom.name.empty() ? "Custom transformer" : s.custom.name;
    m.task = "causal-lm";
    m.kind = ModelKind::transformer;
    m.transformer = s.custom.transformer;
    m.default_seq_len = m.transformer.max_positions > 0 ? std::min<int64_t>(m.transformer.max_positions, 2048) : 2048;
    if (auto err = validate_transformer(m.transformer, "custom transformer")) return *err;
    return m;
  }
  if (s.custom.kind == CustomModel::Kind::cnn) {
    nlohmann::json spec = {{"builder", s.custom.cnn_builder}, {"num_classes", s.custom.cnn_classes}};
    if (s.custom.cnn_builder == "resnet" || s.custom.cnn_builder == "vgg") spec["depth"] = s.custom.cnn_depth;
    if (s.custom.cnn_builder == "mobilenet_v2") spec["width_mult"] = s.custom.cnn_width;
    if (s.custom.cnn_builder == "yolov5") {
      spec["width_multiple"] = s.custom.cnn_width;
      spec["depth_multiple"] = s.custom.cnn_depth_multiple;
    }
    nlohmann::json doc = {{"schema_version", 1},
                          {"id", "custom"},
                          {"name", "Custom " + s.custom.cnn_builder},
                          {"kind", "graph"},
                          {"task", "image-classification"},
                          {"source", {{"title", "described in the page"}, {"url", ""}, {"date", ""}}},
                          {"defaults", {{"resolution", s.custom.cnn_builder == "yolov5" ? 640 : 224}}},
                          {"graph", spec}};
    return parse_model_json(doc.dump(), "custom CNN");
  }
  const Model* m = catalog.find_model(s.request.model);
  if (!m) return make_error(Errc::not_found, "--model: unknown model '" + s.request.model + "'");
  return *m;
}

}  // namespace gpuplan::web
