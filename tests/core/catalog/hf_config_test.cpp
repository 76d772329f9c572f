// Hugging Face config.json uploads: real configs give the zoo's (and PyTorch's) counts; broken
// ones give an error naming the field.
#include <gtest/gtest.h>

#include "gpuplan/estimate.h"
#include "gpuplan/hf_config.h"
#include "gpuplan/transformer.h"
#include "test_util.h"

namespace gpuplan {
namespace {

int64_t params_of_config(const std::string& file) {
  auto m = model_from_hf_config(test::read_repo_file("tests/fixtures/hf/" + file), file);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  if (!m.ok()) return -1;
  int64_t n = 0;
  for (const auto& t : transformer_parameters(m.value().transformer)) n += t.numel();
  return n;
}

TEST(HfConfig, RealConfigsGiveHuggingFaceParameterCounts) {
  EXPECT_EQ(params_of_config("llama-2-7b.json"), 6'738'415'616);       // LlamaForCausalLM
  EXPECT_EQ(params_of_config("mixtral-8x7b.json"), 46'702'792'704);    // MixtralForCausalLM
  EXPECT_EQ(params_of_config("qwen2-0.5b.json"), 494'032'768);         // Qwen2ForCausalLM, tied
  EXPECT_EQ(params_of_config("gpt2.json"), 124'439'808);               // GPT2LMHeadModel
  EXPECT_EQ(params_of_config("bert-base-uncased.json"), 109'514'298);  // BertForMaskedLM
  // ViTForImageClassification with the 3 labels of the shortened fixture:
  // ViTModel without pooler 85,798,656 + classifier 768*3 + 3.
  EXPECT_EQ(params_of_config("vit-base-patch16-224.json"), 85'798'656 + 768 * 3 + 3);
}

TEST(HfConfig, UploadedModelRunsThroughTheEstimate) {
  auto m = model_from_hf_config(test::read_repo_file("tests/fixtures/hf/llama-2-7b.json"),
                                "config.json");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m.value().id, "hf:meta-llama/Llama-2-7b-hf");
  auto e = estimate(m.value(), gpuplan::Setup{});
  ASSERT_TRUE(e.ok()) << e.error().message;
  auto zoo = estimate(test::model("llama-2-7b"), gpuplan::Setup{});
  ASSERT_TRUE(zoo.ok());
  EXPECT_EQ(e.value().memory.total(), zoo.value().memory.total());
}

TEST(HfConfig, ErrorsNameTheField) {
  auto err = [](const std::string& text) {
    auto m = model_from_hf_config(text, "config.json");
    return m.ok() ? std::string() : m.error().message;
  };
  EXPECT_EQ(err(R"({"model_type": "llama", "hidden_size": 4096})"),
            "config.json: num_hidden_layers: missing required field");
  EXPECT_EQ(err(R"({"model_type": "mamba"})"),
            "config.json: model_type 'mamba' is not supported (supported: llama, mistral, mixtral, "
            "qwen2, gpt2, bert, vit, mpt)");
  EXPECT_EQ(err(R"({"hidden_size": 4096})"), "config.json: model_type: missing required field");
  EXPECT_EQ(err(R"({"model_type": "gpt2", "n_layer": "12"})"),
            "config.json: n_layer: expected an integer, got a string");
  EXPECT_EQ(err(R"({"model_type": "gpt2", "n_layer": -1})"),
            "config.json: n_layer: -1 is out of range [1, 10000000]");
  EXPECT_EQ(err("{\"model_type\": \"gpt2\",\n \"n_layer\": 12,,}"),
            "config.json: not valid JSON at line 2, column 16");
  EXPECT_EQ(err(""), "config.json: file is empty");
  EXPECT_EQ(err("[1, 2]"), "config.json: expected a JSON object");
  EXPECT_EQ(err(std::string(100, '[') + std::string(100, ']')),
            "config.json: nesting deeper than 64 levels");
  EXPECT_EQ(err(std::string(5 * 1024 * 1024, ' ')),
            "config.json: file is 5242880 bytes; the limit is 4194304 bytes");
  EXPECT_EQ(
      err(R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 100, "num_attention_heads": 3,
                    "intermediate_size": 10, "vocab_size": 10})"),
      "config.json: heads (3) must divide hidden (100)");
}

}  // namespace
}  // namespace gpuplan
