// AMD Instinct boards: the 8 GPUs of an MI300X or MI325X board are fully connected by Infinity
// Fabric (AMD CDNA 3 white paper, Table 2: 7 links, 896 GB/s peak aggregate per GPU), so a
// tensor-parallel replica all-reduces over that fabric, not over PCIe through the host; and
// validation scores vLLM's and SGLang's ROCm rows, not other engines' on ROCm.
#include <gtest/gtest.h>

#include "gpuplan/serve_replica.h"
#include "gpuplan/serve_validation.h"
#include "test_util.h"

namespace gpuplan {
namespace {

ReplicaModel replica(const std::string& gpu, int tp) {
  ServeConfig c;
  c.tp = tp;
  auto r = build_replica(test::model("llama-3-70b"), *test::catalog().find_gpu(gpu), c,
                         test::serving(), test::catalog().efficiencies);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : ReplicaModel{};
}

TEST(AmdFabric, ATensorParallelReplicaAllReducesOverInfinityFabric) {
  const Efficiencies& eff = test::catalog().efficiencies;
  for (const char* id : {"mi300x", "mi325x"}) {
    const Gpu& g = *test::catalog().find_gpu(id);
    EXPECT_EQ(g.interconnect, "infinity-fabric") << id;
    EXPECT_DOUBLE_EQ(g.nvlink_bandwidth_bytes_per_s, 896e9) << id;
    EXPECT_STREQ(gpu_fabric_name(g), "Infinity Fabric");
    const ReplicaModel r = replica(id, 8);
    EXPECT_FALSE(r.pcie_allreduce) << id;
    // One direction of the 896 GB/s, at the fabric's efficiency.
    EXPECT_DOUBLE_EQ(r.link_busbw_bytes_per_s, 896e9 / 2 * eff.nvlink) << id;
  }
  EXPECT_STREQ(gpu_fabric_name(*test::catalog().find_gpu("h100-sxm5-80gb")), "NVLink");
}

TEST(AmdFabric, ValidationScoresRocmRowsOfVllmAndSglangOnly) {
  const std::string row =
      ",vllm,Llama-3.1-70B-Instruct,AMD MI300X,8,8,FP16,\"{fw}\",1000,200,,1,,"
      "output_tokens_per_s_total,100,x,n\n";
  auto with = [&](const std::string& id, const std::string& framework) {
    std::string r = id + row;
    r.replace(r.find("{fw}"), 4, framework);
    return r;
  };
  const std::string text = test::kServingCsvHeader + with("A1", "vLLM (ROCm 6.2)") +
                           with("A2", "SGLang (ROCm 6.3)") +
                           with("A3", "gpt-fast (PyTorch native, ROCm)");
  auto rep = validate_serving_csv(test::catalog(), test::serving(), text, "s.csv");
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  ASSERT_EQ(rep.value().rows.size(), 2u);
  EXPECT_EQ(rep.value().rows[0].row.id, "A1");
  EXPECT_EQ(rep.value().rows[1].row.id, "A2");
  ASSERT_EQ(rep.value().skipped.size(), 1u);
  EXPECT_EQ(rep.value().skipped[0].second, "not a CUDA GPU runtime");
}

}  // namespace
}  // namespace gpuplan
