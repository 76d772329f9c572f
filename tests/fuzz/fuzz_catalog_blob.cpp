// The page's catalog blob (gpuplan/catalog_blob.h): catalog_from_blob on arbitrary bytes returns
// an error, never a crash; a blob it reads writes back to a blob that reads to the same bytes.
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"
#include "gpuplan/catalog_blob.h"

using namespace gpuplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto c = catalog_from_blob(bytes);
  if (!c.ok()) {
    fuzz::check_error(c.error());
    return 0;
  }
  const std::string again = catalog_to_blob(c.value());
  auto back = catalog_from_blob(again);
  FUZZ_CHECK(back.ok());
  FUZZ_CHECK(catalog_to_blob(back.value()) == again);
  return 0;
}
