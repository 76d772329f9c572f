#pragma once
// Workloads: what is trained or served. A Model is either a transformer described by its
// hyperparameters or a layer graph (see graph.h). Both come from data/models/*.json, a custom
// description, or an uploaded Hugging Face config.json.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/graph.h"
#include "gpuplan/result.h"

namespace gpuplan {

enum class NormKind { layernorm, rmsnorm };
enum class PositionKind { learned, rotary, relative, none, xl_relative };
enum class HeadKind { lm, classifier, none };
// relu2: squared ReLU (Nemotron-4); like ReLU, one element-wise kernel with no matmul FLOPs.
enum class MlpActivation { gelu, relu, silu, relu2 };
// Local attention layers: a sliding window of the last `sliding_window` tokens (Mistral 7B v0.1,
// GPT-OSS, Gemma 3), or chunks of `sliding_window` tokens, each query seeing the keys of its own
// chunk up to itself (Llama 4's attention_chunk_size).
enum class LocalAttention { sliding, chunked };
// Norm of queries and keys per head before the scores: none, RMSNorm with a weight of head_dim
// (Qwen3, GLM-4.5's q_norm/k_norm), or an L2 norm without parameters (Llama 4 Scout).
// Norms of queries and keys: RMSNorm per head (Qwen3, a weight of head_dim), L2 without weight
// (Llama 4), or RMSNorm over all of a layer's query (key) channels at once (MiniMax-M2's
// qk_norm_type "per_layer": weights of heads x head_dim and kv_heads x head_dim).
enum class QkNorm { none, rmsnorm, l2, rmsnorm_layer };
// Rotary position scaling as config.json's rope_scaling names it; it changes no parameter, only
// how far positions reach (kept so max_positions can be traced to it).
enum class RopeScaling { none, linear, dynamic, yarn, llama3, longrope };
// How a linear-attention block mixes tokens: the gated delta rule (Qwen3-Next's
// Qwen3NextGatedDeltaNet) or Mamba-2's state-space duality (Dao and Gu 2024, "Transformers are
// SSMs", arXiv 2405.21060; Nemotron-H's NemotronHMamba2Mixer).
enum class LinearMixer { gated_delta, mamba2 };

// A decoder-only, encoder-only, encoder-decoder or vision transformer, by its hyperparameters.
// Zero means "derive": kv_heads = heads, head_dim = hidden / heads.
struct TransformerSpec {
  int64_t layers = 0;          // blocks (the encoder's, for encoder-decoder models)
  int64_t decoder_layers = 0;  // encoder-decoder only: decoder blocks with cross-attention
  int64_t hidden = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;  // fewer than heads: grouped-query attention
  int64_t head_dim = 0;
  int64_t ffn_hidden = 0;  // per expert for mixture-of-experts models
  bool gated_mlp = false;  // SwiGLU/GeGLU: three matrices instead of two
  MlpActivation activation = MlpActivation::gelu;
  int64_t vocab = 0;  // 0 for vision models
  int64_t max_positions = 0;
  PositionKind positions = PositionKind::learned;
  int64_t relative_buckets = 0;  // T5-style relative attention bias (first layer of each stack)
  // Transformer-XL (Dai et al. 2019): every layer also attends to memory_len cached hidden states
  // of the previous segment; keys and values (and, as its qkv_net does, queries) are projected
  // over memory + segment. xl_relative positions add a second score matmul against projected
  // sinusoid positions (r_net per layer, biases u and v shared by all layers).
  int64_t memory_len = 0;
  // Adaptive input and softmax (Baevski & Auli 2019; Grave et al. 2017): the vocabulary cut at
  // adaptive_cutoffs into a head and tail clusters of embedding width hidden / adaptive_div^i.
  std::vector<int64_t> adaptive_cutoffs;
  int64_t adaptive_div = 1;
  int64_t token_types = 0;       // BERT segment embeddings
  bool embedding_norm = false;   // a norm right after the embeddings (BERT)
  bool tied_embeddings = false;  // output projection shares the input embedding
  NormKind norm = NormKind::layernorm;
  bool norm_bias = true;  // LayerNorm with bias (T5's LayerNorm has none)
  bool qkv_bias = false;
  // One Linear computes Q, K and V (GPT-2's c_attn, MPT's Wqkv, Transformer-XL's qkv_net): the
  // same parameters in one tensor instead of three (it matters to per-tensor optimizer loops).
  bool fused_qkv = false;
  bool attn_out_bias = false;
  bool mlp_bias = false;
  bool final_norm = true;
  bool pooler = false;             // BERT pooler: dense hidden x hidden + tanh
  bool lm_head_transform = false;  // BERT MLM head: dense + norm before the decoder
  bool lm_head_bias = false;
  HeadKind head = HeadKind::lm;
  int64_t num_classes = 0;  // classifier head
  bool dropout = false;     // dropout on the residual stream (hidden states) in training
  // Dropout on the attention probabilities; unset: as `dropout` (most configs set both alike).
  std::optional<bool> attention_dropout;
  // Mixture of experts: experts > 1 replaces the MLP of the MoE blocks by `experts` routed MLPs
  // of width moe_ffn_hidden and a router (DeepSeek-V3's DeepseekV3MoE, Llama 4's Llama4TextMoe).
  int64_t experts = 0;
  int64_t experts_per_token = 0;
  int64_t moe_ffn_hidden = 0;  // routed expert width (moe_intermediate_size); 0: ffn_hidden
  // Shared experts every token passes through besides its routed ones, as one MLP of width
  // shared_experts x shared_expert_ffn_hidden (DeepSeek's n_shared_experts; Llama 4's one).
  int64_t shared_experts = 0;
  int64_t shared_expert_ffn_hidden = 0;  // 0: moe_ffn_hidden
  // A sigmoid gate, Linear(hidden, 1), scales the shared experts' output (Qwen3-Next's
  // shared_expert_gate).
  bool shared_expert_gate = false;
  // Which blocks are MoE: block i (from 0) when i >= first_dense_layers and (i + 1) is a multiple
  // of moe_layer_step (DeepSeek's first_k_dense_replace; Llama 4's interleave_moe_layer_step,
  // Qwen's decoder_sparse_step). The others have a dense MLP of width ffn_hidden.
  int64_t first_dense_layers = 0;
  int64_t moe_layer_step = 1;
  bool router_bias = false;  // the router Linear has a bias (GPT-OSS; DeepSeek's correction bias)
  // Multi-head latent attention (DeepSeek-V2/V3, Kimi K2), on when kv_lora_rank > 0: queries
  // through a rank-q_lora_rank bottleneck (0: one projection), keys and values from a shared
  // latent of kv_lora_rank plus a rotary key of qk_rope_head_dim shared by all heads; per head
  // qk_nope_head_dim + qk_rope_head_dim query/key and v_head_dim value channels.
  int64_t q_lora_rank = 0;
  int64_t kv_lora_rank = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t qk_rope_head_dim = 0;
  // Also without MLA: value channels per head where they differ from the query/key head_dim
  // (MiMo-V2-Flash: 192-channel queries and keys, 128-channel values); 0: head_dim.
  int64_t v_head_dim = 0;
  // Local attention: sliding_window > 0 makes blocks attend to at most that many keys, except
  // every full_attention_every-th block (i + 1 a multiple; 0: none) which attends to all
  // (GPT-OSS alternates, 2; Gemma 3 has 5 local to 1 global, 6; Llama 4 chunks 3 of 4, 4).
  int64_t sliding_window = 0;
  int64_t full_attention_every = 0;
  // The full blocks are the first of every full_attention_every instead (i a multiple: block 0,
  // n, 2n, ...; Step-3.7's layer_types): ceil(layers / n) of them.
  bool full_attention_first = false;
  // The first full_attention_leading blocks attend to all keys as well (MiMo-V2-Flash's
  // hybrid_layer_pattern: block 0, then every 6th from block 5).
  int64_t full_attention_leading = 0;
  LocalAttention local_attention = LocalAttention::sliding;
  // Global blocks of their own geometry (Gemma 4): with a sliding window, the full-attention
  // blocks have heads of global_head_dim channels (0: head_dim) and global_kv_heads key-value
  // heads (0: kv_heads); with global_kv_shared their key is also their value (attention_k_eq_v:
  // no v_proj, one cached vector per key-value head). global_blocks() is such a block's spec.
  int64_t global_head_dim = 0;
  int64_t global_kv_heads = 0;
  bool global_kv_shared = false;
  bool attention_sinks = false;  // a learned sink logit per head and block (GPT-OSS)
  // The sinks are the windowed blocks' alone (MiMo-V2-Flash: add_swa_attention_sink_bias without
  // add_full_attention_sink_bias); the full blocks are then global_blocks() without them.
  bool sinks_windowed_only = false;
  // DeepSeek Sparse Attention (DeepSeek-V3.2, on when index_topk > 0; MLA with a query latent):
  // in every block a lightning indexer of index_heads heads of index_head_dim scores each query
  // against all keys before it, and the block's attention reads only the index_topk best keys.
  // Its tensors per block (DeepSeek-V3.2-Exp inference/model.py, class Indexer): wq_b from the
  // query latent to the index heads, wk from the hidden state to one index key, a LayerNorm of
  // the key, weights_proj to a weight per head; the cache keeps every token's index key in fp8
  // with an fp32 scale per 128 channels beside the latent.
  int64_t index_heads = 0;
  int64_t index_head_dim = 0;
  int64_t index_topk = 0;
  // Of those blocks, index_shared_layers have no indexer of their own: each reuses the keys the
  // nearest earlier indexer selected (GLM-5.2's indexer_types "shared": 57 of 78 blocks), so it
  // has no indexer tensors, scores no keys and caches no index keys.
  int64_t index_shared_layers = 0;
  // DeepSeek-V4's compressed attention (deepseek-ai/DeepSeek-V4-Flash, inference/model.py, class
  // Attention), on when o_lora_rank > 0. Queries through the q_lora_rank latent with its norm (as
  // MLA's); one key-value head of head_dim channels that is both key and value (wkv, kv_norm);
  // a learned sink logit per head (attention_sinks). Every block attends to the last
  // sliding_window tokens plus compressed entries: csa_layers blocks pool every csa_ratio tokens
  // into one entry (over overlapping windows of 2 x csa_ratio, so their compressor projects to
  // 2 x head_dim) and read the index_topk entries a lightning indexer of index_heads x
  // index_head_dim selects (its keys compressed alike); hca_layers blocks pool every hca_ratio
  // tokens (no overlap) and read all of them; the rest read the window alone. Each compressor has
  // wkv and wgate from the hidden state, a position bias of ratio rows (ape) and a norm. The
  // output is grouped and low-rank: the heads in o_groups groups, each group's channels
  // projected to o_lora_rank (wo_a), then all groups' to hidden (wo_b).
  int64_t o_groups = 0;
  int64_t o_lora_rank = 0;
  int64_t csa_layers = 0;
  int64_t csa_ratio = 0;
  int64_t hca_layers = 0;
  int64_t hca_ratio = 0;
  // Manifold-constrained hyper-connections (DeepSeek-V4's hc_mult): the residual stream is
  // hc_streams copies of hidden; before each sublayer a mix of (2 + n) x n weights, computed from
  // the normed streams by hc_fn (an n x hidden input), reads one input from them and after it
  // writes the output back (Block.hc_attn_fn/hc_ffn_fn with a base of as many and 3 scales); the
  // head mixes the streams into one (hc_head_fn: n x n hidden, a base of n, 1 scale). 0 or 1: a
  // plain residual.
  int64_t hc_streams = 0;
  QkNorm qk_norm = QkNorm::none;
  // Gated attention (Qwen3-Next, Qwen3.5): q_proj also yields a sigmoid gate of heads x head_dim
  // that multiplies the attention output before o_proj (Qwen3NextAttention), doubling q_proj.
  bool attention_output_gate = false;
  // Linear attention, on when linear_value_heads > 0: every block except each
  // full_attention_every-th (i + 1 a multiple) mixes tokens by the gated delta rule (Yang, Kautz
  // and Hatamizadeh 2024, "Gated Delta Networks", arXiv 2412.06464; Qwen3-Next's
  // Qwen3NextGatedDeltaNet) instead of softmax attention: queries and keys of linear_key_heads
  // heads of linear_key_head_dim, values of linear_value_heads heads of linear_value_head_dim,
  // each value head carrying a key-dim x value-dim state from token to token; a depthwise causal
  // convolution of linear_conv_kernel taps over q, k and v. Such a block keeps no KV cache, only
  // its state and the convolution's last taps per sequence.
  int64_t linear_key_heads = 0;
  int64_t linear_value_heads = 0;
  int64_t linear_key_head_dim = 0;
  int64_t linear_value_head_dim = 0;
  int64_t linear_conv_kernel = 0;
  // Mamba-2 maps onto the same fields: its B and C (n_groups groups of ssm_state_size) are the
  // keys and queries, its x (mamba_num_heads heads of mamba_head_dim) the values, and its state
  // per head ssm_state_size x mamba_head_dim. Its in_proj yields z, x, B, C and one dt per head;
  // the convolution (with a bias where use_conv_bias) runs over x, B and C; dt_bias, A_log and D
  // per head; a gated RMSNorm over all of x's channels; out_proj.
  LinearMixer linear_mixer = LinearMixer::gated_delta;
  int64_t linear_chunk = 0;        // tokens per chunk of the chunked scan; 0: the mixer's default
  bool linear_conv_bias = false;   // the convolution has a bias per channel
  bool linear_state_fp32 = false;  // the recurrent state is cached in fp32 (mamba_ssm_cache_dtype)
  // Single-purpose layers (Nemotron-H's hybrid_override_pattern): when set, block i (from 0) is
  // the one sublayer its character names behind its own norm: 'M' a linear-attention mixer, '*'
  // softmax attention, '-' a dense MLP, 'E' a mixture-of-experts MLP; layers is its length.
  // Empty: every block is attention (or linear attention) then an MLP, two norms.
  std::string layer_pattern;
  // With a layer pattern: each dense MLP layer's ('-') width, in order, where they differ
  // (DeciLM's per-block ffn_mult: Llama-3.3-Nemotron-Super-49B); empty: ffn_hidden each.
  std::vector<int64_t> mlp_widths;
  // LatentMoE (Nemotron 3 Super's moe_latent_size): the routed experts run in a latent of this
  // width, fc1_latent_proj taking the token down to it after the router and fc2_latent_proj back
  // up after the experts; the shared experts stay at hidden. 0: experts at hidden.
  int64_t moe_latent = 0;
  // Multi-token prediction modules after the last block (DeepSeek-V3's num_nextn_predict_layers):
  // each an embedding norm, hidden norm, a 2h -> h projection and one block like the last MoE
  // block, sharing the embedding and output head. Training runs them; inference does not (unless
  // as a speculative draft), so run_spec drops them for inference.
  int64_t mtp_layers = 0;
  RopeScaling rope_scaling = RopeScaling::none;
  double rope_scaling_factor = 1.0;
  int64_t rope_original_max_positions = 0;  // before scaling (original_max_position_embeddings)
  // Vision transformers: the input is an image cut into patches (plus a class token).
  int64_t image_size = 0;
  int64_t patch_size = 0;
  int64_t channels = 3;
  bool class_token = false;

