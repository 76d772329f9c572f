#pragma once
// The data/ catalogs compiled into the binary (library gpuplan_data, generated at build time).

#include <vector>

#include "gpuplan/catalog.h"

namespace gpuplan {

// Every data/**/*.json except the schemas, with paths relative to data/.
const std::vector<DataFile>& embedded_data_files();

}  // namespace gpuplan
