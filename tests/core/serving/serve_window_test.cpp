// Attention windows as each runtime keeps them: vLLM's cache holds a windowed layer's window,
// TensorRT-LLM's sizes every layer to the longest window of any (its cyclic KV cache) and runs
// Llama 4's chunked attention in prefill only, so its decode steps read every token.
#include <gtest/gtest.h>

#include "gpuplan/serve_replica.h"
#include "test_util.h"

namespace gpuplan {
namespace {

ReplicaModel replica(const Model& m, Runtime runtime, int tp = 1) {
  ServeConfig c;
  c.runtime = runtime;
  c.tp = tp;
  c.checkpoint_weights = true;
  const Gpu* h200 = test::catalog().find_gpu("h200-sxm-141gb");
  auto r = build_replica(m, *h200, c, test::serving(), test::catalog().efficiencies);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : ReplicaModel{};
}

TEST(ServeWindows, VllmKeepsAWindowedLayersWindowTensorRtLlmTheLongestWindow) {
  // gpt-oss-20b: 24 blocks, every second one attends to the whole sequence, the others to the
  // last 128 tokens. At 4,096 tokens vLLM keeps 12 x 4,096 + 12 x 128 token-blocks of 24 x 4,096.
  const Model& oss = test::model("gpt-oss-20b");
  EXPECT_DOUBLE_EQ(kept_kv_share(replica(oss, Runtime::vllm), 4096),
                   (12 * 4096.0 + 12 * 128.0) / (24 * 4096.0));
  EXPECT_DOUBLE_EQ(kept_kv_share(replica(oss, Runtime::trtllm), 4096), 1.0);
  // Windowed throughout, the longest window is the window: TensorRT-LLM keeps 128 of 4,096.
  Model windowed = oss;
  windowed.transformer.full_attention_every = 0;
  EXPECT_DOUBLE_EQ(kept_kv_share(replica(windowed, Runtime::trtllm), 4096), 128.0 / 4096);
  // Within the window nothing is dropped.
  EXPECT_DOUBLE_EQ(kept_kv_share(replica(oss, Runtime::vllm), 100), 1.0);
}

TEST(ServeWindows, TensorRtLlmDecodesLlama4sChunkedLayersOverTheWholeSequence) {
  // Llama 4 Scout: 3 of 4 blocks attend within 8,192-token chunks. A decode step at 20,000 tokens
  // reads 12 x 20,000 + 36 x 8,192 token-blocks under vLLM, 48 x 20,000 under TensorRT-LLM.
  const Model& scout = test::model("llama-4-scout");
  const ReplicaModel vllm = replica(scout, Runtime::vllm, 4);
  const ReplicaModel trt = replica(scout, Runtime::trtllm, 4);
  EXPECT_DOUBLE_EQ(kept_kv_share(vllm, 20000), (12 * 20000.0 + 36 * 8192.0) / (48 * 20000.0));
  EXPECT_DOUBLE_EQ(kept_kv_share(trt, 20000), 1.0);
  StepLoad load;
  load.decode_seqs = 64;
  load.decode_context = 64 * 20000.0;
  const double kv_bytes = 64 * 20000.0 * trt.memory.kv_bytes_per_token;
  EXPECT_NEAR(step_time(trt, load).attention_s, kv_bytes / trt.hbm_bytes_per_s,
              1e-9 * kv_bytes / trt.hbm_bytes_per_s);
  EXPECT_NEAR(step_time(vllm, load).attention_s,
              kv_bytes * kept_kv_share(vllm, 20000) / vllm.hbm_bytes_per_s,
              1e-9 * kv_bytes / vllm.hbm_bytes_per_s);
}

}  // namespace
}  // namespace gpuplan
