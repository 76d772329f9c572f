// gpuplan-probe without a GPU: the harness and every case on SimulatedDevice (catalog peak x
// stated efficiency), injected faults, the payload through the core's verifier, cloud metadata
// against fake servers on 127.0.0.1 only, key files and atomic output.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "cloud_metadata.h"
#include "cluster/merge.h"
#include "cluster/peers.h"
#include "gpu_catalog.h"
#include "gpuplan/calibration.h"
#include "gpuplan/catalog.h"
#include "gpuplan/embedded_data.h"
#include "gpuplan/key_file.h"
#include "gpuplan/probe_file.h"
#include "gpuplan/signing.h"
#include "harness.h"
#include "http_client.h"
#include "options.h"
#include "output.h"
#include "probe.h"
#include "simulated_device.h"

namespace gpuplan::probe {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// The core's catalog (for calibrating with a simulated file).
const gpuplan::Catalog& test_catalog() {
  static const gpuplan::Catalog c = load_catalog(embedded_data_files()).value();
  return c;
}

const std::vector<CatalogGpu>& catalog() {
  static const auto c = load_catalog_gpus(embedded_data_files());
  return c;
}

struct SimRun {
  ProbeResult result;
  json payload;
};

SimRun simulate(const std::string& id, int count, SimulatedFaults faults = {}, Options o = {},
                const std::vector<std::string>& patterns = {}) {
  const CatalogGpu* g = find_catalog_gpu(catalog(), id);
  EXPECT_TRUE(g) << id;
  SimulatedDevice device(*g, count, faults);
  auto gpus = device.open();
  auto cases = all_cases();
  std::vector<Case*> selected;
  EXPECT_EQ(select_cases(cases, patterns, selected), "");
  if (o.metadata_url.empty()) o.no_metadata = true;
  auto progress = make_silent_progress();
  SimRun r{run_probe(o, device, gpus.value(), selected, *progress, catalog()), {}};
  r.payload = json::parse(r.result.payload);
  return r;
}

// The first result row of `case_name` on `gpu` (-1: a machine-wide row).
const json& row(const json& payload, const std::string& case_name, int gpu = 0) {
  for (const auto& r : payload["results"]) {
    if (r["case"] == case_name && (gpu < 0 ? r["gpu"].is_null() : r["gpu"] == gpu)) return r;
  }
  static const json none;
  ADD_FAILURE() << "no row " << case_name << " gpu " << gpu;
  return none;
}

std::string temp_dir() {
  std::string t = testing::TempDir() + "/probe_test.XXXXXX";
  EXPECT_NE(mkdtemp(t.data()), nullptr);
  return t;
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
        names.push_back(e->d_name);
    }
    closedir(d);
  }
  return names;
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// --- harness basics ----------------------------------------------------------------------------

TEST(Stats, MedianMinMaxOfOddAndEvenCounts) {
  const Stats odd = stats_of({3, 1, 2});
  EXPECT_EQ(odd.median, 2);
  EXPECT_EQ(odd.min, 1);
  EXPECT_EQ(odd.max, 3);
  EXPECT_EQ(odd.n, 3);
  EXPECT_EQ(stats_of({4, 1, 3, 2}).median, 2.5);
}

TEST(Cases, EveryRequiredCaseIsRegisteredOnceInRunOrder) {
  std::vector<std::string> names;
  for (const auto& c : all_cases()) names.push_back(c->name());
  const std::vector<std::string> want = {
      "device_properties", "gemm_fp64",    "gemm_fp32",  "gemm_tf32",     "gemm_fp16",
      "gemm_bf16",         "gemm_fp8",     "gemm_mxfp8", "gemm_nvfp4",    "hbm_read",
      "hbm_write",         "hbm_copy",     "hbm_triad",  "h2d_pinned",    "d2h_pinned",
      "h2d_pageable",      "d2h_pageable", "p2p_copy",   "nccl_allreduce"};
  EXPECT_EQ(names, want);
}

TEST(Cases, SelectionTakesNamesAndPrefixesAndNamesUnknownOnes) {
  auto cases = all_cases();
  std::vector<Case*> out;
  EXPECT_EQ(select_cases(cases, {"gemm_*", "hbm_copy"}, out), "");
  EXPECT_EQ(out.size(), 9u);
  EXPECT_EQ(select_cases(cases, {"gemm_fp4"}, out),
            "--case: unknown case 'gemm_fp4' (run --list for the names)");
}

TEST(Catalog, DeviceNamesMatchTheirEntries) {
  EXPECT_EQ(match_catalog_gpu(catalog(), "NVIDIA H100 80GB HBM3").value_or(""), "h100-sxm5-80gb");
  EXPECT_EQ(match_catalog_gpu(catalog(), "Tesla T4").value_or(""), "t4");
  EXPECT_EQ(match_catalog_gpu(catalog(), "  nvidia   A100-SXM4-80GB ").value_or(""),
            "a100-sxm4-80gb");
  EXPECT_FALSE(match_catalog_gpu(catalog(), "NVIDIA Imaginary X1"));
}