  int64_t kv_heads_or_default() const { return kv_heads > 0 ? kv_heads : heads; }
  int64_t head_dim_or_default() const { return head_dim > 0 ? head_dim : hidden / heads; }
  bool is_moe() const { return experts > 1; }
  bool is_mla() const { return kv_lora_rank > 0; }
  int64_t moe_ffn_hidden_or_default() const {
    return moe_ffn_hidden > 0 ? moe_ffn_hidden : ffn_hidden;
  }
  int64_t shared_expert_ffn_hidden_or_default() const {
    return shared_expert_ffn_hidden > 0 ? shared_expert_ffn_hidden : moe_ffn_hidden_or_default();
  }
  // Blocks of the (first) stack whose MLP is a mixture of experts; the rest are dense.
  bool has_layer_pattern() const { return !layer_pattern.empty(); }
  int64_t pattern_count(char kind) const {
    return static_cast<int64_t>(std::count(layer_pattern.begin(), layer_pattern.end(), kind));
  }
  int64_t moe_layer_count() const {
    if (!is_moe()) return 0;
    if (has_layer_pattern()) return pattern_count('E');
    const int64_t step = moe_layer_step > 0 ? moe_layer_step : 1;
    return layers / step - std::min(first_dense_layers, layers) / step;
  }
  // DeepSeek Sparse Attention (DeepSeek-V3.2); a compressed-attention model's indexer is its own.
  bool is_sparse_attention() const { return index_topk > 0 && !is_compressed_attention(); }
  bool is_compressed_attention() const { return o_lora_rank > 0; }
  bool has_hyper_connections() const { return hc_streams > 1; }
  // Blocks of the (first) stack that run a lightning indexer (compressed attention: its CSA
  // blocks, which index compressed keys).
  int64_t indexer_layer_count() const {
    if (is_compressed_attention()) return csa_layers;
    return is_sparse_attention() ? layers - std::min(index_shared_layers, layers) : 0;
  }
  // Compressed attention: the entries the compressed blocks keep for a sequence of t tokens,
  // summed over the blocks (an entry per csa_ratio or hca_ratio tokens, as they complete).
  double compressed_entries(double t) const {
    if (!is_compressed_attention() || t <= 0) return 0;
    auto per_block = [&](int64_t ratio) {
      return ratio > 0 ? std::floor(t / static_cast<double>(ratio)) : 0.0;
    };
    return static_cast<double>(csa_layers) * per_block(csa_ratio) +
           static_cast<double>(hca_layers) * per_block(hca_ratio);
  }
  // Of them, what a query at position t reads: a CSA block's index_topk at most, every HCA entry.
  double compressed_entries_read(double t) const {
    if (!is_compressed_attention() || t <= 0) return 0;
    const double csa = csa_ratio > 0 ? std::floor(t / static_cast<double>(csa_ratio)) : 0.0;
    return compressed_entries(t) -
           static_cast<double>(csa_layers) * (csa - std::min(csa, static_cast<double>(index_topk)));
  }
  bool is_hybrid_linear() const { return linear_value_heads > 0; }
  // Blocks of the (first) stack that run linear attention; the rest run softmax attention (with a
  // layer pattern, the 'M' and '*' layers; its MLP layers mix no tokens).
  int64_t linear_layer_count() const {
    if (has_layer_pattern()) return pattern_count('M');
    if (!is_hybrid_linear()) return 0;
    return full_attention_every > 0 ? layers - full_attention_blocks() : layers;
  }
  // Blocks that every full_attention_every-th places (i + 1 a multiple, or i with
  // full_attention_first).
  int64_t full_attention_blocks() const {
    if (full_attention_every <= 0) return 0;
    const int64_t n = full_attention_every, lead = std::min(full_attention_leading, layers);
    return full_attention_first ? (layers + n - 1) / n : layers / n + lead - lead / n;
  }
  int64_t attention_layer_count() const {
    return has_layer_pattern() ? pattern_count('*') : layers - linear_layer_count();
  }
  // Blocks of the (first) stack with a dense MLP (with a layer pattern, its '-' layers).
  int64_t dense_mlp_layer_count() const {
    return has_layer_pattern() ? pattern_count('-') : layers - moe_layer_count();
  }
  // The dense MLP blocks' widths summed: ffn_hidden each, or mlp_widths.
  double dense_mlp_width_sum() const {
    if (mlp_widths.empty())
      return static_cast<double>(dense_mlp_layer_count()) * static_cast<double>(ffn_hidden);
    double sum = 0;
    for (int64_t w : mlp_widths) sum += static_cast<double>(w);
    return sum;
  }
  // Sublayers (token mixers and MLPs) of the first stack, each behind its own norm: two per
  // block, or one per layer of a pattern. A block-equivalent is two of them.
  int64_t sublayer_count() const { return has_layer_pattern() ? layers : 2 * layers; }
  double block_equivalents() const { return 0.5 * static_cast<double>(sublayer_count()); }
  // The same model cut to a stack of `n` blocks laid out by the block rules (first_dense_layers,
  // moe_layer_step), without a layer pattern: a decoder stack, an MTP module's block.
  TransformerSpec stack(int64_t n) const {
    TransformerSpec out = *this;
    out.layers = n;
    out.layer_pattern.clear();
    out.index_shared_layers = 0;  // an MTP module's or a drafter's block runs its own indexer
    out.csa_layers = 0;  // DeepSeek-V4's MTP block reads its window only (compress_ratios' last 0)
    out.hca_layers = 0;
    return out;
  }
  // Shares of the blocks that have a token mixer (attention or linear) and an MLP: 1 and 1
  // without a layer pattern.
  double mixer_share() const {
    return static_cast<double>(attention_layer_count() + linear_layer_count()) /
           static_cast<double>(std::max<int64_t>(layers, 1));
  }
  double mlp_share() const {
    return static_cast<double>(dense_mlp_layer_count() + moe_layer_count()) /
           static_cast<double>(std::max<int64_t>(layers, 1));
  }
  bool has_global_geometry() const {
    return global_head_dim > 0 || global_kv_heads > 0 || global_kv_shared || sinks_windowed_only;
  }
  // The full-attention blocks of a sliding-window model with a global geometry, as a spec whose
  // every block is one (no window); the model itself where they have no geometry of their own.
  TransformerSpec global_blocks() const {
    TransformerSpec g = *this;
    if (!has_global_geometry()) return g;
    if (global_head_dim > 0) g.head_dim = global_head_dim;
    if (global_kv_heads > 0) g.kv_heads = global_kv_heads;
    if (sinks_windowed_only) g.attention_sinks = g.sinks_windowed_only = false;
    g.sliding_window = 0;
    g.full_attention_every = 0;
    g.full_attention_leading = 0;
    return g;
  }
  // Full-attention blocks costed with global_blocks(): those of a model with a global geometry.
  int64_t global_geometry_layers() const {
    return has_global_geometry() ? attention_layer_count() - windowed_layer_count() : 0;
  }
  // Whether this spec's attention blocks use one projection as key and value: a global_blocks()
  // spec of a global_kv_shared model (its windowed blocks keep their own values).
  bool values_are_keys() const { return global_kv_shared && windowed_layer_count() == 0; }
  bool is_mamba() const { return is_hybrid_linear() && linear_mixer == LinearMixer::mamba2; }
  // Tokens per chunk of the linear mixer's chunked scan: fla's chunk_gated_delta_rule runs 64;
  // Mamba-2's chunk_size defaults to 256 (mamba_ssm's Mamba2).
  double linear_chunk_tokens() const {
    if (linear_chunk > 0) return static_cast<double>(linear_chunk);
    return linear_mixer == LinearMixer::mamba2 ? 256.0 : 64.0;
  }
  // Width of the tokens a routed expert reads and writes: the latent, else hidden.
  int64_t expert_io_width() const { return moe_latent > 0 ? moe_latent : hidden; }
  // Widths of a linear-attention block: all key heads' channels and all value heads'.
  int64_t linear_key_width() const { return linear_key_heads * linear_key_head_dim; }
  int64_t linear_value_width() const { return linear_value_heads * linear_value_head_dim; }
  // Its input projections' output width: q, k, v and the gate z, with one beta and one decay
  // input per value head (gated delta rule) or one dt per head (Mamba-2).
  int64_t linear_in_proj_width() const {
    return 2 * linear_key_width() + 2 * linear_value_width() +
           (linear_mixer == LinearMixer::mamba2 ? 1 : 2) * linear_value_heads;
  }
  // Keys a windowed block's query attends to at most: the window, or sparse attention's top-k
  // (whose count, min(keys before the query, k), is a sliding window's).
  int64_t attention_window() const { return sliding_window > 0 ? sliding_window : index_topk; }
  // Blocks of the (first) stack that attend to at most attention_window() keys; the rest attend
  // to all keys. Every block of a sparse-attention model selects its keys.
  int64_t windowed_layer_count() const {
    if (is_sparse_attention() || is_compressed_attention()) return layers;
    if (sliding_window <= 0 || is_hybrid_linear()) return 0;
    return full_attention_every > 0 ? layers - full_attention_blocks() : layers;
  }
  // Query/key and value channels per head (MLA: nope + rope and v_head_dim).
  int64_t qk_head_dim() const {
    return is_mla() ? qk_nope_head_dim + qk_rope_head_dim : head_dim_or_default();
  }
  int64_t v_head_dim_or_default() const {
    return v_head_dim > 0 ? v_head_dim : head_dim_or_default();
  }
  // Width of the keys and of the values of one block (each key-value head's channels times the
  // heads; MLA: as expanded per head).
  int64_t key_width() const {
    return is_mla() ? heads * qk_head_dim() : kv_heads_or_default() * head_dim_or_default();
  }
  int64_t value_width() const {
    return (is_mla() ? heads : kv_heads_or_default()) * v_head_dim_or_default();
  }
  bool is_vision() const { return patch_size > 0; }
  bool is_adaptive() const { return !adaptive_cutoffs.empty(); }
  bool attention_dropout_or_default() const { return attention_dropout.value_or(dropout); }
};

// Where a model's architecture comes from.
struct Source {
  std::string title;
  std::string url;
  std::string date;  // YYYY-MM-DD
};

enum class ModelKind { transformer, graph };

// One workload: architecture plus what it is usually run with.
struct Model {
  std::string id;    // file name in data/models, e.g. "gpt2-small"
  std::string name;  // e.g. "GPT-2 small"
  // The name on the Chinese page: the same model name, its remark in Chinese, e.g. "GLM-4.5（MoE
  // 模型）" for "GLM-4.5 (MoE)". Every zoo entry has one (load_catalog); "" for a custom model.
  std::string name_zh;
  std::string task;  // "causal-lm", "masked-lm", "seq2seq", "image-classification", ...
  ModelKind kind = ModelKind::transformer;
  TransformerSpec transformer;  // kind == transformer
  Graph graph;                  // kind == graph
  Source source;
  int64_t default_seq_len = 0;     // transformers with a token input
  int64_t default_resolution = 0;  // image models (CNNs and vision transformers)
  int64_t dataset_size = 0;        // samples per epoch of the dataset named below, 0 if none
  std::string dataset;
  // The attention kernel the model's reference implementation runs, where "auto" would say
  // otherwise (defaults.attention in data/models: an --attention value), with where that is read;
  // "" for none.
  std::string default_attention;
  std::string default_attention_source;
  std::vector<std::string> aliases;  // other names users type, e.g. "meta-llama/Llama-2-7b-hf"
  // The weight format its published checkpoint ships in, where not 16-bit (defaults.weights, as
  // its config.json's quantization_config says): "fp8" (DeepSeek-V3's block-scaled e4m3),
  // "mxfp4" (GPT-OSS's experts); "" for a 16-bit checkpoint. A serving row that states no
  // precision runs the checkpoint as published.
  std::string checkpoint_weights;
  // The checkpoint as a user named it, where its name set checkpoint_weights
  // ("nvidia/Llama-3.3-70B-Instruct-FP8"); "" for the zoo entry's own checkpoint.
  std::string checkpoint_name;
  // Layer graphs: costs at default_resolution, computed once when the model is loaded.
  std::optional<GraphCosts> default_graph_costs;
};

// The checkpoint a note names: as the user named it, else the zoo entry's id.
inline const std::string& checkpoint_label(const Model& m) {
  return m.checkpoint_name.empty() ? m.id : m.checkpoint_name;
}

// A layer graph's costs at `resolution`: the precomputed ones at the default resolution, or
// computed into `storage`. The pointer is valid while `model` and `storage` live.
Result<const GraphCosts*> model_graph_costs(const Model& model, int64_t resolution,
                                            std::optional<GraphCosts>& storage);

// A decoder-only language model (GPT- or LLaMA-style, no encoder, no image input): what the
// serving model times and Megatron-LM's pretrain_gpt.py trains.
inline bool is_decoder_only_lm(const Model& m) {
  return m.kind == ModelKind::transformer && m.task == "causal-lm" &&
         m.transformer.decoder_layers == 0 && !m.transformer.is_vision();
}

// Checks a transformer's hyperparameters for consistency; the message names the field.
std::optional<Error> validate_transformer(const TransformerSpec& spec, const std::string& where);

}  // namespace gpuplan
