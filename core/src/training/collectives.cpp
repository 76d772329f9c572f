// The cluster a run uses (GPUs, their links inside an NVLink domain and between domains) and the
// collectives over it: ring all-reduce and all-gather times, NCCL's ring latency, where the
// tensor- and data-parallel groups reach and their bandwidth.
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

double host_link_bytes_per_s(const Gpu& gpu) {
  if (gpu.host_link_bytes_per_s > 0) return gpu.host_link_bytes_per_s;
  if (gpu.host_link == "nvlink-c2c" || gpu.pcie_gen <= 0) return 0;
  return pcie_x16_bytes_per_s(gpu.pcie_gen);
}

Result<Cluster> single_node_cluster(const Gpu& gpu, int count) {
  if (count < 1 || count > kMaxClusterGpus)
    return invalid(Msg::time_gpus_range, {std::to_string(kMaxClusterGpus)});
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
    return invalid(Msg::time_nodes_range,
                   {std::to_string(kMaxClusterGpus / per_node), std::to_string(kMaxClusterGpus),
                    std::to_string(per_node)});
  }
  if (nodes % instance.min_hosts != 0) {
    const std::string hosts = std::to_string(instance.min_hosts);
    return invalid(Msg::time_whole_domains,
                   {instance.id, hosts, std::to_string(instance.domain_gpus()), hosts});
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
    out.gpus_per_domain = instance.domain_gpus();  // NVLink reaches across the domain's hosts
  } else if (instance.gpu_interconnect.empty() && instance.gpu_count > 1) {
    // Not sourced for this instance: assume the slower PCIe path rather than NVLink.
    out.link = "pcie";
    out.intra_node_busbw_bytes_per_s = pcie_x16_bytes_per_s(gpu.pcie_gen > 0 ? gpu.pcie_gen : 3);
  }
  if (out.domains() > 1 && out.inter_node_bytes_per_s <= 0) {
    return invalid(Msg::time_no_network, {instance.id, std::to_string(out.domain_gpus())});
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
  // A collective between domains runs each domain's share through every NIC of its hosts (each
  // GPU's shard over its own NIC), so a domain of h hosts crosses at h hosts' network; the
  // smallest domain (the last, when the hosts do not fill it) bounds the ring. A measured
  // cross-node bus bandwidth is already the whole collective's.
  const int hpd = cluster.hosts_per_domain();
  const int smallest = cluster.nodes % hpd == 0 ? hpd : std::min(hpd, cluster.nodes % hpd);
  l.inter_domain =
      eff.measured_inter_busbw_bytes_per_s > 0 ? l.inter : l.inter * std::max(smallest, 1);
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

// Latency of one ring all-gather or reduce-scatter over `ranks` GPUs in `domains` NVLink domains,
// as NCCL's tuner models it (src/graph/tuning.cc): a base, then ranks - 1 ring steps, domains - 1
// of them over the network and the rest over NVLink (or PCIe inside a PCIe host).
double training::ring_latency_s(double ranks, double domains, const Cluster& cluster,
                                const Efficiencies& eff) {
  if (ranks <= 1) return 0;
  const Efficiencies::RingLatency& c = eff.nccl_ring;
  const double intra_hop = cluster.link == "pcie" ? c.pcie_hop_s : c.nvlink_hop_s;
  const double network_steps = std::max(domains, 1.0) - 1;
  return c.base_s + (ranks - 1 - network_steps) * intra_hop + network_steps * c.network_hop_s;
}

// Whether every tensor-parallel group lies inside one NVLink domain. Groups are `tp` consecutive
// ranks and ranks fill domains in order, so a group larger than a domain, or one that straddles a
// domain boundary (domain size not a multiple of tp, more than one domain), crosses the network.
bool training::tp_in_domain(const Setup& setup, const Cluster& cluster) {
  const int domain = cluster.domain_gpus();
  if (setup.tp > domain) return false;
  return cluster.domains() == 1 || domain % setup.tp == 0;
}

// The tensor-parallel all-reduce's bus bandwidth: NVLink inside a domain; a group that crosses the
// network shares its host's NICs with the host's other tensor-parallel ranks.
double training::tp_busbw(const Setup& setup, const Cluster& cluster, const Links& l) {
  return tp_in_domain(setup, cluster) ? l.intra : l.inter / setup.tp;
}

// The NVLink domains a data-parallel group spans: its ranks, each beside its tensor-parallel peers.
double training::dp_group_domains(const Setup& setup, const Cluster& cluster) {
  const int gpus = setup.dp * setup.tp;
  const int domain = cluster.domain_gpus();
  return gpus > domain ? std::ceil(static_cast<double>(gpus) / domain) : 1;
}

// The data-parallel group's bus bandwidth: inside one domain, NVLink; across domains, the smaller
// of NVLink and the domain's network, which the tp data-parallel groups of the domain share.
double training::dp_busbw(const Setup& setup, const Cluster& cluster, const Links& l) {
  return dp_group_domains(setup, cluster) > 1 ? std::min(l.intra, l.inter_domain / setup.tp)
                                              : l.intra;
}

}  // namespace gpuplan
