// Model names as people write them (issue 29, item 4): Hugging Face ids with vendor prefixes,
// variant words and checkpoint suffixes resolve to the zoo entry, with the weight format the
// suffix states; other names get the nearest ids.
#include <gtest/gtest.h>

#include "gpuplan/catalog.h"
#include "zoo_counts.h"

namespace gpuplan {
namespace {

using test::resolved;

TEST(ModelNames, RealHuggingFaceIdsResolveToTheirZooEntry) {
  // Repository names as published on huggingface.co (publisher/model).
  EXPECT_EQ(resolved("meta-llama/Meta-Llama-3.1-8B-Instruct"), "llama-3.1-8b");
  EXPECT_EQ(resolved("meta-llama/Llama-3.3-70B-Instruct"), "llama-3.3-70b");
  EXPECT_EQ(resolved("mistralai/Mistral-7B-Instruct-v0.3"), "mistral-7b-v0.3");
  EXPECT_EQ(resolved("mistralai/Mixtral-8x7B-Instruct-v0.1"), "mixtral-8x7b");
  EXPECT_EQ(resolved("deepseek-ai/DeepSeek-R1"), "deepseek-r1");
  EXPECT_EQ(resolved("deepseek-ai/DeepSeek-V3-0324"), "deepseek-v3");
  EXPECT_EQ(resolved("deepseek-ai/DeepSeek-V3.1-Terminus"), "deepseek-v3");
  EXPECT_EQ(resolved("deepseek-ai/DeepSeek-V3.2-Exp"), "deepseek-v3.2");
  EXPECT_EQ(resolved("DeepSeek-V3.2"), "deepseek-v3.2");
  EXPECT_EQ(resolved("tiiuae/falcon-180B-chat"), "falcon-180b");
  EXPECT_EQ(resolved("openai/gpt-oss-120b"), "gpt-oss-120b");
  EXPECT_EQ(resolved("moonshotai/Kimi-K2-Instruct-0905"), "kimi-k2");
  EXPECT_EQ(resolved("Qwen/Qwen3-30B-A3B-Instruct-2507"), "qwen3-30b-a3b");
  EXPECT_EQ(resolved("meta-llama/Llama-4-Scout-17B-16E-Instruct"), "llama-4-scout");
  EXPECT_EQ(resolved("meta-llama/Llama-2-7b-chat-hf"), "llama-2-7b");
  EXPECT_EQ(resolved("mistralai/Mistral-Nemo-Instruct-2407"), "mistral-nemo-12b");
  EXPECT_EQ(resolved("EleutherAI/gpt-j-6b"), "gpt-j-6b");
  EXPECT_EQ(resolved("GPT-J-6B"), "gpt-j-6b");
  // Names as benchmark tables print them (vendor prefix dropped, other case).
  EXPECT_EQ(resolved("Meta-Llama-3.1-70B-Instruct"), "llama-3.1-70b");
  EXPECT_EQ(resolved("LLAMA-3.1-405B-INSTRUCT"), "llama-3-405b");
  EXPECT_EQ(resolved("GPT-OSS-20b"), "gpt-oss-20b");
}

TEST(ModelNames, CheckpointSuffixesGiveTheWeightFormat) {
  CheckpointFormat f = CheckpointFormat::unstated;
  EXPECT_EQ(resolved("Meta-Llama-3.1-70B-Instruct-FP8", &f), "llama-3.1-70b");
  EXPECT_EQ(f, CheckpointFormat::fp8);
  EXPECT_EQ(resolved("Qwen/Qwen3-235B-A22B-FP8", &f), "qwen3-235b-a22b");
  EXPECT_EQ(f, CheckpointFormat::fp8);
  EXPECT_EQ(resolved("Qwen/Qwen2.5-72B-Instruct-AWQ", &f), "qwen2.5-72b");
  EXPECT_EQ(f, CheckpointFormat::int4_awq);
  EXPECT_EQ(resolved("hugging-quants/Meta-Llama-3.1-70B-Instruct-GPTQ-INT4", &f), "llama-3.1-70b");
  EXPECT_EQ(f, CheckpointFormat::int4_gptq);
  EXPECT_EQ(resolved("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", &f), "qwen2.5-7b");
  EXPECT_EQ(f, CheckpointFormat::int8_gptq);
  EXPECT_EQ(resolved("nvidia/DeepSeek-R1-FP4", &f), "deepseek-r1");
  EXPECT_EQ(f, CheckpointFormat::fp4);
  EXPECT_EQ(resolved("nvidia/Llama-3.3-70B-Instruct-NVFP4", &f), "llama-3.3-70b");
  EXPECT_EQ(f, CheckpointFormat::nvfp4);
  EXPECT_EQ(resolved("openai/gpt-oss-20b-MXFP4", &f), "gpt-oss-20b");
  EXPECT_EQ(f, CheckpointFormat::mxfp4);
  EXPECT_EQ(resolved("unsloth/Llama-3.3-70B-Instruct-bnb-4bit", &f), "llama-3.3-70b");
  EXPECT_EQ(f, CheckpointFormat::bnb_4bit);
  EXPECT_EQ(resolved("RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic", &f), "llama-3.1-8b");
  EXPECT_EQ(f, CheckpointFormat::fp8);
  EXPECT_EQ(resolved("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8", &f), "llama-3.1-8b");
  EXPECT_EQ(f, CheckpointFormat::int8);
  // An alias written with its suffix still reports the format.
  EXPECT_EQ(resolved("zai-org/GLM-4.5-FP8", &f), "glm-4.5");
  EXPECT_EQ(f, CheckpointFormat::fp8);
  EXPECT_EQ(resolved("meta-llama/Llama-3.1-8B-Instruct", &f), "llama-3.1-8b");
  EXPECT_EQ(f, CheckpointFormat::unstated);
}

TEST(ModelNames, VersionsAndSizesAreKeptApart) {
  // Mistral 7B v0.1 has a 32,000-token vocabulary, v0.3 32,768: different entries; v0.2 is
  // neither, and is not taken for one of them.
  EXPECT_EQ(resolved("mistralai/Mistral-7B-v0.1"), "mistral-7b");
  EXPECT_EQ(resolved("mistralai/Mistral-7B-Instruct-v0.2"), "(none)");
  EXPECT_EQ(resolved("Meta-Llama-3-8B-Instruct"), "llama-3-8b");
  EXPECT_EQ(resolved("Qwen3-32B"), "qwen3-32b");
  EXPECT_EQ(resolved("Qwen3-33B"), "(none)");
}

TEST(ModelNames, EveryZooEntryResolvesToItselfByIdAndAlias) {
  for (const Model& m : test::catalog().models) {
    EXPECT_EQ(resolved(m.id), m.id);
    for (const std::string& a : m.aliases) EXPECT_EQ(resolved(a), m.id) << a;
  }
}

TEST(ModelNames, UnknownNamesSuggestTheNearestIds) {
  // The nearest first; the others tie at two edits and follow in id order.
  const std::vector<std::string> near = nearest_models(test::catalog(), "Qwen3-33B");
  ASSERT_EQ(near.size(), 3u);
  EXPECT_EQ(near[0], "qwen3-32b");
  EXPECT_EQ(unknown_model_error(test::catalog(), "mistralai/Mistral-7B-Instruct-v0.2").message,
            "--model: unknown model 'mistralai/Mistral-7B-Instruct-v0.2'; did you mean one of: "
            "mistral-7b, mistral-7b-v0.3, mixtral-8x7b");
  EXPECT_TRUE(nearest_models(test::catalog(), "zzqq-9b").empty());
  EXPECT_EQ(canonical_model_name("meta-llama/Meta-Llama-3.1-70B-Instruct-FP8"), "llama-3.1-70b");
}

}  // namespace
}  // namespace gpuplan
