// Launch configs (core/src/query/launch_config.cpp): the numbers of the setup reach each format,
// and what the launchers cannot express is an Error with the reason.
#include "gpuplan/launch_config.h"

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
      "data parallelism with ZeRO/FSDP only (use --tp 1 --pp 1, or Megatron-LM for this plan)");
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

}  // namespace
}  // namespace gpuplan
