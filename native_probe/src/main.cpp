// gpuplan-probe: measures the GPUs of this machine and writes one signed probe file.
// Order matters: the device is opened before the key is touched (no GPU: exit 3, nothing
// written) and the output folder is checked before minutes of measuring.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "cuda/cuda_device.h"
#include "gpuplan/embedded_data.h"
#include "gpuplan/key_file.h"
#include "gpuplan/probe_file.h"
#include "gpuplan/signing.h"
#include "options.h"
#include "output.h"
#include "probe.h"
#include "simulated_device.h"

namespace probe = gpuplan::probe;

namespace {

int usage_error(const std::string& message) {
  std::fprintf(stderr, "gpuplan-probe: %s\n(run 'gpuplan-probe --help' for usage)\n", message.c_str());
  return probe::kExitUsage;
}

std::string default_out() {
  char buf[64];
  const std::time_t t = std::time(nullptr);
  std::tm tm {};
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "gpuplan-probe-%Y%m%dT%H%M%SZ.json", &tm);
  return buf;
}

std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

int main(int argc, char** argv) {
  probe::install_signal_handlers();
  probe::Options o;
  if (std::string err = probe::parse_options(argc, argv, o); !err.empty()) return usage_error(err);
  if (o.help) {
    std::fputs(probe::usage_text(), stdout);
    return probe::kExitOk;
  }
  if (const int ranks = probe::launched_ranks([](const char* n) -> const char* { return std::getenv(n); });
      ranks > 1 && !o.list) {
    return usage_error("started as one of " + std::to_string(ranks) +
                       " ranks (mpirun/srun), but multi-node runs are not implemented yet; run gpuplan-probe once "
                       "per node, without mpirun");
  }
  auto cases = probe::all_cases();
  if (o.list) {
    for (const auto& c : cases) std::printf("%-18s %s\n", c->name().c_str(), c->description().c_str());
    return probe::kExitOk;
  }
  std::vector<probe::Case*> selected;
  if (std::string err = probe::select_cases(cases, o.cases, selected); !err.empty()) return usage_error(err);

  const auto catalog = probe::load_catalog_gpus(gpuplan::embedded_data_files());
  std::unique_ptr<probe::Device> device;
  if (!o.simulate.empty()) {
    const probe::CatalogGpu* g = probe::find_catalog_gpu(catalog, o.simulate);
    if (!g) return usage_error("--simulate: unknown GPU id '" + o.simulate + "' (ids are the file names in data/gpus)");
    probe::SimulatedFaults faults;
    for (const auto& f : o.faults) {
      if (std::string err = probe::add_fault(faults, f); !err.empty()) return usage_error(err);
    }
    device = std::make_unique<probe::SimulatedDevice>(*g, o.simulate_count, faults);
  } else {
    device = probe::make_cuda_device();
  }

  auto gpus = device->open();
  if (!gpus.ok()) {
    std::fprintf(stderr, "gpuplan-probe: no usable GPU: %s\n", gpus.failure().message.c_str());
    return probe::kExitNoGpu;
  }

  if (o.out.empty()) o.out = default_out();
  if (access(folder_of(o.out).c_str(), W_OK) != 0) {
    std::fprintf(stderr, "gpuplan-probe: cannot write to folder '%s' (for --out %s)\n", folder_of(o.out).c_str(),
                 o.out.c_str());
    return probe::kExitOutput;
  }
  const std::string key_path = o.key.empty() ? gpuplan::signing::default_key_path() : o.key;
  auto key = gpuplan::signing::load_or_create_key(key_path);
  if (!key.ok()) {
    std::fprintf(stderr, "gpuplan-probe: signing key: %s\n", key.error().message.c_str());
    return probe::kExitOutput;
  }
  std::fprintf(stderr, "gpuplan-probe: signing key %s%s %s\n",
               gpuplan::probe_key_fingerprint(key.value().key.public_key).c_str(),
               key.value().created ? " (new, written to" : " (from", (key_path + ")").c_str());
  std::fprintf(stderr, "gpuplan-probe: %zu GPU(s): %s%s\n", gpus.value().size(), gpus.value().front().name.c_str(),
               device->simulated() ? " [simulated]" : "");

  auto progress = probe::make_stderr_progress();
  probe::ProbeResult r = probe::run_probe(o, *device, gpus.value(), selected, *progress, catalog);

  const std::string envelope = gpuplan::signing::sign_probe_payload(r.payload, key.value().key);
  // Read back what will be written, through the same code gpuplan verify uses.
  auto check = gpuplan::read_probe_file(envelope, gpuplan::signing::verify_detached,
                                        {gpuplan::base64_encode(key.value().key.public_key)});
  int code = r.exit_code;
  if (!check.ok() || check.value().signature != gpuplan::ProbeSignature::valid) {
    std::fprintf(stderr, "gpuplan-probe: internal error: the signed file does not read back: %s\n",
                 check.ok() ? check.value().reason.c_str() : check.error().message.c_str());
    code = probe::kExitOutput;
  } else if (std::string err = probe::write_file_atomically(o.out, envelope, o.stall_before_rename_s); !err.empty()) {
    std::fprintf(stderr, "gpuplan-probe: %s\n", err.c_str());
    code = probe::kExitOutput;
  } else {
    const auto& s = check.value().payload->summary;
    std::fprintf(stderr, "gpuplan-probe: wrote %s: %d passed, %d waived, %d failed; slowest GPU %lld (%s)\n",
                 o.out.c_str(), r.passed, r.waived, r.failed, static_cast<long long>(s.slowest_gpu),
                 s.gpu_name.c_str());
  }
  if (r.worker_stuck) {
    // A hung case's thread is still inside the driver: do not wait for it, or run destructors.
    std::fflush(nullptr);
    std::_Exit(code);
  }
  return code;
}
