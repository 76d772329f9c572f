// Expert parallelism and attention data parallelism in a serving replica: what each GPU holds
// (weights, KV cache), what a step moves between GPUs, the checks, the keys, and development
// rows that state the layout.
#include <gtest/gtest.h>

#include <cmath>

#include "gpuplan/query.h"
#include "gpuplan/serve_plan.h"
#include "gpuplan/serve_validation.h"
#include "gpuplan/transformer.h"
#include "test_util.h"

namespace gpuplan {
namespace {

Result<ReplicaModel> build(const std::string& model, const std::string& gpu, ServeConfig c) {
  const Gpu* g = test::catalog().find_gpu(gpu);
  EXPECT_NE(g, nullptr);
  return build_replica(test::model(model), *g, c, test::serving(), test::catalog().efficiencies);
}

ReplicaModel replica(const std::string& model, const std::string& gpu, ServeConfig c) {
  auto r = build(model, gpu, c);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : ReplicaModel{};
}

ServeConfig layout(int tp, int ep, bool attention_dp) {
  ServeConfig c;
  c.tp = tp;
  c.ep = ep;
  c.attention_dp = attention_dp;
  return c;
}

// Mixtral 8x7B: 32 layers, hidden 4096, 32 query heads and 8 KV heads of 128, 8 experts, vocab
// 32000, untied. Outside the experts a block holds Q 4096x4096, K and V 4096x1024 each, O
// 4096x4096 (41,943,040), the router 4096x8 (32,768) and two norms (8,192): 41,984,000 per block,
// 1,343,488,000 in all; with the final norm (4,096) and the head (131,072,000) a step reads
// 1,474,564,096 parameters outside the experts. Attention DP holds them whole on every GPU.
TEST(ServeAttentionDp, EveryGpuHoldsAttentionWholeAndTheExpertsSplit) {
  const ReplicaModel dp = replica("mixtral-8x7b", "h100-sxm5-80gb", layout(2, 2, true));
  EXPECT_DOUBLE_EQ(dp.dense_weight_bytes, 2.0 * 1474564096);
  const ReplicaModel tp = replica("mixtral-8x7b", "h100-sxm5-80gb", layout(2, 2, false));
  EXPECT_DOUBLE_EQ(dp.expert_bytes_per_layer, tp.expert_bytes_per_layer);
  EXPECT_LT(tp.dense_weight_bytes, dp.dense_weight_bytes);
  // Its KV cache: all 8 KV heads of its own sequences, 2 x 8 x 128 x 2 bytes x 32 layers; the
  // replica's blocks are both GPUs' (tensor parallel: 4 heads of every sequence on each).
  EXPECT_DOUBLE_EQ(dp.memory.kv_bytes_per_token, 131072.0);
  EXPECT_DOUBLE_EQ(tp.memory.kv_bytes_per_token, 65536.0);
  const double block_bytes = dp.memory.kv_bytes_per_token * static_cast<double>(dp.block_tokens);
  EXPECT_EQ(dp.memory.kv_blocks,
            2 * static_cast<int64_t>(std::floor(dp.memory.kv_bytes / block_bytes)));
  // The runtime's batch limits are per GPU.
  EXPECT_EQ(dp.max_num_seqs, 2 * tp.max_num_seqs);
  EXPECT_EQ(dp.max_num_batched_tokens, 2 * tp.max_num_batched_tokens);
}

// MLA keeps one latent per token for all heads: tensor parallelism copies it to every GPU,
// attention DP keeps each sequence's on one, so the replica holds tp times the sequences (less the
// weights attention DP adds to every GPU). DeepSeek-V3 on 8 H200s, fp8 weights.
TEST(ServeAttentionDp, MlaLatentIsNotCopiedToEveryGpu) {
  ServeConfig tp = layout(8, 8, false), dp = layout(8, 8, true);
  tp.weights = dp.weights = WeightFormat::fp8;
  const ReplicaModel a = replica("deepseek-v3", "h200", tp);
  const ReplicaModel b = replica("deepseek-v3", "h200", dp);
  // 61 layers x (512 + 64) x 2 bytes, on every GPU either way.
  EXPECT_DOUBLE_EQ(a.memory.kv_bytes_per_token, 61.0 * 576 * 2);
  EXPECT_DOUBLE_EQ(b.memory.kv_bytes_per_token, a.memory.kv_bytes_per_token);
  EXPECT_GT(b.memory.weight_bytes, a.memory.weight_bytes);
  const double block_bytes = a.memory.kv_bytes_per_token * static_cast<double>(a.block_tokens);
  EXPECT_EQ(a.memory.kv_blocks, static_cast<int64_t>(std::floor(a.memory.kv_bytes / block_bytes)));
  EXPECT_EQ(b.memory.kv_blocks,
            8 * static_cast<int64_t>(std::floor(b.memory.kv_bytes / block_bytes)));
  // 671 B parameters at fp8 leave little beside them: still over 4 times the sequences.
  EXPECT_GT(max_concurrent_sequences(b, 1024, 2048), 4 * max_concurrent_sequences(a, 1024, 2048));
}

// Attention DP's step: no tensor-parallel all-reduce; per MoE layer each GPU dispatches its rank's
// tokens to their k experts and combines them back, (ep - 1)/ep of them remote, 2 bytes per
// element. Mixtral on 2 H100s, 64 decoding sequences, 32 per rank: 32 x 2 x 1/2 x 4096 x 2 bytes.
TEST(ServeAttentionDp, StepDispatchesTheRanksOwnTokens) {
  const ReplicaModel r = replica("mixtral-8x7b", "h100-sxm5-80gb", layout(2, 2, true));
  StepLoad load;
  load.decode_seqs = 64;
  load.decode_context = 64 * 1000;
  const double bytes = 32 * 2 * 0.5 * 4096 * 2.0;
  EXPECT_DOUBLE_EQ(step_time(r, load).comm_s,
                   2 * 32 * (r.allreduce_latency_s + bytes / r.link_busbw_bytes_per_s));
  // Each rank attends over its own 32 sequences' keys: half the replica's, at 8 heads each.
  const ReplicaModel tp = replica("mixtral-8x7b", "h100-sxm5-80gb", layout(2, 2, false));
  EXPECT_NEAR(step_time(r, load).attention_s, step_time(tp, load).attention_s, 1e-15);
  // A lone request runs on one rank: its attention and dense layers are not shared.
  StepLoad lone;
  lone.decode_seqs = 1;
  lone.decode_context = 1000;
  StepLoad spread = lone;
  lone.one_rank = true;
  EXPECT_GT(step_time(r, lone).weights_s, step_time(r, spread).weights_s);
}

TEST(ServeAttentionDp, RefusesWhatItCannotRun) {
  auto dense = build("llama-3-8b", "h100-sxm5-80gb", layout(2, 1, true));
  ASSERT_FALSE(dense.ok());
  EXPECT_EQ(dense.error().message,
            "--attention-dp applies to mixture-of-experts models only; a dense model runs more "
            "replicas instead");
  ServeConfig split = layout(2, 1, true);
  split.runtime = Runtime::llamacpp;
  auto layers = build("mixtral-8x7b", "rtx-4090", split);
  ASSERT_FALSE(layers.ok());
  EXPECT_EQ(layers.error().message,
            "--attention-dp: the runtime splits layers across GPUs; leave --attention-dp off");
  // Mixtral's 8 experts do not split over 16 GPUs; its 32 heads need not split under attention DP.
  auto uneven = build("mixtral-8x7b", "gb200", layout(16, 16, true));
  ASSERT_FALSE(uneven.ok());
  EXPECT_EQ(uneven.error().message,
            "--ep 16: the model's 8 routed experts do not split evenly over 16 GPUs");
  EXPECT_TRUE(build("deepseek-v3", "gb200", layout(24, 8, true)).ok());
  EXPECT_FALSE(build("deepseek-v3", "gb200", layout(24, 8, false)).ok());  // 128 heads over 24
  // --ep 0: the experts over all of the replica's GPUs.
  const ReplicaModel all = replica("mixtral-8x7b", "h100-sxm5-80gb", layout(2, 0, false));
  EXPECT_EQ(all.config.ep, 2);
}

TEST(ServeAttentionDp, KeysReachTheReplica) {
  auto r = parse_serve_request({{"model", "mixtral-8x7b"}, {"ep", "2"}, {"attention-dp", "1"}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  const ServeQuery q = serve_query(r.value(), {});
  EXPECT_EQ(q.config.ep, 2);
  EXPECT_TRUE(q.config.attention_dp);
  EXPECT_FALSE(parse_serve_request({{"ep", "65"}}).ok());
}

// DeepSeek-V3 decodes over its latent: 2 x 128 heads x (512 + 64) to score, 2 x 128 x 512 to sum,
// against 2 x 128 x 192 + 2 x 128 x 128 over per-head keys and values.
TEST(ServeAttentionDp, MlaDecodesOverTheLatent) {
  const TransformerSpec& s = test::model("deepseek-v3").transformer;
  EXPECT_DOUBLE_EQ(absorbed_attention_flops_per_pair(s), 2.0 * 128 * 576 + 2.0 * 128 * 512);
  const TransformerSpec& gqa = test::model("llama-3-8b").transformer;
  EXPECT_DOUBLE_EQ(absorbed_attention_flops_per_pair(gqa), attention_flops_per_pair(gqa));
}

// TensorRT-LLM's DeepSeek-R1 blog writes the layout in the framework column.
TEST(ServeAttentionDp, ReadsTheLayoutARowStates) {
  const std::string text =
      test::kServingCsvHeader +
      "D1,trtllm,DeepSeek-R1 (671B MoE),H200,8,8,FP8 weights (deepseek-ai/DeepSeek-R1),"
      "\"TensorRT-LLM PyTorch backend (TP8 EP8, attention DP, max_batch_size 128)\",1024,2048,"
      "\"synthetic fixed 1024/2048, 5120 requests\",1024,,output_tokens_per_s_total,11489,x,\n"
      "D2,trtllm,DeepSeek-R1 (671B MoE),H200,8,8,FP8 weights (deepseek-ai/DeepSeek-R1),"
      "\"TensorRT-LLM PyTorch backend (TP8 EP8)\",1024,2048,"
      "\"synthetic fixed 1024/2048, 5120 requests\",1024,,output_tokens_per_s_total,11489,x,\n";
  auto row = [](const std::string& id, const std::string& tp, const std::string& framework) {
    return id + ",trtllm,DeepSeek-R1 (671B MoE),H200,8," + tp +
           ",FP8 weights (deepseek-ai/DeepSeek-R1),\"TensorRT-LLM " + framework +
           " max_batch_size 128\",1024,2048,\"synthetic fixed 1024/2048, 5120 requests\",1024,,"
           "output_tokens_per_s_total,11489,x,\n";
  };
  const std::string spellings = row("D3", "8", "--ep-size 8 --enable-dp-attention") +
                                row("D4", "1", "DP8 EP8") +
                                row("D5", "8", "enable-expert-parallel, attention data parallel");
  auto rep = validate_serving_csv(test::catalog(), test::serving(), text + spellings, "s.csv");
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  ASSERT_EQ(rep.value().rows.size(), 5u)
      << (rep.value().skipped.empty() ? "" : rep.value().skipped[0].second);
  EXPECT_EQ(rep.value().rows[0].ground.precision, "fp8");
  // Attention DP holds 8 times the sequences: more of them decode in each step.
  const auto& rows = rep.value().rows;
  EXPECT_GT(rows[0].predicted, rows[1].predicted);
  // Its error band pools rows of its own layout, not every tensor-parallel row's.
  EXPECT_EQ(rows[0].band.family, "output tokens/s, attention DP");
  EXPECT_EQ(rows[1].band.family, "output tokens/s");
  // SGLang's and vLLM's spellings of the same layout read the same.
  for (size_t i = 2; i < 5; ++i) EXPECT_DOUBLE_EQ(rows[i].predicted, rows[0].predicted) << i;
}

}  // namespace
}  // namespace gpuplan
