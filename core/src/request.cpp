#include "gpuplan/request.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace gpuplan {
namespace {

Error bad_value(const std::string& key, const std::string& value, const std::string& expected) {
  return make_error(Errc::invalid_argument,
                    "--" + key + ": '" + value + "' is not " + expected);
}

template <class E>
Result<E> parse_enum(const std::string& key, const std::string& value,
                     std::optional<E> (*parse)(const std::string&), const std::string& choices) {
  if (auto e = parse(value)) return *e;
  return bad_value(key, value, "one of " + choices);
}

}  // namespace

const std::vector<std::string>& request_keys() {
  static const std::vector<std::string> keys = {
      "model", "mode", "batch", "micro-batch", "seq", "resolution", "precision", "optimizer",
      "checkpointing", "checkpoint-every", "attention", "memory-format", "grad-reduce", "dropout", "compile", "fused-loss", "dp", "zero",
      "tp", "sp", "pp", "lora-rank", "qlora", "lora-targets", "generate"};
  return keys;
}

Result<int64_t> parse_int(std::string_view text, const std::string& key) {
  const std::string value(text);
  if (text.empty() || text.size() > 19) return bad_value(key, value, "an integer");
  size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size()) return bad_value(key, value, "an integer");
  int64_t x = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return bad_value(key, value, "an integer");
    // 19 digits can pass int64: stop before the multiplication overflows.
    if (x > (std::numeric_limits<int64_t>::max() - (text[i] - '0')) / 10) return bad_value(key, value, "an integer");
    x = x * 10 + (text[i] - '0');
  }
  return text[0] == '-' ? -x : x;
}

Result<Request> parse_request(const Args& args, bool allow_other_keys) {
  Request r;
  Setup& s = r.setup;
  const auto& keys = request_keys();
  for (const auto& [key, value] : args) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      if (allow_other_keys) continue;
      return make_error(Errc::invalid_argument, "--" + key + ": unknown option");
    }
    auto integer = [&, k = key, v = value](auto& field, int64_t min, int64_t max) -> std::optional<Error> {
      auto n = parse_int(v, k);
      if (!n.ok()) return n.error();
      if (n.value() < min || n.value() > max) {
        return make_error(Errc::invalid_argument, "--" + k + ": " + v + " is out of range [" +
                                                      std::to_string(min) + ", " + std::to_string(max) + "]");
      }
      field = static_cast<std::remove_reference_t<decltype(field)>>(n.value());
      return std::nullopt;
    };
    std::optional<Error> err;
    if (key == "model") {
      if (value.empty()) err = make_error(Errc::invalid_argument, "--model: empty model id");
      r.model = value;
    } else if (key == "mode") {
      auto m = parse_enum<Mode>(key, value, parse_mode, "train, infer");
      if (m.ok()) s.mode = m.value(); else err = m.error();
    } else if (key == "precision") {
      auto p = parse_enum<Precision>(key, value, parse_precision, "fp32, tf32, fp16, bf16, amp-fp16, amp-bf16, mixed-fp16, mixed-bf16, fp8");
      if (p.ok()) s.precision = p.value(); else err = p.error();
    } else if (key == "optimizer") {
      auto o = parse_enum<Optimizer>(key, value, parse_optimizer, "sgd, sgd-momentum, adam, adamw, adam-8bit, adafactor");
      if (o.ok()) s.optimizer = o.value(); else err = o.error();
    } else if (key == "checkpointing") {
      auto c = parse_enum<Checkpointing>(key, value, parse_checkpointing,
                                            "none, selective, full, op-selective, every-k-layers");
      if (c.ok()) s.checkpointing = c.value(); else err = c.error();
    } else if (key == "checkpoint-every") {
      err = integer(s.checkpoint_every, 1, 1'000'000);
    } else if (key == "grad-reduce") {
      auto g = parse_enum<GradReduce>(key, value, parse_grad_reduce, "auto, fp32, bf16");
      if (g.ok()) s.grad_reduce = g.value(); else err = g.error();
    } else if (key == "dropout") {
      char* end = nullptr;
      const double p = std::strtod(value.c_str(), &end);
      if (value.empty() || end != value.c_str() + value.size() || !(p >= 0.0 && p < 1.0)) {
        err = bad_value(key, value, "a probability in [0, 1)");
      } else {
        s.dropout = p;
      }
    } else if (key == "attention") {
      auto a = parse_enum<Attention>(key, value, parse_attention, "auto, eager, flash");
      if (a.ok()) s.attention = a.value(); else err = a.error();
    } else if (key == "memory-format") {
      auto f = parse_enum<MemoryFormat>(key, value, parse_memory_format, "auto, nchw, channels-last");
      if (f.ok()) s.memory_format = f.value(); else err = f.error();
    } else if (key == "batch") {
      err = integer(s.global_batch, 1, 100'000'000);
    } else if (key == "micro-batch") {
      err = integer(s.micro_batch, 1, 100'000'000);
    } else if (key == "seq") {
      err = integer(s.seq_len, 1, 100'000'000);
    } else if (key == "resolution") {
      err = integer(s.resolution, 1, 100'000);
    } else if (key == "dp") {
      err = integer(s.dp, 1, 1'000'000);
    } else if (key == "zero") {
      err = integer(s.zero_stage, 0, 3);
    } else if (key == "tp") {
      err = integer(s.tp, 1, 1'000'000);
    } else if (key == "pp") {
      err = integer(s.pp, 1, 1'000'000);
    } else if (key == "sp" || key == "qlora" || key == "compile" || key == "fused-loss") {
      bool& flag = key == "sp" ? s.sequence_parallel : key == "qlora" ? s.qlora : key == "compile" ? s.compile : s.fused_loss;
      if (value == "1" || value == "true" || value.empty()) flag = true;
      else if (value == "0" || value == "false") flag = false;
      else err = bad_value(key, value, "true or false");
    } else if (key == "lora-rank") {
      err = integer(s.lora_rank, 0, 65536);
    } else if (key == "lora-targets") {
      s.lora_targets.clear();
      size_t start = 0;
      while (start <= value.size()) {
        const size_t comma = std::min(value.find(',', start), value.size());
        if (comma > start) s.lora_targets.push_back(value.substr(start, comma - start));
        start = comma + 1;
      }
      if (s.lora_targets.empty()) err = bad_value(key, value, "a comma-separated list of module names");
    } else if (key == "generate") {
      err = integer(s.generate_tokens, 0, 100'000'000);
    }
    if (err) return *err;
  }
  return r;
}

