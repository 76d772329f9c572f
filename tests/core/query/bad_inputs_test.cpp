// A catalogue of bad inputs and the exact one-line message a user sees for each: empty and
// oversized files, deep nesting, wrong types, numbers out of range, JSON's missing NaN and
// Infinity, unknown schema versions and ids, impossible parallelism, and a batch that fits on no
// GPU. Each message names the file or option and the field, and the code tells the CLI's exit.
// Probe files, read through the signing library: tests/signing/probe_file_bad_inputs_test.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include <optional>
#include <regex>
#include <string>
#include <nlohmann/json.hpp>

#include "gpuplan/catalog.h"
#include "gpuplan/hf_config.h"
#include "gpuplan/plan.h"
#include "gpuplan/probe_file.h"
#include "gpuplan/report.h"
#include "gpuplan/request.h"
#include "gpuplan/validation.h"
#include "test_util.h"

namespace gpuplan {
namespace {

// What the user sees: the code and the message, or "accepted".
struct Seen {
  std::optional<Errc> code;
  std::string message = "accepted";
};
template <class T>
Seen seen(const Result<T>& r) {
  if (r.ok()) return {};
  return {r.error().code, r.error().message};
}
Seen seen(const std::optional<Error>& e) {
  if (!e) return {};
  return {e->code, e->message};
}

Seen hf(const std::string& text) {
  return seen(model_from_hf_config(text, "config.json"));
}
Seen model_json(const std::string& text) {
  return seen(parse_model_json(text, "models/x.json"));
}
Seen gpu_json(const std::string& text) {
  return seen(parse_gpu_json(text, "gpus/x.json"));
}
Seen pricing_json(const std::string& text) {
  return seen(parse_pricing_rules_json(text, "pricing_rules.json"));
}
Seen csv(const std::string& text) {
  return seen(parse_measured_csv(text, "runs.csv"));
}
Seen link(const std::string& query) {
  auto args = query_to_args(query);
  if (!args.ok()) return seen(args);
  return seen(parse_request(args.value()));
}
Seen estimate_of(const std::string& model_id, const Setup& s) {
  return seen(estimate(test::model(model_id), s));
}

#define EXPECT_SEEN(what, want_code, want_message)                    \
  do {                                                                \
    const Seen s_ = (what);                                           \
    EXPECT_EQ(s_.message, want_message);                              \
    EXPECT_EQ(s_.code, std::optional<Errc>(want_code)) << s_.message; \
  } while (0)

// A LLaMA config.json with one field replaced by `field_json` (e.g. "\"hidden_size\": NaN").
std::string llama_with(const std::string& field_json) {
  return R"({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 64,
 "vocab_size": 100, )" +
         field_json + "}";
}

const char* kCsvHeader =
    "id,model,gpu,num_gpus,precision,batch_size_per_gpu,seq_len_or_resolution,task,metric,value\n";

TEST(BadInputs, EmptyFilesSayTheyAreEmpty) {
  EXPECT_SEEN(hf(""), Errc::parse_error, "config.json: file is empty");
  EXPECT_SEEN(model_json(""), Errc::parse_error, "models/x.json: file is empty");
  EXPECT_SEEN(gpu_json(""), Errc::parse_error, "gpus/x.json: file is empty");
  EXPECT_SEEN(csv(""), Errc::schema_error, "runs.csv: empty file (no header)");
  // Blank is not empty, but holds no JSON value either.
  EXPECT_SEEN(hf(" \n"), Errc::parse_error, "config.json: not valid JSON at line 2, column 1");
}

TEST(BadInputs, HundredMegabyteFilesAreRejectedBySizeBeforeParsing) {
  // All '[': parsed, this would be a nesting error, so the size error proves nothing was parsed.
  const std::string huge(100u << 20, '[');
  const std::string limit = "file is 104857600 bytes; the limit is 4194304 bytes";
  EXPECT_SEEN(hf(huge), Errc::too_large, "config.json: " + limit);
  EXPECT_SEEN(model_json(huge), Errc::too_large, "models/x.json: " + limit);
  EXPECT_SEEN(gpu_json(huge), Errc::too_large, "gpus/x.json: " + limit);
  EXPECT_SEEN(seen(parse_instance_json(huge, "instances/x.json")), Errc::too_large,
              "instances/x.json: " + limit);
  EXPECT_SEEN(seen(parse_provider_json(huge, "providers/x.json")), Errc::too_large,
              "providers/x.json: " + limit);
  EXPECT_SEEN(pricing_json(huge), Errc::too_large, "pricing_rules.json: " + limit);
  Catalog c;
  EXPECT_SEEN(seen(parse_assumptions_json(huge, "assumptions.json", c)), Errc::too_large,
              "assumptions.json: " + limit);
  EXPECT_SEEN(csv(huge), Errc::too_large, "runs.csv: " + limit);
  EXPECT_SEEN(link(huge), Errc::too_large, "link state is longer than 8192 characters");
  // One byte over is over.
  EXPECT_SEEN(hf(std::string(kMaxJsonBytes + 1, ' ')), Errc::too_large,
              "config.json: file is 4194305 bytes; the limit is 4194304 bytes");
}

TEST(BadInputs, DeepNestingStopsAtSixtyFourLevelsWithoutExhaustingTheStack) {
  EXPECT_SEEN(hf(std::string(100, '[') + std::string(100, ']')), Errc::parse_error,
              "config.json: nesting deeper than 64 levels");
  // A million unclosed arrays (1 MB, under the size limit) must not recurse a million deep.
  EXPECT_SEEN(hf(std::string(1'000'000, '[')), Errc::parse_error,
              "config.json: nesting deeper than 64 levels");
  std::string objects;
  for (int i = 0; i < 70; ++i) objects += R"({"a": )";
  objects += "1" + std::string(70, '}');
  EXPECT_SEEN(model_json(objects), Errc::parse_error,
              "models/x.json: nesting deeper than 64 levels");
  // 64 levels are still read (and then found to be the wrong shape).
  EXPECT_SEEN(hf(std::string(64, '[') + std::string(64, ']')), Errc::schema_error,
              "config.json: expected a JSON object");
}

TEST(BadInputs, WrongTypesNameTheFieldAndTheTypeFound) {
  EXPECT_SEEN(hf("[]"), Errc::schema_error, "config.json: expected a JSON object");
  EXPECT_SEEN(hf(R"({"model_type": 7})"), Errc::schema_error,
              "config.json: model_type: expected a string, got a number");
  EXPECT_SEEN(hf(llama_with(R"("hidden_size": "64")")), Errc::schema_error,
              "config.json: hidden_size: expected an integer, got a string");
  EXPECT_SEEN(hf(llama_with(R"("hidden_size": 64.5)")), Errc::schema_error,
              "config.json: hidden_size: expected an integer, got a number");
  EXPECT_SEEN(hf(llama_with(R"("hidden_size": 64, "tie_word_embeddings": "yes")")),
              Errc::schema_error,
              "config.json: tie_word_embeddings: expected true or false, got a string");
  EXPECT_SEEN(model_json(R"({"schema_version": 1, "id": ["x"]})"), Errc::schema_error,
              "models/x.json: id: expected a string, got an array");
  {
    // A model's default attention is eager (its reference code's) and says where that is read.
    auto gpt2 = nlohmann::json::parse(test::read_repo_file("data/models/gpt2-small.json"));
    gpt2["defaults"]["attention"] = "flash";
    gpt2["defaults"]["attention_source"] = "somewhere";
    EXPECT_SEEN(model_json(gpt2.dump()), Errc::schema_error,
                "models/x.json: defaults.attention: 'flash' is not a model default gpuplan reads "
                "(eager)");
    gpt2["defaults"]["attention"] = "eager";
    gpt2["defaults"].erase("attention_source");
    EXPECT_SEEN(model_json(gpt2.dump()), Errc::schema_error,
                "models/x.json: defaults.attention_source: missing required field");
  }
  EXPECT_SEEN(
      pricing_json(
          R"({"schema_version": 1, "kind": "assumptions", "source": {"title": "t", "date": "2024-01-01"},
 "discounts": {"monthly": 0.1, "reserved": 0.3, "bulk": 0.2, "spot": true}})"),
      Errc::schema_error, "pricing_rules.json: discounts.spot: expected a number, got a boolean");
  EXPECT_SEEN(csv(std::string(kCsvHeader) +
                  "r1,gpt2-small,a100-sxm4-80gb,eight,fp32,8,1024,train,mfu,0.4\n"),
              Errc::schema_error,
              "runs.csv:2: column num_gpus: 'eight' is not an integer in [1, 100000]");
  EXPECT_SEEN(link("model=gpt2-small&batch=eight"), Errc::invalid_argument,
              "--batch: 'eight' is not an integer");
}

