// gpuplan-probe: measures the GPUs of this machine and writes one signed probe file.
// Order matters: the device is opened before the key is touched (no GPU: exit 3, nothing
// written) and the output folder is checked before minutes of measuring.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <optional>

#include "cluster/merge.h"
#include "cluster/peers.h"
#include "cuda/cuda_device.h"
#include "gpuplan/embedded_data.h"
#include "gpuplan/key_file.h"
#include "gpuplan/probe_file.h"
#include "gpuplan/signing.h"
#include "host_info.h"
#include "options.h"
#include "output.h"
#include "probe.h"
#include "sign_command.h"
#include "simulated_device.h"

namespace probe = gpuplan::probe;

namespace {

int usage_error(const std::string& message) {
  std::fprintf(stderr, "gpuplan-probe: %s\n(run 'gpuplan-probe --help' for usage)\n",
               message.c_str());
  return probe::kExitUsage;
}

std::string default_out() {
  char buf[64];
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "gpuplan-probe-%Y%m%dT%H%M%SZ.json", &tm);
  return buf;
}

std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// Signs `payload`, reads the envelope back through gpuplan verify's code, writes it atomically.
int write_signed(const probe::Options& o, const std::string& payload,
                 const gpuplan::signing::KeyFile& key) {
  const std::string envelope = gpuplan::signing::sign_probe_payload(payload, key.key);
  auto check = gpuplan::signing::read_probe_file(
      envelope, {gpuplan::signing::base64_encode(key.key.public_key)});
  if (!check.ok() || check.value().signature != gpuplan::ProbeSignature::valid) {
    std::fprintf(stderr, "gpuplan-probe: internal error: the signed file does not read back: %s\n",
                 check.ok() ? check.value().reason.c_str() : check.error().message.c_str());
    return probe::kExitOutput;
  }
  if (std::string err = probe::write_file_atomically(o.out, envelope, o.stall_before_rename_s);
      !err.empty()) {
    std::fprintf(stderr, "gpuplan-probe: %s\n", err.c_str());
    return probe::kExitOutput;
  }
  const auto& p = *check.value().payload;
  const auto& s = p.summary;
  std::fprintf(stderr,
               "gpuplan-probe: wrote %s: %lld passed, %lld waived, %lld failed; %lld GPU(s) on "
               "%lld node(s); "
               "slowest GPU %lld (%s)\n",
               o.out.c_str(), static_cast<long long>(p.results_passed),
               static_cast<long long>(p.results_waived), static_cast<long long>(p.results_failed),
               static_cast<long long>(s.gpu_count), static_cast<long long>(s.node_count),
               static_cast<long long>(s.slowest_gpu), s.gpu_name.c_str());
  return p.results_failed > 0 ? probe::kExitCaseFailed : probe::kExitOk;
}

// The device to measure: the simulated one for --simulate (with its faults), else CUDA. On a
// usage problem returns null and sets `usage`.
std::unique_ptr<probe::Device> make_device(const probe::Options& o,
                                           const std::vector<probe::CatalogGpu>& catalog,
                                           std::string& usage) {
  if (o.simulate.empty()) return probe::make_cuda_device();
  const probe::CatalogGpu* g = probe::find_catalog_gpu(catalog, o.simulate);
  if (!g) {
    usage = "--simulate: unknown GPU id '" + o.simulate + "' (ids are the file names in data/gpus)";
    return nullptr;
  }
  probe::SimulatedFaults faults;
  for (const auto& f : o.faults) {
    if (std::string err = probe::add_fault(faults, f); !err.empty()) {
      usage = err;
      return nullptr;
    }
  }
  return std::make_unique<probe::SimulatedDevice>(*g, o.simulate_count, faults);
}

// Rank 0 checks the output folder and loads (or creates) the signing key before minutes of
// measuring; returns the problem, or "".
std::string prepare_output(const probe::Options& o, std::optional<gpuplan::signing::KeyFile>& key) {
  const std::string key_path = o.key.empty() ? gpuplan::signing::default_key_path() : o.key;
  if (access(folder_of(o.out).c_str(), W_OK) != 0) {
    return "cannot write to folder '" + folder_of(o.out) + "' (for --out " + o.out + ")";
  }
  auto k = gpuplan::signing::load_or_create_key(key_path);
  if (!k.ok()) return "signing key: " + k.error().message;
  key = k.value();
  std::fprintf(stderr, "gpuplan-probe: signing key %s%s %s\n",
               gpuplan::signing::key_fingerprint(key->key.public_key).c_str(),
               key->created ? " (new, written to" : " (from", (key_path + ")").c_str());
  return "";
}

// The all-reduce spans every GPU of every node: NCCL ranks numbered node by node.
probe::CollectiveGroup collective_group(probe::Peers& peers, probe::Device& device,
                                        size_t local_gpus) {
  probe::CollectiveGroup group;
  if (peers.size() <= 1) return group;
  const auto counts = peers.all_gather(std::to_string(local_gpus));
  for (size_t r = 0; r < counts.size(); ++r) {
    const int n = std::atoi(counts[r].c_str());
    if (int(r) < peers.rank()) group.first_rank += n;
    group.world_ranks += n;
  }
  group.unique_id = probe::broadcast_from_root(
      peers, device.collectives_unavailable().empty() ? device.collective_id() : std::string());
  return group;
}

