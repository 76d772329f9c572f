#pragma once
// Errors as values at the core's boundary.
//
// Emscripten builds may have exception catching disabled, and the UI, the CLI and the tests all
// want a message they can show as it is. Every fallible core call returns Result<T>: a value, or
// an Error with a stable code and a message that says what is wrong, where, and what to do.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuplan/messages.h"

namespace gpuplan {

// Stable error codes; the CLI maps them to exit codes and tests assert them.
enum class Errc {
  invalid_argument,     // a setup value out of range or inconsistent with another
  parse_error,          // input is not well-formed (JSON, CSV, URL state)
  schema_error,         // well-formed but a field is missing, unknown or of the wrong type
  unsupported_version,  // a persisted format with a schema_version we do not read
  not_found,            // an unknown model, GPU or instance id
  too_large,            // input rejected before parsing because of its size
  does_not_fit,         // no configuration satisfies the constraints
  signature_invalid,    // a signed file whose signature does not verify
};

// Short stable name of an error code, e.g. "schema_error".
const char* errc_name(Errc code);

// An error: code plus a one-line human-readable message (English). Messages a user can cause
// also carry a stable id and the values in them (gpuplan/messages.h), so a front end can show
// them in another language; id is Msg::none for the rest. An error about one key of a query
// (a CLI option, a link key: "batch") names it in `key`, so a front end can mark that field.
struct Error {
  Errc code = Errc::invalid_argument;
  std::string message;
  Msg id = Msg::none;
  std::vector<std::string> args;
  std::string key;  // "" when the error is not about one key
};

// A value or an error. Use ok() before value().
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return value_.has_value(); }
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const Error& error() const { return *error_; }

 private:
  std::optional<T> value_;
  std::optional<Error> error_;
};

// Builds an Error; a small helper so call sites stay on one line.
inline Error make_error(Errc code, std::string message) {
  return Error{code, std::move(message), Msg::none, {}, {}};
}
// An error with a message id: the message is the id's English template filled with `args`.
inline Error make_error(Errc code, Msg id, std::vector<std::string> args) {
  std::string message = render_message(message_english(id), args);
  return Error{code, std::move(message), id, std::move(args), {}};
}

// The same error, about the query key `key` ("batch").
inline Error about_key(Error e, std::string key) {
  e.key = std::move(key);
  return e;
}

}  // namespace gpuplan
