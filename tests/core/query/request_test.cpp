// Requests from CLI flags and URL queries: one set of keys, strict values, round trips.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "gpuplan/request.h"

namespace gpuplan {
namespace {

TEST(Request, QueryRoundTripKeepsEverySetting) {
  auto args = query_to_args(
      "#model=llama-2-7b&batch=64&micro-batch=4&seq=2048&precision=amp-bf16"
      "&optimizer=adam-8bit&checkpointing=selective&dp=8&zero=2&tp=2&sp=1&pp=2"
      "&lora-rank=16&qlora=1&lora-targets=q_proj,k_proj,v_proj&mode=train");
  ASSERT_TRUE(args.ok());
  auto r = parse_request(args.value());
  ASSERT_TRUE(r.ok()) << r.error().message;
  const gpuplan::Setup& s = r.value().setup;
  EXPECT_EQ(r.value().model, "llama-2-7b");
  EXPECT_EQ(s.global_batch, 64);
  EXPECT_EQ(s.micro_batch, 4);
  EXPECT_EQ(s.precision, Precision::amp_bf16);
  EXPECT_EQ(s.optimizer, Optimizer::adam_8bit);
  EXPECT_EQ(s.checkpointing, Checkpointing::selective);
  EXPECT_EQ(s.zero_stage, 2);
  EXPECT_TRUE(s.sequence_parallel);
  EXPECT_TRUE(s.qlora);
  EXPECT_EQ(s.lora_targets.size(), 3u);
  const std::string query = args_to_query(request_to_args(r.value()));
  auto again = parse_request(query_to_args(query).value());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(args_to_query(request_to_args(again.value())), query);
}

TEST(Request, OptimizerLoopAndClippingRoundTrip) {
  auto r = parse_request(
      query_to_args(
          "model=transformer-xl-base&optimizer=lamb&optimizer-loop=for-loop&clip-grad-norm")
          .value());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().setup.optimizer, Optimizer::lamb);
  EXPECT_EQ(r.value().setup.optimizer_loop, OptimizerLoop::for_loop);
  EXPECT_TRUE(r.value().setup.clip_grad_norm);
  EXPECT_EQ(args_to_query(request_to_args(r.value())),
            "model=transformer-xl-base&optimizer=lamb&optimizer-loop=for-loop&clip-grad-norm=1");
  auto bad = parse_request(query_to_args("model=gpt2-small&optimizer-loop=fused").value());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("foreach, for-loop"), std::string::npos)
      << bad.error().message;
}

TEST(Request, MemoryFormatIsAKeyWithNamedValues) {
  auto r = parse_request(query_to_args("model=resnet50&memory-format=channels-last").value());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().setup.memory_format, MemoryFormat::channels_last);
  EXPECT_EQ(args_to_query(request_to_args(r.value())),
            "model=resnet50&memory-format=channels-last");
  auto bad = parse_request(query_to_args("model=resnet50&memory-format=nhwc4").value());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("auto, nchw, channels-last"), std::string::npos)
      << bad.error().message;
}

TEST(Request, ExpertParallelKeysRoundTrip) {
  const std::string link =
      "model=mixtral-8x7b&ep=8&etp=1&capacity-factor=1.25&moe-pad-to-capacity=1&moe-imbalance=1&"
      "moe-dispatcher=deepep&moe-a2a-overlap=1";
  auto r = parse_request(query_to_args(link).value());
  ASSERT_TRUE(r.ok()) << r.error().message;
  const gpuplan::Setup& s = r.value().setup;
  EXPECT_EQ(s.ep, 8);
  EXPECT_EQ(s.etp, 1);
  EXPECT_EQ(s.capacity_factor, 1.25);
  EXPECT_EQ(s.moe_imbalance, 1);
  EXPECT_EQ(s.moe_dispatcher, MoeDispatcher::deepep);
  EXPECT_TRUE(s.moe_a2a_overlap);
  EXPECT_TRUE(s.moe_pad_to_capacity);
  EXPECT_EQ(args_to_query(request_to_args(r.value())), link);
  auto bad = parse_request(query_to_args("model=mixtral-8x7b&moe-dispatcher=nccl").value());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "--moe-dispatcher: 'nccl' is not one of alltoall, deepep, hybridep");
  // The table's bounds (core/src/query/keys.cpp) name the key: ep and etp at least 1, the
  // imbalance at least an even share, the capacity factor not negative.
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"ep", "0"}, {"etp", "0"}, {"moe-imbalance", "0.5"}, {"capacity-factor", "-1"}}) {
    auto out = parse_request({{"model", "mixtral-8x7b"}, {key, value}});
    ASSERT_FALSE(out.ok()) << key;
    EXPECT_EQ(out.error().key, key);
    EXPECT_EQ(out.error().message.rfind("--" + key + ": " + value + " is out of range", 0), 0u)
        << out.error().message;
  }
}

TEST(Request, DefaultsAreLeftOutOfLinks) {
  Request r;
  r.model = "gpt2-small";
  EXPECT_EQ(args_to_query(request_to_args(r)), "model=gpt2-small");
}

TEST(Request, PercentEncodingRoundTrips) {
  Args a = {{"model", "meta-llama/Llama-2-7b-hf"}, {"x", "a b&c=d%"}};
  auto back = query_to_args(args_to_query(a));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value(), a);
}

TEST(Request, RejectsMalformedValuesNamingTheKey) {
  auto bad = [](const std::string& q) {
    auto a = query_to_args(q);
    if (!a.ok()) return a.error().message;
    auto r = parse_request(a.value());
    return r.ok() ? std::string() : r.error().message;
  };
  EXPECT_EQ(bad("batch=NaN"), "--batch: 'NaN' is not an integer");
  EXPECT_EQ(bad("batch=1e3"), "--batch: '1e3' is not an integer");
  EXPECT_EQ(bad("batch=-4"), "--batch: -4 is out of range [1, 100000000]");
  EXPECT_EQ(bad("batch=99999999999999999999"), "--batch: '99999999999999999999' is not an integer");
  EXPECT_EQ(bad("precision=fp4"),
            "--precision: 'fp4' is not one of fp32, tf32, fp16, bf16, amp-fp16, amp-bf16, "
            "mixed-fp16, mixed-bf16, fp8, fp8-blockwise, mxfp8, nvfp4");
  EXPECT_EQ(bad("colour=red"), "--colour: unknown option");
  EXPECT_EQ(bad("model=x&sp=maybe"), "--sp: 'maybe' is not true or false");
  EXPECT_EQ(bad("model=%zz"), "link state: bad escape in 'model'");
  EXPECT_EQ(bad("model=ab%2"), "link state: truncated escape in 'model'");
  EXPECT_EQ(bad(std::string(9000, 'a')), "link state is longer than 8192 characters");
}

}  // namespace
}  // namespace gpuplan
