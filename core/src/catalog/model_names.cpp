// Model names as people write them: Hugging Face ids with their vendor prefix, variant words and
// checkpoint suffixes ("meta-llama/Meta-Llama-3.1-70B-Instruct-FP8"), resolved to a zoo entry with
// the weight format the suffix states; and the nearest ids for a name that resolves to none.
#include "catalog/model_names.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "gpuplan/catalog.h"

namespace gpuplan {
namespace {

// Checkpoint suffixes as publishers write them (Hugging Face repository names), longest first
// where one ends another: NVIDIA ModelOpt (-FP8, -FP4, -NVFP4), Neural Magic / Red Hat
// (-FP8-Dynamic, -quantized.w8a8, -W4A16), AutoAWQ (-AWQ), AutoGPTQ (-GPTQ-Int4), Qwen's (-FP8,
// -GPTQ-Int8), OpenAI's MXFP4 release, unsloth (-bnb-4bit).
struct Suffix {
  std::vector<const char*> tokens;
  CheckpointFormat format;
};
const std::vector<Suffix>& suffixes() {
  static const std::vector<Suffix> table = {{{"gptq", "int4"}, CheckpointFormat::int4_gptq},
                                            {{"gptq", "int8"}, CheckpointFormat::int8_gptq},
                                            {{"bnb", "4bit"}, CheckpointFormat::bnb_4bit},
                                            {{"fp8", "dynamic"}, CheckpointFormat::fp8},
                                            {{"fp8", "static"}, CheckpointFormat::fp8},
                                            {{"gptq"}, CheckpointFormat::int4_gptq},
                                            {{"awq"}, CheckpointFormat::int4_awq},
                                            {{"nvfp4"}, CheckpointFormat::nvfp4},
                                            {{"mxfp4"}, CheckpointFormat::mxfp4},
                                            {{"fp4"}, CheckpointFormat::fp4},
                                            {{"fp8"}, CheckpointFormat::fp8},
                                            {{"w8a8"}, CheckpointFormat::int8},
                                            {{"int8"}, CheckpointFormat::int8},
                                            {{"w4a16"}, CheckpointFormat::int4},
                                            {{"int4"}, CheckpointFormat::int4},
                                            {{"4bit"}, CheckpointFormat::bnb_4bit},
                                            {{"bf16"}, CheckpointFormat::bf16},
                                            {{"fp16"}, CheckpointFormat::fp16}};
  return table;
}

// Words that name a variant of the same weights' architecture: tuned, chat, thinking, base.
bool is_variant_word(const std::string& t) {
  for (const char* w : {"instruct", "chat", "hf", "base", "it", "thinking", "quantized"}) {
    if (t == w) return true;
  }
  // A release date (Qwen3-...-2507, Kimi-K2-Instruct-0905, Mistral-Nemo-Base-2407).
  return t.size() == 4 && std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(c); });
}

