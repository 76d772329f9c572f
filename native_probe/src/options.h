#pragma once
// gpuplan-probe's command line and exit codes.

#include <string>
#include <vector>

namespace gpuplan::probe {

// Exit codes (also in the usage text and native_probe/README.md).
inline constexpr int kExitOk = 0;  // file written; every case passed or was waived
inline constexpr int kExitCaseFailed =
    1;                                 // file written; at least one case failed (see its results)
inline constexpr int kExitUsage = 2;   // bad command line; nothing ran
inline constexpr int kExitNoGpu = 3;   // no usable GPU or driver (or built without CUDA); no file
inline constexpr int kExitOutput = 4;  // signing key or output file could not be used; no file
// SIGINT / SIGTERM: 128 + signal (130 / 143); no file, the temporary file is removed.

struct Options {
  bool help = false, list = false, full = false, no_metadata = false;
  std::vector<std::string> cases;   // --case, repeatable
  std::string out;                  // --out; default gpuplan-probe-<UTC>.json
  std::string key;                  // --key; default ~/.config/gpuplan/probe-key
  std::string metadata_url;         // --metadata-url (test hook); default 169.254.169.254
  double metadata_timeout_s = 0.3;  // --metadata-timeout, per request
  std::string simulate;             // --simulate GPU_ID[:COUNT]
  int simulate_count = 1;
  double case_timeout_s = 0;           // --case-timeout; 0 = 120 s quick, 600 s full
  std::vector<std::string> faults;     // --fault (test hook, --simulate only)
  double stall_before_rename_s = 0;    // --fault stall-before-rename:SECONDS (test hook)
  std::vector<std::string> arguments;  // argv[1..], recorded in the file
};

// The number of ranks when started by mpirun/srun (OMPI_COMM_WORLD_SIZE, PMI_SIZE,
// SLURM_STEP_NUM_TASKS), else 1. gpuplan-probe (no MPI) refuses to run as one of several ranks.
int launched_ranks(const char* (*get)(const char*));

// Parses argv; returns an error message (usage problem), or empty.
std::string parse_options(int argc, char** argv, Options& out);

// The --help text.
const char* usage_text();

}  // namespace gpuplan::probe
