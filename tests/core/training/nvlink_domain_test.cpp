// The cluster and its collectives when an NVLink domain spans several hosts (an NVL72 rack: 72 GPUs
// over 18 hosts of 4): collectives inside the domain run at NVLink speed, only traffic between
// domains crosses the network, and where the domain is the host nothing changes.
#include <gtest/gtest.h>

#include "gpuplan/timing.h"
#include "test_util.h"
#include "training/internal.h"

namespace gpuplan {
namespace {

// A GB200-like GPU with round figures: NVLink 1.8 TB/s bidirectional (900 GB/s a direction).
Gpu rack_gpu() {
  Gpu g;
  g.id = "test-gpu";
  g.nvlink_bandwidth_bytes_per_s = 1800e9;
  g.memory_bytes = 186e9;
  g.memory_bandwidth_bytes_per_s = 8000e9;
  g.architecture = "Blackwell";
  g.peak_dense_flops_per_s["bf16"] = 2500e12;
  g.peak_dense_flops_per_s["fp32"] = 80e12;
  return g;
}

// One 4-GPU host of an NVL72 rack, 200 Gb/s of network per host (25 GB/s).
Instance rack_host() {
  Instance in;
  in.id = "test-nvl72-tray";
  in.gpu_count = 4;
  in.nvlink_domain_gpus = 72;
  in.gpu_interconnect = "nvlink";
  in.network_bytes_per_s = 25e9;
  return in;
}

// Round efficiencies so that the figures below can be derived by hand.
Efficiencies round_eff() {
  Efficiencies e = test::catalog().efficiencies;
  e.nvlink = 0.8;   // 900 GB/s x 0.8 = 720 GB/s bus bandwidth inside the rack
  e.network = 0.9;  // 25 GB/s x 0.9 = 22.5 GB/s per host
  e.measured_intra_busbw_bytes_per_s = 0;
  e.measured_inter_busbw_bytes_per_s = 0;
  return e;
}

// The data-parallel gradient all-reduce of gpt2-medium under autocast (fp32 gradients) on
// `hosts` rack hosts with tensor parallelism `tp`.
StepTime dp_allreduce(int hosts, int tp, Estimate* e_out) {
  const Model& m = test::model("gpt2-medium");
  gpuplan::Setup s;
  s.precision = Precision::amp_bf16;
  s.tp = tp;
  s.dp = hosts * 4 / tp;
  s.global_batch = s.dp;
  auto e = estimate(m, s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  auto w = build_work_profile(m, s, e.value());
  const Gpu g = rack_gpu();
  auto c = instance_cluster(rack_host(), g, hosts);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  auto t = estimate_step_time(m, s, e.value(), w.value(), c.value(), round_eff());
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  *e_out = e.value();
  return t.ok() ? t.value() : StepTime{};
}

TEST(Collectives, AnAllReduceInsideAnNvl72RackRunsAtNvlinkSpeed) {
  // 18 hosts of 4 = 72 GPUs, one NVLink domain: 2 (n-1)/n x bytes / (900 GB/s x 0.8), with no
  // network in the path although the ranks sit on 18 hosts (domain = host would have taken the
  // 22.5 GB/s network instead).
  Estimate e;
  const StepTime t = dp_allreduce(18, 1, &e);
  const double bytes = 4.0 * static_cast<double>(e.params.trainable);
  EXPECT_NEAR(t.dp_comm_s, 2.0 * 71 / 72 * bytes / 720e9, 1e-12);
}

TEST(Collectives, AnAllReduceAcrossTwoRacksCrossesAtTheRacksNetwork) {
  // 36 hosts = 144 GPUs in two racks. The ring's share between racks goes through all 18 hosts'
  // NICs of a rack: 18 x 22.5 GB/s = 405 GB/s, below NVLink's 720: 2 x 143/144 x bytes / 405 GB/s.
  Estimate e;
  const StepTime t = dp_allreduce(36, 1, &e);
  const double bytes = 4.0 * static_cast<double>(e.params.trainable);
  EXPECT_NEAR(t.dp_comm_s, 2.0 * 143 / 144 * bytes / 405e9, 1e-12);
  // With tp = 8 the 8 data-parallel groups of a rack share its network: 405 / 8 GB/s for 1/8 of
  // the gradients each, 18 ranks per group; the tensor-parallel groups stay inside the racks.
  const StepTime t8 = dp_allreduce(36, 8, &e);
  const double bytes8 = 4.0 * static_cast<double>(e.params.trainable) / 8;
  EXPECT_NEAR(t8.dp_comm_s, 2.0 * 17 / 18 * bytes8 / (405e9 / 8), 1e-12);
}

TEST(Collectives, TensorParallelGroupsStayInsideTheDomainUnlessTheyStraddleIt) {
  const Gpu g = rack_gpu();
  const Cluster one_rack = instance_cluster(rack_host(), g, 18).value();
  const Cluster two_racks = instance_cluster(rack_host(), g, 36).value();
  EXPECT_EQ(one_rack.domain_gpus(), 72);
  EXPECT_EQ(one_rack.hosts_per_domain(), 18);
  EXPECT_EQ(two_racks.domains(), 2);
  gpuplan::Setup s;
  s.tp = 64;  // 64 consecutive GPUs of one rack
  EXPECT_TRUE(training::tp_in_domain(s, one_rack));
  s.tp = 8;  // 72 = 9 x 8: every group of two racks lies in one rack
  EXPECT_TRUE(training::tp_in_domain(s, two_racks));
  s.tp = 16;  // ranks 64-79 straddle the first rack's end at 72
  EXPECT_FALSE(training::tp_in_domain(s, two_racks));
  s.tp = 128;  // larger than a rack
  EXPECT_FALSE(training::tp_in_domain(s, two_racks));
}

TEST(Collectives, RingLatencyTakesOneNetworkStepPerDomainBoundary) {
  // NCCL's ring over 144 ranks in 2 racks: base + 142 NVLink hops + 1 network hop.
  const Gpu g = rack_gpu();
  const Cluster c = instance_cluster(rack_host(), g, 36).value();
  const Efficiencies eff = round_eff();
  const auto& r = eff.nccl_ring;
  EXPECT_NEAR(training::ring_latency_s(144, 2, c, eff),
              r.base_s + 142 * r.nvlink_hop_s + 1 * r.network_hop_s, 1e-15);
}

TEST(Collectives, AnEightGpuServerIsItsOwnDomainAsBefore) {
  // Two 8-GPU hosts joined by 100 GB/s: the data-parallel ring crosses at the host's network
  // (min(NVLink, network / tp)), the behaviour every instance had before domains existed.
  const Gpu* a100 = test::catalog().find_gpu("a100-sxm4-80gb");
  ASSERT_NE(a100, nullptr);
  Instance host;
  host.id = "test-8x";
  host.gpu_count = 8;
  host.gpu_interconnect = "nvswitch";
  host.network_bytes_per_s = 100e9;
  const Cluster c = instance_cluster(host, *a100, 2).value();
  EXPECT_EQ(c.domain_gpus(), 8);
  EXPECT_EQ(c.domains(), 2);
  const Efficiencies eff = round_eff();
  const training::Links l = training::links_for(c, eff);
  EXPECT_DOUBLE_EQ(l.inter_domain, l.inter);
  gpuplan::Setup s;
  s.dp = 8;
  s.tp = 2;
  EXPECT_DOUBLE_EQ(training::dp_busbw(s, c, l), std::min(l.intra, 100e9 * 0.9 / 2));
}

// ZeRO-1 of gpt2-medium in pure bf16 (2-byte gradients and parameters) on two NVL72 racks, 144
// data-parallel GPUs, sharded over all of them or (HSDP, --dp-shard 72) within each rack.
StepTime zero1(int dp_shard, Estimate* e_out) {
  const Model& m = test::model("gpt2-medium");
  gpuplan::Setup s;
  s.precision = Precision::bf16;
  s.zero_stage = 1;
  s.dp = 144;
  s.dp_shard = dp_shard;
  s.global_batch = s.dp;
  auto e = estimate(m, s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  auto w = build_work_profile(m, s, e.value());
  const Gpu g = rack_gpu();  // the cluster points at it
  auto c = instance_cluster(rack_host(), g, 36);
  auto t = estimate_step_time(m, s, e.value(), w.value(), c.value(), round_eff());
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  *e_out = e.value();
  return t.ok() ? t.value() : StepTime{};
}

TEST(Collectives, HybridShardingKeepsTheShardsInsideARackAndAllReducesThemAcross) {
  Estimate e;
  // One group of 144: reduce-scatter and all-gather cross the racks at 405 GB/s.
  const StepTime full = zero1(0, &e);
  const double bytes = 2.0 * static_cast<double>(e.params.trainable);
  EXPECT_NEAR(full.dp_comm_s, 2 * (143.0 / 144) * bytes / 405e9, 1e-12);
  // HSDP: reduce-scatter and all-gather over 72 ranks at NVLink's 720 GB/s; each rank's 1/72
  // shard is all-reduced with its one replica in the other rack, the 72 rings of a rack sharing
  // its 405 GB/s: 2 x 1/2 x (bytes / 72) / (405 GB/s / 72) = bytes / 405 GB/s.
  const StepTime hsdp = zero1(72, &e);
  EXPECT_NEAR(hsdp.dp_comm_s, 2 * (71.0 / 72) * bytes / 720e9 + bytes / 405e9, 1e-12);
  // The optimizer states shard over 72 GPUs instead of 144: twice as many on each.
  Estimate sharded;
  zero1(0, &sharded);
  zero1(72, &e);
  EXPECT_DOUBLE_EQ(e.memory.optimizer, 2 * sharded.memory.optimizer);
}

TEST(Collectives, AnInstanceSoldByTheRackIsRentedInWholeRacks) {
  Instance in = rack_host();
  in.min_hosts = 18;
  const Gpu g = rack_gpu();
  auto four = instance_cluster(in, g, 4);
  ASSERT_FALSE(four.ok());
  EXPECT_EQ(four.error().message,
            "instance 'test-nvl72-tray' is sold only as whole NVLink domains of 18 hosts (72 "
            "GPUs): use 18 nodes or a multiple");
  EXPECT_TRUE(instance_cluster(in, g, 36).ok());
}

TEST(Collectives, HostsWithoutANetworkFigureCanFillOneDomainButNotTwo) {
  Instance in = rack_host();
  in.network_bytes_per_s = 0;
  const Gpu g = rack_gpu();
  EXPECT_TRUE(instance_cluster(in, g, 18).ok());
  auto two = instance_cluster(in, g, 19);
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.error().message.find("has no sourced network bandwidth"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan
