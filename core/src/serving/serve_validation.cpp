// Serving predictions against published measurements (measured_serving_dev.csv's columns).
// Each row names a model, GPU, TP degree, precision, runtime, lengths and a metric; the row is
// mapped onto the serving model or skipped with the reason. No per-row constant is fitted: the
// runtime profile, efficiencies and GPU specs are those every other prediction uses.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "gpuplan/serve_validation.h"
#include "gpuplan/serve_replica.h"
#include "gpuplan/serve_sim.h"
#include "gpuplan/sharegpt.h"

namespace gpuplan {
namespace {

constexpr size_t kMaxServingCsvBytes = 4 * 1024 * 1024;
const std::vector<std::string> kColumns = {"id",
                                           "source_kind",
                                           "model",
                                           "gpu",
                                           "num_gpus",
                                           "tp",
                                           "precision",
                                           "framework",
                                           "input_len",
                                           "output_len",
                                           "concurrency_or_batch",
                                           "request_rate",
                                           "metric",
                                           "value",
                                           "notes"};

struct Record {
  std::vector<std::string> fields;
  int line = 0;
};

// RFC 4180 records over the whole text: quoted fields may hold commas, quotes ("") and newlines.
Result<std::vector<Record>> read_records(std::string_view text, const std::string& where) {
  std::vector<Record> out;
  Record rec{{std::string()}, 1};
  int line = 1;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        rec.fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        rec.fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rec.fields.emplace_back();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (rec.fields.size() > 1 || !rec.fields[0].empty()) out.push_back(rec);
      rec = Record{{std::string()}, ++line};
    } else {
      rec.fields.back() += c;
    }
  }
  if (quoted)
    return make_error(Errc::parse_error,
                      where + ":" + std::to_string(rec.line) + ": unterminated quoted field");
  if (rec.fields.size() > 1 || !rec.fields[0].empty()) out.push_back(rec);
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
bool contains(const std::string& haystack, const char* needle) {
  return lower(haystack).find(needle) != std::string::npos;
}

// A plain positive number ("2048"); nullopt for "", "~20000 (+-15%)", "inf" and the like.
std::optional<double> number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v) || v <= 0) return std::nullopt;
  return v;
}

// A length as posts state it: a number, or "~20000 (+-15%)", lengths drawn evenly around their
// mean, which is what a step of the run sees on average: 20000.
std::optional<double> length_tokens(std::string s) {
  if (!s.empty() && s[0] == '~') s.erase(0, 1);
  return number(s.substr(0, s.find(" (")));
}

// The digits at the start of `s` ("1500; ..." -> 1500), if any.
std::optional<double> leading_number(const std::string& s) {
  size_t end = 0;
  while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
  return number(s.substr(0, end));
}

// Published model names through the catalog's one resolver (resolve_model: vendor prefixes,
// -Instruct, checkpoint suffixes); the first Llama's 7B and 13B onto Llama 2's shapes. A remark
// in parentheses after the name ("DeepSeek-R1 (671B MoE)") is not part of it.
const Model* find_model(const Catalog& c, const std::string& name) {
  if (auto m = resolve_model(c, name)) return m->model;
  const size_t remark = name.find(" (");
  if (remark != std::string::npos && remark > 0) {
    if (auto m = resolve_model(c, name.substr(0, remark))) return m->model;
  }
  const std::string n = lower(name);
  const std::vector<std::pair<const char*, const char*>> table = {{"llama 7b", "llama-2-7b"},
                                                                  {"llama 13b", "llama-2-13b"}};
  for (const auto& [k, id] : table) {
    if (n == k) return c.find_model(id);
  }
  return nullptr;
}

// Published GPU labels onto catalog ids (TensorRT-LLM's tables print nvidia-smi names; the
// llama.cpp benchmark README writes "3090 24GB", "RTX A6000 48GB", "RTX 6000 Ada 48GB").
const Gpu* find_gpu(const Catalog& c, const std::string& label) {
  const std::string n = lower(label);
  // "A100 80GB" alone is the SXM or the PCIe card: the row does not say which.
  if (n.rfind("a100 80gb", 0) == 0 && n.find("pcie") == std::string::npos &&
      n.find("sxm") == std::string::npos)
    return nullptr;
  if (const Gpu* g = c.find_gpu(label)) return g;
  const std::vector<std::pair<const char*, const char*>> table = {
      {"3090", "rtx-3090"},
      {"rtx 3090", "rtx-3090"},
      {"4090", "rtx-4090"},
      {"rtx 4090", "rtx-4090"},
      {"rtx a6000", "rtx-a6000"},
      {"rtx 6000 ada", "rtx-6000-ada"},
      {"h100 pcie", "h100-pcie-80gb"},
      {"h100", "h100-sxm5-80gb"},
      {"h200", "h200-sxm-141gb"},
      {"a100-pcie", "a100-pcie-80gb"},
      {"a100 pcie", "a100-pcie-80gb"},
      {"a100", "a100-sxm4-80gb"},
      {"l40s", "l40s"},
      {"b200", "b200-sxm"},
      {"gb200", "gb200"},
      {"gb300", "gb300"},
      {"b300", "b300-sxm"},
      {"rtx 6000 pro blackwell server", "rtx-pro-6000-blackwell-server"},
      {"a40", "a40"}};
  // GH200 is not in the catalog; "8xH100 or 8xA100" names no one GPU.
  if (n.find("gh200") != std::string::npos || n.find(" or ") != std::string::npos) return nullptr;
  for (const auto& [key, id] : table) {
    if (n.rfind(key, 0) == 0) return c.find_gpu(id);
  }
  return nullptr;
}

// Whether `text` names multi-token prediction as used: "mtp" not right after "no " or
// "without " ("no MTP", "without MTP" say the run did not use it).
bool uses_mtp(const std::string& text) {
  for (size_t at = text.find("mtp"); at != std::string::npos; at = text.find("mtp", at + 3)) {
    const std::string before = text.substr(0, at);
    auto ends = [&](const std::string& w) {
      return before.size() >= w.size() &&
             before.compare(before.size() - w.size(), w.size(), w) == 0;
    };
    if (!ends("no ") && !ends("without ")) return true;
  }
  return false;
}

// Apple silicon ("M2 Ultra 76-Core GPU 192GB"): llama.cpp's Metal backend, not a CUDA GPU.
bool apple_gpu(const std::string& label) {
  const std::string n = lower(label);
  return n.size() > 2 && n[0] == 'm' && std::isdigit(static_cast<unsigned char>(n[1])) &&
         (n.find(" gpu") != std::string::npos || n.find("-core") != std::string::npos);
}

// Why a row cannot be predicted, or "" when it can.
std::string unsupported(const ServingRow& r) {
  const std::string both = lower(r.framework + " " + r.notes + " " + r.model);
  if (uses_mtp(both)) return "flagged in its notes or framework (mtp): not for scoring";
  for (const char* flag :
       {"speculative", "eagle", "dspark", "diffusion", "typo", "doubtful", "flag)"}) {
    if (both.find(flag) != std::string::npos)
      return std::string("flagged in its notes or framework (") + flag + "): not for scoring";
  }
  for (const char* f : {"disaggregat", "wide-ep"}) {
    if (both.find(f) != std::string::npos)
      return std::string("a deployment gpuplan does not model (") + f + ")";
  }
  const std::string fw = lower(r.framework);
  if (fw.find("tensorrt-llm") == std::string::npos && fw.find("vllm") == std::string::npos &&
      fw.find("gpt-fast") == std::string::npos && fw.find("sglang") == std::string::npos &&
      fw.find("llama.cpp") == std::string::npos) {
    return "runtime '" + r.framework +
           "' has no gpuplan profile (vllm, trtllm, sglang, hf, llamacpp)";
  }
  if (apple_gpu(r.gpu)) return "GPU '" + r.gpu + "' is Apple silicon (Metal): not a CUDA GPU";
  // llama.cpp made layer split its multi-GPU default in January 2024 (ggml-org/llama.cpp PR
  // #4766, slaren 2024-01-07: "I have made the layer split mode the default ... (slower tg than
  // row split)"); a 2023 build split every matrix by rows across the GPUs.
  const auto gpus = number(r.num_gpus);
  if (fw.find("llama.cpp") != std::string::npos && fw.find("2023") != std::string::npos && gpus &&
      *gpus > 1)
    return "a deployment gpuplan does not model (llama.cpp before 2024 split every matrix by rows "
           "across GPUs, not layers)";
  // ROCm builds of vLLM and SGLang schedule as their CUDA builds do; others on ROCm are not
  // modelled.
  const bool rocm_engine =
      fw.find("vllm") != std::string::npos || fw.find("sglang") != std::string::npos;
  if (fw.find("intel") != std::string::npos ||
      (fw.find("rocm") != std::string::npos && !rocm_engine))
    return "not a CUDA GPU runtime";
  return "";
}

// The weights a row runs when its precision does not say: those its model name's checkpoint
// suffix states (-FP8, -AWQ), else the zoo entry's published checkpoint (defaults.weights:
// DeepSeek's fp8, GPT-OSS's MXFP4), else 16-bit. nullopt for bitsandbytes' NF4 (not modelled).
std::optional<WeightFormat> checkpoint_weights(const Catalog& c, const ServingRow& r) {
  const auto match = resolve_model(c, r.model);
  if (!match) return WeightFormat::bf16;
  if (match->format == CheckpointFormat::bnb_4bit) return std::nullopt;
  if (auto named = checkpoint_name_weights(match->format)) return named;
  return checkpoint_weight_format(*match->model);
}

// The weight and KV formats of a row, from its precision as publishers write it: "FP8", "GGUF
// Q4_K_M", a remark in parentheses ("BF16 (HF checkpoint, no quantization flag)"), the KV cache's
// format alone ("KV cache FP8 (weights: model default, not restated)"), or nothing; weights it
// does not state are the checkpoint's (checkpoint_weights).
std::optional<std::pair<WeightFormat, KvFormat>> formats(const Catalog& c, const ServingRow& r) {
  std::string p = lower(r.precision);
  // FP8 KV where the notes say so, and for NVIDIA ModelOpt FP8 and FP4 checkpoints, which
  // quantise the KV cache too (their hf_quant_config.json sets kv_cache_quant_algo FP8, e.g.
  // nvidia/Llama-3.3-70B-Instruct-NVFP4: quant_algo NVFP4, group_size 16), and TensorRT-LLM's
  // KV dtype "auto" takes the checkpoint's.
  const bool modelopt_checkpoint =
      (p == "fp8" || p == "fp4" || p == "nvfp4") && contains(r.notes, "modelopt");
  const bool fp8_kv =
      contains(r.notes, "kv cache fp8") || contains(r.notes, "fp8 kv cache") || modelopt_checkpoint;
  KvFormat kv = fp8_kv || contains(p, "fp8 kv cache") ? KvFormat::fp8 : KvFormat::bf16;
  if (p.rfind("kv cache ", 0) == 0) {
    if (p.rfind("kv cache fp8", 0) == 0) kv = KvFormat::fp8;
    p.clear();
  }
  p = p.substr(0, p.find(" ("));
  // A runtime backend that runs FP8 checkpoints only (vLLM's HPC-Ops fused MoE: "The HPC-Ops MoE
  // backend supports FP8 models only") states the weights where the precision column does not.
  if (p.empty() && contains(r.framework, "fp8 moe")) p = "fp8";
  if (p.empty() || p == "not stated") {
    if (auto w = checkpoint_weights(c, r)) return std::make_pair(*w, kv);
    return std::nullopt;
  }
  if (p == "fp16" || p == "f16") return std::make_pair(WeightFormat::fp16, kv);
  // llama.cpp's GGUF files ("GGUF Q4_K_M"; llama.cpp keeps an F16 KV cache).
  if (p.rfind("gguf ", 0) == 0) {
    if (auto w = parse_weight_format(p.substr(5))) return std::make_pair(*w, KvFormat::bf16);
  }
  if (p == "bf16") return std::make_pair(WeightFormat::bf16, kv);
  if (p == "fp8" || p == "fp8 weights") return std::make_pair(WeightFormat::fp8, kv);
  // NVIDIA's FP4 checkpoints (TensorRT-LLM's perf tables' "FP4" column, nvidia/*-FP4 ModelOpt
  // checkpoints) are NVFP4.
  if (p == "fp4" || p == "nvfp4" || p.rfind("fp4 weights", 0) == 0)
    return std::make_pair(WeightFormat::nvfp4, kv);
  if (p == "mxfp4") return std::make_pair(WeightFormat::mxfp4, kv);
  if (p.rfind("int8 weight-only", 0) == 0) return std::make_pair(WeightFormat::int8, kv);
  if (p.rfind("int4 weight-only", 0) == 0) return std::make_pair(WeightFormat::int4, kv);
  return std::nullopt;
}

