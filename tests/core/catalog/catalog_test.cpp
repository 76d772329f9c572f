// The catalog loader: the real data loads; broken files are rejected with the file and field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "catalog/assumption_keys.h"
#include "gpuplan/catalog.h"
#include "gpuplan/embedded_data.h"
#include "test_util.h"

namespace gpuplan {
namespace {

TEST(Catalog, BundledDataLoadsWithEveryKind) {
  const Catalog& c = test::catalog();
  EXPECT_GE(c.models.size(), 30u);
  EXPECT_GE(c.gpus.size(), 20u);
  EXPECT_GE(c.instances.size(), 40u);
  EXPECT_GE(c.providers.size(), 6u);
  EXPECT_EQ(c.prices_as_of.size(), 10u);
  ASSERT_NE(c.find_gpu("A100-SXM4-80GB"), nullptr);  // alias as nvidia-smi prints it
  EXPECT_EQ(c.find_gpu("A100-SXM4-80GB")->id, "a100-sxm4-80gb");
  EXPECT_NE(c.find_model("meta-llama/Llama-2-7b-hf"), nullptr);
  // Every GPU the seed guide names is there, with a sourced memory size and bandwidth.
  for (const char* id :
       {"t4", "a40", "a100-sxm4-80gb", "h100-sxm5-80gb", "v100-sxm2-16gb", "mi300x"}) {
    const Gpu* g = c.find_gpu(id);
    ASSERT_NE(g, nullptr) << id;
    EXPECT_GT(g->memory_bytes, 1e9) << id;
    EXPECT_FALSE(g->fact_sources.at("memory_bytes").date.empty()) << id;
  }
  // H100 SXM FP8: 1979 TFLOPS dense; the 3958 quoted "with sparsity" is kept apart.
  const Gpu* h100 = c.find_gpu("h100-sxm5-80gb");
  EXPECT_DOUBLE_EQ(h100->peak_dense_flops_per_s.at("fp8"), 1979e12);
  if (h100->peak_sparse_flops_per_s.count("fp8")) {
    EXPECT_DOUBLE_EQ(h100->peak_sparse_flops_per_s.at("fp8"), 3958e12);
  }
}

// Loads the bundled files with one of them replaced by `edit(json)`.
std::string load_with(const std::string& path, const std::function<void(nlohmann::json&)>& edit) {
  std::vector<DataFile> files = embedded_data_files();
  for (auto& f : files) {
    if (f.path != path) continue;
    nlohmann::json j = nlohmann::json::parse(f.text);
    edit(j);
    f.text = j.dump();
  }
  auto c = load_catalog(files);
  return c.ok() ? std::string() : c.error().message;
}

TEST(Catalog, NamesAsPeopleWriteThemFindTheOneEntryTheyMean) {
  const Catalog& c = test::catalog();
  auto gpu = [&](const char* name) {
    const Gpu* g = c.find_gpu(name);
    return g ? g->id : std::string("(none)");
  };
  auto model = [&](const char* name) {
    const Model* m = c.find_model(name);
    return m ? m->id : std::string("(none)");
  };
  EXPECT_EQ(gpu("a100-pcie-80gb"), "a100-pcie-80gb");             // id
  EXPECT_EQ(gpu("A100-PCIE-80GB"), "a100-pcie-80gb");             // case and punctuation
  EXPECT_EQ(gpu("NVIDIA A100 80GB PCIe"), "a100-pcie-80gb");      // word order, vendor word
  EXPECT_EQ(gpu("A100-SXM4-80GB (DGX A100)"), "a100-sxm4-80gb");  // a system remark
  EXPECT_EQ(gpu("V100-SXM3-32GB (DGX-2H)"), "(none)");            // not taken for an SXM2
  EXPECT_EQ(gpu("A100"), "(none)");                               // ambiguous: several A100s
  EXPECT_EQ(model("GPT-2 small"), "gpt2-small");
  EXPECT_EQ(model("Llama 2 7B"), "llama-2-7b");
  EXPECT_EQ(model("BERT-large (SQuAD v1.1 fine-tune)"), "bert-large-qa");  // alias, not BERT-large
  EXPECT_EQ(model("BERT-base (SQuAD v1.1)"), "bert-base-qa");
  EXPECT_EQ(model("BERT-large (SQuAD v2.0)"), "(none)");  // a model's remark is kept
  // What an "unknown" message suggests: the entries whose words include all of the name's.
  EXPECT_EQ(c.similar_gpus("A100 80GB"), "a100-pcie-80gb, a100-sxm4-80gb");
  EXPECT_EQ(c.similar_models("llama 2"), "llama-2-13b, llama-2-70b, llama-2-7b");
  EXPECT_EQ(c.similar_gpus("h9000"), "");
}

TEST(Catalog, UnknownNameErrorsCarryTheirIdAndSuggestions) {
  const Catalog& c = test::catalog();
  const Error model = unknown_model_error(c, "llama 2");
  EXPECT_EQ(model.code, Errc::not_found);
  EXPECT_EQ(model.id, Msg::eval_unknown_model_like);
  EXPECT_EQ(model.message,
            "--model: unknown model 'llama 2'; did you mean one of: llama-2-13b, llama-2-70b, "
            "llama-2-7b");
  EXPECT_EQ(unknown_model_error(c, "zzqq-9b").id, Msg::eval_unknown_model);
  const Error gpu = unknown_gpu_error(c, "A100 80GB");
  EXPECT_EQ(gpu.id, Msg::eval_unknown_gpu_like);
  EXPECT_EQ(gpu.args, (std::vector<std::string>{"A100 80GB", "a100-pcie-80gb, a100-sxm4-80gb"}));
  EXPECT_EQ(unknown_gpu_error(c, "h9000").message,
            "--gpu: unknown GPU 'h9000' (run 'gpuplan gpus')");
  const Error instance = unknown_instance_error("aws-zz");
  EXPECT_EQ(instance.id, Msg::eval_unknown_instance);
  EXPECT_EQ(instance.message, "--instance: unknown instance 'aws-zz' (run 'gpuplan instances')");
}

TEST(Catalog, RejectsAFactWithoutSource) {
  EXPECT_EQ(
      load_with("gpus/t4.json", [](nlohmann::json& j) { j["specs"]["tdp_w"].erase("source"); }),
      "gpus/t4.json: specs.tdp_w.source: missing required field");
}

TEST(Catalog, RejectsASourceWithoutDate) {
  const std::string msg = load_with("gpus/t4.json", [](nlohmann::json& j) {
    for (auto& [k, v] : j["sources"].items()) v.erase("date");
  });
  EXPECT_NE(msg.find("gpus/t4.json: sources."), std::string::npos) << msg;
  EXPECT_NE(msg.find(".date: missing required field"), std::string::npos) << msg;
}

TEST(Catalog, RejectsAnUnknownSourceKey) {
  EXPECT_EQ(load_with("gpus/t4.json",
                      [](nlohmann::json& j) { j["specs"]["tdp_w"]["source"] = "my-guess"; }),
            "gpus/t4.json: specs.tdp_w.source: 'my-guess' is not in sources");
}

TEST(Catalog, RejectsADuplicateId) {
  std::vector<DataFile> files = embedded_data_files();
  DataFile copy;
  for (const auto& f : files) {
    if (f.path == "gpus/t4.json") copy = f;
  }
  copy.path = "gpus/t4-copy.json";
  files.push_back(copy);
  auto c = load_catalog(files);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, "gpus/t4-copy.json: id 't4' does not match the file name");
}

TEST(Catalog, RejectsADanglingGpuReference) {
  EXPECT_EQ(
      load_with("instances/aws-p4d.24xlarge.json", [](nlohmann::json& j) { j["gpu"] = "a200"; }),
      "instances/aws-p4d.24xlarge.json: gpu 'a200' is not in data/gpus");
}

TEST(Catalog, RejectsAnUnknownRegion) {
  EXPECT_EQ(load_with("instances/aws-p4d.24xlarge.json",
                      [](nlohmann::json& j) { j["prices"][0]["region"] = "us-moon-1"; }),
            "instances/aws-p4d.24xlarge.json: price region 'us-moon-1' is not a region of provider "
            "'aws'");
}

TEST(Catalog, RejectsImplausibleValues) {
  EXPECT_EQ(
      load_with("gpus/t4.json",
                [](nlohmann::json& j) { j["specs"]["memory_bandwidth_gb_per_s"]["value"] = 1e7; }),
      "gpus/t4.json: specs.memory_bandwidth_gb_per_s.value: 10000000.0 is implausible (expected 50 "
      "to 50000)");
  EXPECT_EQ(load_with("instances/aws-p4d.24xlarge.json",
                      [](nlohmann::json& j) { j["prices"][0]["on_demand_usd_per_hour"] = -3; }),
            "instances/aws-p4d.24xlarge.json: prices[0].on_demand_usd_per_hour: -3 is implausible "
            "(expected 0.01 to "
            "2000 USD per hour)");
  EXPECT_EQ(
      load_with("instances/aws-p4d.24xlarge.json", [](nlohmann::json& j) { j["gpu_count"] = 0; }),
      "instances/aws-p4d.24xlarge.json: gpu_count: 0 is out of range [1, 64]");
}

TEST(Catalog, RejectsUnknownSchemaVersionsAndFields) {
  EXPECT_EQ(load_with("gpus/t4.json", [](nlohmann::json& j) { j["schema_version"] = 2; }),
            "gpus/t4.json: schema_version 2 is not supported (this build reads 1); update gpuplan "
            "or convert the file");
  EXPECT_EQ(load_with("gpus/t4.json", [](nlohmann::json& j) { j["specs"]["tflops"] = 1; }),
            "gpus/t4.json: specs.tflops: unknown field (check its spelling against the schema)");
  EXPECT_EQ(load_with("models/gpt2-small.json",
                      [](nlohmann::json& j) { j["transformer"]["hiden"] = 768; }),
            "models/gpt2-small.json: transformer.hiden: unknown field (check its spelling against "
            "the schema)");
}

// Efficiencies have no built-in defaults: a catalog whose assumptions leave one out is refused.
TEST(Catalog, RejectsAssumptionsWithoutAnEfficiency) {
  EXPECT_EQ(
      load_with("assumptions.json",
                [](nlohmann::json& j) { j["assumptions"]["gemm_efficiency"]["value"] = nullptr; }),
      "assumptions.json: assumptions.gemm_efficiency: missing or null (the time model has no other "
      "source for it)");
  EXPECT_EQ(
      load_with("assumptions.json",
                [](nlohmann::json& j) { j["assumptions"].erase("kernel_launch_overhead_s"); }),
      "assumptions.json: assumptions.kernel_launch_overhead_s: missing or null (the time model has "
      "no other "
      "source for it)");
}

// Every key of the assumptions table is read into its field, a required one cannot be left out,
// and an optional one (Hopper's flash attention) falls back to Ampere's.
TEST(Catalog, EachAssumptionKeyFillsItsFieldAndRequiredOnesCannotBeLeftOut) {
  const Catalog& c = test::catalog();
  const nlohmann::json assumptions = [] {
    for (const auto& f : embedded_data_files()) {
      if (f.path == "assumptions.json") return nlohmann::json::parse(f.text)["assumptions"];
    }
    return nlohmann::json();
  }();
  Efficiencies read = c.efficiencies;
  for (const auto& k : detail::kAssumptionKeys) {
    ASSERT_TRUE(assumptions.contains(k.key)) << k.key;
    EXPECT_DOUBLE_EQ(k.field(read), assumptions[k.key]["value"].get<double>()) << k.key;
    const std::string refused =
        load_with("assumptions.json", [&](nlohmann::json& j) { j["assumptions"].erase(k.key); });
    if (k.required) {
      EXPECT_NE(refused.find(std::string("assumptions.") + k.key + ": missing or null"),
                std::string::npos)
          << refused;
    } else {
      EXPECT_EQ(refused, "") << k.key;
    }
  }
  // Without Hopper's figures, an H100 takes Ampere's.
  std::vector<DataFile> files = embedded_data_files();
  for (auto& f : files) {
    if (f.path != "assumptions.json") continue;
    nlohmann::json j = nlohmann::json::parse(f.text);
    j["assumptions"].erase("flash_attention_backward_efficiency_hopper");
    f.text = j.dump();
  }
  auto without = load_catalog(files);
  ASSERT_TRUE(without.ok()) << without.error().message;
  EXPECT_EQ(without.value().efficiencies.flash_attention.count("Hopper"), 0u);
  EXPECT_EQ(without.value().efficiencies.flash_attention_default.forward,
            assumptions["flash_attention_forward_efficiency_ampere"]["value"].get<double>());
}

}  // namespace
}  // namespace gpuplan
