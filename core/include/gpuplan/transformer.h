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
  // A routed expert's weight (mixture of experts): sharded over expert-parallel ranks and split
  // over expert-tensor-parallel ones instead of the tensor-parallel ones (expert_parallel.h).
  bool expert = false;
  int64_t numel() const { return rows * cols * count; }
  std::string name() const { return std::string(prefix) + module + "." + param; }
};

// Every parameter tensor of the model; the sum of numel() is the parameter count.
std::vector<ParamTensor> transformer_parameters(const TransformerSpec& spec);

// Tokens one sample feeds through the blocks (patches + class token for vision models).
int64_t transformer_tokens(const TransformerSpec& spec, int64_t seq_len);

// Keys each query attends to: the segment plus Transformer-XL's memory.
inline double attention_keys(const TransformerSpec& spec, double tokens) {
  return tokens + static_cast<double>(spec.memory_len);
}

// Logits a token computes in the head: the vocabulary, or with an adaptive softmax the head
// cluster and one logit per tail cluster (tail clusters run only for tokens whose target lies
// in them, which depends on the text: not counted).
double head_logits(const TransformerSpec& spec);

// The sizes the cost formulas use, as doubles: tokens per sample t, hidden h, heads a, query
// width q = heads x head_dim, key/value width kv, MLP width f, experts a token is routed to.
struct TransformerDims {
  double t, h, a, q, kv, f, routed;
};
TransformerDims transformer_dims(const TransformerSpec& spec, int64_t seq_len);

// Forward FLOPs of one sample, by term; multiply-add = 2 FLOPs. Attention is computed over the
// full seq x seq score matrix, as implementations do (Narayanan et al. 2021, sec. 3 and app.).
struct TransformerFlops {
  double qkv_proj = 0;        // Q, K, V projections
  double attention_core = 0;  // Q K^T and softmax(.) V
  double attn_out_proj = 0;
  double mlp = 0;        // dense MLP, or the experts each token is routed to
  double router = 0;     // mixture-of-experts gate
  double embedding = 0;  // patch embedding of vision models (token lookups are free)
  double head = 0;       // LM logits, classifier, pooler
  double total() const {
    return qkv_proj + attention_core + attn_out_proj + mlp + router + embedding + head;
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
  double total() const { return linear_bytes + attention_scores_bytes; }
};
// element_bytes: bytes per saved activation element (2 at 16-bit, 4 at fp32); norm_input_bytes:
// bytes per element of norm inputs (4 under autocast, where the residual stream stays fp32).
// mask_bytes: bytes per dropout-mask element; CUDA's fused dropout keeps a 1-byte mask, the CPU
// keeps it in the input's dtype (tests compare with PyTorch on the CPU).
LayerActivations transformer_layer_activations(const TransformerSpec& spec, int64_t seq_len,
                                               double element_bytes, double norm_input_bytes,
                                               AttentionImpl attention, double mask_bytes = 1.0);

}  // namespace gpuplan
