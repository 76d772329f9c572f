#include "model/page_state.h"

#include <algorithm>

namespace gpuplan::web {

const char* const kDefaultLink =
    "model=gpt2-small&batch=8&precision=amp-bf16&gpu=a100-sxm4-80gb&tokens=1000000000&"
    "max-nodes=8&top=20";
const char* const kDefaultServingLink =
    "rate=30&prompt-tokens=1500&output-tokens=300&ttft-ms=1000&tpot-ms=50";

namespace {

constexpr Tab kTabs[] = {Tab::results, Tab::plans, Tab::hardware, Tab::benchmarks, Tab::serving};

KeyRow<PageState> page_row(const char* name, KeyType type, std::string choices, const char* help_en,
                           const char* help_zh) {
  KeyRow<PageState> r;
  r.name = name;
  r.type = type;
  r.choices = std::move(choices);
  r.help_en = help_en;
  r.help_zh = help_zh;
  return r;
}

KeyRow<PageState> tab_row() {
  KeyRow<PageState> r =
      page_row("tab", KeyType::choice, "results, plans, hardware, benchmarks, serving",
               "the open tab", "打开的标签页");
  r.read = [](PageState& s, const std::string& v) -> std::optional<Error> {
    for (Tab t : kTabs) {
      if (v == tab_name(t)) {
        s.tab = t;
        return std::nullopt;
      }
    }
    return about_key(make_error(Errc::invalid_argument, Msg::query_not_one_of,
                                {"tab", v, "results, plans, hardware, benchmarks, serving"}),
                     "tab");
  };
  r.write = [](const PageState& s) -> std::optional<std::string> {
    if (s.tab == Tab::results) return std::nullopt;
    return tab_name(s.tab);
  };
  return r;
}

KeyRow<PageState> lang_row() {
  KeyRow<PageState> r =
      page_row("lang", KeyType::choice, "en, zh", "the page's language (absent: the browser's)",
               "页面语言（缺省：浏览器的）");
  r.read = [](PageState& s, const std::string& v) -> std::optional<Error> {
    if (v != "en" && v != "zh") {
      return about_key(
          make_error(Errc::invalid_argument, Msg::query_not_one_of, {"lang", v, "en, zh"}), "lang");
    }
    s.lang = v;
    return std::nullopt;
  };
  r.write = [](const PageState& s) -> std::optional<std::string> {
    if (s.lang.empty()) return std::nullopt;
    return s.lang;
  };
  return r;
}

// "a,b,c" -> {"a", "b", "c"} (at most `most`: 4, the compare view's limit).
std::vector<std::string> split_list(const std::string& v, size_t most = 4) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= v.size() && out.size() < most) {
    const size_t comma = std::min(v.find(',', start), v.size());
    if (comma > start) out.push_back(v.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::string join_list(const std::vector<std::string>& items) {
  std::string list;
  for (const auto& c : items) list += (list.empty() ? "" : ",") + c;
  return list;
}

KeyRow<PageState> compare_row() {
  KeyRow<PageState> compare =
      page_row("compare", KeyType::list, "", "Plans: up to 4 plans side by side (instance*nodes)",
               "方案：并排比较的方案，最多 4 个（实例*节点数）");
  compare.read = [](PageState& s, const std::string& v) -> std::optional<Error> {
    s.compare = split_list(v);
    return std::nullopt;
  };
  compare.write = [](const PageState& s) -> std::optional<std::string> {
    if (s.compare.empty()) return std::nullopt;
    return join_list(s.compare);
  };
  return compare;
}

// The Serving tab's comparison: `gpuplan serve` takes one --gpu, so the list is the page's own.
KeyRow<PageState> serve_compare_row() {
  KeyRow<PageState> r =
      page_row("serve-compare", KeyType::list, "",
               "Serving: up to 6 GPUs or instances compared side by side (catalog ids)",
               "推理服务：并排比较的 GPU 或实例，最多 6 个（目录中的标识）");
  r.read = [](PageState& s, const std::string& v) -> std::optional<Error> {
    s.serve_compare = split_list(v, kServeCompareMax);
    return std::nullopt;
  };
  r.write = [](const PageState& s) -> std::optional<std::string> {
    if (s.serve_compare.empty()) return std::nullopt;
    return join_list(s.serve_compare);
  };
  return r;
}

bool is_page_key(const std::string& key) {
  const auto& rows = page_key_rows();
  return std::any_of(rows.begin(), rows.end(), [&](const auto& r) { return key == r.name; });
}

// Reads `args` with `parse`; a key it rejects is noted, dropped, and the rest read again, so one
// bad value keeps every other field.
template <class T, class Parse>
T lenient(Args args, Parse parse, std::vector<LinkProblem>& problems) {
  for (size_t tries = 0; tries <= args.size(); ++tries) {
    Result<T> r = parse(args);
    if (r.ok()) return r.value();
    const std::string key = r.error().key;
    const auto it =
        std::find_if(args.begin(), args.end(), [&](const auto& kv) { return kv.first == key; });
    problems.push_back({key, r.error(), ""});
    if (key.empty() || it == args.end()) break;
    args.erase(it);
  }
  return T{};
}

const PageState& defaults() {
  static const PageState* d = new PageState(default_page_state());
  return *d;
}

// A serving link: its keys are `gpuplan serve`'s, so what it leaves out takes the CLI's
// defaults, but for a link with none of them (tab=serving alone), which opens the default
// serving link. The calculator keeps the default link, with the serving link's model.
void read_serving_link(const Args& core_args, ParsedLink& out) {
  const bool any = std::any_of(core_args.begin(), core_args.end(),
                               [](const auto& kv) { return kv.first != "model"; });
  ServeRequest r = lenient<ServeRequest>(core_args, parse_serve_request, out.problems);
  out.state.query = defaults().query;
  if (!r.model.empty()) out.state.query.request.model = r.model;
  r.model.clear();
  if (!any) r = defaults().serve;
  if (r.rate_per_s <= 0) {
    // The CLI requires the peak rate: a link without one is noted and opens with the default's.
    r.rate_per_s = defaults().serve.rate_per_s;
    out.problems.push_back(
        {"rate", about_key(make_error(Errc::invalid_argument, Msg::link_rate_required, {}), "rate"),
         ""});
  }
  out.state.serve = r;
  out.state.tab = Tab::serving;
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

const std::vector<KeyRow<PageState>>& page_key_rows() {
  static const std::vector<KeyRow<PageState>> rows = [] {
    std::vector<KeyRow<PageState>> all = {tab_row(), lang_row()};
    all.push_back(compare_row());
    all.push_back(serve_compare_row());
    return all;
  }();
  return rows;
}

PageState default_page_state() {
  PageState s;
  s.query = parse_query_string(kDefaultLink).value();
  s.serve = parse_serve_request(query_to_args(kDefaultServingLink).value()).value();
  return s;
}

bool is_serving_link(const Args& args) {
  return std::any_of(args.begin(), args.end(), [&](const auto& kv) {
    if (kv.first == "tab") return kv.second == tab_name(Tab::serving);
    return find_serve_key(kv.first) && !find_query_key(kv.first);
  });
}

ParsedLink page_state_from_link(const std::string& query) {
  ParsedLink out{defaults(), {}};
  auto args = query_to_args(query);
  if (!args.ok()) {
    out.problems.push_back({"", args.error(), ""});
    return out;
  }
  Args core_args;
  for (const auto& kv : args.value()) {
    if (!is_page_key(kv.first)) {
      if (kv.first != "v" || check_schema_version(kv.second)) core_args.push_back(kv);
      continue;
    }
    if (auto err = read_keys(page_key_rows(), {kv}, out.state))
      out.problems.push_back({kv.first, *err, ""});
  }
  if (is_serving_link(args.value())) {
    // The page has one currency, the calculator's: a serving link's `currency` (gpuplan serve
    // --currency) is read into it, as the serving link's model is.
    const QueryKey* currency = find_query_key("currency");
    const auto c = std::find_if(core_args.begin(), core_args.end(),
                                [](const auto& kv) { return kv.first == "currency"; });
    std::string currency_value;
    if (c != core_args.end()) {
      currency_value = c->second;
      core_args.erase(c);
    }
    read_serving_link(core_args, out);
    if (!currency_value.empty()) {
      if (auto err = currency->read(out.state.query, currency_value))
        out.problems.push_back({"currency", *err, ""});
    }
  } else if (!core_args.empty()) {
    // Keys the link leaves out are the core's defaults, as on the command line.
    out.state.query = lenient<Query>(core_args, parse_query, out.problems);
  }
  return out;
}

std::string page_link(const PageState& s, bool chinese) {
  std::string link = page_state_to_query(s);
  if (chinese && s.query.currency == "USD" && !link_states_currency(link)) link += "&currency=usd";
  return link;
}

bool link_states_currency(const std::string& query) {
  auto args = query_to_args(query);
  return args.ok() && std::any_of(args.value().begin(), args.value().end(),
                                  [](const auto& kv) { return kv.first == "currency"; });
}

Result<PageState> page_state_from_query(const std::string& query) {
  ParsedLink link = page_state_from_link(query);
  if (!link.problems.empty()) return link.problems.front().error;
  return link.state;
}

std::string page_state_to_query(const PageState& s) {
  // The link's format version first; links written before it had none and still open.
  Args a = {{"v", std::to_string(kQuerySchemaVersion)}};
  if (s.tab == Tab::serving) {
    // `gpuplan serve`'s options and the page's own keys (is_serving_link).
    ServeRequest r = s.serve;
    r.model = s.query.request.model;
    r.currency = s.query.currency;
    for (auto& kv : serve_request_to_key_values(r)) a.push_back(std::move(kv));
  } else {
    for (auto& kv : query_to_key_values(s.query)) a.push_back(std::move(kv));
  }
  for (auto& kv : write_keys(page_key_rows(), s)) a.push_back(std::move(kv));
  return args_to_query(a);
}

}  // namespace gpuplan::web
