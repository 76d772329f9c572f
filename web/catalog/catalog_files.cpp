// The page's catalog (catalog_files.h).
#include "catalog_files.h"

#include "gpuplan/embedded_data.h"

namespace gpuplan::web {

// Without `all`, every file but the instances (listed only by the Hardware, Plans and Serving
// tabs and priced only when the link names one) and the published measurements (the largest
// share, about 40% of the bytes: shown only under a result that matches one of their runs, a
// line that follows two frames later). The rest follows after the first frame.
std::vector<DataFile> catalog_files(bool all) {
  std::vector<DataFile> files;
  for (const auto& f : embedded_data_files()) {
    if (all || (f.path.rfind("instances/", 0) != 0 && f.path.rfind("published/", 0) != 0))
      files.push_back(f);
  }
  return files;
}

void drop_unread_by_page(Catalog& catalog) {
  for (auto* rows : {&catalog.accuracy.time, &catalog.accuracy.memory, &catalog.accuracy.serving})
    for (auto& row : *rows) row.id.clear();
}

}  // namespace gpuplan::web
