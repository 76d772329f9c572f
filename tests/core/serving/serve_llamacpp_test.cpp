// llama.cpp and GGUF: weight bytes against a hand count, batch-1 decode time by hand, the layer
// split, and how the serving validation reads llama.cpp rows and "no MTP".
#include <gtest/gtest.h>

#include "gpuplan/serve_replica.h"
#include "gpuplan/serve_validation.h"
#include "test_util.h"

namespace gpuplan {
namespace {

ServeConfig llamacpp(WeightFormat w, int gpus = 1) {
  ServeConfig c;
  c.runtime = Runtime::llamacpp;
  c.weights = w;
  c.tp = gpus;
  return c;
}

ReplicaModel replica(const std::string& model, const std::string& gpu, const ServeConfig& c,
                     const Efficiencies& eff = test::catalog().efficiencies) {
  const Gpu* g = test::catalog().find_gpu(gpu);
  EXPECT_NE(g, nullptr);
  auto r = build_replica(test::model(model), *g, c, test::serving(), eff);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : ReplicaModel{};
}

TEST(Gguf, FormatNamesParse) {
  EXPECT_EQ(parse_weight_format("q4_0"), WeightFormat::q4_0);
  EXPECT_EQ(parse_weight_format("q8_0"), WeightFormat::q8_0);
  EXPECT_EQ(parse_weight_format("q4_k_m"), WeightFormat::q4_k_m);
  EXPECT_EQ(parse_weight_format("f16"), WeightFormat::fp16);
  EXPECT_EQ(parse_runtime("llamacpp"), Runtime::llamacpp);
  EXPECT_EQ(parse_runtime("llama.cpp"), Runtime::llamacpp);
  EXPECT_FALSE(parse_weight_format("q4_k").has_value());
}

// Llama-2-7B from the zoo: hidden 4096, 32 layers, MLP 11008 (gated), vocab 32000, untied.
//   embedding and head: 2 x 32000 x 4096             =   262,144,000
//   per layer: q, k, v, o 4 x 4096^2 = 67,108,864; gate, up, down 3 x 4096 x 11008 =
//   135,266,304; two norms 8,192: 202,383,360 x 32  = 6,476,267,520
//   final norm                                       =         4,096
//   total                                            = 6,738,415,616 (the published 6.74 B)
// GGUF Q4_0 stores every matrix (embedding and head included) as 18 bytes per 32 weights,
// 4.5 bits: 6,738,149,376 matrix weights x 4.5 / 8 = 3,790,209,024 bytes; the 266,240 norm
// weights stay 16-bit here (532,480 bytes): 3,790,741,504 bytes.
TEST(Gguf, Llama2_7bQ4_0WeightBytesByHand) {
  const ReplicaModel r = replica("llama-2-7b", "rtx-4090", llamacpp(WeightFormat::q4_0));
  EXPECT_DOUBLE_EQ(r.memory.weight_bytes, 6738149376.0 * 4.5 / 8 + 266240.0 * 2);
  EXPECT_DOUBLE_EQ(r.memory.weight_bytes, 3790741504.0);
  // Q8_0: 34 bytes per 32 weights (8.5 bits).
  const ReplicaModel q8 = replica("llama-2-7b", "rtx-4090", llamacpp(WeightFormat::q8_0));
  EXPECT_DOUBLE_EQ(q8.memory.weight_bytes, 6738149376.0 * 8.5 / 8 + 266240.0 * 2);
  // A decode step reads all but the looked-up embedding: (6,738,149,376 - 131,072,000) x 4.5/8
  // + 532,480 = 3,717,013,504 bytes.
  EXPECT_DOUBLE_EQ(r.dense_weight_bytes, 3717013504.0);
  // Split over two GPUs, each holds half.
  const ReplicaModel two = replica("llama-2-7b", "rtx-4090", llamacpp(WeightFormat::q4_0, 2));
  EXPECT_DOUBLE_EQ(two.memory.weight_bytes, 3790741504.0 / 2);
  EXPECT_DOUBLE_EQ(two.dense_weight_bytes, 3717013504.0);
}

// One decode token of Llama-2-7B Q4_0 at a round 1e12 bytes/s with no kernel gaps: the weights
// a step reads (3,717,013,504 B), the matmuls' 16-bit activations 2 x 32 x (q + 2kv + q + 2f
// + 2h) = 2 x 32 x 46,592 = 2,981,888 B, the element-wise traffic 2 x 32 x (10h + 3f) =
// 2 x 32 x 73,984 = 4,734,976 B; with 1,000 tokens of context the F16 KV read adds 1,000 x
// 2 x 32 layers x 4096 x 2 bytes = 524,288,000 B. Compute (13 GFLOP) is far below either.
TEST(Gguf, BatchOneDecodeTimeByHand) {
  Efficiencies eff = test::catalog().efficiencies;
  eff.measured_hbm_bytes_per_s = 1e12;
  eff.kernel_overhead_s = 0;
  const ReplicaModel r = replica("llama-2-7b", "rtx-4090", llamacpp(WeightFormat::q4_0), eff);
  StepLoad load;
  load.decode_seqs = 1;
  EXPECT_NEAR(step_time(r, load).total_s, (3717013504.0 + 2981888 + 4734976) / 1e12, 1e-12);
  load.decode_context = 1000;
  EXPECT_NEAR(step_time(r, load).total_s, (3717013504.0 + 2981888 + 4734976 + 524288000) / 1e12,
              1e-12);
  // Layer split over 3 GPUs: the same bytes one GPU after another, plus two hand-overs of the
  // f32 hidden state (4 x 4096 bytes) over PCIe 4.0 x16 (16 GT/s x 16 x 128/130 / 8 =
  // 31.508 GB/s) at the PCIe copy efficiency 0.781, each after NCCL's 5.7 us PCIe hop.
  const ReplicaModel three =
      replica("llama-2-7b", "rtx-4090", llamacpp(WeightFormat::q4_0, 3), eff);
  const StepBreakdown b = step_time(three, load);
  EXPECT_NEAR(b.comm_s, 2 * (5.7e-6 + 16384 / (31.5077e9 * 0.781)), 1e-9);
  EXPECT_NEAR(b.total_s - b.comm_s, step_time(r, load).total_s, 1e-12);
}

TEST(Gguf, LayerSplitNeedsNoEvenHeadSplit) {
  // 32 heads do not split over 3 GPUs by tensor parallelism; by layers they need not.
  ServeConfig vllm3;
  vllm3.tp = 3;
  const Gpu* g = test::catalog().find_gpu("rtx-4090");
  ASSERT_NE(g, nullptr);
  EXPECT_FALSE(build_replica(test::model("llama-2-7b"), *g, vllm3, test::serving(),
                             test::catalog().efficiencies)
                   .ok());
  EXPECT_TRUE(build_replica(test::model("llama-2-7b"), *g, llamacpp(WeightFormat::q4_0, 3),
                            test::serving(), test::catalog().efficiencies)
                  .ok());
}

const std::string& kHead = test::kServingCsvHeader;
const std::string kBench =
    ",\"llama.cpp (llama-bench, May 2024 build, CUDA 12.1 / Metal)\",0,1024,,1,,"
    "decode_tokens_per_s_batch1,100,x,n\n";

std::string bench(const std::string& id, const std::string& gpu, const std::string& gpus,
                  const std::string& precision, const std::string& model = "Llama-3-8B") {
  return id + ",other," + model + "," + gpu + "," + gpus + "," + precision + kBench;
}

TEST(Gguf, ValidationReadsLlamaCppRowsAsPublished) {
  const std::string text =
      kHead + bench("L1", "3090 24GB", "1", ",GGUF Q4_K_M") +
      bench("L2", "4090 24GB", "2", ",F16") + bench("L3", "RTX A6000 48GB", "1", ",GGUF Q4_0") +
      bench("L4", "H100 PCIe 80GB", "1", ",GGUF Q4_K_M") +
      bench("L5", "A100 80GB", "1", ",GGUF Q4_K_M") +
      bench("L6", "M2 Ultra 76-Core GPU 192GB", "1", ",GGUF Q4_K_M") +
      bench("L7", "RTX 4000 Ada 20GB", "1", ",GGUF Q4_K_M") +
      "L8,other,Llama-2-7B,3090 24GB,2,,GGUF Q4_0,\"llama.cpp (main, Dec 2023 build)\",,,,1,,"
      "decode_tokens_per_s_batch1,50,x,n\n";
  auto rep = validate_serving_csv(test::catalog(), test::serving(), text, "s.csv");
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  const auto& rows = rep.value().rows;
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].ground.precision, "q4_k_m");
  EXPECT_EQ(rows[1].ground.precision, "fp16");
  EXPECT_EQ(rows[2].ground.precision, "q4_0");
  // "H100 PCIe 80GB" is the PCIe card: the prediction is the PCIe card's, context 0 + 1024 / 2.
  const ReplicaModel h100 = replica("llama-3-8b", "h100-pcie-80gb", llamacpp(WeightFormat::q4_k_m));
  StepLoad load;
  load.decode_seqs = 1;
  load.decode_context = 512;
  EXPECT_DOUBLE_EQ(rows[3].predicted, 1.0 / step_time(h100, load).total_s);
  const auto& skipped = rep.value().skipped;
  ASSERT_EQ(skipped.size(), 4u);
  EXPECT_EQ(skipped[0].second, "GPU 'A100 80GB' is not in the catalog");
  EXPECT_EQ(skipped[1].second,
            "GPU 'M2 Ultra 76-Core GPU 192GB' is Apple silicon (Metal): not a CUDA GPU");
  EXPECT_EQ(skipped[2].second,
            "GPU 'rtx-4000-ada' has no sourced fp16 tensor-core figure; serving on it cannot be "
            "timed (choose another GPU)");
  EXPECT_EQ(skipped[3].second,
            "a deployment gpuplan does not model (llama.cpp before 2024 split every matrix by "
            "rows across GPUs, not layers)");
}

TEST(ServeValidationFlags, OnlyRowsThatUseMtpAreFlaggedMtp) {
  const std::string row =
      ",gpt-fast,Llama-2-7B,A100-SXM 80GB,1,1,BF16,gpt-fast (PyTorch native),5,,,1,,"
      "decode_tokens_per_s_batch1,104.9,x,";
  const std::string text = kHead + "M1" + row + "no MTP; batch 1\n" + "M2" + row +
                           "\"tok/s without MTP\"\n" + "M3" + row + "with MTP8\n" + "M4" + row +
                           "\"MTP, 2 tokens\"\n";
  auto rep = validate_serving_csv(test::catalog(), test::serving(), text, "s.csv");
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  ASSERT_EQ(rep.value().rows.size(), 2u);
  EXPECT_EQ(rep.value().rows[0].row.id, "M1");
  EXPECT_EQ(rep.value().rows[1].row.id, "M2");
  ASSERT_EQ(rep.value().skipped.size(), 2u);
  for (const auto& [id, why] : rep.value().skipped)
    EXPECT_EQ(why, "flagged in its notes or framework (mtp): not for scoring") << id;
}

}  // namespace
}  // namespace gpuplan
