// The cluster a run uses (GPUs, their links inside a node and between nodes) and the collectives
// over it: ring all-reduce and all-gather times, NCCL's ring latency, the data-parallel group's
// reach and bandwidth.
#include <algorithm>
#include <cmath>

#include "gpuplan/timing.h"
#include "training/internal.h"

namespace gpuplan {

using training::invalid;
using training::Links;

namespace {

// PCIe x16 bandwidth per direction: transfer rate x 16 lanes x encoding efficiency / 8 bits
// (PCI Express Base Specification: gen3 8 GT/s and gen4 16 GT/s with 128b/130b, gen5 32 GT/s).
double pcie_x16_bytes_per_s(int gen) {
  switch (gen) {
    case 1:
      return 2.5e9 * 16 * 0.8 / 8;
    case 2:
      return 5e9 * 16 * 0.8 / 8;
    case 3:
      return 8e9 * 16 * 128.0 / 130.0 / 8;
    case 4:
      return 16e9 * 16 * 128.0 / 130.0 / 8;
    case 5:
      return 32e9 * 16 * 128.0 / 130.0 / 8;
    default:
      return 64e9 * 16 * 242.0 / 256.0 / 8;  // gen6 FLIT mode
  }
}

}  // namespace

Result<Cluster> single_node_cluster(const Gpu& gpu, int count) {
  if (count < 1 || count > kMaxClusterGpus)
    return invalid("--gpus must be between 1 and " + std::to_string(kMaxClusterGpus));
  Cluster c;
  c.gpu = &gpu;
  c.gpus_per_node = count;
  if (gpu.nvlink_bandwidth_bytes_per_s > 0) {
    c.link = "nvlink";
    c.intra_node_busbw_bytes_per_s = gpu.nvlink_bandwidth_bytes_per_s / 2;  // per direction
  } else {
    c.link = "pcie";
    c.intra_node_busbw_bytes_per_s = pcie_x16_bytes_per_s(gpu.pcie_gen > 0 ? gpu.pcie_gen : 3);
  }
  return c;
}

Result<Cluster> instance_cluster(const Instance& instance, const Gpu& gpu, int nodes) {
  const int per_node = std::max(instance.gpu_count, 1);
  if (nodes < 1 || nodes > kMaxClusterGpus / per_node) {
    return invalid("node count must be between 1 and " +
                   std::to_string(kMaxClusterGpus / per_node) + " (at most " +
                   std::to_string(kMaxClusterGpus) + " GPUs of " + std::to_string(per_node) +
                   " per node)");
  }
  auto c = single_node_cluster(gpu, instance.gpu_count);
  if (!c.ok()) return c;
  Cluster out = c.value();
  out.nodes = nodes;
  out.vcpus_per_node = instance.vcpus;
  out.inter_node_bytes_per_s = instance.network_bytes_per_s;
  if (instance.gpu_interconnect == "pcie") {
    out.link = "pcie";
    out.intra_node_busbw_bytes_per_s = pcie_x16_bytes_per_s(gpu.pcie_gen > 0 ? gpu.pcie_gen : 3);
  } else if (!instance.gpu_interconnect.empty() && gpu.nvlink_bandwidth_bytes_per_s > 0) {
    out.link = instance.gpu_interconnect;
    out.intra_node_busbw_bytes_per_s = gpu.nvlink_bandwidth_bytes_per_s / 2;
  } else if (instance.gpu_interconnect.empty() && instance.gpu_count > 1) {
    // Not sourced for this instance: assume the slower PCIe path rather than NVLink.
    out.link = "pcie";
    out.intra_node_busbw_bytes_per_s = pcie_x16_bytes_per_s(gpu.pcie_gen > 0 ? gpu.pcie_gen : 3);
  }
  if (nodes > 1 && out.inter_node_bytes_per_s <= 0) {
    return invalid("instance '" + instance.id +
                   "' has no sourced network bandwidth; multi-node runs cannot be timed");
  }
  return out;
}

Links training::links_for(const Cluster& cluster, const Efficiencies& eff) {
  const double link_eff = cluster.link == "pcie" ? eff.pcie : eff.nvlink;
  Links l;
  l.intra = eff.measured_intra_busbw_bytes_per_s > 0
                ? eff.measured_intra_busbw_bytes_per_s
                : cluster.intra_node_busbw_bytes_per_s * link_eff;
  l.inter = eff.measured_inter_busbw_bytes_per_s > 0 ? eff.measured_inter_busbw_bytes_per_s
                                                     : cluster.inter_node_bytes_per_s * eff.network;
  return l;
}

// Ring all-reduce: 2(n-1)/n x bytes over the bus bandwidth; all-gather and reduce-scatter move
// half of that (nccl-tests doc/PERFORMANCE.md).
double training::allreduce_s(double bytes, double n, double busbw) {
  return n > 1 && busbw > 0 ? 2 * (n - 1) / n * bytes / busbw : 0.0;
}
double training::allgather_s(double bytes, double n, double busbw) {
  return allreduce_s(bytes, n, busbw) / 2;
}

// Latency of one ring all-gather or reduce-scatter over `ranks` GPUs on `nodes` nodes, as NCCL's
// tuner models it (src/graph/tuning.cc): a base, then ranks - 1 ring steps, nodes - 1 of them
// over the network and the rest over the node's own links.
double training::ring_latency_s(double ranks, double nodes, const Cluster& cluster,
                                const Efficiencies& eff) {
  if (ranks <= 1) return 0;
  const Efficiencies::RingLatency& c = eff.nccl_ring;
  const double intra_hop = cluster.link == "pcie" ? c.pcie_hop_s : c.nvlink_hop_s;
  const double network_steps = std::max(nodes, 1.0) - 1;
  return c.base_s + (ranks - 1 - network_steps) * intra_hop + network_steps * c.network_hop_s;
}

// The nodes a data-parallel group spans: its ranks, each beside its tensor-parallel peers.
double training::dp_group_nodes(const Setup& setup, const Cluster& cluster) {
  const int gpus = setup.dp * setup.tp;
  return gpus > cluster.gpus_per_node ? std::ceil(static_cast<double>(gpus) / cluster.gpus_per_node)
                                      : 1;
}

// The data-parallel group's bus bandwidth: a group that spans nodes shares each node's network
// with the tensor-parallel groups.
double training::dp_busbw(const Setup& setup, const Cluster& cluster, const Links& l) {
  return dp_group_nodes(setup, cluster) > 1 ? std::min(l.intra, l.inter / setup.tp) : l.intra;
}

}  // namespace gpuplan
