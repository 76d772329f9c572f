// The key table (gpuplan/keys.h): every row's words, bounds and default, and the round trip
// CLI flags -> query -> link -> query for every key and sampled values, compared field by field
// with the query the flags gave (query_fields.h), so a key the link writer drops is caught.
#include "gpuplan/keys.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "gpuplan/evaluate.h"
#include "gpuplan/hf_config.h"
#include "query/query_fields.h"
#include "test_util.h"

namespace gpuplan {
namespace {

std::vector<std::string> split_choices(const std::string& choices) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < choices.size()) {
    const size_t comma = std::min(choices.find(", ", start), choices.size());
    out.push_back(choices.substr(start, comma - start));
    start = comma + 2;
  }
  return out;
}

std::string text_of(double x) {
  return exact_number(x);
}

// Values to try for a key: its bounds and a value between them; each choice; both truth values
// (and a switch given bare); an id or a list for the rest.
template <class T>
std::vector<std::string> samples(const KeyRow<T>& r) {
  const std::string name = r.name;
  switch (r.type) {
    case KeyType::integer: {
      const auto lo = static_cast<int64_t>(r.min), hi = static_cast<int64_t>(r.max);
      return {std::to_string(lo), std::to_string(hi), std::to_string(lo + (hi - lo) / 3)};
    }
    case KeyType::number:
      return {text_of(r.min), text_of(r.max), text_of(r.min + (r.max - r.min) * 0.123456789)};
    case KeyType::boolean:
      if (r.is_switch) return {"0", "1", ""};
      return {"0", "1"};
    case KeyType::choice:
      if (name == "pytorch") return {"1.10", "1.11-1.13", "2.0+", "2.4", "1.9", "1.12"};
      return split_choices(r.choices);
    case KeyType::list:
      if (name == "c-adaptive-cutoffs") return {"20000,40000,200000", "7"};
      if (name == "c-mlp-widths") return {"28672,5632,2816", "14336"};
      if (name == "compare") return {"aws-p5.48xlarge*2,lambda-gpu-8x-h100*1"};
      if (name == "recompute-modules") return {"layernorm,moe_act", "core_attn,mlp,moe"};
      if (name == "offload-modules") return {"expert_fc1,moe_act", "moe_act"};
      if (name == "cuda-graph-modules") return {"attn,moe_router,moe_preprocess", "full_iteration"};
      return {"q_proj,k_proj,v_proj,o_proj", "c_attn"};
    case KeyType::text:
      if (name == "model") return {"gpt2-medium", "meta-llama/Llama-2-7b-hf"};
      if (name == "load-curve")
        return {"diurnal", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24.5"};
      return {"an-id", "with space&amp=sign"};
  }
  return {};
}

// The keys a custom model's key needs beside it to be written (its model is the workload).
Args context_of(const QueryKey& r) {
  const std::string name = r.name;
  if (name.rfind("c-", 0) == 0) return {{"custom", "transformer"}};
  if (name.rfind("cnn", 0) == 0) return {{"custom", "cnn"}};
  return {};
}

// The speculative-decoding keys a serve key needs beside it (a method goes with its draft
// tokens and acceptance, a draft model with the method draft), without the key itself.
Args serve_context_of(const ServeKey& r, const std::string& value) {
  const std::string name = r.name;
  if (name.rfind("spec-", 0) != 0 || (name == "spec-method" && value == "none")) return {};
  const bool draft = name == "spec-draft-model" || value == "draft";
  Args out;
  for (const auto& [k, v] : Args{{"spec-method", draft ? "draft" : "eagle"},
                                 {"spec-tokens", "4"},
                                 {"spec-acceptance", "0.8"},
                                 {"spec-draft-model", draft ? "llama-3.1-8b" : ""}}) {
    if (k != name && !v.empty()) out.emplace_back(k, v);
  }
  return out;
}

// Reads `args` as the CLI would, writes the query as a link, reads the link: the same query.
void expect_round_trip(const Args& args) {
  std::string where;
  for (const auto& [k, v] : args) where += "--" + k + " '" + v + "' ";
  auto q1 = parse_query(args);
  ASSERT_TRUE(q1.ok()) << where << ": " << q1.error().message;
  const std::string link = args_to_query(query_to_key_values(q1.value()));
  auto q2 = parse_query_string(link);
  ASSERT_TRUE(q2.ok()) << where << "-> " << link << ": " << q2.error().message;
  EXPECT_EQ(test::query_differences(q1.value(), q2.value()), "") << where << "-> " << link;
}

TEST(KeysTable, EveryKeyIsNamedOnceWithHelpInBothLanguages) {
  std::set<std::string> query_names, serve_names;
  for (const auto& r : query_key_rows()) {
    EXPECT_TRUE(query_names.insert(r.name).second) << r.name << " twice";
    EXPECT_GT(std::string(r.help_en).size(), 5u) << r.name;
    const std::string zh = r.help_zh;
    EXPECT_TRUE(std::any_of(zh.begin(), zh.end(), [](char c) { return c & 0x80; })) << r.name;
    if (r.type == KeyType::choice) {
      EXPECT_FALSE(r.choices.empty()) << r.name;
    }
  }
  for (const auto& r : serve_key_rows()) {
    EXPECT_TRUE(serve_names.insert(r.name).second) << r.name << " twice";
    EXPECT_GT(std::string(r.help_en).size(), 5u) << r.name;
    EXPECT_FALSE(std::string(r.help_zh).empty()) << r.name;
  }
  EXPECT_EQ(query_keys().size(), query_key_rows().size());
  EXPECT_EQ(serve_keys().size(), serve_key_rows().size());
  EXPECT_EQ(query_keys().front(), "model");
  // The request keys are the setup and parallelism groups, the model first.
  for (const auto& k : request_keys()) {
    const QueryKey* r = find_query_key(k);
    ASSERT_TRUE(r) << k;
    EXPECT_TRUE(r->group == KeyGroup::setup || r->group == KeyGroup::parallelism) << k;
  }
}

TEST(KeysTable, EachDocumentedDefaultReadsBackAsAnAbsentKey) {
  // default_text is what --help and the docs say an absent key means: given explicitly, it must
  // change nothing a link would write.
  int checked = 0;
  for (const auto& r : query_key_rows()) {
    if (r.default_text.empty() || r.default_text.rfind("auto", 0) == 0) continue;
    const Args context = context_of(r);
    Args args = context;
    args.emplace_back(r.name, r.default_text);
    auto given = parse_query(args);
    ASSERT_TRUE(given.ok()) << r.name << ": " << given.error().message;
    EXPECT_EQ(query_to_key_values(given.value()), query_to_key_values(parse_query(context).value()))
        << r.name << "=" << r.default_text;
    ++checked;
  }
  for (const auto& r : serve_key_rows()) {
    if (r.default_text.empty() || r.default_text.rfind("auto", 0) == 0) continue;
    Args args = serve_context_of(r, r.default_text);
    args.emplace_back(r.name, r.default_text);
    auto given = parse_serve_request(args);
    ASSERT_TRUE(given.ok()) << r.name << ": " << given.error().message;
    EXPECT_TRUE(serve_request_to_key_values(given.value()).empty()) << r.name;
    ++checked;
  }
  EXPECT_GT(checked, 40);
}

TEST(KeysTable, BoundsAreAcceptedAndBeyondThemTheErrorNamesTheKey) {
  for (const auto& r : query_key_rows()) {
    if (r.type != KeyType::integer && r.type != KeyType::number) continue;
    Args args = context_of(r);
    const bool whole = r.type == KeyType::integer;
    for (double ok : {r.min, r.max}) {
      args.emplace_back(r.name, whole ? std::to_string(static_cast<int64_t>(ok)) : text_of(ok));
      EXPECT_TRUE(parse_query(args).ok()) << r.name << "=" << args.back().second;
      args.pop_back();
    }
    for (double bad : {r.min - 1, r.max * 2 + 1}) {
      args.emplace_back(r.name, whole ? std::to_string(static_cast<int64_t>(bad)) : text_of(bad));
      auto q = parse_query(args);
      ASSERT_FALSE(q.ok()) << r.name << "=" << args.back().second;
      EXPECT_EQ(q.error().key, r.name);
      EXPECT_EQ(q.error().id, Msg::query_out_of_range) << q.error().message;
      EXPECT_EQ(q.error().message.rfind("--" + std::string(r.name) + ": ", 0), 0u)
          << q.error().message;
      args.pop_back();
    }
  }
  auto serve = parse_serve_request({{"prompt-tokens", "0"}});
  ASSERT_FALSE(serve.ok());
  EXPECT_EQ(serve.error().key, "prompt-tokens");
}

TEST(KeysTable, ErrorsCarryTheirKey) {
  auto q = parse_query({{"model", "gpt2-small"}, {"precision", "fp4"}});
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().key, "precision");
  EXPECT_EQ(parse_query({{"colour", "red"}}).error().key, "colour");
  EXPECT_EQ(parse_query({{"tokens", "1e9"}, {"epochs", "2"}}).error().key, "epochs");
  EXPECT_EQ(parse_query_string("v=2&model=gpt2-small").error().key, "v");
  EXPECT_EQ(parse_query({{"c-bias", "maybe"}}).error().key, "c-bias");
  EXPECT_EQ(parse_query({{"c-norm", "batchnorm"}}).error().key, "c-norm");  // a derived key
}