TEST(BadInputs, NumbersOutOfRangeNameTheAllowedRange) {
  EXPECT_SEEN(hf(llama_with(R"("hidden_size": 0)")), Errc::schema_error,
              "config.json: hidden_size: 0 is out of range [1, 10000000]");
  EXPECT_SEEN(hf(llama_with(R"("hidden_size": -64)")), Errc::schema_error,
              "config.json: hidden_size: -64 is out of range [1, 10000000]");
  // Past INT64_MAX the number is shown as written, not wrapped to a negative one.
  EXPECT_SEEN(hf(llama_with(R"("hidden_size": 9223372036854775808)")), Errc::schema_error,
              "config.json: hidden_size: 9223372036854775808 is out of range [1, 10000000]");
  EXPECT_SEEN(hf(llama_with(R"("hidden_size": 18446744073709551616)")), Errc::schema_error,
              "config.json: hidden_size: expected an integer, got a number");
  // Each field in range, together more parameters than any model (int64 counts would overflow).
  EXPECT_SEEN(
      hf(R"({"model_type": "gpt2", "n_layer": 10000000, "n_embd": 10000000, "n_head": 1,
 "vocab_size": 10000000, "n_positions": 1024})"),
      Errc::invalid_argument,
      "config.json: 1.2e+22 parameters is more than the 1e14 gpuplan models (check layers, hidden, "
      "ffn_hidden, vocab and experts)");
  EXPECT_SEEN(
      pricing_json(
          R"({"schema_version": 1, "kind": "assumptions", "source": {"title": "t", "date": "2024-01-01"},
 "discounts": {"monthly": 0.1, "reserved": 0.3, "bulk": 0.2, "spot": 0.96}})"),
      Errc::schema_error, "pricing_rules.json: discounts.spot: 0.96 is out of range [0, 0.95]");
  EXPECT_SEEN(
      csv(std::string(kCsvHeader) + "r1,gpt2-small,a100-sxm4-80gb,8,fp32,8,1024,train,mfu,-5\n"),
      Errc::schema_error, "runs.csv:2: column value: '-5' is not a positive number");
  EXPECT_SEEN(link("model=gpt2-small&zero=4"), Errc::invalid_argument,
              "--zero: 4 is out of range [0, 3]");
  // 19 digits fit the length check but not int64: an error, not an overflow.
  EXPECT_SEEN(link("model=gpt2-small&batch=9999999999999999999"), Errc::invalid_argument,
              "--batch: '9999999999999999999' is not an integer");
}

