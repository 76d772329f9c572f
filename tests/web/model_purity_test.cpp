// web/model is the page without its window: no ImGui, GLFW, GL or Emscripten in it, so web_test
// and any other face can link the gpuplan_page_model library alone (as core/ is checked by
// tests/core/purity_test.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

namespace fs = std::filesystem;

TEST(ModelPurity, WebModelIncludesNoUiOrPlatformHeadersAndCallsNoImGui) {
  const std::regex forbidden(
      R"(#\s*include\s*[<"](imgui|GLFW|GL/|GLES|emscripten|ui/|platform/)|\bImGui::|\bImVec[24]\b)");
  const fs::path model = fs::path(GPUPLAN_SOURCE_DIR) / "web" / "model";
  int files = 0;
  for (const auto& entry : fs::directory_iterator(model)) {
    const auto ext = entry.path().extension();
    if (ext != ".h" && ext != ".cpp" && ext != ".inc") continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      EXPECT_FALSE(std::regex_search(line, forbidden))
          << entry.path() << ":" << n << " reaches the UI or the platform: " << line;
    }
  }
  EXPECT_GE(files, 10) << "no model sources found under " << model;
}
