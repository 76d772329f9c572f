#include "gpuplan/transformer.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace gpuplan {
namespace {

// Adds a norm's weight (and bias) as `count` tensors.
void add_norm(std::vector<ParamTensor>& out, const TransformerSpec& s, const char* prefix,
              const char* name, int64_t count, bool in_layers) {
  out.push_back({prefix, name, "weight", ParamGroup::norm, 1, s.hidden, count, false, in_layers});
  if (s.norm == NormKind::layernorm && s.norm_bias) {
    out.push_back({prefix, name, "bias", ParamGroup::norm, 1, s.hidden, count, false, in_layers});
  }
}

// A tensor outside the blocks (embeddings, heads): one copy, not split by pipeline stages.
ParamTensor single(const char* module, const char* param, ParamGroup group, int64_t rows,
                   int64_t cols, int64_t count = 1, bool tensor_parallel = false) {
  return {"", module, param, group, rows, cols, count, tensor_parallel, false};
}

// A linear layer's weight (out x in) and optional bias. Column- and row-parallel layers are
// both split across tensor-parallel ranks; a row-parallel bias is replicated (Megatron-LM).
void add_linear(std::vector<ParamTensor>& out, ParamGroup group, const char* prefix,
                const char* name, int64_t out_features, int64_t in_features, bool bias,
                int64_t count, bool column_parallel, bool row_parallel) {
  const bool tp = column_parallel || row_parallel;
  out.push_back({prefix, name, "weight", group, out_features, in_features, count, tp, true});
  if (bias)
    out.push_back({prefix, name, "bias", group, 1, out_features, count, column_parallel, true});
}

void add_attention(std::vector<ParamTensor>& out, const TransformerSpec& s, const char* prefix,
                   int64_t count) {
  const int64_t q_dim = s.heads * s.head_dim_or_default();
  const int64_t kv_dim = s.kv_heads_or_default() * s.head_dim_or_default();
  add_linear(out, ParamGroup::attention, prefix, "q_proj", q_dim, s.hidden, s.qkv_bias, count, true,
             false);
  const size_t first_kv = out.size();
  add_linear(out, ParamGroup::attention, prefix, "k_proj", kv_dim, s.hidden, s.qkv_bias, count,
             true, false);
  add_linear(out, ParamGroup::attention, prefix, "v_proj", kv_dim, s.hidden, s.qkv_bias, count,
             true, false);
  if (s.fused_qkv) {  // one QKV weight (and bias) holds K and V
    for (size_t i = first_kv; i < out.size(); ++i) out[i].fused_into_other = true;
  }
  add_linear(out, ParamGroup::attention, prefix, "o_proj", s.hidden, q_dim, s.attn_out_bias, count,
             false, true);
}

void add_mlp(std::vector<ParamTensor>& out, const TransformerSpec& s, const char* prefix,
             int64_t count) {
  const int64_t experts = s.is_moe() ? s.experts : 1;
  const int64_t n = count * experts;
  const size_t first = out.size();
  if (s.gated_mlp) {
    add_linear(out, ParamGroup::mlp, prefix, "mlp.gate_proj", s.ffn_hidden, s.hidden, s.mlp_bias, n,
               true, false);
  }
  add_linear(out, ParamGroup::mlp, prefix, "mlp.up_proj", s.ffn_hidden, s.hidden, s.mlp_bias, n,
             true, false);
  add_linear(out, ParamGroup::mlp, prefix, "mlp.down_proj", s.hidden, s.ffn_hidden, s.mlp_bias, n,
             false, true);
  if (s.is_moe()) {
    for (size_t i = first; i < out.size(); ++i) out[i].expert = true;
    out.push_back({prefix, "mlp.router", "weight", ParamGroup::router, s.experts, s.hidden, count,
                   false, true});
  }
}

}  // namespace