// The replica's parallel layout as the framework column or notes write it: "TP8 EP8, attention
// DP" (TensorRT-LLM's blog), "TEP=8" (vLLM: expert parallel over the tensor-parallel GPUs), "EP=8",
// "--ep-size 8", "enable-expert-parallel" (vLLM: every GPU of the replica), SGLang's "dp
// attention"; expert parallelism over more GPUs than the tensor-parallel group ("DP8 EP8") is
// attention DP over them. TensorRT-LLM's "max_batch_size N" is its per-GPU batch limit.
void read_layout(const ServingRow& r, ServeConfig& cfg) {
  const std::string fw = lower(r.framework + " " + r.notes);
  auto has = [&](std::initializer_list<const char*> words) {
    return std::any_of(words.begin(), words.end(),
                       [&](const char* w) { return fw.find(w) != std::string::npos; });
  };
  auto after = [&](std::initializer_list<const char*> words) -> std::optional<double> {
    for (const char* w : words) {
      for (size_t at = fw.find(w); at != std::string::npos; at = fw.find(w, at + 1)) {
        if (auto n = leading_number(fw.substr(at + std::string(w).size()))) return n;
      }
    }
    return std::nullopt;
  };
  cfg.attention_dp = has(
      {"attention dp", "dp attention", "dp-attention", "attention_dp", "attention data parallel"});
  if (auto tep = after({"tep=", "tep "})) {
    cfg.tp = static_cast<int>(*tep);
    cfg.ep = cfg.tp;
  } else if (auto ep = after({" ep=", " ep ", " ep", "(ep", "ep-size ", "ep_size ", "ep_size="})) {
    cfg.ep = static_cast<int>(*ep);
  } else if (has({"expert-parallel", "expert parallel"})) {
    cfg.ep = 0;  // all of the replica's GPUs
  }
  if (cfg.ep > cfg.tp) {
    cfg.tp = cfg.ep;
    cfg.attention_dp = true;
  }
  if (auto b = after({"max_batch_size "})) cfg.max_num_seqs = static_cast<int64_t>(*b);
  // Pipeline stages: TensorRT-LLM's perf tables' "TP1,PP4" column, "pipeline parallel PP=4".
  if (auto pp = after({"pipeline parallel pp=", "pp_size "})) cfg.pp = static_cast<int>(*pp);
}

Runtime runtime_of(const ServingRow& r) {
  const std::string fw = lower(r.framework);
  if (fw.find("tensorrt-llm") != std::string::npos) return Runtime::trtllm;
  if (fw.find("sglang") != std::string::npos) return Runtime::sglang;
  if (fw.find("llama.cpp") != std::string::npos) return Runtime::llamacpp;
  return Runtime::vllm;  // vLLM, and gpt-fast (torch.compile + CUDA graphs): the vLLM profile
}

// A prediction in the row's unit, or why there is none.
struct Predicted {
  double value = 0;
  std::string reason;
};

// The row's lengths: fixed (in, out), or a dataset's drawn by `dataset` (ShareGPT's).
struct RowLengths {
  double in = 0, out = 0;
  const LengthSampler* dataset = nullptr;
};

ServeWorkload workload_for(const RowLengths& l) {
  ServeWorkload w;
  w.prompt_tokens = l.in;
  w.output_tokens = l.out;
  if (l.dataset) use_dataset_lengths(w, *l.dataset);
  return w;
}

// Whether a row's notes call its latency figure a median ("Median ITL (ms)").
bool says_median(const ServingRow& r) {
  return lower(r.notes).find("median") != std::string::npos;
}

// A simulated run's figure in the row's metric, for one replica. vLLM's benchmark prints mean and
// median TTFT, TPOT (per request) and ITL (every gap between tokens); a row whose notes call its
// figure the median takes the median. A busy run's median ITL is a decode step alone, its mean
// also holds the steps slowed by other requests' prompts.
double metric_of(const SimulationResult& v, const ServingRow& r) {
  const bool median = says_median(r);
  if (r.metric == "ttft_ms_mean") return v.ttft_s.mean * 1000;
  if (r.metric == "ttft_ms_median") return v.ttft_s.p50 * 1000;
  if (r.metric == "itl_ms") return (median ? v.itl_s.p50 : v.itl_s.mean) * 1000;
  if (r.metric == "tpot_ms_mean") return (median ? v.tpot_s.p50 : v.tpot_s.mean) * 1000;
  if (r.metric == "req_per_s") return v.requests_per_s;
  return v.output_tokens_per_s;
}

double simulate_metric(const ReplicaModel& rep, const ServingRow& r, const RowLengths& l,
                       double rate, bool& ok) {
  ServeWorkload w = workload_for(l);
  w.rate_per_s = rate;
  w.requests = 500;  // the online table's 500 requests
  auto s = simulate(rep, w);
  ok = s.ok();
  return ok ? metric_of(s.value(), r) : 0;
}

// One replica's figure scaled to the row's unit: totals over the replicas, per GPU, or as is.
double in_row_unit(double v, const ServingRow& r, double replicas, double gpus) {
  if (r.metric == "req_per_s" || r.metric == "output_tokens_per_s_total") return v * replicas;
  if (r.metric == "output_tokens_per_s_per_gpu") return v * replicas / gpus;
  return v;
}

// The requests a run states: num_requests=N in the notes (trtllm-bench), or "N requests" in the
// dataset column ("synthetic, 150 requests"); nullopt when neither says.
std::optional<int> stated_requests(const ServingRow& r) {
  const size_t at = lower(r.notes).find("num_requests=");
  auto n = at == std::string::npos ? std::nullopt : leading_number(r.notes.substr(at + 13));
  const std::string d = lower(r.dataset);
  const size_t word = d.find(" requests");
  if (!n && word != std::string::npos) {
    size_t start = word;
    while (start > 0 && std::isdigit(static_cast<unsigned char>(d[start - 1]))) --start;
    n = leading_number(d.substr(start, word - start));
  }
  if (!n || *n > 100000) return std::nullopt;
  return static_cast<int>(*n);
}

