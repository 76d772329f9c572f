// The link is the page's state: page state -> link -> page state is the identity for every key
// of the core's table, the Serving tab's and the page's own, compared field by field with the
// state the link was written from (tests/core/query/query_fields.h). A key the page dropped, or
// a default the page patched in after reading (fp32 reopening as amp-bf16), fails here.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../core/query/query_fields.h"
#include "gpuplan/embedded_data.h"
#include "gpuplan/evaluate.h"
#include "gpuplan/hf_config.h"
#include "model/page_model.h"
#include "web_test_util.h"

namespace gpuplan::web {
namespace {

using page_test::catalog;

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

// Values to try for a key (as keys_test does): bounds and a value between, each choice, both
// truth values, ids and lists.
template <class T>
std::vector<std::string> samples(const KeyRow<T>& r) {
  const std::string name = r.name;
  switch (r.type) {
    case KeyType::integer: {
      const auto lo = static_cast<int64_t>(r.min), hi = static_cast<int64_t>(r.max);
      return {std::to_string(lo), std::to_string(hi), std::to_string(lo + (hi - lo) / 3)};
    }
    case KeyType::number:
      return {exact_number(r.min), exact_number(r.max),
              exact_number(r.min + (r.max - r.min) * 0.123456789)};
    case KeyType::boolean:
      return {"0", "1"};
    case KeyType::choice:
      if (name == "pytorch") return {"1.10", "1.11-1.13", "2.0+"};
      return split_choices(r.choices);
    case KeyType::list:
      if (name == "c-adaptive-cutoffs") return {"20000,40000,200000"};
      if (name == "c-mlp-widths") return {"28672,5632,2816"};
      if (name == "compare") return {"aws-p5.48xlarge*2,lambda-gpu-8x-h100*1"};
      if (name == "serve-compare") return {"h100-sxm5-80gb,aws-p4d.24xlarge", "l40s"};
      if (name == "recompute-modules") return {"moe_act,layernorm,mla_up_proj"};
      if (name == "offload-modules") return {"expert_fc1,moe_act"};
      if (name == "cuda-graph-modules") return {"attn,mlp"};
      return {"q_proj,k_proj,v_proj,o_proj"};
    case KeyType::text:
      if (name == "load-curve") return {"diurnal", "business-hours"};
      return {"an-id", "with space&amp=sign"};
  }
  return {};
}

std::string state_differences(const PageState& a, const PageState& b) {
  std::string d = test::query_differences(a.query, b.query);
  const std::string serve = test::serve_differences(a.serve, b.serve);
  if (!serve.empty()) d += (d.empty() ? "" : "; ") + serve;
  if (a.tab != b.tab) d += "; tab";
  if (a.lang != b.lang) d += "; lang";
  if (a.compare != b.compare) d += "; compare";
  if (a.serve_compare != b.serve_compare) d += "; serve_compare";
  return d;
}

void expect_identity(const PageState& s) {
  const std::string link = page_state_to_query(s);
  const ParsedLink back = page_state_from_link(link);
  ASSERT_TRUE(back.problems.empty()) << link << ": " << back.problems.front().error.message;
  EXPECT_EQ(state_differences(s, back.state), "") << link;
}

TEST(LinkState, TheDefaultLinkIsWrittenInFullAndOpensWithoutState) {
  const PageState d = default_page_state();
  EXPECT_EQ(page_state_to_query(d), std::string("v=1&") + kDefaultLink);
  EXPECT_EQ(d.query.request.setup.precision, Precision::amp_bf16);
  EXPECT_EQ(d.query.request.setup.global_batch, 8);
  EXPECT_EQ(d.query.run.tokens, 1e9);
  EXPECT_EQ(d.query.max_nodes, 8);
  EXPECT_EQ(d.serve.rate_per_s, 30);
  // No state in the URL (or only the page's own keys): the default link.
  for (const char* empty : {"", "v=1", "lang=zh", "tab=plans"}) {
    const ParsedLink link = page_state_from_link(empty);
    EXPECT_TRUE(link.problems.empty()) << empty;
    EXPECT_EQ(test::query_differences(link.state.query, d.query), "") << empty;
  }
}

TEST(LinkState, AKeyALinkLeavesOutIsTheCoresDefault) {
  // The same link means the same to the page as to the CLI: fp32, no hardware, no run length.
  const ParsedLink link = page_state_from_link("model=gpt2-medium");
  ASSERT_TRUE(link.problems.empty());
  EXPECT_EQ(
      test::query_differences(link.state.query, parse_query_string("model=gpt2-medium").value()),
      "");
  EXPECT_EQ(link.state.query.request.setup.precision, Precision::fp32);
  EXPECT_EQ(link.state.query.gpu, "");
  EXPECT_EQ(link.state.query.run.tokens, 0);
}

TEST(LinkState, Fp32AndNoRunLengthComeBackAsThemselves) {
  // Before: a link without precision or tokens took the page's own defaults (amp-bf16, 1e9
  // tokens), so a result made with fp32 reopened as amp-bf16 at another cost.
  PageState s = default_page_state();
  s.query.request.setup.precision = Precision::fp32;
  s.query.run.tokens = 0;
  expect_identity(s);
  const ParsedLink back = page_state_from_link(page_state_to_query(s));
  EXPECT_EQ(back.state.query.request.setup.precision, Precision::fp32);
  EXPECT_EQ(back.state.query.run.tokens, 0);
  // The same cost after the round trip as before it (an instance, a run length).
  s.query.run.tokens = 1e9;
  s.query.gpu.clear();
  s.query.instance = "aws-p4d.24xlarge";
  const auto before = compute(catalog(), s, nullptr);
  const auto after =
      compute(catalog(), page_state_from_link(page_state_to_query(s)).state, nullptr);
  ASSERT_TRUE(before.ok() && after.ok());
  ASSERT_TRUE(before.value().cost && after.value().cost);
  EXPECT_EQ(after.value().cost->usd_total, before.value().cost->usd_total);
}

TEST(LinkState, EveryCoreKeyRoundTripsThroughThePage) {
  int checked = 0;
  for (const QueryKey& r : query_key_rows()) {
    for (const std::string& value : samples(r)) {
      SCOPED_TRACE(std::string(r.name) + "=" + value);
      PageState s = default_page_state();
      const std::string name = r.name;
      if (name.rfind("c-", 0) == 0) s.query.custom.kind = CustomModel::Kind::transformer;
      if (name.rfind("cnn", 0) == 0) s.query.custom.kind = CustomModel::Kind::cnn;
      if (name == "epochs") s.query.run.tokens = 0;  // one run length at a time, as the page sets
      auto err = r.read(s.query, value);
      ASSERT_FALSE(err) << err->message;
      expect_identity(s);
      ++checked;
    }
  }
  EXPECT_GT(checked, 250);
}

// The speculative-decoding keys a serve key needs beside it: a method goes with its draft
// tokens and acceptance, a draft model with the method draft (check_serve_spec).
void spec_context(ServeRequest& r, const std::string& name) {
  if (name.rfind("spec-", 0) != 0) return;
  r.spec_method = name == "spec-draft-model" ? SpecMethod::draft : SpecMethod::eagle;
  r.spec_tokens = 4;
  r.spec_acceptance = 0.8;
}

TEST(LinkState, EveryServeKeyRoundTripsThroughTheServingTab) {
  int checked = 0;
  for (const ServeKey& r : serve_key_rows()) {
    for (const std::string& value : samples(r)) {
      SCOPED_TRACE(std::string(r.name) + "=" + value);
      PageState s = default_page_state();
      s.tab = Tab::serving;
      if (std::string(r.name) == "model") {
        s.query.request.model = value;  // the Serving tab's model is the calculator's
      } else if (std::string(r.name) == "currency") {
        ASSERT_FALSE(find_query_key("currency")->read(s.query, value));  // and its currency
      } else {
        spec_context(s.serve, r.name);
        auto err = r.read(s.serve, value);
        ASSERT_FALSE(err) << err->message;
        if (s.serve.spec_method == SpecMethod::draft && s.serve.spec_draft_model.empty())
          s.serve.spec_draft_model = "llama-3.1-8b";
        if (s.serve.spec_method == SpecMethod::none) {  // "none": no keys of a method beside it
          s.serve.spec_tokens = 0;
          s.serve.spec_acceptance = 0;
        }
      }
      expect_identity(s);
      ++checked;
    }
  }
  EXPECT_GT(checked, 60);
}

TEST(LinkState, AnIncompleteSpeculativeSetupKeepsItsKeysForThePageToMark) {
  // No acceptance rate: the link opens as written; the plan's check names the missing field.
  const ParsedLink link = page_state_from_link(
      "tab=serving&rate=3&spec-method=eagle&spec-tokens=4&prefix-hit-rate=0.5");
  ASSERT_TRUE(link.problems.empty()) << link.problems.front().error.message;
  EXPECT_EQ(link.state.serve.spec_method, SpecMethod::eagle);
  EXPECT_EQ(link.state.serve.spec_tokens, 4);
  EXPECT_EQ(link.state.serve.prefix_hit_rate, 0.5);
  auto err = check_serve_spec(link.state.serve);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->key, "spec-acceptance");
}

TEST(LinkState, ThePagesOwnKeysRoundTrip) {
  for (const auto& r : page_key_rows()) {
    for (const std::string& value : samples(r)) {
      SCOPED_TRACE(std::string(r.name) + "=" + value);
      PageState s = default_page_state();
      auto err = r.read(s, value);
      ASSERT_FALSE(err) << err->message;
      expect_identity(s);
    }
  }
}

TEST(LinkState, EveryPricingKeyTogether) {
  // currency, reservation-utilisation and spot-interruption-bucket were read and never written
  // back; spot, restart, minimum GPU memory and top were dropped by the page.
  PageState s = default_page_state();
  s.query.currency = "CNY";
  s.query.pricing = Pricing::reserved_1y;
  s.query.commitment.utilisation = 0.6;
  s.query.spot_bucket = "aws-10-15";
  s.query.spot.checkpoint_interval_h = 0.5;
  s.query.spot.restart_h = 0.25;
  s.query.region = "us-east-1";
  s.query.min_gpu_memory_gb = 80;
  s.query.top_k = 5;
  expect_identity(s);
  s.query.spot_bucket.clear();
  s.query.pricing = Pricing::spot;
  s.query.spot.interruptions_per_hour = 0.02;
  expect_identity(s);
}

// Qwen2-7B's config.json (huggingface.co/Qwen/Qwen2-7B): biases on Q, K and V only.
constexpr const char* kQwen2_7b = R"({"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
  "hidden_size": 3584, "intermediate_size": 18944, "max_position_embeddings": 131072,
  "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4,
  "tie_word_embeddings": false, "vocab_size": 152064, "attention_dropout": 0.0})";

