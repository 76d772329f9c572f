// Launch configs (core/src/query/launch_config.cpp): the numbers of the setup reach each format,
// and what the launchers cannot express is an Error with the reason.
#include "gpuplan/launch_config.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace gpuplan {
namespace {

LaunchInputs two_nodes_zero3() {
  LaunchInputs in;
  in.model = "llama-2-7b";
  in.nodes = 2;
  in.gpus_per_node = 8;
  in.setup.dp = 16;
  in.setup.zero_stage = 3;
  in.setup.precision = Precision::amp_bf16;
  in.setup.checkpointing = Checkpointing::full;
  in.micro_batch = 2;
  in.grad_accum_steps = 4;
  in.global_batch = 128;
  return in;
}

TEST(LaunchConfig, DeepSpeedJsonCarriesTheBatchesAndZeroStage) {
  auto text = emit_launch_config(two_nodes_zero3(), LaunchFormat::deepspeed);
  ASSERT_TRUE(text.ok()) << text.error().message;
  const auto j = nlohmann::json::parse(text.value());
  EXPECT_EQ(j["train_batch_size"], 128);
  EXPECT_EQ(j["train_micro_batch_size_per_gpu"], 2);
  EXPECT_EQ(j["gradient_accumulation_steps"], 4);
  EXPECT_EQ(j["zero_optimization"]["stage"], 3);
  EXPECT_EQ(j["bf16"]["enabled"], true);
  EXPECT_EQ(j["fp16"]["enabled"], false);
  EXPECT_TRUE(j.contains("activation_checkpointing"));
}

TEST(LaunchConfig, HybridShardingIsEachLaunchersOwnSwitchOrAnError) {
  // 16 GPUs sharded in groups of 8 (one node each), two replicas.
  LaunchInputs in = two_nodes_zero3();
  in.setup.dp_shard = 8;
  auto t = emit_launch_config(in, LaunchFormat::torchrun);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_NE(t.value().find("ShardingStrategy.HYBRID_SHARD,"), std::string::npos);
  auto a = emit_launch_config(in, LaunchFormat::accelerate);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_NE(a.value().find("fsdp_sharding_strategy: HYBRID_SHARD\n"), std::string::npos);
  auto d = emit_launch_config(in, LaunchFormat::deepspeed);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(nlohmann::json::parse(d.value())["zero_optimization"]["mics_shard_size"], 8);
  // FSDP's hybrid strategies shard over a node: groups of 4 cannot be said.
  in.setup.dp_shard = 4;
  EXPECT_EQ(emit_launch_config(in, LaunchFormat::torchrun).error().message,
            "--emit torchrun: --dp-shard 4 cannot be said: FSDP's HYBRID_SHARD shards over one "
            "node's 8 GPUs (use --dp-shard 8)");
  // Megatron's distributed optimizer (ZeRO-1) splits into dp / dp_shard instances.
  in.setup.zero_stage = 1;
  in.setup.precision = Precision::mixed_bf16;
  in.setup.optimizer = Optimizer::adamw;
  in.decoder_lm = true;  // the decoder-only language model pretrain_gpt.py trains
  auto m = emit_launch_config(in, LaunchFormat::megatron);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_NE(m.value().find("--num-distributed-optimizer-instances 4"), std::string::npos);
  EXPECT_EQ(emit_launch_config(in, LaunchFormat::deepspeed).error().message,
            "--emit deepspeed: --dp-shard 4 needs ZeRO-3 under DeepSpeed (MiCS: mics_shard_size)");
}

TEST(LaunchConfig, TorchrunAndAccelerateStateShardingAndNodes) {
  auto t = emit_launch_config(two_nodes_zero3(), LaunchFormat::torchrun);
  ASSERT_TRUE(t.ok());
  EXPECT_NE(t.value().find("torchrun --nnodes=2 --nproc_per_node=8 --rdzv_backend=c10d"),
            std::string::npos);
  EXPECT_NE(t.value().find("ShardingStrategy.FULL_SHARD"), std::string::npos);
  EXPECT_NE(t.value().find("reduce_dtype=torch.float32"),
            std::string::npos);  // AMP: fp32 gradient reduction
  auto a = emit_launch_config(two_nodes_zero3(), LaunchFormat::accelerate);
  ASSERT_TRUE(a.ok());
  EXPECT_NE(a.value().find("distributed_type: FSDP\n"), std::string::npos);
  EXPECT_NE(a.value().find("num_processes: 16\n"), std::string::npos);
  EXPECT_NE(a.value().find("fsdp_activation_checkpointing: true\n"), std::string::npos);
  LaunchInputs ddp = two_nodes_zero3();
  ddp.setup.zero_stage = 0;
  auto d = emit_launch_config(ddp, LaunchFormat::accelerate);
  ASSERT_TRUE(d.ok());
  EXPECT_NE(d.value().find("distributed_type: MULTI_GPU\n"), std::string::npos);
}

TEST(LaunchConfig, RefusesWhatTheLaunchersCannotRun) {
  LaunchInputs tp = two_nodes_zero3();
  tp.setup.tp = 2;
  tp.setup.dp = 8;
  auto e = emit_launch_config(tp, LaunchFormat::deepspeed);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(
      e.error().message,
      "--emit: this plan uses tensor parallel 2 and pipeline 1; torchrun/accelerate/DeepSpeed "
      "configs express "
      "data parallelism with ZeRO/FSDP only (use --tp 1 --pp 1, or --emit megatron for this plan)");
  // A message id with its values: the page shows it in its own language.
  EXPECT_EQ(e.error().id, Msg::emit_tp_pp);
  EXPECT_EQ(e.error().args, (std::vector<std::string>{"2", "1"}));
  LaunchInputs odd = two_nodes_zero3();
  odd.global_batch = 100;
  auto b = emit_launch_config(odd, LaunchFormat::torchrun);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().message,
            "--emit: micro-batch 2 x accumulation 4 x data-parallel 16 must equal the global batch "
            "100 on 16 GPUs");
  EXPECT_FALSE(parse_launch_format("slurm"));
  EXPECT_EQ(parse_launch_format("accelerate"), LaunchFormat::accelerate);
}