double head_logits(const TransformerSpec& s) {
  if (!s.is_adaptive()) return static_cast<double>(s.vocab);
  return static_cast<double>(s.adaptive_cutoffs.front() +
                             static_cast<int64_t>(s.adaptive_cutoffs.size()));
}

namespace {

// Token, patch, position and segment embeddings, and the norm after them.
void add_embeddings(std::vector<ParamTensor>& out, const TransformerSpec& s) {
  // A vocabulary-parallel embedding is split across tensor-parallel ranks.
  if (s.is_adaptive() && s.adaptive_div > 1) {
    // Adaptive input (Baevski & Auli 2019; Transformer-XL's AdaptiveEmbedding): cluster i has
    // width hidden / div^i and a projection back to hidden.
    int64_t start = 0, width = s.hidden;
    for (size_t i = 0; i <= s.adaptive_cutoffs.size(); ++i) {
      const int64_t end = i < s.adaptive_cutoffs.size() ? s.adaptive_cutoffs[i] : s.vocab;
      out.push_back(
          single("embed_tokens.cluster", "weight", ParamGroup::embedding, end - start, width));
      out.push_back(
          single("embed_tokens.projection", "weight", ParamGroup::embedding, s.hidden, width));
      start = end;
      width = std::max<int64_t>(1, width / s.adaptive_div);
    }
  } else if (s.vocab > 0) {
    out.push_back(
        single("embed_tokens", "weight", ParamGroup::embedding, s.vocab, s.hidden, 1, true));
  }
  if (s.is_vision()) {
    // Patch embedding: a conv with kernel = stride = patch size, with bias (Dosovitskiy et al.
    // 2020).
    out.push_back(single("patch_embed", "weight", ParamGroup::embedding, s.hidden,
                         s.channels * s.patch_size * s.patch_size));
    out.push_back(single("patch_embed", "bias", ParamGroup::embedding, 1, s.hidden));
    if (s.class_token)
      out.push_back(single("class_token", "weight", ParamGroup::embedding, 1, s.hidden));
  }
  if (s.positions == PositionKind::learned) {
    const int64_t positions = s.is_vision() ? transformer_tokens(s, 0) : s.max_positions;
    out.push_back(single("embed_positions", "weight", ParamGroup::embedding, positions, s.hidden));
  }
  if (s.token_types > 0) {
    out.push_back(
        single("token_type_embeddings", "weight", ParamGroup::embedding, s.token_types, s.hidden));
  }
  if (s.embedding_norm) add_norm(out, s, "", "embed_norm", 1, false);
}

// The pooler and the output head.
void add_heads(std::vector<ParamTensor>& out, const TransformerSpec& s) {
  if (s.pooler) {
    out.push_back(single("pooler.dense", "weight", ParamGroup::head, s.hidden, s.hidden));
    out.push_back(single("pooler.dense", "bias", ParamGroup::head, 1, s.hidden));
  }
  if (s.head == HeadKind::lm) {
    if (s.lm_head_transform) {
      out.push_back(single("lm_head.transform", "weight", ParamGroup::head, s.hidden, s.hidden));
      out.push_back(single("lm_head.transform", "bias", ParamGroup::head, 1, s.hidden));
      add_norm(out, s, "", "lm_head.transform.norm", 1, false);
    }
    if (!s.tied_embeddings)
      out.push_back(single("lm_head", "weight", ParamGroup::head, s.vocab, s.hidden, 1, true));
    if (s.lm_head_bias && s.is_adaptive() && s.adaptive_div > 1) {
      // One output layer, and so one bias, per cluster.
      int64_t start = 0;
      for (size_t i = 0; i <= s.adaptive_cutoffs.size(); ++i) {
        const int64_t end = i < s.adaptive_cutoffs.size() ? s.adaptive_cutoffs[i] : s.vocab;
        out.push_back(single("lm_head.cluster_output", "bias", ParamGroup::head, 1, end - start));
        start = end;
      }
    } else if (s.lm_head_bias) {
      out.push_back(single("lm_head", "bias", ParamGroup::head, 1, s.vocab, 1, true));
    }
    if (s.is_adaptive()) {
      // Adaptive softmax: a logit per tail cluster in the head, and with div > 1 the head
      // cluster's own projection (Transformer-XL ties the tail projections to the input's).
      const int64_t clusters = static_cast<int64_t>(s.adaptive_cutoffs.size());
      out.push_back(single("lm_head.cluster", "weight", ParamGroup::head, clusters, s.hidden));
      out.push_back(single("lm_head.cluster", "bias", ParamGroup::head, 1, clusters));
      if (s.adaptive_div > 1)
        out.push_back(single("lm_head.projection", "weight", ParamGroup::head, s.hidden, s.hidden));
    }
  } else if (s.head == HeadKind::classifier) {
    out.push_back(single("classifier", "weight", ParamGroup::head, s.num_classes, s.hidden));
    out.push_back(single("classifier", "bias", ParamGroup::head, 1, s.num_classes));
  }
}

}  // namespace

