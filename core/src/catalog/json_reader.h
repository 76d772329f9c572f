#pragma once
// A strict reader over one JSON object: typed field access with range checks, and a final
// check that no unknown field was present. The first problem is kept as an Error whose
// message names the file and the field path, e.g. "models/x.json: transformer.hidden: ...".

#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuplan/result.h"

namespace gpuplan {

// Marks a string that stands for Python's NaN, Infinity or -Infinity in a config.json.
inline constexpr const char* kPythonFloatMark = "\x01";

class JsonReader {
 public:
  // `where` is the file plus the path of this object, e.g. "models/x.json: transformer".
  JsonReader(const nlohmann::json& j, std::string where, std::string path = "")
      : j_(j), where_(std::move(where)), path_(std::move(path)) {
    if (!j_.is_object())
      fail(path_.empty() ? "expected a JSON object" : path_ + ": expected an object");
  }

  bool has(const char* key) const { return j_.is_object() && j_.contains(key); }

  int64_t integer(const char* key, std::optional<int64_t> fallback, int64_t min, int64_t max) {
    const nlohmann::json* v = field(key, fallback.has_value());
    if (!v) return fallback.value_or(0);
    if (!v->is_number_integer()) {
      fail(Msg::file_wrong_type, {name(key), "an integer", type_of(*v)});
      return fallback.value_or(0);
    }
    // Above INT64_MAX the value is unsigned; get<int64_t>() would wrap it to a negative number.
    const bool too_big = v->is_number_unsigned() && v->get<uint64_t>() > uint64_t(INT64_MAX);
    const int64_t x = too_big ? max : v->get<int64_t>();
    if (too_big || x < min || x > max) {
      fail(Msg::file_out_of_range,
           {name(key), v->dump(), std::to_string(min), std::to_string(max)});
    }
    return x;
  }

  double number(const char* key, std::optional<double> fallback, double min, double max) {
    const nlohmann::json* v = field(key, fallback.has_value());
    if (!v) return fallback.value_or(0);
    if (!v->is_number()) {
      fail(Msg::file_wrong_type, {name(key), "a number", type_of(*v)});
      return fallback.value_or(0);
    }
    const double x = v->get<double>();
    if (!std::isfinite(x) || x < min || x > max) {
      fail(Msg::file_out_of_range, {name(key), v->dump(), fmt(min), fmt(max)});
    }
    return x;
  }

  bool boolean(const char* key, std::optional<bool> fallback) {
    const nlohmann::json* v = field(key, fallback.has_value());
    if (!v) return fallback.value_or(false);
    if (!v->is_boolean()) {
      fail(Msg::file_wrong_type, {name(key), "true or false", type_of(*v)});
      return fallback.value_or(false);
    }
    return v->get<bool>();
  }

  std::string string(const char* key, std::optional<std::string> fallback) {
    const nlohmann::json* v = field(key, fallback.has_value());
    if (!v) return fallback.value_or("");
    if (!v->is_string()) {
      fail(Msg::file_wrong_type, {name(key), "a string", type_of(*v)});
      return fallback.value_or("");
    }
    return v->get<std::string>();
  }

  // One of `choices`; returns its index.
  size_t choice(const char* key, const std::vector<std::string>& choices,
                std::optional<size_t> fallback) {
    const std::string s =
        string(key, fallback ? std::optional<std::string>(choices[*fallback]) : std::nullopt);
    for (size_t i = 0; i < choices.size(); ++i) {
      if (s == choices[i]) return i;
    }
    if (!error_) {
      std::string list;
      for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
      fail(Msg::file_unknown_value, {name(key), s, list});
    }
    return fallback.value_or(0);
  }

  // A nested object (marked as read), or nullptr if absent and optional.
  const nlohmann::json* object(const char* key, bool required) {
    const nlohmann::json* v = field(key, !required);
    if (v && !v->is_object()) {
      fail(Msg::file_wrong_type, {name(key), "an object", type_of(*v)});
      return nullptr;
    }
    return v;
  }

  // Any value (marked as read), or nullptr if absent and optional.
  const nlohmann::json* value(const char* key, bool required) { return field(key, !required); }

  // Marks a field as known without reading it.
  void ignore(const char* key) { seen_.insert(key); }

  // Records an error found by the caller (the first one wins).
  void fail(const std::string& message) {
    if (!error_) error_ = make_error(Errc::schema_error, where_ + ": " + message);
  }
  // The same with a message id; `args` follow the file's name ({0}).
  void fail(Msg id, std::vector<std::string> args) {
    if (error_) return;
    args.insert(args.begin(), where_);
    error_ = make_error(Errc::schema_error, id, std::move(args));
  }
  void fail_with(const Error& e) {
    if (!error_) error_ = e;
  }

