#pragma once
// The page's state is its link. The calculator's question is the core's Query (the keys of
// `gpuplan estimate` and `plan`), the Serving tab's is `gpuplan serve`'s ServeRequest, both read
// and written by the core's key table (gpuplan/keys.h); the page adds its own keys (the open tab,
// the language, the Plans GPU filter, the plans compared and the Serving tab's GPUs compared) as
// rows of the same kind. A key a link leaves out means the core's default, as it does on the
// command line; a page with no link opens the default link, written in full.

#include <string>
#include <vector>

#include "gpuplan/keys.h"
#include "gpuplan/query.h"
#include "gpuplan/request.h"

namespace gpuplan::web {

enum class Tab { results, plans, hardware, benchmarks, serving };
const char* tab_name(Tab t);

struct PageState {
  Query query;         // estimate and plan keys: what evaluate() and the planner take
  ServeRequest serve;  // the Serving tab's keys; its model is query.request.model
  // The page's own keys (page_key_rows).
  Tab tab = Tab::results;
  std::string lang;  // "en" or "zh" when the link names a language; "" = the browser's
  std::vector<std::string> compare;  // Plans: up to 4 plans side by side, "instance*nodes"
  // Serving: GPUs or instances (catalog ids) compared side by side, at most kServeCompareMax.
  std::vector<std::string> serve_compare;
};

// The most GPUs or instances the Serving tab compares in one run.
inline constexpr size_t kServeCompareMax = 6;

// The page's own keys: tab, lang, compare, serve-compare.
const std::vector<KeyRow<PageState>>& page_key_rows();

// What the page opens when the URL carries no state (GPT-2 small, AMP bf16, batch 8 on one A100
// 80 GB for a billion tokens, plans up to 8 nodes, 20 shown), written in full as a link: the keys
// whose values differ from the core's defaults, in the key table's order.
extern const char* const kDefaultLink;
// The Serving tab's: 30 requests/s of 1,500-token prompts and 300-token answers, first token
// within 1 s and 50 ms per token after (the example of issue 14).
extern const char* const kDefaultServingLink;
// The state both default links give.
PageState default_page_state();

// A link is a serving link when it opens the Serving tab or has a key only `gpuplan serve`
// takes (rate, prompt-tokens, ...). Its keys are then exactly `gpuplan serve`'s options (plus
// the page's own): the model is shared with the calculator, which keeps the default link.
bool is_serving_link(const Args& args);

// A key of a link that could not be used, and the message saying why.
struct LinkProblem {
  std::string key;   // "" when the link as a whole is malformed
  Error error;       // the core's, e.g. "--batch: -5 is out of range [1, 100000000]" (English)
  std::string used;  // what the page uses instead ("" when the link as a whole failed)
};

// A link read leniently: every good key is kept; each bad one is left out (so it takes the
// core's default) and noted. The keys are read by the core's key table (the CLI's keys, bounds
// and messages); a key it rejects (Error::key) is dropped and the rest read again.
struct ParsedLink {
  PageState state;
  std::vector<LinkProblem> problems;
};
ParsedLink page_state_from_link(const std::string& query);

// The link of a state on a page shown in Chinese or not: a Chinese page reads a link that names
// no currency as CNY (App::load_query), so there a state in USD writes `currency=usd`.
std::string page_link(const PageState& s, bool chinese);

// Whether a link names its currency (`currency=usd|cny`); a Chinese page shows CNY when it does
// not (App::load_query).
bool link_states_currency(const std::string& query);

// URL query <-> state, strictly: the first bad key gives an Error naming it.
Result<PageState> page_state_from_query(const std::string& query);
std::string page_state_to_query(const PageState& s);

}  // namespace gpuplan::web