TEST(Options, ParsesTheCommandLineAndRejectsMistakes) {
  const char* argv[] = {"gpuplan-probe", "--case",     "gemm_bf16",    "--case",  "hbm_*",
                        "--full",        "--simulate", "t4:4",         "--fault", "hang:gemm_bf16",
                        "--out",         "x.json",     "--no-metadata"};
  Options o;
  EXPECT_EQ(parse_options(13, const_cast<char**>(argv), o), "");
  EXPECT_EQ(o.cases, (std::vector<std::string>{"gemm_bf16", "hbm_*"}));
  EXPECT_TRUE(o.full);
  EXPECT_EQ(o.simulate, "t4");
  EXPECT_EQ(o.simulate_count, 4);
  EXPECT_EQ(o.arguments.size(), 12u);
  const char* bad[] = {"gpuplan-probe", "--fault", "hang:gemm_bf16"};
  Options o2;
  EXPECT_EQ(parse_options(3, const_cast<char**>(bad), o2), "--fault works only with --simulate");
}

// --- simulated runs ----------------------------------------------------------------------------

TEST(SimulatedRun, OneGpuPassesOrWaivesEveryCase) {
  const SimRun r = simulate("h100-sxm5-80gb", 1);
  EXPECT_EQ(r.result.exit_code, kExitOk);
  EXPECT_EQ(r.result.failed, 0);
  EXPECT_EQ(r.result.waived, 4);  // p2p, all-reduce, and the block-scaled GEMMs (sm_90)
  EXPECT_EQ(row(r.payload, "p2p_copy", -1)["reason"], "needs 2 or more GPUs (found 1)");
  EXPECT_EQ(row(r.payload, "nccl_allreduce", -1)["status"], "waived");
  EXPECT_TRUE(r.payload["simulated"].get<bool>());
  EXPECT_EQ(r.payload["schema_version"], 1);
  EXPECT_EQ(r.payload["kind"], "gpuplan-probe");
  EXPECT_TRUE(r.payload["host"]["cloud"].is_null());
  const json& s = r.payload["summary"];
  EXPECT_EQ(s["gpu_count"], 1);
  EXPECT_EQ(s["catalog_gpu_id"], "h100-sxm5-80gb");
  EXPECT_TRUE(s["p2p_bytes_per_s"].is_null());
  EXPECT_TRUE(s["allreduce_busbw_bytes_per_s"].is_null());
  EXPECT_EQ(s["memory_bytes"], 85520809984);
}

TEST(SimulatedRun, FiguresAreCatalogPeakTimesTheStatedEfficiency) {
  const SimRun r = simulate("h100-sxm5-80gb", 1);
  const auto& e = simulated_efficiency();
  const json& s = r.payload["summary"];
  // data/gpus/h100-sxm5-80gb.json: 989 / 1979 / 67 TFLOPS, 3350 GB/s, PCIe gen 5; +-1 % jitter.
  EXPECT_NEAR(s["gemm_flop_per_s"]["bf16"].get<double>(), 989e12 * e.gemm, 989e12 * e.gemm * 0.011);
  EXPECT_NEAR(s["gemm_flop_per_s"]["fp8"].get<double>(), 1979e12 * e.gemm,
              1979e12 * e.gemm * 0.011);
  EXPECT_NEAR(s["gemm_flop_per_s"]["fp32"].get<double>(), 67e12 * e.gemm, 67e12 * e.gemm * 0.011);
  EXPECT_NEAR(s["hbm_triad_bytes_per_s"].get<double>(), 3350e9 * e.hbm_triad,
              3350e9 * e.hbm_triad * 0.011);
  EXPECT_NEAR(s["h2d_pinned_bytes_per_s"].get<double>(), 63.0e9 * e.pcie_pinned,
              63.0e9 * e.pcie_pinned * 0.011);
  const json& copy = row(r.payload, "hbm_copy");
  EXPECT_EQ(copy["unit"], "bytes_per_s");
  EXPECT_EQ(copy["params"]["bytes_per_iteration"].get<int64_t>(),
            2 * copy["params"]["array_bytes"].get<int64_t>());
  EXPECT_NE(copy["params"]["bytes_counted"].get<std::string>().find("2 x array bytes"),
            std::string::npos);
  const json& triad = row(r.payload, "hbm_triad");
  EXPECT_EQ(triad["params"]["bytes_per_iteration"].get<int64_t>(),
            3 * triad["params"]["array_bytes"].get<int64_t>());
  const json& gemm = row(r.payload, "gemm_bf16");
  EXPECT_EQ(gemm["params"]["n"], 8192);
  EXPECT_LE(gemm["min"].get<double>(), gemm["median"].get<double>());
  EXPECT_LE(gemm["median"].get<double>(), gemm["max"].get<double>());
  EXPECT_GE(gemm["n"].get<int>(), 5);
  EXPECT_TRUE(gemm["clocks"].is_object());
  EXPECT_EQ(gemm["params"]["timer"], "cuda_events");
  EXPECT_EQ(row(r.payload, "h2d_pageable")["params"]["timer"], "host_steady_clock");
}

TEST(SimulatedRun, FullModeSweepsGemmShapes) {
  Options o;
  o.full = true;
  const SimRun r = simulate("h100-sxm5-80gb", 1, {}, o, {"gemm_bf16"});
  const json& gemm = row(r.payload, "gemm_bf16");
  ASSERT_TRUE(gemm["params"].contains("sweep"));
  EXPECT_EQ(gemm["params"]["sweep"].size(), 3u);
}

