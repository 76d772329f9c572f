#pragma once
// Small ImGui helpers shared by the screens: labels before fields, number fields that read what
// people type, enum combos, coloured messages, table rows, and recording a widget's rectangle
// for tests. Every text comes from the string table (i18n.h).

#include <imgui.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "model/i18n.h"
#include "model/page_model.h"

namespace gpuplan::web {

// Colours with a meaning, shared by text, tables and charts.
ImVec4 color_ok();       // fits, valid
ImVec4 color_error();    // does not fit, errors
ImVec4 color_note();     // notes
ImVec4 color_assumed();  // assumed prices (not "fits" green)

// Days since 1970-01-01 of a YYYY-MM-DD date (0 when malformed), and of today.
long days_of(const std::string& date);
long today_days();

// Records the last widget's rectangle under `name` (published for tests and clicks).
void remember(UiActions& a, const std::string& name);

// Keeps the next item on the line of the last one when `width` px of it still fit in the pane;
// otherwise it starts the next line (a phone's narrow pane).
void same_line_if_fits(float width);
// The width of a radio button and of a small button labelled `label` ("text##id").
float radio_width(const std::string& label);
float small_button_width(const std::string& label);

// Under a band's line: the link to the Benchmarks rows it rests on (remembered under `id`).
void band_rows_link(const ErrorBand& band, BandTable table, UiActions& a, const char* id);

void error_text(const std::string& text);
void note_text(const std::string& text);
void table_row(const char* label, const std::string& value);
// Text cut to the column's width with an ellipsis; the full text in a tooltip when cut.
void cell_text(const std::string& text);
void cell_text_width(const std::string& text, float width);
// The label of the next field, drawn before it; the field then fills the rest of the row. A
// field marked bad (a link's bad value) has its label in red with the problem under it.
void field_label(S id);
// The next field_label's tooltip, shown when its label is hovered: the explanation of a label
// kept short so that it fits its column (a string of the table, or a key's help).
void next_label_tip(S tip);
void next_label_tip(const char* tip);
// The fields to mark bad in the next frames, with what to say (from the link's problems).
void mark_fields(const std::vector<LinkProblem>& problems);
// While it lives, field_label's label column (13 em by default) is as wide as the longest of
// `labels` in the page's language, at most half the room: for a screen with long labels and
// room to spare (the Serving tab).
class LabelColumnFit {
 public:
  explicit LabelColumnFit(std::initializer_list<S> labels);
  ~LabelColumnFit();
  LabelColumnFit(const LabelColumnFit&) = delete;
  LabelColumnFit& operator=(const LabelColumnFit&) = delete;

 private:
  float saved_;
};
// The ids (strings.inc) of the labels field_label cut with an ellipsis since the last call,
// for the tests' mirror of the page.
std::vector<std::string> take_cut_labels();

// A combo over an enum's values, named by `name`; true when the value changed.
template <class E>
bool enum_combo(S id, E& value, std::initializer_list<E> values, const char* (*name)(E)) {
  field_label(id);
  bool changed = false;
  if (ImGui::BeginCombo(("##" + label(id)).c_str(), name(value))) {
    for (E v : values) {
      if (ImGui::Selectable(name(v), v == value)) {
        changed = v != value;
        value = v;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

// As enum_combo, with an automatic choice first (std::nullopt), shown as `automatic`; `values`
// any range of them (a braced list, or a table such as kWeightFormats).
template <class E, class Values>
bool optional_enum_combo(S id, std::optional<E>& value, const char* automatic, const Values& values,
                         const char* (*name)(E)) {
  field_label(id);
  bool changed = false;
  if (ImGui::BeginCombo(("##" + label(id)).c_str(), value ? name(*value) : automatic)) {
    if (ImGui::Selectable(automatic, !value)) {
      changed = value.has_value();
      value.reset();
    }
    for (E v : values) {
      if (ImGui::Selectable(name(v), value == v)) {
        changed = value != v;
        value = v;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

// Forgets what number fields refused (their messages): a new state from a link, an upload or
// the back button replaces the values they were about.
void forget_refused_numbers();
// A number field that reads what people type (50M, 2e9, 1.5k, 2亿, 2,000,000: parse_quantity) and
// shows the value with thousands separators. Commits on Enter, Tab or when it loses focus. Text
// that is not a number, or a number outside [min, max], keeps the last good value and says why
// under the field. With `a` and `name`, the field's rectangle is remembered under `name`.
bool input_quantity(S id, double& value, double min, double max, UiActions* a = nullptr,
                    const char* name = nullptr);
bool input_count(S id, int64_t& value, int64_t min, int64_t max, UiActions* a = nullptr,
                 const char* name = nullptr);
template <class T>
bool input_int(S id, T& value, int64_t min, int64_t max, UiActions* a = nullptr,
               const char* name = nullptr) {
  int64_t v = static_cast<int64_t>(value);
  if (!input_count(id, v, min, max, a, name)) return false;
  value = static_cast<T>(v);
  return true;
}
bool checkbox(S id, bool& value);

// Fields for an estimate/plan key of the core's key table (gpuplan/keys.h): the label is the
// string table's key_<name> ('-' as '_'; key_label), the bounds the key's, the tooltip its help
// in the page's language, the rectangle remembered under the key's name. `zero` also accepts 0,
// where 0 means the key is absent (auto, none).
S key_label(const std::string& key);
bool key_quantity(const char* key, double& value, UiActions& a, bool zero = false);
bool key_count(const char* key, int64_t& value, UiActions& a, bool zero = false);
template <class T>
bool key_int(const char* key, T& value, UiActions& a, bool zero = false) {
  int64_t v = static_cast<int64_t>(value);
  if (!key_count(key, v, a, zero)) return false;
  value = static_cast<T>(v);
  return true;
}
bool key_checkbox(const char* key, bool& value, UiActions& a);
// The key's help as the next label's tooltip (for controls drawn by hand, such as combos).
void key_tip(const char* key);
// A combo over a choice key's values, the key table's (a value added to the table appears here);
// `shown` gives a value's words in the page's language (the value itself when null). Picking one
// reads it into `q` as a link would. The rectangle is remembered under `rect` (the key's name).
bool key_choice(const char* key, Query& q, UiActions& a,
                const char* (*shown)(const std::string&) = nullptr, const char* rect = nullptr);
// key_choice's words for an enum's value: words_of<Mode, parse_mode, tr_mode>.
template <class E, std::optional<E> (*parse)(const std::string&), const char* (*name)(E)>
const char* words_of(const std::string& value) {
  const std::optional<E> e = parse(value);
  return e ? name(*e) : value.c_str();
}
// The Serving tab's fields: bounds and help from the serve key `key`, label `id`.
bool serve_quantity(S id, const char* key, double& value, UiActions& a, const char* name);
bool serve_count(S id, const char* key, int64_t& value, UiActions& a, const char* name);
template <class T>
bool serve_int(S id, const char* key, T& value, UiActions& a, const char* name) {
  int64_t v = static_cast<int64_t>(value);
  if (!serve_count(id, key, v, a, name)) return false;
  value = static_cast<T>(v);
  return true;
}

// A combo over ids (shown by name) with "any" first for ""; true when the value changed.
struct IdName {
  std::string id, name;
};
bool id_combo(S id, std::string& value, const std::vector<IdName>& items);
// The catalog's providers and GPUs as combo items.
std::vector<IdName> provider_items(const Catalog& catalog);
std::vector<IdName> gpu_items(const Catalog& catalog);

}  // namespace gpuplan::web
