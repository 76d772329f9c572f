#include "ui/widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <utility>

#include "gpuplan/quantity.h"

namespace gpuplan::web {
namespace {

// The error under a number field whose text could not be read, by ImGui ID. Like ImGui's own
// widget state, it lives with the widgets rather than in the page model.
std::map<ImGuiID, std::string>& field_errors() {
  static std::map<ImGuiID, std::string> errors;
  return errors;
}

std::map<S, std::string>& marked_fields() {
  static std::map<S, std::string> marks;
  return marks;
}

}  // namespace

void mark_fields(const std::vector<LinkProblem>& problems) {
  auto& marks = marked_fields();
  marks.clear();
  for (const auto& p : problems) {
    S id;
    if (!control_of(p.key, id)) continue;
    const std::string text = p.used.empty() ? page_message(p.error)
                                            : format(tr(S::err_fell_back),
                                                     page_message(p.error).c_str(), p.used.c_str());
    marks[id] = text;
  }
}

ImVec4 color_ok() {
  return ImVec4(0.4f, 0.85f, 0.5f, 1.0f);
}
ImVec4 color_error() {
  return ImVec4(1.0f, 0.45f, 0.4f, 1.0f);
}
ImVec4 color_note() {
  return ImVec4(0.75f, 0.75f, 0.6f, 1.0f);
}
ImVec4 color_assumed() {
  return ImVec4(0.90f, 0.62f, 0.0f, 1.0f);
}  // Okabe-Ito orange

long days_of(const std::string& date) {
  int y = 0, m = 0, d = 0;
  if (std::sscanf(date.c_str(), "%d-%d-%d", &y, &m, &d) != 3) return 0;
  // Howard Hinnant's days_from_civil.
  y -= m <= 2;
  const long era = (y >= 0 ? y : y - 399) / 400;
  const long yoe = y - era * 400;
  const long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

long today_days() {
  return static_cast<long>(std::time(nullptr) / 86400);
}

void remember(UiActions& a, const std::string& name) {
  const ImVec2 p = ImGui::GetItemRectMin(), q = ImGui::GetItemRectMax();
  a.rects.push_back({name, {p.x / a.ratio, p.y / a.ratio, q.x / a.ratio, q.y / a.ratio}});
}

void same_line_if_fits(float width) {
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width <= right)
    ImGui::SameLine();
}

float radio_width(const std::string& label) {
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x +
         ImGui::CalcTextSize(label.c_str(), nullptr, true).x;
}

float small_button_width(const std::string& label) {
  return ImGui::CalcTextSize(label.c_str(), nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;
}

void error_text(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, color_error());
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

void band_rows_link(const ErrorBand& band, BandTable table, UiActions& a, const char* id) {
  ImGui::PushStyleColor(ImGuiCol_Text, color_note());
  ImGui::TextUnformatted(tr(S::band_rows_link));
  ImGui::PopStyleColor();
  if (ImGui::IsItemClicked()) a.platform.push_back("open-url/" + benchmarks_rows_url(band, table));
  remember(a, id);
}

void note_text(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, color_note());
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

void table_row(const char* label, const std::string& value) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(label);
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(value.c_str());
}

void cell_text(const std::string& text) {
  cell_text_width(text, ImGui::GetContentRegionAvail().x);
}

void cell_text_width(const std::string& text, float avail) {
  if (ImGui::CalcTextSize(text.c_str()).x <= avail) {
    ImGui::TextUnformatted(text.c_str());
    return;
  }
  const char* ellipsis = "...";
  const float room = avail - ImGui::CalcTextSize(ellipsis).x;
  size_t n = text.size();
  while (n > 0 && ImGui::CalcTextSize(text.c_str(), text.c_str() + n).x > room) {
    --n;
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80)
      --n;  // whole UTF-8 characters
  }
  ImGui::TextUnformatted((text.substr(0, n) + ellipsis).c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text.c_str());
}

namespace {
float g_label_column = 0;           // field_label's column in pixels; 0: 13 em
const char* g_label_tip = nullptr;  // next_label_tip's tooltip for the next label
std::vector<std::string> g_cut_labels;
}  // namespace

LabelColumnFit::LabelColumnFit(std::initializer_list<S> labels) : saved_(g_label_column) {
  float widest = ImGui::GetFontSize() * 13.0f - ImGui::GetStyle().ItemSpacing.x;
  for (S id : labels) widest = std::max(widest, ImGui::CalcTextSize(tr(id)).x);
  g_label_column =
      std::min(widest + ImGui::GetStyle().ItemSpacing.x, ImGui::GetContentRegionAvail().x * 0.5f);
}