TEST(SimulatedRun, PrecisionsAGpuLacksAreWaivedNotFailed) {
  const SimRun a100 = simulate("a100-sxm4-80gb", 1, {}, {}, {"gemm_*"});
  EXPECT_EQ(row(a100.payload, "gemm_fp8")["status"], "waived");
  EXPECT_EQ(row(a100.payload, "gemm_fp8")["reason"],
            "fp8 GEMM needs sm_89 or newer (GPU 0 is sm_80)");
  EXPECT_TRUE(a100.payload["summary"]["gemm_flop_per_s"]["fp8"].is_null());
  const SimRun t4 = simulate("t4", 1, {}, {}, {"gemm_*"});
  EXPECT_EQ(row(t4.payload, "gemm_bf16")["reason"],
            "bf16 GEMM needs sm_80 or newer (GPU 0 is sm_75)");
  EXPECT_EQ(t4.result.failed, 0);
}

TEST(SimulatedRun, BlackwellTimesTheBlockScaledRecipesAndRecordsThem) {
  // data/gpus/gb200.json: sm_100, dense fp8 5000 and fp4 10000 TFLOPS; MXFP8 runs at the fp8
  // rate and NVFP4 at the fp4 rate (+-1 % jitter).
  const SimRun r = simulate("gb200", 1, {}, {}, {"gemm_*"});
  const auto& e = simulated_efficiency();
  EXPECT_EQ(r.result.failed, 0);
  EXPECT_EQ(r.payload["gpus"][0]["compute_capability"], "10.0");
  EXPECT_EQ(r.payload["gpus"][0]["architecture"], "Blackwell");
  const json& g = r.payload["summary"]["gemm_flop_per_s"];
  EXPECT_NEAR(g["mxfp8"].get<double>(), 5000e12 * e.gemm, 5000e12 * e.gemm * 0.011);
  EXPECT_NEAR(g["nvfp4"].get<double>(), 10000e12 * e.gemm, 10000e12 * e.gemm * 0.011);
  EXPECT_EQ(r.payload["summary"]["gemm_recipes_measured"], json({"fp8", "mxfp8", "nvfp4"}));
  // B300 is sm_103, Blackwell too.
  const SimRun b300 = simulate("b300-sxm", 1, {}, {}, {"gemm_nvfp4"});
  EXPECT_EQ(b300.payload["gpus"][0]["compute_capability"], "10.3");
  EXPECT_EQ(b300.payload["gpus"][0]["architecture"], "Blackwell");
  EXPECT_NEAR(b300.payload["summary"]["gemm_flop_per_s"]["nvfp4"].get<double>(), 14000e12 * e.gemm,
              14000e12 * e.gemm * 0.011);
  // Hopper has FP8 but no block-scaled tensor cores: waived with the reason, not failed.
  const SimRun h100 = simulate("h100-sxm5-80gb", 1, {}, {}, {"gemm_*"});
  EXPECT_EQ(row(h100.payload, "gemm_mxfp8")["status"], "waived");
  EXPECT_EQ(row(h100.payload, "gemm_nvfp4")["reason"],
            "nvfp4 GEMM needs sm_100 or newer (GPU 0 is sm_90)");
  EXPECT_EQ(h100.payload["summary"]["gemm_recipes_measured"], json({"fp8"}));
  EXPECT_EQ(h100.payload["gpus"][0]["architecture"], "Hopper");
}

TEST(SimulatedRun, TheCoreReadsAndCalibratesWithTheBlockScaledRates) {
  const SimRun r = simulate("gb200", 1, {}, {}, {"gemm_*"});
  const auto key = signing::keypair_from_seed(std::string(32, 'k'));
  auto f = signing::read_probe_file(signing::sign_probe_payload(r.result.payload, key), {});
  ASSERT_TRUE(f.ok()) << f.error().message;
  const ProbeSummary& s = f.value().payload->summary;
  EXPECT_EQ(s.gemm_recipes_measured, (std::vector<std::string>{"fp8", "mxfp8", "nvfp4"}));
  EXPECT_DOUBLE_EQ(s.gemm_flop_per_s.nvfp4.value_or(0),
                   r.payload["summary"]["gemm_flop_per_s"]["nvfp4"].get<double>());
  const gpuplan::Catalog& cat = test_catalog();
  const Gpu* gb200 = cat.find_gpu("gb200");
  ASSERT_NE(gb200, nullptr);
  const Calibrated c = calibrate(cat.efficiencies, s, *gb200, gpuplan::Precision::bf16);
  EXPECT_DOUBLE_EQ(c.efficiencies.measured_recipe_gemm_flop_per_s.at("nvfp4"),
                   *s.gemm_flop_per_s.nvfp4);
  EXPECT_DOUBLE_EQ(c.efficiencies.measured_recipe_gemm_flop_per_s.at("mxfp8"),
                   *s.gemm_flop_per_s.mxfp8);
}

TEST(SimulatedRun, AllReduceReportsBusBandwidthAsNcclTestsDefinesIt) {
  const SimRun r = simulate("h100-sxm5-80gb", 8, {}, {}, {"p2p_copy", "nccl_allreduce"});
  const double factor = 2.0 * 7 / 8;  // 2(n-1)/n, nccl-tests doc/PERFORMANCE.md
  int sizes = 0;
  for (const auto& x : r.payload["results"]) {
    if (x["case"] != "nccl_allreduce") continue;
    ++sizes;
    EXPECT_EQ(x["params"]["ranks"], 8);
    EXPECT_NEAR(x["median"].get<double>() / x["params"]["algbw_median"].get<double>(), factor,
                1e-3);
  }
  EXPECT_EQ(sizes, 3);
  const json& s = r.payload["summary"];
  // NVLink 900 GB/s both directions -> 450 GB/s one way; the largest size hides latency.
  EXPECT_NEAR(s["allreduce_busbw_bytes_per_s"].get<double>(),
              450e9 * simulated_efficiency().allreduce, 450e9 * 0.02);
  EXPECT_NEAR(s["p2p_bytes_per_s"].get<double>(), 450e9 * simulated_efficiency().p2p, 450e9 * 0.02);
  int pairs = 0;
  for (const auto& x : r.payload["results"]) pairs += x["case"] == "p2p_copy";
  EXPECT_EQ(pairs, 14);  // --quick: the pairs with GPU 0, both directions
  EXPECT_EQ(r.payload["topology"]["peer_access"].size(), 8u);
}

