#pragma once
// Closed-form costs of a transformer: its parameter tensors, forward FLOPs per sample and the
// activations kept for backward, each term named so callers can show or test it.

#include <cstdint>
#include <string>
#include <vector>

#include "gpuplan/model.h"

namespace gpuplan {

// Which part of the network a parameter tensor belongs to.
enum class ParamGroup { embedding, attention, mlp, router, norm, head };

// One kind of parameter tensor, repeated `count` times (e.g. once per layer).
struct ParamTensor {
  // PyTorch-like name in static pieces (no allocation): prefix + module + "." + param, e.g.
  // "decoder.cross_attn." + "q_proj" + "." + "weight".
  const char* prefix = "";
  const char* module = "";
  const char* param = "weight";
  ParamGroup group = ParamGroup::embedding;
  int64_t rows = 0;              // out features (1 for vectors)
  int64_t cols = 0;              // in features
  int64_t count = 1;             // how many such tensors in the whole model
  bool tensor_parallel = false;  // split across tensor-parallel ranks (Megatron-LM layout)
  bool in_layers = false;        // repeated per block (divided across pipeline stages)
  // Stored inside another tensor of the list, a fused projection (GPT-2's c_attn, MPT's Wqkv
  // hold K and V with Q): its values count in numel(), but it is no parameter tensor of its own.
  bool fused_into_other = false;
  bool routed_expert = false;  // one of a MoE block's routed experts (a token reads k of them)
  bool mtp = false;            // in a multi-token prediction module (training only)
  int64_t numel() const { return rows * cols * count; }
  std::string name() const { return std::string(prefix) + module + "." + param; }
};

// Every parameter tensor of the model; the sum of numel() is the parameter count.
std::vector<ParamTensor> transformer_parameters(const TransformerSpec& spec);

// Bytes of a whole tensor as a checkpoint in `format` stores it: the blocks' MLP (and, where the
// format quantises them, attention) matrices at its bytes, scales included; the rest at 16 bits
// (embeddings and head too unless the format quantises them, as GGUF does).
struct WeightFormatBytes;  // precision.h
double stored_tensor_bytes(const ParamTensor& t, const WeightFormatBytes& format);

// Tokens one sample feeds through the blocks (patches + class token for vision models).
int64_t transformer_tokens(const TransformerSpec& spec, int64_t seq_len);

// Keys each query attends to: the segment plus Transformer-XL's memory.
inline double attention_keys(const TransformerSpec& spec, double tokens) {
  return tokens + static_cast<double>(spec.memory_len);
}

// The one place attention-core work is counted. Keys a query attends to, on average over the
// `tokens` queries of a sample, in one self-attention block: every key (the segment and
// Transformer-XL's memory: the full score matrix) in a full block; at most the window in a
// windowed block (a sliding window of the last W keys, or Llama 4's chunks of W). causal: each
// query sees only the keys up to itself ((t + 1) / 2 on average without a window); a window is
// causal by construction, so it counts the same either way once t exceeds it.
double attention_keys_per_query(const TransformerSpec& spec, double tokens, bool windowed,
                                bool causal = false);
// FLOPs of one query-key pair in one block, all heads: Q K^T over the query/key channels and
// P V over the value channels (Transformer-XL adds Q R^T), 2 FLOPs per multiply-add.
double attention_flops_per_pair(const TransformerSpec& spec);
// The same pair when MLA attends over its cached latent directly, W_UK folded into the query and
// W_UV into the output (DeepSeek-V2 report, arXiv 2405.04434, sec. 2.1.3), as decode kernels run
// it (FlashMLA; vLLM's and TensorRT-LLM's MLA decode): every head scores the kv_lora_rank latent
// plus the shared rotary key and sums the latent, 2 H (d_c + d_r) + 2 H d_c. Not MLA: as above.
double absorbed_attention_flops_per_pair(const TransformerSpec& spec);
// Sparse attention's lightning indexer: FLOPs of one query scoring one key (all index heads), and
// of one sample of t tokens in all blocks: its projections per token plus each query scoring
// every key up to itself (the DeepSeek-V3.2-Exp report: the indexer is O(L^2), the attention it
// selects for O(L k)). 0 without sparse attention.
double indexer_flops_per_pair(const TransformerSpec& spec);
double indexer_flops(const TransformerSpec& spec, double tokens);
// Linear attention's token mixing per token, all value heads of one block (model.h), computed in
// chunks of c = min(spec.linear_chunk_tokens(), tokens) tokens; at one token (a decode step) the
// recurrent update's count. With key width dk, value width dv per head (2 FLOPs a multiply-add):
//   gated delta rule (fla's chunk_gated_delta_rule, which vLLM and Qwen3-Next's reference code
//   run; Yang et al. 2024, sec. 3), per value head: the state's three products (q S, the delta
//   u - w S, the update k^T v') 6 dk dv; within the chunk the decayed k k^T, w and u through the
//   inverted triangle, q k^T and its product with v', 2c (3 dk + 2 dv); inverting the c x c
//   triangle, 2c^2/3;
//   Mamba-2's chunked scan (Dao and Gu 2024, sec. 6: the SSD algorithm's four steps), per key
//   group C B^T within the chunk, 2c dk; per value head the masked scores times x, 2c dv, the
//   chunk's state B^T x, 2 dk dv, and the output from the state C S, 2 dk dv;
// and for both the depthwise convolution over q, k and v (Mamba-2: C, B and x).
double linear_attention_core_flops_per_token(const TransformerSpec& spec, double tokens);
// Projections of one linear-attention block per token (2 FLOPs per multiply-add): in_proj_qkvz
// and in_proj_ba (Mamba-2: one in_proj of z, x, B, C and dt) in, out_proj out.
double linear_attention_proj_flops_per_token(const TransformerSpec& spec);
// What one sequence keeps per linear-attention block on one of `tp` ranks, whatever its length:
// the value heads' key-dim x value-dim states and the convolution's last (kernel - 1) inputs of
// q, k and v (vLLM's MambaStateShapeCalculator: gated_delta_net_state_shape, mamba2_state_shape),
// at element_bytes; the states in fp32 where the model caches them so (linear_state_fp32).
double linear_attention_state_bytes(const TransformerSpec& spec, double element_bytes, int tp = 1);
// Query-key pairs of one sample summed over the first stack's self-attention blocks, full and
// windowed blocks each with their keys per query (linear-attention blocks have none).
double attention_pairs(const TransformerSpec& spec, double tokens, bool causal = false);
// Compressed attention (model.h): the compressed entries a query of a causal sample of `tokens`
// reads on average, summed over the stack's blocks (a CSA block at most index_topk); 0 otherwise.
double compressed_keys_per_query(const TransformerSpec& spec, double tokens);

// Bytes of KV cache per token of one block, by kind of block, and what a sequence of `context`
// tokens holds (29: the single 2 x layers x kv_heads x head_dim formula is 6-8x off for MLA and
// windowed models). element_bytes: per cached element (2 at bf16, 1 at fp8). tp: ranks the
// heads are split over; a GQA/MQA head is replicated on ranks past kv_heads (as vLLM does), and
// MLA's latent, shared by all heads, is kept whole on every rank.
struct KvCacheSize {
  double full_layers = 0;      // blocks that keep every token (softmax attention)
  double windowed_layers = 0;  // blocks that keep at most the window
  double window_tokens = 0;    // tokens a windowed block keeps at this context
  // One token of one block on one rank: K and V of its kv heads, or MLA's compressed latent
  // (kv_lora_rank + qk_rope_head_dim, DeepSeek-V3: 512 + 64; DeepSeek-V2 paper, sec. 2.1.2).
  // Attention sinks (GPT-OSS) are a learned logit per head, not cached tokens: no bytes.
  double bytes_per_token_per_layer = 0;
  // The same for a full block where it differs (Gemma 4's global blocks: global_blocks()).
  double full_bytes_per_token_per_layer = 0;
  // One token in every block, as if each kept every token (the windows not applied).
  double every_block_bytes_per_token() const {
    return full_bytes_per_token_per_layer * full_layers +
           bytes_per_token_per_layer * windowed_layers;
  }
  // Sparse attention's index key per token of each block, kept beside the latent.
  double index_bytes_per_token_per_layer = 0;
  double context_tokens = 0;
  // Compressed attention (model.h): the entries its compressed blocks keep, all blocks together,
  // each of bytes_per_token_per_layer; its index keys count in index_bytes_per_token_per_layer,
  // per token of context (one key per csa_ratio tokens).
  double compressed_entries = 0;
  // Linear-attention blocks keep a fixed state per sequence instead (at 16 bits: vLLM's mamba
  // cache dtypes default to the model's), read and rewritten by every step.
  double state_layers = 0;
  double state_bytes = 0;  // one sequence, all its linear-attention blocks, one rank
  double total_bytes = 0;  // one sequence of context_tokens, all blocks of the stack, with state
  double token_bytes() const { return total_bytes - state_bytes; }
  // What one new token's attention reads of it: total_bytes, except that sparse attention reads
  // the latent of its top-k keys only (and every index key).
  double read_bytes = 0;
  // Average over the context: total_bytes / context_tokens (the state counted in).
  double bytes_per_token() const { return context_tokens > 0 ? total_bytes / context_tokens : 0; }
};
KvCacheSize kv_cache_size(const TransformerSpec& spec, double element_bytes, double context_tokens,
                          int tp = 1);

// Logits a token computes in the head: the vocabulary, or with an adaptive softmax the head
// cluster and one logit per tail cluster (tail clusters run only for tokens whose target lies
// in them, which depends on the text: not counted).
double head_logits(const TransformerSpec& spec);

// The sizes the cost formulas use, as doubles: tokens per sample t, hidden h, heads a, query
// width q = heads x query/key head dim, key/value width kv (MLA: heads x v_head_dim, as expanded
// from the latent), MLP width f (a routed expert's for MoE models), and routed: the MLP width a
// token passes through per block, averaged over the blocks, in units of f (k routed experts,
// plus the shared experts and the dense blocks of DeepSeek-style models), so f x routed is the
// average active MLP width; moe_share: the share of blocks that route (their router runs).
struct TransformerDims {
  double t, h, a, q, kv, f, routed;
  double moe_share = 0;
  double mlp_active() const { return f * routed; }
};
TransformerDims transformer_dims(const TransformerSpec& spec, int64_t seq_len);
// Multi-latent attention: the share of a block's Q, K, V projection FLOPs in its up projections
// (q_b_proj and kv_b_proj, from the latents to the heads); 0 without MLA.
double mla_up_projection_share(const TransformerSpec& spec);
// Forward FLOPs of one token through one softmax-attention block's projections: the query, key
// and value ones (MLA: its down and up projections; compressed attention: the query latent's and
// the key-value head's, its compressors apart), and the output's (compressed attention: wo_a and
// wo_b); averaged over the blocks where global blocks have a geometry of their own.
double attention_projection_flops_per_token(const TransformerSpec& spec);
double attention_output_flops_per_token(const TransformerSpec& spec);
// Compressed attention's compressor projections over a sample of `tokens`, every compressed block
// of the stack (its CSA blocks' indexers in indexer_flops); 0 for other models.
double compressor_forward_flops(const TransformerSpec& spec, double tokens);

// Forward FLOPs of one sample, by term; multiply-add = 2 FLOPs. Attention is computed over the
// full seq x seq score matrix, as implementations do (Narayanan et al. 2021, sec. 3 and app.),
// windowed blocks over their window (attention_pairs). Multi-token prediction modules, when the
// spec has them, add their block to each term and their projection and logits to the head.
struct TransformerFlops {
  double qkv_proj = 0;        // Q, K, V projections
  double attention_core = 0;  // Q K^T and softmax(.) V
  double attn_out_proj = 0;
  double mlp = 0;        // dense MLP, or the experts each token is routed to
  double router = 0;     // mixture-of-experts gate
  double embedding = 0;  // patch embedding of vision models (token lookups are free)
  double head = 0;       // LM logits, classifier, pooler
  double indexer = 0;    // sparse attention's indexer: its projections and scores (indexer_flops)
  // Linear-attention blocks' token mixing (linear_attention_core_flops_per_token); their
  // projections count in qkv_proj and attn_out_proj.
  double linear_core = 0;
  double total() const {
    return qkv_proj + attention_core + attn_out_proj + mlp + router + embedding + head + indexer +
           linear_core;
  }
};
TransformerFlops transformer_forward_flops(const TransformerSpec& spec, int64_t seq_len);

// How attention is computed, which decides whether seq x seq scores are kept for backward.
enum class AttentionImpl { eager, flash };

// Activation bytes kept for backward by one block for one sample (Korthikanti et al. 2022,
// sec. 4.1, generalised to GQA, gated MLPs, MoE and other element sizes).
struct LayerActivations {
  double linear_bytes = 0;      // terms in s*h (or s*ffn): inputs of matmuls, norms, activations
  double replicated_bytes = 0;  // part of linear_bytes that tensor parallelism does not shard
                                // unless sequence parallelism is on (norm inputs, masks)
  double attention_scores_bytes = 0;  // terms in a*s^2: softmax output, its dropout mask/output
  // torchtitan's op-level selective checkpointing (ac_mode selective, op; its _save_list and
  // "every second mm" policy in torchtitan/models/llama3/infra/parallelize.py) keeps the block's
  // input, the attention output with its log-sum-exp, and the outputs of the 1st, 3rd, ... matmul
  // of the block; everything else is recomputed in backward.
  double op_selective_bytes = 0;  // what it keeps, per block
  // Eager attention's softmax input (the scores at the softmax's precision), which PyTorch
  // before 1.11 saved as well (TorchRelease); not in total().
  double softmax_input_bytes = 0;
  double op_selective_recompute_flops = 0;  // the matmuls whose outputs it drops, per block
  // Mixture of experts: the part of linear_bytes kept per (token, routed expert) pair, which the
  // busiest expert-parallel rank holds more of: the experts' inputs (the permuted tokens their
  // first GEMM keeps) and their inner activations. routed_input_bytes is the inputs' part, which
  // expert tensor parallelism replicates over its ranks as tensor parallelism does a dense MLP's.
  double routed_bytes = 0;
  double routed_input_bytes = 0;
  // The inputs of the block's linear layers (QKV, output projection, MLP in and out) inside
  // linear_bytes, and the part of them in replicated_bytes: what Transformer Engine saves
  // quantised instead (precision.h, matmul_input).
  double matmul_input_bytes = 0;
  double matmul_input_replicated_bytes = 0;
  // What Megatron's selective recompute of each module (RecomputeModule, estimate.h) leaves
  // out of linear_bytes, per block, and the part of it that is matmul inputs.
  struct Part {
    double bytes = 0, matmul_input_bytes = 0;
  };
  struct Recomputable {
    Part norm_outputs;    // layernorm: the QKV and MLP inputs (inside replicated_bytes)
    Part mla_up;          // mla_up_proj: Q, K, V and the latents' norm outputs
    Part dense_mlp;       // mlp: the dense blocks' MLP inner activations
    Part expert_act_out;  // moe_act: the routed experts' activation output (in routed_bytes)
    // Not recomputable: the routed experts' activation input (their first GEMM's output, in
    // routed_bytes), which fine-grained activation offloading's moe_act sends to the host.
    Part expert_act_in;
    Part shared_experts;  // shared_experts: their inner activations
    Part moe_layer;       // moe: router logits, routed_bytes and the shared experts' part
  } recomputable;
  double total() const { return linear_bytes + attention_scores_bytes; }
};
// element_bytes: bytes per saved activation element (2 at 16-bit, 4 at fp32); norm_input_bytes:
// bytes per element of norm inputs (4 under autocast, where the residual stream stays fp32).
// mask_bytes: bytes per dropout-mask element; CUDA's fused dropout keeps a 1-byte mask, the CPU
// keeps it in the input's dtype (tests compare with PyTorch on the CPU).
// fused_swiglu: a fused SwiGLU kernel saves only its input and recomputes the gate's activation in
// backward (Megatron's SwiGLUFunction, megatron/core/fusions/fused_bias_swiglu.py at
// NVIDIA/Megatron-LM@d98e8a64: ctx.save_for_backward(input)), so a gated MLP keeps its first
// matmul's output and the product, 3 terms per width, where eager PyTorch keeps 4.
LayerActivations transformer_layer_activations(const TransformerSpec& spec, int64_t seq_len,
                                               double element_bytes, double norm_input_bytes,
                                               AttentionImpl attention, double mask_bytes = 1.0,
                                               bool fused_swiglu = false);

}  // namespace gpuplan
