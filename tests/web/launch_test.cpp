// The launch configs the page shows (web/model/launch.h): the text `--emit` prints for the same
// estimate or plan, the core's error for a layout a launcher cannot run, and the plan chosen.
#include <gtest/gtest.h>

#include <string>

#include "gpuplan/embedded_data.h"
#include "model/launch.h"
#include "model/page_model.h"
#include "web_test_util.h"

namespace gpuplan::web {
namespace {

using page_test::catalog;

Evaluation evaluation(const std::string& link) {
  auto s = page_state_from_query(link);
  EXPECT_TRUE(s.ok()) << s.error().message;
  if (!s.ok()) return {};
  auto ev = compute(catalog(), s.value(), nullptr);
  EXPECT_TRUE(ev.ok()) << ev.error().message;
  return ev.ok() ? ev.value() : Evaluation{};
}

TEST(Launch, TheEstimatesConfigStatesItsGpusNodesAndBatches) {
  // 2 nodes of 8 H100: 16-way data parallel, micro-batch 2 x 2 accumulation x 16 = 64.
  const Evaluation ev = evaluation(
      "model=llama-2-7b&batch=64&micro-batch=2&precision=amp-bf16&zero=3&instance=aws-p5.48xlarge&"
      "nodes=2");
  auto text = estimate_launch_config(ev, LaunchFormat::torchrun);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_NE(text.value().find("torchrun --nnodes=2 --nproc_per_node=8"), std::string::npos)
      << text.value();
  EXPECT_NE(text.value().find("--micro-batch-size 2 --gradient-accumulation-steps 2"),
            std::string::npos)
      << text.value();
  EXPECT_EQ(launch_fill_in(LaunchFormat::torchrun, ev.query.nodes), S::launch_fill_torchrun_nodes);
  EXPECT_EQ(launch_fill_in(LaunchFormat::deepspeed, 1), S::launch_fill_deepspeed);
}

TEST(Launch, ALayoutTheLauncherCannotRunIsTheCoresError) {
  const Evaluation ev =
      evaluation("model=llama-2-7b&batch=8&precision=bf16&gpu=h100-sxm5-80gb&gpus=8&tp=2");
  auto text = estimate_launch_config(ev, LaunchFormat::deepspeed);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().message.find("tensor parallel 2"), std::string::npos)
      << text.error().message;
}

TEST(Launch, AFrameworkPresetShowsItsOwnLauncherUntilOneIsPicked) {
  const Evaluation megatron = evaluation(
      "model=llama-2-7b&batch=8&precision=bf16&gpu=h100-sxm5-80gb&gpus=8&framework=megatron");
  const Evaluation bridge = evaluation(
      "model=llama-2-7b&batch=8&precision=bf16&gpu=h100-sxm5-80gb&gpus=8&framework=megatron-"
      "bridge");
  const Evaluation deepspeed = evaluation(
      "model=llama-2-7b&batch=8&precision=bf16&gpu=h100-sxm5-80gb&gpus=8&framework=deepspeed");
  const Evaluation trainer = evaluation(
      "model=llama-2-7b&batch=8&precision=bf16&gpu=h100-sxm5-80gb&gpus=8&framework=hf-trainer");
  const Evaluation plain =
      evaluation("model=llama-2-7b&batch=8&precision=bf16&gpu=h100-sxm5-80gb&gpus=8");
  EXPECT_EQ(shown_launch_format(std::nullopt, &megatron), LaunchFormat::megatron);
  EXPECT_EQ(shown_launch_format(std::nullopt, &bridge), LaunchFormat::megatron);
  EXPECT_EQ(shown_launch_format(std::nullopt, &deepspeed), LaunchFormat::deepspeed);
  EXPECT_EQ(shown_launch_format(std::nullopt, &trainer), LaunchFormat::accelerate);
  EXPECT_EQ(shown_launch_format(std::nullopt, &plain), LaunchFormat::torchrun);
  EXPECT_EQ(shown_launch_format(std::nullopt, nullptr), LaunchFormat::torchrun);
  // A launcher the user picked stays picked whatever the framework.
  EXPECT_EQ(shown_launch_format(LaunchFormat::torchrun, &megatron), LaunchFormat::torchrun);
}

TEST(Launch, ThePlanChosenIsClampedToThePlansShown) {
  PlanResult r;
  EXPECT_EQ(launch_plan(r, 0), nullptr);
  r.plans.resize(3);
  r.plans[2].instance = "last";
  EXPECT_EQ(launch_plan(r, 1), &r.plans[1]);
  EXPECT_EQ(launch_plan(r, 7)->instance, "last");  // a new, shorter search
  EXPECT_EQ(launch_plan(r, -1), &r.plans[0]);
}

}  // namespace
}  // namespace gpuplan::web