TEST(SimulatedRun, TheSlowestGpuIsNamedAndSetsTheSummary) {
  SimulatedFaults f;
  f.slow_gpu = 3;
  const SimRun r = simulate("h100-sxm5-80gb", 4, f, {}, {"gemm_bf16", "hbm_copy"});
  const json& s = r.payload["summary"];
  EXPECT_EQ(s["slowest_gpu"], 3);
  EXPECT_NEAR(s["gemm_flop_per_s"]["bf16"].get<double>(),
              0.8 * 989e12 * simulated_efficiency().gemm, 989e12 * 0.02);
  EXPECT_NE(r.result.payload.find("\"slowest_gpu\": 3"), std::string::npos);
}

TEST(SimulatedRun, LostDeviceFailsItsCaseWithTheCallAndStopsTheRest) {
  SimulatedFaults f;
  f.device_lost_case = "hbm_copy";
  const SimRun r = simulate("h100-sxm5-80gb", 1, f);
  EXPECT_EQ(r.result.exit_code, kExitCaseFailed);
  EXPECT_EQ(row(r.payload, "hbm_write")["status"], "passed");
  const json& lost = row(r.payload, "hbm_copy");
  EXPECT_EQ(lost["status"], "failed");
  EXPECT_EQ(lost["error"]["kind"], "device_lost");
  EXPECT_EQ(lost["error"]["name"], "cudaErrorDevicesUnavailable");
  EXPECT_NE(lost["error"]["expression"].get<std::string>().find("SimulatedDevice::memory"),
            std::string::npos);
  EXPECT_NE(lost["error"]["location"].get<std::string>().find("simulated_device.cpp:"),
            std::string::npos);
  EXPECT_NE(lost["reason"].get<std::string>().find("fell off the bus"), std::string::npos);
  const json& after = row(r.payload, "hbm_triad");
  EXPECT_EQ(after["status"], "failed");
  EXPECT_EQ(after["reason"],
            "not run: the GPU was lost during hbm_copy gpu 0 (cudaErrorDevicesUnavailable)");
  EXPECT_TRUE(parse_probe_payload(r.result.payload, "payload").ok());
}

TEST(SimulatedRun, OutOfMemoryRetriesASmallerSize) {
  SimulatedFaults f;
  f.oom_case = "hbm_triad";
  const SimRun r = simulate("h100-sxm5-80gb", 1, f, {}, {"hbm_triad"});
  const json& triad = row(r.payload, "hbm_triad");
  EXPECT_EQ(triad["status"], "passed");
  EXPECT_EQ(triad["params"]["array_bytes"], 256 << 20);
  bool warned = false;
  for (const auto& w : r.payload["warnings"]) {
    warned |= w.get<std::string>().find(
                  "out of memory at size 1073741824; retrying at 268435456") != std::string::npos;
  }
  EXPECT_TRUE(warned) << r.payload["warnings"].dump();
}

TEST(SimulatedRun, OutOfMemoryAtEverySizeFailsOnlyThatCase) {
  SimulatedFaults f;
  f.oom_always_case = "gemm_fp16";
  const SimRun r = simulate("h100-sxm5-80gb", 1, f, {}, {"gemm_*"});
  const json& fp16 = row(r.payload, "gemm_fp16");
  EXPECT_EQ(fp16["status"], "failed");
  EXPECT_EQ(fp16["error"]["kind"], "out_of_memory");
  EXPECT_NE(
      fp16["reason"].get<std::string>().find("out of memory even at the smallest size (1024)"),
      std::string::npos)
      << fp16["reason"];
  EXPECT_EQ(row(r.payload, "gemm_bf16")["status"], "passed");
  EXPECT_EQ(r.result.exit_code, kExitCaseFailed);
}

TEST(SimulatedRun, HangingCaseTimesOutAndTheRestIsMarkedNotRun) {
  // The first case selected hangs: no case that should pass runs inside a 0.3 s window that a
  // loaded machine could stretch. A hang that never timed out would end at CTest's TIMEOUT.
  SimulatedFaults f;
  f.hang_case = "gemm_fp64";
  Options o;
  o.case_timeout_s = 0.3;
  const SimRun r = simulate("h100-sxm5-80gb", 1, f, o, {"gemm_*"});
  const json& hung = row(r.payload, "gemm_fp64");
  EXPECT_EQ(hung["status"], "failed");
  EXPECT_EQ(hung["error"]["kind"], "timeout");
  EXPECT_EQ(hung["reason"],
            "gemm_fp64 did not finish within 0.3 s (--case-timeout); the GPU may be hung");
  for (const char* later : {"gemm_fp32", "gemm_bf16", "gemm_fp8"}) {
    EXPECT_EQ(row(r.payload, later)["status"], "failed") << later;
    EXPECT_EQ(row(r.payload, later)["reason"], "not run: gemm_fp64 gpu 0 timed out before it")
        << later;
  }
  EXPECT_FALSE(r.result.worker_stuck);  // the simulated hang honours cancel()
}