std::vector<ParamTensor> transformer_parameters(const TransformerSpec& s) {
  std::vector<ParamTensor> out;
  out.reserve(48);
  add_embeddings(out, s);

  // Blocks: pre- or post-norm makes no difference to the count: two norms per block.
  add_norm(out, s, "", "input_layernorm", s.layers, true);
  add_attention(out, s, "self_attn.", s.layers);
  add_norm(out, s, "", "post_attention_layernorm", s.layers, true);
  add_mlp(out, s, "", s.layers);
  if (s.decoder_layers > 0) {
    add_norm(out, s, "decoder.", "input_layernorm", s.decoder_layers, true);
    add_attention(out, s, "decoder.self_attn.", s.decoder_layers);
    add_norm(out, s, "decoder.", "cross_attn_layernorm", s.decoder_layers, true);
    add_attention(out, s, "decoder.cross_attn.", s.decoder_layers);
    add_norm(out, s, "decoder.", "post_attention_layernorm", s.decoder_layers, true);
    add_mlp(out, s, "decoder.", s.decoder_layers);
  }
  if (s.positions == PositionKind::xl_relative) {
    // Transformer-XL: r_net projects the sinusoid positions in every layer; the content and
    // position biases u and v are shared by all layers (Dai et al. 2019, sec. 3.3).
    out.push_back(single("self_attn.r_net", "weight", ParamGroup::attention,
                         s.heads * s.head_dim_or_default(), s.hidden, s.layers));
    out.push_back(
        single("r_w_bias", "weight", ParamGroup::attention, s.heads, s.head_dim_or_default()));
    out.push_back(
        single("r_r_bias", "weight", ParamGroup::attention, s.heads, s.head_dim_or_default()));
  }
  if (s.positions == PositionKind::relative && s.relative_buckets > 0) {
    // T5 keeps one bias table per stack, in its first layer (Raffel et al. 2020, sec. 2.1).
    const int64_t stacks = s.decoder_layers > 0 ? 2 : 1;
    out.push_back(single("relative_attention_bias", "weight", ParamGroup::attention,
                         s.relative_buckets, s.heads, stacks));
  }
  if (s.final_norm) add_norm(out, s, "", "final_norm", s.decoder_layers > 0 ? 2 : 1, false);

  add_heads(out, s);
  return out;
}

int64_t transformer_tokens(const TransformerSpec& s, int64_t seq_len) {
  if (!s.is_vision()) return seq_len;
  const int64_t side = s.image_size / s.patch_size;
  return side * side + (s.class_token ? 1 : 0);
}

TransformerDims transformer_dims(const TransformerSpec& s, int64_t seq_len) {
  return {static_cast<double>(transformer_tokens(s, seq_len)),
          static_cast<double>(s.hidden),
          static_cast<double>(s.heads),
          static_cast<double>(s.heads * s.head_dim_or_default()),
          static_cast<double>(s.kv_heads_or_default() * s.head_dim_or_default()),
          static_cast<double>(s.ffn_hidden),
          s.is_moe() ? static_cast<double>(s.experts_per_token) : 1.0};
}

