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

// Loads the bundled files with one of them replaced by `edit(json)`: the error, or "".
std::string load_with(const std::string& path, const std::function<void(nlohmann::json&)>& edit) {
  auto c = test::catalog_with(path, edit);
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
  EXPECT_EQ(id_list(c.similar_gpus("A100 80GB")), "a100-pcie-80gb, a100-sxm4-80gb");
  EXPECT_EQ(id_list(c.similar_models("llama 2")), "llama-2-13b, llama-2-70b, llama-2-7b");
  EXPECT_TRUE(c.similar_gpus("h9000").empty());
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

TEST(Catalog, RejectsAZooModelWithoutItsChineseName) {
  EXPECT_EQ(load_with("models/glm-4.5.json", [](nlohmann::json& j) { j.erase("name_zh"); }),
            "models/glm-4.5.json: name_zh: missing required field (the model's name on the "
            "Chinese page)");
  EXPECT_EQ(load_with("models/glm-4.5.json", [](nlohmann::json& j) { j["name_zh"] = 4.5; }),
            "models/glm-4.5.json: name_zh: expected a string, got a number");
  // A custom model (an upload, read by parse_model_json alone) needs none.
  nlohmann::json custom;
  for (const auto& f : embedded_data_files())
    if (f.path == "models/glm-4.5.json") custom = nlohmann::json::parse(f.text);
  ASSERT_TRUE(custom.is_object());
  custom.erase("name_zh");
  auto m = parse_model_json(custom.dump(), "custom");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m.value().name_zh, "");
}

