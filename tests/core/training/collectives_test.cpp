// core/src/training/collectives.cpp: the cluster's links and the collectives over them, against
// figures derived by hand from the formulas each cites (ring all-reduce: nccl-tests
// doc/PERFORMANCE.md; ring latency: NCCL's tuner, src/graph/tuning.cc; PCIe: the PCI Express
// Base Specification's transfer rates and encodings).
#include <gtest/gtest.h>

#include "gpuplan/timing.h"
#include "test_util.h"
#include "training/internal.h"

namespace gpuplan {
namespace {

using training::allgather_s;
using training::allreduce_s;
using training::ring_latency_s;

TEST(RingAllReduce, MovesTwoNMinusOneOverNOfTheBytesAtTheBusBandwidth) {
  // 1 GB over 8 ranks at 100 GB/s: each rank sends and receives 2 x 7/8 x 1 GB = 1.75 GB, 17.5 ms.
  EXPECT_DOUBLE_EQ(allreduce_s(1e9, 8, 100e9), 2 * 7.0 / 8 * 1e9 / 100e9);
  EXPECT_NEAR(allreduce_s(1e9, 8, 100e9), 0.0175, 1e-15);
  // Two ranks: 2 x 1/2 = the whole buffer once, 10 ms.
  EXPECT_NEAR(allreduce_s(1e9, 2, 100e9), 0.010, 1e-15);
  // All-gather and reduce-scatter are each half of an all-reduce: (n-1)/n x bytes.
  EXPECT_NEAR(allgather_s(1e9, 8, 100e9), 0.00875, 1e-15);
  // One rank, or no bandwidth known: nothing is moved, nothing is charged.
  EXPECT_EQ(allreduce_s(1e9, 1, 100e9), 0.0);
  EXPECT_EQ(allreduce_s(1e9, 8, 0), 0.0);
}

Efficiencies ring_constants() {
  Efficiencies eff;
  eff.nccl_ring.base_s = 10e-6;
  eff.nccl_ring.nvlink_hop_s = 2e-6;
  eff.nccl_ring.pcie_hop_s = 5e-6;
  eff.nccl_ring.network_hop_s = 20e-6;
  return eff;
}

TEST(RingLatency, IsABaseThenOneHopPerRingStepByTheLinkItCrosses) {
  const Efficiencies eff = ring_constants();
  Cluster nvlink;
  nvlink.link = "nvlink";
  Cluster pcie;
  pcie.link = "pcie";
  // 8 ranks in one node: 7 ring steps over NVLink: 10 + 7 x 2 = 24 us.
  EXPECT_NEAR(ring_latency_s(8, 1, nvlink, eff), 24e-6, 1e-15);
  // The same over PCIe: 10 + 7 x 5 = 45 us.
  EXPECT_NEAR(ring_latency_s(8, 1, pcie, eff), 45e-6, 1e-15);
  // 16 ranks on 2 nodes: 15 steps, 1 of them between the nodes: 10 + 14 x 2 + 1 x 20 = 58 us.
  EXPECT_NEAR(ring_latency_s(16, 2, nvlink, eff), 58e-6, 1e-15);
  // 512 ranks on 64 nodes: 511 steps, 63 between nodes: 10 + 448 x 2 + 63 x 20 = 2,166 us.
  EXPECT_NEAR(ring_latency_s(512, 64, nvlink, eff), 2166e-6, 1e-12);
  // One rank talks to nobody.
  EXPECT_EQ(ring_latency_s(1, 1, nvlink, eff), 0.0);
}

TEST(RingLatency, TheCatalogCarriesNcclsTunerConstants) {
  // data/assumptions.json, from NCCL 2.30.7 src/graph/tuning.cc (Ring, Simple): 8.4 us per
  // collective, 3.4 us per NVLink hop, 5.7 us per PCIe hop, 14.0 us per network hop.
  const Efficiencies& eff = test::catalog().efficiencies;
  EXPECT_DOUBLE_EQ(eff.nccl_ring.base_s, 8.4e-6);
  EXPECT_DOUBLE_EQ(eff.nccl_ring.nvlink_hop_s, 3.4e-6);
  EXPECT_DOUBLE_EQ(eff.nccl_ring.pcie_hop_s, 5.7e-6);
  EXPECT_DOUBLE_EQ(eff.nccl_ring.network_hop_s, 14.0e-6);
  Cluster c;
  c.link = "nvlink";
  // 8 H100s of one node: 8.4 + 7 x 3.4 = 32.2 us per all-gather.
  EXPECT_NEAR(ring_latency_s(8, 1, c, eff), 32.2e-6, 1e-12);
}

TEST(Cluster, PcieGenerationsGiveTheirX16RatePerDirection) {
  Gpu g;
  g.id = "pcie-card";
  // Gen 4: 16 GT/s x 16 lanes x 128/130 / 8 bits = 31.51 GB/s; gen 3 half of it; gen 5 double.
  for (auto [gen, bytes] : {std::pair<int, double>{3, 8e9 * 16 * 128 / 130 / 8},
                            {4, 16e9 * 16 * 128 / 130 / 8},
                            {5, 32e9 * 16 * 128 / 130 / 8}}) {
    g.pcie_gen = gen;
    auto c = single_node_cluster(g, 4);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c.value().link, "pcie");
    EXPECT_DOUBLE_EQ(c.value().intra_node_busbw_bytes_per_s, bytes) << "gen " << gen;
  }
  EXPECT_NEAR(16e9 * 16 * 128 / 130 / 8, 31.5077e9, 1e5);
  // An unknown generation is taken as gen 3 (the slower assumption).
  g.pcie_gen = 0;
  EXPECT_DOUBLE_EQ(single_node_cluster(g, 2).value().intra_node_busbw_bytes_per_s,
                   8e9 * 16 * 128 / 130 / 8);
}

TEST(Cluster, NvlinkIsHalfTheBidirectionalFigurePerDirection) {
  const Gpu* h100 = test::catalog().find_gpu("h100-sxm5-80gb");
  ASSERT_NE(h100, nullptr);
  auto c = single_node_cluster(*h100, 8);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.value().link, "nvlink");
  // The catalog's 900 GB/s is both directions together; a ring uses one: 450 GB/s.
  EXPECT_DOUBLE_EQ(c.value().intra_node_busbw_bytes_per_s, h100->nvlink_bandwidth_bytes_per_s / 2);
  EXPECT_DOUBLE_EQ(c.value().intra_node_busbw_bytes_per_s, 450e9);
}

