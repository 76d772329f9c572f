// Share-link state (the page's URL fragment, the CLI's flags): query_to_args, parse_query, the
// parse -> serialize -> parse round trip, then evaluate() of what the link asks for: estimate,
// step time, price and cost, as the CLI and the page compute them.
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"
#include "gpuplan/evaluate.h"
#include "gpuplan/query.h"

using namespace gpuplan;

namespace {

void check_evaluation(const Evaluation& ev) {
  fuzz::check_estimate(ev.estimate, ev.query.request.setup);
  if (ev.hardware_error) return fuzz::check_error(*ev.hardware_error);
  if (ev.time) fuzz::check_step_time(*ev.time);
  if (ev.cost) fuzz::check_run_cost(*ev.cost, ev.cost->usd_per_hour);
  if (ev.gpu) FUZZ_CHECK(ev.fit.fits == (ev.estimate.memory.total() <= ev.gpu->memory_bytes));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto args = query_to_args(text);
  if (!args.ok()) {
    fuzz::check_error(args.error());
    return 0;
  }
  // Encoding the decoded pairs and decoding again gives the same pairs (unless the first key
  // starts with the '#' or '?' that a link may begin with, or the encoded form is over the limit).
  if (!args.value().empty()) {
    const std::string& k0 = args.value()[0].first;
    const std::string encoded = args_to_query(args.value());
    if ((k0.empty() || (k0[0] != '#' && k0[0] != '?')) && encoded.size() <= 8192) {
      auto again = query_to_args(encoded);
      FUZZ_CHECK(again.ok());
      FUZZ_CHECK(again.value() == args.value());
    }
  }

  auto query = parse_query(args.value());
  if (!query.ok()) {
    fuzz::check_error(query.error());
    return 0;
  }
  // Round trip: the link written for a query reads back as the same query.
  const Args canonical = query_to_key_values(query.value());
  const std::string link = args_to_query(canonical);
  if (link.size() > 8192) return 0;  // percent-encoding a long raw model id can pass the limit
  auto back = parse_query_string(link);
  FUZZ_CHECK(back.ok());
  FUZZ_CHECK(query_to_key_values(back.value()) == canonical);

  Query q = query.value();
  if (q.request.model.empty() && q.custom.kind == CustomModel::Kind::none)
    q.request.model = "gpt2-small";
  auto ev = evaluate(fuzz::catalog(), q);
  if (!ev.ok()) return fuzz::check_error(ev.error()), 0;
  check_evaluation(ev.value());
  return 0;
}