TransformerFlops transformer_forward_flops(const TransformerSpec& s, int64_t seq_len) {
  // Per token and block (Narayanan et al. 2021, "Efficient Large-Scale Language Model Training
  // on GPU Clusters", appendix: 24*h^2 + 4*s*h per token per layer for an MLP of 4h, MHA):
  //   QKV 2*h*(q + 2*kv), scores 2*s*q, weighted values 2*s*q, output 2*q*h,
  //   MLP 2*h*f*(2 or 3 matrices) per routed expert, router 2*h*E.
  // Plain variables, not structured bindings: lambdas below capture them.
  const TransformerDims d = transformer_dims(s, seq_len);
  const double t = d.t, h = d.h, q = d.q, kv = d.kv, f = d.f, routed = d.routed;
  const double matrices = s.gated_mlp ? 3.0 : 2.0;

  const double keys = attention_keys(s, t);
  const double score_matmuls = s.positions == PositionKind::xl_relative ? 3.0 : 2.0;  // + Q R^T
  auto block = [&](TransformerFlops& out, double layers, double tokens) {
    // Transformer-XL projects memory + segment (its qkv_net runs on both).
    out.qkv_proj += layers * (tokens + keys - t) * 2 * h * (q + 2 * kv);
    out.attention_core += layers * score_matmuls * (2 * tokens * (tokens + keys - t) * q);
    out.attn_out_proj += layers * tokens * 2 * q * h;
    out.mlp += layers * tokens * 2 * h * f * matrices * routed;
    if (s.is_moe()) out.router += layers * tokens * 2 * h * static_cast<double>(s.experts);
  };

  TransformerFlops out;
  block(out, static_cast<double>(s.layers), t);
  if (s.decoder_layers > 0) {
    // Decoder self-attention and MLP over the target tokens (taken as long as the input), plus
    // cross-attention: queries from the target, keys and values from the encoder output.
    const double dl = static_cast<double>(s.decoder_layers);
    block(out, dl, t);
    out.qkv_proj += dl * (t * 2 * h * q + t * 2 * h * 2 * kv);
    out.attention_core += dl * 2 * (2 * t * t * q);
    out.attn_out_proj += dl * t * 2 * q * h;
  }
  if (s.is_vision()) {
    const double patches =
        static_cast<double>((s.image_size / s.patch_size) * (s.image_size / s.patch_size));
    const double patch_in = static_cast<double>(s.channels * s.patch_size * s.patch_size);
    out.embedding += 2 * patches * patch_in * h;
  }
  if (s.pooler) out.head += 2 * h * h;
  if (s.head == HeadKind::lm) {
    // Logits for every position (causal and masked LM training compute all of them).
    if (s.lm_head_transform) out.head += t * 2 * h * h;
    if (s.is_adaptive() && s.adaptive_div > 1) out.head += t * 2 * h * h;
    out.head += t * 2 * h * head_logits(s);
  } else if (s.head == HeadKind::classifier) {
    out.head += 2 * h * static_cast<double>(s.num_classes);  // one pooled token per sample
  }
  return out;
}

