// Disaggregated prefill and decode (gpuplan/serve_disagg.h): two pools of replicas on the
// co-located plan's instance, each sized by its own rate search.
//
// A request's TTFT is the prefill pool's (queue and prefill) plus the transfer of its prompt's
// keys and values to a decode replica plus that replica's first step (DistServe, Zhong et al.
// 2024, sec. 2-3: "the KV cache ... must be transmitted from the prefill to the decoding
// instances"); its TPOT is the decode pool's. The prefill pool is simulated with one output
// token a request (the prompt alone), the decode pool with every prompt token already cached
// (prefix hit rate 1: the decode replica reads the received keys and values, computes none).
// The transfer runs at the link between the two replicas: NVLink when one of each fits an
// NVLink domain of the instance, PCIe when they share a host without NVLink, else the host's
// network; each GPU of the smaller replica sends its share at once.
#include "gpuplan/serve_disagg.h"

#include <algorithm>
#include <cmath>

#include "gpuplan/serve_plan.h"
#include "gpuplan/serve_replica.h"
#include "gpuplan/timing.h"

namespace gpuplan {
namespace {

struct KvLink {
  std::string name;  // "NVLink", "PCIe", "network"
  double bytes_per_s = 0;
  double latency_s = 0;
};

// The link between a prefill replica of tp_p GPUs and a decode replica of tp_d on `in`.
Result<KvLink> kv_link(const Instance& in, const Gpu& gpu, const Efficiencies& eff, int tp_p,
                       int tp_d) {
  const double senders = std::min(tp_p, tp_d);
  const auto& hop = eff.nccl_ring;
  if (tp_p + tp_d <= in.domain_gpus() && gpu.nvlink_bandwidth_bytes_per_s > 0) {
    // nvlink_bandwidth_bytes_per_s is both directions together; a transfer uses one.
    return KvLink{gpu_fabric_name(gpu), senders * gpu.nvlink_bandwidth_bytes_per_s / 2 * eff.nvlink,
                  hop.base_s + hop.nvlink_hop_s};
  }
  if (tp_p + tp_d <= in.gpu_count && host_link_bytes_per_s(gpu) > 0) {
    return KvLink{"PCIe", senders * host_link_bytes_per_s(gpu) * eff.pcie,
                  hop.base_s + hop.pcie_hop_s};
  }
  if (in.network_bytes_per_s <= 0) {
    return make_error(
        Errc::does_not_fit, Msg::serve_disagg_no_network,
        {in.id, std::to_string(tp_p), std::to_string(tp_d), std::to_string(in.domain_gpus())});
  }
  // The host's network, shared by its GPUs: the sending replica's share of it.
  const double share = std::min(1.0, senders / std::max(1, in.gpu_count));
  return KvLink{"network", in.network_bytes_per_s * eff.network * share,
                hop.base_s + hop.network_hop_s};
}

// One pool's replica: the query's configuration at `tp` GPUs (one pipeline stage); the prefill
// pool emits one token a request, so it drafts nothing.
Result<ReplicaModel> pool_replica(const Catalog& catalog, const ServingAssumptions& serving,
                                  const Model& model, const Gpu& gpu, const ServeQuery& q, int tp,
                                  bool drafter) {
  ServeConfig c = replica_config(catalog, q, tp, 1);
  if (!drafter) c.spec = SpecDecoding{};
  return build_replica(model, gpu, c, serving, catalog.efficiencies);
}

// Sizes one pool: its replica's highest rate within `slo`, the fleet for the day's curve and its
// on-demand cost on the instance.
Result<DisaggPool> size_pool(const ReplicaModel& r, const ServeWorkload& w, const Slo& slo,
                             const ServeQuery& q, const ServeOption& colocated, int tp,
                             double output_tokens) {
  DisaggPool pool;
  pool.tp = tp;
  auto rate = max_rate_within_slo(r, w, slo);
  if (!rate.ok()) return rate.error();
  pool.rate = rate.value();
  auto fleet = plan_fleet(q.curve, pool.rate.max_rate_per_s, r.memory.weight_bytes * tp, q.policy);
  if (!fleet.ok()) return fleet.error();
  pool.fleet = fleet.value();
  FleetPrices prices;
  prices.on_demand_usd_per_hour = colocated.price.usd_per_hour;
  prices.gpus_per_replica = tp;
  prices.gpus_per_instance = colocated.gpus_per_instance;
  pool.costs = fleet_costs(pool.fleet, prices, output_tokens);
  return pool;
}

}  // namespace

Result<DisaggPlan> plan_disaggregated(const Catalog& catalog, const ServingAssumptions& serving,
                                      const Model& model, const ServeQuery& q,
                                      const ServeOption& colocated) {
  const Instance* in = catalog.find_instance(colocated.instance);
  const Gpu* gpu = catalog.find_gpu(colocated.gpu);
  if (!in || !gpu || colocated.price.usd_per_hour <= 0 || colocated.costs.empty())
    return make_error(Errc::not_found, Msg::serve_disagg_unpriced, {});
  DisaggPlan p;
  p.instance = in->id;
  const int tp_p = q.disagg.prefill_tp > 0 ? q.disagg.prefill_tp : colocated.tp;
  const int tp_d = q.disagg.decode_tp > 0 ? q.disagg.decode_tp : colocated.tp;
  // The pools run the workload's mean lengths (a dataset's means).
  ServeWorkload w = resolved_workload(q.workload, serving);
  w.lengths = LengthDistribution::fixed;
  auto pre = pool_replica(catalog, serving, model, *gpu, q, tp_p, false);
  if (!pre.ok()) return pre.error();
  auto dec = pool_replica(catalog, serving, model, *gpu, q, tp_d, true);
  if (!dec.ok()) return dec.error();
  auto link = kv_link(*in, *gpu, catalog.efficiencies, tp_p, tp_d);
  if (!link.ok()) return link.error();
  // The prompt's keys and values in every layer: each decode GPU's share times its GPUs (whole
  // tokens per GPU under attention data parallelism), and the linear-attention state.
  const ReplicaMemory& m = dec.value().memory;
  const double shares = q.config.attention_dp ? 1.0 : static_cast<double>(tp_d);
  p.kv_bytes_per_request =
      shares * (m.kv_bytes_per_token * w.prompt_tokens + m.state_bytes_per_seq);
  p.kv_transfer_s = p.kv_bytes_per_request / link.value().bytes_per_s + link.value().latency_s;
  p.kv_link = link.value().name;
  // The decode replica's first step over the received prompt: one token computed, the rest read.
  p.first_decode_step_s = prefill_time_s(dec.value(), w.prompt_tokens, w.prompt_tokens - 1);
  Slo prefill_slo{0, 0, q.slo.percentile};
  if (q.slo.ttft_s > 0) {
    p.prefill_ttft_target_s = q.slo.ttft_s - p.kv_transfer_s - p.first_decode_step_s;
    auto ms = [](double s) { return std::to_string(std::lround(s * 1000)); };
    if (p.prefill_ttft_target_s <= 0) {
      return make_error(Errc::does_not_fit, Msg::serve_disagg_ttft,
                        {ms(p.kv_transfer_s), ms(p.first_decode_step_s), ms(q.slo.ttft_s)});
    }
    prefill_slo.ttft_s = p.prefill_ttft_target_s;
  }
  ServeWorkload prompts = w;
  prompts.output_tokens = 1;
  auto prefill = size_pool(pre.value(), prompts, prefill_slo, q, colocated, tp_p, w.output_tokens);
  if (!prefill.ok()) return prefill.error();
  p.prefill = prefill.value();
  ServeWorkload decodes = w;
  decodes.prefix_hit_rate = 1;  // every prompt token arrives as keys and values
  const Slo decode_slo{0, q.slo.tpot_s, q.slo.percentile};
  auto decode = size_pool(dec.value(), decodes, decode_slo, q, colocated, tp_d, w.output_tokens);
  if (!decode.ok()) return decode.error();
  p.decode = decode.value();
  const FleetCost& a = p.prefill.costs.front();
  const FleetCost& b = p.decode.costs.front();
  p.usd_per_month_fixed = a.usd_per_month_fixed + b.usd_per_month_fixed;
  p.usd_per_month_autoscaled = a.usd_per_month_autoscaled + b.usd_per_month_autoscaled;
  p.colocated_usd_per_month_fixed = colocated.costs.front().usd_per_month_fixed;
  p.colocated_usd_per_month_autoscaled = colocated.costs.front().usd_per_month_autoscaled;
  p.gpus_fixed = p.prefill.fleet.fixed_replicas * tp_p + p.decode.fleet.fixed_replicas * tp_d;
  p.colocated_gpus_fixed = colocated.fleet.fixed_replicas * colocated.tp * colocated.pp;
  return p;
}

}  // namespace gpuplan
