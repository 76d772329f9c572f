// The page's catalog (web/catalog/catalog_files.h): the blobs the build made from data/ hold
// exactly what load_catalog yields from the JSON, GPU by GPU, model by model, field by field,
// less what the page never reads (drop_unread_by_page), so the page's catalog and the CLI's
// cannot drift apart.
#include <gtest/gtest.h>

#include "catalog_files.h"
#include "gpuplan/accuracy.h"
#include "gpuplan/catalog_blob.h"
#include "gpuplan/embedded_data.h"
#include "gpuplan/serve_assumptions.h"

namespace gpuplan::web {
namespace {

// Each part compared through its blob (every field, numbers bit for bit), named on a difference.
void expect_same_catalog(const Catalog& json, const Catalog& page) {
  ASSERT_EQ(page.gpus.size(), json.gpus.size());
  for (size_t i = 0; i < json.gpus.size(); ++i)
    EXPECT_EQ(gpu_to_blob(page.gpus[i]), gpu_to_blob(json.gpus[i])) << "GPU " << json.gpus[i].id;
  ASSERT_EQ(page.models.size(), json.models.size());
  for (size_t i = 0; i < json.models.size(); ++i) {
    EXPECT_EQ(model_to_blob(page.models[i]), model_to_blob(json.models[i]))
        << "model " << json.models[i].id;
  }
  ASSERT_EQ(page.providers.size(), json.providers.size());
  for (size_t i = 0; i < json.providers.size(); ++i) {
    EXPECT_EQ(provider_to_blob(page.providers[i]), provider_to_blob(json.providers[i]))
        << "provider " << json.providers[i].id;
  }
  ASSERT_EQ(page.instances.size(), json.instances.size());
  for (size_t i = 0; i < json.instances.size(); ++i) {
    EXPECT_EQ(instance_to_blob(page.instances[i]), instance_to_blob(json.instances[i]))
        << "instance " << json.instances[i].id;
  }
  ASSERT_EQ(page.published.size(), json.published.size());
  for (size_t i = 0; i < json.published.size(); ++i) {
    EXPECT_EQ(published_to_blob(page.published[i]), published_to_blob(json.published[i]))
        << "published table " << json.published[i].id;
  }
  // The rest (pricing rules, assumptions, accuracy bands, price date): the whole catalog.
  EXPECT_EQ(catalog_to_blob(page), catalog_to_blob(json));
}

TEST(PageCatalog, FirstFrameBlobEqualsTheJsonLoader) {
  auto json = load_catalog(catalog_files(false));
  ASSERT_TRUE(json.ok()) << json.error().message;
  drop_unread_by_page(json.value());
  auto page = load_page_catalog(false);
  ASSERT_TRUE(page.ok()) << page.error().message;
  EXPECT_TRUE(page.value().instances.empty());  // they follow after the first frame
  EXPECT_FALSE(page.value().gpus.empty());
  expect_same_catalog(json.value(), page.value());
}

TEST(PageCatalog, WholeBlobEqualsTheJsonLoader) {
  auto json = load_catalog(catalog_files(true));
  ASSERT_TRUE(json.ok()) << json.error().message;
  drop_unread_by_page(json.value());
  auto page = load_page_catalog(true);
  ASSERT_TRUE(page.ok()) << page.error().message;
  EXPECT_FALSE(page.value().instances.empty());
  EXPECT_FALSE(page.value().published.empty());
  expect_same_catalog(json.value(), page.value());
}

TEST(PageCatalog, ComparisonSeesOneChangedFact) {
  auto json = load_catalog(catalog_files(false));
  ASSERT_TRUE(json.ok());
  Catalog changed = json.value();
  changed.gpus.back().memory_bandwidth_bytes_per_s *= 1.0000001;
  EXPECT_NE(gpu_to_blob(changed.gpus.back()), gpu_to_blob(json.value().gpus.back()));
  changed = json.value();
  changed.efficiencies.flash_attention.begin()->second.backward += 0.01;
  EXPECT_NE(catalog_to_blob(changed), catalog_to_blob(json.value()));
}

TEST(PageCatalog, WhatThePageDropsChangesNoBand) {
  // The validated runs' ids are all the page leaves out; a band computed from its rows is the
  // CLI's, bound for bound.
  auto json = load_catalog(catalog_files(false));
  auto page = load_page_catalog(false);
  ASSERT_TRUE(json.ok() && page.ok());
  ASSERT_FALSE(json.value().accuracy.time.empty());
  EXPECT_FALSE(json.value().accuracy.time.front().id.empty());
  EXPECT_TRUE(page.value().accuracy.time.front().id.empty());
  const AccuracyRow& any = json.value().accuracy.time.front();
  const ErrorBand cli = error_band(json.value().accuracy.time, any.family, any.ground);
  const ErrorBand web = error_band(page.value().accuracy.time, any.family, any.ground);
  EXPECT_EQ(cli.low, web.low);
  EXPECT_EQ(cli.high, web.high);
  EXPECT_EQ(cli.reason, web.reason);
}

TEST(PageCatalog, AssumptionsTextIsTheDataFile) {
  std::string_view embedded;
  for (const auto& f : embedded_data_files()) {
    if (f.path == "assumptions.json") embedded = f.text;
  }
  ASSERT_FALSE(embedded.empty());
  EXPECT_EQ(page_assumptions_json(), embedded);
  auto serving = parse_serving_assumptions(page_assumptions_json(), "assumptions.json");
  EXPECT_TRUE(serving.ok()) << serving.error().message;
}

TEST(PageCatalog, BlobsAreSmallerThanTheJson) {
  // The point of the blobs: less for the page to download than the JSON they replace.
  size_t json = 0;
  for (const auto& f : catalog_files(true)) json += f.text.size();
  EXPECT_LT(first_frame_catalog_blob().size() + rest_of_catalog_blob().size(), json);
}

}  // namespace
}  // namespace gpuplan::web
