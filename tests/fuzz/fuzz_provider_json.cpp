// Provider files (data/providers/*.json): parse_provider_json. Every region that parses can be
// found by its id.
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"

using namespace gpuplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto p = parse_provider_json(text, "providers/fuzz.json");
  if (!p.ok()) {
    fuzz::check_error(p.error());
    return 0;
  }
  for (const Region& r : p.value().regions) FUZZ_CHECK(p.value().find_region(r.id) != nullptr);
  return 0;
}
