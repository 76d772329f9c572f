// Names of the serving enums and the "serving" object of data/assumptions.json: the block size
// of the paged KV cache and one profile per runtime, each value a fact {value, source, note}
// whose source is a key of the file's "sources".
#include <set>

#include "gpuplan/serve_assumptions.h"
#include "catalog/json_reader.h"

namespace gpuplan {

std::optional<WeightFormat> checkpoint_name_weights(CheckpointFormat f) {
  switch (f) {
    case CheckpointFormat::bf16:
      return WeightFormat::bf16;
    case CheckpointFormat::fp16:
      return WeightFormat::fp16;
    case CheckpointFormat::fp8:
      return WeightFormat::fp8;
    case CheckpointFormat::int8:
    case CheckpointFormat::int8_gptq:
      return WeightFormat::int8;
    case CheckpointFormat::int4:
    case CheckpointFormat::int4_awq:
    case CheckpointFormat::int4_gptq:
      return WeightFormat::int4;
    case CheckpointFormat::fp4:
    case CheckpointFormat::nvfp4:
      return WeightFormat::nvfp4;
    case CheckpointFormat::mxfp4:
      return WeightFormat::mxfp4;
    case CheckpointFormat::unstated:
    case CheckpointFormat::bnb_4bit:
      break;
  }
  return std::nullopt;
}

Model named_checkpoint(const ModelMatch& match) {
  Model m = *match.model;
  if (auto named = checkpoint_name_weights(match.format)) {
    m.checkpoint_weights = weight_format_name(*named);
    m.checkpoint_name = match.name;
  }
  return m;
}

const char* kv_format_name(KvFormat k) {
  switch (k) {
    case KvFormat::bf16:
      return "bf16";
    case KvFormat::fp8:
      return "fp8";
    case KvFormat::fp4:
      return "fp4";
  }
  return "?";
}

const char* runtime_name(Runtime r) {
  switch (r) {
    case Runtime::vllm:
      return "vllm";
    case Runtime::trtllm:
      return "trtllm";
    case Runtime::sglang:
      return "sglang";
    case Runtime::hf:
      return "hf";
    case Runtime::llamacpp:
      return "llamacpp";
  }
  return "?";
}

std::optional<KvFormat> parse_kv_format(const std::string& s) {
  if (s == "bf16" || s == "fp16") return KvFormat::bf16;
  if (s == "fp8") return KvFormat::fp8;
  if (s == "fp4") return KvFormat::fp4;
  return std::nullopt;
}

std::optional<Runtime> parse_runtime(const std::string& s) {
  for (Runtime r :
       {Runtime::vllm, Runtime::trtllm, Runtime::sglang, Runtime::hf, Runtime::llamacpp}) {
    if (s == runtime_name(r)) return r;
  }
  if (s == "llama.cpp") return Runtime::llamacpp;
  return std::nullopt;
}

const RuntimeProfile& ServingAssumptions::profile(Runtime r) const {
  switch (r) {
    case Runtime::trtllm:
      return trtllm;
    case Runtime::sglang:
      return sglang;
    case Runtime::hf:
      return hf;
    case Runtime::llamacpp:
      return llamacpp;
    case Runtime::vllm:
      break;
  }
  return vllm;
}

namespace {

// One fact of a runtime profile: {"value": ..., "source": KEY, "note": ...}; the value's JSON.
const nlohmann::json* fact(JsonReader& r, const char* key, const std::set<std::string>& sources) {
  const nlohmann::json* f = r.object(key, true);
  if (!f) return nullptr;
  JsonReader fr(*f, r.where(), r.name(key));
  const std::string source = fr.string("source", std::nullopt);
  fr.ignore("note");
  fr.ignore("see_also");
  const nlohmann::json* v = fr.value("value", true);
  if (!fr.error() && !sources.count(source))
    fr.fail(fr.name("source") + ": '" + source + "' is not in sources");
  if (auto err = fr.finish()) {
    r.fail_with(*err);
    return nullptr;
  }
  return v;
}

double fact_number(JsonReader& r, const char* key, const std::set<std::string>& sources, double min,
                   double max) {
  const nlohmann::json* v = fact(r, key, sources);
  if (!v) return 0;
  if (!v->is_number() || v->get<double>() < min || v->get<double>() > max) {
    r.fail(r.name(key) + ".value: expected a number in [" + std::to_string(min) + ", " +
           std::to_string(max) + "]");
    return 0;
  }
  return v->get<double>();
}

bool fact_bool(JsonReader& r, const char* key, const std::set<std::string>& sources) {
  const nlohmann::json* v = fact(r, key, sources);
  if (v && !v->is_boolean()) r.fail(r.name(key) + ".value: expected true or false");
  return v && v->is_boolean() && v->get<bool>();
}

// A fact whose value is a list of format names, each read by `parse`; optional facts may be
// left out (an empty list).
template <class Format, class Parse>
std::vector<Format> fact_formats(JsonReader& r, const char* key,
                                 const std::set<std::string>& sources, Parse parse, bool required) {
  std::vector<Format> out;
  if (!required && !r.has(key)) return out;
  const nlohmann::json* v = fact(r, key, sources);
  if (!v) return out;
  if (!v->is_array()) {
    r.fail(r.name(key) + ".value: expected a list of format names");
    return out;
  }
  for (const auto& item : *v) {
    const std::optional<Format> f =
        item.is_string() ? parse(item.get<std::string>()) : std::nullopt;
    if (!f) {
      r.fail(r.name(key) + ".value: '" +
             (item.is_string() ? item.get<std::string>() : item.dump()) +
             "' is not a format gpuplan knows");
      return {};
    }
    out.push_back(*f);
  }
  return out;
}

RuntimeProfile read_profile(JsonReader& parent, const char* name, Runtime runtime,
                            const std::set<std::string>& s) {
  RuntimeProfile p;
  p.runtime = runtime;
  const nlohmann::json* j = parent.object(name, true);
  if (!j) return p;
  JsonReader r(*j, parent.where(), parent.name(name));
  r.ignore("note");
  p.memory_fraction = fact_number(r, "memory_fraction", s, 0.05, 1.0);
  p.fraction_of_free = fact_bool(r, "fraction_of_free", s);
  p.max_num_seqs = static_cast<int64_t>(fact_number(r, "max_num_seqs", s, 1, 1e6));
  p.max_num_seqs_large = static_cast<int64_t>(fact_number(r, "max_num_seqs_large", s, 1, 1e6));
  p.max_num_batched_tokens =
      static_cast<int64_t>(fact_number(r, "max_num_batched_tokens", s, 1, 1e7));
  p.max_num_batched_tokens_large =
      static_cast<int64_t>(fact_number(r, "max_num_batched_tokens_large", s, 1, 1e7));
  p.continuous_batching = fact_bool(r, "continuous_batching", s);
  p.reserve_full_sequence = fact_bool(r, "reserve_full_sequence", s);
  p.kernels_per_layer = fact_number(r, "kernels_per_layer", s, 1, 1000);
  p.cuda_graphs = fact_bool(r, "cuda_graphs", s);
  if (r.has("moe_extra_kernels_per_layer"))
    p.moe_extra_kernels_per_layer = fact_number(r, "moe_extra_kernels_per_layer", s, 0, 1000);
  if (r.has("host_per_sequence_s"))
    p.host_per_sequence_s = fact_number(r, "host_per_sequence_s", s, 0, 1e-2);
  p.allreduce_latency_s = fact_number(r, "allreduce_latency_s", s, 0, 1e-2);
  p.kv_formats = fact_formats<KvFormat>(r, "kv_formats", s, parse_kv_format, true);
  p.fp4_weight_only =
      fact_formats<WeightFormat>(r, "fp4_weight_only", s, parse_weight_format, false);
  p.layer_split = r.has("layer_split") && fact_bool(r, "layer_split", s);
  p.hybrid_pages = r.has("hybrid_pages") && fact_bool(r, "hybrid_pages", s);
  if (r.has("window_sized_kv")) p.window_sized_kv = fact_bool(r, "window_sized_kv", s);
  if (r.has("chunked_attention_decode"))
    p.chunked_attention_decode = fact_bool(r, "chunked_attention_decode", s);
  if (auto err = r.finish()) parent.fail_with(*err);
  return p;
}

// "serving.sharegpt": the published means and vLLM's filter, then the scales solved for them.
LengthSampler read_sharegpt(JsonReader& parent, const std::set<std::string>& s) {
  const nlohmann::json* j = parent.object("sharegpt", true);
  if (!j) return {};
  JsonReader r(*j, parent.where(), parent.name("sharegpt"));
  r.ignore("note");
  DatasetLengths d;
  d.prompt_mean_tokens = fact_number(r, "prompt_mean_tokens", s, 1, 1e6);
  d.output_mean_tokens = fact_number(r, "output_mean_tokens", s, 1, 1e6);
  d.min_tokens = static_cast<int64_t>(fact_number(r, "min_tokens", s, 1, 1e6));
  d.max_prompt_tokens = static_cast<int64_t>(fact_number(r, "max_prompt_tokens", s, 1, 1e6));
  d.max_total_tokens = static_cast<int64_t>(fact_number(r, "max_total_tokens", s, 2, 1e6));
  if (auto err = r.finish()) {
    parent.fail_with(*err);
    return {};
  }
  auto sampler = make_length_sampler(d);
  if (!sampler.ok()) {
    parent.fail_with(sampler.error());
    return {};
  }
  return sampler.value();
}

}  // namespace

Result<ServingAssumptions> parse_serving_assumptions(std::string_view text,
                                                     const std::string& where) {
  auto doc = parse_json_text(text, where, kMaxJsonBytes);
  if (!doc.ok()) return doc.error();
  const nlohmann::json& j = doc.value();
  if (!j.is_object()) return make_error(Errc::schema_error, where + ": expected a JSON object");
  std::set<std::string> sources;
  if (j.contains("sources") && j["sources"].is_object()) {
    for (const auto& item : j["sources"].items()) sources.insert(item.key());
  }
  if (!j.contains("serving")) return make_error(Errc::schema_error, where + ": serving: missing");
  JsonReader r(j["serving"], where, "serving");
  r.ignore("note");
  ServingAssumptions out;
  out.kv_block_tokens = static_cast<int64_t>(fact_number(r, "kv_block_tokens", sources, 1, 1024));
  out.pcie_allreduce_fraction_4 = fact_number(r, "pcie_allreduce_fraction_4", sources, 0.05, 1.0);
  out.pcie_allreduce_fraction_8 = fact_number(r, "pcie_allreduce_fraction_8", sources, 0.05, 1.0);
  out.pcie_allreduce_latency_s = fact_number(r, "pcie_allreduce_latency_s", sources, 0, 1e-2);
  if (const nlohmann::json* rt = r.object("runtimes", true)) {
    JsonReader rr(*rt, where, "serving.runtimes");
    out.vllm = read_profile(rr, "vllm", Runtime::vllm, sources);
    out.trtllm = read_profile(rr, "trtllm", Runtime::trtllm, sources);
    out.sglang = read_profile(rr, "sglang", Runtime::sglang, sources);
    out.hf = read_profile(rr, "hf", Runtime::hf, sources);
    out.llamacpp = read_profile(rr, "llamacpp", Runtime::llamacpp, sources);
    if (auto err = rr.finish()) r.fail_with(*err);
  }
  out.sharegpt = read_sharegpt(r, sources);
  if (auto err = r.finish()) return *err;
  return out;
}

Result<ServingAssumptions> serving_assumptions(const std::vector<DataFile>& files) {
  for (const auto& f : files) {
    if (f.path == "assumptions.json") return parse_serving_assumptions(f.text, f.path);
  }
  return make_error(Errc::not_found,
                    "assumptions.json: not among the data files (serving constants live there)");
}

}  // namespace gpuplan
