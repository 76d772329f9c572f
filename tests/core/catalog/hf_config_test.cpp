// Hugging Face config.json uploads: real configs give the zoo's (and PyTorch's) counts; broken
// ones give an error naming the field.
#include <gtest/gtest.h>

#include <tuple>

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
            "qwen2, qwen3, qwen3_moe, deepseek_v2, deepseek_v3, deepseek_v32, deepseek_v4, "
            "kimi_k2, gpt_oss, "
            "llama4, llama4_text, glm4_moe, glm_moe_dsa, hy_v3, minimax_m2, nemotron, kimi_k25, "
            "qwen3_next, qwen3_5, qwen3_5_text, qwen3_5_moe, qwen3_5_moe_text, nemotron_h, "
            "qwen3_vl, qwen3_vl_text, qwen3_vl_moe, qwen3_vl_moe_text, gemma2, gemma3, "
            "gemma3_text, gemma4, gemma4_text, step3p7, mimo, mimo_v2_flash, nemotron-nas, falcon, "
            "gpt2, bert, vit, mpt)");
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

// The decoders of 2024-26: each fixture (tests/fixtures/hf, written from the config.json its
// comment names) imports to the zoo entry's architecture: the same parameters, forward FLOPs and
// KV cache, so the two descriptions cannot drift apart.
Model imported(const std::string& file) {
  auto m = model_from_hf_config(test::read_repo_file("tests/fixtures/hf/" + file), file);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? m.value() : Model{};
}

void expect_same_architecture(const std::string& file, const std::string& zoo_id) {
  SCOPED_TRACE(file);
  const TransformerSpec a = imported(file).transformer;
  const TransformerSpec& b = test::model(zoo_id).transformer;
  int64_t na = 0, nb = 0;
  for (const auto& t : transformer_parameters(a)) na += t.numel();
  for (const auto& t : transformer_parameters(b)) nb += t.numel();
  EXPECT_EQ(na, nb);
  EXPECT_DOUBLE_EQ(transformer_forward_flops(a, 8192).total(),
                   transformer_forward_flops(b, 8192).total());
  EXPECT_DOUBLE_EQ(kv_cache_size(a, 2, 65536).total_bytes, kv_cache_size(b, 2, 65536).total_bytes);
  EXPECT_EQ(a.mtp_layers, b.mtp_layers);
  EXPECT_EQ(a.rope_scaling, b.rope_scaling);
}

TEST(HfConfig, DecodersOf2026ImportToTheZoosArchitectures) {
  // huggingface.co/<repo>/blob/main/config.json of: meta-llama/Llama-3.1-8B,
  // mistralai/Mistral-Nemo-Base-2407, Qwen/Qwen2.5-7B, Qwen/Qwen3-8B, Qwen/Qwen3-30B-A3B,
  // Qwen/Qwen3-235B-A22B, deepseek-ai/DeepSeek-V3, moonshotai/Kimi-K2-Instruct,
  // openai/gpt-oss-120b, zai-org/GLM-4.5, meta-llama/Llama-4-Scout-17B-16E.
  expect_same_architecture("llama-3.1-8b.json", "llama-3.1-8b");
  expect_same_architecture("mistral-nemo-base-2407.json", "mistral-nemo-12b");
  expect_same_architecture("qwen2.5-7b.json", "qwen2.5-7b");
  expect_same_architecture("qwen3-8b.json", "qwen3-8b");
  expect_same_architecture("qwen3-30b-a3b.json", "qwen3-30b-a3b");
  expect_same_architecture("qwen3-235b-a22b.json", "qwen3-235b-a22b");
  expect_same_architecture("deepseek-v3.json", "deepseek-v3");
  expect_same_architecture("kimi-k2-instruct.json", "kimi-k2");
  expect_same_architecture("gpt-oss-120b.json", "gpt-oss-120b");
  expect_same_architecture("glm-4.5.json", "glm-4.5");
  expect_same_architecture("llama-4-scout-17b-16e.json", "llama-4-scout");
}

