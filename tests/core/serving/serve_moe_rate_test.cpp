// Serving MoE kernel rates (Gpu::serving_moe_stream_bytes_per_s): read from the catalog with their
// source, and used by a replica's decode step for the routed experts' weights where the weights
// are in a format no GEMM table measures (MXFP4, int4); the dense weights keep their own rate.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "gpuplan/serve_replica.h"
#include "test_util.h"

namespace gpuplan {
namespace {

TEST(ServingMoe, TheCatalogReadsEachRuntimesMeasuredExpertRateWithItsSource) {
  nlohmann::json file;
  for (const auto& f : embedded_data_files())
    if (f.path == "gpus/h100-sxm5-80gb.json") file = nlohmann::json::parse(f.text);
  const double gb_per_s = file.at("specs")
                              .at("serving_moe")
                              .at("vllm")
                              .at("mxfp4")
                              .at("expert_stream_gb_per_s")
                              .at("value")
                              .get<double>();
  const Gpu* h100 = test::catalog().find_gpu("h100-sxm5-80gb");
  ASSERT_NE(h100, nullptr);
  EXPECT_DOUBLE_EQ(h100->serving_moe_stream_bytes_per_s.at("vllm/mxfp4"), gb_per_s * 1e9);
  const FactSource& source = h100->fact_sources.at("serving_moe.vllm/mxfp4");
  EXPECT_NE(source.url.find("h100_sxm/moe/vllm/"), std::string::npos);
  EXPECT_LT(gb_per_s * 1e9, h100->memory_bandwidth_bytes_per_s);
}

TEST(ServingMoe, RejectsAFormatTheTablesDoNotCoverAndAMissingFigure) {
  auto load = [](void (*edit)(nlohmann::json&)) {
    auto c = test::catalog_with("gpus/h100-sxm5-80gb.json", edit);
    return c.ok() ? "" : c.error().message;
  };
  EXPECT_EQ(load([](nlohmann::json& j) {
              j["specs"]["serving_moe"]["vllm"]["bf16"] =
                  j["specs"]["serving_moe"]["vllm"]["mxfp4"];
            }),
            "gpus/h100-sxm5-80gb.json: specs.serving_moe.vllm.bf16: unknown field (check its "
            "spelling against the schema)");
  EXPECT_EQ(load([](nlohmann::json& j) {
              j["specs"]["serving_moe"]["vllm"]["mxfp4"].erase("expert_stream_gb_per_s");
            }),
            "gpus/h100-sxm5-80gb.json: specs.serving_moe.vllm.mxfp4: needs expert_stream_gb_per_s");
}

// The bundled H100 with one hand-made MoE rate: vLLM's MXFP4 experts at 1e12 B/s.
Gpu h100_with_moe_rate() {
  Gpu g = *test::catalog().find_gpu("h100-sxm5-80gb");
  g.serving_moe_stream_bytes_per_s = {{"vllm/mxfp4", 1e12}};
  return g;
}

ReplicaModel replica(const std::string& model, const Gpu& g, ServeConfig c,
                     const Efficiencies& eff) {
  auto r = build_replica(test::model(model), g, c, test::serving(), eff);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : ReplicaModel{};
}

ServeConfig vllm_mxfp4() {
  ServeConfig c;
  c.runtime = Runtime::vllm;
  c.weights = WeightFormat::mxfp4;
  return c;
}

TEST(ServeMoeRate, TheTouchedExpertsStreamAtTheMeasuredRateTheRestAtTheirOwn) {
  const Efficiencies& eff = test::catalog().efficiencies;
  const ReplicaModel r = replica("gpt-oss-20b", h100_with_moe_rate(), vllm_mxfp4(), eff);
  EXPECT_DOUBLE_EQ(r.expert_weight_bytes_per_s, 1e12);
  EXPECT_DOUBLE_EQ(r.weight_bytes_per_s, r.hbm_bytes_per_s);  // no GEMM table for MXFP4
  EXPECT_NE(std::find(r.notes.begin(), r.notes.end(),
                      "vllm/mxfp4 experts stream at the rate measured for its fused-MoE kernels "
                      "on h100-sxm5-80gb: 1000 GB/s"),
            r.notes.end());
  // Eight sequences: experts_touched of the 32 experts, each layer's share of their bytes at
  // 1e12 B/s; attention, router and head weights at the replica's weight rate.
  StepLoad eight;
  eight.decode_seqs = 8;
  const StepBreakdown b = step_time(r, eight);
  const double experts = r.moe_layers * r.expert_bytes_per_layer * b.experts_touched / r.experts;
  const double activations =
      8 * r.activation_bytes_per_token + 8 * r.mlp_activation_bytes_per_token;
  EXPECT_NEAR(b.weights_s,
              r.dense_weight_bytes / r.weight_bytes_per_s + experts / 1e12 +
                  activations / r.hbm_bytes_per_s,
              1e-15);
}

TEST(ServeMoeRate, OtherRuntimesFormatsAndDenseModelsKeepTheWeightRate) {
  const Efficiencies& eff = test::catalog().efficiencies;
  const Gpu g = h100_with_moe_rate();
  ServeConfig trtllm = vllm_mxfp4();
  trtllm.runtime = Runtime::trtllm;  // the hand-made rate is vLLM's
  ServeConfig own = vllm_mxfp4();
  own.runtime_gemm_rates = false;  // the run's own kernels
  for (const ServeConfig& c : {trtllm, own}) {
    const ReplicaModel r = replica("gpt-oss-20b", g, c, eff);
    EXPECT_DOUBLE_EQ(r.expert_weight_bytes_per_s, r.weight_bytes_per_s);
  }
  // bf16 experts keep the GEMM table's rate, whatever the MoE table says.
  Gpu bf16_rate = g;
  bf16_rate.serving_moe_stream_bytes_per_s["vllm/bf16"] = 1e12;
  ServeConfig bf16 = vllm_mxfp4();
  bf16.weights = WeightFormat::bf16;
  bf16.tp = 2;
  const ReplicaModel mixtral = replica("mixtral-8x7b", bf16_rate, bf16, eff);
  EXPECT_DOUBLE_EQ(mixtral.expert_weight_bytes_per_s, mixtral.weight_bytes_per_s);
  // A dense model has no experts to stream.
  const ReplicaModel dense = replica("llama-3-8b", g, vllm_mxfp4(), eff);
  EXPECT_DOUBLE_EQ(dense.expert_weight_bytes_per_s, dense.weight_bytes_per_s);
}

}  // namespace
}  // namespace gpuplan
