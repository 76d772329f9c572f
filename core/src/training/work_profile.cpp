// The work profile: what one forward pass is made of, kernel class by kernel class (matmuls,
// fused attention, memory-bound kernels), for a transformer or a layer graph.
#include <algorithm>
#include <cmath>

#include "gpuplan/expert_parallel.h"
#include "gpuplan/precision.h"
#include "gpuplan/timing.h"
#include "gpuplan/transformer.h"
#include "training/internal.h"

namespace gpuplan {
namespace {

// Bytes per activation element and per weight element as matmuls read them (precision.h).
struct ElementBytes {
  double activation;
  double residual;  // norm inputs / residual stream (fp32 under autocast)
  double weight;    // what the GEMM reads: autocast's 16-bit cast, a recipe's quantised weight
};

// `low_share`: the share of the blocks a Transformer Engine recipe quantises (the rest read bf16).
ElementBytes element_bytes(Precision p, double low_share) {
  const PrecisionBytes& pb = precision_bytes(p);
  const double weight = is_low_precision(p)
                            ? low_share * pb.quantized_weight + (1 - low_share) * pb.param
                            : pb.quantized_weight;
  return {pb.activation, pb.norm_input, weight};
}

// Memory-bound kernels (norms, activations, copies, casts).
void add(WorkProfile& w, const std::string& name, double flops, double bytes, double weight_bytes,
         double kernels) {
  OpClass op;
  op.name = name;
  op.flops_per_sample = flops;
  op.bytes_per_sample = bytes;
  op.weight_bytes = weight_bytes;
  op.kernels = kernels;
  op.kind = flops > 0 ? WorkKind::matmul : WorkKind::memory;
  w.ops.push_back(op);
}

// Marks `op` as run again, `share` of it, by the selective recompute of `modules`.
void rerun_by(OpClass& op, unsigned modules, double share = 1) {
  op.rerun_by = modules;
  op.rerun_share = share;
}

// A GEMM class of `rows` x `cols` outputs per sample (for tile and wave quantisation).
void add_gemm(WorkProfile& w, const std::string& name, double flops, double bytes,
              double weight_bytes, double kernels, double rows, double cols) {
  add(w, name, flops, bytes, weight_bytes, kernels);
  w.ops.back().kind = WorkKind::matmul;
  w.ops.back().gemm_rows_per_sample = rows;
  w.ops.back().gemm_cols = cols;
}

// The dimensions of one block as the time model uses them (after tensor-parallel split where
// divided by tp).
struct BlockShape {
  double T, K, h, a, q, kv, f, routed, L, tp;
  double cp = 1;  // context-parallel ranks: the sample has T x cp tokens
};

// Q K^T and P V of every block; Transformer-XL adds Q R^T against the projected positions.
// `causal`: the share of query-key pairs a causal mask keeps, which fused kernels skip to
// (FlashAttention's tiles above the diagonal are never computed); eager attention computes every
// score and masks them after. `fp8`: Transformer Engine's FP8 attention (Setup::fp8_attention)
// runs a fused kernel's two matmuls at the FP8 rate; without it attention stays in 16 bits under
// the TE recipes.
void add_attention_core(WorkProfile& w, const TransformerSpec& s, const ElementBytes& b,
                        const BlockShape& d, bool flash, double attn_drop, double causal,
                        bool fp8) {
  const double T = d.T, K = d.K, a = d.a, q = d.q, kv = d.kv, L = d.L, t = d.tp;
  const bool xl = s.positions == PositionKind::xl_relative;
  // Keys per query, averaged over the blocks: windowed blocks (and sparse attention's top-k)
  // attend to at most their window, the rest to all K. `causal` is the share of these pairs the
  // mask keeps (causal_attention_fraction counts both kinds of block alike).
  const double tokens = T * d.cp;
  const double keys =
      s.decoder_layers == 0 && s.windowed_layer_count() > 0 && tokens > 0
          ? attention_pairs(s, tokens) / (static_cast<double>(s.attention_layer_count()) * tokens)
          : K;
  // Global blocks of their own geometry: the FLOP count's core, this rank's share of it.
  const double core_flops =
      s.global_geometry_layers() > 0
          ? transformer_forward_flops(s, static_cast<int64_t>(tokens)).attention_core / (d.cp * t)
          : L * (xl ? 6 : 4) * T * keys * q / t;
  if (flash) {
    // Flash attention reads Q, K, V and writes O once (Dao et al. 2022).
    add(w, "attention.core", core_flops * causal, L * b.activation * (T * 2 * q + K * 2 * kv) / t,
        0, L);
    w.ops.back().kind = WorkKind::attention;
    w.ops.back().fp8 = fp8;
    w.ops.back().backward_flops_ratio = 2.5;
    w.ops.back().causal = causal < 1.0;
  } else {
    // Eager, as Hugging Face's "eager" attention (BertSelfAttention, GPT2Attention,
    // ViTSelfAttention): scores written; divided by sqrt(head dim) in a pass of their own (read +
    // write); text models then add the attention mask in another; softmax reads them and writes
    // probabilities at the residual precision (autocast runs softmax in fp32); dropout reads and
    // writes them (+ mask); autocast casts them back to 16 bits for the second matmul, which
    // reads them.
    // Transformer-XL's MemTransformer writes the position scores too, shifts them (_rel_shift:
    // read, write) and adds them to the content scores (read two, write one): 6 more per score,
    // and 7 more kernels (r_net, the two bias adds to Q, the Q R^T matmul, the shift's zeros and
    // cat, the add).
    // The heads are split and merged by permutes, so torch.matmul (and einsum) first copy Q, K
    // and V into batched layouts, and the context is made contiguous again: four copies.
    const double act = b.activation, r = b.residual;
    const double score_passes = s.is_vision() ? 1.0 : 2.0;  // scale (+ mask)
    const double per_score = act + score_passes * 2 * act + act + r + attn_drop * (2 * r + 1) +
                             (r != act ? r + act : 0) + act + (xl ? 6 * act : 0);
    const double copies = 2 * act * (2 * T * q + 2 * K * kv);
    add(w, "attention.core", core_flops,
        L * (act * (T * q + K * (q + 2 * kv)) / t + copies / t + per_score * a * T * K / t), 0,
        L * (4 + 4 + score_passes + attn_drop + (r != act ? 1 : 0) + (xl ? 7 : 0)));
  }
}

// Sparse attention's lightning indexer: its projections and scores (indexer_flops), on every
// tensor-parallel rank; it reads the query latent and hidden state and writes its keys and the
// top-k indices (int32).
void add_indexer(WorkProfile& w, const TransformerSpec& s, const ElementBytes& b,
                 const BlockShape& d, double tokens) {
  const double ql = static_cast<double>(s.q_lora_rank), h = d.h, T = d.T;
  // The blocks with an indexer of their own (model.h: the others reuse an earlier selection).
  const double L = d.L * static_cast<double>(s.indexer_layer_count()) /
                   static_cast<double>(std::max<int64_t>(s.layers, 1));
  const double width = static_cast<double>(s.index_heads * s.index_head_dim);
  add_gemm(w, "attention.indexer", indexer_flops(s, tokens) / d.cp,
           L * T * (b.activation * (ql + h + width) + 4.0 * static_cast<double>(s.index_topk)),
           L * b.weight * (ql * width + h * static_cast<double>(s.index_head_dim + s.index_heads)),
           L * 4, T, width);
}

// Compressed attention's compressors (model.h): their kv and gate projections from h,
// replicated on every tensor-parallel rank (compressor_forward_flops), as one GEMM; their pooling
// is element-wise.
void add_compressors(WorkProfile& w, const TransformerSpec& s, const ElementBytes& b,
                     const BlockShape& d) {
  if (!s.is_compressed_attention()) return;
  const double T = d.T, h = d.h, L = static_cast<double>(s.layers);
  const double flops = compressor_forward_flops(s, T);
  const double width = flops / (2 * T * h * L);  // projected channels per block, averaged
  add_gemm(w, "attention.compressor", flops, L * b.activation * T * (h + width),
           L * b.weight * h * width, L * 2, T, width);
}

// Linear-attention blocks (model.h): in_proj (q, k, v, the gate z, beta and the decay input)
// and out_proj as GEMMs; the convolution and the chunked gated delta rule as one fused kernel
// class timed at the attention kernels' rate (fla's Triton kernels run their chunk products on
// tensor cores; no published efficiency of their own), reading q, k, v and the decay and
// writing the output, with the convolution's read and write of q, k and v, the gated norm's
// reads of the output and z and its write, and each chunk's fp32 state written once
// (linear_attention_core_flops_per_token). Heads split over tp.
void add_linear_attention(WorkProfile& w, const TransformerSpec& s, const ElementBytes& b,
                          const BlockShape& d, double Ll) {
  const double T = d.T, h = d.h, t = d.tp;
  const double kw = static_cast<double>(s.linear_key_width());
  const double vw = static_cast<double>(s.linear_value_width());
  const double nv = static_cast<double>(s.linear_value_heads);
  const double in = static_cast<double>(s.linear_in_proj_width());
  add_gemm(w, "linear_attention.in", Ll * 2 * T * h * in / t, Ll * b.activation * T * (h + in / t),
           Ll * b.weight * h * in / t, Ll * 2, T, in / t);
  const double tokens = T * d.cp;
  const double chunks = std::ceil(tokens / s.linear_chunk_tokens()) / d.cp;
  const double states =
      4.0 * chunks * nv * static_cast<double>(s.linear_key_head_dim * s.linear_value_head_dim);
  const double qkv = 2 * kw + vw;
  add(w, "linear_attention.core", Ll * T * linear_attention_core_flops_per_token(s, tokens) / t,
      Ll * (b.activation * T * (2 * qkv + qkv + 2 * nv + vw + 3 * vw) + states) / t, 0, Ll * 4);
  w.ops.back().kind = WorkKind::attention;
  w.ops.back().fp8 = false;
  w.ops.back().backward_flops_ratio = 2.5;
  add_gemm(w, "linear_attention.out", Ll * 2 * T * vw * h / t, Ll * b.activation * T * (vw / t + h),
           Ll * b.weight * vw * h / t, Ll, T, h);
}

// The MLPs of the Ld dense blocks, width fd: the first matmul (gate and up: in_mats of them),
// the activation, the second matmul; all rerun by Megatron's selective recompute of mlp.
void add_dense_mlp(WorkProfile& w, const ElementBytes& b, const BlockShape& d, double Ld, double fd,
                   double in_mats) {
  const double T = d.T, h = d.h, t = d.tp;
  add_gemm(w, "mlp.in", Ld * 2 * T * h * fd * in_mats / t,
           Ld * b.activation * T * (h + fd * in_mats / t), Ld * b.weight * h * fd * in_mats / t,
           Ld * in_mats, T, fd * in_mats / t);
  add(w, "mlp.activation", 0, Ld * b.activation * T * fd * (in_mats + 1) / t, 0, Ld * in_mats);
  add_gemm(w, "mlp.out", Ld * 2 * T * fd * h / t, Ld * b.activation * T * (fd / t + h),
           Ld * b.weight * fd * h / t, Ld, T, h);
  for (size_t i = w.ops.size() - 3; i < w.ops.size(); ++i) rerun_by(w.ops[i], kRecomputeMlp);
}

// Norms (read residual, write activation), residual adds (read 2, write 1), dropouts, rotary,
// two of each per block over Lb block-equivalents (a layer pattern's layers have one each; drop:
// 1 with dropout). Sequence parallelism runs the norms, residual adds and dropouts on s / tp
// tokens per GPU (Korthikanti et al. 2022, sec. 4.2.2): sharded in time as in memory.
void add_elementwise(WorkProfile& w, const TransformerSpec& s, const Setup& setup,
                     const ElementBytes& b, const BlockShape& d, double Lb, double drop) {
  const double T = d.T, h = d.h, t = d.tp;
  const double sp = setup.sequence_parallel ? t : 1.0;
  const bool rotary = s.positions == PositionKind::rotary;
  const double norms = 2 * (b.residual + b.activation) * T * h / sp;
  // Hyper-connections (model.h) replace each sublayer's residual add (3 h) by reading the n
  // streams and writing the input (hc_pre, (n + 1) h) and reading them with the output and
  // writing them back (hc_post, (2n + 1) h): 3n - 1 more h per sublayer, two more kernels.
  const double streams = s.has_hyper_connections() ? static_cast<double>(s.hc_streams) : 0.0;
  const double hyper = streams > 0 ? 2 * (3 * streams - 1) * b.residual * T * h / sp : 0.0;
  const double elementwise =
      norms + (2 * 3 * b.residual * T * h + drop * 2 * (2 * b.activation + 1) * T * h) / sp +
      (rotary ? 2 * b.activation * T * (d.q + d.kv) / t : 0) + hyper;
  add(w, "elementwise", 0, Lb * elementwise, 0,
      Lb * (4 + 2 * drop + (rotary ? 2 : 0) + (streams > 0 ? 4 : 0)));
  rerun_by(w.ops.back(), kRecomputeLayernorm, norms / elementwise);
}

// Embeddings, and the output head with its loss.
void add_head(WorkProfile& w, const TransformerSpec& s, const Setup& setup, const ElementBytes& b,
              const BlockShape& d, int64_t seq_len) {
  const double T = d.T, h = d.h, t = d.tp;
  add(w, "embedding", s.is_vision() ? transformer_forward_flops(s, seq_len).embedding : 0,
      2 * b.activation * T * h, 0, 2);
  if (s.head == HeadKind::lm) {
    const double V = head_logits(s);
    const double projection = s.is_adaptive() && s.adaptive_div > 1 ? h : 0;  // head cluster's own
    // Logits, then the loss over them: PyTorch's fp32 log-softmax and loss read and write them
    // three times; a fused cross-entropy reads the 16-bit logits once.
    const double loss_bytes = setup.fused_loss ? b.activation * T * V / t : 3 * 4 * T * V / t;
    add_gemm(w, "head.logits", 2 * T * h * (V + projection) / t,
             b.activation * T * (h + V / t) + loss_bytes, b.weight * h * (V + projection) / t, 4, T,
             V / t);
    w.ops.back().fp8 = false;  // Transformer Engine leaves the output head in 16 bits
  } else if (s.head == HeadKind::classifier) {
    add(w, "head.classifier", 2 * h * static_cast<double>(s.num_classes), b.activation * T * h,
        b.weight * h * static_cast<double>(s.num_classes), 2);
  }
}

// Transformer Engine quantises each linear layer's input before its forward GEMM and each
// output gradient before its backward GEMMs, writing both usages (row-wise and column-wise) in
// one fused kernel per tensor with its amax or block scales (fp8_cast_transpose_fused; the block
// recipes' quantize_transpose kernels), at HBM rate rather than eager PyTorch's. NVFP4 first reads
// the tensor once more for its per-tensor amax (nvte_hadamard_transform_amax / nvte_compute_amax
// in pytorch/csrc/quantizer.cpp at NVIDIA/TransformerEngine@d0067d0d); its 16x16 Hadamard
// transform of the column-wise copy runs inside the quantise kernel (16 multiply-adds per element:
// memory-bound). Each weight is quantised in the forward pass only (backward reads the saved
// copies): once per micro-batch, or once per optimizer step when the framework lets TE cache it
// (Setup::cache_quantized_weights); under --quantized-params the optimizer writes the quantised
// weights (step_time.cpp) and no cast runs here. Per-tensor FP8 is timed as delayed scaling,
// whose amax is fused into the cast; current scaling reads each tensor once more for its amax.
void add_quantization(WorkProfile& w, const Setup& setup, double inputs, double weights, double L) {
  const PrecisionBytes& pb = precision_bytes(setup.precision);
  const double amax = pb.scaling == Scaling::nv_16 ? pb.activation : 0.0;
  const double share = w.low_precision_share;
  add(w, "quantize.inputs", 0, L * (pb.activation + amax + 2 * pb.matmul_input) * inputs * share, 0,
      L * 4);
  if (setup.quantized_params) return;
  add(w, "quantize.weights", 0, 0, (pb.param + amax + pb.weight_copy) * weights * share, L * 4);
  w.ops.back().forward_only = true;
  w.ops.back().once_per_step = setup.cache_quantized_weights && setup.mode == Mode::train;
}

// The MLP inputs a TE recipe quantises per token and block, over all blocks: one in a dense block;
// in an MoE block each routed copy of the token after the dispatch (the grouped experts'
// GroupedLinear takes the permuted tokens), and the token once more for its shared experts.
double quantised_mlp_inputs(const MoeShape& moe, double L) {
  const double per_moe_block = moe.top_k + (moe.shared_ffn > 0 ? 1.0 : 0.0);
  return 1 + moe.moe_layers * (per_moe_block - 1) / L;
}

// What the parallel schedules move per sample on one GPU. Megatron-LM tensor parallelism: two
// all-reduces of s*b*h per block (x.L block-equivalents) in the forward pass; an expert-parallel
// MoE block exchanges its tokens by all-to-all instead of the second (w.moe, expert_parallel.cpp).
void set_schedule_bytes(WorkProfile& w, const BlockShape& x, double act) {
  const double tp_blocks = 2 * x.L - w.moe.moe_layers;
  w.tp_allreduces = tp_blocks;
  w.tp_allreduce_bytes_per_sample = tp_blocks * x.T * x.h * act;
  w.boundary_bytes_per_sample = x.T * x.h * act;
  w.kv_bytes_per_sample = 2 * x.T * x.kv / x.tp * act;
  w.qkv_bytes_per_sample = x.T * (x.q + 2 * x.kv) / x.tp * act;
  w.attention_out_bytes_per_sample = x.T * x.q / x.tp * act;
}

// CUDA graphs (Setup::cuda_graph_modules): a graph replays the kernels of the parts of each block
// it holds, and the host launches one graph per captured part instead (Megatron's per-layer
// graphs: TransformerLayer._get_submodules_under_cudagraphs at NVIDIA/Megatron-LM@d98e8a64):
//   attn        the input norm, attention (Q, K, V, core, output) and the residual add after it
//   mlp / moe   the pre-MLP norm and a dense block's MLP / a whole MoE block, and its residual add
//   moe_router  an MoE block's pre-MLP norm, router and shared experts
//   mamba       a layer pattern's Mamba layers (MambaLayer: norm, mixer, residual add); a
//               Gated DeltaNet mixer sits in a block's attention slot, so attn holds it
//   layer       each block whole; full_iteration: every kernel of the pass, as one graph
// The element-wise class splits per block into an attention side (norm, residual add, rotary's
// two kernels, dropout) and an MLP side (norm, residual add, dropout).
// Transformer Engine's quantise kernels go with their linear layers: half of each block's with
// attention (Q, K, V and output inputs), half with its MLP. The embedding, the head and
// autocast's weight casts are outside the blocks.
// A graph of the whole pass (--cuda-graph-modules full_iteration): every kernel replayed, one
// launch.
void capture_whole_pass(WorkProfile& w) {
  for (auto& op : w.ops) op.captured_kernels = op.kernels;
  w.graph_launches = 1;
}

void capture_block_graphs(WorkProfile& w, unsigned modules, const TransformerSpec& s,
                          const MoeShape& shape, double dropout_kernels) {
  const double L = static_cast<double>(s.layers + s.decoder_layers);
  if (modules == 0 || L <= 0) return;
  if (modules & kGraphFullIteration) return capture_whole_pass(w);
  const double dense_blocks = shape.dense_layers, moe_blocks = shape.moe_layers;
  const double rotary = s.positions == PositionKind::rotary ? 2.0 : 0.0;
  const double attn_side = 2 + rotary + dropout_kernels, mlp_side = 2 + dropout_kernels;
  const bool whole = modules & kGraphLayer;
  const bool attn = whole || (modules & kGraphAttn);
  const bool mlp = whole || (modules & kGraphMlp);
  const bool moe = whole || (modules & kGraphMoe);
  const bool router = moe || (modules & kGraphMoeRouter);
  const bool mamba = whole || (modules & kGraphMamba);
  // Blocks whose mixer side a graph holds (a layer pattern's attention and Mamba layers apart,
  // each layer with its own norm and residual add), blocks whose whole MLP side it holds, and
  // MoE blocks whose router part alone it holds.
  const double mamba_layers = s.is_mamba() ? static_cast<double>(s.linear_layer_count()) : 0.0;
  const double attn_blocks =
      s.has_layer_pattern() ? static_cast<double>(s.attention_layer_count() + s.decoder_layers) : L;
  const double mixer_kernels =
      (attn ? attn_blocks * attn_side : 0.0) + (mamba ? mamba_layers * (2 + dropout_kernels) : 0.0);
  const double mlp_blocks = (mlp ? dense_blocks : 0.0) + (moe ? moe_blocks : 0.0);
  const double router_blocks = router && !moe ? moe_blocks : 0.0;
  const auto starts = [](const std::string& name, const char* prefix) {
    return name.rfind(prefix, 0) == 0;
  };
  for (auto& op : w.ops) {
    const std::string& n = op.name;
    double share = 0;
    if (starts(n, "linear_attention.") && s.is_mamba()) {
      share = mamba ? 1 : 0;
    } else if (starts(n, "attention.") || starts(n, "linear_attention.")) {
      share = attn ? 1 : 0;
    } else if (starts(n, "mlp.")) {
      share = mlp ? 1 : 0;
    } else if (n == "moe.router" || n == "moe.router.topk" || starts(n, "moe.shared.")) {
      share = router ? 1 : 0;
    } else if (starts(n, "moe.")) {
      share = moe ? 1 : 0;
    } else if (n == "elementwise" && op.kernels > 0) {
      const double held = mixer_kernels + mlp_blocks * mlp_side + router_blocks;
      share = std::min(1.0, held / op.kernels);
    } else if (starts(n, "quantize.")) {
      share = 0.5 * ((attn ? attn_blocks : 0.0) + (mamba ? mamba_layers : 0.0)) / L +
              0.5 * mlp_blocks / L;
    }
    op.captured_kernels = op.kernels * std::min(1.0, share);
  }
  w.graph_launches = whole ? L
                           : (attn ? attn_blocks : 0.0) + (mamba ? mamba_layers : 0.0) +
                                 mlp_blocks + router_blocks;
}

WorkProfile transformer_work(const Model& model, const Setup& setup, const Estimate& e) {
  const TransformerSpec s = run_spec(model.transformer, setup, e.resolution);
  const double L = static_cast<double>(s.layers + s.decoder_layers);
  // Blocks with softmax attention; the rest run linear attention (add_linear_attention).
  const double La = static_cast<double>(s.attention_layer_count() + s.decoder_layers);
  const double low_share = low_precision_share(setup, L);
  const ElementBytes b = element_bytes(setup.precision, low_share);
  const double t = setup.tp;
  const TransformerDims d = transformer_dims(s, e.seq_len);
  // Context parallelism: each GPU computes t / cp of the tokens against all t keys (ring
  // attention, or all-to-all's heads / cp over the whole sequence: the same work).
  const double cp = setup.cp;
  const double T = d.t / cp, h = d.h, a = d.a, q = d.q, kv = d.kv, f = d.f, routed = d.routed;
  const MoeShape moe = moe_shape(s);
  const double Ld = moe.dense_layers;  // blocks with a dense MLP; MoE blocks in add_moe_ops
  const bool flash = e.attention == "flash";
  const bool train = setup.mode == Mode::train;
  const double drop = s.dropout && train ? 1.0 : 0.0;
  const double attn_drop = s.attention_dropout_or_default() && train ? 1.0 : 0.0;

  WorkProfile w;
  w.layers = L;
  w.tokens_per_sample = d.t;
  if (is_low_precision(setup.precision)) w.low_precision_share = low_share;
  // Keys per query: the segment, plus Transformer-XL's memory (whose Q, K, V are projected too).
  const double K = attention_keys(s, d.t);
  const double projected = attention_keys(s, T);  // rows this GPU projects to Q, K and V
  // Matmuls of one block (Narayanan et al. 2021 for the FLOPs; bytes are inputs + outputs);
  // gated attention's q_proj also yields the output gate, q wide.
  // Compressed attention's several smaller matmuls, and global blocks of their own geometry: one
  // GEMM from h of as many FLOPs (MLA: the multi-head projections of its q and kv widths).
  const bool own_geometry = s.is_compressed_attention() || s.global_geometry_layers() > 0;
  const double qkv = own_geometry ? attention_projection_flops_per_token(s) / (2 * h)
                                  : (s.attention_output_gate ? 2 * q : q) + 2 * kv;
  add_gemm(w, "attention.qkv", La * 2 * projected * h * qkv / t,
           La * b.activation * projected * (h + qkv / t), La * b.weight * h * qkv / t, La * 3,
           projected, qkv / t);
  rerun_by(w.ops.back(), kRecomputeMlaUpProj, mla_up_projection_share(s));
  const BlockShape shape{T, K, h, a, q, kv, f, routed, La, t, cp};
  add_attention_core(w, s, b, shape, flash, attn_drop, causal_attention_fraction(model, s, d.t),
                     setup.fp8_attention);
  if (s.is_sparse_attention() || s.indexer_layer_count() > 0) add_indexer(w, s, b, shape, d.t);
  add_compressors(w, s, b, shape);
  const double out_in = own_geometry ? attention_output_flops_per_token(s) / (2 * h) : q;
  add_gemm(w, "attention.out", La * 2 * T * out_in * h / t,
           La * b.activation * T * (out_in / t + h), La * b.weight * out_in * h / t, La, T, h);
  // Gated attention: the sigmoid of the gate times the attention output, one element-wise kernel
  // (reads both, writes the product).
  if (s.attention_output_gate)
    add(w, "attention.gate", 0, La * b.activation * T * 3 * q / t, 0, La);
  if (s.is_hybrid_linear())
    add_linear_attention(w, s, b, shape, static_cast<double>(s.linear_layer_count()));
  if (Ld > 0) add_dense_mlp(w, b, shape, Ld, moe.dense_ffn, s.gated_mlp ? 2.0 : 1.0);
  const double Lb = s.block_equivalents() + static_cast<double>(s.decoder_layers);
  add_elementwise(w, s, setup, b, shape, Lb, drop);
  add_head(w, s, setup, b, shape, e.seq_len);
  if (is_autocast(setup.precision)) {
    // Autocast casts each fp32 weight to 16 bits once per forward: read 4 + write 2 bytes.
    const double matrix_params = training::gemm_params_per_gpu(setup, e);
    add(w, "autocast.weight_casts", 0, 0, 6 * matrix_params, L * 6);
  }
  // Norms, activations, residual adds, casts: unfused kernels in eager PyTorch.
  for (auto& op : w.ops) op.eager = op.kind == WorkKind::memory;
  // MoE blocks (their memory-bound kernels say which are eager PyTorch's).
  training::add_moe_ops(w, s, setup, e, b.activation, b.weight);
  if (is_low_precision(setup.precision)) {
    // The linear layers' inputs per block (QKV, output projection, MLP in and out), and the
    // weights of the blocks (the LM head stays in 16 bits).
    const double inputs =
        projected * h + T * q / t + T * h * quantised_mlp_inputs(moe, L) + T * f * routed / t;
    const double weights = training::gemm_params_per_gpu(setup, e);
    add_quantization(w, setup, inputs, weights, L);
  }
  BlockShape every_block = shape;
  every_block.L = Lb;
  set_schedule_bytes(w, every_block, b.activation);
  capture_block_graphs(w, setup.cuda_graph_modules, s, moe, drop);
  return w;
}

Result<WorkProfile> graph_work(const Model& model, const Setup& setup, const Estimate& e) {
  std::optional<GraphCosts> storage;
  auto costs = model_graph_costs(model, e.resolution, storage);
  if (!costs.ok()) return costs.error();
  const GraphCosts& g = *costs.value();
  const ElementBytes b = element_bytes(setup.precision, 0);
  WorkProfile w;
  w.layers = 1;
  w.tokens_per_sample =
      0;  // images have no tokens: tokens/s is 0, shown as absent and null in JSON
  double elementwise_bytes = 0, elementwise_kernels = 0;
  // Tensor-core convolutions run on NHWC data: with NCHW tensors cuDNN transposes each
  // convolution's input before it and its output after it (MosaicML Composer's Channels Last
  // method card, from NVIDIA's convolution performance guide).
  const bool transposes = e.memory_format == "nchw";
  double transpose_bytes = 0, transpose_kernels = 0;
  double matmuls = 0;  // convolutions and linear layers
  for (size_t i = 0; i < model.graph.nodes.size(); ++i) {
    const GraphNode& node = model.graph.nodes[i];
    const NodeCost& c = g.nodes[i];
    double in = 0;
    if (node.inputs.empty()) {
      in = i > 0 ? static_cast<double>(g.nodes[i - 1].out.elements()) : 0;
    } else {
      for (int k : node.inputs)
        in += static_cast<double>(g.nodes[static_cast<size_t>(k)].out.elements());
    }
    const double out = static_cast<double>(c.out.elements());
    switch (node.op) {
      case OpKind::input:
      case OpKind::flatten:
        break;
      case OpKind::conv2d:
      case OpKind::linear:
        add(w, node.name.empty() ? "matmul" : node.name, c.forward_flops_matmul,
            b.activation * (in + out), b.weight * static_cast<double>(c.params), 1);
        matmuls += 1;
        if (transposes && node.op == OpKind::conv2d) {
          transpose_bytes += 2 * b.activation * (in + out);  // read and write each
          transpose_kernels += 2;
        }
        break;
      case OpKind::batchnorm2d:
      case OpKind::layernorm:
        // Training batch norm reads its input twice (statistics, normalisation) and writes once.
        elementwise_bytes += b.activation * (2 * in + out);
        elementwise_kernels += 2;
        break;
      case OpKind::dropout:
        elementwise_bytes += b.activation * (in + out) + out;
        elementwise_kernels += 1;
        break;
      default:
        elementwise_bytes += b.activation * (in + out);
        elementwise_kernels += 1;
        break;
    }
  }
  add(w, "elementwise", 0, elementwise_bytes, 0, elementwise_kernels);
  if (transpose_bytes > 0) {
    add(w, "conv.nchw_transposes", 0, transpose_bytes, 0, transpose_kernels);
    w.ops.back().tensor_cores_only = true;
  }
  if (is_autocast(setup.precision)) {
    // Autocast casts each conv/linear weight to 16 bits once per forward (its cast cache lives
    // for one autocast region): one kernel each, and the input image once.
    add(w, "autocast.weight_casts", 0, 0, 6 * static_cast<double>(g.params), matmuls + 1);
  }
  // Transformer Engine's recipes quantise the linear layers of transformer blocks; a layer
  // graph's convolutions run in bf16 under them.
  if (is_low_precision(setup.precision)) {
    w.low_precision_share = 0;
    for (auto& op : w.ops) op.fp8 = false;
  }
  if (setup.cuda_graph_modules & kGraphFullIteration) capture_whole_pass(w);
  return w;
}

}  // namespace

Result<WorkProfile> build_work_profile(const Model& model, const Setup& setup, const Estimate& e) {
  if (model.kind == ModelKind::transformer) return transformer_work(model, setup, e);
  return graph_work(model, setup, e);
}

}  // namespace gpuplan