// A row without a request rate, as vLLM's benchmark_serving.py runs it by default
// (vllm-project/vllm@0049e29c benchmarks/benchmark_serving.py: "--request-rate ... By default
// <request_rate> is inf", "--num-prompts ... By default <num_prompts> is 1000"): every request
// ready at once, the stated number or 1000 of them, at most the stated concurrency in flight
// (--max-concurrency: the client holds the rest, so their TTFT starts when they are sent).
double burst_run_metric(const ReplicaModel& rep, const ServingRow& r, const RowLengths& l,
                        bool& ok) {
  ServeWorkload w = workload_for(l);
  w.rate_per_s = 0;
  w.requests = stated_requests(r).value_or(1000);
  if (auto b = number(r.batch)) w.concurrency = static_cast<int>(std::min(*b, 1e6));
  auto s = simulate(rep, w);
  ok = s.ok();
  return ok ? metric_of(s.value(), r) : 0;
}

// The requests a burst row runs: those it states; else, for vLLM and SGLang, their serving
// benchmarks' default (vllm-project/vllm@0049e29c benchmarks/benchmark_serving.py and SGLang's
// python/sglang/bench_serving.py: "--num-prompts ... default=1000", request rate inf); nullopt
// for a runtime whose benchmark states no default.
std::optional<int> burst_requests(const ServingRow& r, Runtime runtime) {
  if (auto n = stated_requests(r)) return n;
  if (runtime == Runtime::vllm || runtime == Runtime::sglang) return 1000;
  return std::nullopt;
}

// Output tokens/s of one replica with all requests at once: at the batch the KV cache allows,
// capped by a stated concurrency or static batch. A run of a known number of requests is
// simulated to its end: with fixed lengths the batch moves in waves (its prompts prefill
// together, then it decodes), and the last requests run in a batch that is no longer full,
// which a steady-state formula does not see.
double burst_metric(ReplicaModel rep, const ServingRow& r, double in, double out) {
  if (auto b = number(r.batch))
    rep.max_num_seqs = std::min<int64_t>(rep.max_num_seqs, static_cast<int64_t>(*b));
  if (contains(r.framework, "static")) rep.profile.continuous_batching = false;
  if (const auto n = burst_requests(r, rep.config.runtime)) {
    ServeWorkload w;
    w.rate_per_s = 0;  // all at once
    w.prompt_tokens = in;
    w.output_tokens = out;
    w.requests = *n;
    auto s = simulate(rep, w);
    if (s.ok()) return s.value().output_tokens_per_s;
  }
  return burst_output_tokens_per_s(rep, in, out);
}

Predicted predict(const ReplicaModel& rep, const ServingRow& r, const RowLengths& l, double gpus) {
  const double in = l.in, out = l.out;
  const double replicas = gpus / (rep.config.tp * rep.config.pp);
  const auto rate = number(r.rate);
  const bool online = rate.has_value() && r.rate != "inf";
  if (r.metric == "decode_tokens_per_s_batch1") {
    StepLoad load;
    load.decode_seqs = 1;
    load.decode_context = in + out / 2;
    load.one_rank = true;
    return {1.0 / step_time(rep, load).total_s, ""};
  }
  if (online) {
    bool ok = false;
    const double v = simulate_metric(rep, r, l, *rate / replicas, ok);
    if (!ok) return {0, "the simulation could not run (a sequence does not fit)"};
    return {in_row_unit(v, r, replicas, gpus), ""};
  }
  if (l.dataset) {
    bool ok = false;
    const double v = burst_run_metric(rep, r, l, ok);
    if (!ok) return {0, "the simulation could not run (a sequence does not fit)"};
    return {in_row_unit(v, r, replicas, gpus), ""};
  }
  const double tput = burst_metric(rep, r, in, out) * replicas;
  if (tput <= 0) return {0, "not even one sequence fits the KV cache"};
  if (r.metric == "output_tokens_per_s_total") return {tput, ""};
  if (r.metric == "output_tokens_per_s_per_gpu") return {tput / gpus, ""};
  if (r.metric == "req_per_s") return {tput / out, ""};
  // A mean TPOT at a fixed batch is the batch over its token rate; a median is simulated below.
  const bool median = says_median(r);
  if ((r.metric == "tpot_ms_mean" || r.metric == "itl_ms") && number(r.batch) && !median)
    return {*number(r.batch) / tput * replicas * 1000, ""};
  if (r.metric == "ttft_ms_mean" && contains(r.notes, "1st token latency")) {
    return {prefill_time_s(rep, in * number(r.batch).value_or(1)) * 1000, ""};
  }
  // Latencies of a burst (rate inf) or of a fixed concurrency over a run of requests.
  if (r.metric == "ttft_ms_mean" || r.metric == "ttft_ms_median" || r.metric == "itl_ms" ||
      r.metric == "tpot_ms_mean") {
    bool ok = false;
    const double v = burst_run_metric(rep, r, l, ok);
    if (!ok) return {0, "the simulation could not run (a sequence does not fit)"};
    return {v, ""};
  }
  return {0, "metric '" + r.metric + "' without a request rate or concurrency gpuplan can use"};
}

