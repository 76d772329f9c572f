#include "gpuplan/transformer.h"

#include <algorithm>
#include <map>
#include <cmath>
#include <utility>
#include <vector>

#include "gpuplan/precision.h"

namespace gpuplan {
namespace {

// Adds a norm's weight (and bias) as `count` tensors, over `width` channels (0: hidden).
void add_norm(std::vector<ParamTensor>& out, const TransformerSpec& s, const char* prefix,
              const char* name, int64_t count, bool in_layers, int64_t width = 0) {
  const int64_t w = width > 0 ? width : s.hidden;
  out.push_back({prefix, name, "weight", ParamGroup::norm, 1, w, count, false, in_layers});
  if (s.norm == NormKind::layernorm && s.norm_bias) {
    out.push_back({prefix, name, "bias", ParamGroup::norm, 1, w, count, false, in_layers});
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

// Multi-head latent attention (DeepSeek-V2 paper, sec. 2.1; HF DeepseekV3Attention): the down
// projections and their norms are replicated across tensor-parallel ranks, the up projections
// split by heads (Megatron-Core's MLASelfAttention builds the down projections "duplicated").
void add_latent_attention(std::vector<ParamTensor>& out, const TransformerSpec& s,
                          const char* prefix, int64_t count) {
  const int64_t qk = s.heads * s.qk_head_dim();
  if (s.q_lora_rank > 0) {
    add_linear(out, ParamGroup::attention, prefix, "q_a_proj", s.q_lora_rank, s.hidden, s.qkv_bias,
               count, false, false);
    add_norm(out, s, prefix, "q_a_layernorm", count, true, s.q_lora_rank);
    add_linear(out, ParamGroup::attention, prefix, "q_b_proj", qk, s.q_lora_rank, false, count,
               true, false);
  } else {
    add_linear(out, ParamGroup::attention, prefix, "q_proj", qk, s.hidden, s.qkv_bias, count, true,
               false);
  }
  add_linear(out, ParamGroup::attention, prefix, "kv_a_proj_with_mqa",
             s.kv_lora_rank + s.qk_rope_head_dim, s.hidden, s.qkv_bias, count, false, false);
  add_norm(out, s, prefix, "kv_a_layernorm", count, true, s.kv_lora_rank);
  add_linear(out, ParamGroup::attention, prefix, "kv_b_proj",
             s.heads * (s.qk_nope_head_dim + s.v_head_dim), s.kv_lora_rank, false, count, true,
             false);
  add_linear(out, ParamGroup::attention, prefix, "o_proj", s.hidden, s.heads * s.v_head_dim,
             s.attn_out_bias, count, false, true);
}

// The lightning indexer of `count` blocks (model.h), replicated across tensor-parallel ranks as
// the reference code builds it (plain Linear layers); its key norm is a LayerNorm with a bias.
void add_indexer(std::vector<ParamTensor>& out, const TransformerSpec& s, const char* prefix,
                 int64_t count) {
  if (s.is_sparse_attention() && count > 0) {
    const int64_t index_width = s.index_heads * s.index_head_dim;
    add_linear(out, ParamGroup::attention, prefix, "indexer.wq_b", index_width, s.q_lora_rank,
               false, count, false, false);
    add_linear(out, ParamGroup::attention, prefix, "indexer.wk", s.index_head_dim, s.hidden, false,
               count, false, false);
    for (const char* param : {"weight", "bias"}) {
      out.push_back({prefix, "indexer.k_norm", param, ParamGroup::norm, 1, s.index_head_dim, count,
                     false, true});
    }
    add_linear(out, ParamGroup::attention, prefix, "indexer.weights_proj", s.index_heads, s.hidden,
               false, count, false, false);
  }
}

// DeepSeek-V4's compressed attention, the tensors every block has (model.h; inference/model.py,
// Attention): the query latent as MLA's, the one key-value head and the grouped low-rank output.
// The query latent and the key-value head are replicated across tensor-parallel ranks, the query
// up-projection split by heads and the output's wo_a by groups (column-parallel), wo_b
// row-parallel (the reference's Linear, ColumnParallelLinear and RowParallelLinear).
void add_compressed_attention(std::vector<ParamTensor>& out, const TransformerSpec& s,
                              const char* prefix, int64_t count) {
  const int64_t q = s.heads * s.head_dim_or_default();
  add_linear(out, ParamGroup::attention, prefix, "wq_a", s.q_lora_rank, s.hidden, false, count,
             false, false);
  add_norm(out, s, prefix, "q_norm", count, true, s.q_lora_rank);
  add_linear(out, ParamGroup::attention, prefix, "wq_b", q, s.q_lora_rank, false, count, true,
             false);
  add_linear(out, ParamGroup::attention, prefix, "wkv", s.head_dim_or_default(), s.hidden, false,
             count, false, false);
  add_norm(out, s, prefix, "kv_norm", count, true, s.head_dim_or_default());
  add_linear(out, ParamGroup::attention, prefix, "wo_a", s.o_groups * s.o_lora_rank, q / s.o_groups,
             false, count, true, false);
  add_linear(out, ParamGroup::attention, prefix, "wo_b", s.hidden, s.o_groups * s.o_lora_rank,
             s.attn_out_bias, count, false, true);
}

// A compressor's tensors, named in static pieces (ParamTensor).
struct CompressorNames {
  const char* wkv;
  const char* wgate;
  const char* ape;
  const char* norm;
};
constexpr CompressorNames kCompressor{"compressor.wkv", "compressor.wgate", "compressor.ape",
                                      "compressor.norm"};
constexpr CompressorNames kIndexCompressor{"indexer.compressor.wkv", "indexer.compressor.wgate",
                                           "indexer.compressor.ape", "indexer.compressor.norm"};

// A compressor of `count` blocks pooling `ratio` tokens into entries of `width` channels (twice
// the width with overlapping windows): wkv and wgate from the hidden state, the position bias ape
// (ratio rows) and the entries' norm, replicated across tensor-parallel ranks.
void add_compressor(std::vector<ParamTensor>& out, const TransformerSpec& s, const char* prefix,
                    const CompressorNames& names, int64_t count, int64_t ratio, int64_t width,
                    bool overlap) {
  const int64_t projected = (overlap ? 2 : 1) * width;
  add_linear(out, ParamGroup::attention, prefix, names.wkv, projected, s.hidden, false, count,
             false, false);
  add_linear(out, ParamGroup::attention, prefix, names.wgate, projected, s.hidden, false, count,
             false, false);
  out.push_back(
      {prefix, names.ape, "weight", ParamGroup::attention, ratio, projected, count, false, true});
  add_norm(out, s, prefix, names.norm, count, true, width);
}

// The compressors of the CSA and HCA blocks and the CSA blocks' indexers (model.h): the indexer's
// queries from the query latent, a weight per head from the hidden state, and its own
// overlapping compressor of index_head_dim keys.
void add_compression(std::vector<ParamTensor>& out, const TransformerSpec& s, const char* prefix) {
  if (!s.is_compressed_attention()) return;
  const int64_t hd = s.head_dim_or_default();
  if (s.csa_layers > 0) {
    add_compressor(out, s, prefix, kCompressor, s.csa_layers, s.csa_ratio, hd, true);
    add_linear(out, ParamGroup::attention, prefix, "indexer.wq_b", s.index_heads * s.index_head_dim,
               s.q_lora_rank, false, s.csa_layers, false, false);
    add_linear(out, ParamGroup::attention, prefix, "indexer.weights_proj", s.index_heads, s.hidden,
               false, s.csa_layers, false, false);
    add_compressor(out, s, prefix, kIndexCompressor, s.csa_layers, s.csa_ratio, s.index_head_dim,
                   true);
  }
  if (s.hca_layers > 0)
    add_compressor(out, s, prefix, kCompressor, s.hca_layers, s.hca_ratio, hd, false);
}

// Hyper-connections (model.h): per block the attention's and the MLP's mixes, `count` blocks.
void add_hyper_connections(std::vector<ParamTensor>& out, const TransformerSpec& s,
                           const char* prefix, int64_t count) {
  if (!s.has_hyper_connections() || count == 0) return;
  const int64_t n = s.hc_streams, mixes = (2 + n) * n;
  const char* names[2][3] = {{"hc_attn_fn", "hc_attn_base", "hc_attn_scale"},
                             {"hc_ffn_fn", "hc_ffn_base", "hc_ffn_scale"}};
  for (const auto& sub : names) {
    out.push_back(
        {prefix, sub[0], "weight", ParamGroup::norm, mixes, n * s.hidden, count, false, true});
    out.push_back({prefix, sub[1], "weight", ParamGroup::norm, 1, mixes, count, false, true});
    out.push_back({prefix, sub[2], "weight", ParamGroup::norm, 1, 3, count, false, true});
  }
}

void add_attention(std::vector<ParamTensor>& out, const TransformerSpec& s, const char* prefix,
                   int64_t count) {
  if (count == 0) return;
  if (s.is_compressed_attention()) {
    add_compressed_attention(out, s, prefix, count);
  } else if (s.is_mla()) {
    add_latent_attention(out, s, prefix, count);
  } else {
    const int64_t q_dim = s.heads * s.head_dim_or_default();
    add_linear(out, ParamGroup::attention, prefix, "q_proj",
               s.attention_output_gate ? 2 * q_dim : q_dim, s.hidden, s.qkv_bias, count, true,
               false);
    const size_t first_kv = out.size();
    add_linear(out, ParamGroup::attention, prefix, "k_proj", s.key_width(), s.hidden, s.qkv_bias,
               count, true, false);
    if (!s.values_are_keys())  // Gemma 4's global blocks: k_proj gives the values too
      add_linear(out, ParamGroup::attention, prefix, "v_proj", s.value_width(), s.hidden,
                 s.qkv_bias, count, true, false);
    if (s.fused_qkv) {  // one QKV weight (and bias) holds K and V
      for (size_t i = first_kv; i < out.size(); ++i) out[i].fused_into_other = true;
    }
    add_linear(out, ParamGroup::attention, prefix, "o_proj", s.hidden,
               s.heads * s.v_head_dim_or_default(), s.attn_out_bias, count, false, true);
  }
  if (s.qk_norm == QkNorm::rmsnorm) {  // Qwen3Attention's q_norm and k_norm over head_dim
    add_norm(out, s, prefix, "q_norm", count, true, s.qk_head_dim());
    add_norm(out, s, prefix, "k_norm", count, true, s.qk_head_dim());
  }
  if (s.qk_norm == QkNorm::rmsnorm_layer) {  // over every query (key) channel, split with heads
    out.push_back({prefix, "q_norm", "weight", ParamGroup::norm, 1, s.heads * s.qk_head_dim(),
                   count, true, true});
    out.push_back({prefix, "k_norm", "weight", ParamGroup::norm, 1, s.kv_heads * s.qk_head_dim(),
                   count, true, true});
  }
  if (s.attention_sinks) {  // GptOssAttention.sinks: one logit per head, split with the heads
    out.push_back(
        {prefix, "sinks", "weight", ParamGroup::attention, 1, s.heads, count, true, true});
  }
}

// Mamba-2 (transformers' NemotronHMamba2Mixer; vLLM's MambaMixer2 splits its heads and groups
// across tensor-parallel ranks): see model.h.
void add_mamba_mixer(std::vector<ParamTensor>& out, const TransformerSpec& s, const char* prefix,
                     int64_t count) {
  const int64_t kw = s.linear_key_width(), vw = s.linear_value_width(), nv = s.linear_value_heads;
  add_linear(out, ParamGroup::attention, prefix, "in_proj", s.linear_in_proj_width(), s.hidden,
             false, count, true, false);
  out.push_back({prefix, "conv1d", "weight", ParamGroup::attention, vw + 2 * kw,
                 s.linear_conv_kernel, count, true, true});
  if (s.linear_conv_bias)
    out.push_back(
        {prefix, "conv1d", "bias", ParamGroup::attention, 1, vw + 2 * kw, count, true, true});
  for (const char* param : {"dt_bias", "A_log", "D"})
    out.push_back({prefix, param, "weight", ParamGroup::attention, 1, nv, count, true, true});
  out.push_back({prefix, "norm", "weight", ParamGroup::norm, 1, vw, count, true, true});
  add_linear(out, ParamGroup::attention, prefix, "out_proj", s.hidden, vw, false, count, false,
             true);
}

// Gated DeltaNet (model.h; transformers' Qwen3NextGatedDeltaNet): in_proj_qkvz gives q, k, v and
// the output gate z, in_proj_ba one beta and one decay input per value head; a depthwise conv1d
// without bias over q, k and v; dt_bias and A_log per value head; an RMSNorm gated by z over each
// value head's channels; out_proj. Heads split across tensor-parallel ranks (vLLM's
// Qwen3NextGatedDeltaNet). Mamba-2 mixers: add_mamba_mixer.
void add_linear_attention(std::vector<ParamTensor>& out, const TransformerSpec& s,
                          const char* prefix, int64_t count) {
  if (count == 0) return;
  if (s.is_mamba()) return add_mamba_mixer(out, s, prefix, count);
  const int64_t kw = s.linear_key_width(), vw = s.linear_value_width(), nv = s.linear_value_heads;
  add_linear(out, ParamGroup::attention, prefix, "in_proj_qkvz", 2 * kw + 2 * vw, s.hidden, false,
             count, true, false);
  add_linear(out, ParamGroup::attention, prefix, "in_proj_ba", 2 * nv, s.hidden, false, count, true,
             false);
  out.push_back({prefix, "conv1d", "weight", ParamGroup::attention, 2 * kw + vw,
                 s.linear_conv_kernel, count, true, true});
  for (const char* param : {"dt_bias", "A_log"})
    out.push_back({prefix, param, "weight", ParamGroup::attention, 1, nv, count, true, true});
  add_norm(out, s, prefix, "norm", count, true, s.linear_value_head_dim);
  add_linear(out, ParamGroup::attention, prefix, "out_proj", s.hidden, vw, false, count, false,
             true);
}

// One gated or plain MLP of width `width`, `n` times (routed: a MoE block's routed experts, which
// read and write expert_io_width() channels).
void add_ffn(std::vector<ParamTensor>& out, const TransformerSpec& s, const char* prefix,
             const char* gate, const char* up, const char* down, int64_t width, int64_t n,
             bool routed) {
  const size_t first = out.size();
  const int64_t io = routed ? s.expert_io_width() : s.hidden;
  if (s.gated_mlp)
    add_linear(out, ParamGroup::mlp, prefix, gate, width, io, s.mlp_bias, n, true, false);
  add_linear(out, ParamGroup::mlp, prefix, up, width, io, s.mlp_bias, n, true, false);
  add_linear(out, ParamGroup::mlp, prefix, down, io, width, s.mlp_bias, n, false, true);
  for (size_t i = first; i < out.size(); ++i) out[i].routed_expert = routed;
}

// The MLPs of `dense` dense blocks (width ffn_hidden) and `moe` MoE blocks: routed experts,
// shared experts and the router.
void add_mlp(std::vector<ParamTensor>& out, const TransformerSpec& s, const char* prefix,
             int64_t dense, int64_t moe) {
  if (dense > 0 && s.mlp_widths.empty()) {
    add_ffn(out, s, prefix, "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj", s.ffn_hidden, dense,
            false);
  }
  if (dense > 0 && !s.mlp_widths.empty()) {  // the blocks of each width together
    std::map<int64_t, int64_t> blocks_by_width;
    for (int64_t w : s.mlp_widths) ++blocks_by_width[w];
    for (const auto& [width, n] : blocks_by_width)
      add_ffn(out, s, prefix, "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj", width, n, false);
  }
  if (moe == 0) return;
  add_ffn(out, s, prefix, "mlp.experts.gate_proj", "mlp.experts.up_proj", "mlp.experts.down_proj",
          s.moe_ffn_hidden_or_default(), moe * s.experts, true);
  if (s.shared_experts > 0) {
    add_ffn(out, s, prefix, "mlp.shared_experts.gate_proj", "mlp.shared_experts.up_proj",
            "mlp.shared_experts.down_proj",
            s.shared_experts * s.shared_expert_ffn_hidden_or_default(), moe, false);
    if (s.shared_expert_gate)
      out.push_back({prefix, "mlp.shared_expert_gate", "weight", ParamGroup::router, 1, s.hidden,
                     moe, false, true});
  }
  if (s.moe_latent > 0) {  // LatentMoE's projections, replicated as TensorRT-LLM builds them
    add_linear(out, ParamGroup::mlp, prefix, "mlp.fc1_latent_proj", s.moe_latent, s.hidden,
               s.mlp_bias, moe, false, false);
    add_linear(out, ParamGroup::mlp, prefix, "mlp.fc2_latent_proj", s.hidden, s.moe_latent,
               s.mlp_bias, moe, false, false);
  }
  out.push_back(
      {prefix, "mlp.router", "weight", ParamGroup::router, s.experts, s.hidden, moe, false, true});
  if (s.router_bias)
    out.push_back(
        {prefix, "mlp.router", "bias", ParamGroup::router, 1, s.experts, moe, false, true});
}

// MoE blocks among the first `n` blocks of a stack (the pattern of TransformerSpec).
int64_t moe_blocks(const TransformerSpec& s, int64_t n) {
  return s.stack(n).moe_layer_count();
}

// Multi-token prediction modules (DeepSeek-V3 README_WEIGHTS.md, "MTP Modules"): enorm, hnorm,
// eh_proj (2h -> h), one block like the model's MoE blocks, shared_head.norm; the embedding and
// the output head are the main model's. They sit after the last block (the last pipeline stage).
void add_mtp(std::vector<ParamTensor>& out, const TransformerSpec& s) {
  const size_t first = out.size();
  const int64_t n = s.mtp_layers;
  add_norm(out, s, "mtp.", "enorm", n, false);
  add_norm(out, s, "mtp.", "hnorm", n, false);
  add_linear(out, ParamGroup::head, "mtp.", "eh_proj", s.hidden, 2 * s.hidden, false, n, false,
             false);
  add_norm(out, s, "mtp.", "input_layernorm", n, false);
  add_attention(out, s, "mtp.self_attn.", n);
  add_indexer(out, s, "mtp.self_attn.", n);
  add_hyper_connections(out, s, "mtp.", n);
  add_norm(out, s, "mtp.", "post_attention_layernorm", n, false);
  add_mlp(out, s, "mtp.", s.is_moe() ? 0 : n, s.is_moe() ? n : 0);
  add_norm(out, s, "mtp.", "shared_head.norm", n, false);
  for (size_t i = first; i < out.size(); ++i) {
    out[i].mtp = true;
    out[i].in_layers = false;
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
    if (s.has_hyper_connections()) {  // the head's mix of the streams into one (model.h)
      const int64_t n = s.hc_streams;
      out.push_back(single("hc_head_fn", "weight", ParamGroup::head, n, n * s.hidden));
      out.push_back(single("hc_head_base", "weight", ParamGroup::head, 1, n));
      out.push_back(single("hc_head_scale", "weight", ParamGroup::head, 1, 1));
    }
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
  out.reserve(80);
  add_embeddings(out, s);

  // Blocks: pre- or post-norm makes no difference to the count: two norms per block (one per
  // layer of a layer pattern).
  add_norm(out, s, "", "input_layernorm", s.layers, true);
  const int64_t global = s.global_geometry_layers();
  add_attention(out, s, "self_attn.", s.attention_layer_count() - global);
  add_attention(out, s.global_blocks(), "self_attn.", global);
  add_indexer(out, s, "self_attn.", s.indexer_layer_count());
  add_compression(out, s, "self_attn.");
  add_hyper_connections(out, s, "", s.layers);
  add_linear_attention(out, s, "linear_attn.", s.linear_layer_count());
  if (!s.has_layer_pattern()) add_norm(out, s, "", "post_attention_layernorm", s.layers, true);
  add_mlp(out, s, "", s.dense_mlp_layer_count(), s.moe_layer_count());
  if (s.decoder_layers > 0) {
    add_norm(out, s, "decoder.", "input_layernorm", s.decoder_layers, true);
    add_attention(out, s, "decoder.self_attn.", s.decoder_layers);
    add_norm(out, s, "decoder.", "cross_attn_layernorm", s.decoder_layers, true);
    add_attention(out, s, "decoder.cross_attn.", s.decoder_layers);
    add_norm(out, s, "decoder.", "post_attention_layernorm", s.decoder_layers, true);
    const int64_t decoder_moe = moe_blocks(s, s.decoder_layers);
    add_mlp(out, s, "decoder.", s.decoder_layers - decoder_moe, decoder_moe);
  }
  if (s.mtp_layers > 0) add_mtp(out, s);
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

namespace {

// Active MLP width of one token through the first stack, summed over its blocks: dense blocks
// ffn_hidden (or their own widths); MoE blocks k routed experts plus the shared ones.
double mlp_width_sum(const TransformerSpec& s) {
  const double moe = static_cast<double>(s.moe_layer_count());
  const double routed =
      static_cast<double>(s.experts_per_token * s.moe_ffn_hidden_or_default() +
                          s.shared_experts * s.shared_expert_ffn_hidden_or_default());
  return s.dense_mlp_width_sum() + moe * routed;
}

// Forward FLOPs of one token through the MLPs of the first stack: every active MLP's matrices at
// 2 h f each, a routed expert's at 2 x its io width x f (LatentMoE: the latent), and LatentMoE's
// two projections per MoE block.
double mlp_flops_per_token(const TransformerSpec& s) {
  const double h = static_cast<double>(s.hidden), matrices = s.gated_mlp ? 3.0 : 2.0;
  const double moe = static_cast<double>(s.moe_layer_count());
  const double routed = static_cast<double>(s.experts_per_token * s.moe_ffn_hidden_or_default());
  const double latent = static_cast<double>(s.moe_latent);
  const double io = static_cast<double>(s.expert_io_width());
  return 2 * matrices * (h * mlp_width_sum(s) - moe * routed * (h - io)) + moe * 4 * h * latent;
}

// Forward FLOPs of one token through the Q, K, V (or MLA's latent) projections of one block.
double qkv_flops_per_token(const TransformerSpec& s) {
  const double h = static_cast<double>(s.hidden), heads = static_cast<double>(s.heads);
  if (s.is_compressed_attention()) {  // wq_a, wq_b and the one key-value head's wkv
    const double ql = static_cast<double>(s.q_lora_rank);
    const double hd = static_cast<double>(s.head_dim_or_default());
    return 2 * h * ql + 2 * ql * heads * hd + 2 * h * hd;
  }
  if (!s.is_mla()) {
    const double q = heads * static_cast<double>(s.head_dim_or_default());
    const double kv =
        static_cast<double>(s.key_width() + (s.values_are_keys() ? 0 : s.value_width()));
    return 2 * h * ((s.attention_output_gate ? 2 * q : q) + kv);
  }
  const double qk = heads * static_cast<double>(s.qk_head_dim());
  const double ql = static_cast<double>(s.q_lora_rank), kvl = static_cast<double>(s.kv_lora_rank);
  const double q = ql > 0 ? 2 * h * ql + 2 * ql * qk : 2 * h * qk;
  return q + 2 * h * (kvl + static_cast<double>(s.qk_rope_head_dim)) +
         2 * kvl * heads * static_cast<double>(s.qk_nope_head_dim + s.v_head_dim);
}

// Sparse attention's indexer projections per token and block: its queries from the query latent,
// its key and the per-head weights from the hidden state.
double indexer_projection_flops_per_token(const TransformerSpec& s) {
  if (!s.is_sparse_attention()) return 0;
  const double n = static_cast<double>(s.index_heads), dk = static_cast<double>(s.index_head_dim);
  const double h = static_cast<double>(s.hidden), ql = static_cast<double>(s.q_lora_rank);
  return 2 * ql * n * dk + 2 * h * dk + 2 * h * n;
}

// Output projection FLOPs per token and block: 2 x heads' value width x hidden, or compressed
// attention's grouped wo_a (each group's channels to o_lora_rank) and wo_b.
double attn_out_flops_per_token(const TransformerSpec& s) {
  const double h = static_cast<double>(s.hidden);
  const double out_width = static_cast<double>(s.heads * s.v_head_dim_or_default());
  if (!s.is_compressed_attention()) return 2 * out_width * h;
  const double low = static_cast<double>(s.o_groups * s.o_lora_rank);
  return 2 * out_width * static_cast<double>(s.o_lora_rank) + 2 * low * h;
}

// The mean over the queries 1..t of min(cap, floor(i / ratio)): the compressed entries a causal
// query sees (cap 0: no cap), counted continuously as i / ratio.
double mean_entries_seen(double t, double ratio, double cap) {
  if (t <= 0 || ratio <= 0) return 0;
  const double uncapped = (t + 1) / (2 * ratio);
  if (cap <= 0 || t / ratio <= cap) return uncapped;
  const double m = cap * ratio;  // queries from here on see cap entries
  return (m * (m + 1) / (2 * ratio) + (t - m) * cap) / t;
}

// Compressed attention's compressor projections (wkv and wgate at twice the width where windows
// overlap) over a sample of t tokens, every compressed block of the stack; the indexers' apart.
double compressor_flops(const TransformerSpec& s, double t) {
  if (!s.is_compressed_attention()) return 0;
  const double h = static_cast<double>(s.hidden), hd = static_cast<double>(s.head_dim_or_default());
  return t * (static_cast<double>(s.csa_layers) * 2 * 2 * h * 2 * hd +
              static_cast<double>(s.hca_layers) * 2 * 2 * h * hd);
}

}  // namespace

double compressor_forward_flops(const TransformerSpec& s, double tokens) {
  return compressor_flops(s, tokens);
}

namespace {

// One block's `per_block` FLOPs averaged over the attention blocks, the global ones at their
// geometry.
template <class PerBlock>
double averaged_over_blocks(const TransformerSpec& s, PerBlock per_block) {
  const double global = static_cast<double>(s.global_geometry_layers());
  if (global == 0) return per_block(s);
  const double all = static_cast<double>(std::max<int64_t>(s.attention_layer_count(), 1));
  return ((all - global) * per_block(s) + global * per_block(s.global_blocks())) / all;
}

}  // namespace

double attention_projection_flops_per_token(const TransformerSpec& s) {
  return averaged_over_blocks(s, qkv_flops_per_token);
}

double attention_output_flops_per_token(const TransformerSpec& s) {
  return averaged_over_blocks(s, attn_out_flops_per_token);
}

double mla_up_projection_share(const TransformerSpec& s) {
  if (!s.is_mla()) return 0;
  const double heads = static_cast<double>(s.heads);
  const double ql = static_cast<double>(s.q_lora_rank), kvl = static_cast<double>(s.kv_lora_rank);
  const double q_up = ql > 0 ? 2 * ql * heads * static_cast<double>(s.qk_head_dim()) : 0.0;
  const double kv_up = 2 * kvl * heads * static_cast<double>(s.qk_nope_head_dim + s.v_head_dim);
  return (q_up + kv_up) / qkv_flops_per_token(s);
}

namespace {

// TransformerDims::kv: MLA's expanded value width; otherwise the mean of the key and value
// widths, so that 2 x kv is the two together where a value head is narrower than a key head.
double kv_dims_width(const TransformerSpec& s) {
  if (s.is_mla()) return static_cast<double>(s.value_width());
  return static_cast<double>(s.key_width() + s.value_width()) / 2;
}

}  // namespace

TransformerDims transformer_dims(const TransformerSpec& s, int64_t seq_len) {
  const double f = static_cast<double>(s.is_moe() ? s.moe_ffn_hidden_or_default() : s.ffn_hidden);
  const double layers = static_cast<double>(std::max<int64_t>(s.layers, 1));
  TransformerDims d{static_cast<double>(transformer_tokens(s, seq_len)),
                    static_cast<double>(s.hidden),
                    static_cast<double>(s.heads),
                    static_cast<double>(s.heads * s.qk_head_dim()),
                    kv_dims_width(s),
                    f,
                    f > 0 ? mlp_width_sum(s) / layers / f : 1.0};
  d.moe_share = static_cast<double>(s.moe_layer_count()) / layers;
  if (s.global_geometry_layers() > 0) {
    // Query and key/value widths averaged over the attention blocks, the global ones at theirs.
    const TransformerSpec g = s.global_blocks();
    const double global = static_cast<double>(s.global_geometry_layers());
    const double share =
        global / static_cast<double>(std::max<int64_t>(s.attention_layer_count(), 1));
    d.q += share * (static_cast<double>(g.heads * g.qk_head_dim()) - d.q);
    d.kv += share * (kv_dims_width(g) - d.kv);
  }
  return d;
}

double attention_keys_per_query(const TransformerSpec& s, double t, bool windowed, bool causal) {
  if (t <= 0) return 0;
  if (!windowed || s.attention_window() <= 0) {
    const double memory = static_cast<double>(s.memory_len);
    return causal ? memory + (t + 1) / 2 : memory + t;
  }
  const double w = static_cast<double>(s.attention_window());
  if (s.local_attention == LocalAttention::chunked) {
    // Whole chunks of w, then a last one of r tokens: each query sees its chunk (up to itself).
    const double chunks = std::floor(t / w), r = t - chunks * w;
    return causal ? (chunks * w * (w + 1) / 2 + r * (r + 1) / 2) / t : (chunks * w * w + r * r) / t;
  }
  if (t <= w) return causal ? (t + 1) / 2 : t;
  // The first w queries see 1..w keys, the rest w each; counted whole, a band of w per query.
  return causal ? (w * (w + 1) / 2 + (t - w) * w) / t : w;
}

double attention_flops_per_pair(const TransformerSpec& s) {
  const double heads = static_cast<double>(s.heads);
  const double scores = s.positions == PositionKind::xl_relative ? 2.0 : 1.0;  // + Q R^T
  return 2 * heads * static_cast<double>(s.qk_head_dim()) * scores +
         2 * heads * static_cast<double>(s.v_head_dim_or_default());
}

double absorbed_attention_flops_per_pair(const TransformerSpec& s) {
  if (!s.is_mla()) return attention_flops_per_pair(s);
  const double heads = static_cast<double>(s.heads);
  const double latent = static_cast<double>(s.kv_lora_rank);
  return 2 * heads * (latent + static_cast<double>(s.qk_rope_head_dim)) + 2 * heads * latent;
}

double indexer_flops_per_pair(const TransformerSpec& s) {
  return s.is_sparse_attention() || (s.is_compressed_attention() && s.csa_layers > 0)
             ? 2 * static_cast<double>(s.index_heads) * static_cast<double>(s.index_head_dim)
             : 0.0;
}

double compressed_keys_per_query(const TransformerSpec& s, double t) {
  if (!s.is_compressed_attention()) return 0;
  return static_cast<double>(s.csa_layers) * mean_entries_seen(t, static_cast<double>(s.csa_ratio),
                                                               static_cast<double>(s.index_topk)) +
         static_cast<double>(s.hca_layers) *
             mean_entries_seen(t, static_cast<double>(s.hca_ratio), 0);
}

double indexer_flops(const TransformerSpec& s, double t) {
  if (s.is_compressed_attention()) {
    // A CSA block's indexer: queries from the latent, head weights and its compressor's two
    // overlapping projections per token; each query scores the compressed keys before it.
    if (t <= 0 || s.csa_layers <= 0) return 0;
    const double n = static_cast<double>(s.index_heads), dk = static_cast<double>(s.index_head_dim);
    const double h = static_cast<double>(s.hidden), ql = static_cast<double>(s.q_lora_rank);
    const double projections = 2 * ql * n * dk + 2 * h * n + 2 * 2 * h * 2 * dk;
    const double keys = mean_entries_seen(t, static_cast<double>(s.csa_ratio), 0);
    return static_cast<double>(s.csa_layers) * t * (projections + keys * indexer_flops_per_pair(s));
  }
  if (!s.is_sparse_attention() || t <= 0) return 0;
  // Each query scores every key up to itself: (t + 1) / 2 keys on average.
  return static_cast<double>(s.indexer_layer_count()) * t *
         (indexer_projection_flops_per_token(s) + (t + 1) / 2 * indexer_flops_per_pair(s));
}

double linear_attention_core_flops_per_token(const TransformerSpec& s, double tokens) {
  if (!s.is_hybrid_linear() || tokens <= 0) return 0;
  const double dk = static_cast<double>(s.linear_key_head_dim);
  const double dv = static_cast<double>(s.linear_value_head_dim);
  const double c = std::min(s.linear_chunk_tokens(), tokens);
  const double conv = 2.0 * static_cast<double>(s.linear_conv_kernel) *
                      static_cast<double>(2 * s.linear_key_width() + s.linear_value_width());
  const double heads = static_cast<double>(s.linear_value_heads);
  if (s.is_mamba()) {
    const double groups = static_cast<double>(s.linear_key_heads);
    return conv + groups * 2 * c * dk + heads * (2 * c * dv + 4 * dk * dv);
  }
  const double per_head = 6 * dk * dv + 2 * c * (3 * dk + 2 * dv) + 2 * c * c / 3;
  return conv + heads * per_head;
}

double linear_attention_proj_flops_per_token(const TransformerSpec& s) {
  if (!s.is_hybrid_linear()) return 0;
  const double h = static_cast<double>(s.hidden);
  const double vw = static_cast<double>(s.linear_value_width());
  return 2 * h * static_cast<double>(s.linear_in_proj_width()) + 2 * vw * h;
}

double linear_attention_state_bytes(const TransformerSpec& s, double element_bytes, int tp) {
  if (!s.is_hybrid_linear()) return 0;
  const double ranks = std::max(tp, 1);
  const double heads = std::ceil(static_cast<double>(s.linear_value_heads) / ranks);
  const double channels =
      static_cast<double>(2 * s.linear_key_width() + s.linear_value_width()) / ranks;
  const double state = heads * static_cast<double>(s.linear_key_head_dim * s.linear_value_head_dim);
  const double conv =
      channels * static_cast<double>(std::max<int64_t>(s.linear_conv_kernel - 1, 0));
  return state * (s.linear_state_fp32 ? 4.0 : element_bytes) + conv * element_bytes;
}

double attention_pairs(const TransformerSpec& s, double t, bool causal) {
  const double windowed = static_cast<double>(s.windowed_layer_count());
  const double full = static_cast<double>(s.attention_layer_count()) - windowed;
  // Compressed attention: each block's window, and the compressed entries (always causal).
  return t * (full * attention_keys_per_query(s, t, false, causal) +
              windowed * attention_keys_per_query(s, t, true, causal) +
              compressed_keys_per_query(s, t));
}

namespace {

// Channels one key-value head caches per token: its key and its value (the key alone where it is
// the value).
double kv_head_channels(const TransformerSpec& s) {
  return static_cast<double>(s.head_dim_or_default() +
                             (s.values_are_keys() ? 0 : s.v_head_dim_or_default()));
}

}  // namespace

KvCacheSize kv_cache_size(const TransformerSpec& s, double element_bytes, double context, int tp) {
  KvCacheSize k;
  const double ranks = std::max(tp, 1);
  k.windowed_layers = static_cast<double>(s.windowed_layer_count());
  k.full_layers =
      static_cast<double>(s.attention_layer_count() + s.decoder_layers) - k.windowed_layers;
  k.context_tokens = std::max(context, 0.0);
  if (s.is_mla()) {
    k.bytes_per_token_per_layer =
        static_cast<double>(s.kv_lora_rank + s.qk_rope_head_dim) * element_bytes;
  } else if (s.is_compressed_attention()) {
    // One head that is both key and value, kept whole on every rank (wkv is replicated).
    k.bytes_per_token_per_layer = static_cast<double>(s.head_dim_or_default()) * element_bytes;
  } else {
    // Each rank keeps ceil(kv_heads / tp) heads: replicated once tp exceeds kv_heads.
    const double heads = std::ceil(static_cast<double>(s.kv_heads_or_default()) / ranks);
    k.bytes_per_token_per_layer = heads * kv_head_channels(s) * element_bytes;
  }
  k.full_bytes_per_token_per_layer = k.bytes_per_token_per_layer;
  if (s.global_geometry_layers() > 0) {
    // Global blocks of their own geometry; a key that is the value is cached once.
    const TransformerSpec g = s.global_blocks();
    const double heads = std::ceil(static_cast<double>(g.kv_heads_or_default()) / ranks);
    k.full_bytes_per_token_per_layer = heads * kv_head_channels(g) * element_bytes;
  }
  // Sliding blocks keep the last W tokens; chunked blocks the current chunk, at most W. Sparse
  // attention selects from every token, so it keeps them all, each with its fp8 index key and an
  // fp32 scale per 128 channels (DeepSeek-V3.2-Exp inference/model.py: k_cache, k_scale_cache).
  k.window_tokens = s.sliding_window > 0
                        ? std::min(k.context_tokens, static_cast<double>(s.sliding_window))
                        : k.context_tokens;
  if (s.is_sparse_attention()) {
    const double dk = static_cast<double>(s.index_head_dim);
    k.index_bytes_per_token_per_layer = dk + 4.0 * std::ceil(dk / 128.0);
  }
  double index_bytes = k.index_bytes_per_token_per_layer *
                       static_cast<double>(s.indexer_layer_count()) * k.context_tokens;
  k.state_layers = static_cast<double>(s.linear_layer_count());
  k.state_bytes = k.state_layers * linear_attention_state_bytes(s, 2.0, tp);
  if (s.is_compressed_attention()) {
    // Compressed attention keeps each block's window and its compressed entries, and a CSA
    // block's compressed index keys, at the cache's element size (the reference allocates
    // kv_cache buffers of window + max_seq_len / ratio entries, and the indexer's of
    // max_seq_len / ratio, in its default dtype); its indexer reads every index key and the
    // block the top-k entries.
    const double ctx = k.context_tokens;
    k.compressed_entries = s.compressed_entries(ctx);
    const double csa_entries =
        s.csa_ratio > 0 ? std::floor(ctx / static_cast<double>(s.csa_ratio)) : 0.0;
    k.index_bytes_per_token_per_layer = s.csa_ratio > 0
                                            ? static_cast<double>(s.index_head_dim) *
                                                  element_bytes / static_cast<double>(s.csa_ratio)
                                            : 0.0;
    index_bytes = static_cast<double>(s.csa_layers) * csa_entries *
                  static_cast<double>(s.index_head_dim) * element_bytes;
    const double read_entries = s.compressed_entries_read(ctx);
    const double window = k.bytes_per_token_per_layer * k.windowed_layers * k.window_tokens;
    k.total_bytes = window + k.bytes_per_token_per_layer * k.compressed_entries + index_bytes;
    k.read_bytes = window + k.bytes_per_token_per_layer * read_entries + index_bytes;
    return k;
  }
  k.total_bytes = k.full_bytes_per_token_per_layer * k.full_layers * k.context_tokens +
                  k.bytes_per_token_per_layer * k.windowed_layers * k.window_tokens + index_bytes +
                  k.state_bytes;
  k.read_bytes = s.is_sparse_attention()
                     ? k.bytes_per_token_per_layer * k.windowed_layers *
                               std::min(k.context_tokens, static_cast<double>(s.index_topk)) +
                           index_bytes
                     : k.total_bytes;
  return k;
}

namespace {

// The linear-attention blocks of a sample of t tokens: in_proj with the Q, K, V projections,
// out_proj with the output projections, the rule itself apart.
void add_linear_attention_flops(const TransformerSpec& s, double t, TransformerFlops& out) {
  if (!s.is_hybrid_linear()) return;
  const double linear = static_cast<double>(s.linear_layer_count());
  const double out_proj = 2 * static_cast<double>(s.linear_value_width() * s.hidden);
  out.qkv_proj += linear * t * (linear_attention_proj_flops_per_token(s) - out_proj);
  out.attn_out_proj += linear * t * out_proj;
  out.linear_core += linear * t * linear_attention_core_flops_per_token(s, t);
}

// Vision transformers' patch embedding, the pooler and the output head over a sample of t tokens.
void add_embedding_and_head_flops(const TransformerSpec& s, double t, TransformerFlops& out) {
  const double h = static_cast<double>(s.hidden);
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
}

}  // namespace

TransformerFlops transformer_forward_flops(const TransformerSpec& s, int64_t seq_len) {
  // Per token and block (Narayanan et al. 2021, "Efficient Large-Scale Language Model Training
  // on GPU Clusters", appendix: 24*h^2 + 4*s*h per token per layer for an MLP of 4h, MHA):
  //   QKV 2*h*(q + 2*kv) (MLA: its down and up projections), scores and weighted values
  //   attention_flops_per_pair per key, output 2*q*h, MLP 2*h*f*(2 or 3 matrices) per active
  //   expert (routed and shared) or dense MLP, router 2*h*E in MoE blocks.
  // Plain variables, not structured bindings: lambdas below capture them.
  const TransformerDims d = transformer_dims(s, seq_len);
  const double t = d.t, h = d.h, q = d.q;
  const double out_flops = attn_out_flops_per_token(s);
  const double per_pair = attention_flops_per_pair(s);
  const double keys = attention_keys(s, t);
  const double qkv = qkv_flops_per_token(s);
  // mlp_flops: per token, summed over the blocks (mlp_flops_per_token); moe: blocks with a
  // router.
  auto block = [&](TransformerFlops& out, double n, double tokens, double pairs, double mlp_flops,
                   double moe) {
    // Transformer-XL projects memory + segment (its qkv_net runs on both).
    out.qkv_proj += n * (tokens + keys - t) * qkv;
    out.attention_core += pairs * per_pair;
    out.attn_out_proj += n * tokens * out_flops;
    out.mlp += tokens * mlp_flops;
    out.router += moe * tokens * 2 * h * static_cast<double>(s.experts);
  };

  TransformerFlops out;
  const double moe_blocks = static_cast<double>(s.moe_layer_count());
  const double attention_layers = static_cast<double>(s.attention_layer_count());
  // Full-attention blocks of their own geometry: their projections and pairs at it.
  const double global = static_cast<double>(s.global_geometry_layers());
  const double global_pairs = global * t * attention_keys_per_query(s, t, false);
  block(out, attention_layers - global, t, attention_pairs(s, t) - global_pairs,
        mlp_flops_per_token(s), s.is_moe() ? moe_blocks : 0.0);
  if (global > 0) {
    const TransformerSpec g = s.global_blocks();
    out.qkv_proj += global * t * qkv_flops_per_token(g);
    out.attention_core += global_pairs * attention_flops_per_pair(g);
    out.attn_out_proj += global * t * attn_out_flops_per_token(g);
  }
  add_linear_attention_flops(s, t, out);
  out.qkv_proj += compressor_flops(s, t);
  out.indexer = indexer_flops(s, t);
  if (s.decoder_layers > 0) {
    // Decoder self-attention and MLP over the target tokens (taken as long as the input), plus
    // cross-attention: queries from the target, keys and values from the encoder output.
    const double dl = static_cast<double>(s.decoder_layers);
    const TransformerSpec dec = s.stack(s.decoder_layers);
    block(out, dl, t, dl * t * keys, mlp_flops_per_token(dec),
          s.is_moe() ? static_cast<double>(dec.moe_layer_count()) : 0.0);
    out.qkv_proj += dl * t * qkv;
    out.attention_core += dl * t * t * per_pair;
    out.attn_out_proj += dl * t * 2 * q * h;
  }
  if (s.mtp_layers > 0) {
    // Each MTP module: eh_proj on [norm(h); norm(embedding)], one block like a MoE block over the
    // sequence, and the shared head's logits for every position (DeepSeek-V3 report, sec. 2.2).
    const double n = static_cast<double>(s.mtp_layers);
    TransformerSpec one = s.stack(1);
    one.first_dense_layers = 0;
    one.moe_layer_step = 1;
    one.sliding_window = 0;
    // A sparse-attention model's MTP block selects its keys as the others do.
    // DeepSeek-V4's MTP block reads its window (its compress ratio is 0).
    const bool windowed = s.is_sparse_attention() || s.is_compressed_attention();
    block(out, n, t, n * t * attention_keys_per_query(s, t, windowed), n * mlp_flops_per_token(one),
          s.is_moe() ? n : 0.0);
    out.indexer += n * indexer_flops(one, t);
    out.head += n * t * (2 * (2 * h) * h + 2 * h * head_logits(s));
  }
  add_embedding_and_head_flops(s, t, out);
  return out;
}

namespace {

// The block's matmuls in call order, as {out width, in width}: q, k, v, out (MLA: q_a, q_b,
// kv_a, kv_b, out), then (gate,) up, down over the active MLP width.
std::vector<std::pair<double, double>> block_matmuls(const TransformerSpec& s,
                                                     const TransformerDims& d) {
  const double h = d.h, q = d.q, kv = d.kv, f_active = d.mlp_active();
  std::vector<std::pair<double, double>> mms;
  if (s.is_mla()) {
    const double ql = static_cast<double>(s.q_lora_rank), kvl = static_cast<double>(s.kv_lora_rank);
    if (ql > 0) {
      mms.push_back({ql, h});
      mms.push_back({q, ql});
    } else {
      mms.push_back({q, h});
    }
    mms.push_back({kvl + static_cast<double>(s.qk_rope_head_dim), h});
    mms.push_back({d.a * static_cast<double>(s.qk_nope_head_dim + s.v_head_dim), kvl});
    mms.push_back({h, d.a * static_cast<double>(s.v_head_dim)});
  } else {
    mms = {{q, h}, {kv, h}, {kv, h}, {h, q}};
  }
  if (s.gated_mlp) mms.push_back({f_active, h});
  mms.push_back({f_active, h});
  mms.push_back({h, f_active});
  return mms;
}

}  // namespace

namespace {

// The parts of a block's saved activations (transformer_layer_activations' terms) that each of
// Megatron's recompute modules drops, averaged over the blocks as the MLP terms are.
void recomputable_parts(const TransformerSpec& s, const TransformerDims& d, double keys, double e,
                        double inner, LayerActivations& out) {
  LayerActivations::Recomputable& r = out.recomputable;
  const double t = d.t, h = d.h, layers = static_cast<double>(std::max<int64_t>(s.layers, 1));
  const double moe_blocks = static_cast<double>(s.moe_layer_count()) / layers;
  // inner: MLP terms per width (the activation output: 1).
  const double norms = static_cast<double>(s.sublayer_count()) / layers;  // per block
  r.norm_outputs = {norms * e * t * h, norms * e * t * h};
  if (s.is_mla()) {
    const double ql = static_cast<double>(s.q_lora_rank), kvl = static_cast<double>(s.kv_lora_rank);
    const double latents = e * (t * ql + keys * kvl);
    r.mla_up = {e * (t * d.q + keys * (d.q + d.kv)) + latents, latents};
  }
  const double dense_f = s.dense_mlp_width_sum() / layers;
  r.dense_mlp = {e * t * dense_f * inner, e * t * dense_f};
  if (!s.is_moe()) return;
  const double routed_f = moe_blocks * static_cast<double>(s.experts_per_token) *
                          static_cast<double>(s.moe_ffn_hidden_or_default());
  const double shared_f = moe_blocks * static_cast<double>(s.shared_experts) *
                          static_cast<double>(s.shared_expert_ffn_hidden_or_default());
  r.expert_act_out = {e * t * routed_f, e * t * routed_f};
  r.expert_act_in = {e * t * routed_f * (s.gated_mlp ? 2.0 : 1.0), 0.0};
  r.shared_experts = {e * t * shared_f * inner, e * t * shared_f};
  const double router = 4.0 * t * static_cast<double>(s.experts) * moe_blocks;
  r.moe_layer = {router + out.routed_bytes + r.shared_experts.bytes,
                 e * t * routed_f + r.shared_experts.matmul_input_bytes};
}

// What torchtitan's op-level selective checkpointing keeps of a block (LayerActivations): its
// input, the attention output with the log-sum-exp, every second matmul's output; and the FLOPs
// of the matmuls whose outputs it drops. `out_in`: the output projection's input width.
void op_selective_parts(const TransformerSpec& s, const TransformerDims& d, double out_in,
                        double element_bytes, double norm_input_bytes, LayerActivations& out) {
  const double t = d.t;
  const std::vector<std::pair<double, double>> mms = block_matmuls(s, d);
  out.op_selective_bytes = norm_input_bytes * t * d.h + element_bytes * t * out_in + 4.0 * d.a * t;
  for (size_t i = 0; i < mms.size(); ++i) {
    if (i % 2 == 0) {
      out.op_selective_bytes += element_bytes * t * mms[i].first;
    } else {
      out.op_selective_recompute_flops += 2 * t * mms[i].first * mms[i].second;
    }
  }
}

}  // namespace

namespace {

// Tensors of q's width a block keeps beyond its queries: Transformer-XL's position-biased query
// for its second score matmul; gated attention's gate and the attention's own output.
double q_width_terms(const TransformerSpec& s) {
  return (s.positions == PositionKind::xl_relative ? 1.0 : 0.0) +
         (s.attention_output_gate ? 2.0 : 0.0);
}

// What a linear-attention block keeps for backward per sample of t tokens (none without linear
// attention), as fla's chunked gated delta rule and the layer around it save it (our count from
// their autograd functions): the in_proj input (t h), the convolution's input and output over
// q, k and v (2 t (2 kw + vw)), the gate z (t vw), beta and the decay input (2 t nv), the decay
// in fp32 (4 t nv bytes), the solved chunk triangle (c per token and value head), the rule's
// output (the gated norm's input) and the norm's output (out_proj's input), t vw each. Mamba-2
// (our count from mamba_ssm's MambaChunkScanCombinedFn, which saves its inputs and the chunk
// states) keeps one dt per head instead of beta and the decay, the chunk's C B^T per key group
// (c per token and group) for the triangle, and each chunk's states (nv dk dv per chunk). The
// matmul inputs among them: in_proj's and out_proj's. The shares: the blocks with softmax
// attention and with linear attention (with a layer pattern, the rest mix no tokens).
struct LinearAttentionSaved {
  double bytes = 0, matmul_input_bytes = 0;
  double attention_share = 1, linear_share = 0;
};
LinearAttentionSaved linear_attention_saved(const TransformerSpec& s, double t, double e) {
  const double layers = std::max(1.0, static_cast<double>(s.layers));
  const double attention_share = static_cast<double>(s.attention_layer_count()) / layers;
  if (!s.is_hybrid_linear()) return {0, 0, attention_share, 0};
  const double share = static_cast<double>(s.linear_layer_count()) / layers;
  const double h = static_cast<double>(s.hidden);
  const double kw = static_cast<double>(s.linear_key_width());
  const double vw = static_cast<double>(s.linear_value_width());
  const double nv = static_cast<double>(s.linear_value_heads);
  const double c = std::min(s.linear_chunk_tokens(), t);
  const double common = e * t * (h + 2 * (2 * kw + vw) + vw + 2 * vw) + 4.0 * t * nv;
  const double bytes =
      s.is_mamba() ? common + e * t * (nv + c * static_cast<double>(s.linear_key_heads)) +
                         e * std::ceil(t / c) * nv *
                             static_cast<double>(s.linear_key_head_dim * s.linear_value_head_dim)
                   : common + e * t * (2 * nv + c * nv);
  return {bytes, e * t * (h + vw), attention_share, share};
}

// What a softmax-attention block keeps for backward per sample of t tokens (its terms of
// transformer_layer_activations), and of it the matmul inputs: the QKV input (keys x h) and the
// output projection's; MLA's latents, which feed q_b and kv_b, with their norms' inputs.
struct SoftmaxAttentionSaved {
  double bytes = 0, matmul_input_bytes = 0;
};
SoftmaxAttentionSaved softmax_attention_saved(const TransformerSpec& s, const TransformerDims& d,
                                              double keys, double k_width, double out_in, double e,
                                              double n) {
  const double t = d.t, h = d.h, q = d.q, kv = d.kv;
  SoftmaxAttentionSaved out;
  out.bytes = e * (keys * h + t * q * (1 + q_width_terms(s)) + keys * (k_width + kv) + t * out_in);
  out.matmul_input_bytes = e * (keys * h + t * out_in);
  if (s.is_mla()) {
    const double latents =
        t * static_cast<double>(s.q_lora_rank) + keys * static_cast<double>(s.kv_lora_rank);
    out.bytes += (n + e) * latents;
    out.matmul_input_bytes += e * latents;
  }
  if (s.is_compressed_attention()) {
    // The query latent (its norm's input and wq_b's), wo_b's input (the groups' low-rank
    // outputs), and a compressed block's kv and gate projections (compressor_flops' widths),
    // averaged over the blocks.
    const double latent = t * static_cast<double>(s.q_lora_rank);
    const double low = t * static_cast<double>(s.o_groups * s.o_lora_rank);
    const double hd = static_cast<double>(s.head_dim_or_default());
    const double compressed =
        t * 2 * hd * (2 * static_cast<double>(s.csa_layers) + static_cast<double>(s.hca_layers)) /
        std::max(1.0, static_cast<double>(s.layers));
    out.bytes += (n + e) * latent + e * (low + compressed);
    out.matmul_input_bytes += e * (latent + low);
  }
  return out;
}

}  // namespace

LayerActivations transformer_layer_activations(const TransformerSpec& s, int64_t seq_len,
                                               double element_bytes, double norm_input_bytes,
                                               AttentionImpl attention, double mask_bytes,
                                               bool fused_swiglu) {
  // Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models",
  // sec. 4.1: per layer 34*s*b*h + 5*a*s^2*b bytes at 16-bit with dropout. Term by term, with
  // e = element_bytes, n = norm_input_bytes, q/kv the query and key/value widths:
  //   attention: norm input n*s*h, QKV input e*s*h, Q and K e*s*(q+kv), V e*s*kv,
  //              output-projection input e*s*q, residual dropout mask m*s*h (m = mask_bytes);
  //              MLA also keeps its latents: the query latent (norm input and q_b input) and
  //              the KV latent (norm input and kv_b input);
  //   MLP:       norm input n*s*h, first matmul input e*s*h, activation input and output
  //              2*e*s*f (gated: gate, up, activation output, product = 4*e*s*f; a fused
  //              SwiGLU keeps gate and up as one input, and the product: 3*e*s*f) per active
  //              expert or dense MLP, averaged over the blocks; router logits in MoE blocks;
  //              dropout mask m*s*h;
  //   scores:    softmax output e*a*s^2, with dropout its mask m*a*s^2 and output e*a*s^2.
  // Flash attention keeps no s^2 terms, only the log-sum-exp, 4*a*s bytes (Dao et al. 2022).
  // The result is the average block: MoE and dense blocks differ only in the MLP terms.
  const TransformerDims d = transformer_dims(s, seq_len);
  const double t = d.t, h = d.h, a = d.a, q = d.q, kv = d.kv, f_active = d.mlp_active();
  const double mask = s.dropout ? mask_bytes : 0.0;
  const bool attn_dropout = s.attention_dropout_or_default();
  LayerActivations out;
  const double sublayers = static_cast<double>(s.sublayer_count()) /
                           std::max(1.0, static_cast<double>(s.layers));  // per block: 2, or 1
  const double norms = sublayers * norm_input_bytes * t * h;
  const double masks = sublayers * mask * t * h;
  // Transformer-XL keeps its memory (the previous segment's layer input) and K, V over memory +
  // segment (attention_keys), and the queries of its extra matmul (q_width_terms).
  const double keys = attention_keys(s, t);
  // K per token: q wide for MLA (each head's key expanded from the latent), kv otherwise.
  const double k_width = s.is_mla() ? q : kv;
  const double out_in = static_cast<double>(s.heads * s.v_head_dim_or_default());
  const SoftmaxAttentionSaved softmax_attention =
      softmax_attention_saved(s, d, keys, k_width, out_in, element_bytes, norm_input_bytes);
  // Hybrid models: attention's and linear attention's terms by their blocks' shares.
  const LinearAttentionSaved linear = linear_attention_saved(s, t, element_bytes);
  const double attn =
      linear.attention_share * softmax_attention.bytes + linear.linear_share * linear.bytes;
  // A layer pattern's blocks are single-purpose: the MLP terms by the share with an MLP.
  const double mlp_in = s.mlp_share() * element_bytes * t * h;
  const double inner = !s.gated_mlp ? 2.0 : fused_swiglu ? 3.0 : 4.0;
  const double mlp_inner = element_bytes * t * f_active * inner;
  const double router = s.is_moe() ? 4.0 * t * static_cast<double>(s.experts) * d.moe_share : 0.0;
  // Each routed expert's first GEMM keeps its own input, the tokens sent to it: a copy of every
  // token per routed expert in MoE blocks.
  const double routed = d.moe_share * static_cast<double>(s.is_moe() ? s.experts_per_token : 0);
  const double expert_inputs =
      element_bytes * t * static_cast<double>(s.expert_io_width()) * routed;
  // Hyper-connections (model.h): each sublayer keeps the n-stream residual it reads its input
  // from and writes its output into (n x h), and its output before the write (h).
  const double streams = static_cast<double>(s.hc_streams);
  const double hyper =
      s.has_hyper_connections() ? sublayers * element_bytes * t * h * (streams + 1) : 0.0;
  out.linear_bytes = norms + masks + attn + mlp_in + mlp_inner + router + expert_inputs + hyper;
  out.routed_input_bytes = expert_inputs;
  out.routed_bytes = expert_inputs + element_bytes * t * routed *
                                         static_cast<double>(s.moe_ffn_hidden_or_default()) * inner;
  // Under tensor parallelism each rank needs the whole input of the QKV and first MLP matmuls,
  // besides the norm inputs and masks: 10*s*b*h of eq. 2 (Korthikanti et al. 2022).
  out.replicated_bytes = norms + masks + sublayers * element_bytes * t * h;
  // The mixers' matmul inputs, the MLP input (t x h) and the MLP's activation output, the second
  // matmul's input (t x f per active expert).
  out.matmul_input_bytes = linear.attention_share * softmax_attention.matmul_input_bytes +
                           linear.linear_share * linear.matmul_input_bytes +
                           element_bytes * (s.mlp_share() * t * h + t * f_active);
  out.matmul_input_replicated_bytes = sublayers * element_bytes * t * h;
  if (attention == AttentionImpl::eager) {
    // Softmax runs at norm_input_bytes (autocast keeps it in fp32); the matmul with V then keeps
    // its own 16-bit copy of the probabilities (after dropout, if any, which keeps a 1-byte mask).
    const double softmax = norm_input_bytes;
    const bool copy = softmax != element_bytes || attn_dropout;
    out.attention_scores_bytes =
        a * t * keys * (softmax + (attn_dropout ? mask_bytes : 0.0) + (copy ? element_bytes : 0.0));
    out.softmax_input_bytes = a * t * keys * softmax;
  } else {
    out.linear_bytes += linear.attention_share * 4.0 * a * t;  // log-sum-exp per query
  }
  recomputable_parts(s, d, keys, element_bytes, inner, out);
  op_selective_parts(s, d, out_in, element_bytes, norm_input_bytes, out);
  return out;
}

double stored_tensor_bytes(const ParamTensor& t, const WeightFormatBytes& format) {
  const bool outer = t.group == ParamGroup::embedding || t.group == ParamGroup::head;
  const bool quantised =
      t.rows > 1 &&
      (format.experts_only
           ? t.routed_expert
           : t.group == ParamGroup::mlp || (format.attention && t.group == ParamGroup::attention) ||
                 (format.embeddings && outer));
  const bool matrix = t.rows > 1 && !outer;
  return static_cast<double>(t.numel()) * (quantised ? format.matmul
                                           : matrix  ? format.unquantised
                                                     : 2.0);
}

}  // namespace gpuplan