LabelColumnFit::~LabelColumnFit() {
  g_label_column = saved_;
}

std::vector<std::string> take_cut_labels() {
  return std::exchange(g_cut_labels, {});
}

void next_label_tip(S tip) {
  g_label_tip = tr(tip);
}

void next_label_tip(const char* tip) {
  g_label_tip = tip;
}

void field_label(S id) {
  // Labels in a column before their fields, cut with an ellipsis (full text in a tooltip) when
  // longer; with less than the column and 14 em of room the field goes under its label instead.
  const float column = g_label_column > 0 ? g_label_column : ImGui::GetFontSize() * 13.0f;
  const bool beside = ImGui::GetContentRegionAvail().x >= column + ImGui::GetFontSize() * 14;
  const auto mark = marked_fields().find(id);
  if (mark != marked_fields().end()) error_text(mark->second);
  ImGui::AlignTextToFramePadding();
  if (mark != marked_fields().end()) ImGui::PushStyleColor(ImGuiCol_Text, color_error());
  if (beside) {
    const float x0 = ImGui::GetCursorPosX();
    const float room = column - ImGui::GetStyle().ItemSpacing.x;
    if (ImGui::CalcTextSize(tr(id)).x > room) {
      const std::string l = label(id);  // "text###id"
      g_cut_labels.push_back(l.substr(l.rfind('#') + 1));
    }
    cell_text_width(tr(id), room);
    ImGui::SameLine(x0 + column);
  } else {
    ImGui::TextUnformatted(tr(id));
  }
  if (g_label_tip && *g_label_tip && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", g_label_tip);
  g_label_tip = nullptr;
  if (mark != marked_fields().end()) ImGui::PopStyleColor();
  ImGui::SetNextItemWidth(-1.0f);
}

void forget_refused_numbers() {
  field_errors().clear();
}

bool input_quantity(S id, double& value, double min, double max, UiActions* a, const char* name) {
  field_label(id);
  const std::string imgui_id = "##" + label(id);
  const ImGuiID key = ImGui::GetID(imgui_id.c_str());
  // The text being typed, kept outside ImGui's widget: Tab moves the focus before the widget runs
  // again, so on that frame ImGui's own buffer no longer holds what was typed.
  static std::map<ImGuiID, std::string> typing;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s", format_number(value, 10).c_str());
  if (ImGui::InputTextWithHint(imgui_id.c_str(), tr(S::number_hint), buf, sizeof buf,
                               ImGuiInputTextFlags_AutoSelectAll)) {
    typing[key] = buf;
  }
  const auto pressed = [](ImGuiKey k) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k)); };
  const bool active = ImGui::IsItemActive();
  auto typed = typing.find(key);
  if (typed != typing.end() && !active && pressed(ImGuiKey_Escape)) {
    typing.erase(typed);  // Escape gives the field its value back, as ImGui shows it
    typed = typing.end();
  }
  // Enter, Tab and clicking away all commit what was typed.
  const bool commit = typed != typing.end() &&
                      (!active || pressed(ImGuiKey_Enter) || pressed(ImGuiKey_KeyPadEnter));
  if (a && name) remember(*a, name);
  auto& errors = field_errors();
  bool changed = false;
  if (commit) {
    const std::string text = typed->second;
    typing.erase(typed);
    auto x = parse_quantity(text);
    if (!x.ok() || !std::isfinite(x.value())) {
      errors[key] = format(tr(S::bad_number), text.c_str());
    } else if (x.value() < min || x.value() > max) {
      // Refused aloud, not clamped: the last good value keeps driving the results.
      errors[key] = format(tr(S::number_out_of_range), text.c_str(), format_number(min, 10).c_str(),
                           format_number(max, 10).c_str());
    } else {
      errors.erase(key);
      changed = x.value() != value;
      value = x.value();
    }
  }
  if (auto it = errors.find(key); it != errors.end()) error_text(it->second);
  return changed;
}

bool input_count(S id, int64_t& value, int64_t min, int64_t max, UiActions* a, const char* name) {
  double v = static_cast<double>(value);
  if (!input_quantity(id, v, static_cast<double>(min), static_cast<double>(max), a, name))
    return false;
  const int64_t rounded = static_cast<int64_t>(std::llround(v));
  if (rounded == value) return false;
  value = rounded;
  return true;
}

