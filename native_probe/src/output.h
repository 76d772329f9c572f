#pragma once
// Writing the probe file so that no reader ever sees a partial one: write a temporary file in
// the same folder, fsync, rename over the target, fsync the folder. SIGINT/SIGTERM remove the
// temporary file and exit with 128 + the signal number (130, 143).

#include <string>

namespace gpuplan::probe {

// Installs the SIGINT/SIGTERM handlers (once, at start-up).
void install_signal_handlers();

// Writes `text` to `path` atomically; returns an error message, or empty. The test hook
// `stall_before_rename_s` sleeps with the temporary file in place (signal tests).
std::string write_file_atomically(const std::string& path, const std::string& text,
                                  double stall_before_rename_s = 0);

}  // namespace gpuplan::probe
