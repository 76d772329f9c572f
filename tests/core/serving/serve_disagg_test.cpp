// Disaggregated prefill and decode (gpuplan/serve_disagg.h): the KV cache a request hands over,
// its transfer time on the link between the pools, each pool sized for its own target, and the
// errors that say why a plan cannot be made.
#include <gtest/gtest.h>

#include "gpuplan/query.h"
#include "gpuplan/serve_plan.h"
#include "test_util.h"

namespace gpuplan {
namespace {

// The example query (Llama-3-70B, 1500-token prompts, 300-token answers, TTFT 1 s, TPOT 50 ms)
// on one instance, with --disaggregate.
ServeQuery disagg_query(const std::string& instance) {
  ServeQuery q = serving_example_query();
  q.instance = instance;
  q.disagg.on = true;
  return q;
}

Result<ServePlan> plan(const ServeQuery& q) {
  return plan_serving(test::catalog(), test::serving(), test::model("llama-3-70b"), q);
}

TEST(ServeDisagg, APromptsKeysAndValuesCrossNvlinkInsideAnEightGpuHost) {
  ServeQuery q = disagg_query("aws-p5.48xlarge");
  q.config.tp = 4;
  auto p = plan(q);
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_TRUE(p.value().disaggregated.has_value())
      << (p.value().disaggregated_error ? p.value().disaggregated_error->message : "");
  const DisaggPlan& d = *p.value().disaggregated;
  // Llama-3-70B: 80 layers x 8 key-value heads x 128 channels x (K, V) x 2 bytes = 327,680 bytes
  // a token; 1500 prompt tokens.
  EXPECT_DOUBLE_EQ(d.kv_bytes_per_request, 1500.0 * 80 * 8 * 128 * 2 * 2);
  // A prefill and a decode replica of 4 GPUs fit the 8-GPU host together: NVLink, one direction of
  // each of the smaller replica's GPUs at the all-reduce efficiency, plus NCCL's base and one
  // NVLink hop.
  const ServeOption& best = p.value().options.front();
  ASSERT_EQ(best.tp, 4);
  EXPECT_EQ(d.kv_link, "NVLink");
  const Gpu& h100 = *test::catalog().find_gpu("h100-sxm5-80gb");
  const Efficiencies& eff = test::catalog().efficiencies;
  const double bw = best.tp * h100.nvlink_bandwidth_bytes_per_s / 2 * eff.nvlink;
  EXPECT_NEAR(d.kv_transfer_s,
              d.kv_bytes_per_request / bw + eff.nccl_ring.base_s + eff.nccl_ring.nvlink_hop_s,
              1e-12);
  // The prefill pool meets what the TTFT target leaves; the decode pool the TPOT target.
  EXPECT_NEAR(d.prefill_ttft_target_s, q.slo.ttft_s - d.kv_transfer_s - d.first_decode_step_s,
              1e-12);
  EXPECT_LE(d.prefill.rate.at_max.ttft_s.p90, d.prefill_ttft_target_s);
  EXPECT_LE(d.decode.rate.at_max.tpot_s.p90, q.slo.tpot_s);
  // Decode steps no longer share the GPUs with prompts: a decode replica sustains more requests
  // than a co-located one of the same size within the same TPOT.
  EXPECT_GT(d.decode.rate.max_rate_per_s, best.rate.max_rate_per_s);
  EXPECT_EQ(d.gpus_fixed, d.prefill.fleet.fixed_replicas * d.prefill.tp +
                              d.decode.fleet.fixed_replicas * d.decode.tp);
  EXPECT_DOUBLE_EQ(d.usd_per_month_fixed, d.prefill.costs.front().usd_per_month_fixed +
                                              d.decode.costs.front().usd_per_month_fixed);
}

TEST(ServeDisagg, PoolsOfTheirOwnSize) {
  ServeQuery q = disagg_query("aws-p5.48xlarge");
  q.disagg.prefill_tp = 2;
  q.disagg.decode_tp = 8;  // 2 + 8 GPUs: more than the host, so the network carries the cache
  auto p = plan(q);
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_TRUE(p.value().disaggregated.has_value());
  const DisaggPlan& d = *p.value().disaggregated;
  EXPECT_EQ(d.prefill.tp, 2);
  EXPECT_EQ(d.decode.tp, 8);
  EXPECT_EQ(d.kv_link, "network");
  const Instance& p5 = *test::catalog().find_instance("aws-p5.48xlarge");
  const Efficiencies& eff = test::catalog().efficiencies;
  const double bw = p5.network_bytes_per_s * eff.network * 2 / p5.gpu_count;
  EXPECT_NEAR(d.kv_transfer_s,
              d.kv_bytes_per_request / bw + eff.nccl_ring.base_s + eff.nccl_ring.network_hop_s,
              1e-12);
}

TEST(ServeDisagg, SaysWhyItCannotPlan) {
  // A single-GPU machine without a sourced network: the cache has no timed way across.
  ServeQuery q = disagg_query("runpod-community-cloud-1x-h100-sxm-80gb");
  q.curve = load_curve_from_key("flat", 1).value();
  auto lone = plan_serving(test::catalog(), test::serving(), test::model("llama-3-8b"), q);
  ASSERT_TRUE(lone.ok()) << lone.error().message;  // the co-located plan stands
  EXPECT_FALSE(lone.value().disaggregated.has_value());
  ASSERT_TRUE(lone.value().disaggregated_error.has_value());
  EXPECT_EQ(lone.value().disaggregated_error->id, Msg::serve_disagg_no_network);
  // A TTFT target the transfer and the first decode step already use up (planned on the option
  // of a query without one: a co-located plan with so tight a target has no option at all).
  ServeQuery open = disagg_query("aws-p5.48xlarge");
  open.slo.ttft_s = 0;
  auto p = plan(open);
  ASSERT_TRUE(p.ok()) << p.error().message;
  ServeQuery tight = open;
  tight.slo.ttft_s = 0.001;
  auto d = plan_disaggregated(test::catalog(), test::serving(), test::model("llama-3-70b"), tight,
                              p.value().options.front());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().id, Msg::serve_disagg_ttft);
}

}  // namespace
}  // namespace gpuplan