// MiMo-7B (MiMoForCausalLM): Qwen2's layout (biases on q, k and v) with one MTP module (two norms,
// a 2h -> h input_proj and a Qwen2 block), by hand from its config.json.
TEST(HfConfig, MiMoIsQwen2WithAnMtpModule) {
  const TransformerSpec s = imported("mimo-7b-base.json").transformer;
  EXPECT_EQ(s.mtp_layers, 1);
  const double h = 4096,
               block = h * (4096 + 2 * 1024) + (4096 + 2 * 1024) + 4096 * h + 3 * h * 11008 + 2 * h;
  const double mtp = block + 2 * h /* enorm, hnorm */ + 2 * h * h + h /* shared_head.norm */;
  int64_t n = 0;
  for (const auto& t : transformer_parameters(s)) n += t.numel();
  EXPECT_DOUBLE_EQ(static_cast<double>(n), 36 * block + 2 * 151680 * h + h + mtp);
}

TEST(HfConfig, ServedCheckpointsOf2026ImportAsTheirArchitectures) {
  // ai-dynamo/aiconfigurator's copies of the hub files (tests/fixtures/hf/README.md). Each spells
  // out, per block or in a field its model never reads, what the zoo entry already is.
  expect_same_architecture("minimax-m2.7.json", "minimax-m2.5");  // attn_type_list: all 1
  expect_same_architecture("qwen3-coder-480b-a35b.json", "qwen3-coder-480b-a35b");
  expect_same_architecture("qwen3-coder-30b-a3b.json",
                           "qwen3-30b-a3b");                // intermediate_size unused
  expect_same_architecture("glm-5.1-nvfp4.json", "glm-5");  // indexer_types: all "full"
  expect_same_architecture("glm-5.2.json", "glm-5.2");      // 57 "shared" indexers
  expect_same_architecture("deepseek-v4-flash.json", "deepseek-v4-flash");  // compressed attention
  expect_same_architecture("deepseek-v4-pro.json", "deepseek-v4-pro");
  expect_same_architecture("gemma-4-26b-a4b.json", "gemma-4-26b-a4b");  // global geometry, MoE
  expect_same_architecture("gemma-4-31b-it-nvfp4.json", "gemma-4-31b");
  expect_same_architecture("step-3.7-flash.json", "step-3.7-flash");  // full blocks first of 4
  expect_same_architecture("mimo-v2-flash.json", "mimo-v2-flash");    // block 0, then every 6th
  // Qwen3-VL's language models are Qwen3-8B's and Qwen3-30B-A3B's widths; the vision encoder
  // is left out, and says so.
  expect_same_architecture("qwen3-vl-8b.json", "qwen3-8b");
  expect_same_architecture("qwen3-vl-30b-a3b.json", "qwen3-30b-a3b");
  EXPECT_NE(
      imported("qwen3-vl-8b.json").name.find("qwen3_vl text model without the vision encoder"),
      std::string::npos);
}

// Gemma 3 (google/gemma-3-12b-it's config.json, tests/fixtures/hf/README.md): its text_config
// states seven fields and Gemma3TextConfig's defaults give the rest (head_dim 256, vocab 262208,
// tied embeddings, every 6th block global), which makes the zoo's Gemma-3-12B.
TEST(HfConfig, Gemma3ImportsWithTheConfigClassDefaults) {
  expect_same_architecture("gemma-3-12b-it.json", "gemma-3-12b");
  // Newer files list each block's attention instead of the pattern: the same model.
  std::string text = test::read_repo_file("tests/fixtures/hf/gemma-3-12b-it.json");
  std::string types = "\"layer_types\": [";
  for (int i = 0; i < 48; ++i)
    types += std::string(i ? ", " : "") +
             ((i + 1) % 6 == 0 ? "\"full_attention\"" : "\"sliding_attention\"");
  const std::string window = "\"sliding_window\": 1024";
  text.replace(text.find(window), window.size(), window + ", " + types + "]");
  auto listed = model_from_hf_config(text, "config.json");
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  EXPECT_EQ(listed.value().transformer.full_attention_every, 6);
  // Nothing stated: Gemma3TextConfig() itself.
  auto bare = model_from_hf_config(R"({"model_type": "gemma3_text"})", "config.json");
  ASSERT_TRUE(bare.ok()) << bare.error().message;
  const TransformerSpec& s = bare.value().transformer;
  EXPECT_EQ(std::make_tuple(s.layers, s.hidden, s.heads, s.kv_heads, s.head_dim, s.ffn_hidden),
            std::make_tuple(26, 2304, 8, 4, 256, 9216));
  EXPECT_EQ(std::make_tuple(s.vocab, s.sliding_window, s.full_attention_every, s.tied_embeddings),
            std::make_tuple(262'208, 4096, 6, true));
  EXPECT_EQ(model_from_hf_config(R"({"model_type": "gemma3_text", "hidden_activation": "relu"})",
                                 "config.json")
                .error()
                .message,
            "config.json: hidden_activation: 'relu' is not modelled (gelu)");
}

// Gemma 2 (Gemma2Config): every 2nd block global unless layer_types says otherwise, no QK
// norm. The values of google/gemma-2-9b-it's config.json as the zoo entry cites them.
TEST(HfConfig, Gemma2ImportsAsTheZoosGemma2) {
  const char* config = R"({"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2",
      "hidden_size": 3584, "intermediate_size": 14336, "num_hidden_layers": 42,
      "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 256,
      "hidden_activation": "gelu_pytorch_tanh", "vocab_size": 256000,
      "max_position_embeddings": 8192, "sliding_window": 4096, "query_pre_attn_scalar": 256,
      "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0,
      "cache_implementation": "hybrid", "attention_bias": false, "tie_word_embeddings": true})";
  auto m = model_from_hf_config(config, "config.json");
  ASSERT_TRUE(m.ok()) << m.error().message;
  const TransformerSpec& a = m.value().transformer;
  const TransformerSpec& b = test::model("gemma-2-9b").transformer;
  int64_t na = 0, nb = 0;
  for (const auto& t : transformer_parameters(a)) na += t.numel();
  for (const auto& t : transformer_parameters(b)) nb += t.numel();
  EXPECT_EQ(na, nb);
  EXPECT_EQ(a.full_attention_every, 2);
  EXPECT_EQ(a.qk_norm, QkNorm::none);
  EXPECT_DOUBLE_EQ(kv_cache_size(a, 2, 65536).total_bytes, kv_cache_size(b, 2, 65536).total_bytes);
}