// Lower case, the part after the last '/', cut at '-', '_' and spaces ("quantized.w8a8" too).
std::vector<std::string> tokens_of(std::string_view name) {
  const size_t slash = name.rfind('/');
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  std::vector<std::string> out(1);
  for (char c : name) {
    if (c == '-' || c == '_' || c == ' ') {
      if (!out.back().empty()) out.emplace_back();
    } else {
      out.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (out.back().empty()) out.pop_back();
  std::vector<std::string> split;
  for (auto& t : out) {
    if (t.rfind("quantized.", 0) == 0) {
      split.push_back("quantized");
      split.push_back(t.substr(10));
    } else {
      split.push_back(std::move(t));
    }
  }
  return split;
}

// Removes the checkpoint suffixes at the end of `t`, keeping the first format found (the
// outermost: "-GPTQ-Int4" is int4_gptq, not int4).
CheckpointFormat strip_suffixes(std::vector<std::string>& t) {
  CheckpointFormat format = CheckpointFormat::unstated;
  for (bool again = true; again && t.size() > 1;) {
    again = false;
    while (t.size() > 1 && is_variant_word(t.back())) t.pop_back();
    for (const Suffix& s : suffixes()) {
      const size_t n = s.tokens.size();
      if (t.size() <= n) continue;
      if (!std::equal(s.tokens.begin(), s.tokens.end(), t.end() - static_cast<long>(n))) continue;
      t.resize(t.size() - n);
      if (format == CheckpointFormat::unstated) format = s.format;
      again = true;
      break;
    }
  }
  return format;
}

// Letters and digits only.
std::string folded(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += c;
  }
  return out;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

const char* checkpoint_format_name(CheckpointFormat f) {
  switch (f) {
    case CheckpointFormat::unstated:
      return "unstated";
    case CheckpointFormat::bf16:
      return "bf16";
    case CheckpointFormat::fp16:
      return "fp16";
    case CheckpointFormat::fp8:
      return "fp8";
    case CheckpointFormat::int8:
      return "int8";
    case CheckpointFormat::int8_gptq:
      return "gptq-int8";
    case CheckpointFormat::int4:
      return "int4";
    case CheckpointFormat::int4_awq:
      return "awq";
    case CheckpointFormat::int4_gptq:
      return "gptq-int4";
    case CheckpointFormat::fp4:
      return "fp4";
    case CheckpointFormat::nvfp4:
      return "nvfp4";
    case CheckpointFormat::mxfp4:
      return "mxfp4";
    case CheckpointFormat::bnb_4bit:
      return "bnb-4bit";
  }
  return "unstated";
}

std::string canonical_model_name(std::string_view name, CheckpointFormat* format) {
  std::vector<std::string> t = tokens_of(name);
  // Meta's own prefix in its repository names: Meta-Llama-3.1-8B is Llama 3.1 8B.
  if (t.size() > 1 && t[0] == "meta" && t[1].rfind("llama", 0) == 0) t.erase(t.begin());
  const CheckpointFormat f = strip_suffixes(t);
  if (format) *format = f;
  // Variant words inside the name too: Mistral-7B-Instruct-v0.3, Qwen3-235B-A22B-Instruct-2507.
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (i > 0 && is_variant_word(t[i])) continue;
    out += (out.empty() ? "" : "-") + t[i];
  }
  return out;
}

namespace detail {

const Model* find_by_canonical_name(const std::vector<Model>& models, std::string_view name) {
  const std::string want = folded(canonical_model_name(name));
  if (want.empty()) return nullptr;
  const Model* found = nullptr;
  for (const Model& m : models) {
    bool hit = folded(canonical_model_name(m.id)) == want;
    for (const std::string& a : m.aliases) hit = hit || folded(canonical_model_name(a)) == want;
    if (!hit) continue;
    if (found) return nullptr;  // ambiguous
    found = &m;
  }
  return found;
}

}  // namespace detail

std::optional<ModelMatch> resolve_model(const Catalog& catalog, std::string_view name) {
  const Model* m = catalog.find_model(name);
  if (!m) return std::nullopt;
  ModelMatch match;
  match.model = m;
  match.name = name;
  canonical_model_name(name, &match.format);
  return match;
}

std::vector<std::string> nearest_models(const Catalog& catalog, std::string_view name, size_t n) {
  const std::string want = folded(canonical_model_name(name));
  std::vector<std::pair<size_t, std::string>> scored;
  for (const Model& m : catalog.models) {
    size_t best = edit_distance(want, folded(canonical_model_name(m.id)));
    for (const std::string& a : m.aliases)
      best = std::min(best, edit_distance(want, folded(canonical_model_name(a))));
    if (best > 0 && best * 3 <= std::max<size_t>(want.size(), 3)) scored.emplace_back(best, m.id);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < n; ++i) out.push_back(scored[i].second);
  return out;
}

}  // namespace gpuplan