TEST(KeysTable, SwitchesAreTheBooleanFlagsGivenBare) {
  std::vector<std::string> switches;
  for (const auto& r : query_key_rows()) {
    if (!r.is_switch) continue;
    switches.push_back(r.name);
    auto q = parse_query({{r.name, ""}});
    ASSERT_TRUE(q.ok()) << r.name;
    EXPECT_EQ(query_to_key_values(q.value()), (Args{{r.name, "1"}}));
  }
  EXPECT_EQ(switches,
            (std::vector<std::string>{
                "clip-grad-norm", "cache-quantized-weights", "quantized-params", "fp8-attention",
                "compile", "fused-kernels", "fused-loss", "sp", "tp-comm-overlap",
                "overlap-param-gather", "moe-pad-to-capacity", "moe-a2a-overlap", "qlora"}));
}

TEST(KeysTable, CliFlagsQueryLinkQueryIsTheIdentityForEveryKey) {
  int checked = 0;
  for (const auto& r : query_key_rows()) {
    for (const std::string& value : samples(r)) {
      SCOPED_TRACE(std::string(r.name) + "=" + value);
      Args args = context_of(r);
      args.emplace_back(r.name, value);
      expect_round_trip(args);
      ++checked;
    }
  }
  EXPECT_GT(checked, 250);
}

