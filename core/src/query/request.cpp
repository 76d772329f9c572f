// The request's serialised forms (args, URL query); parsing is query.cpp's one key table.
#include "gpuplan/request.h"

#include <algorithm>
#include <cstdio>

namespace gpuplan {

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
  if (s.optimizer_loop != d.optimizer_loop)
    a.emplace_back("optimizer-loop", optimizer_loop_name(s.optimizer_loop));
  if (s.clip_grad_norm) a.emplace_back("clip-grad-norm", "1");
  if (s.checkpointing != d.checkpointing)
    a.emplace_back("checkpointing", checkpointing_name(s.checkpointing));
  if (s.attention != d.attention) a.emplace_back("attention", attention_name(s.attention));
  if (s.memory_format != d.memory_format)
    a.emplace_back("memory-format", memory_format_name(s.memory_format));
  if (s.checkpoint_every != d.checkpoint_every)
    a.emplace_back("checkpoint-every", std::to_string(s.checkpoint_every));
  if (s.grad_reduce != d.grad_reduce)
    a.emplace_back("grad-reduce", grad_reduce_name(s.grad_reduce));
  if (s.dropout != d.dropout) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s.dropout);
    a.emplace_back("dropout", buf);
  }
  if (s.compile) a.emplace_back("compile", "1");
  if (s.fused_loss) a.emplace_back("fused-loss", "1");
  if (s.torch_release != d.torch_release)
    a.emplace_back("pytorch", torch_release_name(s.torch_release));
  if (s.dp != d.dp) a.emplace_back("dp", std::to_string(s.dp));
  if (s.zero_stage != d.zero_stage) a.emplace_back("zero", std::to_string(s.zero_stage));
  if (s.tp != d.tp) a.emplace_back("tp", std::to_string(s.tp));
  if (s.sequence_parallel) a.emplace_back("sp", "1");
  if (s.pp != d.pp) a.emplace_back("pp", std::to_string(s.pp));
  if (s.ep != d.ep) a.emplace_back("ep", std::to_string(s.ep));
  if (s.etp != d.etp) a.emplace_back("etp", std::to_string(s.etp));
  auto number = [&a](const char* key, double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    a.emplace_back(key, buf);
  };
  if (s.capacity_factor != d.capacity_factor) number("capacity-factor", s.capacity_factor);
  if (s.moe_imbalance != d.moe_imbalance) number("moe-imbalance", s.moe_imbalance);
  if (s.moe_dispatcher != d.moe_dispatcher)
    a.emplace_back("moe-dispatcher", moe_dispatcher_name(s.moe_dispatcher));
  if (s.moe_a2a_overlap) a.emplace_back("moe-a2a-overlap", "1");
  if (s.moe_pad_to_capacity) a.emplace_back("moe-pad-to-capacity", "1");
  if (s.lora_rank != d.lora_rank) a.emplace_back("lora-rank", std::to_string(s.lora_rank));
  if (s.qlora) a.emplace_back("qlora", "1");
  if (s.lora_targets != d.lora_targets) {
    std::string list;
    for (const auto& t : s.lora_targets) list += (list.empty() ? "" : ",") + t;
    a.emplace_back("lora-targets", list);
  }
  if (s.generate_tokens != d.generate_tokens)
    a.emplace_back("generate", std::to_string(s.generate_tokens));
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
      const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~' ||
                         c == '/' || c == ',';
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
  if (q.size() > 8192) return make_error(Errc::too_large, Msg::link_too_long, {"8192"});
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
          return make_error(Errc::parse_error, Msg::link_truncated_escape, {key});
        }
        const int hi = unhex(raw[i + 1]);
        const int lo = unhex(raw[i + 2]);
        if (hi < 0 || lo < 0) return make_error(Errc::parse_error, Msg::link_bad_escape, {key});
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