TEST(SimulatedRun, PayloadIsSignedAndVerifiedThroughTheCore) {
  const SimRun r = simulate("h100-sxm5-80gb", 2);
  const auto key = signing::keypair_from_seed(std::string(32, 'k'));
  auto f = signing::read_probe_file(signing::sign_probe_payload(r.result.payload, key),
                                    {signing::base64_encode(key.public_key)});
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().signature, ProbeSignature::valid);
  EXPECT_TRUE(f.value().trusted);
  const ProbeSummary& s = f.value().payload->summary;
  EXPECT_EQ(s.gpu_count, 2);
  EXPECT_DOUBLE_EQ(s.gemm_flop_per_s.bf16.value_or(0),
                   r.payload["summary"]["gemm_flop_per_s"]["bf16"].get<double>());
  EXPECT_EQ(f.value().payload->results_failed, 0);
}

// --- multi-node (the MPI flow, with threads as nodes)
// ---------------------------------------------

// Runs `nodes` simulated nodes of `per_node` GPUs as threads that meet through ThreadPeers, as
// gpuplan-probe-mpi's ranks meet through MPI, and returns rank 0's merged payload (or the
// merge error). `faults[r]` go to node r.
struct ClusterRun {
  std::vector<ProbeResult> nodes;
  std::string merged, error;
};
ClusterRun simulate_cluster(const std::string& id, int nodes, int per_node,
                            const std::vector<std::string>& patterns,
                            std::vector<SimulatedFaults> faults = {}) {
  faults.resize(size_t(nodes));
  auto peers = make_thread_peers(nodes);
  ClusterRun out;
  out.nodes.resize(size_t(nodes));
  std::vector<std::string> payloads;
  std::vector<std::thread> threads;
  for (int r = 0; r < nodes; ++r) {
    threads.emplace_back([&, r] {
      SimulatedDevice device(*find_catalog_gpu(catalog(), id), per_node, faults[size_t(r)]);
      auto gpus = device.open();
      auto cases = all_cases();
      std::vector<Case*> selected;
      select_cases(cases, patterns, selected);
      Peers& p = *peers[size_t(r)];
      CollectiveGroup group;
      const auto counts = p.all_gather(std::to_string(gpus.value().size()));
      for (size_t k = 0; k < counts.size(); ++k) {
        if (int(k) < p.rank()) group.first_rank += std::stoi(counts[k]);
        group.world_ranks += std::stoi(counts[k]);
      }
      group.unique_id = broadcast_from_root(p, device.collective_id());
      Options o;
      o.no_metadata = true;
      auto progress = make_silent_progress();
      out.nodes[size_t(r)] =
          run_probe(o, device, gpus.value(), selected, *progress, catalog(), &p, group);
      auto all = p.all_gather(out.nodes[size_t(r)].payload);
      if (p.rank() == 0) payloads = all;
    });
  }
  for (auto& t : threads) t.join();
  out.merged = merge_node_payloads(payloads, out.error);
  return out;
}

