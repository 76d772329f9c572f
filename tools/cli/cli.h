#pragma once
// Shared pieces of the gpuplan command-line tool: argument handling, file reading, exit codes.
// Each command lives in its own cmd_*.cpp and is registered in main.cpp.

#include <string>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/file_reader.h"
#include "gpuplan/cost.h"
#include "gpuplan/timing.h"
#include "gpuplan/query.h"
#include "gpuplan/request.h"
#include "gpuplan/result.h"

namespace gpuplan::cli {

// Exit codes (documented in README.md): 0 success, 1 invalid input, 2 usage error.
inline constexpr int kExitInvalid = 1;
inline constexpr int kExitUsage = 2;

// Prints "gpuplan: error: MESSAGE" and returns kExitInvalid.
int fail(const Error& e);
// Prints a usage problem and returns kExitUsage.
int usage_error(const std::string& message);

// Removes every occurrence of --key from args and returns its last value ("" when absent).
std::string take(Args& args, const std::string& key);
// Removes a boolean --flag; true when present.
bool take_flag(Args& args, const std::string& key);

// Measurement CSVs are read up to the limit the core's CSV readers check (validation.cpp).
inline constexpr size_t kMaxCsvBytes = 4 * 1024 * 1024;

// The catalog compiled into the binary.
Result<Catalog> load_embedded_catalog();

// Takes --hf-config FILE (read here) and every query key out of args; unknown keys are errors.
Result<Query> take_query(Args& args);

// Reads, verifies and summarises a probe file for calibration (an invalid signature is an error).
Result<ProbeCalibration> read_probe_calibration(const std::string& path);

// Commands: each takes the arguments after its name and returns the exit code.
int cmd_models(Args args);
int cmd_estimate(Args args);
int cmd_verify(Args args);
int cmd_gpus(Args args);
int cmd_instances(Args args);
int cmd_plan(Args args);
int cmd_validate(Args args);

}  // namespace gpuplan::cli