// A row that names its dataset instead of its lengths (both empty): ShareGPT's lengths as vLLM's
// benchmark samples them; another dataset is skipped, named.
std::string dataset_lengths(const ServingAssumptions& a, const ServingRow& r, RowLengths& l) {
  if (!r.input_len.empty() || !r.output_len.empty() || r.dataset.empty()) return "";
  if (r.metric == "decode_tokens_per_s_batch1") return "";
  if (!names_sharegpt(r.dataset))
    return "dataset '" + r.dataset +
           "' states no input/output lengths and gpuplan has no length distribution for it "
           "(ShareGPT only)";
  if (!a.sharegpt.ready()) return "dataset ShareGPT: no ShareGPT lengths in the assumptions";
  l.dataset = &a.sharegpt;
  l.in = a.sharegpt.dataset.prompt_mean_tokens;
  l.out = a.sharegpt.dataset.output_mean_tokens;
  return "";
}

// Resolves a row to a replica, or says why it cannot.
std::string resolve(const Catalog& c, const ServingAssumptions& a, const ServingRow& r,
                    std::optional<ReplicaModel>& rep, RowLengths& lengths, double& gpus) {
  if (auto why = unsupported(r); !why.empty()) return why;
  const Model* m = find_model(c, r.model);
  if (!m) return "model '" + r.model + "' is not in the zoo";
  const Gpu* g = find_gpu(c, r.gpu);
  if (!g) return "GPU '" + r.gpu + "' is not in the catalog";
  auto f = formats(c, r);
  if (!f) {
    std::string known;
    for (WeightFormat w : kWeightFormats)
      known += (known.empty() ? "" : ", ") + std::string(weight_format_name(w));
    return "precision '" + r.precision + "' is not a gpuplan weight format (" + known + ")";
  }
  if (auto why = dataset_lengths(a, r, lengths); !why.empty()) return why;
  auto i = length_tokens(r.input_len);
  auto o = length_tokens(r.output_len);
  const bool decode = r.metric == "decode_tokens_per_s_batch1";
  if (lengths.dataset) {
    i = lengths.in;
    o = lengths.out;
  }
  if (!o && decode) o = 1.0;  // single-stream rate: the prompt is the context
  // A TTFT waits for the first token only: a burst's prefill does not depend on what follows.
  if (!o && r.output_len.empty() && (r.metric == "ttft_ms_mean" || r.metric == "ttft_ms_median"))
    o = 1.0;
  if (!i && r.input_len.empty() && (r.metric == "tpot_ms_mean" || r.metric == "itl_ms"))
    return "input length not stated: a decode step's time depends on the context it reads";
  // A generation run without a prompt (llama-bench tg: input 0) or with none stated.
  if (!i && decode && (r.input_len.empty() || r.input_len == "0")) i = 0.0;
  if (!i || !o)
    return "input/output length '" + r.input_len + "'/'" + r.output_len + "' is not a plain number";
  lengths.in = *i;
  lengths.out = *o;
  const auto n = number(r.num_gpus), t = number(r.tp);
  if (!n && !t) return "neither num_gpus nor tp is given";
  gpus = n ? *n : *t;
  ServeConfig cfg;
  cfg.tp = static_cast<int>(t ? *t : gpus);
  cfg.weights = f->first;
  cfg.kv = f->second;
  cfg.runtime = runtime_of(r);
  read_layout(r, cfg);
  if (static_cast<int>(gpus) % (cfg.tp * cfg.pp) != 0)
    return "num_gpus is not a multiple of the replica's GPUs (tp x pp, or ep under attention DP)";
  // vLLM with chunked prefill off takes whole prompts, up to max(max_model_len, 2048) tokens a
  // step (vllm/config.py, SchedulerConfig.__post_init__), so a burst's prompts prefill together.
  const std::string said = r.framework + " " + r.notes + " " + r.source;
  if (cfg.runtime == Runtime::vllm &&
      (contains(said, "no chunked prefill") || contains(said, "disable chunked prefill")))
    cfg.max_num_batched_tokens = std::max<int64_t>(m->transformer.max_positions, 2048);
  // The KV-cache memory fraction the run states (TensorRT-LLM's kv_cache_free_gpu_mem_fraction).
  const size_t at = lower(r.notes).find("kv_cache_free_gpu_mem_fraction ");
  if (at != std::string::npos && cfg.runtime == Runtime::trtllm) {
    if (auto x = number(r.notes.substr(at + 31, 4))) cfg.memory_fraction = *x <= 1 ? *x : 0;
  }
  // gpt-fast runs the vLLM profile on its own compiled kernels (torch.compile), not vLLM's GEMMs.
  const bool gpt_fast = contains(lower(r.framework), "gpt-fast");
  cfg.runtime_gemm_rates = !gpt_fast;
  auto built = build_replica(*m, *g, cfg, a, c.efficiencies);
  if (!built.ok()) return built.error().message;
  rep = std::move(built).value();
  // The TensorRT-LLM profile's per-request host time is its PyTorch backend's Python executor;
  // runs of TensorRT engines (before v0.17 the only backend) ran the C++ executor.
  if (cfg.runtime == Runtime::trtllm && !contains(said, "pytorch"))
    rep->profile.host_per_sequence_s = 0;
  // gpt-fast runs on the vLLM profile, but its mixture-of-experts block is its own compiled code
  // (an index-gather of the experts' weights), not vLLM's fused_moe kernels.
  if (gpt_fast) rep->profile.moe_extra_kernels_per_layer = 0;
  return "";
}

