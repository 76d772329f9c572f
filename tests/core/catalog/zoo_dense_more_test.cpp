// The dense models added to the zoo in 2026 (Llama 3.2, Qwen2.5 0.5B-32B, Qwen3 0.6B-4B, Mistral
// Small 24B, Phi-4, Gemma 2 and Gemma 3): parameter counts against the totals their publishers
// state, two counts derived module by module from the config.json values the entries cite, their
// local-attention patterns, and the Hugging Face names that resolve to them.
#include <gtest/gtest.h>

#include "gpuplan/catalog.h"
#include "gpuplan/transformer.h"
#include "zoo_counts.h"

namespace gpuplan {
namespace {

using Counts = test::ZooCounts;
using test::counts;
using test::resolved;

// Gemma 2 and 3 blocks have four RMSNorms of `hidden` (input, post-attention, pre- and
// post-feed-forward); the zoo describes two, so the published totals hold 2 x layers x hidden more.
double gemma_extra_norms(const std::string& id) {
  const TransformerSpec& s = test::model(id).transformer;
  return 2.0 * static_cast<double>(s.layers) * static_cast<double>(s.hidden);
}

// Gemma 3 4B-27B checkpoints (Gemma3ForConditionalGeneration) also hold the SigLIP vision tower of
// their vision_config (27 layers of 1152, MLP 4304, 14-pixel patches of 896 x 896 images, biases
// and LayerNorms throughout, no head) and the projector (a 1152 x hidden matrix after a 1152
// RMSNorm), which the zoo's text model leaves out.
double gemma3_vision(double hidden) {
  const double w = 1152, mlp = 4304, patches = (896.0 / 14) * (896.0 / 14);
  const double embeddings = w * 3 * 14 * 14 + w /* conv */ + patches * w /* positions */;
  const double layer = 2 * w + 4 * (w * w + w) + 2 * w + (w * mlp + mlp) + (mlp * w + w);
  return embeddings + 27 * layer + 2 * w /* post_layernorm */ + w /* projector norm */ + w * hidden;
}

TEST(ZooDenseMore, TotalsEqualThePublishedCounts) {
  // Exact totals, so compared exactly. Hugging Face safetensors totals (the "params" figure of each
  // model page): meta-llama/Llama-3.2-1B-Instruct 1,235,814,400 and -3B-Instruct 3,212,749,824
  // (model card: 1.23B and 3.21B, tied embeddings counted once); microsoft/phi-4 14,659,507,200
  // (14.7B); Qwen/Qwen2.5-1.5B-Instruct 1,543,714,304 (model card 1.54B) and -14B-Instruct
  // 14,770,033,664 (model card 14.7B).
  EXPECT_DOUBLE_EQ(counts("llama-3.2-1b").total, 1235814400.0);
  EXPECT_DOUBLE_EQ(counts("llama-3.2-3b").total, 3212749824.0);
  EXPECT_DOUBLE_EQ(counts("phi-4").total, 14659507200.0);
  EXPECT_DOUBLE_EQ(counts("qwen2.5-1.5b").total, 1543714304.0);
  EXPECT_DOUBLE_EQ(counts("qwen2.5-14b").total, 14770033664.0);
  // keras-team/keras-hub presets (qwen_presets.py, qwen3_presets.py), which count tied embeddings
  // once: qwen2.5_instruct_0.5b_en 494,032,768, qwen2.5_3b_en 3,085,938,688,
  // qwen2.5_instruct_32b_en 32,763,876,352; qwen3_0.6b_en 596,049,920, qwen3_1.7b_en 1,720,574,976,
  // qwen3_4b_en 4,022,468,096.
  EXPECT_DOUBLE_EQ(counts("qwen2.5-0.5b").total, 494032768.0);
  EXPECT_DOUBLE_EQ(counts("qwen2.5-3b").total, 3085938688.0);
  EXPECT_DOUBLE_EQ(counts("qwen2.5-32b").total, 32763876352.0);
  EXPECT_DOUBLE_EQ(counts("qwen3-0.6b").total, 596049920.0);
  EXPECT_DOUBLE_EQ(counts("qwen3-1.7b").total, 1720574976.0);
  EXPECT_DOUBLE_EQ(counts("qwen3-4b").total, 4022468096.0);
  // Qwen3 model cards, "Number of Parameters (Non-Embedding)": 0.44B, 1.4B, 3.6B (rounded to the
  // digit shown, so within half of it).
  const auto non_embedding = [](const std::string& id) {
    return counts(id).total - counts(id).embedding;
  };
  EXPECT_NEAR(non_embedding("qwen3-0.6b"), 0.44e9, 0.005e9);
  EXPECT_NEAR(non_embedding("qwen3-1.7b"), 1.4e9, 0.05e9);
  EXPECT_NEAR(non_embedding("qwen3-4b"), 3.6e9, 0.05e9);
  // mistralai/Mistral-Small-24B-Instruct-2501: model.safetensors.index.json total_size
  // 47,144,806,400 bytes of bf16 weights, 23,572,403,200 parameters ("24B").
  EXPECT_DOUBLE_EQ(counts("mistral-small-24b").total, 47144806400.0 / 2);
}

TEST(ZooDenseMore, GemmaTotalsEqualThePublishedCountsLessWhatTheZooLeavesOut) {
  // keras-team/keras-hub gemma_presets.py (Keras's Gemma 2 has the checkpoint's four norms per
  // block): gemma2_instruct_9b_en 9,241,705,984, gemma2_instruct_27b_en 27,227,128,320;
  // gemma3_presets.py gemma3_instruct_1b 999,885,952.
  EXPECT_DOUBLE_EQ(counts("gemma-2-9b").total + gemma_extra_norms("gemma-2-9b"), 9241705984.0);
  EXPECT_DOUBLE_EQ(counts("gemma-2-27b").total + gemma_extra_norms("gemma-2-27b"), 27227128320.0);
  EXPECT_DOUBLE_EQ(counts("gemma-3-1b").total + gemma_extra_norms("gemma-3-1b"), 999885952.0);
  // Hugging Face safetensors totals of google/gemma-3-4b-it 4,300,079,472 (the model page's 4.3B),
  // -12b-it 12,187,325,040 (12.2B) and -27b-it 27,432,406,640 (27.4B): the text model with its
  // 262,208-row embedding, the vision tower and the projector.
  const auto with_vision = [](const std::string& id) {
    return counts(id).total + gemma_extra_norms(id) +
           gemma3_vision(static_cast<double>(test::model(id).transformer.hidden));
  };
  EXPECT_DOUBLE_EQ(with_vision("gemma-3-4b"), 4300079472.0);
  EXPECT_DOUBLE_EQ(with_vision("gemma-3-12b"), 12187325040.0);
  EXPECT_DOUBLE_EQ(with_vision("gemma-3-27b"), 27432406640.0);
}

TEST(ZooDenseMore, Qwen25_14bByHand) {
  // config.json (Qwen/Qwen2.5-14B-Instruct): hidden 5120, 48 blocks, 40 query heads and 8 KV heads
  // of 128 with biases on q, k and v (Qwen2Attention), o without; SwiGLU MLP of 13824; two RMSNorms
  // per block and a final one; vocabulary 152064 with an untied output head.
  const double h = 5120, q = 40 * 128, kv = 8 * 128, f = 13824, V = 152064;
  const double attention = (h * q + q) + 2 * (h * kv + kv) + q * h;
  const double block = attention + 3 * h * f + 2 * h;
  EXPECT_DOUBLE_EQ(counts("qwen2.5-14b").total, 2 * V * h + 48 * block + h);
}

TEST(ZooDenseMore, Gemma3_27bByHand) {
  // config.json (google/gemma-3-27b-it, text_config): hidden 5376, 62 blocks, 32 query heads and
  // 16 KV heads of head_dim 128 (queries 4096 wide, not 5376), q_norm and k_norm of 128, no
  // biases; gated GELU MLP of 21504; the two norms per block gpuplan counts and a final one;
  // vocabulary 262208 (Gemma3TextConfig's default) tied to the output head.
  const double h = 5376, q = 32 * 128, kv = 16 * 128, f = 21504, V = 262208;
  const double attention = h * q + 2 * h * kv + q * h + 2 * 128;
  const double block = attention + 3 * h * f + 2 * h;
  EXPECT_DOUBLE_EQ(counts("gemma-3-27b").total, V * h + 62 * block + h);
}

TEST(ZooDenseMore, GemmaWindowsSitWhereTheConfigsPutThem) {
  // Gemma 2: sliding_window 4096 on blocks 0, 2, 4, ... and global attention on 1, 3, 5, ...
  // Gemma 3: sliding_window_pattern 6, global on blocks 5, 11, 17, ... (layer index + 1 a multiple
  // of 6); the 1B's window is 512, the others' 1024.
  struct Case {
    const char* id;
    int64_t window, windowed;
  };
  for (const Case& c : {Case{"gemma-2-9b", 4096, 21}, Case{"gemma-2-27b", 4096, 23},
                        Case{"gemma-3-1b", 512, 22}, Case{"gemma-3-4b", 1024, 29},
                        Case{"gemma-3-12b", 1024, 40}, Case{"gemma-3-27b", 1024, 52}}) {
    const TransformerSpec& s = test::model(c.id).transformer;
    EXPECT_EQ(s.sliding_window, c.window) << c.id;
    EXPECT_EQ(s.windowed_layer_count(), c.windowed) << c.id;
  }
  // The other new entries attend to every key in every block.
  for (const char* id : {"llama-3.2-1b", "qwen2.5-32b", "qwen3-4b", "mistral-small-24b", "phi-4"})
    EXPECT_EQ(test::model(id).transformer.windowed_layer_count(), 0) << id;
}

TEST(ZooDenseMore, HuggingFaceIdsResolveToTheNewEntries) {
  EXPECT_EQ(resolved("meta-llama/Llama-3.2-1B-Instruct"), "llama-3.2-1b");
  EXPECT_EQ(resolved("meta-llama/Llama-3.2-3B"), "llama-3.2-3b");
  EXPECT_EQ(resolved("Qwen/Qwen2.5-0.5B-Instruct"), "qwen2.5-0.5b");
  EXPECT_EQ(resolved("Qwen/Qwen2.5-3B"), "qwen2.5-3b");
  EXPECT_EQ(resolved("Qwen/Qwen3-0.6B"), "qwen3-0.6b");
  EXPECT_EQ(resolved("Qwen/Qwen3-4B-Base"), "qwen3-4b");
  EXPECT_EQ(resolved("mistralai/Mistral-Small-24B-Instruct-2501"), "mistral-small-24b");
  EXPECT_EQ(resolved("microsoft/phi-4"), "phi-4");
  EXPECT_EQ(resolved("google/gemma-2-9b-it"), "gemma-2-9b");
  EXPECT_EQ(resolved("google/gemma-2-27b"), "gemma-2-27b");
  EXPECT_EQ(resolved("google/gemma-3-1b-it"), "gemma-3-1b");
  EXPECT_EQ(resolved("google/gemma-3-4b-it"), "gemma-3-4b");
  EXPECT_EQ(resolved("google/gemma-3-12b-pt"), "gemma-3-12b");
  EXPECT_EQ(resolved("google/gemma-3-27b-it"), "gemma-3-27b");
  // Checkpoints whose config.json matches an entry's (each entry's source note says how).
  EXPECT_EQ(resolved("Qwen/QwQ-32B-Preview"), "qwen2.5-32b");
  EXPECT_EQ(resolved("Qwen/Qwen2.5-Coder-32B-Instruct"), "qwen2.5-32b");
  EXPECT_EQ(resolved("mistralai/Mistral-Small-3.1-24B-Instruct-2503"), "mistral-small-24b");
}

TEST(ZooDenseMore, QuantizedCheckpointsResolveWithTheirFormat) {
  CheckpointFormat f = CheckpointFormat::unstated;
  EXPECT_EQ(resolved("Qwen/Qwen2.5-14B-Instruct-AWQ", &f), "qwen2.5-14b");
  EXPECT_EQ(f, CheckpointFormat::int4_awq);
  EXPECT_EQ(resolved("Qwen/Qwen2.5-32B-Instruct-GPTQ-Int4", &f), "qwen2.5-32b");
  EXPECT_EQ(f, CheckpointFormat::int4_gptq);
  EXPECT_EQ(resolved("Qwen/Qwen2.5-1.5B-Instruct-GPTQ-Int8", &f), "qwen2.5-1.5b");
  EXPECT_EQ(f, CheckpointFormat::int8_gptq);
  EXPECT_EQ(resolved("Qwen/Qwen3-1.7B-FP8", &f), "qwen3-1.7b");
  EXPECT_EQ(f, CheckpointFormat::fp8);
  EXPECT_EQ(resolved("unsloth/Llama-3.2-3B-Instruct-bnb-4bit", &f), "llama-3.2-3b");
  EXPECT_EQ(f, CheckpointFormat::bnb_4bit);
  EXPECT_EQ(resolved("google/gemma-3-27b-it", &f), "gemma-3-27b");
  EXPECT_EQ(f, CheckpointFormat::unstated);
}

TEST(ZooDenseMore, OtherArchitecturesAreNotTakenForTheNewEntries) {
  // Phi-4-mini (3.8B, 32 blocks of 3072) is another model than Phi-4; DeepSeek-R1-Distill-Qwen-1.5B
  // unties the output head Qwen2.5-1.5B ties (tie_word_embeddings false).
  EXPECT_EQ(resolved("microsoft/Phi-4-mini-instruct"), "(none)");
  EXPECT_EQ(resolved("deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B"), "(none)");
}

}  // namespace
}  // namespace gpuplan