TEST(Peers, AllGatherGivesEveryRankEveryValueInRankOrderRoundAfterRound) {
  auto peers = make_thread_peers(3);
  std::vector<std::vector<std::string>> seen(3);
  std::vector<std::thread> threads;
  for (int r = 0; r < 3; ++r) {
    threads.emplace_back([&, r] {
      for (int round = 0; round < 50; ++round) {
        auto all = peers[size_t(r)]->all_gather(std::to_string(round * 10 + r));
        seen[size_t(r)].push_back(all[0] + "," + all[1] + "," + all[2]);
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < 3; ++r) {
    ASSERT_EQ(seen[size_t(r)].size(), 50u);
    EXPECT_EQ(seen[size_t(r)][7], "70,71,72");
    EXPECT_EQ(seen[size_t(r)], seen[0]);
  }
}

TEST(Peers, MaxAndFirstProblemAgreeAcrossRanks) {
  auto peers = make_thread_peers(2);
  std::vector<double> max0, max1;
  std::string problem0, problem1;
  std::thread a([&] {
    max0 = max_over_ranks(*peers[0], {1.0, 5.0, 0.1 + 0.2});
    problem0 = first_problem(*peers[0], "");
  });
  std::thread b([&] {
    max1 = max_over_ranks(*peers[1], {2.0, 4.0, 0.0});
    problem1 = first_problem(*peers[1], "no NCCL");
  });
  a.join();
  b.join();
  EXPECT_EQ(max0, (std::vector<double>{2.0, 5.0, 0.1 + 0.2}));  // exact: 17 digits round-trip
  EXPECT_EQ(max1, max0);
  EXPECT_EQ(problem0, "node 1: no NCCL");
  EXPECT_EQ(problem1, problem0);
}

TEST(MultiNode, AllReduceSpansTheNodesAndRankZeroWritesOneFileForAll) {
  const ClusterRun c =
      simulate_cluster("a100-sxm4-80gb", 2, 4, {"gemm_bf16", "p2p_copy", "nccl_allreduce"});
  ASSERT_EQ(c.error, "");
  const json m = json::parse(c.merged);
  ASSERT_EQ(m["nodes"].size(), 2u);
  EXPECT_EQ(m["nodes"][1]["first_gpu"], 4);
  EXPECT_EQ(m["nodes"][1]["gpu_count"], 4);
  ASSERT_EQ(m["gpus"].size(), 8u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(m["gpus"][size_t(i)]["index"], i);
    EXPECT_EQ(m["gpus"][size_t(i)]["node"], i / 4);
    EXPECT_EQ(m["gpus"][size_t(i)]["node_index"], i % 4);
    EXPECT_EQ(row(m, "gemm_bf16", i)["node"], i / 4);  // every GPU's row, renumbered
  }
  // One all-reduce row per size, over 8 ranks on 2 nodes, capped by the simulated network.
  int sizes = 0;
  for (const auto& x : m["results"]) {
    if (x["case"] != "nccl_allreduce") continue;
    ++sizes;
    EXPECT_EQ(x["params"]["ranks"], 8);
    EXPECT_EQ(x["params"]["nodes"], 2);
    EXPECT_TRUE(x["node"].is_null());
    EXPECT_LE(x["median"].get<double>(), simulated_efficiency().network_busbw_bytes_per_s * 1.011);
  }
  EXPECT_EQ(sizes, 3);
  // No peer access across nodes.
  const json& peer = m["topology"]["peer_access"];
  ASSERT_EQ(peer.size(), 8u);
  EXPECT_TRUE(peer[0][1].get<bool>());
  EXPECT_FALSE(peer[0][4].get<bool>());
  EXPECT_TRUE(peer[5][6].get<bool>());
  // The core reads it, and calibration takes the all-reduce figure as the one between nodes.
  auto p = parse_probe_payload(c.merged, "payload");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p.value().summary.node_count, 2);
  EXPECT_EQ(p.value().summary.gpu_count, 8);
  EXPECT_NEAR(p.value().summary.allreduce_busbw_bytes_per_s.value_or(0), 84.8e9, 84.8e9 * 0.011);
}

TEST(MultiNode, BothNodesMeasureTheSameAgreedIterationsAndSlowestTimes) {
  SimulatedFaults slow;
  slow.slow_gpu = 0;  // node 1's GPU 0 runs at 80 %: the collective runs at its pace everywhere
  const ClusterRun c = simulate_cluster("h100-sxm5-80gb", 2, 2, {"nccl_allreduce"}, {{}, slow});
  ASSERT_EQ(c.error, "");
  const json n0 = json::parse(c.nodes[0].payload), n1 = json::parse(c.nodes[1].payload);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(n0["results"][i]["params"], n1["results"][i]["params"]);
    EXPECT_EQ(n0["results"][i]["median"], n1["results"][i]["median"]);
  }
}

TEST(MultiNode, ANodeThatLostItsGpuMakesTheOthersWaiveTheCollectiveInsteadOfHanging) {
  SimulatedFaults lost;
  lost.device_lost_case = "hbm_copy";
  const ClusterRun c =
      simulate_cluster("h100-sxm5-80gb", 2, 2, {"hbm_copy", "nccl_allreduce"}, {{}, lost});
  ASSERT_EQ(c.error, "");
  const json m = json::parse(c.merged);
  const json& waived = row(m, "nccl_allreduce", -1);
  EXPECT_EQ(waived["status"], "waived");
  EXPECT_NE(
      waived["reason"].get<std::string>().find("node 1: cannot run it (not run: the GPU was lost"),
      std::string::npos)
      << waived["reason"];
  EXPECT_EQ(row(m, "hbm_copy", 2)["status"], "failed");
  EXPECT_EQ(row(m, "hbm_copy", 0)["status"], "passed");
}

TEST(MultiNode, AFailureInsideTheCollectiveFailsItOnEveryNode) {
  SimulatedFaults lost;
  lost.device_lost_case = "nccl_allreduce";
  const ClusterRun c = simulate_cluster("h100-sxm5-80gb", 2, 2, {"nccl_allreduce"}, {{}, lost});
  const json n0 = json::parse(c.nodes[0].payload), n1 = json::parse(c.nodes[1].payload);
  EXPECT_EQ(row(n1, "nccl_allreduce", -1)["error"]["kind"], "device_lost");
  const json& other = row(n0, "nccl_allreduce", -1);
  EXPECT_EQ(other["status"], "failed");
  EXPECT_EQ(other["error"]["name"], "peer_failed");
  EXPECT_NE(other["reason"].get<std::string>().find("node 1: "), std::string::npos);
  EXPECT_EQ(c.nodes[0].exit_code, kExitCaseFailed);
}

TEST(MultiNode, MergeRejectsAPayloadThatIsNotOne) {
  std::string error;
  EXPECT_EQ(merge_node_payloads(
                {simulate("t4", 1, {}, {}, {"gemm_fp16"}).result.payload, "{\"kind\": 1}"}, error),
            "");
  EXPECT_EQ(error, "node 1 sent a payload that is not a probe payload");
  EXPECT_EQ(merge_node_payloads({}, error), "");
}

TEST(SimulatedRun, EnvironmentIsAllowListedNeverCopiedWhole) {
  setenv("CUDA_VISIBLE_DEVICES", "0,1", 1);
  setenv("NCCL_ALGO", "Ring", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "do-not-record", 1);
  const SimRun r = simulate("h100-sxm5-80gb", 1, {}, {}, {"device_properties"});
  unsetenv("CUDA_VISIBLE_DEVICES");
  unsetenv("NCCL_ALGO");
  unsetenv("AWS_SECRET_ACCESS_KEY");
  EXPECT_EQ(r.payload["environment"],
            json({{"CUDA_VISIBLE_DEVICES", "0,1"}, {"NCCL_ALGO", "Ring"}}));
  EXPECT_EQ(r.result.payload.find("do-not-record"), std::string::npos);
}

TEST(SimulatedRun, UnmeasuredFiguresAreNullInTheSummary) {
  const SimRun r = simulate("h100-sxm5-80gb", 1, {}, {}, {"device_properties"});
  const json& s = r.payload["summary"];
  for (const char* p : {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8"})
    EXPECT_TRUE(s["gemm_flop_per_s"][p].is_null());
  EXPECT_TRUE(s["hbm_copy_bytes_per_s"].is_null());
  EXPECT_EQ(s["gpu_name"], "NVIDIA H100 SXM5 80GB");
}

// --- cloud metadata against fake servers on 127.0.0.1 ----------------------------------------

std::string http(int status, const std::string& body, const std::string& headers = "") {
  return "HTTP/1.1 " + std::to_string(status) +
         " X\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" + headers + "\r\n" + body;
}

// A loopback HTTP server in a thread. The handler gets the request head and returns the whole
// response, or "" to hold the connection open without ever answering.
class FakeServer {
 public:
  explicit FakeServer(std::function<std::string(const std::string&)> handler)
      : handler_(std::move(handler)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    listen(fd_, 16);
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { loop(); });
  }
  ~FakeServer() {
    stop_ = true;
    thread_.join();
    for (int c : held_) close(c);
    close(fd_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int connections() const { return connections_; }

 private:
  void loop() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      ++connections_;
      std::string req;
      char buf[2048];
      while (req.find("\r\n\r\n") == std::string::npos) {
        pollfd q{c, POLLIN, 0};
        if (poll(&q, 1, 1000) <= 0) break;
        const ssize_t n = recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        req.append(buf, size_t(n));
      }
      const std::string resp = handler_(req);
      if (resp.empty()) {
        held_.push_back(c);
        continue;
      }
      send(c, resp.data(), resp.size(), MSG_NOSIGNAL);
      close(c);
    }
  }
  std::function<std::string(const std::string&)> handler_;
  int fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::vector<int> held_;
  std::thread thread_;
};

bool starts(const std::string& req, const std::string& line) {
  return req.rfind(line, 0) == 0;
}
bool has(const std::string& req, const std::string& header) {
  return req.find("\r\n" + header + "\r\n") != std::string::npos;
}

// A server that answers is given a limit no loaded machine reaches (the short default is for the
// real link-local service, which answers in milliseconds or not at all).
constexpr double kAnsweringServerLimit_s = 30;

TEST(CloudMetadata, AwsImdsV2AsksForATokenFirst) {
  FakeServer server([](const std::string& req) {
    if (starts(req, "PUT /latest/api/token ") &&
        has(req, "X-aws-ec2-metadata-token-ttl-seconds: 60")) {
      return http(200, "tok123");
    }
    if (!has(req, "X-aws-ec2-metadata-token: tok123")) return http(401, "");
    if (starts(req, "GET /latest/meta-data/instance-type ")) return http(200, "p5.48xlarge");
    if (starts(req, "GET /latest/meta-data/placement/region ")) return http(200, "us-east-1");
    return http(404, "");
  });
  auto c = query_cloud_metadata(server.url(), kAnsweringServerLimit_s);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->provider, "aws");
  EXPECT_EQ(c->instance_type.value_or(""), "p5.48xlarge");
  EXPECT_EQ(c->region.value_or(""), "us-east-1");
}

TEST(CloudMetadata, GcpNeedsTheFlavorHeaderBothWays) {
  FakeServer server([](const std::string& req) {
    if (!has(req, "Metadata-Flavor: Google")) return http(404, "");
    const std::string flavor = "Metadata-Flavor: Google\r\n";
    if (starts(req, "GET /computeMetadata/v1/instance/machine-type ")) {
      return http(200, "projects/123/machineTypes/a3-highgpu-8g", flavor);
    }
    if (starts(req, "GET /computeMetadata/v1/instance/zone "))
      return http(200, "projects/123/zones/us-central1-a", flavor);
    return http(404, "");
  });
  auto c = query_cloud_metadata(server.url() + "/", kAnsweringServerLimit_s);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->provider, "gcp");
  EXPECT_EQ(c->instance_type.value_or(""), "a3-highgpu-8g");
  EXPECT_EQ(c->region.value_or(""), "us-central1");
}