TEST(BadInputs, JsonHasNoNanOrInfinityAndMinusZeroIsZero) {
  // transformers writes config.json with Python's json module, which spells non-finite floats
  // NaN and Infinity: a field gpuplan reads refuses them by name.
  EXPECT_SEEN(hf(llama_with(R"("hidden_size": NaN)")), Errc::schema_error,
              "config.json: hidden_size: expected an integer, got NaN");
  EXPECT_SEEN(hf(llama_with(R"("hidden_size": Infinity)")), Errc::schema_error,
              "config.json: hidden_size: expected an integer, got Infinity");
  EXPECT_SEEN(hf(llama_with(R"("hidden_size": -Infinity)")), Errc::schema_error,
              "config.json: hidden_size: expected an integer, got -Infinity");
  // Inside a string it stays text.
  EXPECT_SEEN(hf(llama_with(R"("hidden_size": "Infinity")")), Errc::schema_error,
              "config.json: hidden_size: expected an integer, got a string");
  EXPECT_SEEN(hf(llama_with(R"("hidden_size": "NaN")")), Errc::schema_error,
              "config.json: hidden_size: expected an integer, got a string");
  // 1e999 is valid syntax but overflows a double: rejected (at its last digit), not read as inf.
  EXPECT_SEEN(hf(llama_with(R"("hidden_size": 1e999)")), Errc::parse_error,
              "config.json: not valid JSON at line 2, column 40: the number does not fit a double");
  // 1e-999 underflows to 0.0: a fraction where an integer is expected.
  EXPECT_SEEN(hf(llama_with(R"("hidden_size": 1e-999)")), Errc::schema_error,
              "config.json: hidden_size: expected an integer, got a number");
  EXPECT_SEEN(hf(llama_with(R"("hidden_size": -0)")), Errc::schema_error,
              "config.json: hidden_size: 0 is out of range [1, 10000000]");
  // A fraction of -0.0 is 0, which is in range: accepted.
  EXPECT_SEEN(
      pricing_json(
          R"({"schema_version": 1, "kind": "assumptions", "source": {"title": "t", "date": "2024-01-01"},
 "discounts": {"monthly": -0.0, "reserved": 0.3, "bulk": 0.2, "spot": 0.7}})"),
      std::nullopt, "accepted");
  for (const char* v : {"nan", "NaN", "inf", "-inf", "1e999"}) {
    EXPECT_SEEN(csv(std::string(kCsvHeader) +
                    "r1,gpt2-small,a100-sxm4-80gb,8,fp32,8,1024,train,mfu," + v + "\n"),
                Errc::schema_error,
                std::string("runs.csv:2: column value: '") + v + "' is not a positive number");
  }
}