  // The first error, including unknown fields once everything has been read.
  std::optional<Error> finish() {
    if (!error_ && j_.is_object()) {
      for (const auto& item : j_.items()) {
        if (!seen_.count(item.key())) {
          fail(Msg::file_unknown_field, {name(item.key().c_str())});
          break;
        }
      }
    }
    return error_;
  }
  const std::optional<Error>& error() const { return error_; }
  std::string name(const char* key) const { return path_.empty() ? key : path_ + "." + key; }
  const std::string& where() const { return where_; }

  static std::string type_of(const nlohmann::json& v) {
    if (v.is_null()) return "null";
    if (v.is_boolean()) return "a boolean";
    if (v.is_number()) return "a number";
    // A non-finite Python float as python_float_literals_as_null (hf_config.cpp) marks it.
    if (v.is_string() && v.get_ref<const std::string&>().rfind(kPythonFloatMark, 0) == 0)
      return v.get<std::string>().substr(1);
    if (v.is_string()) return "a string";
    if (v.is_array()) return "an array";
    return "an object";
  }

 private:
  const nlohmann::json* field(const char* key, bool optional) {
    seen_.insert(key);
    if (!j_.is_object()) return nullptr;
    auto it = j_.find(key);
    if (it == j_.end()) {
      if (!optional) fail(Msg::file_missing_field, {name(key)});
      return nullptr;
    }
    return &*it;
  }
  static std::string fmt(double x) {
    std::string s = std::to_string(x);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }

  const nlohmann::json& j_;
  std::string where_;
  std::string path_;
  std::set<std::string> seen_;
  std::optional<Error> error_;
};

// Parses text as JSON with a size limit; errors name `where` and the parser's position.
inline Result<nlohmann::json> parse_json_text(std::string_view text, const std::string& where,
                                              size_t max_bytes) {
  if (text.size() > max_bytes) {
    return make_error(Errc::too_large, Msg::file_too_large,
                      {where, std::to_string(text.size()), std::to_string(max_bytes)});
  }
  if (text.empty()) return make_error(Errc::parse_error, Msg::file_empty, {where});
  // Depth-limited via a callback, so a hostile upload cannot exhaust the stack.
  int depth = 0;
  bool too_deep = false;
  auto cb = [&](int d, nlohmann::json::parse_event_t ev, nlohmann::json&) {
    if (ev == nlohmann::json::parse_event_t::object_start ||
        ev == nlohmann::json::parse_event_t::array_start) {
      depth = d;
      if (d > 64) too_deep = true;
    }
    return !too_deep;
  };
  nlohmann::json j =
      nlohmann::json::parse(text.begin(), text.end(), cb, /*allow_exceptions=*/false);
  if (too_deep) return make_error(Errc::parse_error, Msg::file_too_deep, {where});
  if (j.is_discarded()) {
    // Re-parse with a SAX checker to get the position of the first error.
    struct Locate : nlohmann::json_sax<nlohmann::json> {
      size_t pos = 0;
      std::string what;
      bool null() override { return true; }
      bool boolean(bool) override { return true; }
      bool number_integer(number_integer_t) override { return true; }
      bool number_unsigned(number_unsigned_t) override { return true; }
      bool number_float(number_float_t, const string_t&) override { return true; }
      bool string(string_t&) override { return true; }
      bool binary(binary_t&) override { return true; }
      bool start_object(std::size_t) override { return true; }
      bool key(string_t&) override { return true; }
      bool end_object() override { return true; }
      bool start_array(std::size_t) override { return true; }
      bool end_array() override { return true; }
      bool parse_error(std::size_t p, const std::string&,
                       const nlohmann::detail::exception& ex) override {
        pos = p;
        what = ex.what();
        return false;
      }
    } locate;
    nlohmann::json::sax_parse(text.begin(), text.end(), &locate,
                              nlohmann::json::input_format_t::json, false);
    size_t line = 1, col = 1;
    for (size_t i = 0; i + 1 < locate.pos && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    // Two mistakes deserve a hint: Python's json module writes NaN and Infinity, which JSON does
    // not have, and a number like 1e999 is valid syntax that no double can hold.
    Msg id = Msg::file_not_json;
    const std::string_view at =
        locate.pos >= 1 && locate.pos <= text.size() ? text.substr(locate.pos - 1) : "";
    if (locate.what.find("number overflow") != std::string::npos) {
      id = Msg::file_not_json_overflow;
    } else if (at.substr(0, 3) == "NaN" || at.substr(0, 8) == "Infinity") {
      id = Msg::file_not_json_nan;
    }
    return make_error(Errc::parse_error, id, {where, std::to_string(line), std::to_string(col)});
  }
  (void)depth;
  return j;
}

// Checks the schema_version field of a persisted document.
inline std::optional<Error> check_schema_version(JsonReader& r, int supported) {
  const int64_t v = r.integer("schema_version", std::nullopt, 0, 1'000'000);
  if (r.error()) return r.error();
  if (v != supported) {
    return make_error(Errc::unsupported_version, Msg::file_bad_version,
                      {r.where(), std::to_string(v), std::to_string(supported)});
  }
  return std::nullopt;
}

}  // namespace gpuplan
