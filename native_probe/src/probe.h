#pragma once
// One probe run without the process around it: cases -> rows -> payload text. main.cpp adds
// the key, the signature and the file; tests call this directly with a SimulatedDevice.

#include <string>
#include <vector>

#include "device.h"
#include "gpu_catalog.h"
#include "harness.h"
#include "options.h"

namespace gpuplan::probe {

struct ProbeResult {
  int exit_code = kExitOk;  // kExitOk, or kExitCaseFailed when a case failed
  std::string payload;      // JSON text
  int passed = 0, waived = 0, failed = 0;
  bool worker_stuck = false;  // a hung case's thread still runs: leave with _Exit
};

// Runs `cases` on the opened `device` (`gpus` from device.open()) and builds the payload,
// including host facts, the allow-listed environment and (unless --no-metadata) cloud metadata.
// Under MPI, `peers` and `group` make the all-reduce span every node; the payload is this
// node's (cluster/merge.h joins them).
ProbeResult run_probe(const Options& options, Device& device, const std::vector<GpuInfo>& gpus,
                      const std::vector<Case*>& cases, Progress& progress,
                      const std::vector<CatalogGpu>& catalog, Peers* peers = nullptr,
                      const CollectiveGroup& group = {});

}  // namespace gpuplan::probe
