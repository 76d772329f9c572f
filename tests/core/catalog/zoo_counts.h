#pragma once
// What the zoo tests count and resolve: a model's parameters split the way publishers state them,
// and the zoo entry a name resolves to.
#include <gtest/gtest.h>

#include <string>

#include "gpuplan/catalog.h"
#include "gpuplan/hf_config.h"
#include "gpuplan/transformer.h"
#include "test_util.h"

namespace gpuplan::test {

struct ZooCounts {
  double total = 0;      // without multi-token prediction modules (the published convention)
  double active = 0;     // per token: all but the routed experts a token is not sent to
  double embedding = 0;  // the input embedding table
  double head = 0;       // the output projection (lm_head) where untied
  double mtp = 0;        // multi-token prediction modules
};

inline ZooCounts counts(const std::string& id) {
  const TransformerSpec& s = model(id).transformer;
  ZooCounts c;
  for (const auto& t : transformer_parameters(s)) {
    const auto n = static_cast<double>(t.numel());
    if (t.mtp) {
      c.mtp += n;
      continue;
    }
    c.total += n;
    if (std::string(t.module) == "embed_tokens") c.embedding += n;
    if (std::string(t.module) == "lm_head") c.head += n;
    const double share =
        t.routed_expert ? static_cast<double>(s.experts_per_token) / static_cast<double>(s.experts)
                        : 1.0;
    c.active += n * share;
  }
  return c;
}

// Every parameter of `s`, multi-token prediction modules included (an imported config's count).
inline double parameter_count(const TransformerSpec& s) {
  double n = 0;
  for (const auto& t : transformer_parameters(s)) n += static_cast<double>(t.numel());
  return n;
}

// The config.json tests/fixtures/hf/`file` imports as the zoo entry `id`: the same parameters,
// layer kinds, multi-token prediction modules, forward FLOPs at 8k tokens and KV cache at 64k.
inline void expect_imports_as(const std::string& file, const std::string& id) {
  SCOPED_TRACE(file);
  auto m = model_from_hf_config(read_repo_file("tests/fixtures/hf/" + file), file);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const TransformerSpec& a = m.value().transformer;
  const TransformerSpec& b = model(id).transformer;
  EXPECT_EQ(parameter_count(a), parameter_count(b));
  EXPECT_EQ(a.layer_pattern, b.layer_pattern);
  EXPECT_EQ(a.linear_layer_count(), b.linear_layer_count());
  EXPECT_EQ(a.mtp_layers, b.mtp_layers);
  EXPECT_DOUBLE_EQ(transformer_forward_flops(a, 8192).total(),
                   transformer_forward_flops(b, 8192).total());
  EXPECT_DOUBLE_EQ(kv_cache_size(a, 2, 65536).total_bytes, kv_cache_size(b, 2, 65536).total_bytes);
}

// Within `tolerance` (a fraction) of the published figure.
inline void expect_near(double ours, double published, double tolerance, const char* what) {
  EXPECT_NEAR(ours / published, 1.0, tolerance) << what << ": " << ours << " vs " << published;
}

// The zoo id `name` resolves to ("(none)" if none), and the checkpoint format its name states.
inline std::string resolved(const std::string& name, CheckpointFormat* format = nullptr) {
  auto m = resolve_model(catalog(), name);
  if (!m) return "(none)";
  if (format) *format = m->format;
  return m->model->id;
}

}  // namespace gpuplan::test
