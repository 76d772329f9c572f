#include "gpuplan/hf_config.h"

#include <initializer_list>

#include "gpuplan/catalog.h"
#include "catalog/json_reader.h"

namespace gpuplan {
namespace {

constexpr int64_t kMax = 10'000'000;

// Reads the fields shared by the LLaMA-like decoders (LLaMA, Mistral, Mixtral, Qwen2).
void read_llama_like(JsonReader& r, TransformerSpec& s, const std::string& type) {
  s.layers = r.integer("num_hidden_layers", std::nullopt, 1, kMax);
  s.hidden = r.integer("hidden_size", std::nullopt, 1, kMax);
  s.heads = r.integer("num_attention_heads", std::nullopt, 1, kMax);
  s.kv_heads = r.integer("num_key_value_heads", s.heads, 1, kMax);
  s.head_dim = r.has("head_dim") && !r.value("head_dim", false)->is_null()
                   ? r.integer("head_dim", 0, 0, kMax)
                   : 0;
  s.ffn_hidden = r.integer("intermediate_size", std::nullopt, 1, kMax);
  s.vocab = r.integer("vocab_size", std::nullopt, 1, kMax);
  s.max_positions = r.integer("max_position_embeddings", 4096, 1, 1'000'000'000);
  s.tied_embeddings = r.boolean("tie_word_embeddings", false);
  s.gated_mlp = true;
  s.activation = MlpActivation::silu;
  s.positions = PositionKind::rotary;
  s.norm = NormKind::rmsnorm;
  s.norm_bias = false;
  s.head = HeadKind::lm;
  s.qkv_bias = type == "qwen2" || r.boolean("attention_bias", false);
  s.mlp_bias = r.boolean("mlp_bias", false);
  if (type == "mixtral") {
    s.experts = r.integer("num_local_experts", std::nullopt, 1, 100'000);
    s.experts_per_token = r.integer("num_experts_per_tok", std::nullopt, 1, 100'000);
  }
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

Result<Model> model_from_hf_config(std::string_view text, const std::string& where) {
  auto parsed = parse_json_text(text, where, kMaxJsonBytes);
  if (!parsed.ok()) return parsed.error();
  JsonReader r(parsed.value(), where);
  if (r.error()) return *r.error();
  const std::string type = r.string("model_type", std::nullopt);
  if (r.error()) return *r.error();

  Model m;
  TransformerSpec& s = m.transformer;
  m.kind = ModelKind::transformer;
  m.source = {"uploaded Hugging Face config.json (" + where + ")", "", ""};
  if (type == "llama" || type == "mistral" || type == "mixtral" || type == "qwen2") {
    read_llama_like(r, s, type);
    read_dropout(r, s, {}, {"attention_dropout"}, 0.0);
    m.task = "causal-lm";
    m.default_seq_len = std::min<int64_t>(s.max_positions, 4096);
  } else if (type == "gpt2") {
    read_gpt2(r, m);
  } else if (type == "bert") {
    read_bert(r, m);
  } else if (type == "vit") {
    read_vit(r, m);
  } else if (type == "mpt") {
    read_mpt(r, s);
    m.task = "causal-lm";
    m.default_seq_len = s.max_positions;
  } else {
    return make_error(Errc::schema_error, Msg::config_model_type,
                      {where, type, "llama, mistral, mixtral, qwen2, gpt2, bert, vit, mpt"});
  }
  if (r.error()) return *r.error();
  if (auto err = validate_transformer(s, where)) return *err;

  std::string name = r.has("_name_or_path") ? r.string("_name_or_path", "") : "";
  if (name.empty()) name = where;
  m.id = "hf:" + name;
  m.name = name + " (" + type + ", uploaded config)";
  return m;
}

}  // namespace gpuplan