void announce(const std::vector<probe::GpuInfo>& gpus, const probe::Device& device,
              const probe::Peers& peers, const probe::CollectiveGroup& group) {
  std::fprintf(stderr, "gpuplan-probe: %zu GPU(s): %s%s%s\n", gpus.size(),
               gpus.front().name.c_str(), device.simulated() ? " [simulated]" : "",
               peers.size() > 1 ? (" on node 0 of " + std::to_string(peers.size()) + ", " +
                                   std::to_string(group.world_ranks) + " GPUs in all")
                                      .c_str()
                                : "");
}

// Rank 0 writes one file for every node; returns the exit code.
int write_results(const probe::Options& o, probe::Peers& peers, const probe::ProbeResult& r,
                  const std::optional<gpuplan::signing::KeyFile>& key) {
  const bool root = peers.rank() == 0;
  const auto payloads = peers.all_gather(r.payload);
  int code = r.exit_code;
  std::string payload = r.payload;
  if (peers.size() > 1 && root) {
    std::string err;
    payload = probe::merge_node_payloads(payloads, err);
    if (payload.empty()) {
      std::fprintf(stderr, "gpuplan-probe: internal error: %s\n", err.c_str());
      code = probe::kExitOutput;
    }
  }
  if (root && !payload.empty()) code = std::max(code, write_signed(o, payload, *key));
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  probe::install_signal_handlers();
  // `gpuplan-probe sign FILE`: sign a payload another tool wrote (gpuplan-measure); no GPU needed.
  if (argc > 1 && std::string(argv[1]) == "sign")
    return probe::run_sign_command(argc - 2, argv + 2);
  // First: MPI may take its own arguments out of argv.
  const std::unique_ptr<probe::Peers> peers = probe::make_process_peers(&argc, &argv);
  const bool root = peers->rank() == 0;
  probe::Options o;
  if (std::string err = probe::parse_options(argc, argv, o); !err.empty()) return usage_error(err);
  if (o.help) {
    if (root) std::fputs(probe::usage_text(), stdout);
    return probe::kExitOk;
  }
  if (const int ranks =
          probe::launched_ranks([](const char* n) -> const char* { return std::getenv(n); });
      ranks > 1 && peers->size() == 1 && !o.list) {
    return usage_error(
        "started as one of " + std::to_string(ranks) +
        " ranks (mpirun/srun), but this gpuplan-probe is built without MPI; use gpuplan-probe-mpi "
        "for multi-node runs, or run gpuplan-probe once per node without mpirun");
  }
  auto cases = probe::all_cases();
  if (o.list) {
    for (const auto& c : cases) {
      if (root) std::printf("%-18s %s\n", c->name().c_str(), c->description().c_str());
    }
    return probe::kExitOk;
  }
  std::vector<probe::Case*> selected;
  if (std::string err = probe::select_cases(cases, o.cases, selected); !err.empty())
    return usage_error(err);

  const auto catalog = probe::load_catalog_gpus(gpuplan::embedded_data_files());
  std::string usage;
  std::unique_ptr<probe::Device> device = make_device(o, catalog, usage);
  if (!device) return usage_error(usage);

  // Every step below that can fail on one node is agreed by all, so no node waits for one
  // that has left.
  auto gpus = device->open();
  const std::string host = probe::read_host_info().hostname;
  if (const std::string problem =
          probe::first_problem(*peers, gpus.ok() ? "" : gpus.failure().message + " (" + host + ")");
      !problem.empty()) {
    if (root || !gpus.ok()) {
      std::fprintf(stderr, "gpuplan-probe: no usable GPU: %s\n",
                   peers->size() > 1 ? problem.c_str() : gpus.failure().message.c_str());
    }
    return probe::kExitNoGpu;
  }

  if (o.out.empty()) o.out = default_out();
  std::optional<gpuplan::signing::KeyFile> key;
  const std::string output_problem = root ? prepare_output(o, key) : std::string();
  if (const std::string problem = probe::first_problem(*peers, output_problem); !problem.empty()) {
    if (root) std::fprintf(stderr, "gpuplan-probe: %s\n", output_problem.c_str());
    return probe::kExitOutput;
  }

  const probe::CollectiveGroup group = collective_group(*peers, *device, gpus.value().size());
  if (root) announce(gpus.value(), *device, *peers, group);
  auto progress = root ? probe::make_stderr_progress() : probe::make_silent_progress();
  probe::ProbeResult r =
      probe::run_probe(o, *device, gpus.value(), selected, *progress, catalog, peers.get(), group);
  const int code = write_results(o, *peers, r, key);
  if (r.worker_stuck) {
    // A hung case's thread is still inside the driver: do not wait for it, or run destructors.
    std::fflush(nullptr);
    std::_Exit(code);
  }
  return code;
}