// GLM-5.2 (zai-org/GLM-5.2 config.json): of 78 blocks, 57 reuse an earlier block's selection
// (indexer_types "shared"). Such a block has no indexer tensors: wq_b (q_lora_rank 2048 to 32
// heads x 128), wk (hidden 6144 to 128), k_norm's weight and bias (2 x 128) and weights_proj
// (6144 to 32 heads) = 8,388,608 + 786,432 + 256 + 196,608 = 9,371,904 parameters; it scores no
// keys; and it caches no index key (128 fp8 bytes and one fp32 scale per token).
TEST(HfConfig, SharedIndexersHaveNoTensorsScoresOrCachedKeys) {
  const TransformerSpec shared = imported("glm-5.2.json").transformer;
  TransformerSpec own = shared;
  own.index_shared_layers = 0;
  EXPECT_EQ(shared.index_shared_layers, 57);
  EXPECT_EQ(shared.indexer_layer_count(), 21);
  int64_t n_shared = 0, n_own = 0, mtp_indexers = 0;
  for (const auto& t : transformer_parameters(shared)) {
    n_shared += t.numel();
    if (std::string(t.prefix) == "mtp.self_attn." && std::string(t.module) == "indexer.wk")
      mtp_indexers += t.count;
  }
  for (const auto& t : transformer_parameters(own)) n_own += t.numel();
  EXPECT_EQ(n_own - n_shared, 57 * 9'371'904);
  EXPECT_EQ(mtp_indexers, 1);  // the MTP block keeps its own (model.layers.78.self_attn.indexer)
  EXPECT_DOUBLE_EQ(indexer_flops(shared, 4096), indexer_flops(own, 4096) * 21 / 78);
  EXPECT_DOUBLE_EQ(
      kv_cache_size(own, 2, 65536).total_bytes - kv_cache_size(shared, 2, 65536).total_bytes,
      57.0 * (128 + 4) * 65536);
}

TEST(HfConfig, Hy3ImportsAsTheZoosHy3) {
  // huggingface.co/tencent/Hy3/raw/main/config.json (hy_v3), as a public copy of it shows it.
  expect_same_architecture("hy3.json", "hy3");
}

TEST(HfConfig, Hy3WithTwoExpertWidthsIsRefused) {
  // One width serves the routed and the shared experts; a config where expert_hidden_dim and
  // moe_intermediate_size differ describes experts gpuplan would count wrong.
  std::string config = test::read_repo_file("tests/fixtures/hf/hy3.json");
  const std::string from = "\"expert_hidden_dim\": 1536", to = "\"expert_hidden_dim\": 2048";
  config.replace(config.find(from), from.size(), to);
  auto m = model_from_hf_config(config, "hy3.json");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("expert_hidden_dim: differs from moe_intermediate_size"),
            std::string::npos)
      << m.error().message;
}

