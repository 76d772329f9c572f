#pragma once
// Timing helpers for the benchmarks: wall-clock medians over repeated runs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/embedded_data.h"
#include "gpuplan/file_reader.h"

namespace bench {

// Median seconds per call of f() over `rounds` rounds of `calls` calls.
template <class F>
double median_seconds_per_call(F&& f, int rounds, int calls) {
  std::vector<double> per_call;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) f();
    const auto t1 = std::chrono::steady_clock::now();
    per_call.push_back(std::chrono::duration<double>(t1 - t0).count() / calls);
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

inline gpuplan::Catalog catalog() {
  auto c = gpuplan::load_catalog(gpuplan::embedded_data_files());
  if (!c.ok()) {
    std::fprintf(stderr, "catalog: %s\n", c.error().message.c_str());
    std::exit(1);
  }
  return c.value();
}

// A repository file (run from the repository root); the limit only stops a device or a pipe.
inline std::string read(const std::string& path) {
  auto text = gpuplan::read_bounded_file(path, 64 * 1024 * 1024);
  if (!text.ok()) {
    std::fprintf(stderr, "%s (run from the repository root)\n", text.error().message.c_str());
    std::exit(1);
  }
  return text.value();
}

}  // namespace bench
