#pragma once
// One row per key. Every option of `gpuplan estimate` and `plan` (a Query) and of `gpuplan
// serve` (a ServeRequest) is written once, in core/src/query/keys.cpp: its name, type, bounds,
// default, help text in English and Chinese, whether it is a switch, how a value is read and how
// it is written back into a link. The CLI's parser, its --help and its list of switches, the
// link reader and writer, and the page's controls and their bounds all come from these rows (as
// sokol_args keeps one store and one default per key for argv and the URL). Adding a key is
// adding a row (and the Setup or Query field it sets).

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuplan/query.h"

namespace gpuplan {

// What a key's value is.
enum class KeyType {
  integer,  // digits, within [min, max]
  number,   // a decimal number, within [min, max]
  text,     // an id or a name
  choice,   // one of `choices`
  boolean,  // 1/true or 0/false (a switch may also be given bare)
  list,     // comma-separated names
};

// Where a key belongs: the sections of `gpuplan --help` and of the page, in display order.
enum class KeyGroup {
  setup,         // the workload and its setup (request_keys)
  parallelism,   // data, tensor, pipeline parallelism, ZeRO, LoRA
  custom_model,  // a transformer or CNN described by its hyperparameters
  hardware,      // a GPU and a count, or an instance and a node count
  run,           // the run length
  pricing,       // how the hardware is paid for
  planner,       // the planner's filters, limits and ranking
  serve,         // `gpuplan serve`'s options (ServeRequest)
};
const char* key_group_title(KeyGroup g);  // "setup options", ... (the CLI help's headings)

// One key of the table over T (Query or ServeRequest).
template <class T>
struct KeyRow {
  const char* name =
      "";  // "micro-batch": --micro-batch on the command line, micro-batch= in a link
  KeyGroup group = KeyGroup::setup;
  KeyType type = KeyType::text;
  double min = 0, max = 0;   // integer and number keys: the accepted range, both included
  std::string choices;       // choice keys: "fp32, tf32, ..." as messages and --help list them
  std::string default_text;  // what an absent key means: the value itself (a test reads it back
                             // as the default), or "auto: ..." where resolve_defaults decides
  const char* help_en = "";  // one line for --help and the page's tooltip
  const char* help_zh = "";  // the same in Simplified Chinese
  bool is_switch = false;    // given bare on the command line (--sp), written "1"
  bool derived = false;      // read after the custom transformer's conventions (keys.cpp)
  // Reads `value` into `into`; the error names the key (Error::key).
  std::function<std::optional<Error>(T& into, const std::string& value)> read;
  // The value as a link writes it, or nullopt where it is the default (a link leaves it out, and
  // an absent key reads back as that default).
  std::function<std::optional<std::string>(const T& from)> write;
  // The value as text, default or not ("fp32"): what a control shows.
  std::function<std::string(const T& from)> text;
};

using QueryKey = KeyRow<Query>;
using ServeKey = KeyRow<ServeRequest>;

// The rows of estimate/plan (request keys first) and of serve, in display order.
const std::vector<QueryKey>& query_key_rows();
const std::vector<ServeKey>& serve_key_rows();
// The row named `name`, or null.
const QueryKey* find_query_key(std::string_view name);
const ServeKey* find_serve_key(std::string_view name);

// A link's "v" (schema version): must be kQuerySchemaVersion.
std::optional<Error> check_schema_version(const std::string& value);
// "--colour: unknown option", with the key.
Error unknown_key_error(const std::string& key);

// Reads `args` into `into` with `rows`: unknown keys and bad values give an Error naming the key
// (the first one met). Rows marked `derived` are read after every other key and after `between`.
template <class T>
std::optional<Error> read_keys(const std::vector<KeyRow<T>>& rows, const Args& args, T& into,
                               const std::function<void(T&)>& between = {}) {
  std::vector<std::pair<const KeyRow<T>*, const std::string*>> later;
  for (const auto& kv : args) {
    if (kv.first == "v") {
      if (auto err = check_schema_version(kv.second)) return err;
      continue;
    }
    const KeyRow<T>* row = nullptr;
    for (const auto& r : rows) {
      if (kv.first == r.name) row = &r;
    }
    if (!row) return unknown_key_error(kv.first);
    if (row->derived) {
      later.emplace_back(row, &kv.second);
    } else if (auto err = row->read(into, kv.second)) {
      return err;
    }
  }
  if (between) between(into);
  for (const auto& [row, value] : later) {
    if (auto err = row->read(into, *value)) return err;
  }
  return std::nullopt;
}

// The keys that reproduce `from`: every row that differs from its default, in table order.
template <class T>
Args write_keys(const std::vector<KeyRow<T>>& rows, const T& from) {
  Args out;
  for (const auto& r : rows) {
    if (auto text = r.write(from)) out.emplace_back(r.name, std::move(*text));
  }
  return out;
}

// A key as the CLI's help shows it: "--precision fp32|tf32|...", "--batch N", "--sp".
std::string key_usage(KeyType type, const char* name, const std::string& choices, bool is_switch);
template <class T>
std::string key_usage(const KeyRow<T>& r) {
  return key_usage(r.type, r.name, r.choices, r.is_switch);
}

// The shortest decimal text that reads back as exactly `x` ("0.1", "1000000000", "2.5e-05").
std::string exact_number(double x);

// The custom transformer editor's conventions: gated MLPs go with RMSNorm, SiLU and rotary
// positions (LLaMA); otherwise LayerNorm, GELU and learned positions (GPT-2); one bias switch
// for the attention and MLP projections; a language-model head. The `derived` keys override them
// (an uploaded config.json's own choices).
TransformerSpec editor_conventions(TransformerSpec t);

// The planner's global batch when the query gives neither --batch nor --micro-batch.
inline constexpr int64_t kPlannerDefaultBatch = 256;

}  // namespace gpuplan