// Mean absolute percentage error by key.
std::vector<std::tuple<std::string, double, int>> mape_by(
    const std::vector<ServingPrediction>& rows, std::string (*key)(const ServingPrediction&)) {
  std::map<std::string, std::pair<double, int>> acc;
  for (const auto& p : rows) {
    auto& a = acc[key(p)];
    a.first += std::fabs(p.error);
    a.second += 1;
  }
  std::vector<std::tuple<std::string, double, int>> out;
  for (const auto& [k, v] : acc) out.emplace_back(k, v.first / v.second, v.second);
  return out;
}

std::string group_of(const ServingRow& r) {
  if (r.metric == "decode_tokens_per_s_batch1") return "batch-1 decode tokens/s";
  const bool online = number(r.rate).has_value() && r.rate != "inf";
  if (online && r.metric != "req_per_s" && r.metric.rfind("output_tokens", 0) != 0)
    return kServingLatencyGroup;
  if (r.metric.rfind("output_tokens", 0) == 0) return kServingThroughputGroup;
  return "other";
}

ServingRow to_row(const Record& rec, const std::map<std::string, size_t>& col) {
  auto f = [&](const char* name) { return rec.fields[col.at(name)]; };
  ServingRow r;
  r.line = rec.line;
  r.id = f("id");
  r.source_kind = f("source_kind");
  r.model = f("model");
  r.gpu = f("gpu");
  r.num_gpus = f("num_gpus");
  r.tp = f("tp");
  r.precision = f("precision");
  r.framework = f("framework");
  r.input_len = f("input_len");
  r.output_len = f("output_len");
  if (col.count("dataset")) r.dataset = f("dataset");
  r.batch = f("concurrency_or_batch");
  r.rate = f("request_rate");
  r.metric = f("metric");
  r.notes = f("notes");
  if (col.count("source")) r.source = f("source");
  return r;
}

// The serving setup of a row as a run's ground.
RunGround serving_ground(const Catalog& c, const ServingRow& r, double gpus) {
  const auto f = formats(c, r);
  const auto tp = number(r.tp);
  return serving_run_ground(
      find_model(c, r.model), f ? weight_format_name(f->first) : lower(r.precision),
      tp ? static_cast<int>(*tp) : 1, find_gpu(c, r.gpu), static_cast<int>(gpus), runtime_of(r));
}

