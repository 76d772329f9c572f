#include "gpuplan/hf_config.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include "gpuplan/catalog.h"
#include "catalog/json_reader.h"

namespace gpuplan {
namespace {

constexpr int64_t kMax = 10'000'000;

// Fields of a decoder config.json that change nothing gpuplan costs: token ids, dtypes,
// initialisation, norm epsilons, rope bases, caching flags, loss coefficients, how routing
// scores are computed (not how many experts run), quantisation of the published checkpoint
// (a serving choice), and PretrainedConfig's bookkeeping. Anything else a reader does not take
// is refused by check_unknown_fields, since it may change the architecture.
const std::set<std::string>& harmless_fields() {
  static const std::set<std::string> fields = {
      "_name_or_path", "architectures", "model_type", "transformers_version", "torch_dtype",
      "dtype", "bos_token_id", "eos_token_id", "pad_token_id", "initializer_range", "rms_norm_eps",
      "layer_norm_eps", "norm_eps", "rope_theta", "use_cache", "attention_dropout",
      "pretraining_tp", "output_router_logits", "router_aux_loss_coef", "aux_loss_alpha", "seq_aux",
      "router_jitter_noise", "auto_map", "quantization_config", "n_group", "topk_group",
      "scoring_func", "norm_topk_prob", "routed_scaling_factor", "ep_size", "rope_interleave",
      "partial_rotary_factor", "swiglu_limit", "initial_context_length", "attn_temperature_tuning",
      "floor_scale", "attn_scale", "for_llm_compressor", "_attn_implementation_autoset",
      "cache_implementation", "router_dtype", "moe_router_dtype", "output_attentions",
      "output_hidden_states", "return_dict", "use_bfloat16", "tie_encoder_decoder",
      "is_encoder_decoder", "max_window_layers", "topk_method", "boi_token_index",
      "eoi_token_index", "image_token_index", "use_mrope",
      // PretrainedConfig's own attributes, which older transformers wrote into every config
      // (Kimi K2.5's text_config): generation defaults, labels, export switches.
      // add_cross_attention and pruned_heads are checked apart (refuse_pretrained_config_changes).
      "bad_words_ids", "begin_suppress_tokens", "chunk_size_feed_forward",
      "cross_attention_hidden_size", "decoder_start_token_id", "diversity_penalty", "do_sample",
      "early_stopping", "encoder_no_repeat_ngram_size", "exponential_decay_length_penalty",
      "finetuning_task", "forced_bos_token_id", "forced_eos_token_id", "id2label", "label2id",
      "is_decoder", "length_penalty", "max_length", "min_length", "no_repeat_ngram_size",
      "num_beam_groups", "num_beams", "num_return_sequences", "output_scores", "prefix",
      "problem_type", "remove_invalid_values", "repetition_penalty", "return_dict_in_generate",
      "sep_token_id", "suppress_tokens", "task_specific_params", "temperature", "tf_legacy_loss",
      "tokenizer_class", "top_k", "top_p", "torchscript", "typical_p", "add_cross_attention",
      "pruned_heads"};
  return fields;
}

// The two PretrainedConfig attributes that would change the architecture: cross-attention
// added to a decoder, and pruned attention heads. Absent, false or empty: nothing to model.
void refuse_pretrained_config_changes(JsonReader& r) {
  if (r.has("add_cross_attention") && r.boolean("add_cross_attention", false))
    r.fail(r.name("add_cross_attention") +
           ": true is not modelled (a decoder-only model has none)");
  if (const nlohmann::json* pruned = r.value("pruned_heads", false);
      pruned && !pruned->is_null() && !pruned->empty())
    r.fail(r.name("pruned_heads") + ": pruned attention heads are not modelled (expected {})");
}

// The fields read_decoder reads, and `more`: what a decoder-only config's reader knows.
std::vector<const char*> with_decoder_fields(std::initializer_list<const char*> more) {
  std::vector<const char*> all = {"num_hidden_layers",
                                  "hidden_size",
                                  "num_attention_heads",
                                  "num_key_value_heads",
                                  "head_dim",
                                  "intermediate_size",
                                  "vocab_size",
                                  "max_position_embeddings",
                                  "tie_word_embeddings",
                                  "hidden_act",
                                  "attention_bias",
                                  "mlp_bias",
                                  "rope_scaling",
                                  "rope_parameters"};
  all.insert(all.end(), more.begin(), more.end());
  return all;
}

// An error naming the first field of `j` that is neither read (`read`) nor harmless.
std::optional<Error> check_unknown_fields(const nlohmann::json& j, const std::string& where,
                                          const std::string& type,
                                          const std::vector<const char*>& read) {
  for (const auto& item : j.items()) {
    const std::string& key = item.key();
    if (harmless_fields().count(key)) continue;
    bool known = false;
    for (const char* r : read) known = known || key == r;
    if (known) continue;
    return make_error(Errc::schema_error,
                      where + ": " + key + ": a field gpuplan does not model for model_type '" +
                          type + "'; it may change the architecture, so the config is refused " +
                          "(remove it if it does not)");
  }
  return std::nullopt;
}

// An optional integer that may be null (head_dim, q_lora_rank, sliding_window).
int64_t nullable_integer(JsonReader& r, const char* key, int64_t min, int64_t max) {
  const nlohmann::json* v = r.value(key, false);
  if (!v || v->is_null()) return 0;
  return r.integer(key, 0, min, max);
}

// rope_scaling (or transformers 5's rope_parameters): the type, factor and original length.
// Scaling changes no parameter; it sets how far positions reach, so max_positions becomes at
// least factor x original (Qwen3 with YaRN 4 x 32768 = 131072, as its model card states).
void read_rope(JsonReader& r, TransformerSpec& s) {
  const char* key = r.has("rope_parameters") ? "rope_parameters" : "rope_scaling";
  const nlohmann::json* v = r.value(key, false);
  if (!v || v->is_null()) return;
  if (!v->is_object()) return r.fail(std::string(key) + ": expected an object or null");
  JsonReader rr(*v, r.where(), key);
  std::string type = rr.has("rope_type") ? rr.string("rope_type", "") : rr.string("type", "");
  if (type.empty() || type == "default") return;
  const std::vector<std::string> kinds = {"none", "linear", "dynamic",
                                          "yarn", "llama3", "longrope"};
  const auto it = std::find(kinds.begin(), kinds.end(), type);
  if (it == kinds.end()) {
    return r.fail(std::string(key) + ".rope_type: unknown value '" + type +
                  "' (expected one of: linear, dynamic, yarn, llama3, longrope)");
  }
  s.rope_scaling = static_cast<RopeScaling>(it - kinds.begin());
  s.rope_scaling_factor = rr.number("factor", 1.0, 1.0, 1e6);
  s.rope_original_max_positions =
      rr.integer("original_max_position_embeddings", 0, 0, 1'000'000'000);
  const double reach = s.rope_scaling_factor * static_cast<double>(s.rope_original_max_positions);
  if (reach > static_cast<double>(s.max_positions) && reach < 1e9)
    s.max_positions = static_cast<int64_t>(reach);
  if (rr.error()) r.fail_with(*rr.error());
}

// The MLP activation: gated for these decoders; silu (SwiGLU) or a GELU (GeGLU).
void read_activation(JsonReader& r, TransformerSpec& s) {
  const std::string act = r.string("hidden_act", "silu");
  s.gated_mlp = true;
  if (act == "silu" || act == "swish") {
    s.activation = MlpActivation::silu;
  } else if (act.rfind("gelu", 0) == 0) {
    s.activation = MlpActivation::gelu;
  } else {
    r.fail("hidden_act: '" + act + "' is not modelled (silu or gelu)");
  }
}

// What a Llama-style decoder's config says besides its widths: vocabulary, positions, tie,
// activation (where `gated`), biases, rotary scaling; RMSNorm and rotary positions.
void read_llama_rest(JsonReader& r, TransformerSpec& s, bool gated) {
  s.vocab = r.integer("vocab_size", std::nullopt, 1, kMax);
  s.max_positions = r.integer("max_position_embeddings", 4096, 1, 1'000'000'000);
  s.tied_embeddings = r.boolean("tie_word_embeddings", false);
  if (gated) read_activation(r, s);
  s.positions = PositionKind::rotary;
  s.norm = NormKind::rmsnorm;
  s.norm_bias = false;
  s.head = HeadKind::lm;
  s.qkv_bias = r.boolean("attention_bias", false);
  s.mlp_bias = r.boolean("mlp_bias", false);
  read_rope(r, s);
}

// The fields every decoder below shares (transformers' LlamaConfig and its descendants);
// `gated`: the MLP is gated, its activation read by read_activation (else the caller reads it).
// `ffn`: whether intermediate_size must be given (Qwen3.5's MoE text config drops it: 0).
void read_decoder(JsonReader& r, TransformerSpec& s, bool gated = true, bool ffn = true) {
  s.layers = r.integer("num_hidden_layers", std::nullopt, 1, kMax);
  s.hidden = r.integer("hidden_size", std::nullopt, 1, kMax);
  s.heads = r.integer("num_attention_heads", std::nullopt, 1, kMax);
  s.kv_heads = r.integer("num_key_value_heads", s.heads, 1, kMax);
  s.head_dim = nullable_integer(r, "head_dim", 0, kMax);
  s.ffn_hidden = ffn ? r.integer("intermediate_size", std::nullopt, 1, kMax)
                     : r.integer("intermediate_size", 0, 0, kMax);
  read_llama_rest(r, s, gated);
}

// Qwen2/Qwen3: use_sliding_window true puts a window on the blocks from max_window_layers on,
// which gpuplan's pattern (every n-th block full) cannot express.
void refuse_qwen_sliding_window(JsonReader& r) {
  if (r.boolean("use_sliding_window", false)) {
    r.fail(
        "use_sliding_window: true is not modelled (windows on the blocks from "
        "max_window_layers on); set it to false or describe the model in data/models");
  }
  r.ignore("sliding_window");  // unused while use_sliding_window is false
}

// Llama, Mistral, Mixtral, Qwen2, Qwen3 and Qwen3-MoE, and Qwen3-VL's language models
// (Qwen3VLTextConfig, Qwen3VLMoeTextConfig: Qwen3's and Qwen3-MoE's fields; their multimodal
// rotary sections change no count).
std::optional<Error> read_llama_like(JsonReader& r, const nlohmann::json& j, TransformerSpec& s,
                                     const std::string& vl_type, const std::string& where) {
  // Xiaomi's MiMo-7B (MiMoForCausalLM) is Qwen2 with multi-token prediction modules
  // (num_nextn_predict_layers: each a Qwen2 block behind two norms and a 2h -> h input_proj).
  const std::string type = vl_type == "qwen3_vl_text"       ? "qwen3"
                           : vl_type == "qwen3_vl_moe_text" ? "qwen3_moe"
                           : vl_type == "mimo"              ? "qwen2"
                                                            : vl_type;
  read_decoder(r, s);
  if (vl_type == "mimo") s.mtp_layers = r.integer("num_nextn_predict_layers", 0, 0, 64);
  // Qwen3-Coder's config writes qkv_bias false, a field neither transformers' Qwen3 models nor
  // their attention read (attention_bias sets the biases); true would say otherwise.
  // Qwen3-Coder's config also restates that Qwen3 normalises q and k (use_qk_norm true) and
  // has no shared expert (shared_expert_intermediate_size 0), fields of Qwen2-MoE's config.
  if (type == "qwen3" || type == "qwen3_moe") {
    if (r.boolean("qkv_bias", false))
      r.fail(
          "qkv_bias: true is not read by Qwen3's attention (attention_bias sets its biases); "
          "only false is accepted");
    if (!r.boolean("use_qk_norm", true))
      r.fail("use_qk_norm: false is not modelled (Qwen3's attention normalises q and k)");
    if (r.integer("shared_expert_intermediate_size", 0, 0, kMax) != 0)
      r.fail("shared_expert_intermediate_size: only 0 is modelled for qwen3 (no shared expert)");
  }
  if (type == "qwen2") s.qkv_bias = true;  // Qwen2Attention: biases on q, k and v
  if (type == "qwen2" || type == "qwen3" || type == "qwen3_moe") refuse_qwen_sliding_window(r);
  if (type == "qwen3" || type == "qwen3_moe") s.qk_norm = QkNorm::rmsnorm;
  if (type == "mistral" || type == "mixtral") {
    // MistralConfig.sliding_window: every block attends to the last W keys (null: none).
    s.sliding_window = nullable_integer(r, "sliding_window", 0, 1'000'000'000);
  }
  if (type == "mixtral") {
    s.experts = r.integer("num_local_experts", std::nullopt, 1, 100'000);
    s.experts_per_token = r.integer("num_experts_per_tok", std::nullopt, 1, 100'000);
  }
  if (type == "qwen3_moe") {
    s.experts = r.integer("num_experts", std::nullopt, 1, 100'000);
    s.experts_per_token = r.integer("num_experts_per_tok", std::nullopt, 1, 100'000);
    s.moe_ffn_hidden = r.integer("moe_intermediate_size", std::nullopt, 1, kMax);
    s.moe_layer_step = r.integer("decoder_sparse_step", 1, 1, kMax);
    const nlohmann::json* only = r.value("mlp_only_layers", false);
    if (only && !(only->is_array() && only->empty()))
      r.fail("mlp_only_layers: only [] is modelled (dense blocks by list are not)");
  }
  std::vector<const char*> known = with_decoder_fields(
      {"use_sliding_window", "sliding_window", "num_local_experts", "num_experts",
       "num_experts_per_tok", "moe_intermediate_size", "decoder_sparse_step", "mlp_only_layers",
       "qkv_bias", "use_qk_norm", "shared_expert_intermediate_size"});
  if (vl_type == "mimo") known.push_back("num_nextn_predict_layers");
  return check_unknown_fields(j, where, vl_type, known);
}

// Nemotron (transformers' NemotronConfig, Nemotron-4): LlamaConfig's fields, but an ungated MLP
// (up_proj, the activation, down_proj: NemotronMLP) of squared ReLU by default, and LayerNorm1P
// (a LayerNorm with bias whose weight is stored zero-centred) in place of RMSNorm. Rotary runs on
// partial_rotary_factor of each head, which changes no FLOP or byte gpuplan counts.
std::optional<Error> read_nemotron(JsonReader& r, const nlohmann::json& j, TransformerSpec& s,
                                   const std::string& where) {
  read_decoder(r, s, false);
  // Configs converted from NeMo (Minitron, Nemotron-Mini) name the head width kv_channels.
  if (s.head_dim == 0) s.head_dim = nullable_integer(r, "kv_channels", 0, kMax);
  const std::string act = r.string("hidden_act", "relu2");
  s.gated_mlp = false;
  if (act == "relu2") {
    s.activation = MlpActivation::relu2;
  } else if (act == "relu") {
    s.activation = MlpActivation::relu;
  } else if (act.rfind("gelu", 0) == 0) {
    s.activation = MlpActivation::gelu;
  } else {
    r.fail("hidden_act: '" + act + "' is not modelled for nemotron (relu2, relu or gelu)");
  }
  s.norm = NormKind::layernorm;
  s.norm_bias = true;
  return check_unknown_fields(j, where, "nemotron", with_decoder_fields({"kv_channels"}));
}

// Whether a per-block list has one entry per block; the error set where it has not.
bool one_per_block(JsonReader& r, const char* key, size_t entries, int64_t layers) {
  if (static_cast<int64_t>(entries) == layers) return true;
  r.fail(std::string(key) + ": " + std::to_string(entries) + " entries for num_hidden_layers " +
         std::to_string(layers));
  return false;
}

// A per-block list of strings, each one of `kinds`; empty (with the error set) when it is not.
std::vector<std::string> block_list(JsonReader& r, const char* key, int64_t layers,
                                    std::initializer_list<const char*> kinds) {
  std::vector<std::string> out;
  const nlohmann::json* v = r.value(key, false);
  if (!v || v->is_null()) return out;
  std::string expected;
  for (const char* k : kinds) expected += (expected.empty() ? "'" : " or '") + std::string(k) + "'";
  for (const auto& x : v->is_array() ? *v : nlohmann::json::array({nullptr})) {
    const bool known = x.is_string() && std::any_of(kinds.begin(), kinds.end(), [&](const char* k) {
                         return x.get_ref<const std::string&>() == k;
                       });
    if (!known) {
      r.fail(std::string(key) + ": expected a list of " + expected + " entries");
      return {};
    }
    out.push_back(x.get<std::string>());
  }
  return one_per_block(r, key, out.size(), layers) ? out : std::vector<std::string>{};
}

// GLM-5.1's and GLM-5.2's per-block lists. indexer_types: "full" blocks run their own indexer,
// "shared" ones reuse the nearest earlier full block's selection (GLM-5.2: 21 full of 78);
// index_topk_freq, index_skip_topk_offset and index_topk_pattern are the rule the list was
// written from, and index_share_for_mtp_iteration lets the MTP draft's later steps reuse its
// first selection (a serving switch; no count changes). mlp_layer_types: "dense" blocks, then
// "sparse" (MoE) ones, as first_k_dense_replace says.
void read_glm_block_lists(JsonReader& r, TransformerSpec& s) {
  const auto indexers = block_list(r, "indexer_types", s.layers, {"full", "shared"});
  if (!indexers.empty() && indexers.front() != "full")
    r.fail("indexer_types: the first block must run its own indexer ('full')");
  s.index_shared_layers = std::count(indexers.begin(), indexers.end(), "shared");
  for (const char* rule : {"index_topk_freq", "index_skip_topk_offset", "index_topk_pattern"}) {
    if (r.has(rule) && indexers.empty())
      r.fail(std::string(rule) + ": modelled only beside indexer_types, which lists its blocks");
  }
  r.ignore("index_share_for_mtp_iteration");
  // NVIDIA's GLM-5.2 checkpoint also names every block's attention (layer_types) and restates
  // the routed experts (num_experts).
  block_list(r, "layer_types", s.layers, {"deepseek_sparse_attention"});
  if (r.has("num_experts") && r.integer("num_experts", 0, 0, 100'000) != s.experts)
    r.fail("num_experts: must equal n_routed_experts");
  const auto mlps = block_list(r, "mlp_layer_types", s.layers, {"dense", "sparse"});
  for (size_t i = 0; i < mlps.size(); ++i) {
    if ((mlps[i] == "dense") != (static_cast<int64_t>(i) < s.first_dense_layers)) {
      r.fail("mlp_layer_types: only first_k_dense_replace (" +
             std::to_string(s.first_dense_layers) + ") 'dense' blocks, then 'sparse' ones, are " +
             "modelled");
      break;
    }
  }
}

// DeepSeek-V2/V3 and Kimi K2 (DeepseekV3ForCausalLM): multi-head latent attention, shared and
// routed experts after first_k_dense_replace dense blocks, multi-token prediction modules.
std::optional<Error> read_deepseek(JsonReader& r, const nlohmann::json& j, TransformerSpec& s,
                                   const std::string& type, const std::string& where) {
  read_decoder(r, s);
  s.q_lora_rank = nullable_integer(r, "q_lora_rank", 0, kMax);
  s.kv_lora_rank = r.integer("kv_lora_rank", std::nullopt, 1, kMax);
  s.qk_nope_head_dim = r.integer("qk_nope_head_dim", std::nullopt, 1, kMax);
  s.qk_rope_head_dim = r.integer("qk_rope_head_dim", std::nullopt, 1, kMax);
  s.v_head_dim = r.integer("v_head_dim", std::nullopt, 1, kMax);
  s.experts = r.integer("n_routed_experts", std::nullopt, 1, 100'000);
  s.experts_per_token = r.integer("num_experts_per_tok", std::nullopt, 1, 100'000);
  s.moe_ffn_hidden = r.integer("moe_intermediate_size", std::nullopt, 1, kMax);
  s.shared_experts = nullable_integer(r, "n_shared_experts", 0, 100'000);
  s.first_dense_layers = r.integer("first_k_dense_replace", 0, 0, kMax);
  // DeepseekV3MoE runs in block i when i >= first_k_dense_replace and i % moe_layer_freq == 0.
  if (r.integer("moe_layer_freq", 1, 1, kMax) != 1)
    r.fail("moe_layer_freq: only 1 is modelled (every block after the dense ones)");
  s.mtp_layers = r.integer("num_nextn_predict_layers", 0, 0, 64);
  // noaux_tc routing keeps a per-expert correction bias (e_score_correction_bias).
  s.router_bias = r.has("topk_method") && r.string("topk_method", "") == "noaux_tc";
  if (type == "deepseek_v32" || type == "glm_moe_dsa") {  // DSA's lightning indexer (model.h)
    s.index_heads = r.integer("index_n_heads", std::nullopt, 1, kMax);
    s.index_head_dim = r.integer("index_head_dim", std::nullopt, 1, kMax);
    s.index_topk = r.integer("index_topk", std::nullopt, 1, 1'000'000'000);
  }
  if (type == "glm_moe_dsa") {
    // GLM-5 (GlmMoeDsaConfig): DeepSeek-V3.2's layout; qk_head_dim restates nope + rope, and the
    // interleaved rotary layouts change no count.
    if (r.has("qk_head_dim") &&
        r.integer("qk_head_dim", 0, 0, kMax) != s.qk_nope_head_dim + s.qk_rope_head_dim)
      r.fail("qk_head_dim: must equal qk_nope_head_dim + qk_rope_head_dim");
    read_glm_block_lists(r, s);
  }
  return check_unknown_fields(j, where, type,
                              with_decoder_fields({"q_lora_rank",
                                                   "kv_lora_rank",
                                                   "qk_nope_head_dim",
                                                   "qk_rope_head_dim",
                                                   "v_head_dim",
                                                   "n_routed_experts",
                                                   "num_experts_per_tok",
                                                   "moe_intermediate_size",
                                                   "n_shared_experts",
                                                   "moe_layer_freq",
                                                   "first_k_dense_replace",
                                                   "num_nextn_predict_layers",
                                                   "index_n_heads",
                                                   "index_head_dim",
                                                   "index_topk",
                                                   "qk_head_dim",
                                                   "rope_interleave",
                                                   "indexer_rope_interleave",
                                                   "indexer_types",
                                                   "index_topk_freq",
                                                   "index_skip_topk_offset",
                                                   "index_topk_pattern",
                                                   "index_share_for_mtp_iteration",
                                                   "mlp_layer_types",
                                                   "layer_types",
                                                   "num_experts"}));
}

// DeepSeek-V4's compress_ratios, one per block and then one per MTP block: 0 reads the window
// alone, 4 the compressed sparse attention with its indexer (CSA: the reference's Attention
// builds an Indexer, and overlapping windows, exactly when the ratio is 4), any other ratio the
// heavily compressed attention (HCA), which must be one ratio for all such blocks. The MTP
// blocks' entries must be 0 (model.h: stack() reads the window alone).
void read_compress_ratios(JsonReader& r, TransformerSpec& s) {
  const nlohmann::json* v = r.value("compress_ratios", true);
  if (!v) return;
  const int64_t expected = s.layers + s.mtp_layers;
  if (!v->is_array() || static_cast<int64_t>(v->size()) != expected)
    return r.fail("compress_ratios: expected " + std::to_string(expected) +
                  " integers (num_hidden_layers + num_nextn_predict_layers)");
  for (int64_t i = 0; i < expected; ++i) {
    const nlohmann::json& e = (*v)[static_cast<size_t>(i)];
    if (!e.is_number_integer() || e.get<int64_t>() < 0 || e.get<int64_t>() > kMax)
      return r.fail("compress_ratios[" + std::to_string(i) + "]: expected an integer >= 0");
    const int64_t ratio = e.get<int64_t>();
    if (ratio == 0) continue;
    if (i >= s.layers)
      return r.fail("compress_ratios[" + std::to_string(i) +
                    "]: a multi-token prediction block with compressed attention is not "
                    "modelled (expected 0)");
    if (ratio == 4) {
      s.csa_ratio = 4;
      ++s.csa_layers;
    } else if (s.hca_ratio == 0 || s.hca_ratio == ratio) {
      s.hca_ratio = ratio;
      ++s.hca_layers;
    } else {
      return r.fail("compress_ratios[" + std::to_string(i) + "]: " + std::to_string(ratio) +
                    " beside " + std::to_string(s.hca_ratio) +
                    ": one heavily compressed ratio is modelled");
    }
  }
}

// DeepSeek-V4 (DeepseekV4ForCausalLM; deepseek-ai/DeepSeek-V4-Flash, inference/model.py):
// compressed attention and hyper-connections (model.h); every block a MoE of routed experts and
// shared ones, routed by a score with a correction bias (noaux_tc). The first num_hash_layers
// blocks pick their experts from a table indexed by token id (Gate.tid2eid) instead: the same
// expert work; the table (vocab x k int32, not trained) is not counted, and neither is it
// subtracted that those blocks have no correction bias (n_routed_experts values each).
std::optional<Error> read_deepseek_v4(JsonReader& r, const nlohmann::json& j, TransformerSpec& s,
                                      const std::string& type, const std::string& where) {
  read_decoder(r, s, true, false);
  s.q_lora_rank = r.integer("q_lora_rank", std::nullopt, 1, kMax);
  s.qk_rope_head_dim = r.integer("qk_rope_head_dim", std::nullopt, 1, kMax);
  s.o_groups = r.integer("o_groups", std::nullopt, 1, kMax);
  s.o_lora_rank = r.integer("o_lora_rank", std::nullopt, 1, kMax);
  s.sliding_window = r.integer("sliding_window", std::nullopt, 1, kMax);
  s.attention_sinks = true;  // Attention.attn_sink, one per head
  s.experts = r.integer("n_routed_experts", std::nullopt, 1, 100'000);
  s.experts_per_token = r.integer("num_experts_per_tok", std::nullopt, 1, 100'000);
  s.moe_ffn_hidden = r.integer("moe_intermediate_size", std::nullopt, 1, kMax);
  if (s.ffn_hidden == 0) s.ffn_hidden = s.moe_ffn_hidden;  // no dense block uses it
  s.shared_experts = r.integer("n_shared_experts", 0, 0, 100'000);
  s.router_bias = r.has("topk_method") && r.string("topk_method", "") == "noaux_tc";
  r.integer("num_hash_layers", 0, 0, s.layers);
  s.mtp_layers = r.integer("num_nextn_predict_layers", 0, 0, 64);
  s.index_heads = r.integer("index_n_heads", std::nullopt, 1, kMax);
  s.index_head_dim = r.integer("index_head_dim", std::nullopt, 1, kMax);
  s.index_topk = r.integer("index_topk", std::nullopt, 1, 1'000'000'000);
  s.hc_streams = r.integer("hc_mult", 1, 1, 64);
  read_compress_ratios(r, s);
  if (s.csa_layers == 0) s.index_heads = s.index_head_dim = s.index_topk = 0;  // no indexer
  // The stored expert dtype (fp4, fp8) is the checkpoint's, a serving choice; the Sinkhorn
  // iterations and epsilon of the mixes, and the compressed entries' rope base, change no count.
  return check_unknown_fields(j, where, type,
                              with_decoder_fields({"q_lora_rank",
                                                   "qk_rope_head_dim",
                                                   "o_groups",
                                                   "o_lora_rank",
                                                   "sliding_window",
                                                   "n_routed_experts",
                                                   "num_experts_per_tok",
                                                   "moe_intermediate_size",
                                                   "n_shared_experts",
                                                   "num_hash_layers",
                                                   "num_nextn_predict_layers",
                                                   "index_n_heads",
                                                   "index_head_dim",
                                                   "index_topk",
                                                   "hc_mult",
                                                   "hc_sinkhorn_iters",
                                                   "hc_eps",
                                                   "compress_ratios",
                                                   "compress_rope_theta",
                                                   "expert_dtype"}));
}

// A per-block list (layer_types, no_rope_layers) as "every n-th block is global": 0 when no
// block is, -1 when every block is, -2 when the list has another pattern.
int64_t global_every(const std::vector<bool>& global) {
  const int64_t n = static_cast<int64_t>(global.size());
  int64_t first = -1;
  for (int64_t i = 0; i < n && first < 0; ++i) {
    if (global[static_cast<size_t>(i)]) first = i;
  }
  if (first < 0) return 0;
  const int64_t every = first + 1;
  if (every == 1) {
    for (bool g : global) {
      if (!g) return -2;
    }
    return -1;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (global[static_cast<size_t>(i)] != ((i + 1) % every == 0)) return -2;
  }
  return every;
}

// The n of a per-block list global exactly in blocks 0, n, 2n, ... (n > 1), else -2.
int64_t first_of_every(const std::vector<bool>& global) {
  const int64_t size = static_cast<int64_t>(global.size());
  int64_t n = -2;
  for (int64_t i = 1; i < size && n < 0; ++i) {
    if (global[static_cast<size_t>(i)]) n = i;
  }
  if (n < 2) return -2;
  for (int64_t i = 0; i < size; ++i) {
    if (global[static_cast<size_t>(i)] != (i % n == 0)) return -2;
  }
  return n;
}

// A per-block list global in its first `lead` blocks and then in each block i with i + 1 a
// multiple of n (n > 1): {lead, n}, else {0, -2}.
std::pair<int64_t, int64_t> leading_then_every(const std::vector<bool>& global) {
  const int64_t size = static_cast<int64_t>(global.size());
  int64_t lead = 0;
  while (lead < size && global[static_cast<size_t>(lead)]) ++lead;
  int64_t n = -2;
  for (int64_t i = lead; i < size && n < 0; ++i) {
    if (global[static_cast<size_t>(i)]) n = i + 1;
  }
  if (lead == 0 || n < 2) return {0, -2};
  for (int64_t i = 0; i < size; ++i) {
    if (global[static_cast<size_t>(i)] != (i < lead || (i + 1) % n == 0)) return {0, -2};
  }
  return {lead, n};
}

// Sets the window pattern from one flag per block (true: attends to all keys).
void set_window_pattern(JsonReader& r, TransformerSpec& s, const std::vector<bool>& global,
                        const char* field) {
  if (static_cast<int64_t>(global.size()) != s.layers) {
    return r.fail(std::string(field) + ": " + std::to_string(global.size()) +
                  " entries for num_hidden_layers " + std::to_string(s.layers));
  }
  const int64_t every = global_every(global);
  if (every == -2) {
    // Full attention in the first block of every n (0, n, 2n, ...; Step-3.7).
    const int64_t n = global.front() ? first_of_every(global) : -2;
    if (n > 1) {
      s.full_attention_every = n;
      s.full_attention_first = true;
      return;
    }
    // In the first blocks, then in every n-th (MiMo-V2-Flash: 0, then 5, 11, ...).
    if (const auto [lead, period] = leading_then_every(global); period > 1) {
      s.full_attention_every = period;
      s.full_attention_leading = lead;
      return;
    }
    return r.fail(std::string(field) +
                  ": a pattern gpuplan cannot express (full attention in every n-th block, the "
                  "first of every n, or the first blocks and then every n-th)");
  }
  if (every == -1) s.sliding_window = 0;  // no windowed block
  if (every > 0) s.full_attention_every = every;
}

// layer_types, one "sliding_attention" or "full_attention" per block, as full-attention flags.
Result<std::vector<bool>> full_attention_flags(const nlohmann::json& types,
                                               const std::string& where) {
  std::vector<bool> global;
  for (const auto& t : types.is_array() ? types : nlohmann::json::array()) {
    if (t != "sliding_attention" && t != "full_attention")
      return make_error(Errc::schema_error,
                        where + ": layer_types: expected sliding_attention or full_attention");
    global.push_back(t == "full_attention");
  }
  return global;
}

// OpenAI gpt-oss (GptOssConfig): experts with biases, a router with a bias, sliding and full
// blocks by layer_types, a learned sink per head.
std::optional<Error> read_gpt_oss(JsonReader& r, const nlohmann::json& j, TransformerSpec& s,
                                  const std::string& where) {
  read_decoder(r, s);
  s.attn_out_bias = s.qkv_bias;  // GptOssAttention: o_proj's bias follows attention_bias
  s.mlp_bias = true;             // GptOssExperts: gate_up_proj_bias, down_proj_bias
  s.router_bias = true;          // GptOssTopKRouter: a bias per expert
  s.attention_sinks = true;      // GptOssAttention.sinks
  s.experts = r.integer("num_local_experts", std::nullopt, 1, 100'000);
  s.experts_per_token = r.integer("num_experts_per_tok", std::nullopt, 1, 100'000);
  if (r.has("experts_per_token") &&
      r.integer("experts_per_token", 0, 1, 100'000) != s.experts_per_token)
    r.fail("experts_per_token: differs from num_experts_per_tok");
  s.sliding_window = nullable_integer(r, "sliding_window", 0, 1'000'000'000);
  if (const nlohmann::json* types = r.value("layer_types", false)) {
    auto global = full_attention_flags(*types, where);
    if (!global.ok()) return global.error();
    if (s.sliding_window > 0) set_window_pattern(r, s, global.value(), "layer_types");
  } else if (s.sliding_window > 0) {
    s.full_attention_every = 2;  // GptOssConfig's default: sliding, full, sliding, ...
  }
  return check_unknown_fields(
      j, where, "gpt_oss",
      with_decoder_fields({"num_local_experts", "num_experts_per_tok", "experts_per_token",
                           "sliding_window", "layer_types"}));
}

// What every Gemma language model shares: a gated GELU MLP, rotary positions, RMSNorm, an LM
// head and no attention biases.
void set_gemma_layout(JsonReader& r, TransformerSpec& s) {
  const std::string act = r.string("hidden_activation", "gelu_pytorch_tanh");
  if (act.rfind("gelu", 0) != 0) r.fail("hidden_activation: '" + act + "' is not modelled (gelu)");
  s.gated_mlp = true;
  s.activation = MlpActivation::gelu;
  s.positions = PositionKind::rotary;
  s.norm = NormKind::rmsnorm;
  s.head = HeadKind::lm;
  if (r.boolean("attention_bias", false))
    r.fail("attention_bias: only false is modelled for Gemma");
}

// Gemma 2 (Gemma2Config, gemma2) and Gemma 3's language model (Gemma3TextConfig, gemma3_text;
// the text_config of Gemma3ForConditionalGeneration). Google's config.json files can be sparse:
// what they leave out is the class's default (transformers src/transformers/models/gemma3/
// configuration_gemma3.py and gemma2/configuration_gemma2.py: hidden_size 2304,
// intermediate_size 9216, 26 layers, 8 heads, 4 KV heads, head_dim 256, gelu_pytorch_tanh, tied
// embeddings, sliding_window 4096; Gemma 3: vocab_size 262208, 131072 positions, every
// sliding_window_pattern = 6th block global; Gemma 2: vocab_size 256000, 8192 positions, every
// 2nd block global). GQA (Gemma 3 with an RMSNorm over each head's q and k), a gated GELU MLP, no
// biases. The softcapping, query scaling and the local blocks' rotary base change no count; the
// pre- and post-feedforward norms (2 x hidden a block) have no field in gpuplan's model and are
// left out, as the zoo's Gemma 2 and 3 entries leave them.
std::optional<Error> read_gemma_text(JsonReader& r, const nlohmann::json& j, TransformerSpec& s,
                                     const std::string& type, const std::string& where) {
  const bool gemma3 = type == "gemma3_text";
  s.vocab = r.integer("vocab_size", gemma3 ? 262'208 : 256'000, 1, kMax);
  s.hidden = r.integer("hidden_size", 2304, 1, kMax);
  s.ffn_hidden = r.integer("intermediate_size", 9216, 1, kMax);
  s.layers = r.integer("num_hidden_layers", 26, 1, kMax);
  s.heads = r.integer("num_attention_heads", 8, 1, kMax);
  s.kv_heads = r.integer("num_key_value_heads", 4, 1, kMax);
  s.head_dim = r.integer("head_dim", 256, 1, kMax);
  s.max_positions = r.integer("max_position_embeddings", gemma3 ? 131'072 : 8192, 1, 1'000'000'000);
  s.tied_embeddings = r.boolean("tie_word_embeddings", true);
  set_gemma_layout(r, s);
  if (gemma3) s.qk_norm = QkNorm::rmsnorm;
  if (r.boolean("use_bidirectional_attention", false))
    r.fail("use_bidirectional_attention: true is not modelled (a causal decoder)");
  read_rope(r, s);
  s.sliding_window =
      r.has("sliding_window") ? nullable_integer(r, "sliding_window", 0, 1'000'000'000) : 4096;
  if (const nlohmann::json* types = r.value("layer_types", false); types && !types->is_null()) {
    auto global = full_attention_flags(*types, where);
    if (!global.ok()) return global.error();
    if (s.sliding_window > 0) set_window_pattern(r, s, global.value(), "layer_types");
  } else if (s.sliding_window > 0) {
    s.full_attention_every = gemma3 ? r.integer("sliding_window_pattern", 6, 1, kMax) : 2;
  }
  if (!gemma3 && r.has("sliding_window_pattern"))
    r.fail("sliding_window_pattern: not a Gemma 2 field (every 2nd block is global)");
  return check_unknown_fields(j, where, type,
                              {"vocab_size",
                               "hidden_size",
                               "intermediate_size",
                               "num_hidden_layers",
                               "num_attention_heads",
                               "num_key_value_heads",
                               "head_dim",
                               "max_position_embeddings",
                               "tie_word_embeddings",
                               "hidden_activation",
                               "hidden_act",
                               "attention_bias",
                               "use_bidirectional_attention",
                               "rope_scaling",
                               "rope_parameters",
                               "sliding_window",
                               "layer_types",
                               "sliding_window_pattern",
                               "query_pre_attn_scalar",
                               "final_logit_softcapping",
                               "attn_logit_softcapping",
                               "rope_local_base_freq"});
}

// Gemma 4's rope_parameters, one object per layer type ("full_attention", "sliding_attention"):
// the default rotation, or the proportional one of the global blocks (p-RoPE: which channels
// rotate, at partial_rotary_factor), which change no count and reach no further than
// max_position_embeddings. Any other rope_type is refused by name.
void read_rope_by_layer_type(JsonReader& r) {
  const nlohmann::json* v = r.value("rope_parameters", false);
  if (!v || v->is_null()) return;
  if (!v->is_object()) return r.fail("rope_parameters: expected an object per layer type");
  for (const auto& item : v->items()) {
    const nlohmann::json& p = item.value();
    const auto type = p.is_object() ? p.find("rope_type") : p.end();
    const bool known =
        p.is_object() &&
        (type == p.end() || (type->is_string() && (*type == "default" || *type == "proportional")));
    if (!known)
      return r.fail("rope_parameters." + item.key() +
                    ": only the default and proportional rotations are modelled");
  }
}

// Gemma 4's enable_moe_block: routed experts beside each block's dense MLP, which counts as one
// shared expert of intermediate_size.
void read_gemma4_experts(JsonReader& r, TransformerSpec& s) {
  if (!r.boolean("enable_moe_block", false)) return;
  s.experts = r.integer("num_experts", std::nullopt, 2, 100'000);
  s.experts_per_token = r.integer("top_k_experts", std::nullopt, 1, 100'000);
  s.moe_ffn_hidden = nullable_integer(r, "moe_intermediate_size", 0, kMax);
  if (s.moe_ffn_hidden == 0)
    s.moe_ffn_hidden = nullable_integer(r, "expert_intermediate_size", 1, kMax);
  s.shared_experts = 1;
  s.shared_expert_ffn_hidden = s.ffn_hidden;
}

// Gemma 4's language model (Gemma4TextConfig; transformers' modeling_gemma4): Gemma 3's layout
// (GeGLU, four norms per block, q/k norms, sliding and global blocks by layer_types) with global
// blocks of their own geometry (global_head_dim, num_global_key_value_heads, and
// attention_k_eq_v: the key projection gives the values too, normed apart without a weight) and,
// with enable_moe_block, routed experts beside the block's dense MLP (counted as one shared expert
// of intermediate_size). Its per-layer embeddings (hidden_size_per_layer_input, the E2B/E4B
// models) and cross-layer KV sharing (num_kv_shared_layers) are not modelled: refused unless 0.
std::optional<Error> read_gemma4_text(JsonReader& r, const nlohmann::json& j, TransformerSpec& s,
                                      const std::string& where) {
  s.vocab = r.integer("vocab_size", std::nullopt, 1, kMax);
  s.hidden = r.integer("hidden_size", std::nullopt, 1, kMax);
  s.ffn_hidden = r.integer("intermediate_size", std::nullopt, 1, kMax);
  s.layers = r.integer("num_hidden_layers", std::nullopt, 1, kMax);
  s.heads = r.integer("num_attention_heads", std::nullopt, 1, kMax);
  s.kv_heads = r.integer("num_key_value_heads", std::nullopt, 1, kMax);
  s.head_dim = r.integer("head_dim", std::nullopt, 1, kMax);
  s.global_head_dim = nullable_integer(r, "global_head_dim", 0, kMax);
  s.global_kv_shared = r.boolean("attention_k_eq_v", false);
  // Without k_eq_v the global blocks keep num_key_value_heads (the reference's choice).
  const int64_t global_kv = nullable_integer(r, "num_global_key_value_heads", 0, kMax);
  if (s.global_kv_shared) s.global_kv_heads = global_kv;
  s.max_positions = r.integer("max_position_embeddings", std::nullopt, 1, 1'000'000'000);
  s.tied_embeddings = r.boolean("tie_word_embeddings", true);
  set_gemma_layout(r, s);
  s.qk_norm = QkNorm::rmsnorm;
  // "vision": images attend both ways among themselves; text stays causal. "all" is not modelled.
  if (const nlohmann::json* b = r.value("use_bidirectional_attention", false);
      b && !b->is_null() && !(b->is_boolean() && !b->get<bool>()) &&
      !(b->is_string() && b->get<std::string>() == "vision"))
    r.fail(
        "use_bidirectional_attention: only null, false or \"vision\" is modelled (a causal "
        "decoder)");
  for (const char* key : {"hidden_size_per_layer_input", "num_kv_shared_layers"}) {
    if (nullable_integer(r, key, 0, kMax) != 0)
      r.fail(std::string(key) +
             ": only 0 is modelled (per-layer embeddings and cross-layer KV "
             "sharing, the E2B/E4B models, are not)");
  }
  if (r.boolean("use_double_wide_mlp", false))
    r.fail("use_double_wide_mlp: only false is modelled");
  s.sliding_window = nullable_integer(r, "sliding_window", 0, 1'000'000'000);
  if (const nlohmann::json* types = r.value("layer_types", true)) {
    auto global = full_attention_flags(*types, where);
    if (!global.ok()) return global.error();
    if (s.sliding_window > 0) set_window_pattern(r, s, global.value(), "layer_types");
  }
  if (s.sliding_window == 0 || s.full_attention_every == 0) {  // no global blocks to shape
    s.global_head_dim = s.global_kv_heads = 0;
    s.global_kv_shared = false;
  }
  read_gemma4_experts(r, s);
  read_rope_by_layer_type(r);
  return check_unknown_fields(j, where, "gemma4_text",
                              {"vocab_size",
                               "hidden_size",
                               "intermediate_size",
                               "num_hidden_layers",
                               "num_attention_heads",
                               "num_key_value_heads",
                               "head_dim",
                               "global_head_dim",
                               "num_global_key_value_heads",
                               "attention_k_eq_v",
                               "max_position_embeddings",
                               "tie_word_embeddings",
                               "hidden_activation",
                               "attention_bias",
                               "use_bidirectional_attention",
                               "hidden_size_per_layer_input",
                               "vocab_size_per_layer_input",
                               "num_kv_shared_layers",
                               "use_double_wide_mlp",
                               "sliding_window",
                               "layer_types",
                               "enable_moe_block",
                               "num_experts",
                               "top_k_experts",
                               "moe_intermediate_size",
                               "expert_intermediate_size",
                               "rope_parameters",
                               "final_logit_softcapping"});
}

// Step-3.7-Flash (Step3p7FlashForCausalLM; stepfun-ai's config.json): grouped-query attention
// with full attention in blocks 0, 4, 8, ... and a window in the rest (layer_types), routed
// experts with a correction bias (use_moe_router_bias) and one shared expert of share_expert_dim
// after first_k_dense_replace dense blocks, multi-token prediction modules. Its config names no
// activation (SwiGLU, read_decoder's default) and no tie (untied).
std::optional<Error> read_step3p7(JsonReader& r, const nlohmann::json& j, TransformerSpec& s,
                                  const std::string& where) {
  read_decoder(r, s);
  s.sliding_window = nullable_integer(r, "sliding_window", 0, 1'000'000'000);
  if (const nlohmann::json* types = r.value("layer_types", true)) {
    auto global = full_attention_flags(*types, where);
    if (!global.ok()) return global.error();
    if (s.sliding_window > 0) set_window_pattern(r, s, global.value(), "layer_types");
  }
  s.first_dense_layers = r.integer("first_k_dense_replace", 0, 0, kMax);
  s.experts = r.integer("num_experts", std::nullopt, 2, 100'000);
  s.experts_per_token = r.integer("num_experts_per_tok", std::nullopt, 1, 100'000);
  s.moe_ffn_hidden = r.integer("moe_intermediate_size", std::nullopt, 1, kMax);
  s.shared_experts = r.integer("n_shared_experts", 0, 0, 100'000);
  s.shared_expert_ffn_hidden = r.integer("share_expert_dim", 0, 0, kMax);
  s.router_bias = r.boolean("use_moe_router_bias", false);
  s.mtp_layers = r.integer("num_nextn_predict_layers", 0, 0, 64);
  return check_unknown_fields(
      j, where, "step3p7",
      with_decoder_fields({"sliding_window", "layer_types", "first_k_dense_replace", "num_experts",
                           "num_experts_per_tok", "moe_intermediate_size", "n_shared_experts",
                           "share_expert_dim", "use_moe_router_bias", "num_nextn_predict_layers",
                           "moe_router_scaling_factor"}));
}

// MiMo-V2-Flash's per-block integer lists (hybrid_layer_pattern, moe_layer_freq): each entry 0
// or 1, one per block; empty (with the error set) when it is not.
std::vector<bool> block_flags(JsonReader& r, const char* key, int64_t layers) {
  std::vector<bool> out;
  const nlohmann::json* v = r.value(key, true);
  if (!v) return out;
  for (const auto& x : v->is_array() ? *v : nlohmann::json::array({nullptr})) {
    if (!x.is_number_integer() || (x != 0 && x != 1)) {
      r.fail(std::string(key) + ": expected a list of 0 and 1 entries, one per block");
      return {};
    }
    out.push_back(x == 1);
  }
  return one_per_block(r, key, out.size(), layers) ? out : std::vector<bool>{};
}

// MiMo-V2-Flash's windowed blocks' attention (swa_*) as the spec's, its full blocks' as the
// global geometry: the query heads and the head widths must be the full blocks', as the spec
// has one of each; the key-value heads may differ.
void read_mimo_v2_attention(JsonReader& r, TransformerSpec& s) {
  const int64_t full_kv = s.kv_heads;
  const struct {
    const char* key;
    int64_t full;
  } same[] = {{"swa_num_attention_heads", s.heads},
              {"swa_head_dim", s.head_dim},
              {"swa_v_head_dim", s.v_head_dim}};
  for (const auto& f : same) {
    if (r.integer(f.key, f.full, 1, kMax) != f.full)
      r.fail(std::string(f.key) +
             ": windowed blocks whose query heads or head widths differ from "
             "the full blocks' are not modelled");
  }
  s.kv_heads = r.integer("swa_num_key_value_heads", full_kv, 1, kMax);
  if (full_kv != s.kv_heads) s.global_kv_heads = full_kv;
  s.sliding_window = r.integer("sliding_window", std::nullopt, 1, 1'000'000'000);
  for (const char* same_window : {"sliding_window_size", "attention_chunk_size"}) {
    if (r.integer(same_window, s.sliding_window, 1, 1'000'000'000) != s.sliding_window)
      r.fail(std::string(same_window) + ": a window other than sliding_window is not modelled");
  }
  const bool swa_sinks = r.boolean("add_swa_attention_sink_bias", false);
  const bool full_sinks = r.boolean("add_full_attention_sink_bias", false);
  if (full_sinks && !swa_sinks)
    r.fail("add_full_attention_sink_bias: sinks in the full blocks alone are not modelled");
  s.attention_sinks = swa_sinks;
  s.sinks_windowed_only = swa_sinks && !full_sinks;
}

// Xiaomi's MiMo-V2-Flash (MiMoV2FlashForCausalLM; XiaomiMiMo's config.json, SGLang's
// models/mimo_v2.py): grouped-query attention whose keys have head_dim channels and values
// v_head_dim, windowed blocks (hybrid_layer_pattern 1: sliding_window keys,
// swa_num_key_value_heads heads, a learned sink per head) and full ones (0:
// num_key_value_heads), rotary on part of each head and a value scale (no count); a dense MLP
// in the blocks moe_layer_freq marks 0 (the first), routed experts with a sigmoid router and its
// correction bias (topk_method noaux_tc) in the rest, no shared experts. Its MTP modules have no
// block description in the config and are left out, as serving does not load them.
std::optional<Error> read_mimo_v2_flash(JsonReader& r, const nlohmann::json& j, TransformerSpec& s,
                                        const std::string& where) {
  read_decoder(r, s);
  s.v_head_dim = r.integer("v_head_dim", s.head_dim, 1, kMax);
  if (s.v_head_dim == s.head_dim_or_default()) s.v_head_dim = 0;
  read_mimo_v2_attention(r, s);
  const std::vector<bool> windowed = block_flags(r, "hybrid_layer_pattern", s.layers);
  if (!windowed.empty()) {
    std::vector<bool> global;
    for (bool w : windowed) global.push_back(!w);
    set_window_pattern(r, s, global, "hybrid_layer_pattern");
  }
  const std::vector<bool> moe = block_flags(r, "moe_layer_freq", s.layers);
  while (s.first_dense_layers < static_cast<int64_t>(moe.size()) &&
         !moe[static_cast<size_t>(s.first_dense_layers)])
    ++s.first_dense_layers;
  if (std::find(moe.begin() + static_cast<std::ptrdiff_t>(s.first_dense_layers), moe.end(),
                false) != moe.end())
    r.fail("moe_layer_freq: dense blocks after the first MoE block are not modelled");
  s.experts = r.integer("n_routed_experts", std::nullopt, 2, 100'000);
  s.experts_per_token = r.integer("num_experts_per_tok", std::nullopt, 1, 100'000);
  s.moe_ffn_hidden = r.integer("moe_intermediate_size", std::nullopt, 1, kMax);
  s.shared_experts = nullable_integer(r, "n_shared_experts", 0, 100'000);
  s.router_bias = r.string("topk_method", "greedy") == "noaux_tc";  // e_score_correction_bias
  return check_unknown_fields(
      j, where, "mimo_v2_flash",
      with_decoder_fields({"v_head_dim", "swa_num_attention_heads", "swa_num_key_value_heads",
                           "swa_head_dim", "swa_v_head_dim", "sliding_window",
                           "sliding_window_size", "attention_chunk_size", "hybrid_layer_pattern",
                           "moe_layer_freq", "n_routed_experts", "num_experts_per_tok",
                           "moe_intermediate_size", "n_shared_experts",
                           "add_swa_attention_sink_bias", "add_full_attention_sink_bias",
                           "swa_rope_theta", "attention_value_scale", "layernorm_epsilon"}));
}

// One DeciLM block (block_configs[i]): its attention (absent when no_op) with its query heads per
// key-value head, and its MLP (absent when no_op) with its width.
struct DeciBlock {
  int64_t heads_per_kv = 0;  // 0: no attention
  int64_t mlp_width = 0;     // 0: no MLP
};

// Fields of a DeciLM block's attention or ffn config that must be off: what no count here
// models (a window, sinks, sparsity, a linear stand-in).
void refuse_deci_variants(JsonReader& r, std::initializer_list<const char*> null_fields,
                          std::initializer_list<const char*> false_fields) {
  for (const char* key : null_fields) {
    const nlohmann::json* v = r.value(key, false);
    if (v && !v->is_null()) r.fail(r.name(key) + ": only null is modelled");
  }
  for (const char* key : false_fields) {
    if (r.boolean(key, false)) r.fail(r.name(key) + ": only false is modelled");
  }
}

// block_configs[i] of a DeciLM config (transformers-style modeling_decilm.py of
// nvidia/Llama-3_3-Nemotron-Super-49B-v1): the MLP width is DeciLM's
// _ffn_mult_to_intermediate_size, int(2 x ffn_mult x hidden / 3) rounded up to a multiple of
// 256.
DeciBlock read_deci_block(JsonReader& r, const nlohmann::json& block, size_t i, int64_t hidden) {
  const std::string at = "block_configs[" + std::to_string(i) + "]";
  JsonReader b(block, r.where(), at);
  DeciBlock out;
  if (const nlohmann::json* a = b.object("attention", true)) {
    JsonReader ar(*a, r.where(), at + ".attention");
    const int64_t heads_per_kv = nullable_integer(ar, "n_heads_in_group", 1, kMax);
    if (!ar.boolean("no_op", false)) {
      out.heads_per_kv = heads_per_kv;
      if (heads_per_kv == 0) ar.fail(ar.name("n_heads_in_group") + ": missing for attention");
    }
    refuse_deci_variants(
        ar, {"sparsify", "window_length", "num_sink_tokens"},
        {"replace_with_linear", "unshifted_sink", "use_prefill_window_in_sink_attention"});
    if (auto err = ar.finish()) r.fail_with(*err);
  }
  if (const nlohmann::json* f = b.object("ffn", true)) {
    JsonReader fr(*f, r.where(), at + ".ffn");
    const double mult = fr.number("ffn_mult", 0.0, 0.0, 1000.0);
    if (!fr.boolean("no_op", false)) {
      const int64_t size = static_cast<int64_t>(2 * mult * static_cast<double>(hidden) / 3);
      out.mlp_width = (size + 255) / 256 * 256;
      if (out.mlp_width == 0)
        fr.fail(fr.name("ffn_mult") + ": must be > 0 for a block with an MLP");
    }
    refuse_deci_variants(fr, {"sparsify"}, {"replace_with_linear"});
    if (auto err = fr.finish()) r.fail_with(*err);
  }
  if (auto err = b.finish()) r.fail_with(*err);
  return out;
}

// NVIDIA's DeciLM (model_type nemotron-nas; Llama-3.3-Nemotron-Super-49B, Llama-3.1-Nemotron-
// Ultra-253B): Llama blocks pruned one by one (block_configs) to no attention or to an MLP of
// its own width. As a layer pattern: a block with attention is '*' then '-' (input_layernorm,
// attention, post_attention_layernorm, MLP), one without is '-' alone; mlp_widths keeps each
// MLP's width. The attention blocks must share their key-value heads.
std::optional<Error> read_decilm(JsonReader& r, const nlohmann::json& j, TransformerSpec& s,
                                 const std::string& where) {
  const int64_t blocks = r.integer("num_hidden_layers", std::nullopt, 1, kMax);
  s.hidden = r.integer("hidden_size", std::nullopt, 1, kMax);
  s.heads = r.integer("num_attention_heads", std::nullopt, 1, kMax);
  s.head_dim = nullable_integer(r, "head_dim", 0, kMax);
  read_llama_rest(r, s, true);
  for (const char* key : {"num_key_value_heads", "intermediate_size"}) {
    if (nullable_integer(r, key, 0, kMax) != 0)
      r.fail(std::string(key) + ": DeciLM gives them per block (block_configs); expected null");
  }
  const nlohmann::json* list = r.value("block_configs", true);
  if (!list || !list->is_array() || static_cast<int64_t>(list->size()) != blocks) {
    r.fail("block_configs: expected one object per block (num_hidden_layers " +
           std::to_string(blocks) + ")");
    return check_unknown_fields(j, where, "nemotron-nas", {});
  }
  std::map<int64_t, int64_t> width_count;
  for (size_t i = 0; i < list->size() && !r.error(); ++i) {
    const DeciBlock b = read_deci_block(r, (*list)[i], i, s.hidden);
    if (b.heads_per_kv > 0) {
      s.layer_pattern += '*';
      if (s.kv_heads == 0) s.kv_heads = s.heads / b.heads_per_kv;
      if (s.heads % b.heads_per_kv != 0 || s.kv_heads != s.heads / b.heads_per_kv)
        r.fail("block_configs[" + std::to_string(i) +
               "].attention.n_heads_in_group: attention blocks with different key-value heads "
               "are not modelled");
    }
    if (b.mlp_width > 0) {
      s.layer_pattern += '-';
      s.mlp_widths.push_back(b.mlp_width);
      ++width_count[b.mlp_width];
    }
  }
  s.layers = static_cast<int64_t>(s.layer_pattern.size());
  // The most common width stands for the MLPs where one width must (a GEMM's shape); one width
  // for all needs no list.
  for (const auto& [width, n] : width_count) {
    if (s.ffn_hidden == 0 || n > width_count[s.ffn_hidden]) s.ffn_hidden = width;
  }
  if (width_count.size() == 1) s.mlp_widths.clear();
  return check_unknown_fields(
      j, where, "nemotron-nas",
      with_decoder_fields({"block_configs", "num_key_value_heads", "intermediate_size"}));
}

// GLM-4.5/4.6 (Glm4MoeConfig): GQA with q, k, v biases and optional QK norm, shared and routed
// experts after first_k_dense_replace dense blocks, multi-token prediction modules.
std::optional<Error> read_glm4_moe(JsonReader& r, const nlohmann::json& j, TransformerSpec& s,
                                   const std::string& where) {
  read_decoder(r, s);
  if (r.boolean("use_qk_norm", false)) s.qk_norm = QkNorm::rmsnorm;
  s.experts = r.integer("n_routed_experts", std::nullopt, 1, 100'000);
  s.experts_per_token = r.integer("num_experts_per_tok", std::nullopt, 1, 100'000);
  s.moe_ffn_hidden = r.integer("moe_intermediate_size", std::nullopt, 1, kMax);
  s.shared_experts = r.integer("n_shared_experts", 0, 0, 100'000);
  s.first_dense_layers = r.integer("first_k_dense_replace", 0, 0, kMax);
  s.mtp_layers = r.integer("num_nextn_predict_layers", 0, 0, 64);
  s.router_bias = true;  // Glm4MoeTopkRouter's e_score_correction_bias (noaux_tc routing)
  return check_unknown_fields(
      j, where, "glm4_moe",
      with_decoder_fields({"use_qk_norm", "n_routed_experts", "num_experts_per_tok",
                           "moe_intermediate_size", "n_shared_experts", "first_k_dense_replace",
                           "num_nextn_predict_layers", "decoder_sparse_step"}));
}

// MiniMax-M2 (MiniMaxM2Config, model_type minimax_m2): GQA with RMSNorm over a layer's whole
// query and key channels (qk_norm_type per_layer) or per head, rotary on rotary_dim channels (no
// count), routed experts of intermediate_size in every block with a sigmoid router and its
// correction bias (use_routing_bias). Its MTP modules (use_mtp) have no block description in the
// config and are left out, as serving does not load them.
std::optional<Error> read_minimax_m2(JsonReader& r, const nlohmann::json& j, TransformerSpec& s,
                                     const std::string& where) {
  read_decoder(r, s);
  if (r.boolean("use_qk_norm", false)) {
    const std::string type = r.string("qk_norm_type", "per_layer");
    if (type == "per_layer") {
      s.qk_norm = QkNorm::rmsnorm_layer;
    } else if (type == "per_head") {
      s.qk_norm = QkNorm::rmsnorm;
    } else {
      r.fail("qk_norm_type: expected 'per_layer' or 'per_head'");
    }
  }
  s.experts = r.integer("num_local_experts", std::nullopt, 1, 100'000);
  s.experts_per_token = r.integer("num_experts_per_tok", std::nullopt, 1, 100'000);
  s.moe_ffn_hidden = s.ffn_hidden;
  if (r.integer("shared_intermediate_size", 0, 0, kMax) != 0)
    r.fail("shared_intermediate_size: only 0 is modelled (no shared expert)");
  s.router_bias = r.boolean("use_routing_bias", false);
  // attn_type_list: each block's attention, 1 full (softmax) and 0 lightning (linear), as
  // MiniMax-Text-01 mixes them; MiniMax-M2.7 and NVIDIA's M2.5 checkpoint list 1 for every block.
  if (nullable_integer(r, "sliding_window", 0, 1'000'000'000) != 0)
    r.fail(
        "sliding_window: only null is modelled for minimax_m2 (every block attends to all keys)");
  if (const nlohmann::json* kinds = r.value("attn_type_list", false); kinds && !kinds->is_null()) {
    const bool all_full =
        kinds->is_array() &&
        std::all_of(kinds->begin(), kinds->end(), [](const nlohmann::json& k) { return k == 1; });
    if (!all_full)
      r.fail(
          "attn_type_list: only full attention (1) in every block is modelled (lightning "
          "attention blocks, 0, are not)");
    else if (static_cast<int64_t>(kinds->size()) != s.layers)
      r.fail("attn_type_list: " + std::to_string(kinds->size()) +
             " entries for num_hidden_layers " + std::to_string(s.layers));
  }
  return check_unknown_fields(
      j, where, "minimax_m2",
      with_decoder_fields({"use_qk_norm", "qk_norm_type", "num_local_experts",
                           "num_experts_per_tok", "shared_intermediate_size", "use_routing_bias",
                           "rotary_dim", "scoring_func", "use_mtp", "num_mtp_modules",
                           "mtp_transformer_layers", "attn_type_list", "sliding_window"}));
}

// Tencent Hy3 (transformers' HYV3Config, model_type hy_v3): GQA with per-head q/k RMSNorm
// (qk_norm), shared and routed experts of expert_hidden_dim after first_k_dense_replace dense
// blocks, sigmoid routing with a selection-only expert bias, a multi-token prediction module.
// Its fp32 softmax, LM head and combine switches set kernel precision, not parameters.
std::optional<Error> read_hy_v3(JsonReader& r, const nlohmann::json& j, TransformerSpec& s,
                                const std::string& where) {
  read_decoder(r, s);
  if (r.boolean("qk_norm", false)) s.qk_norm = QkNorm::rmsnorm;
  s.experts = r.integer("num_experts", std::nullopt, 1, 100'000);
  s.experts_per_token = r.integer("num_experts_per_tok", std::nullopt, 1, 100'000);
  s.moe_ffn_hidden = r.integer("moe_intermediate_size", std::nullopt, 1, kMax);
  if (r.has("expert_hidden_dim") && r.integer("expert_hidden_dim", 0, 1, kMax) != s.moe_ffn_hidden)
    r.fail("expert_hidden_dim: differs from moe_intermediate_size (one expert width is modelled)");
  s.shared_experts = r.integer("num_shared_experts", 0, 0, 100'000);
  s.first_dense_layers = r.integer("first_k_dense_replace", 0, 0, kMax);
  s.mtp_layers = r.integer("num_nextn_predict_layers", 0, 0, 64);
  s.router_bias = r.boolean("moe_router_enable_expert_bias", false);
  return check_unknown_fields(
      j, where, "hy_v3",
      with_decoder_fields({"qk_norm", "num_experts", "num_experts_per_tok", "moe_intermediate_size",
                           "expert_hidden_dim", "num_shared_experts", "first_k_dense_replace",
                           "num_nextn_predict_layers", "moe_router_enable_expert_bias",
                           "moe_router_use_sigmoid", "route_norm", "router_scaling_factor",
                           "enable_attention_fp32_softmax", "enable_lm_head_fp32",
                           "enable_moe_fp32_combine", "eod_token_id", "sep_token_id",
                           "use_grouped_mm"}));
}

// Qwen3-Next (Qwen3NextConfig) and Qwen3.5's text models (Qwen3_5MoeTextConfig, and the dense
// Qwen3_5TextConfig): gated attention (q_proj doubled for the output gate, per-head q/k norms) in
// every full_attention_interval-th block (or as layer_types lists them), Gated DeltaNet in the
// others; routed experts plus one shared expert with a sigmoid gate in every block, or in the
// dense model a gated MLP of intermediate_size; Qwen3.5's multi-token prediction module
// (mtp_num_hidden_layers) is DeepSeek's shape. Zero-centred norms and partial rotary change no
// count.
std::optional<Error> read_qwen3_next(JsonReader& r, const nlohmann::json& j, TransformerSpec& s,
                                     const std::string& type, const std::string& where) {
  const bool dense = type == "qwen3_5_text";
  read_decoder(r, s, true, type != "qwen3_5_moe_text");  // its intermediate_size is unused
  refuse_qwen_sliding_window(r);
  s.qk_norm = QkNorm::rmsnorm;
  s.attention_output_gate = r.boolean("attn_output_gate", true);
  s.linear_key_heads = r.integer("linear_num_key_heads", std::nullopt, 1, kMax);
  s.linear_value_heads = r.integer("linear_num_value_heads", std::nullopt, 1, kMax);
  s.linear_key_head_dim = r.integer("linear_key_head_dim", std::nullopt, 1, kMax);
  s.linear_value_head_dim = r.integer("linear_value_head_dim", std::nullopt, 1, kMax);
  s.linear_conv_kernel = r.integer("linear_conv_kernel_dim", 4, 1, 64);
  if (!dense) {
    s.experts = r.integer("num_experts", std::nullopt, 1, 100'000);
    s.experts_per_token = r.integer("num_experts_per_tok", std::nullopt, 1, 100'000);
    s.moe_ffn_hidden = r.integer("moe_intermediate_size", std::nullopt, 1, kMax);
    if (s.ffn_hidden == 0) s.ffn_hidden = s.moe_ffn_hidden;  // no dense block uses it
    s.shared_experts = 1;
    s.shared_expert_ffn_hidden =
        r.integer("shared_expert_intermediate_size", std::nullopt, 1, kMax);
    s.shared_expert_gate = true;
    s.moe_layer_step = r.integer("decoder_sparse_step", 1, 1, kMax);
    const nlohmann::json* only = r.value("mlp_only_layers", false);
    if (only && !(only->is_array() && only->empty()))
      r.fail("mlp_only_layers: only [] is modelled (dense blocks by list are not)");
  }
  // The gate on the Gated DeltaNet's normed output (Qwen3.6 writes output_gate_type 'swish'):
  // SiLU, as Qwen3-Next's gated RMSNorm applies it; another would change the kernel, not a count.
  if (r.has("output_gate_type")) {
    const std::string gate = r.string("output_gate_type", "swish");
    if (gate != "swish" && gate != "silu")
      r.fail(r.name("output_gate_type") + ": '" + gate + "' is not modelled (swish or silu)");
  }
  s.mtp_layers = r.integer("mtp_num_hidden_layers", 0, 0, 64);
  if (r.boolean("mtp_use_dedicated_embeddings", false))
    r.fail("mtp_use_dedicated_embeddings: true is not modelled (MTP shares the embedding)");
  const int64_t every = r.integer("full_attention_interval", 4, 1, kMax);
  std::vector<bool> full;
  if (const nlohmann::json* types = r.value("layer_types", false); types && !types->is_null()) {
    for (const auto& x : types->is_array() ? *types : nlohmann::json::array()) {
      if (x != "linear_attention" && x != "full_attention")
        return make_error(
            Errc::schema_error,
            where + ": layer_types: expected 'linear_attention' or " + "'full_attention' entries");
      full.push_back(x == "full_attention");
    }
  } else {
    for (int64_t i = 0; i < s.layers; ++i) full.push_back((i + 1) % every == 0);
  }
  if (static_cast<int64_t>(full.size()) != s.layers) {
    r.fail("layer_types: " + std::to_string(full.size()) + " entries for num_hidden_layers " +
           std::to_string(s.layers));
  } else if (const int64_t n = global_every(full); n == -2) {
    r.fail("layer_types: a pattern gpuplan cannot express (full attention in every n-th block)");
  } else {
    s.full_attention_every = n == -1 ? 1 : n;  // -1: every block full; 0: none
  }
  return check_unknown_fields(j, where, type,
                              with_decoder_fields({"attn_output_gate",
                                                   "linear_num_key_heads",
                                                   "linear_num_value_heads",
                                                   "linear_key_head_dim",
                                                   "linear_value_head_dim",
                                                   "linear_conv_kernel_dim",
                                                   "num_experts",
                                                   "num_experts_per_tok",
                                                   "moe_intermediate_size",
                                                   "shared_expert_intermediate_size",
                                                   "decoder_sparse_step",
                                                   "mlp_only_layers",
                                                   "mtp_num_hidden_layers",
                                                   "mtp_use_dedicated_embeddings",
                                                   "full_attention_interval",
                                                   "layer_types",
                                                   "mamba_ssm_dtype",
                                                   "use_sliding_window",
                                                   "sliding_window",
                                                   "output_gate_type"}));
}

// Nemotron-H's layer kinds as one pattern (model.h): hybrid_override_pattern, or the
// layers_block_type list later configs write instead ("mamba", "attention", "mlp", "moe").
std::string read_nemotron_pattern(JsonReader& r, const char* pattern_key, const char* list_key) {
  if (r.has(pattern_key)) return r.string(pattern_key, "");
  const nlohmann::json* list = r.value(list_key, true);
  if (!list) return "";
  std::string pattern;
  for (const auto& x : list->is_array() ? *list : nlohmann::json()) {
    const char kind = x == "mamba"       ? 'M'
                      : x == "attention" ? '*'
                      : x == "mlp"       ? '-'
                      : x == "moe"       ? 'E'
                                         : '?';
    if (kind == '?') {
      r.fail(std::string(list_key) + ": expected 'mamba', 'attention', 'mlp' or 'moe' entries");
      return "";
    }
    pattern += kind;
  }
  if (pattern.empty()) r.fail(std::string(list_key) + ": expected a non-empty array");
  return pattern;
}

// Nemotron-H and Nemotron 3 (transformers' NemotronHConfig, model_type nemotron_h): single-purpose
// layers behind one RMSNorm each, Mamba-2 mixers, attention without positional encoding, squared-
// ReLU MLPs (ungated) and, in Nemotron 3, MoE layers of routed experts (a LatentMoE in Super and
// Ultra) with one shared expert and a router with a correction bias, and an MTP module whose
// pattern must be attention then MoE (the shape gpuplan's MTP module has).
std::optional<Error> read_nemotron_h(JsonReader& r, const nlohmann::json& j, TransformerSpec& s,
                                     const std::string& where) {
  s.layer_pattern = read_nemotron_pattern(r, "hybrid_override_pattern", "layers_block_type");
  s.layers = r.integer("num_hidden_layers", static_cast<int64_t>(s.layer_pattern.size()), 1, kMax);
  s.hidden = r.integer("hidden_size", std::nullopt, 1, kMax);
  s.heads = r.integer("num_attention_heads", std::nullopt, 1, kMax);
  s.kv_heads = r.integer("num_key_value_heads", s.heads, 1, kMax);
  s.head_dim = r.has("head_dim") ? nullable_integer(r, "head_dim", 0, kMax)
                                 : nullable_integer(r, "attention_head_dim", 0, kMax);
  s.ffn_hidden = r.integer("intermediate_size", std::nullopt, 1, kMax);
  s.vocab = r.integer("vocab_size", std::nullopt, 1, kMax);
  s.max_positions = r.integer("max_position_embeddings", 4096, 1, 1'000'000'000);
  s.tied_embeddings = r.boolean("tie_word_embeddings", false);
  s.positions = PositionKind::none;  // NemotronHAttention applies no rotary embedding
  s.norm = NormKind::rmsnorm;
  s.norm_bias = false;
  s.head = HeadKind::lm;
  s.qkv_bias = s.attn_out_bias = r.boolean("attention_bias", false);
  s.mlp_bias = r.boolean("mlp_bias", false);
  if (const std::string act = r.string("mlp_hidden_act", "relu2"); act != "relu2")
    r.fail("mlp_hidden_act: '" + act + "' is not modelled for nemotron_h (relu2)");
  s.activation = MlpActivation::relu2;
  s.linear_mixer = LinearMixer::mamba2;
  s.linear_value_heads = r.integer("mamba_num_heads", std::nullopt, 1, kMax);
  s.linear_value_head_dim = r.integer("mamba_head_dim", std::nullopt, 1, kMax);
  s.linear_key_heads = r.integer("n_groups", 1, 1, kMax);
  s.linear_key_head_dim = r.integer("ssm_state_size", std::nullopt, 1, kMax);
  s.linear_conv_kernel = r.integer("conv_kernel", 4, 1, 64);
  s.linear_conv_bias = r.boolean("use_conv_bias", true);
  s.linear_chunk = r.integer("chunk_size", 0, 1, 1'000'000);  // absent: Mamba-2's default
  s.linear_state_fp32 = r.string("mamba_ssm_cache_dtype", "") == "float32";
  if (r.boolean("use_bias", false) || r.boolean("mamba_proj_bias", false))
    r.fail("use_bias: true is not modelled (Mamba-2 projections without bias)");
  if (s.pattern_count('E') > 0) {
    s.experts = r.integer("n_routed_experts", std::nullopt, 2, 100'000);
    s.experts_per_token = r.integer("num_experts_per_tok", std::nullopt, 1, 100'000);
    s.moe_ffn_hidden = r.integer("moe_intermediate_size", std::nullopt, 1, kMax);
    s.shared_experts = r.integer("n_shared_experts", 1, 0, 100'000);
    s.shared_expert_ffn_hidden =
        r.integer("moe_shared_expert_intermediate_size", std::nullopt, 1, kMax);
    s.moe_latent = nullable_integer(r, "moe_latent_size", 0, kMax);
    s.router_bias = true;  // NemotronHTopkRouter's e_score_correction_bias
  }
  s.mtp_layers = r.integer("num_nextn_predict_layers", 0, 0, 64);
  if (s.mtp_layers > 0) {
    const std::string mtp =
        read_nemotron_pattern(r, "mtp_hybrid_override_pattern", "mtp_layers_block_type");
    if (mtp != "*E")
      r.fail("mtp_hybrid_override_pattern: '" + mtp + "' is not modelled (only '*E')");
  }
  if (nullable_integer(r, "sliding_window", 0, 1'000'000'000) > 0)
    r.fail("sliding_window: windows are not modelled for nemotron_h");
  return check_unknown_fields(
      j, where, "nemotron_h",
      with_decoder_fields(
          {"hybrid_override_pattern", "layers_block_type", "attention_head_dim", "mlp_hidden_act",
           "mamba_num_heads", "mamba_head_dim", "n_groups", "ssm_state_size", "conv_kernel",
           "use_conv_bias", "chunk_size", "mamba_ssm_cache_dtype", "use_bias", "mamba_proj_bias",
           "n_routed_experts", "moe_intermediate_size", "n_shared_experts",
           "moe_shared_expert_intermediate_size", "moe_latent_size", "num_experts_per_tok",
           "num_nextn_predict_layers", "mtp_hybrid_override_pattern", "mtp_layers_block_type",
           "sliding_window", "hidden_dropout",
           // Mamba-2's dt initialisation and clamp, its gate's activation (SiLU), the expansion
           // its heads already state, kernel and residual choices: no count changes.
           "mamba_hidden_act", "expand", "time_step_min", "time_step_max", "time_step_floor",
           "time_step_limit", "time_step_rank", "use_mamba_kernels", "rescale_prenorm_residual",
           "residual_in_fp32", "layer_norm_epsilon", "num_logits_to_keep",
           "moe_shared_expert_overlap"}));
}

// Llama 4's text model (Llama4TextConfig, inside text_config): 3 of 4 blocks attend within
// chunks with RoPE, every no_rope_layer_interval-th block globally without; routed experts of
// intermediate_size plus one shared expert in the blocks interleave_moe_layer_step picks, the
// other blocks dense of intermediate_size_mlp.
std::optional<Error> read_llama4_text(JsonReader& r, const nlohmann::json& j, TransformerSpec& s,
                                      const std::string& where) {
  read_decoder(r, s);
  s.moe_ffn_hidden = s.ffn_hidden;
  s.ffn_hidden = r.integer("intermediate_size_mlp", std::nullopt, 1, kMax);
  s.experts = r.integer("num_local_experts", std::nullopt, 1, 100'000);
  s.experts_per_token = r.integer("num_experts_per_tok", std::nullopt, 1, 100'000);
  s.shared_experts = 1;  // Llama4TextMoe.shared_expert
  s.moe_layer_step = r.integer("interleave_moe_layer_step", 1, 1, kMax);
  if (const nlohmann::json* moe = r.value("moe_layers", false); moe && !moe->is_null()) {
    std::vector<bool> is_moe(static_cast<size_t>(std::max<int64_t>(s.layers, 0)), false);
    for (const auto& i : moe->is_array() ? *moe : nlohmann::json::array()) {
      if (i.is_number_integer() && i.get<int64_t>() >= 0 && i.get<int64_t>() < s.layers)
        is_moe[static_cast<size_t>(i.get<int64_t>())] = true;
    }
    const int64_t want = s.moe_layer_step == 1 ? -1 : s.moe_layer_step;
    if (global_every(is_moe) != want)
      r.fail("moe_layers: only every interleave_moe_layer_step-th block is modelled");
  }
  if (r.boolean("use_qk_norm", false)) s.qk_norm = QkNorm::l2;  // Llama4TextL2Norm: no weight
  s.sliding_window = nullable_integer(r, "attention_chunk_size", 0, 1'000'000'000);
  s.local_attention = LocalAttention::chunked;
  std::vector<bool> global;
  if (const nlohmann::json* nope = r.value("no_rope_layers", false);
      nope && nope->is_array() && !nope->empty()) {
    for (const auto& x : *nope) global.push_back(x == 0);  // 0: no RoPE, global attention
  } else {
    const int64_t every = r.integer("no_rope_layer_interval", 4, 1, kMax);
    for (int64_t i = 0; i < s.layers; ++i) global.push_back((i + 1) % every == 0);
  }
  r.ignore("no_rope_layer_interval");
  if (s.sliding_window > 0) set_window_pattern(r, s, global, "no_rope_layers");
  return check_unknown_fields(
      j, where, "llama4",
      with_decoder_fields({"intermediate_size_mlp", "num_local_experts", "num_experts_per_tok",
                           "interleave_moe_layer_step", "moe_layers", "use_qk_norm",
                           "attention_chunk_size", "no_rope_layers", "no_rope_layer_interval"}));
}

// Dropout as transformers' configs spell it: a probability > 0 keeps a mask per element in
// training. The first key present in each list wins; absent: `fallback` (the class default).
void read_dropout(JsonReader& r, TransformerSpec& s, std::initializer_list<const char*> hidden,
                  std::initializer_list<const char*> attention, double fallback) {
  auto first = [&](std::initializer_list<const char*> keys) {
    for (const char* k : keys) {
      if (r.has(k) && !r.value(k, false)->is_null()) return r.number(k, fallback, 0.0, 1.0);
    }
    return fallback;
  };
  s.dropout = first(hidden) > 0;
  s.attention_dropout = first(attention) > 0;
}

// MosaicML MPT (llm-foundry configuration_mpt.py): LayerNorm blocks with a GELU MLP of
// expansion_ratio x d_model, tied embeddings, learned positions unless ALiBi replaces them.
void read_mpt(JsonReader& r, TransformerSpec& s) {
  s.layers = r.integer("n_layers", std::nullopt, 1, kMax);
  s.hidden = r.integer("d_model", std::nullopt, 1, kMax);
  s.heads = r.integer("n_heads", std::nullopt, 1, kMax);
  s.fused_qkv = true;  // Wqkv
  s.ffn_hidden = static_cast<int64_t>(r.number("expansion_ratio", 4.0, 0.01, 1000.0) *
                                      static_cast<double>(s.hidden));
  s.vocab = r.integer("vocab_size", std::nullopt, 1, kMax);
  s.max_positions = r.integer("max_seq_len", 2048, 1, 1'000'000'000);
  const bool bias = !r.boolean("no_bias", false);
  s.qkv_bias = s.attn_out_bias = s.mlp_bias = s.norm_bias = bias;
  s.tied_embeddings = true;
  s.activation = MlpActivation::gelu;
  s.norm = NormKind::layernorm;
  s.head = HeadKind::lm;
  bool alibi = false;
  double attn_pdrop = 0.0;
  if (const nlohmann::json* attn = r.value("attn_config", false); attn && attn->is_object()) {
    alibi = attn->value("alibi", false);
    const auto p = attn->find("attn_pdrop");
    if (p != attn->end() && p->is_number()) attn_pdrop = p->get<double>();
    const auto kv = attn->find("kv_n_heads");
    if (kv != attn->end() && kv->is_number_integer() && kv->get<int64_t>() > 0)
      s.kv_heads = kv->get<int64_t>();
  }
  s.positions =
      r.boolean("learned_pos_emb", true) && !alibi ? PositionKind::learned : PositionKind::none;
  read_dropout(r, s, {"resid_pdrop", "emb_pdrop"}, {}, 0.0);
  s.attention_dropout = attn_pdrop > 0;
}

// Falcon (transformers' FalconConfig; TII's first RW configs spell the sizes n_layer, n_head,
// n_head_kv and n_embed, which FalconConfig maps). Attention and MLP run in parallel from the
// block's input; gpuplan counts a LayerNorm for each, which is the new decoder architecture
// (Falcon-40B/180B: ln_attn and ln_mlp) and one norm per block too many for Falcon-7B. The old
// architecture has one key/value head with multi_query, else as many as queries (FalconAttention).
void read_falcon(JsonReader& r, TransformerSpec& s) {
  auto spelled = [&](const char* name, const char* rw_name) {
    return r.has(name) || !r.has(rw_name) ? name : rw_name;
  };
  s.layers = r.integer(spelled("num_hidden_layers", "n_layer"), std::nullopt, 1, kMax);
  s.hidden = r.integer(spelled("hidden_size", "n_embed"), std::nullopt, 1, kMax);
  s.heads = r.integer(spelled("num_attention_heads", "n_head"), std::nullopt, 1, kMax);
  const int64_t kv_heads = nullable_integer(r, spelled("num_kv_heads", "n_head_kv"), 0, kMax);
  const bool new_architecture = r.boolean("new_decoder_architecture", false);
  if (new_architecture || !r.boolean("multi_query", true)) {
    s.kv_heads = kv_heads > 0 ? kv_heads : s.heads;
  } else {
    s.kv_heads = 1;
  }
  const int64_t ffn = nullable_integer(r, "ffn_hidden_size", 0, kMax);
  s.ffn_hidden = ffn > 0 ? ffn : 4 * s.hidden;
  const std::string act = r.string("activation", "gelu");
  if (act.rfind("gelu", 0) == 0) {
    s.activation = MlpActivation::gelu;
  } else if (act == "relu") {
    s.activation = MlpActivation::relu;
  } else {
    r.fail("activation: '" + act + "' is not modelled for falcon (gelu or relu)");
  }
  s.vocab = r.integer("vocab_size", 65024, 1, kMax);
  s.max_positions = r.integer("max_position_embeddings", 2048, 1, 1'000'000'000);
  const bool bias = r.boolean("bias", false);
  s.qkv_bias = s.attn_out_bias = s.mlp_bias = bias;
  s.tied_embeddings = r.boolean("tie_word_embeddings", true);
  s.positions = r.boolean("alibi", false) ? PositionKind::none : PositionKind::rotary;
  read_rope(r, s);
  s.norm = NormKind::layernorm;
  s.head = HeadKind::lm;
  read_dropout(r, s, {"hidden_dropout"}, {"attention_dropout"}, 0.0);
}

// GPT-2 (transformers' GPT2Config).
void read_gpt2(JsonReader& r, Model& m) {
  TransformerSpec& s = m.transformer;
  s.layers = r.integer("n_layer", std::nullopt, 1, kMax);
  s.hidden = r.integer("n_embd", std::nullopt, 1, kMax);
  s.heads = r.integer("n_head", std::nullopt, 1, kMax);
  const nlohmann::json* inner = r.value("n_inner", false);
  s.ffn_hidden = inner && !inner->is_null() ? r.integer("n_inner", 0, 1, kMax) : 4 * s.hidden;
  s.vocab = r.integer("vocab_size", std::nullopt, 1, kMax);
  s.max_positions = r.integer("n_positions", std::nullopt, 1, kMax);
  s.tied_embeddings = r.boolean("tie_word_embeddings", true);
  s.qkv_bias = s.attn_out_bias = s.mlp_bias = true;
  s.fused_qkv = true;  // c_attn
  read_dropout(r, s, {"resid_pdrop", "embd_pdrop"}, {"attn_pdrop"}, 0.1);
  m.task = "causal-lm";
  m.default_seq_len = s.max_positions;
}

// BERT (BertConfig): post-norm blocks, segment embeddings, an MLM head transform.
void read_bert(JsonReader& r, Model& m) {
  TransformerSpec& s = m.transformer;
  s.layers = r.integer("num_hidden_layers", std::nullopt, 1, kMax);
  s.hidden = r.integer("hidden_size", std::nullopt, 1, kMax);
  s.heads = r.integer("num_attention_heads", std::nullopt, 1, kMax);
  s.ffn_hidden = r.integer("intermediate_size", std::nullopt, 1, kMax);
  s.vocab = r.integer("vocab_size", std::nullopt, 1, kMax);
  s.max_positions = r.integer("max_position_embeddings", std::nullopt, 1, kMax);
  s.token_types = r.integer("type_vocab_size", 2, 0, kMax);
  s.embedding_norm = true;
  s.final_norm = false;  // post-norm blocks: the last block ends in a norm already
  s.qkv_bias = s.attn_out_bias = s.mlp_bias = true;
  s.tied_embeddings = true;
  // BertForMaskedLM builds BertModel without its pooler (transformers, modeling_bert.py).
  s.pooler = true;
  if (const auto* arch = r.value("architectures", false); arch && arch->is_array()) {
    for (const auto& a : *arch) {
      if (a == "BertForMaskedLM") s.pooler = false;
    }
  }
  s.lm_head_transform = true;
  s.lm_head_bias = true;
  read_dropout(r, s, {"hidden_dropout_prob"}, {"attention_probs_dropout_prob"}, 0.1);
  m.task = "masked-lm";
  m.default_seq_len = std::min<int64_t>(s.max_positions, 512);
}

// ViT (ViTConfig): patches plus a class token; a classifier when the config names labels.
void read_vit(JsonReader& r, Model& m) {
  TransformerSpec& s = m.transformer;
  s.layers = r.integer("num_hidden_layers", std::nullopt, 1, kMax);
  s.hidden = r.integer("hidden_size", std::nullopt, 1, kMax);
  s.heads = r.integer("num_attention_heads", std::nullopt, 1, kMax);
  s.ffn_hidden = r.integer("intermediate_size", std::nullopt, 1, kMax);
  s.image_size = r.integer("image_size", std::nullopt, 1, 100'000);
  s.patch_size = r.integer("patch_size", std::nullopt, 1, 100'000);
  s.channels = r.integer("num_channels", 3, 1, 1000);
  s.qkv_bias = r.boolean("qkv_bias", true);
  s.attn_out_bias = s.mlp_bias = true;
  s.class_token = true;
  s.positions = PositionKind::learned;
  read_dropout(r, s, {"hidden_dropout_prob"}, {"attention_probs_dropout_prob"}, 0.0);
  const nlohmann::json* labels = r.value("id2label", false);
  if (labels && labels->is_object() && !labels->empty()) {
    s.head = HeadKind::classifier;
    s.num_classes = static_cast<int64_t>(labels->size());
  } else {
    s.head = HeadKind::none;
  }
  s.final_norm = true;
  m.task = "image-classification";
  m.default_resolution = s.image_size;
}

}  // namespace

namespace {

constexpr const char* kSupported =
    "llama, mistral, mixtral, qwen2, qwen3, qwen3_moe, deepseek_v2, deepseek_v3, deepseek_v32, "
    "deepseek_v4, kimi_k2, gpt_oss, llama4, llama4_text, glm4_moe, glm_moe_dsa, hy_v3, minimax_m2, "
    "nemotron, "
    "kimi_k25, qwen3_next, qwen3_5, qwen3_5_text, qwen3_5_moe, qwen3_5_moe_text, nemotron_h, "
    "qwen3_vl, qwen3_vl_text, qwen3_vl_moe, qwen3_vl_moe_text, gemma2, gemma3, gemma3_text, "
    "gemma4, gemma4_text, step3p7, mimo, mimo_v2_flash, nemotron-nas, "
    "falcon, gpt2, bert, vit, mpt";

// The decoders of 2024-26 (strict: an unknown field is refused); `j` is the object `r` reads.
std::optional<Error> read_modern_decoder(JsonReader& r, const nlohmann::json& j, Model& m,
                                         const std::string& type, const std::string& where) {
  TransformerSpec& s = m.transformer;
  std::optional<Error> unknown;
  if (type == "llama" || type == "mistral" || type == "mixtral" || type == "qwen2" ||
      type == "qwen3" || type == "qwen3_moe" || type == "qwen3_vl_text" ||
      type == "qwen3_vl_moe_text" || type == "mimo") {
    unknown = read_llama_like(r, j, s, type, where);
  } else if (type == "deepseek_v3" || type == "deepseek_v2" || type == "kimi_k2" ||
             type == "deepseek_v32" || type == "glm_moe_dsa") {
    unknown = read_deepseek(r, j, s, type, where);
  } else if (type == "deepseek_v4" || type == "deepseek_ref") {
    unknown = read_deepseek_v4(r, j, s, type, where);
  } else if (type == "gpt_oss") {
    unknown = read_gpt_oss(r, j, s, where);
  } else if (type == "glm4_moe") {
    unknown = read_glm4_moe(r, j, s, where);
  } else if (type == "hy_v3") {
    unknown = read_hy_v3(r, j, s, where);
  } else if (type == "minimax_m2") {
    unknown = read_minimax_m2(r, j, s, where);
  } else if (type == "nemotron") {
    unknown = read_nemotron(r, j, s, where);
  } else if (type == "nemotron_h") {
    unknown = read_nemotron_h(r, j, s, where);
  } else if (type == "qwen3_next" || type == "qwen3_5_moe_text" || type == "qwen3_5_text") {
    unknown = read_qwen3_next(r, j, s, type, where);
  } else if (type == "gemma3_text" || type == "gemma2") {
    unknown = read_gemma_text(r, j, s, type, where);
  } else if (type == "gemma4_text") {
    unknown = read_gemma4_text(r, j, s, where);
  } else if (type == "step3p7") {
    unknown = read_step3p7(r, j, s, where);
  } else if (type == "mimo_v2_flash") {
    unknown = read_mimo_v2_flash(r, j, s, where);
  } else if (type == "nemotron-nas") {
    unknown = read_decilm(r, j, s, where);
  } else {
    unknown = read_llama4_text(r, j, s, where);
  }
  read_dropout(r, s, {}, {"attention_dropout"}, 0.0);
  refuse_pretrained_config_changes(r);
  m.task = "causal-lm";
  m.default_seq_len = std::min<int64_t>(s.max_positions, 4096);
  if (r.error()) return r.error();
  return unknown;
}

bool is_modern_decoder(const std::string& type) {
  for (const char* t : {"llama",        "mistral",       "mixtral",           "qwen2",
                        "qwen3",        "qwen3_moe",     "deepseek_v2",       "deepseek_v3",
                        "deepseek_v32", "kimi_k2",       "gpt_oss",           "glm4_moe",
                        "glm_moe_dsa",  "hy_v3",         "minimax_m2",        "llama4_text",
                        "nemotron",     "qwen3_next",    "qwen3_5_moe_text",  "qwen3_5_text",
                        "nemotron_h",   "qwen3_vl_text", "qwen3_vl_moe_text", "gemma3_text",
                        "gemma2",       "deepseek_v4",   "gemma4_text",       "step3p7",
                        "mimo",         "mimo_v2_flash", "nemotron-nas"}) {
    if (type == t) return true;
  }
  return false;
}

// Multimodal configs whose language model is text_config (Llama4Config, Qwen3.5's
// Qwen3_5MoeConfig and Qwen3_5Config, Kimi K2.5's KimiK25Config, Qwen3-VL's Qwen3VLConfig and
// Qwen3VLMoeConfig, whose DeepStack adds visual features to early blocks' hidden states without
// weights of the language model; Gemma 3's Gemma3Config; Gemma 4's Gemma4Config, whose audio
// encoder is left out too): the vision encoder is left out; the outer config's image, video and
// audio token ids and placeholders change no count.
std::optional<Error> read_text_config(JsonReader& r, const nlohmann::json& j, Model& m,
                                      const std::string& type, const std::string& text_type,
                                      const std::string& where) {
  const nlohmann::json* text = r.object("text_config", true);
  r.ignore("vision_config");
  if (r.error()) return r.error();
  std::vector<const char*> known = {"text_config",
                                    "vision_config",
                                    "tie_word_embeddings",
                                    "image_token_id",
                                    "video_token_id",
                                    "vision_start_token_id",
                                    "vision_end_token_id",
                                    "ignore_index",
                                    "media_placeholder_token_id",
                                    "use_unified_vision_chunk",
                                    "video_placeholder",
                                    "language_model_only",
                                    "mm_tokens_per_image"};
  if (type == "gemma4") {  // its audio encoder and the token ids around images and audio
    known.insert(known.end(), {"audio_config", "audio_token_id", "boa_token_id", "eoa_token_id",
                               "eoa_token_index", "boi_token_id", "eoi_token_id",
                               "vision_soft_tokens_per_image"});
  }
  if (auto err = check_unknown_fields(j, where, type, known)) return err;
  JsonReader tr(*text, where, "text_config");
  if (tr.error()) return tr.error();
  auto err = read_modern_decoder(tr, *text, m, text_type, where);
  // Qwen3-VL-8B states tie_word_embeddings on the outer config only (false), which is where
  // transformers reads it for these wrappers; a text_config that states it keeps its own.
  if (!err && !text->contains("tie_word_embeddings") && r.has("tie_word_embeddings"))
    m.transformer.tied_embeddings = r.boolean("tie_word_embeddings", false);
  return err ? err : r.error();
}

// The weight format a config's quantization_config states, "" for 16 bits or one gpuplan does
// not read: DeepSeek's block-scaled fp8 and GPT-OSS's MXFP4 experts (quant_method fp8, mxfp4);
// DeepSeek-V4's fp8 with FP4 experts (expert_dtype fp4, beside the quantization_config: MXFP4,
// or NVFP4 where NVIDIA's requantisation says moe_quant_algo NVFP4) as mxfp4-fp8, nvfp4-fp8;
// compressed-tensors with 4-bit integer weights (Kimi K2.5: group_size 32, symmetric) as
// int4-experts where its ignore list keeps attention in 16 bits (with the shared experts and
// dense MLPs, as Kimi K2.5's does), else int4.
std::string checkpoint_weight_format(const nlohmann::json* q, const std::string& expert_dtype) {
  // Typed reads that give "" or 0 for a missing or mistyped field (an upload may hold anything).
  auto text = [](const nlohmann::json& o, const char* key) {
    const auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  auto integer = [](const nlohmann::json& o, const char* key) {
    const auto it = o.find(key);
    return it != o.end() && it->is_number_integer() ? it->get<int64_t>() : int64_t{0};
  };
  if (!q || !q->is_object()) return "";
  const std::string method = text(*q, "quant_method");
  if (method == "fp8" && expert_dtype == "fp4")
    return text(*q, "moe_quant_algo") == "NVFP4" ? "nvfp4-fp8" : "mxfp4-fp8";
  if (method == "fp8" || method == "mxfp4") return method;
  if (method != "compressed-tensors") return "";
  const auto groups = q->find("config_groups");
  if (groups == q->end() || !groups->is_object() || groups->size() != 1 ||
      !groups->begin()->is_object())
    return "";
  const auto weights = groups->begin()->find("weights");
  if (weights == groups->begin()->end() || !weights->is_object() ||
      integer(*weights, "num_bits") != 4 || text(*weights, "type") != "int")
    return "";
  const auto ignore = q->find("ignore");
  if (ignore != q->end() && ignore->is_array()) {
    for (const auto& pattern : *ignore) {
      if (pattern.is_string() &&
          pattern.get_ref<const std::string&>().find("self_attn") != std::string::npos)
        return "int4-experts";
    }
  }
  return "int4";
}

// transformers writes config.json with Python's json module, which spells non-finite floats
// NaN, Infinity and -Infinity (Nemotron-H's time_step_limit: [0.0, Infinity]); JSON has no such
// numbers. Outside strings each becomes a string marked with kPythonFloatMark: a field gpuplan
// ignores may hold one, and a field it reads refuses it by name ("expected an integer, got NaN").
std::string python_float_literals_as_strings(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (std::string_view word : {"-Infinity", "Infinity", "NaN"}) {
      if (text.substr(i, word.size()) == word) {
        out += "\"\\u0001" + std::string(word) + "\"";
        i += word.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

}  // namespace

Result<Model> model_from_hf_config(std::string_view text, const std::string& where) {
  if (text.size() > kMaxJsonBytes) return parse_json_text(text, where, kMaxJsonBytes).error();
  const std::string json = python_float_literals_as_strings(text);
  auto parsed = parse_json_text(json, where, kMaxJsonBytes);
  if (!parsed.ok()) return parsed.error();
  JsonReader r(parsed.value(), where);
  if (r.error()) return *r.error();
  const std::string type = r.string("model_type", std::nullopt);
  if (r.error()) return *r.error();

  Model m;
  TransformerSpec& s = m.transformer;
  m.kind = ModelKind::transformer;
  m.source = {"uploaded Hugging Face config.json (" + where + ")", "", ""};
  std::string what = type + ", uploaded config";
  if (type == "deepseek_ref") {
    // SGLang's DeepSeek-V4 checkpoints name their configs so; the architecture says what it is.
    const nlohmann::json* arch = r.value("architectures", false);
    const bool v4 = arch && arch->is_array() && arch->size() == 1 && (*arch)[0].is_string() &&
                    (*arch)[0].get<std::string>() == "DeepseekV4ForCausalLM";
    if (!v4)
      return make_error(Errc::schema_error,
                        where +
                            ": model_type 'deepseek_ref' is supported for architectures "
                            "[\"DeepseekV4ForCausalLM\"] only");
    if (auto err = read_modern_decoder(r, parsed.value(), m, type, where)) return *err;
  } else if (is_modern_decoder(type)) {
    if (auto err = read_modern_decoder(r, parsed.value(), m, type, where)) return *err;
  } else if (type == "llama4" || type == "qwen3_5_moe" || type == "qwen3_5" || type == "kimi_k25" ||
             type == "qwen3_vl" || type == "qwen3_vl_moe" || type == "gemma3" || type == "gemma4") {
    // llama4_text, qwen3_5_text, qwen3_5_moe_text; Kimi K2.5's language model is Kimi K2's.
    const std::string text_type = type == "kimi_k25" ? "kimi_k2" : type + "_text";
    if (auto err = read_text_config(r, parsed.value(), m, type, text_type, where)) return *err;
    what = type + " text model without the vision encoder, uploaded config";
  } else if (type == "gpt2") {
    read_gpt2(r, m);
  } else if (type == "bert") {
    read_bert(r, m);
  } else if (type == "vit") {
    read_vit(r, m);
  } else if (type == "falcon" || type == "RefinedWeb" || type == "RefinedWebModel") {
    read_falcon(r, s);
    m.task = "causal-lm";
    m.default_seq_len = std::min<int64_t>(s.max_positions, 2048);
  } else if (type == "mpt") {
    read_mpt(r, s);
    m.task = "causal-lm";
    m.default_seq_len = s.max_positions;
  } else {
    return make_error(Errc::schema_error, Msg::config_model_type, {where, type, kSupported});
  }
  if (r.error()) return *r.error();
  if (auto err = validate_transformer(s, where)) return *err;

  // The published checkpoint's weight format (its quantization_config, in text_config for the
  // multimodal wrappers), which serving runs where no other is asked for.
  const nlohmann::json* q = r.value("quantization_config", false);
  if (!q || !q->is_object()) {
    const auto text_config = parsed.value().find("text_config");
    if (text_config != parsed.value().end() && text_config->is_object()) {
      const auto inner = text_config->find("quantization_config");
      if (inner != text_config->end()) q = &*inner;
    }
  }
  const auto expert_dtype = parsed.value().find("expert_dtype");  // DeepSeek-V4's
  m.checkpoint_weights =
      checkpoint_weight_format(q, expert_dtype != parsed.value().end() && expert_dtype->is_string()
                                      ? expert_dtype->get<std::string>()
                                      : std::string());
  std::string name = r.has("_name_or_path") ? r.string("_name_or_path", "") : "";
  if (name.empty()) name = where;
  m.id = "hf:" + name;
  m.name = name + " (" + what + ")";
  return m;
}

}  // namespace gpuplan