TEST(BadInputs, InvalidUtf8IsRejectedInCsvAndReplacedInReports) {
  EXPECT_SEEN(
      csv(std::string(kCsvHeader) + "\xff,gpt2-small,a100-sxm4-80gb,8,fp32,8,1024,train,mfu,0.4\n"),
      Errc::parse_error, "runs.csv:2: not valid UTF-8 (save the file as UTF-8)");
  EXPECT_SEEN(
      csv(std::string(kCsvHeader) + "r1,gpt2-small,a100-sxm4-80gb,8,fp32,8,1024,train,mfu,0.4\n"
                                    "r2,\xed\xa0\x80,a100-sxm4-80gb,8,fp32,8,1024,train,mfu,0.4\n"),
      Errc::parse_error, "runs.csv:3: not valid UTF-8 (save the file as UTF-8)");
  // A link's values are any bytes: the JSON report replaces what is not UTF-8 instead of throwing.
  auto args = query_to_args("model=gpt2-small&lora-targets=q_proj,%FF");
  ASSERT_TRUE(args.ok());
  auto r = parse_request(args.value());
  ASSERT_TRUE(r.ok());
  auto e = estimate(test::model("gpt2-small"), r.value().setup);
  ASSERT_TRUE(e.ok());
  const std::string json = estimate_to_json(test::model("gpt2-small"), r.value(), e.value(), -1);
  EXPECT_NE(json.find("\"lora-targets\":\"q_proj,\xef\xbf\xbd\""), std::string::npos) << json;
}

TEST(BadInputs, UnknownSchemaVersionsAreTypedErrors) {
  const std::string advice =
      " is not supported (this build reads 1); update gpuplan or convert the file";
  EXPECT_SEEN(model_json(R"({"schema_version": 2})"), Errc::unsupported_version,
              "models/x.json: schema_version 2" + advice);
  EXPECT_SEEN(gpu_json(R"({"schema_version": 0})"), Errc::unsupported_version,
              "gpus/x.json: schema_version 0" + advice);
  EXPECT_SEEN(pricing_json(R"({"schema_version": 999999})"), Errc::unsupported_version,
              "pricing_rules.json: schema_version 999999" + advice);
  EXPECT_SEEN(model_json(R"({"schema_version": "1"})"), Errc::schema_error,
              "models/x.json: schema_version: expected an integer, got a string");
  EXPECT_SEEN(model_json(R"({"id": "x"})"), Errc::schema_error,
              "models/x.json: schema_version: missing required field");
}

TEST(BadInputs, AGpusHostLinkIsPcieOrNvlinkC2c) {
  const std::string gpu =
      R"({"schema_version": 1, "id": "x", "name": "X", "vendor": "v",
          "sources": {"s": {"title": "t", "url": null, "date": "2026-01-01"}},
          "specs": {"memory_bytes": {"value": 8e10, "source": "s"},
                    "memory_bandwidth_gb_per_s": {"value": 2000, "source": "s"},
                    "host_link": {"value": "cxl", "source": "s"}}})";
  EXPECT_SEEN(gpu_json(gpu), Errc::schema_error,
              "gpus/x.json: specs.host_link.value: 'cxl' is not pcie or nvlink-c2c");
}

