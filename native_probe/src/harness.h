#pragma once
// The shared harness (nvbandwidth style): a registry of named cases, each with filter() saying
// whether it can run here; cases that cannot are "waived", never "failed". The harness runs each
// case per GPU (or once for the machine) in a worker thread under a timeout, samples clocks
// before, during and after, and turns every problem into a result row.
//
// Measurement discipline: a calibration call (1 warm-up + 1 timed iteration) sizes the run from
// a time budget; then warm-up iterations, timed iterations (each timed with CUDA events on the
// device), and median/min/max over the timed iterations. Out of memory retries a smaller size.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/peers.h"
#include "device.h"

namespace gpuplan::probe {

enum class Status { passed, waived, failed };
const char* status_name(Status s);

// Order statistics of one measurement.
struct Stats {
  double median = 0, min = 0, max = 0;
  int n = 0;
};
// Median (mean of the middle two for even n), min and max; values must not be empty.
Stats stats_of(std::vector<double> values);

// Clock facts of one GPU while a case ran.
struct ClockDuring {
  int samples = 0;
  std::optional<double> sm_mhz_min, sm_mhz_max, temperature_c_max, power_w_max;
  std::vector<std::string> throttle_reasons;  // union over the samples
};
struct ClockWindow {
  std::vector<int> gpus;
  std::vector<ClockSample> before, after;
  std::vector<ClockDuring> during;
};

// One result row of the file.
struct Row {
  std::string case_name;
  std::optional<int> gpu;  // nullopt for machine-wide rows (all-reduce)
  Status status = Status::passed;
  std::string reason;  // why waived or failed
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  std::string unit;  // "flop_per_s", "bytes_per_s"; empty when the row has no figure
  std::optional<Stats> stats;
  std::optional<ClockWindow> clocks;
  std::optional<Failure> error;
};

// A failed row carrying `f`.
Row failed_row(const std::string& case_name, std::optional<int> gpu, const Failure& f);

// How long to spend on one measurement.
struct Budget {
  double warmup_s = 0.2;      // warm-up time after the calibration call
  double timed_s = 0.3;       // timed time
  double max_single_s = 1.0;  // a size whose single iteration takes longer gives way to the next
  int min_warmup = 2, min_timed = 5, max_timed = 100;
};

// What a measurement ended with.
struct Measured {
  int64_t size = 0;
  Iterations it;
  Timings seconds;
};

// What a case sees.
struct Context {
  Device& device;
  const std::vector<GpuInfo>& gpus;
  bool full = false;      // --full: sweeps and longer budgets; else --quick
  CollectiveGroup group;  // all-reduce participants (multi-node: from MPI)
  std::vector<std::string> warnings;
  Peers* peers = nullptr;  // the other nodes of a multi-node run; null for one process

  // Measures at the first of `sizes` (largest first) that fits in memory and time: a size that
  // runs out of memory, or whose single iteration exceeds budget.max_single_s, gives way to the
  // next (and a warning says so). Other failures are returned as they are.
  Outcome<Measured> measure(const std::vector<int64_t>& sizes, const Budget& budget,
                            const std::function<Outcome<Timings>(int64_t, Iterations)>& run,
                            const std::string& what);
};

// Warm-up and timed iteration counts for a measurement whose single iteration took `single_s`.
Iterations iterations_for(double single_s, const Budget& budget);

// A named benchmark case.
class Case {
 public:
  virtual ~Case() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  // True when it runs once per GPU (gpu = index); false for once per machine (gpu = -1).
  virtual bool per_gpu() const { return true; }
  // True when every node of a multi-node run takes part (the all-reduce): the nodes agree
  // whether it runs, and the case agrees iteration counts and times through ctx.peers.
  virtual bool collective() const { return false; }
  // Empty when the case can run here; otherwise the reason it is waived.
  virtual std::string filter(const Context& ctx, int gpu) const {
    (void)ctx;
    (void)gpu;
    return {};
  }
  // Measures; returns at least one row. Problems are rows with status failed, never exits.
  virtual std::vector<Row> run(Context& ctx, int gpu) = 0;
};

// Every case, in run order (src/cases/).
std::vector<std::unique_ptr<Case>> all_cases();

// Picks cases by name: exact names, or a prefix ending in '*' ("gemm_*"). Empty = all.
// Returns an error message naming an unknown pattern, or empty.
std::string select_cases(const std::vector<std::unique_ptr<Case>>& cases,
                         const std::vector<std::string>& patterns, std::vector<Case*>& out);

struct RunOptions {
  bool full = false;
  double case_timeout_s = 120;
  CollectiveGroup group;
  Peers* peers = nullptr;  // multi-node: collective cases agree through it
};

struct RunResult {
  std::vector<Row> rows;
  std::vector<std::string> warnings;
  bool worker_stuck = false;  // a hung case's thread still runs: exit without joining it
};

// Reports progress on stderr: a bar on a terminal, one line per step otherwise.
class Progress {
 public:
  virtual ~Progress() = default;
  virtual void step(int done, int total, const std::string& label) = 0;
  virtual void finish() = 0;
};
std::unique_ptr<Progress> make_stderr_progress();
std::unique_ptr<Progress> make_silent_progress();

// Runs `cases` on every GPU. Never throws; every outcome is a row.
RunResult run_cases(Device& device, const std::vector<GpuInfo>& gpus,
                    const std::vector<Case*>& cases, const RunOptions& options, Progress& progress);

}  // namespace gpuplan::probe