// Qwen3-235B-A22B (94 blocks) as Megatron's H100 recipe runs it: tp 2, pp 8 x vp 4, ep 32, 256
// GPUs, 2,048 samples of 4,096 tokens, DeepEP with the EP overlap, selective recompute.
LaunchInputs qwen3_megatron() {
  LaunchInputs in;
  in.model = "qwen3-235b-a22b";
  in.layers = 94;
  in.moe = true;
  in.decoder_lm = true;
  in.nodes = 32;
  in.gpus_per_node = 8;
  Setup& s = in.setup;
  s.precision = Precision::mixed_bf16;
  s.dp = 16;
  s.tp = 2;
  s.pp = 8;
  s.vp = 4;
  s.ep = 32;
  s.etp = 1;
  s.sequence_parallel = true;
  s.zero_stage = 1;
  s.overlap_param_gather = true;
  s.checkpointing = Checkpointing::selective;
  s.recompute_modules = kRecomputeLayernorm | kRecomputeMoeAct;
  s.moe_dispatcher = MoeDispatcher::deepep;
  s.moe_a2a_overlap = true;
  s.attention = Attention::cudnn;
  s.cuda_graph_modules = kGraphMoeRouter | kGraphMoePreprocess;
  in.micro_batch = 1;
  in.grad_accum_steps = 128;
  in.global_batch = 2048;
  in.seq_len = 4096;
  return in;
}

// The flags one line each, as the command prints them ("  --flag value \").
std::vector<std::string> flags_of(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  while ((at = text.find("\n  --", at)) != std::string::npos) {
    const size_t start = at + 3, end = text.find_first_of("\\\n", start);
    std::string flag = text.substr(start, end - start);
    while (!flag.empty() && flag.back() == ' ') flag.pop_back();
    out.push_back(flag);
    at = start;
  }
  return out;
}