TEST(HfConfig, NemotronImportsAsTheZoosNemotron4) {
  // transformers' NemotronConfig fields with Nemotron-4 15B's shape (its technical report's
  // Table 1, NeMo's FFN width): an ungated squared-ReLU MLP and LayerNorm1P (with bias), as the
  // zoo entry, so the same 15,628,775,424 parameters. NeMo-converted configs name the head width
  // kv_channels.
  const std::string config = R"({"architectures": ["NemotronForCausalLM"], "model_type": "nemotron",
      "hidden_act": "relu2", "hidden_size": 6144, "intermediate_size": 24576,
      "num_hidden_layers": 32, "num_attention_heads": 48, "num_key_value_heads": 8,
      "max_position_embeddings": 4096, "norm_eps": 1e-05, "partial_rotary_factor": 0.5,
      "rope_theta": 10000, "tie_word_embeddings": false, "vocab_size": 256000,
      "kv_channels": 128, "torch_dtype": "bfloat16"})";
  auto m = model_from_hf_config(config, "config.json");
  ASSERT_TRUE(m.ok()) << m.error().message;
  const TransformerSpec& s = m.value().transformer;
  EXPECT_FALSE(s.gated_mlp);
  EXPECT_EQ(s.activation, MlpActivation::relu2);
  EXPECT_EQ(s.norm, NormKind::layernorm);
  EXPECT_EQ(s.head_dim, 128);
  int64_t n = 0, zoo = 0;
  for (const auto& t : transformer_parameters(s)) n += t.numel();
  for (const auto& t : transformer_parameters(test::model("nemotron-4-15b").transformer))
    zoo += t.numel();
  EXPECT_EQ(n, zoo);
  EXPECT_EQ(n, 15'628'775'424);
  std::string gated = config;
  gated.replace(gated.find("relu2"), 5, "silu");
  auto refused = model_from_hf_config(gated, "config.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "config.json: hidden_act: 'silu' is not modelled for nemotron (relu2, relu or gelu)");
}

// The checkpoint's weight format (quantization_config.quant_method) is the zoo entry's
// defaults.weights: serving rows that state no precision run it.
TEST(HfConfig, ReadsTheCheckpointsWeightFormat) {
  EXPECT_EQ(imported("deepseek-v3.json").checkpoint_weights, "fp8");
  EXPECT_EQ(test::model("deepseek-v3").checkpoint_weights, "fp8");
  EXPECT_EQ(imported("gpt-oss-120b.json").checkpoint_weights, "mxfp4");
  EXPECT_EQ(test::model("gpt-oss-120b").checkpoint_weights, "mxfp4");
  EXPECT_EQ(imported("llama-3.1-8b.json").checkpoint_weights, "");
}

// Falcon: the new decoder architecture (180B, as TensorRT-LLM's benchmark configures it) is the
// zoo entry; TII's first configs (RW field names, one multi-query key/value head) import too.
TEST(HfConfig, ReadsFalconOfBothArchitectures) {
  auto big =
      model_from_hf_config(R"({"architectures": ["FalconForCausalLM"], "model_type": "falcon",
      "hidden_size": 14848, "num_attention_heads": 232, "num_hidden_layers": 80,
      "num_kv_heads": 8, "new_decoder_architecture": true, "parallel_attn": true, "bias": false,
      "alibi": false, "vocab_size": 65024, "layer_norm_epsilon": 1e-05,
      "tie_word_embeddings": false, "torch_dtype": "bfloat16"})",
                           "config.json");
  ASSERT_TRUE(big.ok()) << big.error().message;
  const TransformerSpec& s = big.value().transformer;
  EXPECT_EQ(s.kv_heads, 8);
  EXPECT_EQ(s.ffn_hidden, 4 * 14848);
  int64_t n = 0, zoo = 0;
  for (const auto& t : transformer_parameters(s)) n += t.numel();
  for (const auto& t : transformer_parameters(test::model("falcon-180b").transformer))
    zoo += t.numel();
  EXPECT_EQ(n, zoo);
  // Per block: QKV 14848 x (14848 + 2 x 8 x 64), dense 14848^2, MLP 2 x 14848 x 59392, two
  // LayerNorms of 2 x 14848; 80 blocks, embedding and output table 65024 x 14848, final norm.
  EXPECT_EQ(n, 80 * (14848LL * 15872 + 14848LL * 14848 + 2 * 14848LL * 59392 + 4 * 14848) +
                   2 * 65024LL * 14848 + 2 * 14848);

  const std::string rw = R"({"model_type": "RefinedWebModel", "n_layer": 32, "n_head": 71,
      "hidden_size": 4544, "multi_query": true, "parallel_attn": true, "bias": false,
      "vocab_size": 65024, "hidden_dropout": 0.0, "attention_dropout": 0.0})";
  auto small = model_from_hf_config(rw, "config.json");
  ASSERT_TRUE(small.ok()) << small.error().message;
  EXPECT_EQ(small.value().transformer.kv_heads, 1);
  EXPECT_TRUE(small.value().transformer.tied_embeddings);
  std::string relu6 = rw;
  relu6.replace(relu6.find("\"bias\""), 0, "\"activation\": \"relu6\", ");
  auto refused = model_from_hf_config(relu6, "config.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "config.json: activation: 'relu6' is not modelled for falcon (gelu or relu)");
}

