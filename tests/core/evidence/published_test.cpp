// Published measurements: the loader's checks (exact messages), matching a query, and the
// comparison with a prediction (core/src/evidence/published.cpp).
#include "gpuplan/published.h"
#include "gpuplan/validation.h"

#include <gtest/gtest.h>

#include "gpuplan/embedded_data.h"
#include "test_util.h"

namespace gpuplan {
namespace {

// A one-row table; `row` and `top` replace parts of it for the bad-input cases.
std::string table(const std::string& row_extra = "", const std::string& top_extra = "",
                  const std::string& date = "2024-04-04",
                  const std::string& precision = "amp-fp16") {
  return R"({"schema_version": 1, "id": "t", "title": "T", "publisher": "NVIDIA DeepLearningExamples",
    "source": {"repository": "NVIDIA/DeepLearningExamples", "commit": "729963dd47e7c8bd462ad10bfac7a7b0b604e6dd",
               "path": "PyTorch/README.md", "section": "Training", "url": "https://github.com/x", "date": ")" +
         date + R"("},
    "caveats": [], "left_out": [],)" +
         top_extra + R"(
    "rows": [{"id": "R1", "model": "resnet50", "gpu": "a100-sxm4-80gb", "system": "DGX A100", "num_gpus": 1,
              "task": "train", "precision": ")" +
         precision + R"(", "micro_batch": 256, "global_batch": 256,
              "resolution": 224, "metric": "samples_per_s_total", "value": 2470, "notes": "")" +
         row_extra + "}]}";
}

TEST(Published, ParsesATable) {
  auto t = parse_published_json(table(), "published/t.json");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t.value().rows.size(), 1u);
  EXPECT_EQ(t.value().rows[0].precision, Precision::amp_fp16);
  EXPECT_EQ(t.value().rows[0].resolution, 224);
  EXPECT_EQ(t.value().source.date, "2024-04-04");
}

TEST(Published, BadInputsNameTheField) {
  const std::pair<std::string, std::string> cases[] = {
      {table("", "", "April 2024"),
       "published/t.json: source.date: 'April 2024' is not a date (YYYY-MM-DD)"},
      {table("", "", "2024-04-04", "fp12"),
       "published/t.json: rows[0].precision: unknown value 'fp12' (expected one of: fp32, tf32, "
       "fp16, bf16, amp-fp16, amp-bf16, mixed-fp16, mixed-bf16, fp8, fp8-blockwise, mxfp8, "
       "nvfp4)"},
      {table(R"(, "setup": {"compile": 1})"),
       "published/t.json: rows[0].setup.compile: expected text, got a number"},
      {table(R"(, "speed": 1)"),
       "published/t.json: rows[0].speed: unknown field (check its spelling against the schema)"},
      {table(R"(, "global_batch": 8)"),
       "published/t.json: rows[0].global_batch: 8 is below micro_batch 256"},
      {table(R"(, "metric": "mfu")"),
       "published/t.json: rows[0].value: an MFU is a fraction, at most 1"},
      {R"({"schema_version": 2})",
       "published/t.json: schema_version 2 is not supported (this build reads 1); update gpuplan "
       "or convert the file"},
      {"[1]", "published/t.json: expected a JSON object"},
  };
  for (const auto& [text, message] : cases) {
    auto t = parse_published_json(text, "published/t.json");
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_EQ(t.error().message, message);
  }
}

TEST(Published, LoaderChecksFileNamesRowIdsAndGpus) {
  const Catalog& cat = test::catalog();
  auto named = load_published({{"published/u.json", table()}}, cat);
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.error().message, "published/u.json: id 't' is not the file name 'u'");
  std::string other = table();
  other.replace(other.find("\"id\": \"t\""), 9, "\"id\": \"v\"");
  auto twice = load_published({{"published/t.json", table()}, {"published/v.json", other}}, cat);
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().message,
            "published/v.json: rows[0].id: 'R1' is also the id of a row in another table");
  std::string gpu = table();
  gpu.replace(gpu.find("a100-sxm4-80gb"), 14, "a100-sxm9-80gb");
  auto unknown = load_published({{"published/t.json", gpu}}, cat);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message,
            "published/t.json: rows[0].gpu: 'a100-sxm9-80gb' is not in data/gpus");
}

TEST(Published, EveryBundledTableLoads) {
  auto tables = load_published(embedded_data_files(), test::catalog());
  ASSERT_TRUE(tables.ok()) << tables.error().message;
  size_t rows = 0;
  for (const auto& t : tables.value()) {
    rows += t.rows.size();
    EXPECT_EQ(t.source.url.rfind(
                  "https://github.com/" + t.source.repository + "/blob/" + t.source.commit, 0),
              0u)
        << t.id;
  }
  EXPECT_GT(rows, 250u);  // DLE, HF memory and llm-foundry rows (tools/convert_published.py)
}

PublishedQuery resnet_query(int64_t micro_batch, Precision p = Precision::amp_fp16) {
  PublishedQuery q;
  q.model = "resnet50";
  q.gpu = "a100-sxm4-80gb";
  q.precision = p;
  q.micro_batch = micro_batch;
  q.resolution = 224;
  return q;
}