TEST(BadInputs, UnknownModelAndGpuIdsAreNotFound) {
  auto validate = [](const std::string& row) {
    auto rows = parse_measured_csv(std::string(kCsvHeader) + row + "\n", "runs.csv");
    EXPECT_TRUE(rows.ok());
    return seen(validate_measurements(test::catalog(), rows.value(), test::catalog().efficiencies));
  };
  EXPECT_SEEN(validate("r1,gpt5,a100-sxm4-80gb,8,fp32,8,1024,train,mfu,0.4"), Errc::not_found,
              "row r1 (line 2): unknown model 'gpt5'");
  EXPECT_SEEN(validate("r1,gpt2-small,h9000,8,fp32,8,1024,train,mfu,0.4"), Errc::not_found,
              "row r1 (line 2): unknown GPU 'h9000'");
  const Instance* p4d = test::catalog().find_instance("aws-p4d.24xlarge");
  ASSERT_NE(p4d, nullptr);
  EXPECT_SEEN(seen(quote_price(*p4d, Pricing::on_demand, test::catalog().pricing, "mars-1")),
              Errc::not_found,
              "instance 'aws-p4d.24xlarge' has no published price in region 'mars-1'");
}

TEST(BadInputs, RowsThatCannotBePredictedAreSkippedWithTheReasonAndTheRestScored) {
  auto rows = parse_measured_csv(
      std::string(kCsvHeader) +
          "r1,gpt5,a100-sxm4-80gb,8,fp32,8,1024,train,mfu,0.4\n"
          "r2,ResNet-50 v1.5,A100-SXM4-80GB (DGX A100),1,amp-fp16,256,224,train,"
          "samples_per_s_total,2470\n"
          "r3,resnet50,V100-SXM3-32GB (DGX-2H),1,amp-fp16,256,224,train,samples_per_s_total,1200\n"
          "r4,gpt2-small,a100-sxm4-80gb,1,fp32,8,4096,train,mfu,0.4\n",
      "runs.csv");
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  auto report = validate_measurements(test::catalog(), rows.value(), test::catalog().efficiencies);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_EQ(report.value().rows.size(),
            1u);  // names matched ignoring case, punctuation and "(DGX A100)"
  EXPECT_EQ(report.value().rows[0].row.id, "r2");
  EXPECT_DOUBLE_EQ(report.value().mape, std::fabs(report.value().rows[0].error));
  ASSERT_EQ(report.value().skipped.size(), 3u);
  EXPECT_EQ(report.value().skipped[0].reason, "unknown model 'gpt5'");
  EXPECT_EQ(report.value().skipped[1].reason,
            "unknown GPU 'V100-SXM3-32GB (DGX-2H)'");  // not taken for an SXM2
  EXPECT_NE(report.value().skipped[2].reason.find("4096"), std::string::npos)
      << report.value().skipped[2].reason;
}

TEST(BadInputs, TheOptionalMemoryFormatColumnTakesOnlyItsNames) {
  const std::string header =
      std::string(kCsvHeader).substr(0, std::string(kCsvHeader).size() - 1) + ",memory_format\n";
  auto ok =
      parse_measured_csv(header +
                             "r1,resnet50,t4,1,amp-fp16,64,224,train,samples_per_s_total,300,nchw\n"
                             "r2,resnet50,t4,1,amp-fp16,64,224,train,samples_per_s_total,300,\n",
                         "runs.csv");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok.value()[0].memory_format, MemoryFormat::nchw);
  EXPECT_EQ(ok.value()[1].memory_format, MemoryFormat::automatic);
  EXPECT_SEEN(csv(header + "r1,resnet50,t4,1,amp-fp16,64,224,train,samples_per_s_total,300,nhwc\n"),
              Errc::schema_error,
              "runs.csv:2: column memory_format: 'nhwc' is not auto, nchw or channels-last");
  EXPECT_SEEN(csv(header + "r1,resnet50,t4,1,amp-fp16,64,224,train,samples_per_s_total,300\n"),
              Errc::schema_error, "runs.csv:2: expected 11 columns, got 10");
}

