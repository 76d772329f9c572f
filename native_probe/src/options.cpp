// Command-line parsing for gpuplan-probe.
#include "options.h"

#include <cstdlib>

#include "cloud_metadata.h"

namespace gpuplan::probe {
namespace {

bool parse_number(const std::string& s, double& out) {
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return !s.empty() && end && *end == '\0' && out >= 0;
}

}  // namespace

const char* usage_text() {
  return R"(usage: gpuplan-probe [options]

Measures this machine's GPUs (GEMM per precision, memory bandwidth, host<->device and GPU<->GPU
copies, NCCL all-reduce) and writes one signed JSON file for gpuplan's calibration.

  --list                 list the cases and exit
  --case NAME            run only NAME (repeatable; a trailing * matches a prefix: gemm_*)
  --quick                short run, about 20 s on one H100 (default)
  --full                 size sweeps and longer timing, about 90 s on one H100
  --out FILE             output file (default gpuplan-probe-<UTC time>.json)
  --key FILE             signing key (default ~/.config/gpuplan/probe-key; made on first run, mode 0600)
  --no-metadata          do not ask the cloud metadata service for the instance type
  --metadata-url URL     metadata base URL (default http://169.254.169.254; IP literal only)
  --metadata-timeout S   limit per metadata request in seconds (default 0.3)
  --case-timeout S       fail a case that runs longer than S seconds (default 120, 600 with --full)
  --simulate GPU_ID[:N]  no GPU needed: N simulated GPUs from data/gpus/GPU_ID.json (catalog peak x
                         default efficiency; the file says "simulated": true)
  --fault KIND:ARG       test hook for --simulate: device-lost:CASE, oom:CASE, oom-always:CASE,
                         hang:CASE, slow-gpu:N; and stall-before-rename:SECONDS
  --help                 this text

       gpuplan-probe sign FILE [--key KEY] [--out OUT]
                         sign a payload written by gpuplan-measure with the same key and envelope

exit codes:
  0    file written; every case passed or was waived
  1    file written; at least one case failed (its result says why)
  2    usage error; nothing ran
  3    no usable GPU: no NVIDIA driver, stub or too old a driver, no device visible, or a build
       without CUDA; no file written
  4    the signing key or the output file could not be used; no file written
  130  interrupted (SIGINT), 143 terminated (SIGTERM); no file written, temporary file removed

Multi-GPU machines: every GPU is measured, GPU pairs and NCCL all-reduce across all of them.
Multi-node: gpuplan-probe-mpi (the same options) under mpirun or srun, one rank per node: each
node measures its GPUs, the all-reduce spans every GPU of every node, and rank 0 writes one file.
)";
}

int launched_ranks(const char* (*get)(const char*)) {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"}) {
    if (const char* v = get(name)) {
      const int n = std::atoi(v);
      if (n > 1) return n;
    }
  }
  return 1;
}

std::string parse_options(int argc, char** argv, Options& o) {
  o.metadata_url = kMetadataBaseUrl;
  for (int i = 1; i < argc; ++i) o.arguments.push_back(argv[i]);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](std::string& out) -> bool {
      if (i + 1 >= argc) return false;
      out = argv[++i];
      return true;
    };
    std::string v;
    if (a == "--help" || a == "-h")
      o.help = true;
    else if (a == "--list")
      o.list = true;
    else if (a == "--quick")
      o.full = false;
    else if (a == "--full")
      o.full = true;
    else if (a == "--no-metadata")
      o.no_metadata = true;
    else if (a == "--case") {
      if (!value(v)) return "--case needs a case name (see --list)";
      o.cases.push_back(v);
    } else if (a == "--out") {
      if (!value(o.out) || o.out.empty()) return "--out needs a file name";
    } else if (a == "--key") {
      if (!value(o.key) || o.key.empty()) return "--key needs a file name";
    } else if (a == "--metadata-url") {
      if (!value(o.metadata_url) || o.metadata_url.rfind("http://", 0) != 0)
        return "--metadata-url needs an http:// URL";
    } else if (a == "--metadata-timeout") {
      if (!value(v) || !parse_number(v, o.metadata_timeout_s) || o.metadata_timeout_s <= 0) {
        return "--metadata-timeout needs a positive number of seconds";
      }
    } else if (a == "--case-timeout") {
      if (!value(v) || !parse_number(v, o.case_timeout_s) || o.case_timeout_s <= 0) {
        return "--case-timeout needs a positive number of seconds";
      }
    } else if (a == "--simulate") {
      if (!value(v) || v.empty())
        return "--simulate needs a GPU id from data/gpus (e.g. h100-sxm5-80gb)";
      const size_t colon = v.find(':');
      o.simulate = v.substr(0, colon);
      if (colon != std::string::npos) {
        o.simulate_count = std::atoi(v.c_str() + colon + 1);
        if (o.simulate_count < 1 || o.simulate_count > 64)
          return "--simulate " + v + ": GPU count must be 1 to 64";
      }
    } else if (a == "--fault") {
      if (!value(v)) return "--fault needs KIND:ARGUMENT";
      if (v.rfind("stall-before-rename:", 0) == 0) {
        if (!parse_number(v.substr(20), o.stall_before_rename_s))
          return "--fault " + v + ": needs seconds";
      } else {
        o.faults.push_back(v);
      }
    } else {
      return "unknown option '" + a + "'";
    }
  }
  if (!o.faults.empty() && o.simulate.empty()) return "--fault works only with --simulate";
  return {};
}

}  // namespace gpuplan::probe
