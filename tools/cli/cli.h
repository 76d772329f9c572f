#pragma once
// Shared pieces of the gpuplan command-line tool: argument handling, file reading, exit codes.
// Each command lives in its own cmd_*.cpp and is registered in main.cpp.

#include <string>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/file_reader.h"
#include "gpuplan/cost.h"
#include "gpuplan/timing.h"
#include "gpuplan/launch_config.h"
#include "gpuplan/published.h"
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

// The estimate's hardware keys, which `plan` refuses: the planner chooses the hardware itself
// (--plan-gpu narrows it).
inline constexpr const char* kEstimateHardwareKeys[] = {"gpu", "gpus", "instance", "nodes"};

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

// Reads and verifies a file of the probe family (an invalid signature is an error): a probe's
// measurements calibrate; a gpuplan-measure run is shown beside the prediction.
struct ProbeInput {
  std::optional<ProbeCalibration> calibration;
  std::optional<MeasuredInput> measured;  // a gpuplan-measure file (evaluate() compares it)
  bool unsigned_file = false;
};
Result<ProbeInput> read_probe_input(const std::string& path);

// Reads a whole file of at most max_bytes through read_bounded_file; on failure sets `error`.
bool read_file(const std::string& path, std::string& out, std::string& error, size_t max_bytes);

// Parses a strictly positive decimal number (e.g. "1e9", "0.5") for --key.
Result<double> parse_number(const std::string& text, const std::string& key);

// "12.34 CNY/h (1.70 USD/h at 0.138 USD/CNY)" for a quote shown in `currency`.
std::string price_text(const PriceQuote& q, const std::string& currency, const PricingRules& rules);
// The price block of `estimate --instance`: price (CNY beside USD where relevant), published or
// assumed, date, and for a commitment the term charged and the break-even utilisation.
void print_price_lines(const PriceQuote& q, const RunCost* cost, const std::string& currency,
                       const PricingRules& rules);

// Commands: each takes the arguments after its name and returns the exit code.
int cmd_models(Args args);
int cmd_estimate(Args args);
int cmd_verify(Args args);
int cmd_gpus(Args args);
int cmd_instances(Args args);
int cmd_plan(Args args);
int cmd_validate(Args args);
int cmd_serve(Args args);
// gpuplan validate on a serving-measurements CSV (cmd_serve.cpp).
int validate_serving_file(const std::string& path, const std::string& text, bool json);
// A validation row's band in its own unit (cmd_validate.cpp), and the band coverage, as JSON and
// as lines; the serving file's rows use them too.
nlohmann::ordered_json band_row_json(const ErrorBand& b, const Range& measured, bool inside);
nlohmann::ordered_json band_coverage_json(const BandCoverage& c);
void print_band_coverage(const BandCoverage& c);
int cmd_published(Args args);
int cmd_keys(Args args);

// --emit FORMAT: prints the launch config (torchrun, accelerate, deepspeed); the exit code.
int print_launch_config(const std::string& format, const LaunchInputs& inputs);

}  // namespace gpuplan::cli
