#include "gpuplan/file_reader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace gpuplan {
namespace {

struct CloseFile {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// "file is N bytes" for a regular file, else what was read (a device or a pipe has no size).
std::string size_text(std::FILE* f, size_t max_bytes) {
  struct stat st {};
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode))
    return "file is " + std::to_string(st.st_size) + " bytes";
  return "more than " + std::to_string(max_bytes) + " bytes read (a device or a pipe?)";
}

}  // namespace

Result<std::string> read_bounded_file(const std::string& path, size_t max_bytes) {
  std::unique_ptr<std::FILE, CloseFile> f(std::fopen(path.c_str(), "rb"));
  if (!f)
    return make_error(Errc::invalid_argument,
                      path + ": cannot open file (" + std::strerror(errno) + ")");
  std::string text;
  char buffer[1 << 16];
  while (text.size() <= max_bytes) {
    const size_t want = std::min(sizeof buffer, max_bytes + 1 - text.size());
    const size_t got = std::fread(buffer, 1, want, f.get());
    text.append(buffer, got);
    if (got == want) continue;
    if (std::ferror(f.get())) {
      return make_error(Errc::invalid_argument,
                        path + ": cannot read file (" + std::strerror(errno) + ")");
    }
    break;  // end of file
  }
  if (text.size() > max_bytes) {
    return make_error(Errc::too_large, path + ": " + size_text(f.get(), max_bytes) +
                                           "; the limit is " + std::to_string(max_bytes) +
                                           " bytes");
  }
  return text;
}

}  // namespace gpuplan