TEST(CloudMetadata, AzureReadsVmSizeFromAChunkedAnswer) {
  FakeServer server([](const std::string& req) {
    if (!starts(req, "GET /metadata/instance/compute?api-version=") || !has(req, "Metadata: true"))
      return http(400, "");
    const std::string body = R"({"vmSize":"Standard_ND96isr_H100_v5","location":"eastus"})";
    char size[16];
    std::snprintf(size, sizeof size, "%zx", body.size() - 10);
    return "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + std::string(size) + "\r\n" +
           body.substr(0, body.size() - 10) + "\r\na\r\n" + body.substr(body.size() - 10) +
           "\r\n0\r\n\r\n";
  });
  auto c = query_cloud_metadata(server.url(), kAnsweringServerLimit_s);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->provider, "azure");
  EXPECT_EQ(c->instance_type.value_or(""), "Standard_ND96isr_H100_v5");
  EXPECT_EQ(c->region.value_or(""), "eastus");
}

TEST(CloudMetadata, AServerThatNeverAnswersTimesOutOnce) {
  FakeServer server([](const std::string&) { return std::string(); });
  const auto start = Clock::now();
  std::vector<std::string> log;
  EXPECT_FALSE(query_cloud_metadata(server.url(), 0.3, &log));
  // It waited about its limit (a lower bound: a slow machine only waits longer); a request with
  // no limit would wait forever and CTest's TIMEOUT would end the test.
  EXPECT_GE(std::chrono::duration<double>(Clock::now() - start).count(), 0.25);
  // The other providers share the host: not asked after a timeout.
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("timed out while waiting for the response"), std::string::npos) << log[0];
}

