#pragma once
// A loaded Catalog as a compact binary blob, and back: what the web page loads instead of parsing
// the data/ JSON (which the build turns into a blob with load_catalog, web/CMakeLists.txt).
//
// Every field of every catalog struct is written, in declaration order (a field list per struct
// in catalog_blob.cpp; a static_assert there counts each struct's fields, so a new field that
// is not listed fails the build). Numbers are stored bit for bit, so a catalog read back is
// equal to the one written. The JSON files stay the source of truth: the blob is a build
// product, never committed.

#include <string>
#include <string_view>

#include "gpuplan/catalog.h"
#include "gpuplan/result.h"

namespace gpuplan {

// The blob format's version (its first bytes are "gpuplan-catalog" and this number).
inline constexpr int kCatalogBlobVersion = 3;

// The catalog as a blob.
std::string catalog_to_blob(const Catalog& catalog);

// A blob back into a catalog; a parse_error (never a crash) for a truncated or foreign blob,
// unsupported_version for another format version.
Result<Catalog> catalog_from_blob(std::string_view blob);

// Each part's blob, for comparing two catalogs field by field: equal blobs, equal catalogs.
std::string gpu_to_blob(const Gpu& gpu);
std::string model_to_blob(const Model& model);
std::string provider_to_blob(const Provider& provider);
std::string instance_to_blob(const Instance& instance);
std::string published_to_blob(const PublishedTable& table);

}  // namespace gpuplan
