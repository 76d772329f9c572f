// The catalog blob (gpuplan/catalog_blob.h): a catalog read back equals the one written, field
// by field; a damaged or foreign blob is an error, never a crash.
#include <gtest/gtest.h>

#include "gpuplan/catalog_blob.h"
#include "test_util.h"

namespace gpuplan {
namespace {

TEST(CatalogBlob, ReadsBackTheWholeCatalogFieldByField) {
  const Catalog& c = test::catalog();
  const std::string blob = catalog_to_blob(c);
  auto back = catalog_from_blob(blob);
  ASSERT_TRUE(back.ok()) << back.error().message;
  const Catalog& b = back.value();
  // Fields checked without the blob writer: what was read is what was loaded.
  ASSERT_EQ(b.gpus.size(), c.gpus.size());
  ASSERT_EQ(b.models.size(), c.models.size());
  ASSERT_EQ(b.instances.size(), c.instances.size());
  ASSERT_EQ(b.published.size(), c.published.size());
  EXPECT_EQ(b.gpus[0].name, c.gpus[0].name);
  EXPECT_EQ(b.gpus[0].memory_bytes, c.gpus[0].memory_bytes);
  EXPECT_EQ(b.gpus[0].peak_dense_flops_per_s, c.gpus[0].peak_dense_flops_per_s);
  EXPECT_EQ(b.models.back().transformer.hidden, c.models.back().transformer.hidden);
  EXPECT_EQ(b.instances[0].prices.size(), c.instances[0].prices.size());
  EXPECT_EQ(b.efficiencies.gemm, c.efficiencies.gemm);
  EXPECT_EQ(b.prices_as_of, c.prices_as_of);
  ASSERT_NE(b.find_model("resnet50"), nullptr);
  ASSERT_TRUE(b.find_model("resnet50")->default_graph_costs.has_value());
  EXPECT_EQ(b.find_model("resnet50")->default_graph_costs->params,
            c.find_model("resnet50")->default_graph_costs->params);
  // And every field: the blob of what was read equals the blob written.
  EXPECT_EQ(catalog_to_blob(b), blob);
}

TEST(CatalogBlob, OneChangedFieldChangesTheBlob) {
  Catalog c = test::catalog();
  const std::string before = catalog_to_blob(c);
  c.gpus[3].fact_sources.begin()->second.date = "2000-01-01";
  EXPECT_NE(catalog_to_blob(c), before);
  c = test::catalog();
  c.models[0].transformer.attention_dropout =
      !c.models[0].transformer.attention_dropout_or_default();
  EXPECT_NE(catalog_to_blob(c), before);
}

TEST(CatalogBlob, TruncatedBlobIsAnErrorAtEveryLength) {
  Catalog small;
  small.gpus = {test::catalog().gpus[0]};
  small.models = {test::catalog().models[0]};
  small.providers = {test::catalog().providers[0]};
  const std::string blob = catalog_to_blob(small);
  ASSERT_TRUE(catalog_from_blob(blob).ok());
  for (size_t n = 0; n < blob.size(); ++n) {
    auto r = catalog_from_blob(blob.substr(0, n));
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.error().code, Errc::parse_error) << n;
  }
  EXPECT_EQ(catalog_from_blob(blob.substr(0, 30)).error().message, "catalog blob: truncated");
  EXPECT_EQ(catalog_from_blob(blob + "x").error().message, "catalog blob: bytes after the catalog");
}

TEST(CatalogBlob, ForeignBlobOrOtherVersionIsRefused) {
  auto foreign = catalog_from_blob("{\"schema_version\": 1}");
  ASSERT_FALSE(foreign.ok());
  EXPECT_EQ(foreign.error().message, "catalog blob: not a gpuplan catalog blob");
  std::string blob = catalog_to_blob(Catalog{});
  blob[15] = 9;  // the version (a one-byte varint) after "gpuplan-catalog"
  auto other = catalog_from_blob(blob);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code, Errc::unsupported_version);
  EXPECT_EQ(other.error().message,
            "catalog blob: version 9 (this build reads 3); rebuild it from data/");
}

TEST(CatalogBlob, HugeCountIsRefusedNotAllocated) {
  std::string blob = catalog_to_blob(Catalog{});
  // The string table's count (the first number after the header) claims 2^35 entries.
  blob[16] = blob[17] = blob[18] = blob[19] = blob[20] = '\xff';
  blob[21] = '\1';
  auto r = catalog_from_blob(blob);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "catalog blob: truncated");
}

}  // namespace
}  // namespace gpuplan