TEST(CloudMetadata, NothingListeningGivesUpAtOnce) {
  std::string url;
  {
    FakeServer gone([](const std::string&) { return std::string(); });
    url = gone.url();
  }
  // The connection is refused, not timed out, and no other provider is asked at that host.
  std::vector<std::string> log;
  EXPECT_FALSE(query_cloud_metadata(url, 0.3, &log));
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].find("timed out"), std::string::npos) << log[0];
  EXPECT_NE(log[0].find("connect"), std::string::npos) << log[0];
}

TEST(CloudMetadata, ValuesThatAreNotPlainNamesAreDropped) {
  FakeServer server([](const std::string& req) {
    if (starts(req, "PUT ")) return http(200, "t");
    if (starts(req, "GET /latest/meta-data/instance-type ")) return http(200, "p5\x01<script>");
    return http(404, "");
  });
  EXPECT_FALSE(query_cloud_metadata(server.url(), 0.3));
}

TEST(HttpClient, RefusesHostNamesSoItNeverWaitsOnDns) {
  HttpRequest req;
  req.url = "http://metadata.google.internal/computeMetadata/v1/";
  const HttpResponse r = http_request(req);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("host must be an IP address"), std::string::npos);
}

TEST(ProbeRun, RecordsTheCloudInstanceFromTheMetadataService) {
  FakeServer server([](const std::string& req) {
    if (starts(req, "PUT ")) return http(200, "t");
    if (starts(req, "GET /latest/meta-data/instance-type ")) return http(200, "p4d.24xlarge");
    return http(404, "");
  });
  Options o;
  o.metadata_url = server.url();
  const SimRun r = simulate("a100-sxm4-40gb", 1, {}, o, {"device_properties"});
  EXPECT_EQ(r.payload["host"]["cloud"],
            json({{"provider", "aws"}, {"instance_type", "p4d.24xlarge"}, {"region", nullptr}}));
}

// --- key file and output -----------------------------------------------------------------------

TEST(KeyFile, NewKeyIsMode0600InAPrivateFolder) {
  const std::string dir = temp_dir();
  const std::string path = dir + "/config/gpuplan/probe-key";
  auto k = signing::load_or_create_key(path);
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_TRUE(k.value().created);
  EXPECT_EQ(mode_of(path), 0600u);
  EXPECT_EQ(mode_of(dir + "/config/gpuplan"), 0700u);
  EXPECT_EQ(k.value().key.public_key.size(), 32u);
  EXPECT_EQ(list_dir(dir + "/config/gpuplan"),
            std::vector<std::string>{"probe-key"});  // no temporary left
}

TEST(KeyFile, ExistingKeyIsReusedAndKeepsMode0600) {
  const std::string path = temp_dir() + "/probe-key";
  auto first = signing::load_or_create_key(path);
  auto second = signing::load_or_create_key(path);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_FALSE(second.value().created);
  EXPECT_EQ(second.value().key.public_key, first.value().key.public_key);
  EXPECT_EQ(mode_of(path), 0600u);
}

TEST(KeyFile, KeyOthersCanReadIsRefusedAndLeftAlone) {
  const std::string path = temp_dir() + "/probe-key";
  ASSERT_TRUE(signing::load_or_create_key(path).ok());
  chmod(path.c_str(), 0644);
  auto k = signing::load_or_create_key(path);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error().message,
            path + ": mode 0644 lets other users see the signing key; run 'chmod 600 " + path +
                "' (or pass --key with a new path to make a fresh key)");
  EXPECT_EQ(mode_of(path), 0644u);
}

TEST(KeyFile, EditedOrFutureKeysAreRejected) {
  const std::string path = temp_dir() + "/probe-key";
  ASSERT_TRUE(signing::load_or_create_key(path).ok());
  std::ifstream in(path);
  json j = json::parse(in);
  j["public_key"] = signing::base64_encode(std::string(32, 'x'));
  std::ofstream(path) << j.dump();
  EXPECT_EQ(signing::load_or_create_key(path).error().code, Errc::schema_error);
  j["schema_version"] = 2;
  std::ofstream(path) << j.dump();
  EXPECT_EQ(signing::load_or_create_key(path).error().code, Errc::unsupported_version);
}

TEST(AtomicWrite, WritesTheWholeFileAndLeavesNoTemporary) {
  const std::string dir = temp_dir();
  std::ofstream(dir + "/out.json") << "old";
  EXPECT_EQ(write_file_atomically(dir + "/out.json", "new contents\n"), "");
  std::ifstream in(dir + "/out.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "new contents\n");
  EXPECT_EQ(list_dir(dir), std::vector<std::string>{"out.json"});
}

TEST(AtomicWrite, MissingFolderIsAnErrorAndWritesNothing) {
  const std::string dir = temp_dir();
  const std::string err = write_file_atomically(dir + "/no/such/out.json", "x");
  EXPECT_NE(err.find("cannot create a temporary file in " + dir + "/no/such"), std::string::npos)
      << err;
  EXPECT_TRUE(list_dir(dir).empty());
}

}  // namespace
}  // namespace gpuplan::probe