TEST(KeysTable, ManyKeysTogetherRoundTrip) {
  // splitmix64 (Steele, Lea & Flood 2014) with a fixed seed: a failure names a reproducible case.
  uint64_t state = 42;
  auto next = [&state] {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  const auto& rows = query_key_rows();
  int checked = 0;
  for (int round = 0; round < 400; ++round) {
    Args args;
    const bool transformer = next() % 2 == 0;
    args.emplace_back("custom", transformer ? "transformer" : "cnn");
    for (int k = 0; k < 10; ++k) {
      const QueryKey& r = rows[next() % rows.size()];
      const std::string name = r.name;
      if (name == "custom" || name == "epochs" || (name.rfind("cnn", 0) == 0 && transformer) ||
          (name.rfind("c-", 0) == 0 && name != "c-name" && !transformer))
        continue;
      const auto values = samples(r);
      args.emplace_back(name, values[next() % values.size()]);
    }
    SCOPED_TRACE("round " + std::to_string(round));
    expect_round_trip(args);
    ++checked;
  }
  EXPECT_EQ(checked, 400);
}

TEST(KeysTable, EveryServeKeyRoundTrips) {
  int checked = 0;
  for (const auto& r : serve_key_rows()) {
    for (const std::string& value : samples(r)) {
      SCOPED_TRACE(std::string(r.name) + "=" + value);
      Args args = serve_context_of(r, value);
      args.emplace_back(r.name, value);
      auto a = parse_serve_request(args);
      ASSERT_TRUE(a.ok()) << a.error().message;
      const std::string link = args_to_query(serve_request_to_key_values(a.value()));
      auto b = parse_serve_request(query_to_args(link).value());
      ASSERT_TRUE(b.ok()) << link << ": " << b.error().message;
      EXPECT_EQ(test::serve_differences(a.value(), b.value()), "") << link;
      ++checked;
    }
  }
  EXPECT_GT(checked, 60);
}

// Qwen2-7B's config.json (huggingface.co/Qwen/Qwen2-7B, config.json): Qwen2 has biases on the
// Q, K and V projections only, which the editor's one bias switch cannot say.
constexpr const char* kQwen2_7b = R"({"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
  "hidden_size": 3584, "intermediate_size": 18944, "max_position_embeddings": 131072,
  "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4,
  "tie_word_embeddings": false, "vocab_size": 152064, "attention_dropout": 0.0})";