TEST(HfConfig, ReadsLatentAttentionWindowsSinksAndMultiTokenPrediction) {
  const TransformerSpec ds = imported("deepseek-v3.json").transformer;
  EXPECT_EQ(ds.kv_lora_rank, 512);
  EXPECT_EQ(ds.q_lora_rank, 1536);
  EXPECT_EQ(ds.first_dense_layers, 3);
  EXPECT_EQ(ds.shared_experts, 1);
  EXPECT_EQ(ds.mtp_layers, 1);
  EXPECT_TRUE(ds.router_bias);  // topk_method noaux_tc
  // rope_scaling yarn: factor 40 over 4,096 = 163,840 = max_position_embeddings.
  EXPECT_EQ(ds.rope_scaling, RopeScaling::yarn);
  EXPECT_EQ(ds.max_positions, 163840);
  const TransformerSpec oss = imported("gpt-oss-120b.json").transformer;
  EXPECT_EQ(oss.sliding_window, 128);
  EXPECT_EQ(oss.full_attention_every, 2);  // layer_types: sliding, full, sliding, ...
  EXPECT_TRUE(oss.attention_sinks && oss.router_bias && oss.mlp_bias && oss.attn_out_bias);
  const Model scout = imported("llama-4-scout-17b-16e.json");
  EXPECT_EQ(scout.transformer.local_attention, LocalAttention::chunked);
  EXPECT_EQ(scout.transformer.full_attention_every, 4);  // no_rope_layers: 1, 1, 1, 0, ...
  EXPECT_EQ(scout.transformer.qk_norm, QkNorm::l2);
  EXPECT_NE(scout.name.find("without the vision encoder"), std::string::npos);
  // Llama 3.1: rope_type llama3, factor 8 over 8,192 reaches 65,536 < 131,072: kept.
  const TransformerSpec l31 = imported("llama-3.1-8b.json").transformer;
  EXPECT_EQ(l31.rope_scaling, RopeScaling::llama3);
  EXPECT_DOUBLE_EQ(l31.rope_scaling_factor, 8);
  EXPECT_EQ(l31.max_positions, 131072);
}

TEST(HfConfig, RopeScalingRaisesMaxPositionsWhereItReachesFurther) {
  // Qwen3-8B's model card: add rope_scaling {yarn, factor 4, original 32768} for 131,072 tokens.
  std::string text = test::read_repo_file("tests/fixtures/hf/qwen3-8b.json");
  const std::string null_scaling = "\"rope_scaling\": null";
  text.replace(text.find(null_scaling), null_scaling.size(),
               R"("rope_scaling": {"rope_type": "yarn", "factor": 4.0,
                  "original_max_position_embeddings": 32768})");
  auto m = model_from_hf_config(text, "config.json");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m.value().transformer.max_positions, 131072);
}