TEST(Cluster, ManyNodesNeedASourcedNetworkAndBadCountsAreRefused) {
  const Gpu* h100 = test::catalog().find_gpu("h100-sxm5-80gb");
  ASSERT_NE(h100, nullptr);
  Instance box;
  box.id = "box";
  box.gpu_count = 8;
  box.gpu_interconnect = "nvswitch";
  auto two = instance_cluster(box, *h100, 2);
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.error().message.find("no sourced network bandwidth"), std::string::npos);
  box.network_bytes_per_s = 400e9;
  ASSERT_TRUE(instance_cluster(box, *h100, 2).ok());
  EXPECT_FALSE(instance_cluster(box, *h100, 0).ok());
  EXPECT_FALSE(single_node_cluster(*h100, 0).ok());
}

TEST(DataParallelGroup, SpansDomainsWhenItsGpusDoAndSharesTheNetworkWithTensorParallelism) {
  Cluster c;
  c.gpus_per_node = 8;
  training::Links l;
  l.intra = 300e9;
  l.inter = 40e9;
  l.inter_domain = 40e9;  // the host is the NVLink domain: its network is the domain's
  gpuplan::Setup s;
  s.dp = 16;  // 16 GPUs on 8-GPU nodes: 2 nodes, the network binds
  EXPECT_EQ(training::dp_group_domains(s, c), 2);
  EXPECT_EQ(training::dp_busbw(s, c, l), 40e9);
  s.dp = 8;
  s.tp = 2;  // 16 GPUs again; each node's network is shared by 2 tensor-parallel ranks' groups
  EXPECT_EQ(training::dp_group_domains(s, c), 2);
  EXPECT_EQ(training::dp_busbw(s, c, l), 20e9);
  s.dp = 4;  // 8 GPUs: one node, NVLink
  EXPECT_EQ(training::dp_group_domains(s, c), 1);
  EXPECT_EQ(training::dp_busbw(s, c, l), 300e9);
}

TEST(Links, AreThePeakTimesTheEfficiencyUnlessAProbeMeasuredThem) {
  Cluster c;
  c.link = "nvlink";
  c.intra_node_busbw_bytes_per_s = 450e9;
  c.inter_node_bytes_per_s = 400e9 / 8;
  Efficiencies eff;
  eff.nvlink = 0.8;
  eff.pcie = 0.5;
  eff.network = 0.9;
  training::Links l = training::links_for(c, eff);
  EXPECT_DOUBLE_EQ(l.intra, 360e9);
  EXPECT_DOUBLE_EQ(l.inter, 45e9);
  c.link = "pcie";
  EXPECT_DOUBLE_EQ(training::links_for(c, eff).intra, 225e9);
  eff.measured_intra_busbw_bytes_per_s = 123e9;
  eff.measured_inter_busbw_bytes_per_s = 12e9;
  l = training::links_for(c, eff);
  EXPECT_DOUBLE_EQ(l.intra, 123e9);
  EXPECT_DOUBLE_EQ(l.inter, 12e9);
}

}  // namespace
}  // namespace gpuplan
