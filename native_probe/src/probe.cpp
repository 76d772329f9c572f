// The run: metadata in the background, cases in the foreground, then the payload.
#include "probe.h"

#include <cstdio>
#include <cstdlib>
#include <future>

#include "report.h"
#include "simulated_device.h"

namespace gpuplan::probe {

ProbeResult run_probe(const Options& o, Device& device, const std::vector<GpuInfo>& gpus,
                      const std::vector<Case*>& cases, Progress& progress,
                      const std::vector<CatalogGpu>& catalog, Peers* peers,
                      const CollectiveGroup& group) {
  ReportInput in;
  in.simulated = device.simulated();
  in.started_utc = utc_now();
  in.arguments = o.arguments;
  in.environment = allowed_environment([](const char* name) { return std::getenv(name); });
  in.host = read_host_info();
  in.software = device.software();
  in.gpus = gpus;

  std::future<std::optional<CloudInfo>> cloud;
  if (!o.no_metadata) {
    cloud = std::async(std::launch::async,
                       [&o] { return query_cloud_metadata(o.metadata_url, o.metadata_timeout_s); });
  }

  for (const auto& g : gpus) in.catalog_ids.push_back(match_catalog_gpu(catalog, g.name));
  for (const auto& a : gpus) {
    std::vector<bool> row;
    for (const auto& b : gpus)
      row.push_back(a.index != b.index && device.peer_access(a.index, b.index));
    in.peer_access.push_back(row);
  }

  RunOptions ro;
  ro.full = o.full;
  ro.case_timeout_s = o.case_timeout_s > 0 ? o.case_timeout_s : (o.full ? 600 : 120);
  ro.peers = peers;
  ro.group = group;
  in.run = run_cases(device, gpus, cases, ro, progress);
  in.finished_utc = utc_now();

  std::vector<std::string> notes;
  if (in.simulated) {
    const auto& e = simulated_efficiency();
    char buf[320];
    std::snprintf(
        buf, sizeof buf,
        "simulated run: figures are data/gpus catalog peaks x data/assumptions.json efficiencies "
        "(gemm %.3f, hbm read %.3f / write %.3f / copy %.3f / triad %.3f, pcie pinned %.3f / "
        "pageable "
        "%.2f, p2p %.2f, all-reduce busbw %.3f), not measurements",
        e.gemm, e.hbm_read, e.hbm_write, e.hbm_copy, e.hbm_triad, e.pcie_pinned, e.pcie_pageable,
        e.p2p, e.allreduce);
    notes.push_back(buf);
    if (auto* sim = dynamic_cast<SimulatedDevice*>(&device))
      notes.insert(notes.end(), sim->notes().begin(), sim->notes().end());
  }
  for (size_t i = 0; i < gpus.size(); ++i) {
    if (!in.catalog_ids[i])
      notes.push_back("GPU " + std::to_string(i) + " '" + gpus[i].name +
                      "' matches no data/gpus entry");
  }
  if (o.no_metadata) {
    notes.push_back("cloud metadata not queried (--no-metadata)");
  } else {
    in.cloud = cloud.get();
  }
  in.run.warnings.insert(in.run.warnings.begin(), notes.begin(), notes.end());

  ProbeResult r;
  for (const auto& row : in.run.rows) {
    (row.status == Status::passed   ? r.passed
     : row.status == Status::waived ? r.waived
                                    : r.failed) += 1;
  }
  r.exit_code = r.failed ? kExitCaseFailed : kExitOk;
  r.worker_stuck = in.run.worker_stuck;
  r.payload = build_payload(in);
  return r;
}

}  // namespace gpuplan::probe
