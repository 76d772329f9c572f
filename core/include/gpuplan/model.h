#pragma once
// Workloads: what is trained or served. A Model is either a transformer described by its
// hyperparameters or a layer graph (see graph.h). Both come from data/models/*.json, a custom
// description, or an uploaded Hugging Face config.json.

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
enum class MlpActivation { gelu, relu, silu };

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
  // Mixture of experts: experts > 1 replaces each MLP by `experts` MLPs and a router.
  int64_t experts = 0;
  int64_t experts_per_token = 0;
  // Vision transformers: the input is an image cut into patches (plus a class token).
  int64_t image_size = 0;
  int64_t patch_size = 0;
  int64_t channels = 3;
  bool class_token = false;

  int64_t kv_heads_or_default() const { return kv_heads > 0 ? kv_heads : heads; }
  int64_t head_dim_or_default() const { return head_dim > 0 ? head_dim : hidden / heads; }
  bool is_moe() const { return experts > 1; }
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
  std::string task;  // "causal-lm", "masked-lm", "seq2seq", "image-classification", ...
  ModelKind kind = ModelKind::transformer;
  TransformerSpec transformer;  // kind == transformer
  Graph graph;                  // kind == graph
  Source source;
  int64_t default_seq_len = 0;     // transformers with a token input
  int64_t default_resolution = 0;  // image models (CNNs and vision transformers)
  int64_t dataset_size = 0;        // samples per epoch of the dataset named below, 0 if none
  std::string dataset;
  std::vector<std::string> aliases;  // other names users type, e.g. "meta-llama/Llama-2-7b-hf"
  // Layer graphs: costs at default_resolution, computed once when the model is loaded.
  std::optional<GraphCosts> default_graph_costs;
};

// A layer graph's costs at `resolution`: the precomputed ones at the default resolution, or
// computed into `storage`. The pointer is valid while `model` and `storage` live.
Result<const GraphCosts*> model_graph_costs(const Model& model, int64_t resolution,
                                            std::optional<GraphCosts>& storage);

// Checks a transformer's hyperparameters for consistency; the message names the field.
std::optional<Error> validate_transformer(const TransformerSpec& spec, const std::string& where);

}  // namespace gpuplan
