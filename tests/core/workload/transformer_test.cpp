// Transformer parameter counts, FLOPs and activation memory against published references.
#include <gtest/gtest.h>

#include "gpuplan/estimate.h"
#include "gpuplan/transformer.h"
#include "test_util.h"

namespace gpuplan {
namespace {

int64_t params_of(const std::string& id) {
  int64_t n = 0;
  for (const auto& t : transformer_parameters(test::model(id).transformer)) n += t.numel();
  return n;
}

// Parameter counts as PyTorch reports them (sum of p.numel() over unique parameters).
TEST(TransformerParams, Gpt2SmallEqualsHuggingFaceWithTiedEmbeddings) {
  // Radford et al. 2019; HF GPT2LMHeadModel: 124,439,808 with lm_head tied to wte.
  EXPECT_EQ(params_of("gpt2-small"), 124'439'808);
}

TEST(TransformerParams, BertBaseSquadIsTheEncoderWithoutPooler) {
  // HF BertForQuestionAnswering builds BertModel(add_pooling_layer=False): embeddings
  // (30,522 + 512 + 2) x 768 + LayerNorm, and 12 layers of 7,087,872; its 2-output span head
  // (1,538) is left out, as for bert-large-qa.
  EXPECT_EQ(params_of("bert-base-qa"), (30'522 + 512 + 2) * 768 + 2 * 768 + 12 * 7'087'872);
  EXPECT_EQ(params_of("bert-base-qa"), 108'891'648);
}

TEST(TransformerParams, VitB16EqualsTorchvision) {
  // torchvision.models.vit_b_16 weights meta "num_params": 86,567,656.
  EXPECT_EQ(params_of("vit-b-16"), 86'567'656);
}

TEST(TransformerParams, Llama2_7bEqualsHuggingFace) {
  // meta-llama/Llama-2-7b-hf: 6,738,415,616 parameters (sum of numel, untied head).
  EXPECT_EQ(params_of("llama-2-7b"), 6'738'415'616);
}

TEST(TransformerParams, Mixtral8x7bCountsEveryExpertButActivatesTwo) {
  // mistralai/Mixtral-8x7B-v0.1: 46,702,792,704 parameters; 12.9 B active per token
  // (Jiang et al. 2024, sec. 2: "13B active parameters").
  EXPECT_EQ(params_of("mixtral-8x7b"), 46'702'792'704);
  auto e = estimate(test::model("mixtral-8x7b"), gpuplan::Setup{});
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_NEAR(static_cast<double>(e.value().params.active_per_token), 12.88e9, 0.02e9);
}

TEST(TransformerParams, TransformerXlCountsAdaptiveEmbeddingsRelativePositionsAndTiedSoftmax) {
  // NVIDIA's MemTransformerLM (wt103_base.yaml / wt103_large.yaml), module by module.
  auto layer = [](int64_t h, int64_t f) {
    return 3 * h * h /* qkv_net */ + h * h /* o_net */ + h * h /* r_net */ + 2 * h /* attn LN */ +
           (h * f + f + f * h + h) /* CoreNet */ + 2 * h /* ff LN */;
  };
  const int64_t vocab = 267735, clusters = 3;
  const int64_t shared =
      2 * 8 * 64 /* r_w_bias, r_r_bias */ + vocab /* softmax biases */ + clusters * 512 + clusters;
  // div_val 1: one 267735 x 512 embedding, tied with the softmax; no projections.
  EXPECT_EQ(params_of("transformer-xl-base"), vocab * 512 + 16 * layer(512, 2048) + shared);
  // div_val 4: clusters of 19997, 20000, 160000, 67738 words at widths 1024, 256, 64, 16, each
  // projected to 1024; the head cluster's softmax projection is untied (tie_projs [F, T, T, T]).
  const int64_t embeddings =
      19997 * 1024 + 20000 * 256 + 160000 * 64 + 67738 * 16 + 1024 * (1024 + 256 + 64 + 16);
  EXPECT_EQ(params_of("transformer-xl-large"), embeddings + 18 * layer(1024, 4096) + 2 * 16 * 64 +
                                                   vocab + clusters * 1024 + clusters +
                                                   1024 * 1024);
}

int64_t tensors_of(const std::string& id) {
  auto e = estimate(test::model(id), gpuplan::Setup{});
  return e.ok() ? e.value().params.tensors : -1;
}

// len(list(model.parameters())): what a for-loop optimizer visits once per step.
TEST(TransformerParams, TensorCountsAreWhatModelParametersYields) {
  // NVIDIA's MemTransformerLM (pytorch/mem_transformer.py@f838cf32) built on CPU with
  // wt103_base.yaml: 182 tensors = 16 x 11 (qkv_net, o_net, r_net, CoreNet's two weights and
  // biases, two LayerNorms) + the embedding + r_w_bias, r_r_bias + the softmax bias and the two
  // cluster tensors (its weight is the embedding's); wt103_large.yaml: 215.
  EXPECT_EQ(tensors_of("transformer-xl-base"), 16 * 11 + 1 + 2 + 3);
  EXPECT_EQ(tensors_of("transformer-xl-large"), 215);
  // HF GPT2LMHeadModel: wte, wpe, 12 x (ln_1, c_attn, c_proj, ln_2, c_fc, mlp c_proj: weight and
  // bias each), ln_f; lm_head is wte.
  EXPECT_EQ(tensors_of("gpt2-small"), 2 + 12 * 12 + 2);
  // torchvision ResNet-101: 104 convolutions, 104 BatchNorms (weight, bias), fc weight and bias.
  EXPECT_EQ(tensors_of("resnet101"), 104 + 2 * 104 + 2);
  // LoRA trains lora_A and lora_B of each target: q_proj and v_proj in each of 32 layers.
  gpuplan::Setup lora;
  lora.lora_rank = 8;
  auto e = estimate(test::model("llama-2-7b"), lora);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e.value().params.tensors, 2 * 2 * 32);
}

TEST(TransformerFlops, TransformerXlAttendsOverMemoryWithAThirdScoreMatmul) {
  // Dai et al. 2019: keys and values over memory + segment; scores Q K^T + Q R^T, then P V.
  const TransformerSpec& s = test::model("transformer-xl-base").transformer;
  const double t = 192, m = 192, h = 512, q = 512;
  const TransformerFlops f = transformer_forward_flops(s, 192);
  EXPECT_DOUBLE_EQ(f.qkv_proj, 16 * (t + m) * 2 * h * 3 * q);
  EXPECT_DOUBLE_EQ(f.attention_core, 16 * 3 * 2 * t * (t + m) * q);
  // The adaptive softmax's head cluster: 19997 words and a logit per tail cluster.
  EXPECT_DOUBLE_EQ(f.head, t * 2 * h * (19997 + 3));
  // Scores kept for backward are T x (T + M) per head.
  const LayerActivations la = transformer_layer_activations(s, 192, 2, 4, AttentionImpl::eager);
  EXPECT_DOUBLE_EQ(la.attention_scores_bytes, 8 * t * (t + m) * (4 + 1 + 2));
}

TEST(TransformerFlops, GptForwardEqualsNarayananClosedForm) {
  // Narayanan et al. 2021, sec. 5.1: a training iteration costs 72*B*s*l*h^2*(1 + s/(6h) +
  // V/(12*l*h)) FLOPs without recomputation, i.e. forward = 24*B*s*l*h^2*(...). Biases and
  // norms are excluded there and here (they are not matmuls).
  const TransformerSpec& s = test::model("gpt2-medium").transformer;
  const double l = 24, h = 1024, V = 50257, seq = 1024;
  const double closed = 24 * seq * l * h * h * (1 + seq / (6 * h) + V / (12 * l * h));
  EXPECT_NEAR(transformer_forward_flops(s, 1024).total(), closed, closed * 1e-12);

  // GPT-2 is a causal LM: its model FLOPs count the scores the mask keeps, half of them, so the
  // attention term is s/(12h) (Megatron-LM's formula halves it too since it counts causal masks,
  // megatron/training/training.py num_floating_point_operations).
  const double causal = 24 * seq * l * h * h * (1 + seq / (12 * h) + V / (12 * l * h));
  gpuplan::Setup setup;
  setup.global_batch = 4;
  auto e = estimate(test::model("gpt2-medium"), setup);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_NEAR(e.value().flops.train_per_step, 3 * 4 * causal, 3 * 4 * causal * 1e-12);
}

TEST(TransformerFlops, FullRecomputationAddsForwardOfLayersPerNarayanan) {
  // With full recomputation the iteration is 96*B*s*l*h^2*(1 + s/(6h) + V/(16*l*h)), over the
  // whole score square; a causal LM's half of it makes the attention term s/(12h).
  const double l = 24, h = 1024, V = 50257, seq = 1024, B = 2;
  const double closed = 96 * B * seq * l * h * h * (1 + seq / (12 * h) + V / (16 * l * h));
  gpuplan::Setup setup;
  setup.global_batch = 2;
  setup.checkpointing = Checkpointing::full;
  auto e = estimate(test::model("gpt2-medium"), setup);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_NEAR(e.value().flops.train_per_step, closed, closed * 1e-12);
}

TEST(TransformerFlops, Gpt3TrainingComputeMatchesBrownEtAl) {
  // Brown et al. 2020, Table D.1: GPT-3 175B trained on 300e9 tokens used 3.14e23 FLOPs,
  // counted as 6 * N * D (attention excluded). Tolerance 0.5 %.
  auto e = estimate(test::model("gpt3-175b"), gpuplan::Setup{});
  ASSERT_TRUE(e.ok()) << e.error().message;
  const double total = 6.0 * static_cast<double>(e.value().params.total) * 300e9;
  EXPECT_NEAR(total, 3.14e23, 3.14e23 * 0.005);
  // The full count with attention is a few percent higher, never lower.
  const double per_token = e.value().flops.train_per_step / e.value().flops.tokens_per_sample;
  EXPECT_GT(per_token * 300e9, 3.14e23);
  EXPECT_LT(per_token * 300e9, 3.14e23 * 1.05);
}

// Korthikanti et al. 2022, eq. 1: 16-bit activations per layer = s*b*h*(34 + 5*a*s/h) bytes.
TEST(TransformerActivations, MatchKorthikantiPerLayerAt16Bit) {
  TransformerSpec s = test::model("gpt2-medium").transformer;  // MHA, ffn = 4h, dropout
  const double seq = 1024, h = 1024, a = 16;
  const LayerActivations la = transformer_layer_activations(s, 1024, 2, 2, AttentionImpl::eager);
  EXPECT_DOUBLE_EQ(la.linear_bytes, 34 * seq * h);
  EXPECT_DOUBLE_EQ(la.attention_scores_bytes, 5 * a * seq * seq);
  // Tensor parallel without sequence parallel: s*b*h*(10 + 24/t + 5*a*s/(h*t)) (eq. 2).
  EXPECT_DOUBLE_EQ(la.replicated_bytes, 10 * seq * h);
}

// What a model's activations grow by when the run is on PyTorch 1.10 rather than 1.11-1.13 (both
// before SDPA, so "auto" attention is eager in both).
double activation_bytes_added_by_1_10(const std::string& model, gpuplan::Setup s) {
  s.torch_release = TorchRelease::v1_11_to_1_13;
  auto now = estimate(test::model(model), s);
  s.torch_release = TorchRelease::v1_10_or_earlier;
  auto old = estimate(test::model(model), s);
  EXPECT_TRUE(now.ok() && old.ok()) << model;
  return now.ok() && old.ok() ? old.value().memory.activations - now.value().memory.activations
                              : -1;
}

// Before PyTorch 1.11, softmax and log_softmax saved their input for backward too
// (pytorch/pytorch#64000): per layer one more score-sized tensor at the softmax's precision, and
// with 16-bit logits the fp32 copy log_softmax reads.
TEST(TransformerActivations, PyTorchBefore1_11AlsoKeepsSoftmaxInputs) {
  gpuplan::Setup s;
  s.precision = Precision::fp32;
  s.global_batch = 2;
  s.seq_len = 512;
  // BERT-large, eager attention in fp32: 24 layers x 16 heads x 512^2 scores x 4 bytes x 2.
  EXPECT_DOUBLE_EQ(activation_bytes_added_by_1_10("bert-large-cls", s),
                   24.0 * 16 * 512 * 512 * 4 * 2);
  // GPT-2 small under autocast: the scores' fp32 softmax input (12 layers x 12 heads) and the
  // fp32 copy of the fp16 logits (50,257 of them per token), per sample.
  s.precision = Precision::amp_fp16;
  s.global_batch = 1;
  s.seq_len = 256;
  EXPECT_DOUBLE_EQ(activation_bytes_added_by_1_10("gpt2-small", s),
                   12.0 * 12 * 256 * 256 * 4 + 4.0 * 256 * 50257);
  // Flash attention keeps no scores in any release; a fused loss keeps no fp32 logits.
  s.attention = Attention::flash;
  s.fused_loss = true;
  EXPECT_DOUBLE_EQ(activation_bytes_added_by_1_10("gpt2-small", s), 0.0);
}

TEST(TorchRelease, ReadsReleaseNumbersAndNames) {
  EXPECT_EQ(parse_torch_release("1.10"), TorchRelease::v1_10_or_earlier);
  EXPECT_EQ(parse_torch_release("1.9.1"), TorchRelease::v1_10_or_earlier);
  EXPECT_EQ(parse_torch_release("1.11"), TorchRelease::v1_11_to_1_13);
  EXPECT_EQ(parse_torch_release("1.13.1"), TorchRelease::v1_11_to_1_13);
  EXPECT_EQ(parse_torch_release("2"), TorchRelease::v2_0_or_later);
  EXPECT_EQ(parse_torch_release("2.4.0"), TorchRelease::v2_0_or_later);
  for (const char* bad : {"", "x", "1.x", "1.10a", "0.4", "-1.10", "1..2", "1.11+"})
    EXPECT_EQ(parse_torch_release(bad), std::nullopt) << bad;
  for (auto r :
       {TorchRelease::v2_0_or_later, TorchRelease::v1_11_to_1_13, TorchRelease::v1_10_or_earlier})
    EXPECT_EQ(parse_torch_release(torch_release_name(r)), r);
}

// "auto" attention is the kernel PyTorch's SDPA picks at 16 bits from PyTorch 2.0, unless the
// model computes attention itself; the reason comes with it.
TEST(AutoAttention, ResolvesAsPyTorchDoesAndSaysWhy) {
  gpuplan::Setup s;
  s.precision = Precision::amp_bf16;
  s.global_batch = 1;
  s.seq_len = 512;
  auto resolved = [&](const std::string& model) {
    auto e = estimate(test::model(model), s);
    EXPECT_TRUE(e.ok()) << model;
    return e.ok() ? std::pair(e.value().attention, e.value().attention_reason)
                  : std::pair(std::string("error"), AttentionReason::given);
  };
  using P = std::pair<std::string, AttentionReason>;
  // Learned positions (GPT-2, MPT's llm-foundry configs) and rotary ones alike: SDPA.
  EXPECT_EQ(resolved("mpt-1b"), P("flash", AttentionReason::sdpa));
  EXPECT_EQ(resolved("gpt2-small"), P("flash", AttentionReason::sdpa));
  EXPECT_EQ(resolved("llama-2-7b"), P("flash", AttentionReason::sdpa));
  EXPECT_EQ(resolved("bert-large"), P("eager", AttentionReason::model_default));
  EXPECT_EQ(resolved("t5-base"), P("eager", AttentionReason::relative_positions));
  s.torch_release = TorchRelease::v1_11_to_1_13;
  EXPECT_EQ(resolved("mpt-1b"), P("eager", AttentionReason::before_torch_2));
  s.torch_release = TorchRelease::v2_0_or_later;
  s.precision = Precision::fp32;
  EXPECT_EQ(resolved("mpt-1b"), P("eager", AttentionReason::not_16bit));
  s.precision = Precision::bf16;
  s.attention = Attention::eager;
  EXPECT_EQ(resolved("mpt-1b"), P("eager", AttentionReason::given));
  // SDPA's fused kernel keeps no seq x seq scores: eager keeps 12 heads x 512^2 per layer more.
  s.attention = Attention::automatic;
  const auto sdpa = estimate(test::model("gpt2-small"), s);
  s.attention = Attention::eager;
  const auto eager = estimate(test::model("gpt2-small"), s);
  ASSERT_TRUE(sdpa.ok() && eager.ok());
  EXPECT_GT(eager.value().memory.activations - sdpa.value().memory.activations,
            12.0 * 12 * 512 * 512 * 2);
}

TEST(TransformerActivations, SequenceParallelAndSelectiveRecomputeFollowKorthikanti) {
  // eq. 4: with sequence parallelism everything is divided by t; selective recomputation
  // (sec. 5) keeps 34*s*b*h/t. Checked through the estimate's activation term.
  const Model& m = test::model("gpt2-medium");
  gpuplan::Setup setup;
  setup.precision = Precision::bf16;
  setup.attention = Attention::eager;
  setup.global_batch = 1;
  setup.tp = 4;
  auto base = estimate(m, setup);
  setup.sequence_parallel = true;
  auto sp = estimate(m, setup);
  setup.checkpointing = Checkpointing::selective;
  auto sel = estimate(m, setup);
  ASSERT_TRUE(base.ok() && sp.ok() && sel.ok());
  const double seq = 1024, h = 1024, a = 16, l = 24, t = 4, V = 50257;
  const double head = (2 + 2) * seq * h + seq * V / t * (2 + 4);
  EXPECT_NEAR(base.value().memory.activations - head,
              l * seq * h * (10 + 24 / t + 5 * a * seq / (h * t)), 1);
  EXPECT_NEAR(sp.value().memory.activations - head, l * seq * h * (34 + 5 * a * seq / h) / t, 1);
  EXPECT_NEAR(sel.value().memory.activations - head, l * seq * h * 34 / t, 1);
}

TEST(TransformerActivations, FlashAttentionKeepsNoSquareTerms) {
  const TransformerSpec& s = test::model("llama-2-7b").transformer;
  const LayerActivations flash = transformer_layer_activations(s, 4096, 2, 2, AttentionImpl::flash);
  const LayerActivations eager = transformer_layer_activations(s, 4096, 2, 2, AttentionImpl::eager);
  EXPECT_EQ(flash.attention_scores_bytes, 0);
  // LLaMA has no dropout: the softmax output alone, 2 bytes * a * s^2.
  EXPECT_DOUBLE_EQ(eager.attention_scores_bytes, 2.0 * 32 * 4096 * 4096);
}

TEST(TransformerActivations, AFusedSwigluKeepsOnlyItsInputAndTheProduct) {
  // Megatron's fused SwiGLU saves its input (gate and up, 2f wide) and recomputes silu(gate) in
  // backward; the second matmul keeps the product (f): 3 terms per width where eager keeps 4
  // (gate, up, silu(gate), product). LLaMA-2-7B, 4096 tokens, 16-bit: one fewer 2 x s x 11008.
  const TransformerSpec& s = test::model("llama-2-7b").transformer;
  const LayerActivations eager = transformer_layer_activations(s, 4096, 2, 2, AttentionImpl::flash);
  const LayerActivations fused =
      transformer_layer_activations(s, 4096, 2, 2, AttentionImpl::flash, 1.0, true);
  EXPECT_DOUBLE_EQ(eager.linear_bytes - fused.linear_bytes, 2.0 * 4096 * 11008);
  EXPECT_DOUBLE_EQ(fused.recomputable.dense_mlp.bytes, 3 * 2.0 * 4096 * 11008);
  // GPT-2's ungated GELU MLP keeps its input and output either way.
  const TransformerSpec& g = test::model("gpt2-small").transformer;
  EXPECT_DOUBLE_EQ(
      transformer_layer_activations(g, 1024, 2, 2, AttentionImpl::flash).linear_bytes,
      transformer_layer_activations(g, 1024, 2, 2, AttentionImpl::flash, 1.0, true).linear_bytes);
}

}  // namespace
}  // namespace gpuplan

#include <nlohmann/json.hpp>

namespace gpuplan {
namespace {

// tests/reference/torch_reference.json: bytes autograd saves for backward in real PyTorch
// (tools/torch_reference.py, saved_tensors_hooks, unique storages, fp32, batch 1).
double reference_saved(const std::string& model, const std::string& run) {
  const auto j =
      nlohmann::json::parse(test::read_repo_file("tests/reference/torch_reference.json"));
  return j["models"][model]["saved_activation_bytes"][run].get<double>();
}

TEST(TransformerActivations, Gpt2SmallMatchesPyTorchSavedTensorsWithin5Percent) {
  // The reference GPT-2 uses explicit attention matmuls and no dropout; compare the blocks plus
  // the final norm's and the LM head's inputs (the loss is not part of that measurement).
  TransformerSpec s = test::model("gpt2-small").transformer;
  s.dropout = false;
  const LayerActivations la = transformer_layer_activations(s, 1024, 4, 4, AttentionImpl::eager);
  const double ours = 12 * la.total() + 2 * 4.0 * 1024 * 768;
  const double torch = reference_saved("gpt2", "seq1024_batch1_no_dropout");
  EXPECT_NEAR(ours / torch, 1.0, 0.05) << ours << " vs " << torch;
}

TEST(TransformerActivations, VitB16EstimateMatchesPyTorchSavedTensorsWithin5Percent) {
  gpuplan::Setup
      setup;  // fp32, eager attention, batch 1 (torchvision's ViT has no dropout by default)
  auto e = estimate(test::model("vit-b-16"), setup);
  ASSERT_TRUE(e.ok()) << e.error().message;
  const double torch = reference_saved("vit_b_16", "batch1");
  EXPECT_NEAR(e.value().memory.activations / torch, 1.0, 0.05)
      << e.value().memory.activations << " vs " << torch;
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// tests/reference/torch_block_precision.json (tools/torch_block_precision.py): what one GPT-2
// block (hidden 768, 12 heads, seq 128, batch 1) saves for backward in PyTorch on the CPU, per
// recipe and dropout, split into the block input, autocast's weight casts, the seq x seq score
// tensors and the rest.
struct BlockSaved {
  double input = 0, weight_casts = 0, scores = 0, other = 0;
  double linear() const { return input + other; }  // what gpuplan calls linear_bytes
};

BlockSaved torch_block(const std::string& run) {
  const auto j =
      nlohmann::json::parse(test::read_repo_file("tests/reference/torch_block_precision.json"));
  const auto& r = j["saved"][run];
  return {r["input_bytes"].get<double>(), r["weight_cast_bytes"].get<double>(),
          r["score_bytes"].get<double>(), r["other_bytes"].get<double>()};
}

// The block as gpuplan sees it: GPT-2 small's layer, dropout on or off.
TransformerSpec gpt2_block(bool dropout) {
  TransformerSpec s = test::model("gpt2-small").transformer;
  s.dropout = dropout;
  s.attention_dropout = dropout;
  return s;
}

// LayerNorm's saved mean and rstd (2 x seq x 4 bytes per norm) are below gpuplan's resolution:
// 0.1 % of the block.
constexpr double kTolerance = 0.001;

// mask_bytes: the CPU keeps dropout masks in the input's dtype (CUDA: 1 byte).
void expect_block(const std::string& run, bool dropout, double element_bytes, double norm_bytes,
                  double softmax_bytes, double mask_bytes) {
  SCOPED_TRACE(run);
  const BlockSaved torch = torch_block(run);
  const TransformerSpec s = gpt2_block(dropout);
  const LayerActivations la = transformer_layer_activations(s, 128, element_bytes, norm_bytes,
                                                            AttentionImpl::eager, mask_bytes);
  EXPECT_NEAR(la.linear_bytes / torch.linear(), 1.0, kTolerance)
      << la.linear_bytes << " vs " << torch.linear();
  // Scores follow the softmax's dtype: fp32 under CUDA autocast, the input's dtype on the CPU.
  const LayerActivations scores = transformer_layer_activations(
      s, 128, element_bytes, softmax_bytes, AttentionImpl::eager, mask_bytes);
  EXPECT_DOUBLE_EQ(scores.attention_scores_bytes, torch.scores);
}

TEST(TransformerActivationsVsPyTorch, Fp32BlockMatchesWithAndWithoutDropout) {
  expect_block("fp32_dropout0.0", false, 4, 4, 4, 4);
  expect_block("fp32_dropout0.1", true, 4, 4, 4, 4);
}

// mixed-bf16 (16-bit compute weights): activations, norm inputs and the residual stream in bf16.
TEST(TransformerActivationsVsPyTorch, Bf16WeightsBlockMatchesMixedRecipeLayout) {
  expect_block("bf16_dropout0.0", false, 2, 2, 2, 2);
  expect_block("bf16_dropout0.1", true, 2, 2, 2, 2);
}

// amp-bf16 (autocast over fp32 weights): matmul inputs in bf16, LayerNorm inputs and the residual
// stream in fp32. The CPU's autocast runs softmax in bf16 (CUDA's in fp32, which gpuplan models).
TEST(TransformerActivationsVsPyTorch, AutocastBlockKeepsFp32NormInputs) {
  expect_block("autocast-bf16_dropout0.0", false, 2, 4, 2, 2);
  expect_block("autocast-bf16_dropout0.1", true, 2, 4, 2, 2);
  // The same block with bf16 weights saves less: the fp32 residual stream is the difference.
  EXPECT_LT(torch_block("bf16_dropout0.0").linear(),
            torch_block("autocast-bf16_dropout0.0").linear());
}

TEST(TransformerActivationsVsPyTorch, DropoutZeroSavesNoMasks) {
  const LayerActivations off =
      transformer_layer_activations(gpt2_block(false), 128, 4, 4, AttentionImpl::eager, 4);
  const LayerActivations on =
      transformer_layer_activations(gpt2_block(true), 128, 4, 4, AttentionImpl::eager, 4);
  const BlockSaved torch_off = torch_block("fp32_dropout0.0");
  const BlockSaved torch_on = torch_block("fp32_dropout0.1");
  EXPECT_NEAR(on.total() - off.total(),
              torch_on.linear() + torch_on.scores - torch_off.linear() - torch_off.scores, 1.0);
}

// Autocast saves a 16-bit copy of every weight a matmul reads: 2 bytes per matrix parameter,
// which estimate() counts with the weights. 12 blocks plus the tied LM head, cast once.
TEST(TransformerActivationsVsPyTorch, AutocastWeightCastsAreTwoBytesPerMatrixParameter) {
  const double per_block = torch_block("autocast-bf16_dropout0.0").weight_casts;
  EXPECT_DOUBLE_EQ(per_block, 2.0 * (768.0 * 2304 + 768.0 * 768 + 2 * 768.0 * 3072));
  gpuplan::Setup fp32;
  gpuplan::Setup amp;
  amp.precision = Precision::amp_bf16;
  const auto a = estimate(test::model("gpt2-small"), amp);
  const auto f = estimate(test::model("gpt2-small"), fp32);
  ASSERT_TRUE(a.ok() && f.ok());
  const double casts = a.value().memory.weights - f.value().memory.weights;
  EXPECT_NEAR(casts / (12 * per_block + 2.0 * 50257 * 768), 1.0, 0.01) << casts;
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// Architectures of 2026: latent attention, windows, dense and MoE blocks, MTP modules.
TEST(TransformerFlops, LatentAttentionCountsItsDownAndUpProjections) {
  // DeepSeek-V3 per token and block (DeepSeek-V2 paper, sec. 2.1.2-2.1.3): q_a h -> 1536,
  // q_b 1536 -> 128 x 192, kv_a h -> 512 + 64, kv_b 512 -> 128 x (128 + 128); scores over
  // 128 x 192 channels and values over 128 x 128 per key; o 128 x 128 -> h.
  TransformerSpec s = test::model("deepseek-v3").transformer;
  s.mtp_layers = 0;
  const double h = 7168, t = 1024;
  const TransformerFlops f = transformer_forward_flops(s, 1024);
  const double qkv = 2 * (h * 1536 + 1536 * 128 * 192 + h * 576 + 512 * 128 * 256);
  EXPECT_DOUBLE_EQ(f.qkv_proj, 61 * t * qkv);
  EXPECT_DOUBLE_EQ(attention_flops_per_pair(s), 2 * 128 * 192 + 2 * 128 * 128);
  EXPECT_DOUBLE_EQ(f.attention_core, 61 * t * t * (2 * 128 * 192 + 2 * 128 * 128));
  EXPECT_DOUBLE_EQ(f.attn_out_proj, 61 * t * 2 * 128 * 128 * h);
  // Three dense blocks of 18432, 58 MoE blocks of 8 routed + 1 shared expert of 2048, gated.
  EXPECT_DOUBLE_EQ(f.mlp, t * 2 * h * 3 * (3 * 18432 + 58 * 9 * 2048.0));
  EXPECT_DOUBLE_EQ(f.router, 58 * t * 2 * h * 256);
  // The MTP module adds a MoE block over the sequence, eh_proj (2h -> h) and its own logits.
  const TransformerFlops with_mtp =
      transformer_forward_flops(test::model("deepseek-v3").transformer, 1024);
  EXPECT_DOUBLE_EQ(with_mtp.head - f.head, t * (2 * 2 * h * h + 2 * h * 129280));
  EXPECT_DOUBLE_EQ(with_mtp.mlp - f.mlp, t * 2 * h * 3 * 9 * 2048);
}

TEST(TransformerFlops, ARunCanTrainWithoutTheModelsMtpModules) {
  // Megatron trains DeepSeek-V3 without --mtp-num-layers in NVIDIA's GB200 runs: --mtp-layers 0
  // drops the module's parameters and its forward FLOPs (the block above).
  gpuplan::Setup s;
  s.precision = Precision::mixed_bf16;
  s.seq_len = 1024;
  const Model& m = test::model("deepseek-v3");
  auto with = estimate(m, s);
  ASSERT_TRUE(with.ok()) << with.error().message;
  s.mtp_layers = 0;
  auto without = estimate(m, s);
  ASSERT_TRUE(without.ok()) << without.error().message;
  EXPECT_GT(with.value().params.mtp, 0);
  EXPECT_EQ(without.value().params.mtp, 0);
  EXPECT_EQ(with.value().params.total - without.value().params.total, with.value().params.mtp);
  // The forward FLOPs drop by the module's: all of its non-attention work, and at most its whole
  // score square (the causal mask counts about half).
  TransformerSpec no_mtp = m.transformer;
  no_mtp.mtp_layers = 0;
  const TransformerFlops f = transformer_forward_flops(no_mtp, 1024);
  const TransformerFlops g = transformer_forward_flops(m.transformer, 1024);
  const double drop =
      with.value().flops.forward_per_sample - without.value().flops.forward_per_sample;
  EXPECT_GE(drop, (g.total() - g.attention_core) - (f.total() - f.attention_core));
  EXPECT_LE(drop, g.total() - f.total());
  // A vision model has no MTP modules to set.
  s.seq_len = 0;
  auto cnn = estimate(test::model("resnet50"), s);
  ASSERT_FALSE(cnn.ok());
  EXPECT_NE(cnn.error().message.find("--mtp-layers"), std::string::npos);
}

TEST(TransformerFlops, WindowedBlocksAttendToAtMostTheirWindow) {
  // GPT-OSS: blocks 0, 2, ... slide over 128 keys, blocks 1, 3, ... see all (layer_types).
  const TransformerSpec& s = test::model("gpt-oss-120b").transformer;
  EXPECT_EQ(s.windowed_layer_count(), 18);
  const double t = 4096, w = 128;
  EXPECT_DOUBLE_EQ(attention_keys_per_query(s, t, false), t);
  EXPECT_DOUBLE_EQ(attention_keys_per_query(s, t, true), w);
  EXPECT_DOUBLE_EQ(attention_pairs(s, t), 18 * t * t + 18 * t * w);
  EXPECT_DOUBLE_EQ(transformer_forward_flops(s, 4096).attention_core,
                   (18 * t * t + 18 * t * w) * (2 * 64 * 64 + 2 * 64 * 64));
  // Causal: a query sees the keys up to itself; the first 128 of a window see 1..128.
  EXPECT_DOUBLE_EQ(attention_keys_per_query(s, t, false, true), (t + 1) / 2);
  EXPECT_DOUBLE_EQ(attention_keys_per_query(s, t, true, true), (w * (w + 1) / 2 + (t - w) * w) / t);
  // Shorter than the window, a windowed block is a full one.
  EXPECT_DOUBLE_EQ(attention_keys_per_query(s, 100, true), 100);
}

TEST(TransformerFlops, ChunkedBlocksAttendWithinTheirChunk) {
  // Llama 4: 8192-token chunks in 3 of every 4 blocks; a query sees its chunk (up to itself
  // when causal). 2 chunks and 100 tokens: (2 x 8192^2 + 100^2) / t keys per query.
  const TransformerSpec& s = test::model("llama-4-scout").transformer;
  EXPECT_EQ(s.windowed_layer_count(), 36);
  const double c = 8192, t = 2 * c + 100;
  EXPECT_DOUBLE_EQ(attention_keys_per_query(s, t, true), (2 * c * c + 100 * 100) / t);
  EXPECT_DOUBLE_EQ(attention_keys_per_query(s, t, true, true),
                   (2 * c * (c + 1) / 2 + 100 * 101 / 2.0) / t);
}

TEST(TransformerDimsTest, RoutedIsTheAverageActiveMlpWidthInExpertUnits) {
  // Mixtral: 2 experts of 14336 in every block. DeepSeek-V3: (3 x 18432 + 58 x 9 x 2048) / 61
  // per block in units of 2048. Llama 4 Maverick: 24 MoE blocks of 1 routed + 1 shared of 8192,
  // 24 dense blocks of 16384: (24 x 16384 + 24 x 16384) / 48 / 8192 = 2.
  EXPECT_DOUBLE_EQ(transformer_dims(test::model("mixtral-8x7b").transformer, 1).routed, 2.0);
  const TransformerDims ds = transformer_dims(test::model("deepseek-v3").transformer, 1);
  EXPECT_DOUBLE_EQ(ds.f, 2048);
  EXPECT_DOUBLE_EQ(ds.mlp_active(), (3 * 18432 + 58 * 9 * 2048.0) / 61);
  EXPECT_DOUBLE_EQ(ds.moe_share, 58.0 / 61);
  const TransformerDims mav = transformer_dims(test::model("llama-4-maverick").transformer, 1);
  EXPECT_DOUBLE_EQ(mav.routed, 2.0);
  EXPECT_DOUBLE_EQ(mav.moe_share, 0.5);
}

}  // namespace
}  // namespace gpuplan