bool id_combo(S id, std::string& value, const std::vector<IdName>& items) {
  field_label(id);
  std::string shown = tr(S::any);
  for (const auto& it : items) {
    if (it.id == value) shown = it.name;
  }
  bool changed = false;
  if (ImGui::BeginCombo(("##" + label(id)).c_str(), shown.c_str(), ImGuiComboFlags_HeightLarge)) {
    if (ImGui::Selectable(tr(S::any), value.empty())) {
      changed = !value.empty();
      value.clear();
    }
    for (const auto& it : items) {
      if (ImGui::Selectable((it.name + "##" + it.id).c_str(), it.id == value)) {
        changed = it.id != value;
        value = it.id;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

std::vector<IdName> provider_items(const Catalog& catalog) {
  std::vector<IdName> out;
  for (const auto& p : catalog.providers) out.push_back({p.id, p.name.empty() ? p.id : p.name});
  return out;
}

std::vector<IdName> gpu_items(const Catalog& catalog) {
  std::vector<IdName> out;
  for (const auto& g : catalog.gpus) out.push_back({g.id, g.name});
  return out;
}

bool checkbox(S id, bool& value) {
  return ImGui::Checkbox(label(id).c_str(), &value);
}

S key_label(const std::string& key) {
  S id{};
  return control_of(key, id) ? id : S::key_unlabelled;
}

namespace {

// The row of an estimate/plan key, and its help in the page's language as the label's tooltip.
const QueryKey& query_row(const char* key) {
  const QueryKey* r = find_query_key(key);
  static const QueryKey none;
  return r ? *r : none;
}

template <class T>
const char* help_of(const KeyRow<T>& r) {
  return language() == Lang::zh ? r.help_zh : r.help_en;
}

}  // namespace

bool key_quantity(const char* key, double& value, UiActions& a, bool zero) {
  const QueryKey& r = query_row(key);
  next_label_tip(help_of(r));
  return input_quantity(key_label(key), value, zero ? 0.0 : r.min, r.max, &a, key);
}

bool key_count(const char* key, int64_t& value, UiActions& a, bool zero) {
  const QueryKey& r = query_row(key);
  next_label_tip(help_of(r));
  return input_count(key_label(key), value, zero ? 0 : static_cast<int64_t>(r.min),
                     static_cast<int64_t>(r.max), &a, key);
}

bool key_checkbox(const char* key, bool& value, UiActions& a) {
  const bool changed = ImGui::Checkbox(label(key_label(key)).c_str(), &value);
  if (ImGui::IsItemHovered() && *help_of(query_row(key)))
    ImGui::SetTooltip("%s", help_of(query_row(key)));
  remember(a, key);
  return changed;
}

bool key_choice(const char* key, Query& q, UiActions& a, const char* (*shown)(const std::string&),
                const char* rect) {
  const QueryKey& r = query_row(key);
  const S id = key_label(key);
  next_label_tip(help_of(r));
  field_label(id);
  auto words = [shown](const std::string& v) { return shown ? std::string(shown(v)) : v; };
  const std::string current = r.text ? r.text(q) : "";
  // The choices as messages list them, without a note in parentheses ("1.10, 1.11-1.13, 2.0+ (or
  // ...)").
  const std::string list = r.choices.substr(0, r.choices.find(" ("));
  bool changed = false;
  if (ImGui::BeginCombo(("##" + label(id)).c_str(), words(current).c_str())) {
    for (size_t start = 0; start < list.size();) {
      const size_t end = std::min(list.find(", ", start), list.size());
      const std::string v = list.substr(start, end - start);
      start = end + 2;
      if (ImGui::Selectable((words(v) + "##" + v).c_str(), v == current) && v != current)
        changed = !r.read(q, v);
    }
    ImGui::EndCombo();
  }
  remember(a, rect ? rect : key);
  return changed;
}

void key_tip(const char* key) {
  next_label_tip(help_of(query_row(key)));
}

bool serve_quantity(S id, const char* key, double& value, UiActions& a, const char* name) {
  const ServeKey* r = find_serve_key(key);
  if (r) next_label_tip(help_of(*r));
  return input_quantity(id, value, r ? r->min : 0, r ? r->max : 0, &a, name);
}

bool serve_count(S id, const char* key, int64_t& value, UiActions& a, const char* name) {
  const ServeKey* r = find_serve_key(key);
  if (r) next_label_tip(help_of(*r));
  return input_count(id, value, r ? static_cast<int64_t>(r->min) : 0,
                     r ? static_cast<int64_t>(r->max) : 0, &a, name);
}

}  // namespace gpuplan::web
