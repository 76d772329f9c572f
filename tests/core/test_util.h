#pragma once
// Helpers shared by the core tests: the bundled catalog and repository files.

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "gpuplan/catalog.h"
#include "gpuplan/embedded_data.h"
#include "gpuplan/serve_assumptions.h"
#include "gpuplan/transformer.h"

namespace gpuplan::test {

// The catalog compiled into the binary (loaded once).
inline const Catalog& catalog() {
  static const Catalog c = [] {
    auto loaded = load_catalog(embedded_data_files());
    if (!loaded.ok()) {
      ADD_FAILURE() << loaded.error().message;
      return Catalog{};
    }
    return loaded.value();
  }();
  return c;
}

// The bundled data files with the one at `path` replaced by `edit(json)`, loaded as a catalog.
inline Result<Catalog> catalog_with(const std::string& path,
                                    const std::function<void(nlohmann::json&)>& edit) {
  std::vector<DataFile> files = embedded_data_files();
  for (auto& f : files) {
    if (f.path != path) continue;
    nlohmann::json j = nlohmann::json::parse(f.text);
    edit(j);
    f.text = j.dump();
  }
  return load_catalog(files);
}

// The serving assumptions compiled into the binary (loaded once).
inline const ServingAssumptions& serving() {
  static const ServingAssumptions a = [] {
    auto s = serving_assumptions(embedded_data_files());
    if (!s.ok()) ADD_FAILURE() << s.error().message;
    return s.ok() ? s.value() : ServingAssumptions{};
  }();
  return a;
}

// A zoo model by id; fails the test when missing.
inline const Model& model(const std::string& id) {
  const Model* m = catalog().find_model(id);
  if (!m) {
    ADD_FAILURE() << "model '" << id << "' is not in the catalog";
    static const Model empty;
    return empty;
  }
  return *m;
}

// A transformer's parameters, summed over transformer_parameters' tensors.
inline double parameters(const TransformerSpec& s) {
  double n = 0;
  for (const auto& t : transformer_parameters(s)) n += static_cast<double>(t.numel());
  return n;
}

// Contents of a file under the repository root.
inline std::string read_repo_file(const std::string& relative) {
  std::ifstream in(std::string(GPUPLAN_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The header of a serving validation table (tests/validation/serving_dev.csv's columns).
inline const std::string kServingCsvHeader =
    "id,source_kind,model,gpu,num_gpus,tp,precision,framework,input_len,output_len,dataset,"
    "concurrency_or_batch,request_rate,metric,value,source,notes\n";

}  // namespace gpuplan::test
