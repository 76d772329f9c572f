// The page's catalog from the blobs the build made (catalog_files.h); apart from
// catalog_files.cpp, which the generator that makes the blobs links.
#include "catalog_files.h"
#include "gpuplan/catalog_blob.h"

namespace gpuplan::web {

Result<Catalog> load_page_catalog(bool all) {
  auto catalog = catalog_from_blob(first_frame_catalog_blob());
  if (!all || !catalog.ok()) return catalog;
  auto rest = catalog_from_blob(rest_of_catalog_blob());
  if (!rest.ok()) return rest.error();
  Catalog& c = catalog.value();
  c.instances = std::move(rest.value().instances);
  c.published = std::move(rest.value().published);
  c.prices_as_of = std::move(rest.value().prices_as_of);
  return catalog;
}

}  // namespace gpuplan::web
