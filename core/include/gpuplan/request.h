#pragma once
// A request is what a user asks: a model and a setup. The same keys are read from CLI flags
// (--batch 8) and from the page's URL (#batch=8), so a link and a command line say the same.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuplan/estimate.h"
#include "gpuplan/result.h"

namespace gpuplan {

// Ordered key/value pairs, keys without leading dashes ("micro-batch", "precision").
using Args = std::vector<std::pair<std::string, std::string>>;

// Model and setup as given by the user.
struct Request {
  std::string model;  // catalog id or alias
  Setup setup;
};

// The keys parse_request understands, in display order.
const std::vector<std::string>& request_keys();

// Reads a request; unknown keys and malformed values give an Error naming the key.
// Keys not listed in request_keys() are rejected unless `allow_other_keys` is set.
Result<Request> parse_request(const Args& args, bool allow_other_keys = false);

// The args that reproduce `request` (values that differ from the defaults only).
Args request_to_args(const Request& request);

// URL query form, "model=gpt2-small&batch=8"; percent-encodes values.
std::string args_to_query(const Args& args);
// Parses "model=gpt2-small&batch=8" (an optional leading '#' or '?' is skipped).
Result<Args> query_to_args(std::string_view query);

// Strict decimal integer: digits only, optional leading '-', no overflow.
Result<int64_t> parse_int(std::string_view text, const std::string& key);

}  // namespace gpuplan
