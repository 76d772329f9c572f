// gpuplan validate's columns for runs at scale: a config.json the row names, the schedule and
// framework keys, expert parallelism, and MFU on the source's count.
#include <gtest/gtest.h>

#include "gpuplan/validation.h"
#include "test_util.h"

namespace gpuplan {
namespace {

const char* kHeader =
    "id,model,gpu,num_gpus,precision,batch_size_per_gpu,seq_len_or_resolution,task,metric,value,"
    "batch,tp,pp,vp,cp,ep,etp,framework,sp,config_json,flops_attention\n";

ValidationReport validate(const std::string& rows, const std::map<std::string, std::string>& c) {
  auto parsed = parse_measured_csv(std::string(kHeader) + rows, "t.csv");
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().message);
  if (!parsed.ok()) return {};
  auto rep =
      validate_measurements(test::catalog(), parsed.value(), test::catalog().efficiencies, c);
  EXPECT_TRUE(rep.ok()) << (rep.ok() ? "" : rep.error().message);
  return rep.ok() ? rep.value() : ValidationReport{};
}

const char* kGptConfig =
    R"({"model_type": "gpt2", "n_layer": 12, "n_embd": 768, "n_head": 12, "n_positions": 2048,
        "vocab_size": 50264})";

TEST(ValidationColumns, ARowRunsTheModelOfItsConfigJson) {
  const auto rep = validate(
      "a,label,a100-sxm4-80gb,8,amp-bf16,8,2048,train,tokens_per_s_per_gpu,1e5,64,1,1,,,,,,,"
      "configs/g.json,\n",
      {{"configs/g.json", kGptConfig}});
  ASSERT_EQ(rep.rows.size(), 1u);
  EXPECT_GT(rep.rows[0].predicted, 0);
  // Not read: the row is listed with the path.
  const auto missing = validate(
      "a,label,a100-sxm4-80gb,8,amp-bf16,8,2048,train,tokens_per_s_per_gpu,1e5,64,1,1,,,,,,,"
      "configs/g.json,\nb,gpt2-small,a100-sxm4-80gb,8,amp-bf16,8,1024,train,tokens_per_s_per_gpu,"
      "1e5,64,1,1,,,,,,,,\n",
      {});
  ASSERT_EQ(missing.skipped.size(), 1u);
  EXPECT_EQ(missing.skipped[0].reason, "config_json 'configs/g.json' was not read");
}

TEST(ValidationColumns, ExpertParallelRowsArePredicted) {
  // Mixtral on 64 GPUs, pp 4 (vp 8) leaves dp 16: ep 8 shards its 8 experts one per rank.
  const auto rep = validate(
      "moe,mixtral-8x7b,h100-sxm5-80gb,64,bf16,1,4096,train,tokens_per_s_per_gpu,1e3,256,1,4,8,,8,"
      "1,megatron,,,\nd,llama-2-7b,h100-sxm5-80gb,8,mixed-bf16,1,4096,train,tokens_per_s_per_gpu,"
      "1e3,8,8,1,,,,,megatron,1,,\n",
      {});
  EXPECT_TRUE(rep.skipped.empty()) << rep.skipped[0].reason;
  ASSERT_EQ(rep.rows.size(), 2u);
  EXPECT_EQ(rep.rows[0].row.id, "moe");
  EXPECT_TRUE(rep.rows[0].moe);
  EXPECT_GT(rep.rows[0].predicted, 0);
  EXPECT_FALSE(rep.rows[1].moe);
}

TEST(ValidationColumns, ContextParallelRowsFillDataParallelismAfterCp) {
  // 16 GPUs with tp 2 and cp 4 leave dp 2: batch 4 is 2 micro-batches of 1 per replica.
  const auto rep = validate(
      "c,llama-2-7b,h100-sxm5-80gb,16,bf16,1,8192,train,tokens_per_s_per_gpu,1e3,4,2,1,,4,,,,1,,\n",
      {});
  ASSERT_EQ(rep.rows.size(), 1u) << (rep.skipped.empty() ? "" : rep.skipped[0].reason);
}

