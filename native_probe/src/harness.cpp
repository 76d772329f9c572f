// The harness: case selection, the measure() policy, worker threads with timeouts, clocks.
#include "harness.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>

namespace gpuplan::probe {
namespace {

using Clock = std::chrono::steady_clock;

std::string size_label(int64_t size) {
  return std::to_string(size);
}

void merge(ClockDuring& d, const ClockSample& s) {
  ++d.samples;
  if (s.sm_mhz) {
    d.sm_mhz_min = std::min(d.sm_mhz_min.value_or(*s.sm_mhz), *s.sm_mhz);
    d.sm_mhz_max = std::max(d.sm_mhz_max.value_or(*s.sm_mhz), *s.sm_mhz);
  }
  if (s.temperature_c)
    d.temperature_c_max =
        std::max(d.temperature_c_max.value_or(*s.temperature_c), *s.temperature_c);
  if (s.power_w) d.power_w_max = std::max(d.power_w_max.value_or(*s.power_w), *s.power_w);
  for (const auto& r : s.throttle_reasons) {
    if (std::find(d.throttle_reasons.begin(), d.throttle_reasons.end(), r) ==
        d.throttle_reasons.end()) {
      d.throttle_reasons.push_back(r);
    }
  }
}

// One case on one GPU, run by a worker thread. Shared with the thread, so a hung worker that
// outlives the harness still owns valid memory.
struct Task {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::vector<Row> rows;
  std::vector<std::string> warnings;
};

class StderrProgress : public Progress {
 public:
  StderrProgress() : tty_(isatty(STDERR_FILENO) != 0) {}
  void step(int done, int total, const std::string& label) override {
    if (tty_) {
      const int width = 24, filled = total ? done * width / total : width;
      std::fprintf(stderr, "\r\033[K[%s%s] %d/%d %s", std::string(size_t(filled), '#').c_str(),
                   std::string(size_t(width - filled), '.').c_str(), done, total, label.c_str());
    } else {
      std::fprintf(stderr, "gpuplan-probe: [%d/%d] %s\n", done + 1, total, label.c_str());
    }
    std::fflush(stderr);
  }
  void finish() override {
    if (tty_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  bool tty_;
};

class SilentProgress : public Progress {
 public:
  void step(int, int, const std::string&) override {}
  void finish() override {}
};

}  // namespace

const char* status_name(Status s) {
  switch (s) {
    case Status::passed:
      return "passed";
    case Status::waived:
      return "waived";
    case Status::failed:
      return "failed";
  }
  return "?";
}

const char* failure_kind_name(Failure::Kind k) {
  switch (k) {
    case Failure::Kind::error:
      return "error";
    case Failure::Kind::out_of_memory:
      return "out_of_memory";
    case Failure::Kind::device_lost:
      return "device_lost";
    case Failure::Kind::unsupported:
      return "unsupported";
    case Failure::Kind::timeout:
      return "timeout";
    case Failure::Kind::cancelled:
      return "cancelled";
  }
  return "?";
}

Stats stats_of(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.n = int(n);
  s.min = v.front();
  s.max = v.back();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return s;
}

Row failed_row(const std::string& case_name, std::optional<int> gpu, const Failure& f) {
  Row r;
  r.case_name = case_name;
  r.gpu = gpu;
  r.status = Status::failed;
  r.reason = f.message;
  r.error = f;
  return r;
}

Iterations iterations_for(double single_s, const Budget& b) {
  const double t1 = std::max(single_s, 1e-9);
  Iterations it;
  it.warmup = std::clamp(int(std::ceil(b.warmup_s / t1)), b.min_warmup, 10000);
  it.timed = std::clamp(int(b.timed_s / t1), b.min_timed, b.max_timed);
  return it;
}

Outcome<Measured> Context::measure(const std::vector<int64_t>& sizes, const Budget& b,
                                   const std::function<Outcome<Timings>(int64_t, Iterations)>& run,
                                   const std::string& what) {
  std::optional<Failure> last;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t size = sizes[i];
    const bool smaller_left = i + 1 < sizes.size();
    auto note_oom = [&](const Failure& f) {
      warnings.push_back(
          what + ": out of memory at size " + size_label(size) +
          (smaller_left ? "; retrying at " + size_label(sizes[i + 1]) : "; no smaller size left") +
          " (" + f.name + ")");
    };
    auto cal = run(size, Iterations{1, 1});
    if (!cal.ok()) {
      if (cal.failure().kind != Failure::Kind::out_of_memory) return cal.failure();
      note_oom(cal.failure());
      last = cal.failure();
      continue;
    }
    const double t1 = std::max(cal.value().empty() ? 0.0 : cal.value().front(), 1e-9);
    if (t1 > b.max_single_s && smaller_left) {
      char secs[32];
      std::snprintf(secs, sizeof secs, "%.3g", t1);
      warnings.push_back(what + ": one iteration at size " + size_label(size) + " took " + secs +
                         " s; measuring at " + size_label(sizes[i + 1]) + " instead");
      continue;
    }
    const Iterations it = iterations_for(t1, b);
    auto r = run(size, it);
    if (!r.ok()) {
      if (r.failure().kind != Failure::Kind::out_of_memory) return r.failure();
      note_oom(r.failure());
      last = r.failure();
      continue;
    }
    return Measured{size, it, r.value()};
  }
  Failure f = last.value_or(Failure{Failure::Kind::out_of_memory, "no_size", "", "", ""});
  f.message = what + ": out of memory even at the smallest size (" + size_label(sizes.back()) + ")";
  return f;
}

std::string select_cases(const std::vector<std::unique_ptr<Case>>& cases,
                         const std::vector<std::string>& patterns, std::vector<Case*>& out) {
  out.clear();
  std::set<const Case*> chosen;
  for (const auto& p : patterns) {
    const bool prefix = !p.empty() && p.back() == '*';
    const std::string stem = prefix ? p.substr(0, p.size() - 1) : p;
    bool any = false;
    for (const auto& c : cases) {
      if (prefix ? c->name().rfind(stem, 0) == 0 : c->name() == p) {
        chosen.insert(c.get());
        any = true;
      }
    }
    if (!any) return "--case: unknown case '" + p + "' (run --list for the names)";
  }
  for (const auto& c : cases) {
    if (patterns.empty() || chosen.count(c.get())) out.push_back(c.get());
  }
  return {};
}

std::unique_ptr<Progress> make_stderr_progress() {
  return std::make_unique<StderrProgress>();
}
std::unique_ptr<Progress> make_silent_progress() {
  return std::make_unique<SilentProgress>();
}

namespace {

// One case on one GPU (gpu -1: a case over all GPUs).
struct Step {
  Case* c;
  int gpu;
};

std::vector<Step> plan_steps(const std::vector<Case*>& cases, const std::vector<GpuInfo>& gpus) {
  std::vector<Step> steps;
  for (Case* c : cases) {
    if (c->per_gpu()) {
      for (const auto& g : gpus) steps.push_back({c, g.index});
    } else {
      steps.push_back({c, -1});
    }
  }
  return steps;
}

// Clock samples of the GPUs a step uses, taken before it starts.
ClockWindow open_window(Device& device, const std::vector<GpuInfo>& gpus, int gpu) {
  ClockWindow window;
  if (gpu >= 0) {
    window.gpus = {gpu};
  } else {
    for (const auto& g : gpus) window.gpus.push_back(g.index);
  }
  for (int g : window.gpus) window.before.push_back(device.clocks(g));
  window.during.resize(window.gpus.size());
  return window;
}

// Runs the step on a worker thread that fills `task` (exceptions become a failed row).
std::thread start_worker(const std::shared_ptr<Task>& task, Case* c, int gpu, Device& device,
                         const std::vector<GpuInfo>& gpus, const RunOptions& options) {
  return std::thread([task, c, gpu, &device, &gpus, &options] {
    Context ctx{device, gpus, options.full, options.group, {}, options.peers};
    std::vector<Row> rows;
    try {
      rows = c->run(ctx, gpu);
    } catch (const std::exception& e) {
      rows = {
          failed_row(c->name(), gpu >= 0 ? std::optional<int>(gpu) : std::nullopt,
                     Failure{Failure::Kind::error, "exception", c->name(), "harness", e.what()})};
    }
    std::lock_guard<std::mutex> lock(task->m);
    task->rows = std::move(rows);
    task->warnings = std::move(ctx.warnings);
    task->done = true;
    task->cv.notify_all();
  });
}

// Waits for the task, sampling clocks every 100 ms; false when it ran past `timeout`.
bool wait_for(Task& task, ClockWindow& window, Device& device,
              std::chrono::duration<double> timeout) {
  const auto start = Clock::now();
  std::unique_lock<std::mutex> lock(task.m);
  while (!task.cv.wait_for(lock, std::chrono::milliseconds(100), [&] { return task.done; })) {
    lock.unlock();
    for (size_t k = 0; k < window.gpus.size(); ++k)
      merge(window.during[k], device.clocks(window.gpus[k]));
    lock.lock();
    if (Clock::now() - start > timeout) return false;
  }
  return true;
}

// A step that ran past --case-timeout: cancel it, give its thread 2 s, and record the failure.
Row timed_out_row(Task& task, std::thread& worker, Device& device, Case* c,
                  std::optional<int> row_gpu, ClockWindow window, const RunOptions& options,
                  RunResult& result) {
  device.cancel();
  std::unique_lock<std::mutex> lock(task.m);
  const bool returned = task.cv.wait_for(lock, std::chrono::seconds(2), [&] { return task.done; });
  lock.unlock();
  if (returned) {
    worker.join();
  } else {
    worker.detach();
    result.worker_stuck = true;
  }
  char secs[32];
  std::snprintf(secs, sizeof secs, "%g", options.case_timeout_s);
  Failure f{
      Failure::Kind::timeout, "timeout", c->name(), "harness",
      c->name() + " did not finish within " + secs + " s (--case-timeout); the GPU may be hung"};
  Row r = failed_row(c->name(), row_gpu, f);
  for (int g : window.gpus) window.after.push_back(device.clocks(g));
  r.clocks = window;
  return r;
}

// Why a step is not run ("" when it runs): an earlier abort, its own filter, or (collective
// steps across nodes) another node that cannot run it. Every node reaches a collective step, so
// that all of them run it or none does.
std::string skip_reason(Case* c, int gpu, const std::string& abort_reason,
                        const Context& filter_ctx, const RunOptions& options) {
  const std::string why = abort_reason.empty() ? c->filter(filter_ctx, gpu) : std::string();
  const bool several_nodes = options.peers && options.peers->size() > 1;
  // Called on every node, also after an abort, so that the agreement itself never hangs.
  const std::string elsewhere =
      c->collective() && several_nodes
          ? first_problem(*options.peers,
                          abort_reason.empty() ? why : "cannot run it (" + abort_reason + ")")
          : std::string();
  return !abort_reason.empty() ? abort_reason : !why.empty() ? why : elsewhere;
}

}  // namespace

RunResult run_cases(Device& device, const std::vector<GpuInfo>& gpus,
                    const std::vector<Case*>& cases, const RunOptions& options,
                    Progress& progress) {
  RunResult result;
  const std::vector<Step> steps = plan_steps(cases, gpus);
  Context filter_ctx{device, gpus, options.full, options.group, {}, options.peers};
  std::string abort_reason;  // set when a GPU is lost or hangs: the rest is not run
  const auto timeout = std::chrono::duration<double>(options.case_timeout_s);
  for (size_t i = 0; i < steps.size(); ++i) {
    Case* c = steps[i].c;
    const int gpu = steps[i].gpu;
    const std::optional<int> row_gpu = gpu >= 0 ? std::optional<int>(gpu) : std::nullopt;
    const std::string label = c->name() + (gpu >= 0 ? " gpu " + std::to_string(gpu) : "");
    progress.step(int(i), int(steps.size()), label);
    if (std::string why = skip_reason(c, gpu, abort_reason, filter_ctx, options); !why.empty()) {
      Row r;
      r.case_name = c->name();
      r.gpu = row_gpu;
      r.status = abort_reason.empty() ? Status::waived : Status::failed;
      r.reason = why;
      result.rows.push_back(std::move(r));
      continue;
    }
    ClockWindow window = open_window(device, gpus, gpu);
    device.begin_case(c->name());
    auto task = std::make_shared<Task>();
    std::thread worker = start_worker(task, c, gpu, device, gpus, options);
    if (!wait_for(*task, window, device, timeout)) {
      result.rows.push_back(
          timed_out_row(*task, worker, device, c, row_gpu, window, options, result));
      abort_reason = "not run: " + label + " timed out before it";
      continue;
    }
    worker.join();
    for (int g : window.gpus) window.after.push_back(device.clocks(g));
    for (auto& w : task->warnings) result.warnings.push_back(std::move(w));
    for (auto& r : task->rows) {
      if (r.status != Status::waived) r.clocks = window;
      if (r.error && r.error->kind == Failure::Kind::device_lost && abort_reason.empty()) {
        abort_reason = "not run: the GPU was lost during " + label + " (" + r.error->name + ")";
      }
      result.rows.push_back(std::move(r));
    }
  }
  progress.finish();
  return result;
}

}  // namespace gpuplan::probe
