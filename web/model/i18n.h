#pragma once
// The page's languages: one string table (strings.inc, English and Simplified Chinese), number,
// duration and money formatting per language, and translation of the core's known messages
// (the core and the CLI keep English; the page maps messages it knows to ids). No ImGui here.

#include <string>
#include <vector>

#include "gpuplan/cost.h"
#include "gpuplan/estimate.h"
#include "gpuplan/result.h"

namespace gpuplan::web {

enum class Lang { en, zh };

// One id per string of the table.
enum class S : int {
#define X(id, en, zh) id,
#include "model/strings.inc"
#undef X
  count_
};

// The language the page shows (set by the App before each frame).
void set_language(Lang lang);
Lang language();
// "zh" and "zh-*" (zh-CN, zh-Hans, ...) mean Chinese; anything else English.
Lang lang_from_code(const std::string& code);
const char* lang_code(Lang lang);

// The string in the current language, and the same with a language-independent ImGui ID
// ("text###id") so a widget keeps its state when the language changes.
const char* tr(S id);
const char* tr(S id, Lang lang);
std::string label(S id);

// Enum values as shown in combos.
const char* tr_mode(Mode m);
const char* tr_checkpointing(Checkpointing c);
const char* tr_attention(Attention a);
const char* tr_attention_reason(AttentionReason r);  // why "auto" resolved as it did
const char* tr_optimizer_loop(OptimizerLoop l);
const char* tr_torch_release(TorchRelease r);
const char* tr_memory_format(MemoryFormat f);
const char* tr_pricing(Pricing p);

// printf into a std::string (format strings come from the table).
std::string format(const char* f, ...) __attribute__((format(printf, 1, 2)));
// A count with thousands separators ("124,439,808"); in Chinese, 万 and 亿 above 1e5.
std::string format_count(double n);
// A real number to `digits` significant digits with thousands separators ("2,000,000", "1.5").
std::string format_number(double x, int digits = 4);
// A duration in hours as seconds, minutes, hours or days (tables and charts agree).
std::string format_duration(double hours);
// Money: "12.34 USD" ("1,234 USD" from 100 up), always in USD.
std::string format_usd(double usd);

// The currency the page shows money in (the link's `currency`, the CLI's --currency) and the one
// rate that converts every amount of the page: USD per unit (1 for USD; for CNY
// pricing_rules.json's sourced usd_per_cny, the rate `gpuplan --currency cny` uses where a price
// has none of its own). The core computes and ranks in USD; amounts are converted only when shown,
// by this one factor, so an order never changes with the currency.
struct Money {
  std::string currency = "USD";  // "USD" or "CNY"
  double usd_per_unit = 1;
  std::string rate_source;  // the rate's source title ("" for USD)
};
// The Money of `currency` ("USD"/"usd" or "CNY"/"cny") with the catalog's rate; an error naming
// pricing_rules.json when CNY has no rate, or for another currency.
Result<Money> money_for(const std::string& currency, const PricingRules& rules);
// The page's Money (set by the App before each frame, as the language).
void set_money(const Money& money);
const Money& money();
// An amount in USD in the page's currency, and back (a budget typed in CNY).
double usd_to_shown(double usd);
double shown_to_usd(double amount);
// A number (already written with its separators) as an amount in CNY in the page's language:
// "1,234.5 CNY" in English, "¥1,234.5" in Chinese.
std::string format_cny(const std::string& number);
// An amount already in the page's currency: "88.60 CNY" ("1,235 CNY" from 100 up; "¥88.60" on
// the Chinese page).
std::string format_shown(double amount);
// An amount in USD shown in the page's currency: format_shown(usd_to_shown(usd)).
std::string format_money(double usd);
// A price in USD in the page's currency; in USD, with the provider's CNY beside it when it sells
// in CNY ("12.34 USD (88.6 CNY)").
std::string format_price(double usd, const PriceQuote& q);
// A label that names USD ("USD/h", "Budget in USD") as its twin in the page's currency.
S money_label(S usd_label);
// The date of a price in the page's language: its date, or "date unknown, retrieved ..." (the
// core writes PriceQuote::date in English) in the page's words.
std::string price_date(const PriceQuote& q);
// How a price was found (PriceQuote::basis, the core's English) in the page's language: published,
// or the seed guide's rule applied to the on-demand price, and whether `provider` sells `pricing`
// is unknown.
std::string price_basis(const PriceQuote& q, Pricing pricing, const std::string& provider);
// A price's region in the page's language: the catalog's words for no one region ("various",
// "unspecified", "north-america", "europe") translated, a provider's region id as it is.
std::string region_text(const std::string& region);
// A model's name in the page's language: an uploaded config's remark ("<name> (qwen2, uploaded
// config)", the core's English) in the page's words.
std::string model_name(const std::string& core_name);
// A model's name in the page's language: a zoo model's name_zh on the Chinese page (its remark in
// Chinese: "GLM-4.5（MoE 模型）"), otherwise model_name(model.name).
std::string model_name(const Model& model);
// A note of the core (estimate, step time, planner, serving, calibration) in the page's words: a
// note the table knows by its English text (note_* entries, which check_strings.py finds in
// core/src) in the page's language, any other as the core wrote it; then flags become control
// names. An entry's {0}, {1}, ... stand for the values the core writes into a note (a GPU, a
// count), kept as they are in the translation.
std::string core_note(const std::string& note);
// Whether `text` reads as the English template `templ` ({N} matching any non-empty value, the
// shortest that lets the rest match); `args` gets the values by N.
bool match_note(const std::string& templ, const std::string& text, std::vector<std::string>& args);

// Bandwidth in GB/s and power in W, with separators.
std::string format_rate_bytes(double bytes_per_s);
std::string format_watts(double watts);

// The page control a link key or CLI flag sets ("batch" or "--batch" -> S::key_batch).
bool control_of(const std::string& key, S& id);

// A core error message in the page's words: CLI flags become the page's control names.
std::string page_message(const std::string& core_message);
// A core error in the page's language: in Chinese, the table's template for the error's id
// filled with its values; else (English, or no id) the core's English message. Then flags
// become control names, as above.
std::string page_message(const Error& error);
// The table's entry for a core message id (core_<id>, '.' as '_'); false when it has none.
bool core_message_string(Msg id, S& out);

}  // namespace gpuplan::web
