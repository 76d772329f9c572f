// Published measurements (data/published/*.json): parse_published_json. A table that parses has
// rows with positive, finite values and consistent batches, and each row either gets a finite
// prediction or a reason (compare_published over the bundled catalog).
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"
#include "gpuplan/published.h"

using namespace gpuplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto t = parse_published_json(text, "published/fuzz.json");
  if (!t.ok()) {
    fuzz::check_error(t.error());
    return 0;
  }
  for (const auto& r : t.value().rows) {
    FUZZ_CHECK(r.value > 0 && std::isfinite(r.value));
    FUZZ_CHECK(r.micro_batch >= 1 && r.global_batch >= r.micro_batch && r.num_gpus >= 1);
  }
  std::vector<PublishedTable> tables = {t.value()};
  for (const auto& c : compare_published(fuzz::catalog(), tables)) {
    FUZZ_CHECK(c.predicted.has_value() != !c.reason.empty());
    if (c.predicted) FUZZ_CHECK(std::isfinite(*c.predicted) && std::isfinite(c.error));
  }
  return 0;
}
