#pragma once
// The page's catalog: which data/ files the first frame needs, and the catalogs pre-digested at
// build time (make_catalog_blob.cpp writes them with load_catalog; the page reads them without
// parsing JSON). tests/web/page_catalog_test.cpp checks they equal what load_catalog yields.

#include <string_view>
#include <vector>

#include "gpuplan/catalog.h"

namespace gpuplan::web {

// The catalog files the first frame needs, unless `all`: every embedded file but the instances
// and the published measurements (catalog_files.cpp says why).
std::vector<DataFile> catalog_files(bool all);

// What the page leaves out of a catalog because it never reads it: the id of each validated run
// (error bands read its source, family, ground and error; the ids name rows in the CLI's
// validation reports). About 20 kB of the first frame's blob.
void drop_unread_by_page(Catalog& catalog);

// load_catalog(catalog_files(false)), less drop_unread_by_page, as a blob (gpuplan/catalog_blob.h),
// made by the build.
std::string_view first_frame_catalog_blob();
// What load_catalog(catalog_files(true)) adds to it, as a blob of a catalog holding only that:
// the instances, the published measurements and the newest price date.
std::string_view rest_of_catalog_blob();
// data/assumptions.json's text, for the serving assumptions (read when the Serving tab opens).
std::string_view page_assumptions_json();

// The page's catalog from the blobs: the first frame's, or (`all`) the whole one.
Result<Catalog> load_page_catalog(bool all);

}  // namespace gpuplan::web
