#pragma once
// What the page model's tests share: the embedded catalog and serving assumptions, loaded once,
// and a CSV export read back into cells.
#include <sstream>
#include <string>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/embedded_data.h"
#include "gpuplan/serve_assumptions.h"

namespace gpuplan::web::page_test {

inline const Catalog& catalog() {
  static const Catalog c = load_catalog(embedded_data_files()).value();
  return c;
}

inline const ServingAssumptions& serving() {
  static const ServingAssumptions s = serving_assumptions(embedded_data_files()).value();
  return s;
}

// The cells of each line of a CSV without quoted fields; a trailing comma is an empty last cell.
inline std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream l(line);
    for (std::string cell; std::getline(l, cell, ',');) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.push_back("");
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace gpuplan::web::page_test
