#pragma once
// Loading the data catalogs (data/*.json) and uploaded model descriptions.
//
// The core does no I/O: callers pass file names and contents (the CLI reads them from disk, the
// web build embeds them). Every loader checks schema_version, required fields and unknown
// fields, and names the file and field in its errors.

#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/model.h"
#include "gpuplan/result.h"

namespace gpuplan {

// The schema version of every catalog file this build reads.
inline constexpr int kCatalogSchemaVersion = 1;
// Files larger than this are rejected before parsing.
inline constexpr size_t kMaxJsonBytes = 4 * 1024 * 1024;

// One catalog file: its path relative to data/ (e.g. "models/gpt2-small.json") and its text.
struct DataFile {
  std::string path;
  std::string text;
};

// Everything the catalogs hold.
struct Catalog {
  std::vector<Model> models;

  // The model with this id or alias, or nullptr.
  const Model* find_model(std::string_view id_or_alias) const;
};

// Parses one data/models/*.json file.
Result<Model> parse_model_json(std::string_view text, const std::string& where);

// Loads and cross-checks a whole catalog (unique ids, file name == id).
Result<Catalog> load_catalog(const std::vector<DataFile>& files);

}  // namespace gpuplan