TEST(BadInputs, AMalformedRowIsSkippedWithItsLineAndColumnWhenAskedAndTheRestScored) {
  const std::string text = std::string(kCsvHeader) +
                           "r1,resnet50,t4,1,amp-fp16,,224,train,samples_per_s_total,300\n"
                           "r2,resnet50,t4,1,amp-fp16,64,224,train,samples_per_s_total,1165\n"
                           "r3,resnet50,t4\n";
  EXPECT_SEEN(csv(text), Errc::schema_error,
              "runs.csv:2: column batch_size_per_gpu: '' is not an integer in [1, 1000000]");
  auto rows = parse_measured_csv(text, "runs.csv", RowErrors::skip);
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows.value().size(), 3u);
  auto report = validate_measurements(test::catalog(), rows.value(), test::catalog().efficiencies);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_EQ(report.value().rows.size(), 1u);
  EXPECT_EQ(report.value().rows[0].row.id, "r2");
  ASSERT_EQ(report.value().skipped.size(), 2u);
  EXPECT_EQ(report.value().skipped[0].row.id, "r1");
  EXPECT_EQ(report.value().skipped[0].reason,
            "runs.csv:2: column batch_size_per_gpu: '' is not an integer in [1, 1000000]");
  EXPECT_EQ(report.value().skipped[1].reason, "runs.csv:4: expected 10 columns, got 3");
}

TEST(BadInputs, MemoryFilesAreScoredRowByRowAndSayWhatTheySkip) {
  const std::string header =
      "id,model,gpu,mode,precision,optimizer,micro_batch,global_batch,seq_len,checkpointing,"
      "measured_bytes\n";
  const std::string text =
      "# a comment\n" + header +
      "m1,bert-large-cls,v100-sxm2-16gb,context,fp32,adamw,1,1,512,none,1408237568\n"
      "m2,gpt5,v100-sxm2-16gb,train,fp32,adamw,1,1,512,none,1e10\n"
      "m3,bert-large-cls,v100-sxm2-16gb,train,fp99,adamw,1,1,512,none,1e10\n"
      "m4,bert-large-cls,v100-sxm2-16gb,train,fp32,adamw,4,4,512,none,15675162624\n";
  ASSERT_TRUE(is_memory_csv(text));
  EXPECT_FALSE(is_memory_csv(std::string(kCsvHeader)));
  auto r = validate_memory_csv(test::catalog(), text, "mem.csv");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r.value().rows.size(), 2u);
  EXPECT_DOUBLE_EQ(r.value().rows[0].predicted_bytes,
                   gpuplan::Setup{}.assumptions.cuda_context_bytes);
  ASSERT_EQ(r.value().skipped.size(), 2u);
  EXPECT_EQ(r.value().skipped[0].second, "unknown model 'gpt5'");
  EXPECT_NE(r.value().skipped[1].second.find("mem.csv:5: a value it cannot read"),
            std::string::npos);
  EXPECT_NEAR(r.value().mape,
              (std::fabs(r.value().rows[0].error) + std::fabs(r.value().rows[1].error)) / 2, 1e-15);
  EXPECT_SEEN(seen(validate_memory_csv(test::catalog(), header, "mem.csv")), Errc::schema_error,
              "mem.csv: no data rows");
  EXPECT_SEEN(seen(validate_memory_csv(test::catalog(), "id,x\n", "mem.csv")), Errc::schema_error,
              "mem.csv: header must be '" + header.substr(0, header.size() - 1) +
                  "' (then ',pytorch' and ',source')");
  // The optional release column: read per row, a bad one skipped with its reason.
  const std::string with_release = header.substr(0, header.size() - 1) + ",pytorch\n" +
                                   "m4,bert-large-cls,v100-sxm2-16gb,train,fp32,adamw,4,4,512,none,"
                                   "15675162624,1.10\n"
                                   "m5,bert-large-cls,v100-sxm2-16gb,train,fp32,adamw,4,4,512,none,"
                                   "15675162624,one-ten\n";
  auto rel = validate_memory_csv(test::catalog(), with_release, "mem.csv");
  ASSERT_TRUE(rel.ok()) << rel.error().message;
  ASSERT_EQ(rel.value().rows.size(), 1u);
  EXPECT_GT(rel.value().rows[0].predicted_bytes, r.value().rows[1].predicted_bytes);
  ASSERT_EQ(rel.value().skipped.size(), 1u);
  EXPECT_EQ(rel.value().skipped[0].second,
            "mem.csv:3: column pytorch: 'one-ten' is not a release number such as 1.10");
}