LayerActivations transformer_layer_activations(const TransformerSpec& s, int64_t seq_len,
                                               double element_bytes, double norm_input_bytes,
                                               AttentionImpl attention, double mask_bytes) {
  // Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models",
  // sec. 4.1: per layer 34*s*b*h + 5*a*s^2*b bytes at 16-bit with dropout. Term by term, with
  // e = element_bytes, n = norm_input_bytes, q/kv the query and key/value widths:
  //   attention: norm input n*s*h, QKV input e*s*h, Q and K e*s*(q+kv), V e*s*kv,
  //              output-projection input e*s*q, residual dropout mask m*s*h (m = mask_bytes);
  //   MLP:       norm input n*s*h, first matmul input e*s*h, activation input and output
  //              2*e*s*f (gated: gate, up, activation output, product = 4*e*s*f),
  //              dropout mask m*s*h;
  //   scores:    softmax output e*a*s^2, with dropout its mask m*a*s^2 and output e*a*s^2.
  // Flash attention keeps no s^2 terms, only the log-sum-exp, 4*a*s bytes (Dao et al. 2022).
  const TransformerDims d = transformer_dims(s, seq_len);
  const double t = d.t, h = d.h, a = d.a, q = d.q, kv = d.kv, f = d.f, routed = d.routed;
  const double mask = s.dropout ? mask_bytes : 0.0;
  const bool attn_dropout = s.attention_dropout_or_default();

  LayerActivations out;
  const double norms = 2 * norm_input_bytes * t * h;
  const double masks = 2 * mask * t * h;
  // Transformer-XL keeps its memory (the previous segment's layer input) and K, V over memory +
  // segment, plus the position-biased query of the second score matmul.
  const double keys = attention_keys(s, t);
  const double xl_query = s.positions == PositionKind::xl_relative ? element_bytes * t * q : 0.0;
  const double attn = element_bytes * (keys * h + t * q + keys * (kv + kv) + t * q) + xl_query;
  const double mlp_in = element_bytes * t * h;
  const double mlp_inner = element_bytes * t * f * (s.gated_mlp ? 4.0 : 2.0) * routed;
  // Mixture of experts: the router keeps its fp32 logits, and each expert's first GEMM its own
  // input, the tokens routed to it (a copy per routed expert of every token).
  const double router = s.is_moe() ? 4.0 * t * static_cast<double>(s.experts) : 0.0;
  const double expert_inputs = s.is_moe() ? element_bytes * t * h * routed : 0.0;
  out.linear_bytes = norms + masks + attn + mlp_in + mlp_inner + router + expert_inputs;
  if (s.is_moe()) {
    out.routed_bytes = mlp_inner + expert_inputs;
    out.routed_input_bytes = expert_inputs;
  }
  // Under tensor parallelism each rank needs the whole input of the QKV and first MLP matmuls,
  // besides the norm inputs and masks: 10*s*b*h of eq. 2 (Korthikanti et al. 2022).
  out.replicated_bytes = norms + masks + 2 * element_bytes * t * h;
  if (attention == AttentionImpl::eager) {
    // Softmax runs at norm_input_bytes (autocast keeps it in fp32); the matmul with V then keeps
    // its own 16-bit copy of the probabilities (after dropout, if any, which keeps a 1-byte mask).
    const double softmax = norm_input_bytes;
    const bool copy = softmax != element_bytes || attn_dropout;
    out.attention_scores_bytes =
        a * t * keys * (softmax + (attn_dropout ? mask_bytes : 0.0) + (copy ? element_bytes : 0.0));
    out.softmax_input_bytes = a * t * keys * softmax;
  } else {
    out.linear_bytes += 4.0 * a * t;  // log-sum-exp per query
  }
  // The block's matmuls in call order, as widths of their outputs: q, k, v, out, (gate,) up, down.
  std::vector<std::pair<double, double>> mms = {
      {q, h}, {kv, h}, {kv, h}, {h, q}};  // {out width, in width}
  if (s.gated_mlp) mms.push_back({f * routed, h});
  mms.push_back({f * routed, h});
  mms.push_back({h, f * routed});
  out.op_selective_bytes = norm_input_bytes * t * h + element_bytes * t * q + 4.0 * a * t;
  for (size_t i = 0; i < mms.size(); ++i) {
    if (i % 2 == 0) {
      out.op_selective_bytes += element_bytes * t * mms[i].first;
    } else {
      out.op_selective_recompute_flops += 2 * t * mms[i].first * mms[i].second;
    }
  }
  return out;
}

}  // namespace gpuplan
