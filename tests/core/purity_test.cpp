// core/ must stay portable: standard library and nlohmann/json only (STYLE.md, point 1).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

namespace fs = std::filesystem;

TEST(CorePurity, IncludesNoUiPlatformCudaOrCryptoHeaders) {
  const std::regex forbidden(
      R"(#\s*include\s*[<"](imgui|GLFW|emscripten|cuda|cublas|nccl|nvml|sodium|GL/|windows\.h|unistd\.h))");
  const fs::path core = fs::path(GPUPLAN_SOURCE_DIR) / "core";
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(core)) {
    if (!entry.is_regular_file()) continue;
    const auto ext = entry.path().extension();
    if (ext != ".h" && ext != ".cpp") continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      EXPECT_FALSE(std::regex_search(line, forbidden))
          << entry.path() << ":" << n << " includes a forbidden header: " << line;
    }
  }
  EXPECT_GT(files, 5) << "no core sources found under " << core;
}