TEST(Catalog, RejectsACheckpointWeightFormatItCannotRun) {
  EXPECT_EQ(load_with("models/gpt-oss-20b.json",
                      [](nlohmann::json& j) { j["defaults"]["weights"] = "fp6"; }),
            "models/gpt-oss-20b.json: defaults.weights: 'fp6' is not a checkpoint format gpuplan "
            "reads (fp8, mxfp4, nvfp4, mxfp4-fp8, nvfp4-fp8, int8, int4, int4-experts)");
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

TEST(Catalog, BlackwellAndMi3xxPeaksKeepFp4AndFp6ApartFromSparsity) {
  const Catalog& c = test::catalog();
  auto dense = [&](const char* gpu, const char* p) {
    const Gpu* g = c.find_gpu(gpu);
    EXPECT_NE(g, nullptr) << gpu;
    return g && g->peak_dense_flops_per_s.count(p) ? g->peak_dense_flops_per_s.at(p) : 0.0;
  };
  // NVIDIA's per-GPU tables: GB200 NVL72 '1,440 | 720 PFLOPS' FP4 for 72 GPUs (sparse | dense),
  // GB300 '20 | 15 PFLOPS', HGX B300 '18 | 14 PFLOPS', HGX B200 '144 | 72' for 8 GPUs.
  EXPECT_DOUBLE_EQ(dense("gb200", "fp4"), 10000e12);
  EXPECT_DOUBLE_EQ(c.find_gpu("gb200")->peak_sparse_flops_per_s.at("fp4"), 20000e12);
  EXPECT_DOUBLE_EQ(dense("gb300", "fp4"), 15000e12);
  EXPECT_DOUBLE_EQ(dense("b300-sxm", "fp4"), 14000e12);
  EXPECT_DOUBLE_EQ(dense("b200-sxm", "fp4"), 9000e12);
  EXPECT_DOUBLE_EQ(dense("b200-sxm", "fp6"), dense("b200-sxm", "fp8"));  // FP6 at the FP8 rate
  EXPECT_DOUBLE_EQ(dense("mi355x", "fp4"), 10100e12);                    // MXFP4, AMD's dense
  EXPECT_DOUBLE_EQ(dense("mi325x", "fp4"), 0);  // CDNA3 has no FP4: absent, never 0 in the data
  EXPECT_DOUBLE_EQ(dense("gb300", "bf16"), 2500e12);
  EXPECT_EQ(c.find_gpu("NVIDIA B300 SXM6 AC")->id, "b300-sxm");  // the name nvidia-smi prints
  EXPECT_EQ(c.find_gpu("gb300")->compute_capability, "10.3");
  EXPECT_EQ(c.find_gpu("gb200")->compute_capability, "10.0");
  EXPECT_EQ(c.find_gpu("rtx-pro-6000-blackwell-server")->compute_capability, "12.0");
  // Memory as the driver reports it: 189471 MiB on a GB200.
  EXPECT_DOUBLE_EQ(c.find_gpu("gb200")->memory_bytes, 189471.0 * 1048576);
}

TEST(Catalog, AnNvl72HostKnowsItsDomainAndARackPriceIsSharedByItsHosts) {
  const Instance* cw = test::catalog().find_instance("coreweave-gb200-nvl72");
  ASSERT_NE(cw, nullptr);
  EXPECT_EQ(cw->gpu_count, 4);
  EXPECT_EQ(cw->domain_gpus(), 72);
  EXPECT_EQ(cw->hosts_per_domain(), 18);
  EXPECT_EQ(cw->min_hosts, 1);  // CoreWeave prices one 4-GPU tray
  // Sold only as a whole rack at 756 USD an hour: 42 USD per host hour, rented 18 hosts at a time.
  auto rack = test::catalog_with("instances/coreweave-gb200-nvl72.json", [](nlohmann::json& j) {
    j["prices"][0]["sold_per"] = "nvlink-domain";
    j["prices"][0]["on_demand_usd_per_hour"] = 756;
  });
  ASSERT_TRUE(rack.ok()) << rack.error().message;
  const Instance* whole = rack.value().find_instance("coreweave-gb200-nvl72");
  EXPECT_DOUBLE_EQ(*whole->prices[0].on_demand_usd_per_hour, 42);
  EXPECT_EQ(whole->prices[0].sold_per, "nvlink-domain");
  EXPECT_EQ(whole->min_hosts, 18);
  // Quoted per GPU: 10.5 USD a GPU hour is 42 per host.
  auto per_gpu = test::catalog_with("instances/coreweave-gb200-nvl72.json", [](nlohmann::json& j) {
    j["prices"][0]["sold_per"] = "gpu";
    j["prices"][0]["on_demand_usd_per_hour"] = 10.5;
  });
  ASSERT_TRUE(per_gpu.ok()) << per_gpu.error().message;
  EXPECT_DOUBLE_EQ(
      *per_gpu.value().find_instance("coreweave-gb200-nvl72")->prices[0].on_demand_usd_per_hour,
      42);
  // An 8-GPU server is its own domain.
  const Instance* p5 = test::catalog().find_instance("aws-p5.48xlarge");
  ASSERT_NE(p5, nullptr);
  EXPECT_EQ(p5->domain_gpus(), 8);
  EXPECT_EQ(p5->hosts_per_domain(), 1);
}

TEST(Catalog, RejectsADomainThatIsNotWholeHostsOrNotNvlink) {
  const std::string file = "instances/coreweave-gb200-nvl72.json";
  EXPECT_EQ(
      load_with(file, [](nlohmann::json& j) { j["specs"]["nvlink_domain_gpus"]["value"] = 70; }),
      "instances/coreweave-gb200-nvl72.json: specs.nvlink_domain_gpus.value: 70 is not a "
      "whole number of hosts of gpu_count 4");
  EXPECT_EQ(
      load_with(file, [](nlohmann::json& j) { j["specs"]["gpu_interconnect"]["value"] = "pcie"; }),
      "instances/coreweave-gb200-nvl72.json: specs.nvlink_domain_gpus: a domain larger than "
      "the host needs specs.gpu_interconnect nvlink or nvswitch");
  EXPECT_EQ(load_with("instances/aws-p5.48xlarge.json",
                      [](nlohmann::json& j) { j["prices"][0]["sold_per"] = "nvlink-domain"; }),
            "instances/aws-p5.48xlarge.json: prices[0].sold_per: 'nvlink-domain' needs "
            "specs.nvlink_domain_gpus larger than the host's gpu_count");
  EXPECT_EQ(load_with(file, [](nlohmann::json& j) { j["prices"][0]["sold_per"] = "rack"; }),
            "instances/coreweave-gb200-nvl72.json: prices[0].sold_per: unknown value 'rack' "
            "(expected one of: instance, gpu, nvlink-domain)");
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