TEST(LinkState, AnUploadedConfigReopensAsTheSameModel) {
  // As App::load_file sets it: the config's architecture is the custom transformer.
  auto m = model_from_hf_config(kQwen2_7b, "config.json");
  ASSERT_TRUE(m.ok()) << m.error().message;
  PageState s = default_page_state();
  s.query.custom.kind = CustomModel::Kind::transformer;
  s.query.custom.transformer = m.value().transformer;
  s.query.custom.name = m.value().name;
  s.query.request.setup.seq_len = 0;
  expect_identity(s);
  const PageState back = page_state_from_link(page_state_to_query(s)).state;
  const auto ev = compute(catalog(), back, nullptr);
  ASSERT_TRUE(ev.ok()) << ev.error().message;
  // Qwen2ForCausalLM's count (keys_test derives it); with a bias on every projection, as the
  // link used to reopen it, 7,616,878,080.
  EXPECT_EQ(ev.value().estimate.params.total, 7'615'616'512);
}

TEST(LinkState, ALinksBadKeyIsNamedByTheErrorsKey) {
  // The page finds the key in Error::key, not by reading "--key:" out of the message.
  const ParsedLink link = page_state_from_link("model=gpt2-small&c-norm=batchnorm&top=0&gpu=x");
  ASSERT_EQ(link.problems.size(), 2u);
  EXPECT_EQ(link.problems[0].key, "top");
  EXPECT_EQ(link.problems[1].key, "c-norm");  // a derived key is read last
  EXPECT_EQ(link.state.query.gpu, "x");       // ids are checked against the catalog later
  const ParsedLink serving = page_state_from_link("tab=serving&prompt-tokens=100");
  ASSERT_EQ(serving.problems.size(), 1u);
  EXPECT_EQ(serving.problems[0].key, "rate");  // the CLI requires it: noted, not patched silently
  EXPECT_EQ(serving.state.serve.rate_per_s, default_page_state().serve.rate_per_s);
  EXPECT_EQ(serving.state.serve.prompt_tokens, 100);
}

}  // namespace
}  // namespace gpuplan::web
