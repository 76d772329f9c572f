// Model descriptions: parsing data/models/*.json and checking transformer hyperparameters.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>

#include "gpuplan/catalog.h"
#include "gpuplan/accuracy.h"
#include "gpuplan/model.h"
#include "gpuplan/published.h"
#include "gpuplan/transformer.h"
#include "catalog/assumption_keys.h"
#include "workload/graph_builders.h"
#include "catalog/json_reader.h"
#include "catalog/model_names.h"

namespace gpuplan {
namespace {

constexpr int64_t kMaxDim = 1'000'000;
constexpr int64_t kMaxVocab = 10'000'000;
constexpr double kMaxParams = 1e14;  // 500x GPT-3 (1.75e11, Brown et al. 2020)

}  // namespace

namespace {

using Bad = std::function<Error(const std::string&, const std::string&)>;

// Mixture-of-experts detail: fields that only make sense with experts, and their ranges.
std::optional<Error> check_moe(const TransformerSpec& s, const Bad& bad) {
  if (!s.is_moe()) {
    if (s.moe_ffn_hidden > 0) return bad("moe_ffn_hidden", "applies to mixture-of-experts models");
    if (s.shared_experts > 0) return bad("shared_experts", "applies to mixture-of-experts models");
    if (s.shared_expert_gate)
      return bad("shared_expert_gate", "applies to mixture-of-experts models");
    if (s.first_dense_layers > 0)
      return bad("first_dense_layers", "applies to mixture-of-experts models");
    if (s.router_bias) return bad("router_bias", "applies to mixture-of-experts models");
    return std::nullopt;
  }
  if (s.experts_per_token < 1 || s.experts_per_token > s.experts)
    return bad("experts_per_token", "must be between 1 and experts");
  if (s.first_dense_layers < 0 || s.first_dense_layers > s.layers)
    return bad("first_dense_layers", "must be between 0 and layers");
  if (s.moe_layer_step < 1 || s.moe_layer_step > s.layers)
    return bad("moe_layer_step", "must be between 1 and layers");
  if (s.moe_ffn_hidden < 0 || s.shared_experts < 0 || s.shared_expert_ffn_hidden < 0)
    return bad("moe_ffn_hidden", "and the shared expert fields must be >= 0");
  if (s.shared_expert_gate && s.shared_experts == 0)
    return bad("shared_expert_gate", "needs shared_experts > 0");
  if (s.moe_layer_count() == 0)
    return bad("first_dense_layers", "and moe_layer_step leave no mixture-of-experts block");
  return std::nullopt;
}

// Linear-attention blocks (model.h): their head counts and widths, and what they do not combine
// with.
std::optional<Error> check_linear_attention(const TransformerSpec& s, const Bad& bad) {
  if (!s.is_hybrid_linear()) {
    if (s.linear_key_heads > 0 || s.linear_key_head_dim > 0 || s.linear_value_head_dim > 0 ||
        s.linear_conv_kernel > 0)
      return bad("linear_value_heads", "must be > 0 when the other linear_* fields are set");
    return std::nullopt;
  }
  if (s.linear_key_heads <= 0 || s.linear_key_head_dim <= 0 || s.linear_value_head_dim <= 0)
    return bad("linear_value_heads",
               "needs linear_key_heads, linear_key_head_dim and linear_value_head_dim > 0");
  if (s.linear_value_heads % s.linear_key_heads != 0)
    return bad("linear_value_heads", "(" + std::to_string(s.linear_value_heads) +
                                         ") must be a multiple of linear_key_heads (" +
                                         std::to_string(s.linear_key_heads) + ")");
  if (s.sliding_window > 0 || s.is_mla() || s.is_sparse_attention())
    return bad("linear_value_heads",
               "does not combine with a sliding_window, latent or sparse attention");
  if (s.decoder_layers > 0 || s.memory_len > 0 || s.is_vision() || s.head != HeadKind::lm)
    return bad("linear_value_heads", "applies to decoder-only language models");
  return std::nullopt;
}

// A layer pattern (model.h): its characters, its length, and the layer kinds the other fields
// describe.
std::optional<Error> check_layer_pattern(const TransformerSpec& s, const Bad& bad) {
  if (s.moe_latent > 0 && (!s.is_moe() || s.moe_latent >= s.hidden))
    return bad("moe_latent", "applies to mixture-of-experts models, below hidden");
  if (!s.has_layer_pattern()) {
    if (s.is_mamba()) return bad("linear_mixer", "mamba2 needs a layer_pattern");
    if (!s.mlp_widths.empty()) return bad("mlp_widths", "needs a layer_pattern");
    return std::nullopt;
  }
  if (!s.mlp_widths.empty() && static_cast<int64_t>(s.mlp_widths.size()) != s.pattern_count('-'))
    return bad("mlp_widths", "has " + std::to_string(s.mlp_widths.size()) +
                                 " widths for the layer_pattern's " +
                                 std::to_string(s.pattern_count('-')) + " MLP layers ('-')");
  if (std::any_of(s.mlp_widths.begin(), s.mlp_widths.end(), [](int64_t w) { return w < 1; }))
    return bad("mlp_widths", "must all be > 0");
  const size_t other = s.layer_pattern.find_first_not_of("M*-E");
  if (other != std::string::npos) {
    return bad("layer_pattern", "has '" + s.layer_pattern.substr(other, 1) + "' at " +
                                    std::to_string(other) +
                                    ": expected M (mamba), * (attention), - (MLP) or E (MoE)");
  }
  if (static_cast<int64_t>(s.layer_pattern.size()) != s.layers) {
    return bad("layer_pattern", "has " + std::to_string(s.layer_pattern.size()) +
                                    " layers where layers is " + std::to_string(s.layers));
  }
  if ((s.pattern_count('M') > 0) != s.is_hybrid_linear())
    return bad("layer_pattern", "needs 'M' layers exactly when linear_value_heads > 0");
  if ((s.pattern_count('E') > 0) != s.is_moe())
    return bad("layer_pattern", "needs 'E' layers exactly when experts > 1");
  if (s.attention_layer_count() + s.linear_layer_count() == 0)
    return bad("layer_pattern", "has no token mixer ('M' or '*')");
  if (s.decoder_layers > 0 || s.sliding_window > 0 || s.full_attention_every > 0 ||
      s.first_dense_layers > 0 || s.moe_layer_step != 1)
    return bad("layer_pattern",
               "does not combine with decoder_layers, sliding_window, full_attention_every, "
               "first_dense_layers or moe_layer_step (the pattern places every layer)");
  return std::nullopt;
}

// DeepSeek-V4's compressed attention and hyper-connections (model.h).
std::optional<Error> check_compressed_attention(const TransformerSpec& s, const Bad& bad) {
  if (s.hc_streams > 1 && (s.decoder_layers > 0 || s.head != HeadKind::lm))
    return bad("hc_streams", "applies to decoder-only language models");
  if (!s.is_compressed_attention()) {
    if (s.o_groups > 0 || s.csa_layers > 0 || s.csa_ratio > 0 || s.hca_layers > 0 ||
        s.hca_ratio > 0)
      return bad("o_lora_rank", "must be > 0 when o_groups or the csa_*/hca_* fields are set");
    return std::nullopt;
  }
  if (s.o_groups <= 0 || s.heads % s.o_groups != 0)
    return bad("o_groups", "must be > 0 and divide heads (" + std::to_string(s.heads) + ")");
  if (s.q_lora_rank <= 0) return bad("o_lora_rank", "needs a q_lora_rank (the query latent)");
  if (s.kv_heads != 1) return bad("o_lora_rank", "needs kv_heads 1 (one key-value head)");
  if (s.sliding_window <= 0) return bad("o_lora_rank", "needs a sliding_window (every block's)");
  if (s.is_mla() || s.is_hybrid_linear() || s.has_layer_pattern() || s.decoder_layers > 0 ||
      s.full_attention_every > 0 || s.local_attention != LocalAttention::sliding)
    return bad("o_lora_rank",
               "does not combine with latent or linear attention, a layer_pattern, "
               "decoder_layers, full_attention_every or chunked attention");
  if (s.csa_layers + s.hca_layers > s.layers)
    return bad("csa_layers",
               "and hca_layers must add up to at most layers (" + std::to_string(s.layers) + ")");
  if ((s.csa_layers > 0) != (s.csa_ratio > 0))
    return bad("csa_ratio", "must be > 0 exactly when csa_layers is");
  if ((s.hca_layers > 0) != (s.hca_ratio > 0))
    return bad("hca_ratio", "must be > 0 exactly when hca_layers is");
  if (s.csa_layers > 0 && (s.index_topk <= 0 || s.index_heads <= 0 || s.index_head_dim <= 0))
    return bad("csa_layers", "needs index_topk, index_heads and index_head_dim > 0 (its indexer)");
  if (s.csa_layers == 0 && (s.index_topk > 0 || s.index_heads > 0 || s.index_head_dim > 0))
    return bad("index_topk", "needs csa_layers > 0 with compressed attention");
  if (s.index_shared_layers > 0)
    return bad("index_shared_layers", "does not apply to compressed attention");
  return std::nullopt;
}

// Multi-head latent attention, local attention windows, multi-token prediction.
std::optional<Error> check_attention(const TransformerSpec& s, const Bad& bad) {
  if (s.is_mla()) {
    if (s.qk_nope_head_dim <= 0) return bad("qk_nope_head_dim", "must be > 0 with kv_lora_rank");
    if (s.qk_rope_head_dim <= 0) return bad("qk_rope_head_dim", "must be > 0 with kv_lora_rank");
    if (s.v_head_dim <= 0) return bad("v_head_dim", "must be > 0 with kv_lora_rank");
    if (s.fused_qkv) return bad("fused_qkv", "does not apply to latent attention (kv_lora_rank)");
  } else if (!s.is_compressed_attention() &&
             (s.q_lora_rank > 0 || s.qk_nope_head_dim > 0 || s.qk_rope_head_dim > 0)) {
    return bad("kv_lora_rank", "must be > 0 when q_lora_rank or the qk_*_head_dim are set");
  }
  if (s.v_head_dim > 0 && (s.is_compressed_attention() || s.global_kv_shared))
    return bad("v_head_dim",
               "does not apply where the key is the value (compressed attention, "
               "global_kv_shared)");
  if (s.sinks_windowed_only && !s.attention_sinks)
    return bad("sinks_windowed_only", "needs attention_sinks");
  if (auto err = check_compressed_attention(s, bad)) return err;
  if (s.has_global_geometry() &&
      (s.sliding_window <= 0 || s.full_attention_every <= 0 || s.is_mla() ||
       s.is_compressed_attention() || s.is_hybrid_linear() || s.has_layer_pattern()))
    return bad("global_head_dim",
               "(and global_kv_heads, global_kv_shared, sinks_windowed_only) need a "
               "sliding_window with full_attention_every, and no latent, compressed or linear "
               "attention");
  if (s.global_kv_heads > 0 && s.heads % s.global_kv_heads != 0)
    return bad("global_kv_heads", "(" + std::to_string(s.global_kv_heads) +
                                      ") must divide heads (" + std::to_string(s.heads) + ")");
  if (s.sliding_window > 0 && (s.decoder_layers > 0 || s.memory_len > 0 || s.is_vision()))
    return bad("sliding_window", "applies to decoder-only language models");
  if (s.full_attention_every > 0 && s.sliding_window == 0 && !s.is_hybrid_linear())
    return bad("full_attention_every", "needs a sliding_window or linear attention");
  if (s.full_attention_every < 0 || s.full_attention_every > s.layers)
    return bad("full_attention_every", "must be between 0 and layers");
  if (s.full_attention_first && s.full_attention_every == 0)
    return bad("full_attention_first", "needs full_attention_every");
  if (s.full_attention_leading > 0 && (s.full_attention_every == 0 || s.full_attention_first))
    return bad("full_attention_leading", "needs full_attention_every without full_attention_first");
  if (s.full_attention_leading > s.layers)
    return bad("full_attention_leading", "must be at most layers");
  if (s.is_sparse_attention()) {
    if (s.q_lora_rank <= 0)
      return bad("index_topk", "needs latent attention with a q_lora_rank (the indexer reads it)");
    if (s.index_heads <= 0 || s.index_head_dim <= 0)
      return bad("index_topk", "needs index_heads and index_head_dim > 0");
    if (s.sliding_window > 0) return bad("index_topk", "does not combine with a sliding_window");
    if (s.index_shared_layers >= s.layers)
      return bad("index_shared_layers", "must leave at least the first block its own indexer");
  } else if (!s.is_compressed_attention() &&
             (s.index_heads > 0 || s.index_head_dim > 0 || s.index_shared_layers > 0)) {
    return bad("index_topk",
               "must be > 0 when index_heads, index_head_dim or index_shared_layers are set");
  }
  if (auto err = check_linear_attention(s, bad)) return err;
  if (auto err = check_layer_pattern(s, bad)) return err;
  if (s.mtp_layers > 0 && (s.head != HeadKind::lm || s.decoder_layers > 0))
    return bad("mtp_layers", "applies to decoder-only language models");
  if (s.rope_scaling != RopeScaling::none && !(s.rope_scaling_factor >= 1.0))
    return bad("rope_scaling_factor", "must be >= 1");
  return std::nullopt;
}

}  // namespace

std::optional<Error> validate_transformer(const TransformerSpec& s, const std::string& where) {
  const Bad bad = [&](const std::string& field, const std::string& why) {
    return make_error(Errc::invalid_argument, where + ": " + field + " " + why);
  };
  if (s.layers <= 0) return bad("layers", "must be > 0");
  if (s.hidden <= 0) return bad("hidden", "must be > 0");
  if (s.heads <= 0) return bad("heads", "must be > 0");
  if (s.ffn_hidden <= 0) return bad("ffn_hidden", "must be > 0");
  if (s.head_dim == 0 && s.hidden % s.heads != 0) {
    return bad("heads", "(" + std::to_string(s.heads) + ") must divide hidden (" +
                            std::to_string(s.hidden) + ")");
  }
  if (s.kv_heads < 0 || s.kv_heads > s.heads) return bad("kv_heads", "must be between 1 and heads");
  if (s.kv_heads > 0 && s.heads % s.kv_heads != 0) {
    return bad("kv_heads", "(" + std::to_string(s.kv_heads) + ") must divide heads (" +
                               std::to_string(s.heads) + ")");
  }
  if (auto err = check_moe(s, bad)) return err;
  if (auto err = check_attention(s, bad)) return err;
  if (s.is_vision()) {
    if (s.image_size <= 0 || s.image_size % s.patch_size != 0) {
      return bad("image_size", "must be a positive multiple of patch_size");
    }
  } else if (s.vocab <= 0) {
    return bad("vocab", "must be > 0 for a language model");
  }
  if (s.positions == PositionKind::learned && !s.is_vision() && s.max_positions <= 0) {
    return bad("max_positions", "must be > 0 with learned positions");
  }
  if (s.head == HeadKind::classifier && s.num_classes <= 0)
    return bad("num_classes", "must be > 0 for a classifier head");
  if (s.is_adaptive() && s.adaptive_cutoffs.back() >= s.vocab) {
    return bad("adaptive_cutoffs", "must all be below vocab (" + std::to_string(s.vocab) + ")");
  }
  if (s.memory_len > 0 && s.is_vision())
    return bad("memory_len", "applies to language models only");
  // Parameter counts are int64 sums of rows x cols x count: bound what the fields imply (counted
  // in double here) far above any real model, so those sums cannot overflow.
  double params = 0;
  for (const auto& t : transformer_parameters(s)) {
    params +=
        static_cast<double>(t.rows) * static_cast<double>(t.cols) * static_cast<double>(t.count);
  }
  if (params > kMaxParams) {
    char count[32];
    std::snprintf(count, sizeof count, "%.3g", params);
    return make_error(Errc::invalid_argument,
                      where + ": " + count +
                          " parameters is more than the 1e14 gpuplan models "
                          "(check layers, hidden, ffn_hidden, vocab and experts)");
  }
  return std::nullopt;
}

namespace {

// Experts, latent and local attention, multi-token prediction, rope scaling.
void read_moe_and_attention(JsonReader& r, TransformerSpec& s) {
  s.experts = r.integer("experts", 0, 0, 100'000);
  s.experts_per_token = r.integer("experts_per_token", 0, 0, 100'000);
  s.moe_ffn_hidden = r.integer("moe_ffn_hidden", 0, 0, kMaxDim);
  s.shared_experts = r.integer("shared_experts", 0, 0, 100'000);
  s.shared_expert_ffn_hidden = r.integer("shared_expert_ffn_hidden", 0, 0, kMaxDim);
  s.shared_expert_gate = r.boolean("shared_expert_gate", false);
  s.first_dense_layers = r.integer("first_dense_layers", 0, 0, kMaxDim);
  s.moe_layer_step = r.integer("moe_layer_step", 1, 1, kMaxDim);
  s.router_bias = r.boolean("router_bias", false);
  s.q_lora_rank = r.integer("q_lora_rank", 0, 0, kMaxDim);
  s.kv_lora_rank = r.integer("kv_lora_rank", 0, 0, kMaxDim);
  s.qk_nope_head_dim = r.integer("qk_nope_head_dim", 0, 0, kMaxDim);
  s.qk_rope_head_dim = r.integer("qk_rope_head_dim", 0, 0, kMaxDim);
  s.v_head_dim = r.integer("v_head_dim", 0, 0, kMaxDim);
  s.sliding_window = r.integer("sliding_window", 0, 0, kMaxDim * 1000);
  s.full_attention_every = r.integer("full_attention_every", 0, 0, kMaxDim);
  s.full_attention_first = r.boolean("full_attention_first", false);
  s.full_attention_leading = r.integer("full_attention_leading", 0, 0, kMaxDim);
  s.local_attention =
      static_cast<LocalAttention>(r.choice("local_attention", {"sliding", "chunked"}, 0));
  s.global_head_dim = r.integer("global_head_dim", 0, 0, kMaxDim);
  s.global_kv_heads = r.integer("global_kv_heads", 0, 0, kMaxDim);
  s.global_kv_shared = r.boolean("global_kv_shared", false);
  s.attention_sinks = r.boolean("attention_sinks", false);
  s.sinks_windowed_only = r.boolean("sinks_windowed_only", false);
  s.index_heads = r.integer("index_heads", 0, 0, kMaxDim);
  s.index_head_dim = r.integer("index_head_dim", 0, 0, kMaxDim);
  s.index_topk = r.integer("index_topk", 0, 0, kMaxDim * 1000);
  s.index_shared_layers = r.integer("index_shared_layers", 0, 0, kMaxDim);
  s.o_groups = r.integer("o_groups", 0, 0, kMaxDim);
  s.o_lora_rank = r.integer("o_lora_rank", 0, 0, kMaxDim);
  s.csa_layers = r.integer("csa_layers", 0, 0, kMaxDim);
  s.csa_ratio = r.integer("csa_ratio", 0, 0, kMaxDim);
  s.hca_layers = r.integer("hca_layers", 0, 0, kMaxDim);
  s.hca_ratio = r.integer("hca_ratio", 0, 0, kMaxDim);
  s.hc_streams = r.integer("hc_streams", 0, 0, 64);
  s.qk_norm =
      static_cast<QkNorm>(r.choice("qk_norm", {"none", "rmsnorm", "l2", "rmsnorm-layer"}, 0));
  s.attention_output_gate = r.boolean("attention_output_gate", false);
  s.linear_key_heads = r.integer("linear_key_heads", 0, 0, kMaxDim);
  s.linear_value_heads = r.integer("linear_value_heads", 0, 0, kMaxDim);
  s.linear_key_head_dim = r.integer("linear_key_head_dim", 0, 0, kMaxDim);
  s.linear_value_head_dim = r.integer("linear_value_head_dim", 0, 0, kMaxDim);
  s.linear_conv_kernel = r.integer("linear_conv_kernel", 0, 0, 64);
  s.linear_mixer = static_cast<LinearMixer>(r.choice("linear_mixer", {"gated-delta", "mamba2"}, 0));
  s.linear_chunk = r.integer("linear_chunk", 0, 0, 1'000'000);
  s.linear_conv_bias = r.boolean("linear_conv_bias", false);
  s.linear_state_fp32 = r.boolean("linear_state_fp32", false);
  s.layer_pattern = r.string("layer_pattern", "");
  s.moe_latent = r.integer("moe_latent", 0, 0, kMaxDim);
  s.mtp_layers = r.integer("mtp_layers", 0, 0, 64);
  s.rope_scaling = static_cast<RopeScaling>(
      r.choice("rope_scaling", {"none", "linear", "dynamic", "yarn", "llama3", "longrope"}, 0));
  s.rope_scaling_factor = r.number("rope_scaling_factor", 1.0, 1.0, 1e6);
  s.rope_original_max_positions = r.integer("rope_original_max_positions", 0, 0, kMaxDim * 10);
}

void read_transformer(JsonReader& r, TransformerSpec& s) {
  s.layers = r.integer("layers", std::nullopt, 1, kMaxDim);
  s.decoder_layers = r.integer("decoder_layers", 0, 0, kMaxDim);
  s.hidden = r.integer("hidden", std::nullopt, 1, kMaxDim);
  s.heads = r.integer("heads", std::nullopt, 1, kMaxDim);
  s.kv_heads = r.integer("kv_heads", 0, 0, kMaxDim);
  s.head_dim = r.integer("head_dim", 0, 0, kMaxDim);
  s.ffn_hidden = r.integer("ffn_hidden", std::nullopt, 1, kMaxDim);
  s.gated_mlp = r.boolean("gated_mlp", false);
  s.activation =
      static_cast<MlpActivation>(r.choice("activation", {"gelu", "relu", "silu", "relu2"}, 0));
  s.vocab = r.integer("vocab", 0, 0, kMaxVocab);
  s.max_positions = r.integer("max_positions", 0, 0, kMaxDim * 1000);
  s.positions = static_cast<PositionKind>(
      r.choice("positions", {"learned", "rotary", "relative", "none", "xl-relative"}, 0));
  s.relative_buckets = r.integer("relative_buckets", 0, 0, kMaxDim);
  s.memory_len = r.integer("memory_len", 0, 0, kMaxDim);
  if (const nlohmann::json* c = r.value("adaptive_cutoffs", false)) {
    bool ok = c->is_array() && !c->empty();
    for (size_t i = 0; ok && i < c->size(); ++i) {
      ok = (*c)[i].is_number_integer() &&
           (*c)[i].get<int64_t>() > (i ? (*c)[i - 1].get<int64_t>() : 0);
      if (ok) s.adaptive_cutoffs.push_back((*c)[i].get<int64_t>());
    }
    if (!ok)
      r.fail(
          "adaptive_cutoffs: expected increasing positive integers, e.g. [19997, 39997, 199997]");
  }
  if (const nlohmann::json* w = r.value("mlp_widths", false)) {
    bool ok = w->is_array();
    for (size_t i = 0; ok && i < w->size(); ++i) {
      ok = (*w)[i].is_number_integer() && (*w)[i].get<int64_t>() > 0;
      if (ok) s.mlp_widths.push_back((*w)[i].get<int64_t>());
    }
    if (!ok) r.fail("mlp_widths: expected positive integers, one per '-' of layer_pattern");
  }
  s.adaptive_div = r.integer("adaptive_div", 1, 1, 64);
  s.token_types = r.integer("token_types", 0, 0, kMaxDim);
  s.embedding_norm = r.boolean("embedding_norm", false);
  s.tied_embeddings = r.boolean("tied_embeddings", false);
  s.norm = static_cast<NormKind>(r.choice("norm", {"layernorm", "rmsnorm"}, 0));
  s.norm_bias = r.boolean("norm_bias", s.norm == NormKind::layernorm);
  s.qkv_bias = r.boolean("qkv_bias", false);
  s.fused_qkv = r.boolean("fused_qkv", false);
  s.attn_out_bias = r.boolean("attn_out_bias", false);
  s.mlp_bias = r.boolean("mlp_bias", false);
  s.final_norm = r.boolean("final_norm", true);
  s.pooler = r.boolean("pooler", false);
  s.lm_head_transform = r.boolean("lm_head_transform", false);
  s.lm_head_bias = r.boolean("lm_head_bias", false);
  s.head = static_cast<HeadKind>(r.choice("head", {"lm", "classifier", "none"}, 0));
  s.num_classes = r.integer("num_classes", 0, 0, kMaxVocab);
  s.dropout = r.boolean("dropout", false);
  if (r.has("attention_dropout")) s.attention_dropout = r.boolean("attention_dropout", false);
  read_moe_and_attention(r, s);
  s.image_size = r.integer("image_size", 0, 0, 100'000);
  s.patch_size = r.integer("patch_size", 0, 0, 100'000);
  s.channels = r.integer("channels", 3, 1, 1'000);
  s.class_token = r.boolean("class_token", false);
}

bool is_checkpoint_weight_format(const std::string& f) {
  for (const char* known :
       {"fp8", "mxfp4", "nvfp4", "mxfp4-fp8", "nvfp4-fp8", "int8", "int4", "int4-experts"}) {
    if (f == known) return true;
  }
  return false;
}

// The model's "defaults": what it is usually run with.
void read_defaults(const nlohmann::json& d, const std::string& where, JsonReader& r, Model& m) {
  JsonReader dr(d, where, "defaults");
  m.default_seq_len = dr.integer("seq_len", 0, 0, 100'000'000);
  m.default_resolution = dr.integer("resolution", 0, 0, 100'000);
  m.dataset_size = dr.integer("dataset_size", 0, 0, 1'000'000'000'000);
  m.dataset = dr.string("dataset", "");
  m.checkpoint_weights = dr.string("weights", "");
  if (!m.checkpoint_weights.empty() && !is_checkpoint_weight_format(m.checkpoint_weights)) {
    dr.fail("defaults.weights: '" + m.checkpoint_weights +
            "' is not a checkpoint format gpuplan reads (fp8, mxfp4, nvfp4, mxfp4-fp8, "
            "nvfp4-fp8, int8, int4, int4-experts)");
  }
  if (dr.has("attention")) {
    // Only "eager" for now: a fused default would also need its kernel's efficiency in timing.
    const std::string kernel = dr.string("attention", "");
    if (kernel != "eager") {
      dr.fail("defaults.attention: '" + kernel + "' is not a model default gpuplan reads (eager)");
    } else {
      m.default_attention = kernel;
    }
    m.default_attention_source = dr.string("attention_source", std::nullopt);
  }
  if (auto err = dr.finish()) r.fail_with(*err);
}

}  // namespace

Result<Model> parse_model_json(std::string_view text, const std::string& where) {
  auto parsed = parse_json_text(text, where, kMaxJsonBytes);
  if (!parsed.ok()) return parsed.error();
  const nlohmann::json& j = parsed.value();
  JsonReader r(j, where);
  if (auto err = check_schema_version(r, kCatalogSchemaVersion)) return *err;
  Model m;
  m.id = r.string("id", std::nullopt);
  m.name = r.string("name", std::nullopt);
  m.name_zh = r.string("name_zh", std::string());  // optional here: a custom model has none
  m.task = r.string("task", std::nullopt);
  const size_t kind = r.choice("kind", {"transformer", "graph"}, std::nullopt);
  m.kind = kind == 0 ? ModelKind::transformer : ModelKind::graph;
  if (const auto* src = r.object("source", true)) {
    JsonReader sr(*src, where, "source");
    m.source.title = sr.string("title", std::nullopt);
    m.source.url = sr.string("url", std::nullopt);
    m.source.date = sr.string("date", std::nullopt);
    sr.ignore("date_kind");
    sr.ignore("note");
    if (auto err = sr.finish()) r.fail_with(*err);
  }
  if (const auto* al = r.value("aliases", false)) {
    if (!al->is_array()) {
      r.fail("aliases: expected an array of strings");
    } else {
      for (const auto& a : *al) {
        if (!a.is_string()) {
          r.fail("aliases: expected an array of strings");
          break;
        }
        m.aliases.push_back(a.get<std::string>());
      }
    }
  }
  if (const auto* d = r.object("defaults", false)) read_defaults(*d, where, r, m);
  if (m.kind == ModelKind::transformer) {
    if (const auto* t = r.object("transformer", true)) {
      JsonReader tr(*t, where, "transformer");
      read_transformer(tr, m.transformer);
      if (auto err = tr.finish()) r.fail_with(*err);
    }
    r.ignore("graph");
    if (r.has("graph")) r.fail("graph: not allowed for kind 'transformer'");
  } else {
    if (const auto* g = r.object("graph", true)) {
      auto graph = graph_from_json(*g, where + ": graph");
      if (!graph.ok()) {
        r.fail_with(graph.error());
      } else {
        m.graph = std::move(graph).value();
      }
    }
    if (r.has("transformer")) r.fail("transformer: not allowed for kind 'graph'");
    r.ignore("transformer");
  }
  if (auto err = r.finish()) return *err;
  if (m.kind == ModelKind::transformer) {
    if (auto err = validate_transformer(m.transformer, where + ": transformer")) return *err;
    if (m.transformer.is_vision() && m.default_resolution == 0)
      m.default_resolution = m.transformer.image_size;
  } else if (m.default_resolution > 0) {
    // Checks the graph at its own default size, and keeps the result for estimates.
    auto costs = analyze_graph(m.graph, m.default_resolution, m.default_resolution);
    if (!costs.ok()) return make_error(costs.error().code, where + ": " + costs.error().message);
    m.default_graph_costs = std::move(costs).value();
  }
  return m;
}

Result<const GraphCosts*> model_graph_costs(const Model& model, int64_t resolution,
                                            std::optional<GraphCosts>& storage) {
  if (model.default_graph_costs && resolution == model.default_resolution)
    return &*model.default_graph_costs;
  auto costs = analyze_graph(model.graph, resolution, resolution);
  if (!costs.ok()) return costs.error();
  storage = std::move(costs).value();
  return &*storage;
}

namespace {

template <class T>
const T* find_by_id(const std::vector<T>& items, std::string_view id) {
  for (const auto& item : items) {
    if (item.id == id) return &item;
  }
  return nullptr;
}

// Adds a parsed item after checking file name == id and uniqueness.
template <class T>
std::optional<Error> add_unique(std::vector<T>& items, Result<T> parsed, const DataFile& f,
                                const std::string& stem, const char* kind) {
  if (!parsed.ok()) return parsed.error();
  if (parsed.value().id != stem) {
    return make_error(Errc::schema_error,
                      f.path + ": id '" + parsed.value().id + "' does not match the file name");
  }
  if (find_by_id(items, parsed.value().id)) {
    return make_error(Errc::schema_error, f.path + ": duplicate " + std::string(kind) + " id '" +
                                              parsed.value().id + "'");
  }
  items.push_back(std::move(parsed).value());
  return std::nullopt;
}

}  // namespace

namespace {

// A name as people type it, for matching: letters and digits only, lower case
// ("A100-SXM4-80GB" and "a100 sxm4 80gb" are the same).
std::string folded(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// The words of a name in any order, lower case, without the vendor words "nvidia" and "tesla"
// ("NVIDIA A100 80GB PCIe" and "a100-pcie-80gb" have the same words). A point between digits
// stays in its word: "llama-3.2-1b" has the words llama, 3.2 and 1b, not 3 and 2.
std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out(1);
  auto digit = [&](size_t i) {
    return i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]));
  };
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.' && i > 0 && digit(i - 1) && digit(i + 1) && !out.back().empty()) {
      out.back() += c;
    } else if (std::isalnum(static_cast<unsigned char>(c))) {
      out.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.back().empty()) {
      out.emplace_back();
    }
  }
  if (out.back().empty()) out.pop_back();
  out.erase(std::remove_if(out.begin(), out.end(),
                           [](const std::string& w) { return w == "nvidia" || w == "tesla"; }),
            out.end());
  std::sort(out.begin(), out.end());
  return out;
}

// The entry whose id or an alias equals `name`; else the one entry whose id or alias equals it
// folded, or failing that has the same words; and with `drop_remark`, all that again without a
// trailing "(...)" remark such as "(DGX A100)" (GPUs only: in a model name the remark may be the
// task, "BERT-large (SQuAD v1.1)"). An ambiguous name matches nothing.
template <class T>
const T* find_named(const std::vector<T>& items, std::string_view name, bool drop_remark) {
  if (const T* t = find_by_id(items, name)) return t;
  for (const auto& t : items) {
    if (std::find(t.aliases.begin(), t.aliases.end(), name) != t.aliases.end()) return &t;
  }
  auto unique = [&](auto key_of, const auto& key) -> const T* {
    const T* found = nullptr;
    for (const auto& t : items) {
      bool hit = key_of(t.id) == key;
      for (const auto& a : t.aliases) hit = hit || key_of(a) == key;
      if (hit && found && found != &t) return nullptr;
      if (hit) found = &t;
    }
    return found;
  };
  auto unique_folded = [&](std::string_view n) -> const T* {
    const std::string key = folded(n);
    if (key.empty()) return nullptr;
    if (const T* t = unique(folded, key)) return t;
    const std::vector<std::string> w = words(n);
    return w.empty() ? nullptr : unique(words, w);
  };
  if (const T* t = unique_folded(name)) return t;
  const size_t open = name.rfind('(');
  if (drop_remark && open != std::string_view::npos && open > 0 && name.back() == ')') {
    return unique_folded(name.substr(0, open));
  }
  return nullptr;
}

}  // namespace

namespace {

template <class T>
std::vector<std::string> similar(const std::vector<T>& items, std::string_view name) {
  const std::vector<std::string> want = words(name);
  std::vector<std::string> out;
  if (want.empty()) return out;
  for (const auto& t : items) {
    bool hit = false;
    std::vector<std::string> names = t.aliases;
    names.push_back(t.id);
    for (const auto& candidate : names) {
      const std::vector<std::string> have = words(candidate);
      hit = hit || std::includes(have.begin(), have.end(), want.begin(), want.end());
    }
    if (hit) out.push_back(t.id);
  }
  return out;
}

}  // namespace

std::string id_list(const std::vector<std::string>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i == 8) return out + ", ...";
    out += (out.empty() ? "" : ", ") + ids[i];
  }
  return out;
}

std::vector<std::string> Catalog::similar_gpus(std::string_view name) const {
  return similar(gpus, name);
}
std::vector<std::string> Catalog::similar_models(std::string_view name) const {
  std::vector<std::string> like = similar(models, name);
  // No entry has all of the name's words: the nearest spellings.
  return like.empty() ? nearest_models(*this, name) : like;
}

Error unknown_model_error(const Catalog& catalog, const std::string& name) {
  const std::string like = id_list(catalog.similar_models(name));
  if (like.empty()) return make_error(Errc::not_found, Msg::eval_unknown_model, {name});
  return make_error(Errc::not_found, Msg::eval_unknown_model_like, {name, like});
}

Error unknown_gpu_error(const Catalog& catalog, const std::string& name) {
  const std::string like = id_list(catalog.similar_gpus(name));
  if (like.empty()) return make_error(Errc::not_found, Msg::eval_unknown_gpu, {name});
  return make_error(Errc::not_found, Msg::eval_unknown_gpu_like, {name, like});
}

Error unknown_instance_error(const std::string& name) {
  return make_error(Errc::not_found, Msg::eval_unknown_instance, {name});
}

const Model* Catalog::find_model(std::string_view id_or_alias) const {
  // As written, then as people write model names (model_names.cpp), then by words.
  if (const Model* m = find_by_id(models, id_or_alias)) return m;
  for (const auto& m : models) {
    if (std::find(m.aliases.begin(), m.aliases.end(), id_or_alias) != m.aliases.end()) return &m;
  }
  if (const Model* m = detail::find_by_canonical_name(models, id_or_alias)) return m;
  return find_named(models, id_or_alias, false);
}

const Gpu* Catalog::find_gpu(std::string_view id_or_alias) const {
  return find_named(gpus, id_or_alias, true);
}

const Instance* Catalog::find_instance(std::string_view id) const {
  return find_by_id(instances, id);
}
const Provider* Catalog::find_provider(std::string_view id) const {
  return find_by_id(providers, id);
}

std::optional<Error> check_efficiencies(const Efficiencies& e, const std::string& where) {
  Efficiencies read = e;  // the table's fields are references into a mutable Efficiencies
  for (const auto& k : detail::kAssumptionKeys) {
    if (k.required && !(k.field(read) > 0)) {
      return make_error(Errc::schema_error,
                        where + ": assumptions." + k.key +
                            ": missing or null (the time model has no other source for it)");
    }
  }
  return std::nullopt;
}

// Cross-references: instance -> GPU, provider, and each price's region; notes the newest price.
std::optional<Error> check_instance_references(Catalog& c) {
  for (const auto& in : c.instances) {
    const std::string where = "instances/" + in.id + ".json";
    if (!c.find_gpu(in.gpu)) {
      return make_error(Errc::schema_error, where + ": gpu '" + in.gpu + "' is not in data/gpus");
    }
    const Provider* p = c.find_provider(in.provider);
    if (!p && !c.providers.empty()) {
      return make_error(Errc::schema_error,
                        where + ": provider '" + in.provider + "' is not in data/providers");
    }
    for (const auto& price : in.prices) {
      if (p && !p->find_region(price.region)) {
        return make_error(Errc::schema_error, where + ": price region '" + price.region +
                                                  "' is not a region of provider '" + in.provider +
                                                  "'");
      }
      if (price.date > c.prices_as_of) c.prices_as_of = price.date;
    }
  }
  return std::nullopt;
}

namespace {

// Every zoo model has its name on the Chinese page (a custom model, read by parse_model_json
// alone, needs none).
std::optional<Error> check_zoo_names(const Catalog& c) {
  for (const auto& m : c.models) {
    if (m.name_zh.empty()) {
      return make_error(Errc::schema_error, "models/" + m.id +
                                                ".json: name_zh: missing required field (the "
                                                "model's name on the Chinese page)");
    }
  }
  return std::nullopt;
}

}  // namespace

Result<Catalog> load_catalog(const std::vector<DataFile>& files) {
  Catalog c;
  bool have_rules = false;
  const DataFile* assumptions = nullptr;
  for (const auto& f : files) {
    const size_t slash = f.path.find('/');
    const std::string dir = slash == std::string::npos ? "" : f.path.substr(0, slash);
    const size_t base = f.path.rfind('/') == std::string::npos ? 0 : f.path.rfind('/') + 1;
    const std::string stem = f.path.substr(base, f.path.size() - base - 5);
    std::optional<Error> err;
    if (dir == "models") {
      err = add_unique(c.models, parse_model_json(f.text, f.path), f, stem, "model");
    } else if (dir == "gpus") {
      err = add_unique(c.gpus, parse_gpu_json(f.text, f.path), f, stem, "GPU");
    } else if (dir == "instances") {
      err = add_unique(c.instances, parse_instance_json(f.text, f.path), f, stem, "instance");
    } else if (dir == "providers") {
      err = add_unique(c.providers, parse_provider_json(f.text, f.path), f, stem, "provider");
    } else if (f.path == "pricing_rules.json") {
      auto rules = parse_pricing_rules_json(f.text, f.path);
      if (!rules.ok()) return rules.error();
      c.pricing = rules.value();
      have_rules = true;
    } else if (f.path == "assumptions.json") {
      assumptions = &f;
    } else if (f.path == "accuracy.json") {
      auto table = parse_accuracy_json(f.text, f.path);
      if (!table.ok()) return table.error();
      c.accuracy = std::move(table).value();
    } else if (dir == "benchmarks") {
      continue;  // signed probe files: read by the probe-file loader, not the catalog
    } else if (dir == "published") {
      continue;  // published measurements: load_published, after the GPUs (below)
    } else {
      return make_error(Errc::schema_error,
                        f.path +
                            ": not a known catalog file (models/, gpus/, instances/, "
                            "providers/, benchmarks/, published/, pricing_rules.json, "
                            "assumptions.json or accuracy.json)");
    }
    if (err) return *err;
  }
  if (auto err = check_instance_references(c)) return *err;
  if (auto err = check_zoo_names(c)) return *err;
  // After the pricing rules, which it may complete with a spot interruption rate.
  if (assumptions) {
    if (auto err = parse_assumptions_json(assumptions->text, assumptions->path, c)) return *err;
  }
  if (!c.instances.empty() && !have_rules) {
    return make_error(Errc::schema_error,
                      "pricing_rules.json: missing (instances need pricing rules)");
  }
  attach_pricing_offers(c);
  // The time model has no built-in efficiencies: GPUs need data/assumptions.json's.
  if (!c.gpus.empty()) {
    if (auto err = check_efficiencies(c.efficiencies, "assumptions.json")) return *err;
  }
  auto by_id = [](const auto& a, const auto& b) { return a.id < b.id; };
  std::sort(c.models.begin(), c.models.end(), by_id);
  std::sort(c.gpus.begin(), c.gpus.end(), by_id);
  derive_matmul_shares(c.gpus);
  derive_serving_gemm_shares(c.gpus);
  std::sort(c.instances.begin(), c.instances.end(), by_id);
  std::sort(c.providers.begin(), c.providers.end(), by_id);
  // After the GPUs: every published row names one of them.
  auto published = load_published(files, c);
  if (!published.ok()) return published.error();
  c.published = std::move(published).value();
  return c;
}

}  // namespace gpuplan