bool has(const std::vector<std::string>& flags, const std::string& flag) {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

TEST(LaunchConfig, MegatronCarriesTheWholeLayout) {
  auto text = emit_launch_config(qwen3_megatron(), LaunchFormat::megatron);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_NE(text.value().find("torchrun --nnodes=32 --nproc_per_node=8 "), std::string::npos);
  EXPECT_NE(text.value().find(" pretrain_gpt.py \\\n"), std::string::npos);
  const auto f = flags_of(text.value());
  // 94 blocks do not fill 8 x 4 virtual stages; with the embedding and the loss, 96 do.
  for (const char* flag : {"--tensor-model-parallel-size 2",
                           "--pipeline-model-parallel-size 8",
                           "--num-virtual-stages-per-pipeline-rank 4",
                           "--account-for-embedding-in-pipeline-split",
                           "--account-for-loss-in-pipeline-split",
                           "--sequence-parallel",
                           "--expert-model-parallel-size 32",
                           "--expert-tensor-parallel-size 1",
                           "--micro-batch-size 1",
                           "--global-batch-size 2048",
                           "--seq-length 4096",
                           "--bf16",
                           "--use-distributed-optimizer",
                           "--overlap-param-gather",
                           "--recompute-granularity selective",
                           "--recompute-modules moe_act layernorm",
                           "--attention-backend fused",
                           "--moe-grouped-gemm",
                           "--moe-token-dispatcher-type flex",
                           "--moe-flex-dispatcher-backend deepep",
                           "--overlap-moe-expert-parallel-comm",
                           "--delay-wgrad-compute",
                           "--cuda-graph-impl transformer_engine",
                           "--cuda-graph-modules moe_router moe_preprocess"})
    EXPECT_TRUE(has(f, flag)) << flag << " in\n" << text.value();
  EXPECT_FALSE(has(f, "--fp8-format hybrid"));
  // HybridEP's fixed per-rank budget, as Megatron-Bridge's 2026 MXFP8 recipes set it.
  LaunchInputs budget = qwen3_megatron();
  budget.setup.moe_dispatcher = MoeDispatcher::hybridep;
  budget.setup.moe_rank_capacity = 1.5;
  const auto fb = flags_of(emit_launch_config(budget, LaunchFormat::megatron).value());
  EXPECT_TRUE(has(fb, "--moe-flex-dispatcher-backend hybridep"));
  EXPECT_TRUE(has(fb, "--moe-expert-rank-capacity-factor 1.5"));
  EXPECT_FALSE(has(f, "--moe-expert-rank-capacity-factor 1.5"));
  // Layers that divide need no embedding or loss accounted.
  LaunchInputs even = qwen3_megatron();
  even.layers = 96;
  EXPECT_FALSE(has(flags_of(emit_launch_config(even, LaunchFormat::megatron).value()),
                   "--account-for-embedding-in-pipeline-split"));
}

TEST(LaunchConfig, MegatronRecipesAndWhatItCannotRun) {
  LaunchInputs in = qwen3_megatron();
  in.setup.precision = Precision::mxfp8;
  in.setup.quantized_params = true;
  auto f = flags_of(emit_launch_config(in, LaunchFormat::megatron).value());
  for (const char* flag :
       {"--bf16", "--fp8-format e4m3", "--fp8-recipe mxfp8", "--fp8-param-gather"})
    EXPECT_TRUE(has(f, flag)) << flag;
  in.setup.precision = Precision::nvfp4;
  f = flags_of(emit_launch_config(in, LaunchFormat::megatron).value());
  for (const char* flag : {"--fp4-format e2m1", "--fp4-recipe nvfp4", "--fp4-param-gather"})
    EXPECT_TRUE(has(f, flag)) << flag;
  in.setup.precision = Precision::amp_bf16;
  auto e = emit_launch_config(in, LaunchFormat::megatron);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().id, Msg::emit_megatron_precision);
  in = qwen3_megatron();
  in.setup.checkpointing = Checkpointing::every_k_layers;
  e = emit_launch_config(in, LaunchFormat::megatron);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message,
            "--emit megatron: Megatron-LM has no equivalent of --checkpointing every-k-layers");
  in = qwen3_megatron();
  in.layers = 93;  // neither 93 nor 95 fills 32 virtual stages
  e = emit_launch_config(in, LaunchFormat::megatron);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().id, Msg::emit_megatron_layout);
  EXPECT_EQ(e.error().args, (std::vector<std::string>{"32", "93"}));
  in = qwen3_megatron();
  in.setup.dp = 8;  // 8 x 2 x 8 = 128 of 256 GPUs
  in.grad_accum_steps = 256;
  e = emit_launch_config(in, LaunchFormat::megatron);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().id, Msg::emit_megatron_batch);
  in = qwen3_megatron();
  in.model = "resnet50";
  in.decoder_lm = false;
  e = emit_launch_config(in, LaunchFormat::megatron);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().id, Msg::emit_megatron_model);
  // Every layout is Megatron's: the planner is not narrowed.
  PlanQuery q;
  q.tp = 4;
  EXPECT_FALSE(restrict_to_launcher(q, LaunchFormat::megatron).has_value());
  EXPECT_EQ(q.tp, 4);
  EXPECT_EQ(parse_launch_format("megatron"), LaunchFormat::megatron);
}

}  // namespace
}  // namespace gpuplan
