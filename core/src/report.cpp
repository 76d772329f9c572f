#include "gpuplan/report.h"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace gpuplan {

std::string estimate_to_json(const Model& model, const Request& request, const Estimate& e,
                             int indent) {
  nlohmann::ordered_json j;
  j["model"] = model.id;
  j["mode"] = mode_name(request.setup.mode);
  nlohmann::ordered_json setup;
  for (const auto& [k, v] : request_to_args(request)) {
    if (k != "model") setup[k] = v;
  }
  j["setup"] = setup.is_null() ? nlohmann::ordered_json::object() : setup;
  j["global_batch"] = e.global_batch;
  j["micro_batch"] = e.micro_batch;
  j["grad_accum_steps"] = e.grad_accum_steps;
  if (e.seq_len > 0) j["seq_len"] = e.seq_len;
  if (e.resolution > 0) j["resolution"] = e.resolution;
  j["num_gpus"] = e.num_gpus;
  if (!e.attention.empty()) j["attention"] = e.attention;
  j["params"] = e.params.total;
  j["params_trainable"] = e.params.trainable;
  j["params_embedding"] = e.params.embedding;
  j["params_active_per_token"] = e.params.active_per_token;
  const FlopCounts& f = e.flops;
  j["flops"] = {
      {"forward_per_sample", f.forward_per_sample},
      {"forward_matmul_per_sample", f.forward_matmul_per_sample},
      {"forward_attention_per_sample", f.forward_attention_per_sample},
      {"tokens_per_sample", f.tokens_per_sample},
      {"forward_per_step", f.forward_per_step},
      {"backward_per_step", f.backward_per_step},
      {"recompute_per_step", f.recompute_per_step},
      {"train_per_step", f.train_per_step},
      {"params_rule_per_token", f.params_rule_per_token},
      {"prefill", f.prefill},
      {"decode_per_token", f.decode_per_token},
      {"decode_bytes_per_token", f.decode_bytes_per_token},
  };
  const MemoryBytes& m = e.memory;
  j["memory_bytes"] = {
      {"weights", m.weights},         {"gradients", m.gradients},
      {"optimizer", m.optimizer},     {"activations", m.activations},
      {"kv_cache", m.kv_cache},       {"workspace", m.workspace},
      {"context", m.context},         {"fragmentation", m.fragmentation},
      {"total", m.total()},
  };
  j["notes"] = e.notes;
  return j.dump(indent);
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (std::fabs(bytes) >= 1000 && u < 5) {
    bytes /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", bytes, units[u]);
  return buf;
}

std::string format_flops(double flops) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", flops);
  return buf;
}

std::string estimate_to_text(const Model& model, const Estimate& e) {
  std::string out;
  char line[160];
  auto row = [&](const char* label, const std::string& value) {
    std::snprintf(line, sizeof line, "  %-28s %s\n", label, value.c_str());
    out += line;
  };
  out += model.name + " (" + model.id + ")\n";
  row("parameters", std::to_string(e.params.total));
  row("trainable parameters", std::to_string(e.params.trainable));
  std::string shape = "global batch " + std::to_string(e.global_batch) + ", micro-batch " +
                      std::to_string(e.micro_batch) + ", accumulation " + std::to_string(e.grad_accum_steps);
  row("batch", shape);
  if (e.seq_len > 0) row("sequence length", std::to_string(e.seq_len));
  if (e.resolution > 0) row("resolution", std::to_string(e.resolution));
  out += "FLOPs\n";
  row("forward per sample", format_flops(e.flops.forward_per_sample));
  row("train per step", format_flops(e.flops.train_per_step));
  row("  forward", format_flops(e.flops.forward_per_step));
  row("  backward", format_flops(e.flops.backward_per_step));
  row("  recompute", format_flops(e.flops.recompute_per_step));
  out += "Memory per GPU\n";
  const MemoryBytes& m = e.memory;
  row("weights", format_bytes(m.weights));
  row("gradients", format_bytes(m.gradients));
  row("optimizer states", format_bytes(m.optimizer));
  row("activations", format_bytes(m.activations));
  row("KV cache", format_bytes(m.kv_cache));
  row("workspace", format_bytes(m.workspace));
  row("CUDA context", format_bytes(m.context));
  row("allocator fragmentation", format_bytes(m.fragmentation));
  row("total", format_bytes(m.total()));
  for (const auto& n : e.notes) out += "note: " + n + "\n";
  return out;
}

}  // namespace gpuplan
