// The one query parser: CLI flags and share-link keys read the same way, with the same bounds and
// the same messages; a query written as a link reads back as itself.
#include "gpuplan/query.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace gpuplan {
namespace {

std::string cli_error(const Args& args) {
  auto q = parse_query(args);
  return q.ok() ? "(accepted)" : q.error().message;
}

std::string link_error(const std::string& link) {
  auto q = parse_query_string(link);
  return q.ok() ? "(accepted)" : q.error().message;
}

struct BadValue {
  const char* key;
  const char* value;
  const char* message;
};

// Each bound as the user meets it; the CLI (--key value) and the link (key=value) say the same.
const BadValue kBadValues[] = {
    {"nodes", "0", "--nodes: 0 is out of range [1, 100000]"},
    {"nodes", "100001", "--nodes: 100001 is out of range [1, 100000]"},
    {"gpus", "0", "--gpus: 0 is out of range [1, 100000]"},
    {"gpus", "two", "--gpus: 'two' is not an integer"},
    {"max-nodes", "1025", "--max-nodes: 1025 is out of range [1, 1024]"},
    {"top", "0", "--top: 0 is out of range [1, 1024]"},
    {"tokens", "0", "--tokens: 0 is out of range [1, 1e+16]"},
    {"tokens", "1e17", "--tokens: 1e17 is out of range [1, 1e+16]"},
    {"tokens", "lots", "--tokens: 'lots' is not a number"},
    {"tokens", "nan", "--tokens: 'nan' is not a number"},
    {"epochs", "-1", "--epochs: -1 is out of range [0.001, 1000000]"},
    {"dataset-size", "0", "--dataset-size: 0 is out of range [1, 1e+13]"},
    {"spot-interruptions-per-hour", "11",
     "--spot-interruptions-per-hour: 11 is out of range [0, 10]"},
    {"checkpoint-interval-hours", "0",
     "--checkpoint-interval-hours: 0 is out of range [0.001, 10000]"},
    {"deadline-hours", "-2", "--deadline-hours: -2 is out of range [0, 10000000]"},
    {"min-gpu-memory-gb", "1e5", "--min-gpu-memory-gb: 1e5 is out of range [0, 10000]"},
    {"pricing", "free",
     "--pricing: 'free' is not one of on-demand, monthly, reserved-1y, reserved-3y, bulk, spot"},
    {"objective", "speed", "--objective: 'speed' is not one of cost, time"},
    {"compliance", "sox", "--compliance: 'sox' is not one of hipaa, gdpr, gov (or empty)"},
    {"c-gated", "yes", "--c-gated: 'yes' is not true or false"},
    {"cnn-width", "9", "--cnn-width: 9 is out of range [0.05, 8]"},
    {"batch", "0", "--batch: 0 is out of range [1, 100000000]"},
    {"colour", "red", "--colour: unknown option"},
};

TEST(QueryParser, CliFlagsAndLinkKeysGiveTheSameMessageForEachBadValue) {
  for (const BadValue& b : kBadValues) {
    SCOPED_TRACE(b.key);
    EXPECT_EQ(cli_error({{b.key, b.value}}), b.message);
    EXPECT_EQ(link_error(std::string(b.key) + "=" + b.value), b.message);
  }
}

TEST(QueryParser, AcceptsEachBoundItself) {
  auto q =
      parse_query({{"nodes", "4096"}, {"max-nodes", "1024"}, {"tokens", "1e16"}, {"top", "1"}});
  ASSERT_TRUE(q.ok()) << q.error().message;
  EXPECT_EQ(q.value().nodes, 4096);
  EXPECT_EQ(q.value().max_nodes, 1024);
  EXPECT_EQ(q.value().run.tokens, 1e16);
  EXPECT_EQ(q.value().top_k, 1);
}

TEST(QueryParser, ReadsEveryGroupOfKeys) {
  auto q = parse_query_string(
      "#model=llama-2-7b&batch=16&dp=2&instance=aws-p4d.24xlarge&nodes=2&epochs=3&dataset-size="
      "1000&pricing=spot"
      "&region=us-east-1&provider=aws&compliance=hipaa&objective=time&min-gpu-memory-gb=80&restart-"
      "hours=0.5");
  ASSERT_TRUE(q.ok()) << q.error().message;
  const Query& v = q.value();
  EXPECT_EQ(v.request.model, "llama-2-7b");
  EXPECT_EQ(v.request.setup.global_batch, 16);
  EXPECT_TRUE(v.dp_given);
  EXPECT_EQ(v.instance, "aws-p4d.24xlarge");
  EXPECT_EQ(v.nodes, 2);
  EXPECT_EQ(v.run.epochs, 3);
  EXPECT_EQ(v.run.dataset_size, 1000);
  EXPECT_EQ(v.pricing, Pricing::spot);
  EXPECT_EQ(v.region, "us-east-1");
  EXPECT_EQ(v.provider, "aws");
  EXPECT_EQ(v.compliance, "hipaa");
  EXPECT_EQ(v.objective, Objective::time);
  EXPECT_EQ(v.min_gpu_memory_gb, 80);  // decimal GB
  EXPECT_EQ(v.spot.restart_h, 0.5);
}

TEST(QueryParser, LeavesDefaultsAtZeroForResolveDefaults) {
  auto q = parse_query({{"model", "gpt2-small"}});
  ASSERT_TRUE(q.ok());
  EXPECT_FALSE(q.value().dp_given);
  EXPECT_EQ(q.value().nodes, 0);
  EXPECT_EQ(q.value().gpus, 0);
  EXPECT_EQ(q.value().max_nodes, 0);
  EXPECT_EQ(q.value().spot.restart_h, 0);
}

TEST(QueryParser, RejectsTokensAndEpochsTogether) {
  EXPECT_EQ(link_error("tokens=1e9&epochs=2"), "give --tokens or --epochs, not both");
}

TEST(QueryParser, ReadsSchemaVersionOneAndRejectsOthersWithATypedError) {
  EXPECT_TRUE(parse_query_string("v=1&model=gpt2-small").ok());
  EXPECT_TRUE(parse_query_string("model=gpt2-small").ok());  // links from before versions
  auto future = parse_query_string("v=2&model=gpt2-small");
  ASSERT_FALSE(future.ok());
  EXPECT_EQ(future.error().code, Errc::unsupported_version);
  EXPECT_EQ(future.error().message, "--v: schema version 2 is not supported (this build reads 1)");
  EXPECT_EQ(link_error("v=one"), "--v: 'one' is not an integer");
}

TEST(QueryParser, CustomTransformerTakesTheEditorConventions) {
  auto q = parse_query_string(
      "custom=transformer&c-layers=2&c-hidden=64&c-heads=4&c-ffn=256&c-vocab=100&c-gated=1&c-bias="
      "1");
  ASSERT_TRUE(q.ok()) << q.error().message;
  const TransformerSpec& t = q.value().custom.transformer;
  EXPECT_EQ(q.value().custom.kind, CustomModel::Kind::transformer);
  EXPECT_EQ(t.norm, NormKind::rmsnorm);
  EXPECT_EQ(t.activation, MlpActivation::silu);
  EXPECT_TRUE(t.qkv_bias && t.attn_out_bias && t.mlp_bias);
}

TEST(QueryParser, ALinkReadsBackAsTheSameQuery) {
  for (const char* link :
       {"model=gpt2-small&batch=8&gpu=a100-sxm4-80gb&gpus=4&tokens=1000000000",
        "model=resnet50&instance=aws-p4d.24xlarge&nodes=2&epochs=90&pricing=spot&top=3",
        "custom=cnn&cnn=yolov5&cnn-width=0.5&cnn-depth-multiple=0.33&objective=time"}) {
    SCOPED_TRACE(link);
    auto q = parse_query_string(link);
    ASSERT_TRUE(q.ok()) << q.error().message;
    const std::string written = args_to_query(query_to_key_values(q.value()));
    auto again = parse_query_string(written);
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(args_to_query(query_to_key_values(again.value())), written);
  }
  // Keys are written in one canonical order, so the first link comes back verbatim.
  auto q =
      parse_query_string("model=gpt2-small&batch=8&gpu=a100-sxm4-80gb&gpus=4&tokens=1000000000");
  EXPECT_EQ(args_to_query(query_to_key_values(q.value())),
            "model=gpt2-small&batch=8&gpu=a100-sxm4-80gb&gpus=4&tokens=1000000000");
}

TEST(Compliance, OneListNamesEachFilterAndTheRegionFlagItReads) {
  Region r;
  r.hipaa = true;
  EXPECT_TRUE(region_meets(r, ""));
  EXPECT_TRUE(region_meets(r, "hipaa"));
  EXPECT_FALSE(region_meets(r, "gdpr"));  // unknown (nullopt) is not met
  EXPECT_FALSE(region_meets(r, "sox"));
  ASSERT_EQ(compliance_kinds().size(), 3u);
  for (const ComplianceKind& c : compliance_kinds()) {
    EXPECT_TRUE(parse_query({{"compliance", c.id}}).ok()) << c.id;
  }
}

TEST(QueryParser, KnowsEveryKeyOnce) {
  const auto& keys = query_keys();
  for (size_t i = 0; i < keys.size(); ++i) {
    for (size_t j = i + 1; j < keys.size(); ++j) EXPECT_NE(keys[i], keys[j]);
  }
  EXPECT_EQ(keys.front(), "model");
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

TEST(ServeKeys, EveryServeOptionIsALinkKeyAndRoundTrips) {
  const Args args = {{"model", "mixtral-8x7b"},
                     {"rate", "12.5"},
                     {"load-curve", "diurnal"},
                     {"prompt-tokens", "1500"},
                     {"output-tokens", "300"},
                     {"ttft-ms", "800"},
                     {"tpot-ms", "40"},
                     {"percentile", "99"},
                     {"runtime", "trtllm"},
                     {"weights", "fp8"},
                     {"kv", "fp8"},
                     {"tp", "2"},
                     {"pp", "2"},
                     {"ep", "2"},
                     {"attention-dp", "1"},
                     {"lengths", "sharegpt"},
                     {"requests", "800"},
                     {"min-replicas", "2"},
                     {"target-utilisation", "0.7"},
                     {"headroom", "0.3"},
                     {"start-s", "120"},
                     {"load-gb-per-s", "2"},
                     {"top", "5"},
                     {"gpu", "h100-sxm5-80gb"},
                     {"instance", "aws-p5.48xlarge"},
                     {"provider", "aws"},
                     {"region", "us-east-1"},
                     {"currency", "cny"},
                     {"prefix-hit-rate", "0.4"},
                     {"spec-method", "draft"},
                     {"spec-tokens", "3"},
                     {"spec-acceptance", "0.7"},
                     {"spec-draft-model", "mistral-7b"},
                     {"disaggregate", "1"},
                     {"prefill-tp", "2"},
                     {"decode-tp", "4"}};
  ASSERT_EQ(args.size(), serve_keys().size());
  auto r = parse_serve_request(args);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(serve_request_to_key_values(r.value()), args);
  const ServeQuery q = serve_query(r.value(), LoadCurve(24, 12.5));
  EXPECT_EQ(q.config.runtime, Runtime::trtllm);
  EXPECT_EQ(q.config.weights, WeightFormat::fp8);
  EXPECT_FALSE(q.config.checkpoint_weights);
  EXPECT_EQ(q.config.kv, KvFormat::fp8);
  EXPECT_EQ(q.config.tp, 2);
  EXPECT_EQ(q.config.pp, 2);
  EXPECT_EQ(q.config.ep, 2);
  EXPECT_TRUE(q.config.attention_dp);
  EXPECT_DOUBLE_EQ(q.slo.ttft_s, 0.8);
  EXPECT_DOUBLE_EQ(q.slo.tpot_s, 0.04);
  EXPECT_EQ(q.slo.percentile, 99);
  EXPECT_EQ(q.workload.lengths, LengthDistribution::sharegpt);
  EXPECT_DOUBLE_EQ(q.policy.model_load_bytes_per_s, 2e9);
  EXPECT_EQ(q.top_k, 5);
  EXPECT_DOUBLE_EQ(q.workload.prefix_hit_rate, 0.4);
  EXPECT_EQ(q.config.spec.method, SpecMethod::draft);
  EXPECT_EQ(q.config.spec.tokens, 3);
  EXPECT_DOUBLE_EQ(q.config.spec.acceptance, 0.7);
  EXPECT_EQ(q.config.spec.draft_model, "mistral-7b");
  EXPECT_TRUE(q.disagg.on);
  EXPECT_EQ(q.disagg.prefill_tp, 2);
  EXPECT_EQ(q.disagg.decode_tp, 4);
}

TEST(ServeKeys, DefaultsAreTheCliDefaultsAndBadValuesNameTheKey) {
  auto r = parse_serve_request({});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(serve_request_to_key_values(r.value()).empty());
  const ServeQuery q = serve_query(r.value(), LoadCurve(24, 1));
  EXPECT_EQ(q.config.tp, 0);                 // the planner tries 1, 2, 4, 8
  EXPECT_TRUE(q.config.checkpoint_weights);  // the checkpoint's weights
  EXPECT_EQ(q.workload.requests, 400);
  auto automatic = parse_serve_request({{"weights", "auto"}});
  ASSERT_TRUE(automatic.ok());
  EXPECT_TRUE(serve_request_to_key_values(automatic.value()).empty());
  EXPECT_EQ(
      parse_serve_request({{"weights", "fp5"}}).error().message,
      "--weights: 'fp5' is not one of auto, bf16, fp16, fp8, int8, int4, int4-experts, nvfp4, "
      "mxfp4, mxfp4-fp8, nvfp4-fp8, q4_0, q8_0, q4_k_m");
  EXPECT_EQ(q.slo.percentile, 90);
  EXPECT_EQ(parse_serve_request({{"runtime", "tgi"}}).error().message,
            "--runtime: 'tgi' is not one of vllm, trtllm, sglang, hf, llamacpp");
  EXPECT_EQ(parse_serve_request({{"percentile", "95"}}).error().message,
            "--percentile: '95' is not one of 50, 90, 99");
  EXPECT_EQ(parse_serve_request({{"tp", "65"}}).error().message,
            "--tp: 65 is out of range [1, 64]");
  EXPECT_EQ(parse_serve_request({{"batch", "8"}}).error().message, "--batch: unknown option");
  EXPECT_EQ(parse_serve_request({{"v", "2"}}).error().code, Errc::unsupported_version);
}

TEST(ServeKeys, TheServingExampleIsTheIssuesCommandLine) {
  // `gpuplan serve --model llama-3-70b --rate 30 --load-curve diurnal --prompt-tokens 1500
  // --output-tokens 300 --ttft-ms 1000 --tpot-ms 50`: what bench_serve and the page's bench time.
  const Args command = {{"model", "llama-3-70b"},  {"rate", "30"},
                        {"load-curve", "diurnal"}, {"prompt-tokens", "1500"},
                        {"output-tokens", "300"},  {"ttft-ms", "1000"},
                        {"tpot-ms", "50"}};
  auto r = parse_serve_request(command);
  ASSERT_TRUE(r.ok()) << r.error().message;
  Args example = serve_request_to_key_values(serving_example_request());
  Args parsed = serve_request_to_key_values(r.value());
  std::sort(example.begin(), example.end());
  std::sort(parsed.begin(), parsed.end());
  EXPECT_EQ(example, parsed);
  const ServeQuery q = serving_example_query();
  ASSERT_EQ(q.curve.size(), 24u);
  EXPECT_DOUBLE_EQ(*std::max_element(q.curve.begin(), q.curve.end()), 30);
  EXPECT_EQ(q.curve, preset_load_curve("diurnal", 30).value());
  EXPECT_DOUBLE_EQ(q.slo.ttft_s, 1.0);
  EXPECT_DOUBLE_EQ(q.slo.tpot_s, 0.050);
  EXPECT_EQ(q.config.tp, 0);
}

}  // namespace
}  // namespace gpuplan
