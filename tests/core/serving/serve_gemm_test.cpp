// Serving GEMM rates measured for a runtime's own kernels (Gpu::serving_gemm): read from the
// catalog with their source, shared with the GPUs of a generation that has no table, and used by
// a replica's step: weights stream at the measured bandwidth, large matmuls at the measured rate.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "gpuplan/serve_replica.h"
#include "test_util.h"

namespace gpuplan {
namespace {

// The bundled data with one file edited: the load's error message, or "" when it loads.
std::string load_edited(const std::string& path, void (*edit)(nlohmann::json&)) {
  auto c = test::catalog_with(path, edit);
  return c.ok() ? "" : c.error().message;
}

TEST(ServingGemm, TheCatalogReadsEachRuntimesMeasuredRatesWithTheirSource) {
  nlohmann::json file;
  for (const auto& f : embedded_data_files())
    if (f.path == "gpus/h100-sxm5-80gb.json") file = nlohmann::json::parse(f.text);
  const nlohmann::json& fp8 = file.at("specs").at("serving_gemm").at("trtllm").at("fp8");
  const Gpu* h100 = test::catalog().find_gpu("h100-sxm5-80gb");
  ASSERT_NE(h100, nullptr);
  const Gpu::ServingGemm& g = h100->serving_gemm.at("trtllm/fp8");
  EXPECT_DOUBLE_EQ(g.weight_stream_bytes_per_s,
                   fp8.at("weight_stream_gb_per_s").at("value").get<double>() * 1e9);
  EXPECT_DOUBLE_EQ(g.matmul_flop_per_s, fp8.at("matmul_tflops").at("value").get<double>() * 1e12);
  const FactSource& source = h100->fact_sources.at("serving_gemm.trtllm/fp8");
  EXPECT_NE(source.url.find("ai-dynamo/aiconfigurator"), std::string::npos);
  EXPECT_NE(source.url.find("h100_sxm/gemm/trtllm/"), std::string::npos);
  EXPECT_FALSE(source.date.empty());
  // Measured kernels reach less than the hardware's best: spec bandwidth and best-shape matmul.
  EXPECT_LT(g.weight_stream_bytes_per_s, h100->memory_bandwidth_bytes_per_s);
  EXPECT_LT(g.matmul_flop_per_s, h100->matmul_max_achievable_flops_per_s.at("fp8"));
}

TEST(ServingGemm, RejectsHalfAFigureAndAnUnknownRuntime) {
  EXPECT_EQ(load_edited("gpus/h100-sxm5-80gb.json",
                        [](nlohmann::json& j) {
                          j["specs"]["serving_gemm"]["trtllm"]["fp8"].erase("matmul_tflops");
                        }),
            "gpus/h100-sxm5-80gb.json: specs.serving_gemm.trtllm.fp8: needs both "
            "weight_stream_gb_per_s and matmul_tflops");
  EXPECT_EQ(load_edited("gpus/h100-sxm5-80gb.json",
                        [](nlohmann::json& j) {
                          j["specs"]["serving_gemm"]["tgi"] = j["specs"]["serving_gemm"]["vllm"];
                        }),
            "gpus/h100-sxm5-80gb.json: specs.serving_gemm.tgi: unknown field (check its spelling "
            "against the schema)");
}

// Three GPUs of one generation and one of another; `bandwidth` and fp8 peak in base units.
Gpu gpu(const std::string& id, const std::string& cc, double bandwidth, double fp8_peak) {
  Gpu g;
  g.id = id;
  g.vendor = "nvidia";
  g.architecture = "Hopper";
  g.compute_capability = cc;
  g.memory_bandwidth_bytes_per_s = bandwidth;
  g.peak_dense_flops_per_s["fp8"] = fp8_peak;
  return g;
}

TEST(ServingGemm, AGpuWithoutATableTakesTheSharesItsGenerationMeasured) {
  std::vector<Gpu> gpus = {gpu("a", "9.0", 3e12, 2e15), gpu("b", "9.0", 4.8e12, 2e15),
                           gpu("c", "9.0", 4e12, 2e15), gpu("d", "8.0", 2e12, 1e15)};
  gpus[0].serving_gemm["trtllm/fp8"] = {2.4e12, 1.2e15};  // 0.8 of bandwidth, 0.6 of peak
  gpus[2].serving_gemm["trtllm/fp8"] = {2.8e12, 1.0e15};  // 0.7, 0.5
  derive_serving_gemm_shares(gpus);
  const Gpu::ServingGemmShare& share = gpus[1].serving_gemm_generation_share.at("trtllm/fp8");
  EXPECT_DOUBLE_EQ(share.bandwidth_share, 0.75);
  EXPECT_DOUBLE_EQ(share.peak_share, 0.55);
  EXPECT_EQ(share.from, (std::vector<std::string>{"a", "c"}));
  auto b = serving_gemm_rates(gpus[1], "trtllm", "fp8");
  ASSERT_TRUE(b.has_value());
  EXPECT_DOUBLE_EQ(b->weight_stream_bytes_per_s, 0.75 * 4.8e12);
  EXPECT_DOUBLE_EQ(b->matmul_flop_per_s, 0.55 * 2e15);
  // A GPU keeps its own table; another generation, runtime or format has none.
  EXPECT_DOUBLE_EQ(serving_gemm_rates(gpus[0], "trtllm", "fp8")->matmul_flop_per_s, 1.2e15);
  EXPECT_TRUE(gpus[0].serving_gemm_generation_share.empty());
  EXPECT_FALSE(serving_gemm_rates(gpus[3], "trtllm", "fp8").has_value());
  EXPECT_FALSE(serving_gemm_rates(gpus[1], "vllm", "fp8").has_value());
  EXPECT_FALSE(serving_gemm_rates(gpus[1], "trtllm", "bf16").has_value());
}

// The bundled H100 with one hand-made table: trtllm fp8 at 2e12 B/s and 1e15 FLOP/s.
Gpu h100_with_table() {
  Gpu g = *test::catalog().find_gpu("h100-sxm5-80gb");
  g.serving_gemm = {{"trtllm/fp8", {2e12, 1e15}}};
  g.serving_gemm_generation_share.clear();
  return g;
}

ReplicaModel replica(const Gpu& g, ServeConfig c, const Efficiencies& eff) {
  auto r = build_replica(test::model("llama-3-8b"), g, c, test::serving(), eff);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : ReplicaModel{};
}

ServeConfig trtllm_fp8() {
  ServeConfig c;
  c.runtime = Runtime::trtllm;
  c.weights = WeightFormat::fp8;
  return c;
}

TEST(ServeGemm, ADecodeStepStreamsItsWeightsAtTheRuntimesMeasuredBandwidth) {
  const Efficiencies& eff = test::catalog().efficiencies;
  const Gpu g = h100_with_table();
  const ReplicaModel r = replica(g, trtllm_fp8(), eff);
  EXPECT_DOUBLE_EQ(r.compute_flop_per_s, 1e15);
  EXPECT_DOUBLE_EQ(r.weight_bytes_per_s, 2e12);
  EXPECT_DOUBLE_EQ(r.hbm_bytes_per_s, g.memory_bandwidth_bytes_per_s * eff.hbm);  // KV, norms
  EXPECT_NE(std::find(r.notes.begin(), r.notes.end(),
                      "trtllm fp8 matmuls at the rates measured for its GEMM kernels on "
                      "h100-sxm5-80gb: weights stream at 2000 GB/s, large matmuls 1000 TFLOPS"),
            r.notes.end());
  // One sequence: the weights stream at 2e12 B/s, the token's activations at HBM speed.
  StepLoad one;
  one.decode_seqs = 1;
  const double activations = r.activation_bytes_per_token + r.mlp_activation_bytes_per_token;
  EXPECT_NEAR(step_time(r, one).weights_s,
              r.dense_weight_bytes / 2e12 + activations / r.hbm_bytes_per_s, 1e-15);
  // A long prefill is compute-bound with or without the table: its matmuls take the rates' ratio.
  ServeConfig catalog_rates = trtllm_fp8();
  catalog_rates.runtime_gemm_rates = false;
  const ReplicaModel base = replica(g, catalog_rates, eff);
  StepLoad prefill;
  prefill.prefill_tokens = 8192;
  prefill.prefill_last = 1;
  EXPECT_NEAR(step_time(r, prefill).weights_s / step_time(base, prefill).weights_s,
              base.compute_flop_per_s / 1e15, 1e-12);
}

TEST(ServeGemm, OtherKernelsAndFormatsKeepTheCatalogRates) {
  const Efficiencies& eff = test::catalog().efficiencies;
  const Gpu g = h100_with_table();
  ServeConfig own = trtllm_fp8();
  own.runtime_gemm_rates = false;  // e.g. gpt-fast's compiled kernels
  ServeConfig sglang = trtllm_fp8();
  sglang.runtime = Runtime::sglang;  // the table is TensorRT-LLM's
  ServeConfig bf16 = trtllm_fp8();
  bf16.weights = WeightFormat::bf16;  // the table has fp8 only
  for (const ServeConfig& c : {own, sglang, bf16}) {
    const ReplicaModel r = replica(g, c, eff);
    EXPECT_DOUBLE_EQ(r.weight_bytes_per_s, r.hbm_bytes_per_s);
    EXPECT_NE(r.compute_flop_per_s, 1e15);
  }
  // FP8 weights on a GPU without FP8 tensor cores run at bf16: an fp8 table does not apply.
  Gpu a100 = *test::catalog().find_gpu("a100-sxm4-80gb");
  a100.serving_gemm = {{"trtllm/fp8", {1e12, 1e14}}};
  const ReplicaModel r = replica(a100, trtllm_fp8(), eff);
  EXPECT_EQ(r.compute_precision, "bf16");
  EXPECT_DOUBLE_EQ(r.weight_bytes_per_s, r.hbm_bytes_per_s);
}

TEST(ServeGemm, AProbesMeasurementsScaleTheMeasuredRates) {
  const Gpu g = h100_with_table();
  Efficiencies eff = test::catalog().efficiencies;
  ServeConfig c = trtllm_fp8();
  c.runtime_gemm_rates = false;
  const ReplicaModel catalog = replica(g, c, eff);
  // A probe that measured half the catalog's matmul rate and half its bandwidth.
  eff.measured_gemm_flop_per_s = catalog.compute_flop_per_s / 2;
  eff.measured_hbm_bytes_per_s = catalog.hbm_bytes_per_s / 2;
  const ReplicaModel r = replica(g, trtllm_fp8(), eff);
  EXPECT_DOUBLE_EQ(r.compute_flop_per_s, 1e15 / 2);
  EXPECT_DOUBLE_EQ(r.weight_bytes_per_s, 2e12 / 2);
}

}  // namespace
}  // namespace gpuplan
