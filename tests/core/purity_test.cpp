// core/ must stay portable: standard library and nlohmann/json only (STYLE.md, point 1).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
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

// Cryptography belongs to the signing library (libsodium): no hand-written SHA-256 or base64 in
// the C++ trees. The markers are SHA-256's first initial hash word (FIPS 180-4, 5.3.3) and the
// base64 alphabet (RFC 4648, table 1).
TEST(CorePurity, NoHandWrittenSha256OrBase64OutsideLibsodium) {
  const std::string sha_marker = std::string("0x6a09") + "e667";
  const std::string b64_marker =
      std::string("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + "abcdefghijklmnopqrstuvwxyz0123456789+/";
  int files = 0;
  for (const char* dir : {"core", "signing", "tools", "web", "native_probe"}) {
    const fs::path root = fs::path(GPUPLAN_SOURCE_DIR) / dir;
    if (!fs::exists(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      const auto ext = entry.path().extension();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp" && ext != ".cu")) continue;
      ++files;
      std::ifstream in(entry.path());
      const std::string text((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
      EXPECT_EQ(text.find(sha_marker), std::string::npos) << entry.path() << " implements SHA-256";
      EXPECT_EQ(text.find(b64_marker), std::string::npos) << entry.path() << " implements base64";
    }
  }
  EXPECT_GT(files, 20);
}
