#pragma once
// The one way the native tools read an input file (config.json, measurement CSVs, probe files):
// at most `max_bytes` + 1 bytes, whatever the file is. A size from stat() is not trusted for
// reading: a device or a pipe has none (/dev/zero, /dev/urandom, a FIFO), so reading "to the end"
// would never stop. The core does no I/O; callers pass it the text.

#include <cstddef>
#include <string>

#include "gpuplan/result.h"

namespace gpuplan {

// The text of `path` when it is at most `max_bytes` long. Errors (one line, naming the path):
// cannot open or read (invalid_argument), longer than the limit (too_large: a regular file says
// its size, anything else that more than the limit was read).
Result<std::string> read_bounded_file(const std::string& path, size_t max_bytes);

}  // namespace gpuplan