TEST(HfConfig, UnknownArchitectureFieldsAreRefusedByName) {
  auto err = [](const std::string& file, const std::string& from, const std::string& to) {
    std::string text = test::read_repo_file("tests/fixtures/hf/" + file);
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    auto m = model_from_hf_config(text, "config.json");
    return m.ok() ? std::string("ok") : m.error().message;
  };
  EXPECT_EQ(err("qwen3-8b.json", "\"use_cache\"", "\"num_hidden_groups\": 2, \"use_cache\""),
            "config.json: num_hidden_groups: a field gpuplan does not model for model_type "
            "'qwen3'; it may change the architecture, so the config is refused (remove it if it "
            "does not)");
  EXPECT_EQ(err("qwen3-8b.json", "\"use_sliding_window\": false", "\"use_sliding_window\": true"),
            "config.json: use_sliding_window: true is not modelled (windows on the blocks from "
            "max_window_layers on); set it to false or describe the model in data/models");
  EXPECT_EQ(err("qwen3-30b-a3b.json", "\"mlp_only_layers\": []", "\"mlp_only_layers\": [0, 5]"),
            "config.json: mlp_only_layers: only [] is modelled (dense blocks by list are not)");
  EXPECT_EQ(err("deepseek-v3.json", "\"moe_layer_freq\": 1", "\"moe_layer_freq\": 2"),
            "config.json: moe_layer_freq: only 1 is modelled (every block after the dense ones)");
  EXPECT_EQ(err("gpt-oss-120b.json", "\"sliding_attention\",\n    \"full_attention\"",
                "\"full_attention\",\n    \"sliding_attention\""),
            "config.json: layer_types: a pattern gpuplan cannot express (full attention in every "
            "n-th block, the first of every n, or the first blocks and then every n-th)");
  EXPECT_EQ(err("llama-4-scout-17b-16e.json", "\"vision_config\"",
                "\"audio_config\": {}, \"vision_config\""),
            "config.json: audio_config: a field gpuplan does not model for model_type 'llama4'; it "
            "may change the architecture, so the config is refused (remove it if it does not)");
  EXPECT_EQ(err("deepseek-v3.json", "\"type\": \"yarn\"", "\"type\": \"ntk-by-parts\""),
            "config.json: rope_scaling.rope_type: unknown value 'ntk-by-parts' (expected one of: "
            "linear, dynamic, yarn, llama3, longrope)");
  // Per-block lists and restated fields of 2026 checkpoints: accepted where they say what
  // gpuplan models, refused by name where they say more.
  EXPECT_EQ(
      err("minimax-m2.7.json", "\"attn_type_list\": [\n    1,", "\"attn_type_list\": [\n    0,"),
      "config.json: attn_type_list: only full attention (1) in every block is modelled "
      "(lightning attention blocks, 0, are not)");
  EXPECT_EQ(err("qwen3-coder-480b-a35b.json", "\"qkv_bias\": false", "\"qkv_bias\": true"),
            "config.json: qkv_bias: true is not read by Qwen3's attention (attention_bias sets its "
            "biases); only false is accepted");
  EXPECT_EQ(err("glm-5.2.json", "\"full\"", "\"shared\""),
            "config.json: indexer_types: the first block must run its own indexer ('full')");
  EXPECT_EQ(err("glm-5.2.json", "\"sparse\"", "\"dense\""),
            "config.json: mlp_layer_types: only first_k_dense_replace (3) 'dense' blocks, then "
            "'sparse' ones, are modelled");
  EXPECT_EQ(err("glm-5.2.json", "\"shared\"", "\"skip\""),
            "config.json: indexer_types: expected a list of 'full' or 'shared' entries");
  // Qwen3.6's checkpoints add language_model_only and the linear blocks' output_gate_type.
  EXPECT_EQ(err("qwen3.5-27b.json", "\"model_type\": \"qwen3_5\",",
                "\"model_type\": \"qwen3_5\", \"language_model_only\": false,"),
            "ok");
  EXPECT_EQ(err("qwen3.5-27b.json", "\"attn_output_gate\": true,",
                "\"attn_output_gate\": true, \"output_gate_type\": \"swish\","),
            "ok");
  EXPECT_EQ(err("qwen3.5-27b.json", "\"attn_output_gate\": true,",
                "\"attn_output_gate\": true, \"output_gate_type\": \"sigmoid\","),
            "config.json: text_config.output_gate_type: 'sigmoid' is not modelled (swish or silu)");
  // A Mistral with a window: every block attends to its last 4,096 keys.
  EXPECT_EQ(
      err("mistral-nemo-base-2407.json", "\"sliding_window\": null", "\"sliding_window\": 4096"),
      "ok");
}

}  // namespace
}  // namespace gpuplan