TEST(BadInputs, ImpossibleParallelismSaysWhichDegree) {
  gpuplan::Setup s;
  s.tp = 5;
  EXPECT_SEEN(estimate_of("gpt2-small", s), Errc::invalid_argument,
              "--tp 5 does not divide the attention heads (12 query, 12 key/value heads)");
  s = gpuplan::Setup{};
  s.pp = 13;
  EXPECT_SEEN(estimate_of("gpt2-small", s), Errc::invalid_argument,
              "--pp 13 exceeds the 12 layers of model 'gpt2-small'");
  s = gpuplan::Setup{};
  s.dp = s.tp = s.pp = 1000;
  EXPECT_SEEN(estimate_of("gpt2-small", s), Errc::invalid_argument,
              "--dp x --tp x --pp x --cp = 1000000000 GPUs; at most 1000000 are modelled (lower "
              "--dp, --tp, --pp or --cp)");
  s = gpuplan::Setup{};
  s.dp = 0;
  EXPECT_SEEN(estimate_of("gpt2-small", s), Errc::invalid_argument,
              "--dp must be between 1 and 1000000, got 0");
  s = gpuplan::Setup{};
  s.sequence_parallel = true;
  EXPECT_SEEN(estimate_of("gpt2-small", s), Errc::invalid_argument,
              "sequence parallelism needs --tp > 1");
  s = gpuplan::Setup{};
  s.tp = 2;
  EXPECT_SEEN(
      estimate_of("resnet50", s), Errc::invalid_argument,
      "--tp and --pp are modelled for transformers only; model 'resnet50' is a layer graph");
  s = gpuplan::Setup{};
  s.dp = 4;
  s.global_batch = 10;
  EXPECT_SEEN(estimate_of("gpt2-small", s), Errc::invalid_argument,
              "--batch 10 is not divisible by --dp 4");
  s = gpuplan::Setup{};
  s.mode = Mode::infer;
  s.zero_stage = 3;
  EXPECT_SEEN(estimate_of("gpt2-small", s), Errc::invalid_argument,
              "--zero applies to training only (--mode train)");
}

TEST(BadInputs, ABatchThatFitsNowhereIsAPlannerErrorNamingTheBindingLimit) {
  PlanQuery q;
  q.request.model = "llama-2-7b";
  q.request.setup.precision = Precision::amp_bf16;
  q.request.setup.global_batch = 8;
  q.request.setup.seq_len = 10'000'000;  // ten million tokens per sample
  q.run.tokens = 1e9;
  q.max_nodes = 2;
  q.efficiencies = test::catalog().efficiencies;
  auto r = plan(test::catalog(), test::model("llama-2-7b"), q);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::does_not_fit);
  // The shortfall is computed, so only its shape is fixed here.
  EXPECT_TRUE(std::regex_match(
      r.error().message,
      std::regex(
          R"(memory binds: no configuration fits in GPU memory; the closest \([a-z0-9-]+\) is [0-9.]+ [kMGTP]?B )"
          R"(short \(try --checkpointing full, a smaller --batch, more --max-nodes, or --lora-rank\))")))
      << r.error().message;

  q.request.setup.seq_len = 4096;
  q.provider = "nowhere";
  EXPECT_SEEN(seen(plan(test::catalog(), test::model("llama-2-7b"), q)), Errc::does_not_fit,
              "no priced instance matches the filters (provider, GPU, region, compliance, "
              "minimum GPU memory, precision support): relax them");
  q.provider.clear();
  q.max_nodes = 1;
  q.deadline_hours = 1e-6;
  r = plan(test::catalog(), test::model("llama-2-7b"), q);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::does_not_fit);
  EXPECT_TRUE(std::regex_match(
      r.error().message,
      std::regex(R"(deadline binds: the fastest plan takes [0-9.]+ h \(relax --deadline-hours )"
                 R"(or --budget-usd, or raise --max-nodes\))")))
      << r.error().message;
}

}  // namespace
}  // namespace gpuplan
