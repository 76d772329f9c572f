#include "model/page_state.h"

#include <algorithm>

#include "gpuplan/catalog.h"
#include "gpuplan/evaluate.h"

namespace gpuplan::web {
namespace {

// The planner's node limit the page starts with (the core's default is for the CLI).
constexpr int kPageMaxNodes = 8;

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

// Sets one of the page's own keys; nullopt with `handled` false for the core's keys.
std::optional<Error> apply_page_key(PageState& s, const std::string& k, const std::string& v,
                                    bool& handled) {
  handled = true;
  if (k == "tab") {
    for (Tab t : {Tab::results, Tab::plans, Tab::hardware, Tab::benchmarks, Tab::serving}) {
      if (v == tab_name(t)) {
        s.tab = t;
        return std::nullopt;
      }
    }
    return make_error(
        Errc::invalid_argument,
        "--tab: '" + v + "' is not one of results, plans, hardware, benchmarks, serving");
  }
  if (k == "lang") {
    if (v != "en" && v != "zh")
      return make_error(Errc::invalid_argument, Msg::query_not_one_of, {"lang", v, "en, zh"});
    s.lang = v;
  } else if (k == "plan-gpu") {
    s.plan_gpu = v;
  } else if (k == "compare") {
    s.compare = split_list(v);
  } else {
    handled = false;
  }
  return std::nullopt;
}

// The link key an Error names ("--batch: ..." -> "batch"), or "".
std::string key_of(const Error& e) {
  const std::string& m = e.message;
  if (m.rfind("--", 0) != 0) return "";
  const size_t colon = m.find(':');
  const size_t space = m.find(' ');
  const size_t end = std::min(colon, space);
  return end == std::string::npos ? "" : m.substr(2, end - 2);
}

// The core's keys, read by its parser; a key it rejects is dropped and noted, and the rest is
// read again, so one bad value keeps every other field.
Query lenient_query(Args args, std::vector<LinkProblem>& problems) {
  for (size_t tries = 0; tries <= args.size(); ++tries) {
    auto q = parse_query(args);
    if (q.ok()) return q.value();
    const std::string key = key_of(q.error());
    const auto it =
        std::find_if(args.begin(), args.end(), [&](const auto& kv) { return kv.first == key; });
    problems.push_back({key, q.error(), ""});
    if (key.empty() || it == args.end()) break;
    args.erase(it);
  }
  return Query{};
}

// The serve keys the same way: a rejected key is dropped and noted.
ServeRequest lenient_serve(Args args, std::vector<LinkProblem>& problems) {
  for (size_t tries = 0; tries <= args.size(); ++tries) {
    auto r = parse_serve_request(args);
    if (r.ok()) return r.value();
    const std::string key = key_of(r.error());
    const auto it =
        std::find_if(args.begin(), args.end(), [&](const auto& kv) { return kv.first == key; });
    problems.push_back({key, r.error(), ""});
    if (key.empty() || it == args.end()) break;
    args.erase(it);
  }
  return ServeRequest{};
}

// A serving link: its keys are `gpuplan serve`'s, so what it leaves out takes the CLI's
// defaults (the link says what the command line says), but for the rate the CLI requires and
// a link with none of them (tab=serving alone), which opens on the page's example.
void apply_serving_link(const Args& core_args, ParsedLink& out) {
  const PageState d = default_page_state();
  const bool any = std::any_of(core_args.begin(), core_args.end(), [](const auto& kv) {
    return kv.first != "model" && kv.first != "v";
  });
  ServeRequest r = lenient_serve(core_args, out.problems);
  if (!r.model.empty()) out.state.request.model = r.model;
  r.model.clear();
  if (!any) r = d.serve;
  if (r.rate_per_s <= 0) r.rate_per_s = d.serve.rate_per_s;
  out.state.serve = r;
  out.state.tab = Tab::serving;
}

void apply_query(const Query& q, PageState& s) {
  s.request = q.request;
  if (s.request.model.empty()) s.request.model = default_page_state().request.model;
  s.custom = q.custom;
  if (!q.gpu.empty()) s.gpu = q.gpu;
  s.gpus = q.gpus > 0 ? q.gpus : 1;
  s.instance = q.instance;
  s.nodes = q.nodes > 0 ? q.nodes : 1;
  s.run = q.run;
  s.pricing = q.pricing;
  s.region = q.region;
  s.provider = q.provider;
  s.compliance = q.compliance;
  s.objective = q.objective;
  s.deadline_hours = q.deadline_hours;
  s.budget_usd = q.budget_usd;
  s.max_nodes = q.max_nodes > 0 ? q.max_nodes : kPageMaxNodes;
}

}  // namespace

const char* tab_name(Tab t) {
  switch (t) {
    case Tab::results:
      return "results";
    case Tab::plans:
      return "plans";
    case Tab::hardware:
      return "hardware";
    case Tab::benchmarks:
      return "benchmarks";
    case Tab::serving:
      return "serving";
  }
  return "results";
}

PageState default_page_state() {
  PageState s;
  s.request.model = "gpt2-small";
  s.request.setup.global_batch = 8;
  s.request.setup.precision = Precision::amp_bf16;
  s.run.tokens = 1e9;
  s.serve.rate_per_s = 30;
  s.serve.prompt_tokens = 1500;
  s.serve.output_tokens = 300;
  s.serve.ttft_ms = 1000;
  s.serve.tpot_ms = 50;
  return s;
}

bool is_serving_link(const Args& args) {
  const auto& core = query_keys();
  return std::any_of(args.begin(), args.end(), [&](const auto& kv) {
    if (kv.first == "tab") return kv.second == tab_name(Tab::serving);
    const auto& serve = serve_keys();
    return std::find(serve.begin(), serve.end(), kv.first) != serve.end() &&
           std::find(core.begin(), core.end(), kv.first) == core.end();
  });
}

ParsedLink page_state_from_link(const std::string& query) {
  ParsedLink out{default_page_state(), {}};
  auto args = query_to_args(query);
  if (!args.ok()) {
    out.problems.push_back({"", args.error(), ""});
    return out;
  }
  if (args.value().empty()) return out;
  Args core_args;
  for (const auto& [k, v] : args.value()) {
    bool handled = false;
    if (auto err = apply_page_key(out.state, k, v, handled)) out.problems.push_back({k, *err, ""});
    if (!handled) core_args.emplace_back(k, v);
  }
  if (is_serving_link(args.value())) {
    apply_serving_link(core_args, out);
    return out;
  }
  const Tab tab = out.state.tab;
  const std::string lang = out.state.lang, plan_gpu = out.state.plan_gpu;
  const auto compare = out.state.compare;
  apply_query(lenient_query(core_args, out.problems), out.state);
  // Keys the link leaves out keep the page's defaults, not the CLI's (fp32, no run length).
  auto given = [&](std::initializer_list<const char*> keys) {
    return std::any_of(core_args.begin(), core_args.end(), [&](const auto& kv) {
      return std::find_if(keys.begin(), keys.end(), [&](const char* k) { return kv.first == k; }) !=
             keys.end();
    });
  };
  const PageState d = default_page_state();
  if (!given({"precision"})) out.state.request.setup.precision = d.request.setup.precision;
  if (!given({"batch", "micro-batch"}))
    out.state.request.setup.global_batch = d.request.setup.global_batch;
  if (!given({"tokens", "epochs"})) out.state.run.tokens = d.run.tokens;
  out.state.tab = tab;
  out.state.lang = lang;
  out.state.plan_gpu = plan_gpu;
  out.state.compare = compare;
  return out;
}

Result<PageState> page_state_from_query(const std::string& query) {
  ParsedLink link = page_state_from_link(query);
  if (!link.problems.empty()) return link.problems.front().error;
  return link.state;
}

Query page_query(const PageState& s) {
  Query q;
  q.request = s.request;
  q.custom = s.custom;
  if (!s.instance.empty()) {
    q.instance = s.instance;
    q.nodes = s.nodes != 1 ? s.nodes : 0;
  } else {
    q.gpu = s.gpu;
    q.gpus = s.gpus != 1 ? s.gpus : 0;
  }
  q.run = s.run;
  q.pricing = s.pricing;
  q.region = s.region;
  q.provider = s.provider;
  q.compliance = s.compliance;
  q.objective = s.objective;
  q.deadline_hours = s.deadline_hours;
  q.budget_usd = s.budget_usd;
  q.max_nodes = s.max_nodes != kPageMaxNodes ? s.max_nodes : 0;
  return q;
}

std::string page_state_to_query(const PageState& s) {
  // The link's format version first; links written before it had none and still open.
  Args a = {{"v", std::to_string(kQuerySchemaVersion)}};
  if (s.tab == Tab::serving) {
    // `gpuplan serve`'s options and the page's own tab and language (is_serving_link).
    ServeRequest r = s.serve;
    r.model = s.request.model;
    for (auto& kv : serve_request_to_key_values(r)) a.push_back(std::move(kv));
    a.emplace_back("tab", tab_name(s.tab));
    if (!s.lang.empty()) a.emplace_back("lang", s.lang);
    return args_to_query(a);
  }
  for (auto& kv : query_to_key_values(page_query(s))) a.push_back(std::move(kv));
  if (s.tab != Tab::results) a.emplace_back("tab", tab_name(s.tab));
  if (!s.lang.empty()) a.emplace_back("lang", s.lang);
  if (!s.plan_gpu.empty()) a.emplace_back("plan-gpu", s.plan_gpu);
  if (!s.compare.empty()) {
    std::string list;
    for (const auto& c : s.compare) list += (list.empty() ? "" : ",") + c;
    a.emplace_back("compare", list);
  }
  return args_to_query(a);
}

Result<Model> resolve_model(const Catalog& catalog, const PageState& s) {
  return gpuplan::resolve_model(catalog, page_query(s));
}

}  // namespace gpuplan::web
