#include "model/i18n.h"

#include <cmath>
#include <cstdarg>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "gpuplan/report.h"

namespace gpuplan::web {
namespace {

struct Entry {
  const char* id;
  const char* text[2];
};

const Entry kTable[] = {
#define X(id, en, zh) {#id, {en, zh}},
#include "model/strings.inc"
#undef X
};
static_assert(sizeof kTable / sizeof kTable[0] == static_cast<size_t>(S::count_),
              "one entry per id");

Lang g_lang = Lang::en;

// "1234567" -> "1,234,567" (digits only, no sign).
std::string group_digits(const std::string& digits) {
  std::string out;
  const size_t n = digits.size();
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

void set_language(Lang lang) {
  g_lang = lang;
}
Lang language() {
  return g_lang;
}

Lang lang_from_code(const std::string& code) {
  return code.size() >= 2 && (code[0] == 'z' || code[0] == 'Z') &&
                 (code[1] == 'h' || code[1] == 'H') &&
                 (code.size() == 2 || code[2] == '-' || code[2] == '_')
             ? Lang::zh
             : Lang::en;
}

const char* lang_code(Lang lang) {
  return lang == Lang::zh ? "zh" : "en";
}

const char* tr(S id, Lang lang) {
  return kTable[static_cast<int>(id)].text[lang == Lang::zh ? 1 : 0];
}
const char* tr(S id) {
  return tr(id, g_lang);
}

std::string label(S id) {
  return std::string(tr(id)) + "###" + kTable[static_cast<int>(id)].id;
}

const char* tr_mode(Mode m) {
  return tr(m == Mode::train ? S::mode_train : S::mode_infer);
}

const char* tr_checkpointing(Checkpointing c) {
  switch (c) {
    case Checkpointing::none:
      return tr(S::ckpt_none);
    case Checkpointing::selective:
      return tr(S::ckpt_selective);
    case Checkpointing::full:
      return tr(S::ckpt_full);
    case Checkpointing::op_selective:
      return tr(S::ckpt_op_selective);
    case Checkpointing::every_k_layers:
      return tr(S::ckpt_every_k);
    case Checkpointing::block:
      return tr(S::ckpt_block);
  }
  return tr(S::ckpt_none);
}

const char* tr_torch_release(TorchRelease r) {
  return tr(r == TorchRelease::v1_10_or_earlier ? S::release_1_10
            : r == TorchRelease::v1_11_to_1_13  ? S::release_1_11
                                                : S::release_current);
}
const char* tr_optimizer_loop(OptimizerLoop l) {
  return tr(l == OptimizerLoop::for_loop ? S::loop_for_loop : S::loop_foreach);
}

const char* tr_attention_reason(AttentionReason r) {
  switch (r) {
    case AttentionReason::given:
    case AttentionReason::sdpa:
      return tr(S::attention_why_sdpa);
    case AttentionReason::not_16bit:
      return tr(S::attention_why_not_16bit);
    case AttentionReason::before_torch_2:
      return tr(S::attention_why_torch);
    case AttentionReason::relative_positions:
      return tr(S::attention_why_relative);
    case AttentionReason::model_default:
      return tr(S::attention_why_model);
  }
  return tr(S::attention_why_sdpa);
}

const char* tr_attention(Attention a) {
  switch (a) {
    case Attention::automatic:
      return tr(S::auto_choice);
    case Attention::eager:
      return tr(S::attn_eager);
    case Attention::flash:
      return tr(S::attn_flash);
    case Attention::flash3:
    case Attention::cudnn:
    case Attention::triton:
    case Attention::flash1:
      return attention_name(a);  // kernel names, the same in every language
  }
  return tr(S::auto_choice);
}

const char* tr_memory_format(MemoryFormat f) {
  switch (f) {
    case MemoryFormat::automatic:
      return tr(S::auto_choice);
    case MemoryFormat::nchw:
      return tr(S::fmt_nchw);
    case MemoryFormat::channels_last:
      return tr(S::fmt_channels_last);
  }
  return tr(S::auto_choice);
}

const char* tr_pricing(Pricing p) {
  switch (p) {
    case Pricing::on_demand:
      return tr(S::price_on_demand);
    case Pricing::monthly:
      return tr(S::price_monthly);
    case Pricing::reserved_1y:
      return tr(S::price_reserved_1y);
    case Pricing::reserved_3y:
      return tr(S::price_reserved_3y);
    case Pricing::bulk:
      return tr(S::price_bulk);
    case Pricing::spot:
      return tr(S::price_spot);
  }
  return tr(S::price_on_demand);
}

std::string format(const char* f, ...) {
  char buf[1024];
  va_list args;
  va_start(args, f);
  std::vsnprintf(buf, sizeof buf, f, args);
  va_end(args);
  return buf;
}

std::string format_count(double n) {
  if (!std::isfinite(n)) return "-";
  const double a = std::fabs(n);
  // Chinese counts large numbers in 万 (1e4) and 亿 (1e8).
  if (g_lang == Lang::zh && a >= 1e8) return format_number(n / 1e8, 4) + " " + tr(S::count_1e8);
  if (g_lang == Lang::zh && a >= 1e5) return format_number(n / 1e4, 4) + " " + tr(S::count_1e4);
  return format_number(std::round(n), 16);
}

std::string format_number(double x, int digits) {
  if (!std::isfinite(x)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, x);
  std::string s = buf;
  // %g switches to exponents past `digits`: print whole numbers in full instead.
  if (s.find('e') != std::string::npos && std::fabs(x) < 1e18) {
    const double rounded = std::stod(s);
    std::snprintf(buf, sizeof buf, "%.0f", rounded);
    s = buf;
  }
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) s.erase(0, 1);
  const size_t dot = s.find('.');
  const std::string whole = s.substr(0, dot), frac = dot == std::string::npos ? "" : s.substr(dot);
  return (negative ? "-" : "") + group_digits(whole) + frac;
}

std::string format_duration(double hours) {
  if (hours < 1.0 / 60) return format_number(hours * 3600, 3) + " " + tr(S::unit_s);
  if (hours < 1) return format_number(hours * 60, 3) + " " + tr(S::unit_min);
  if (hours < 48) return format_number(hours, 3) + " " + tr(S::unit_h);
  return format_number(hours / 24, 3) + " " + tr(S::unit_days);
}

namespace {

Money g_money;

// "1234.5" -> "1,235", "12.345" -> "12.35": whole units from 100 up, cents below.
std::string amount_text(double amount) {
  char buf[64];
  std::snprintf(buf, sizeof buf, std::fabs(amount) >= 100 ? "%.0f" : "%.2f", amount);
  std::string s = buf;
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) s.erase(0, 1);
  const size_t dot = s.find('.');
  return (negative ? "-" : "") + group_digits(s.substr(0, dot)) +
         (dot == std::string::npos ? "" : s.substr(dot));
}

}  // namespace

std::string format_usd(double usd) {
  return amount_text(usd) + " " + tr(S::unit_usd);
}

Result<Money> money_for(const std::string& currency, const PricingRules& rules) {
  // The CLI's shown currency (serve --currency): one rate for every amount on the page.
  auto shown = shown_currency(currency, rules);
  if (!shown.ok()) return shown.error();
  Money m;
  m.currency = shown.value().currency;
  m.usd_per_unit = shown.value().usd_per_unit;
  m.rate_source = shown.value().rate_source.title;
  return m;
}

void set_money(const Money& money) {
  g_money = money;
}
const Money& money() {
  return g_money;
}

double usd_to_shown(double usd) {
  return usd / g_money.usd_per_unit;
}
double shown_to_usd(double amount) {
  return amount * g_money.usd_per_unit;
}

std::string format_cny(const std::string& number) {
  // A minus sign goes before the yen sign: "-¥12.50".
  const bool negative = !number.empty() && number[0] == '-';
  return (negative ? "-" : "") + format(tr(S::amount_cny), number.c_str() + (negative ? 1 : 0));
}

std::string format_shown(double amount) {
  if (g_money.currency == "CNY") return format_cny(amount_text(amount));
  return amount_text(amount) + " " + tr(S::unit_usd);
}

std::string format_money(double usd) {
  return format_shown(usd_to_shown(usd));
}

std::string format_price(double usd, const PriceQuote& q) {
  if (g_money.currency != "USD" || q.currency != "CNY" || q.usd_per_cny <= 0)
    return format_money(usd);
  return format_usd(usd) + " (" + format_cny(format_number(usd / q.usd_per_cny, 4)) + ")";
}

S money_label(S usd_label) {
  if (g_money.currency != "CNY") return usd_label;
  switch (usd_label) {
    case S::col_usd:
      return S::col_cny;
    case S::col_usd_h:
      return S::col_cny_h;
    case S::axis_cost:
      return S::axis_cost_cny;
    case S::key_budget_usd:
      return S::key_budget_cny;
    case S::col_month_fixed:
      return S::col_month_fixed_cny;
    case S::col_month_auto:
      return S::col_month_auto_cny;
    case S::col_per_mtok:
      return S::col_per_mtok_cny;
    default:
      return usd_label;
  }
}

std::string price_date(const PriceQuote& q) {
  if (q.date_known) return q.date;
  // PriceQuote::date is "date unknown" or "date unknown, retrieved YYYY-MM-DD" (Price::date_label).
  const std::string marker = "retrieved ";
  const size_t at = q.date.find(marker);
  if (at == std::string::npos) return tr(S::date_unknown);
  return format(tr(S::date_unknown_retrieved), q.date.substr(at + marker.size()).c_str());
}

std::string price_basis(const PriceQuote& q, Pricing pricing, const std::string& provider) {
  if (g_lang == Lang::en) return q.basis;
  // quote_price (cost.cpp) writes "published <kind> price", or for rule "seed-guide-<kind>-<pct>"
  // "on-demand - <pct> % (...)", then "; whether <provider> sells <kind> is not known" when the
  // provider's offer is not in the catalog.
  const char* kind = tr_pricing(pricing);
  if (!q.assumption) return format(tr(S::basis_published_kind), kind);
  const std::string pct = q.rule.substr(q.rule.rfind('-') + 1);
  std::string out = format(tr(S::basis_rule_kind), pct.c_str(), kind);
  if (q.basis.find("; whether ") != std::string::npos)
    out += format(tr(S::basis_offer_unknown), provider.c_str(), kind);
  return out;
}

std::string region_text(const std::string& region) {
  for (S word : {S::region_various, S::region_unspecified, S::region_north_america,
                 S::region_europe, S::region_global})
    if (region == tr(word, Lang::en)) return tr(word);
  return region;
}

std::string model_name(const std::string& core_name) {
  // hf_config.cpp names an uploaded model "<name> (<model_type>, uploaded config)" (llama4: its
  // own words for the type); <model_type> has no " (".
  const std::string suffix = ", uploaded config)";
  const size_t open = core_name.rfind(" (");
  if (open == std::string::npos || core_name.size() < open + 2 + suffix.size() ||
      core_name.compare(core_name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return core_name;
  std::string type = core_name.substr(open + 2, core_name.size() - suffix.size() - open - 2);
  if (type == tr(S::llama4_text_model, Lang::en)) type = tr(S::llama4_text_model);
  return format(tr(S::model_remark), core_name.substr(0, open).c_str(),
                format(tr(S::uploaded_config), type.c_str()).c_str());
}

std::string model_name(const Model& model) {
  if (g_lang == Lang::zh && !model.name_zh.empty()) return model.name_zh;
  return model_name(model.name);
}

namespace {

// Whether `text` reads as the English template `templ` from templ[t] and text[x] on, each {N}
// standing for a non-empty value (the shortest that lets the rest match); the values land in
// `args`. Notes are one line of a few placeholders, so trying each length is cheap.
bool match_from(const std::string& templ, size_t t, const std::string& text, size_t x,
                std::vector<std::string>& args) {
  while (t < templ.size()) {
    size_t end = t + 1;
    while (end < templ.size() && std::isdigit(static_cast<unsigned char>(templ[end]))) ++end;
    if (templ[t] == '{' && end > t + 1 && end < templ.size() && templ[end] == '}') {
      const auto slot = static_cast<size_t>(std::stoi(templ.substr(t + 1, end - t - 1)));
      if (args.size() <= slot) args.resize(slot + 1);
      for (size_t len = 1; x + len <= text.size(); ++len) {
        args[slot] = text.substr(x, len);
        if (match_from(templ, end + 1, text, x + len, args)) return true;
      }
      return false;
    }
    if (x >= text.size() || templ[t] != text[x]) return false;
    ++t;
    ++x;
  }
  return x == text.size();
}

}  // namespace

bool match_note(const std::string& templ, const std::string& text, std::vector<std::string>& args) {
  args.clear();
  return match_from(templ, 0, text, 0, args);
}

namespace {

// A core error's English message kept inside a note or another error (the calibrated time's
// failure, the drafter's): the table's Chinese for the core message it reads as, its values
// kept; else as it is.
std::string nested_message(const std::string& english) {
  if (g_lang != Lang::zh) return english;
  std::vector<std::string> args;
  for (int i = 0; i < static_cast<int>(S::count_); ++i) {
    if (std::strncmp(kTable[i].id, "core_", 5) == 0 && match_note(kTable[i].text[0], english, args))
      return render_message(tr(static_cast<S>(i), Lang::zh), args);
  }
  return english;
}

}  // namespace

std::string core_note(const std::string& note) {
  std::vector<std::string> args;
  for (int i = 0; i < static_cast<int>(S::count_); ++i) {
    if (std::strncmp(kTable[i].id, "note_", 5) != 0 || !match_note(kTable[i].text[0], note, args))
      continue;
    if (static_cast<S>(i) == S::note_calibrated_time) args[0] = nested_message(args[0]);
    return page_message(render_message(tr(static_cast<S>(i)), args));
  }
  return page_message(note);
}

std::string format_rate_bytes(double bytes_per_s) {
  return format_number(bytes_per_s / 1e9, 4) + " GB/s";
}
std::string format_watts(double watts) {
  return format_number(watts, 4) + " W";
}

bool control_of(const std::string& key, S& id) {
  // The control of key `batch` is the string table's entry key_batch ('-' as '_').
  std::string name = "key_" + (key.rfind("--", 0) == 0 ? key.substr(2) : key);
  for (char& c : name) c = c == '-' ? '_' : c;
  for (int i = 0; i < static_cast<int>(S::count_); ++i) {
    if (name == kTable[i].id) {
      id = static_cast<S>(i);
      return true;
    }
  }
  return false;
}

std::string page_message(const std::string& core_message) {
  // Every "--flag" the core names (at the start, "--batch: ...", or inside, "not divisible by
  // --dp x --micro-batch") becomes the control's label when the page has one: the whole name,
  // letters, digits and '-' ("--seq" is not the start of "--sequence").
  std::string out;
  size_t i = 0;
  while (i < core_message.size()) {
    if (core_message.compare(i, 2, "--") == 0) {
      size_t end = i + 2;
      while (
          end < core_message.size() &&
          (std::isalnum(static_cast<unsigned char>(core_message[end])) || core_message[end] == '-'))
        ++end;
      S control{};
      if (end > i + 2 && control_of(core_message.substr(i + 2, end - i - 2), control)) {
        out += tr(money_label(control));  // --budget-usd: the budget in the page's currency
        i = end;
        continue;
      }
    }
    out += core_message[i++];
  }
  return out;
}

bool core_message_string(Msg id, S& out) {
  // Index from message to table entry, built once by name.
  static const std::vector<int> index = [] {
    const auto& specs = message_specs();
    std::vector<int> v(specs.size(), -1);
    for (size_t m = 0; m < specs.size(); ++m) {
      std::string name = std::string("core_") + specs[m].id;
      for (char& c : name) c = c == '.' ? '_' : c;
      for (int i = 0; i < static_cast<int>(S::count_); ++i) {
        if (name == kTable[i].id) v[m] = i;
      }
    }
    return v;
  }();
  const auto m = static_cast<size_t>(id);
  if (m >= index.size() || index[m] < 0) return false;
  out = static_cast<S>(index[m]);
  return true;
}

std::string page_message(const Error& error) {
  // The planner's cheapest cost is in USD, the core's currency: the page states it in its own.
  if (error.id == Msg::plan_budget_binds && error.args.size() == 1) {
    const double usd = std::strtod(error.args[0].c_str(), nullptr);
    return page_message(render_message(tr(S::budget_binds_shown), {format_money(usd)}));
  }
  S entry{};
  if (g_lang == Lang::zh && core_message_string(error.id, entry)) {
    std::vector<std::string> args = error.args;
    if (error.id == Msg::serve_drafter_cannot_run && args.size() == 2)
      args[1] = nested_message(args[1]);
    return page_message(render_message(tr(entry, Lang::zh), args));
  }
  return page_message(error.message);
}

}  // namespace gpuplan::web