TEST(KeysTable, AnUploadedConfigsFieldsRoundTripThroughALink) {
  // 7,615,616,512 parameters, as Qwen2ForCausalLM counts them: 28 layers x (Q 3584^2 + 3584 bias,
  // K and V 3584 x 512 + 512 bias each, O 3584^2, MLP 3 x 3584 x 18944, 2 norms of 3584) +
  // untied embedding and head 2 x 152064 x 3584 + final norm 3584. With a bias on every
  // projection (the editor's convention) it would be 28 x (3584 + 2 x 18944 + 3584) more:
  // 7,616,878,080.
  for (const char* config : {kQwen2_7b}) {
    auto m = model_from_hf_config(config, "config.json");
    ASSERT_TRUE(m.ok()) << m.error().message;
    Query q;
    q.custom.kind = CustomModel::Kind::transformer;
    q.custom.transformer = m.value().transformer;
    q.custom.name = m.value().name;
    q.request.setup.micro_batch = 1;
    const std::string link = args_to_query(query_to_key_values(q));
    auto back = parse_query_string(link);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(test::query_differences(q, back.value()), "") << link;
    auto model = resolve_model(test::catalog(), back.value());
    ASSERT_TRUE(model.ok()) << model.error().message;
    auto e = estimate(model.value(), back.value().request.setup);
    ASSERT_TRUE(e.ok()) << e.error().message;
    EXPECT_EQ(e.value().params.total, 7'615'616'512);
  }
  // The fixtures of hf_config_test: each uploaded architecture comes back field by field.
  for (const char* file : {"qwen2-0.5b.json", "llama-2-7b.json", "mixtral-8x7b.json", "gpt2.json",
                           "bert-base-uncased.json", "vit-base-patch16-224.json"}) {
    SCOPED_TRACE(file);
    auto m =
        model_from_hf_config(test::read_repo_file(std::string("tests/fixtures/hf/") + file), file);
    ASSERT_TRUE(m.ok()) << m.error().message;
    Query q;
    q.custom.kind = CustomModel::Kind::transformer;
    q.custom.transformer = m.value().transformer;
    auto back = parse_query_string(args_to_query(query_to_key_values(q)));
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(test::query_differences(q, back.value()), "");
  }
}

TEST(KeysTable, EveryZooArchitectureRoundTripsAsACustomTransformer) {
  // The editor's "start from model" takes a zoo model's whole TransformerSpec (MoE layouts,
  // latent and windowed attention, encoder-decoder and vision models): each comes back from a
  // link field by field.
  int checked = 0;
  for (const Model& m : test::catalog().models) {
    if (m.kind != ModelKind::transformer) continue;
    SCOPED_TRACE(m.id);
    Query q;
    q.custom.kind = CustomModel::Kind::transformer;
    q.custom.transformer = m.transformer;
    q.custom.name = m.name;
    const std::string link = args_to_query(query_to_key_values(q));
    auto back = parse_query_string(link);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(test::query_differences(q, back.value()), "") << link;
    ++checked;
  }
  EXPECT_GT(checked, 40);
}

TEST(KeysTable, OldLinksKeepTheEditorsConventions) {
  // A link written before the derived keys: c-gated and c-bias still imply the rest.
  auto q = parse_query_string(
      "custom=transformer&c-layers=2&c-hidden=64&c-heads=4&c-ffn=256&c-vocab=100&c-gated=1&c-bias="
      "1");
  ASSERT_TRUE(q.ok()) << q.error().message;
  const TransformerSpec& t = q.value().custom.transformer;
  EXPECT_EQ(t.norm, NormKind::rmsnorm);
  EXPECT_EQ(t.activation, MlpActivation::silu);
  EXPECT_EQ(t.positions, PositionKind::rotary);
  EXPECT_TRUE(t.qkv_bias && t.attn_out_bias && t.mlp_bias);
  // A derived key overrides its convention, wherever it stands in the link.
  auto qwen = parse_query_string(
      "custom=transformer&c-attn-out-bias=0&c-layers=2&c-hidden=64&c-heads=4&c-ffn=256&c-vocab="
      "100&c-gated=1&c-bias=1&c-mlp-bias=0");
  ASSERT_TRUE(qwen.ok()) << qwen.error().message;
  EXPECT_TRUE(qwen.value().custom.transformer.qkv_bias);
  EXPECT_FALSE(qwen.value().custom.transformer.attn_out_bias);
  EXPECT_FALSE(qwen.value().custom.transformer.mlp_bias);
}

TEST(KeysTable, NumberKeysReadQuantitiesAsPeopleWriteThem) {
  // 2亿 (two hundred million), 200M, 2e8 and 200,000,000 are one run length.
  for (const char* text : {"2亿", "200M", "2e8", "200,000,000"}) {
    auto q = parse_query({{"tokens", text}});
    ASSERT_TRUE(q.ok()) << text << ": " << q.error().message;
    EXPECT_EQ(q.value().run.tokens, 2e8) << text;
  }
  auto bad = parse_query({{"tokens", "2x"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().key, "tokens");
}

TEST(KeysTable, NumbersAreWrittenExactly) {
  for (double x : {0.1, 1e9, 2.5e-5, 1.0 / 3, 123456789.123, 1e16}) {
    EXPECT_EQ(std::strtod(exact_number(x).c_str(), nullptr), x) << exact_number(x);
  }
  EXPECT_EQ(exact_number(1e9), "1000000000");
  EXPECT_EQ(exact_number(0.1), "0.1");
}

TEST(KeysTable, FieldListsAreComplete) {
#if defined(__GLIBCXX__) && UINTPTR_MAX == UINT64_MAX
  // The sizes query_fields.h's comparisons were written for (64-bit libstdc++). A new field in
  // one of these structs changes its size: give it a key row (core/src/query/keys.cpp) and a
  // line in query_fields.h, then update the size here.
  EXPECT_EQ(sizeof(gpuplan::Setup), 304u) << "a Setup field was added or removed";
  EXPECT_EQ(sizeof(TransformerSpec), 648u) << "a TransformerSpec field was added or removed";
  EXPECT_EQ(sizeof(CustomModel), 752u) << "a CustomModel field was added or removed";
  EXPECT_EQ(sizeof(Query), 2632u) << "a Query field was added or removed";
  EXPECT_EQ(sizeof(ServeRequest), 424u) << "a ServeRequest field was added or removed";
#else
  GTEST_SKIP() << "sizes are checked on 64-bit libstdc++ builds";
#endif
}

}  // namespace
}  // namespace gpuplan