// Each row's band from the other sources' validated rows: the development rows the catalog holds
// (data/accuracy.json) and the file's own, a file row replacing the catalog's of the same source
// and id; and the coverage.
void serving_bands(const Catalog& catalog, ServingReport& rep) {
  std::vector<AccuracyRow> table;
  std::set<std::pair<std::string, std::string>> in_file;
  for (const auto& p : rep.rows) {
    if (p.source.empty()) continue;
    table.push_back({p.row.id, p.source, p.family, p.ground, p.error});
    in_file.emplace(p.source, p.row.id);
  }
  for (const auto& r : catalog.accuracy.serving) {
    if (!in_file.count({r.source, r.id})) table.push_back(r);
  }
  std::vector<BandedRow> banded;
  for (auto& p : rep.rows) {
    // A row of no stated source is a new one: its band rests on every validated row.
    p.band = error_band(table, p.family, p.ground, p.source);
    if (p.band.rows > 0) {
      p.measured_range = measured_range(p.predicted, p.band);
      p.in_band = p.row.value >= p.measured_range.low && p.row.value <= p.measured_range.high;
    }
    banded.push_back({p.source.empty() ? "(no source)" : p.source, p.family, p.row.value,
                      p.measured_range.low, p.measured_range.high, p.band.rows > 0, p.error});
  }
  rep.coverage = band_coverage(banded);
}

}  // namespace

bool is_serving_csv(std::string_view text) {
  const size_t end = text.find('\n');
  const std::string header(text.substr(0, end == std::string_view::npos ? text.size() : end));
  return header.rfind("id,source_kind,", 0) == 0 && header.find(",metric,") != std::string::npos;
}

Result<ServingReport> validate_serving_csv(const Catalog& catalog,
                                           const ServingAssumptions& serving, std::string_view text,
                                           const std::string& where) {
  if (text.size() > kMaxServingCsvBytes) {
    return make_error(Errc::too_large, where + ": file is " + std::to_string(text.size()) +
                                           " bytes; the limit is " +
                                           std::to_string(kMaxServingCsvBytes) + " bytes");
  }
  auto records = read_records(text, where);
  if (!records.ok()) return records.error();
  const auto& recs = records.value();
  if (recs.empty()) return make_error(Errc::schema_error, where + ": empty file (no header)");
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < recs[0].fields.size(); ++i) col[recs[0].fields[i]] = i;
  for (const auto& name : kColumns) {
    if (!col.count(name))
      return make_error(Errc::schema_error, where + ":1: header lacks the column '" + name + "'");
  }
  ServingReport rep;
  for (size_t k = 1; k < recs.size(); ++k) {
    if (recs[k].fields.size() != recs[0].fields.size()) {
      rep.skipped.emplace_back(recs[k].fields[0],
                               "line " + std::to_string(recs[k].line) + ": expected " +
                                   std::to_string(recs[0].fields.size()) + " columns, got " +
                                   std::to_string(recs[k].fields.size()));
      continue;
    }
    ServingRow row = to_row(recs[k], col);
    const auto value = number(recs[k].fields[col.at("value")]);
    if (!value) {
      rep.skipped.emplace_back(
          row.id, "value '" + recs[k].fields[col.at("value")] + "' is not a positive number");
      continue;
    }
    row.value = *value;
    std::optional<ReplicaModel> replica;
    RowLengths lengths;
    double gpus = 0;
    std::string why = resolve(catalog, serving, row, replica, lengths, gpus);
    Predicted p;
    if (why.empty()) p = predict(*replica, row, lengths, gpus);
    if (!why.empty() || !p.reason.empty()) {
      rep.skipped.emplace_back(row.id, why.empty() ? p.reason : why);
      continue;
    }
    ServingPrediction sp;
    sp.row = row;
    sp.group = group_of(row);
    sp.family = serving_band_family(sp.group, replica->attention_dp > 1);
    sp.predicted = p.value;
    sp.error = (p.value - row.value) / row.value;
    sp.source = row.source.empty() ? "" : source_key(row.source);
    sp.ground = serving_ground(catalog, row, gpus);
    rep.rows.push_back(std::move(sp));
  }
  serving_bands(catalog, rep);
  rep.by_metric = mape_by(rep.rows, [](const ServingPrediction& p) { return p.row.metric; });
  rep.by_source = mape_by(rep.rows, [](const ServingPrediction& p) { return p.row.source_kind; });
  rep.by_group = mape_by(rep.rows, [](const ServingPrediction& p) { return p.group; });
  return rep;
}

std::string serving_band_family(const std::string& group, bool attention_dp) {
  return attention_dp ? group + ", attention DP" : group;
}

RunGround serving_run_ground(const Model* model, const std::string& precision, int tp,
                             const Gpu* gpu, int gpus, Runtime runtime) {
  RunGround g;
  // Serving rows are not split by experts (a decode step reads what it touches either way); a
  // hybrid's state-space mixers are a workload of their own.
  g.kind = model && model_kind(*model) == "hybrid" ? "hybrid" : "decoder";
  g.precision = precision;
  g.parallel = tp > 1 ? "tp" : "single";
  if (gpu) g.arch = gpu->architecture.substr(0, gpu->architecture.find(' '));
  g.gpus = std::max(1, gpus);
  g.runtime = runtime_name(runtime);
  return g;
}

}  // namespace gpuplan