TEST(ValidationColumns, MfuIsPredictedOnTheSourcesAttentionCount) {
  // llm-foundry counts a causal model's whole score square; gpuplan counts half. The same run's
  // MFU on the full count is larger by the masked half over gpuplan's forward FLOPs.
  const std::string row =
      "m,gpt2-small,a100-sxm4-80gb,8,amp-bf16,8,1024,train,mfu,0.4,64,1,1,,,,,,,,";
  const auto causal = validate(row + "causal\n", {});
  const auto full = validate(row + "full\n", {});
  ASSERT_EQ(causal.rows.size(), 1u);
  ASSERT_EQ(full.rows.size(), 1u);
  // GPT-2 small at 1024: attention 12 x 4 x 1024^2 x 768 per sample over all pairs, half of it
  // masked; the forward is 2 x 85M x 1024 + 2 x 1024 x 768 x 50257 + the causal half.
  auto e = estimate(test::model("gpt2-small"), [] {
    gpuplan::Setup s;
    s.seq_len = 1024;
    return s;
  }());
  ASSERT_TRUE(e.ok());
  const FlopCounts& f = e.value().flops;
  EXPECT_NEAR(f.forward_attention_unmasked_per_sample, 12 * 4 * 1024.0 * 1024 * 768, 1);
  EXPECT_NEAR(full.rows[0].predicted / causal.rows[0].predicted,
              1 + f.forward_attention_unmasked_per_sample / 2 / f.forward_per_sample, 1e-12);
}

// Rows on racks whose NVLink domain spans hosts (GB200 NVL72: trays of 4 GPUs in one domain).
Result<ValidationReport> validate_rack(const std::string& domain, const std::string& network) {
  const std::string csv =
      "id,model,gpu,num_gpus,precision,batch_size_per_gpu,seq_len_or_resolution,task,metric,value,"
      "batch,tp,ep,moe_imbalance,gpus_per_node,nvlink_domain_gpus,network_gbps_per_node,mtp_"
      "layers\n"
      "r,deepseek-v3,gb200,64,mxfp8,1,4096,train,tokens_per_s_per_gpu,1e3,64,1,32,1,4," +
      domain + "," + network + ",0\n";
  auto parsed = parse_measured_csv(csv, "t.csv");
  if (!parsed.ok()) return parsed.error();
  return validate_measurements(test::catalog(), parsed.value(), test::catalog().efficiencies, {});
}

TEST(ValidationColumns, AnNvlinkDomainAcrossTraysNeedsNoNetworkInside) {
  // 64 GPUs as 16 trays of 4 in one 64-GPU domain: no network needed; ep 32 stays on NVLink.
  const auto one = validate_rack("64", "");
  ASSERT_TRUE(one.ok()) << one.error().message;
  ASSERT_EQ(one.value().rows.size(), 1u);
  // Domains of 16 GPUs: the run spans four, so it needs the network between them ...
  const auto unstated = validate_rack("16", "");
  ASSERT_FALSE(unstated.ok());
  EXPECT_NE(unstated.error().message.find("needs network_gbps_per_node"), std::string::npos)
      << unstated.error().message;
  // ... and with 1600 Gb/s per tray (four 400 Gb/s NICs) ep 32 crosses domains: slower.
  const auto split = validate_rack("16", "1600");
  ASSERT_TRUE(split.ok()) << split.error().message;
  ASSERT_EQ(split.value().rows.size(), 1u);
  EXPECT_LT(split.value().rows[0].predicted, one.value().rows[0].predicted);
  // A domain that is not a whole number of trays is refused, naming the column.
  const auto odd = validate_rack("6", "1600");
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.error().message.find("nvlink_domain_gpus 6"), std::string::npos)
      << odd.error().message;
}

}  // namespace
}  // namespace gpuplan