Args request_to_args(const Request& r) {
  const Setup d;
  const Setup& s = r.setup;
  Args a;
  if (!r.model.empty()) a.emplace_back("model", r.model);
  if (s.mode != d.mode) a.emplace_back("mode", mode_name(s.mode));
  if (s.global_batch != d.global_batch) a.emplace_back("batch", std::to_string(s.global_batch));
  if (s.micro_batch != d.micro_batch) a.emplace_back("micro-batch", std::to_string(s.micro_batch));
  if (s.seq_len != d.seq_len) a.emplace_back("seq", std::to_string(s.seq_len));
  if (s.resolution != d.resolution) a.emplace_back("resolution", std::to_string(s.resolution));
  if (s.precision != d.precision) a.emplace_back("precision", precision_name(s.precision));
  if (s.optimizer != d.optimizer) a.emplace_back("optimizer", optimizer_name(s.optimizer));
  if (s.checkpointing != d.checkpointing) a.emplace_back("checkpointing", checkpointing_name(s.checkpointing));
  if (s.attention != d.attention) a.emplace_back("attention", attention_name(s.attention));
  if (s.checkpoint_every != d.checkpoint_every) a.emplace_back("checkpoint-every", std::to_string(s.checkpoint_every));
  if (s.grad_reduce != d.grad_reduce) a.emplace_back("grad-reduce", grad_reduce_name(s.grad_reduce));
  if (s.compile) a.emplace_back("compile", "1");
  if (s.fused_loss) a.emplace_back("fused-loss", "1");
  if (s.dropout != d.dropout) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s.dropout);
    a.emplace_back("dropout", buf);
  }
  if (s.memory_format != d.memory_format) a.emplace_back("memory-format", memory_format_name(s.memory_format));
  if (s.dp != d.dp) a.emplace_back("dp", std::to_string(s.dp));
  if (s.zero_stage != d.zero_stage) a.emplace_back("zero", std::to_string(s.zero_stage));
  if (s.tp != d.tp) a.emplace_back("tp", std::to_string(s.tp));
  if (s.sequence_parallel) a.emplace_back("sp", "1");
  if (s.pp != d.pp) a.emplace_back("pp", std::to_string(s.pp));
  if (s.lora_rank != d.lora_rank) a.emplace_back("lora-rank", std::to_string(s.lora_rank));
  if (s.qlora) a.emplace_back("qlora", "1");
  if (s.lora_targets != d.lora_targets) {
    std::string list;
    for (const auto& t : s.lora_targets) list += (list.empty() ? "" : ",") + t;
    a.emplace_back("lora-targets", list);
  }
  if (s.generate_tokens != d.generate_tokens) a.emplace_back("generate", std::to_string(s.generate_tokens));
  return a;
}

std::string args_to_query(const Args& args) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (const auto& [k, v] : args) {
    if (!out.empty()) out += '&';
    out += k;
    out += '=';
    for (unsigned char c : v) {
      const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                         c == '-' || c == '_' || c == '.' || c == '~' || c == '/' || c == ',';
      if (plain) {
        out += static_cast<char>(c);
      } else {
        out += '%';
        out += hex[c >> 4];
        out += hex[c & 15];
      }
    }
  }
  return out;
}

Result<Args> query_to_args(std::string_view q) {
  if (q.size() > 8192) return make_error(Errc::too_large, "link state is longer than 8192 characters");
  if (!q.empty() && (q[0] == '#' || q[0] == '?')) q.remove_prefix(1);
  Args out;
  auto unhex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  size_t start = 0;
  while (start < q.size()) {
    const size_t amp = std::min(q.find('&', start), q.size());
    std::string_view part = q.substr(start, amp - start);
    start = amp + 1;
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    std::string key(part.substr(0, eq));
    std::string raw(eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1));
    std::string value;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '%') {
        if (i + 2 >= raw.size()) {
          return make_error(Errc::parse_error, "link state: truncated escape in '" + key + "'");
        }
        const int hi = unhex(raw[i + 1]);
        const int lo = unhex(raw[i + 2]);
        if (hi < 0 || lo < 0) return make_error(Errc::parse_error, "link state: bad escape in '" + key + "'");
        value += static_cast<char>(hi * 16 + lo);
        i += 2;
      } else {
        value += raw[i] == '+' ? ' ' : raw[i];
      }
    }
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

}  // namespace gpuplan