TEST(Published, MatchesTheSameSetupWithinTheBatchTolerance) {
  auto tables = load_published(embedded_data_files(), test::catalog());
  ASSERT_TRUE(tables.ok());
  // DeepLearningExamples ResNet-50 v1.5, 1 x A100 80GB, AMP, batch 256: 2,470 img/s (row T002).
  auto m = match_published(tables.value(), resnet_query(256));
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].row.id, "T002");
  EXPECT_EQ(m[0].row.value, 2470);
  EXPECT_EQ(m[0].publisher, "NVIDIA DeepLearningExamples");
  EXPECT_EQ(match_published(tables.value(), resnet_query(320)).size(), 1u);  // +25%: inside
  EXPECT_TRUE(match_published(tables.value(), resnet_query(321)).empty());   // beyond the tolerance
  EXPECT_TRUE(match_published(tables.value(), resnet_query(256, Precision::bf16)).empty());
  PublishedQuery eight = resnet_query(256);
  eight.num_gpus = 8;
  ASSERT_EQ(match_published(tables.value(), eight).size(), 1u);
  EXPECT_EQ(match_published(tables.value(), eight)[0].row.id, "T004");
}

TEST(Published, ComparesWithThePredictionInTheRowsUnit) {
  PublishedRun run;
  run.row.metric = "samples_per_s_total";
  run.row.value = 2470;
  run.row.num_gpus = 1;
  run.row.gpu = "a100-sxm4-80gb";
  run.row.system = "DGX A100";
  run.publisher = "NVIDIA DeepLearningExamples";
  run.url = "https://example.invalid/t";
  Estimate e;
  StepTime t;
  t.samples_per_s = 2223;
  const PublishedComparison c = compare_run(run, test::model("resnet50"), e, &t);
  ASSERT_TRUE(c.predicted);
  EXPECT_NEAR(c.error, -0.1, 1e-12);
  EXPECT_EQ(published_line(c),
            "measured: 2,470 img/s (NVIDIA DeepLearningExamples, DGX A100, 1 x a100-sxm4-80gb; "
            "https://example.invalid/t); "
            "predicted 2,223 img/s (-10.0%)");
  EXPECT_FALSE(compare_run(run, test::model("resnet50"), e, nullptr)
                   .predicted);  // no step time: no throughput
}

TEST(Published, EveryRowIsPredictedOrSaysWhyNot) {
  auto tables = load_published(embedded_data_files(), test::catalog());
  ASSERT_TRUE(tables.ok());
  int predicted = 0;
  for (const auto& c : compare_published(test::catalog(), tables.value())) {
    EXPECT_TRUE(c.predicted.has_value() != !c.reason.empty()) << c.run.row.id;
    if (c.predicted) {
      ++predicted;
      EXPECT_GT(*c.predicted, 0) << c.run.row.id;
    }
  }
  EXPECT_GT(predicted, 50);  // the DLE and memory rows of zoo models
}

// A row's throughput is predicted as `gpuplan validate` predicts the same run written as a CSV row
// (same setup keys, same code), so the Benchmarks page and `make bench` report the same errors.
TEST(Published, RowsArePredictedAsTheValidationTablePredictsThem) {
  // The test table's row, made a BERT-large SQuAD run (its elementwise kernels fuse under compile).
  const auto predict = [](const std::string& row_extra) {
    std::string text = table(row_extra);
    const auto swap = [&text](const std::string& from, const std::string& to) {
      text.replace(text.find(from), from.size(), to);
    };
    swap("resnet50", "bert-large-qa");
    swap("\"resolution\": 224", "\"seq_len\": 384");
    swap("\"micro_batch\": 256, \"global_batch\": 256",
         "\"micro_batch\": 32, \"global_batch\": 32");
    auto t = parse_published_json(text, "published/t.json");
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
    return compare_published(test::catalog(), {t.value()}).front();
  };
  const auto csv = [](const std::string& extra_header, const std::string& extra_cells) {
    const std::string text =
        "id,model,gpu,num_gpus,precision,batch_size_per_gpu,seq_len_or_resolution,task,metric,"
        "value,batch,checkpointing" +
        extra_header +
        "\nR1,bert-large-qa,a100-sxm4-80gb,1,amp-fp16,32,384,train,samples_per_s_total,2470,32,"
        "none" +
        extra_cells + "\n";
    auto rows = parse_measured_csv(text, "t.csv");
    EXPECT_TRUE(rows.ok());
    auto report =
        validate_measurements(test::catalog(), rows.value(), test::catalog().efficiencies);
    EXPECT_TRUE(report.ok());
    return report.value().rows.front().predicted;
  };
  const PublishedComparison eager = predict("");
  const PublishedComparison fused = predict(R"(, "setup": {"compile": "1"})");
  ASSERT_TRUE(eager.predicted && fused.predicted) << eager.reason << fused.reason;
  EXPECT_DOUBLE_EQ(*eager.predicted, csv("", ""));
  EXPECT_DOUBLE_EQ(*fused.predicted, csv(",compile", ",1"));
  EXPECT_GT(*fused.predicted, *eager.predicted);  // fused elementwise kernels: a faster step
  // The measured value's likely range: the family's band around the prediction, its table's
  // source left out, as the CLI gives.
  ASSERT_TRUE(fused.predicted_range);
  const ErrorBand band =
      error_band(test::catalog().accuracy.time, "encoder/16-bit/single",
                 {"encoder", "16-bit", "single", "Ampere", 1, ""}, fused.run.source);
  ASSERT_GT(band.rows, 0);
  EXPECT_DOUBLE_EQ(fused.predicted_range->low, *fused.predicted / (1 + band.high));
  EXPECT_DOUBLE_EQ(fused.predicted_range->high, *fused.predicted / (1 + band.low));
  EXPECT_NE(published_comparison_json(fused).find("\"predicted_low\""), std::string::npos);
  const PublishedComparison unknown = predict(R"(, "setup": {"colour": "red"})");
  EXPECT_FALSE(unknown.predicted);
  EXPECT_EQ(unknown.reason, "R1.setup: unknown setup key 'colour'");
}

}  // namespace
}  // namespace gpuplan
