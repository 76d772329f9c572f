#include "app.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "gpuplan/report.h"

namespace gpuplan::web {
namespace {

const Request kDefaultRequest = [] {
  Request r;
  r.model = "gpt2-small";
  r.setup.global_batch = 8;
  r.setup.precision = Precision::amp_bf16;
  return r;
}();

// Draws a combo over the names of an enum; returns true when the selection changed.
template <class E>
bool enum_combo(const char* label, E& value, std::initializer_list<E> values,
                const char* (*name)(E)) {
  bool changed = false;
  if (ImGui::BeginCombo(label, name(value))) {
    for (E v : values) {
      if (ImGui::Selectable(name(v), v == value)) {
        changed = v != value;
        value = v;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

bool input_int64(const char* label, int64_t& value, int64_t min, int64_t max) {
  int v = static_cast<int>(std::clamp<int64_t>(value, 0, 2'000'000'000));
  if (!ImGui::InputInt(label, &v, 1, 8, ImGuiInputTextFlags_EnterReturnsTrue) &&
      !ImGui::IsItemDeactivatedAfterEdit()) {
    return false;
  }
  const int64_t clamped = std::clamp<int64_t>(v, min, max);
  if (clamped == value) return false;
  value = clamped;
  return true;
}

}  // namespace

App::App(Catalog catalog) : catalog_(std::move(catalog)), request_(kDefaultRequest) { recompute(); }

void App::load_query(const std::string& query) {
  auto args = query_to_args(query);
  if (!args.ok()) {
    error_ = args.error().message;
    results_changed_ = true;
    return;
  }
  if (args.value().empty()) {
    request_ = kDefaultRequest;
    recompute();
    return;
  }
  auto r = parse_request(args.value());
  if (!r.ok()) {
    error_ = r.error().message;
    results_changed_ = true;
    return;
  }
  request_ = r.value();
  if (request_.model.empty()) request_.model = kDefaultRequest.model;
  recompute();
}

std::string App::query() const { return args_to_query(request_to_args(request_)); }

void App::recompute() {
  results_changed_ = true;
  estimate_.reset();
  const Model* model = catalog_.find_model(request_.model);
  if (!model) {
    error_ = "unknown model '" + request_.model + "'";
    return;
  }
  auto e = estimate(*model, request_.setup);
  if (!e.ok()) {
    error_ = e.error().message;
    return;
  }
  error_.clear();
  estimate_ = e.value();
}

bool App::take_request_changed() { return std::exchange(request_changed_, false); }
bool App::take_results_changed() { return std::exchange(results_changed_, false); }

std::string App::results_json() const {
  nlohmann::ordered_json j;
  j["query"] = query();
  j["error"] = error_;
  const Model* model = catalog_.find_model(request_.model);
  if (estimate_ && model) {
    j["estimate"] = nlohmann::ordered_json::parse(estimate_to_json(*model, request_, *estimate_, -1));
  } else {
    j["estimate"] = nullptr;
  }
  j["widgets"] = widget_rects_.empty() ? nlohmann::ordered_json::object()
                                       : nlohmann::ordered_json::parse(widget_rects_);
  return j.dump();
}

void App::draw() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  ImGui::Begin("gpuplan", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings);
  ImGui::TextUnformatted("gpuplan: which GPU for your PyTorch workload?");
  ImGui::Separator();
  if (ImGui::BeginTable("layout", 2, ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableSetupColumn("Workload and setup", ImGuiTableColumnFlags_WidthFixed, 340.0f);
    ImGui::TableSetupColumn("Results", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableNextColumn();
    draw_inputs();
    ImGui::TableNextColumn();
    draw_results();
    ImGui::EndTable();
  }
  ImGui::End();
}

void App::draw_inputs() {
  std::map<std::string, ImVec4> rects;
  auto remember = [&](const char* name) {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    rects[name] = ImVec4(a.x, a.y, b.x, b.y);
  };
  bool changed = false;
  Setup& s = request_.setup;
  ImGui::TextUnformatted("Workload");
  ImGui::PushItemWidth(200.0f);
  const Model* current = catalog_.find_model(request_.model);
  if (ImGui::BeginCombo("Model##model", current ? current->name.c_str() : request_.model.c_str())) {
    for (const auto& m : catalog_.models) {
      if (ImGui::Selectable(m.name.c_str(), current == &m)) {
        changed = current != &m;
        request_.model = m.id;
        s.seq_len = 0;
        s.resolution = 0;
      }
    }
    ImGui::EndCombo();
  }
  remember("model");
  changed |= enum_combo("Mode##mode", s.mode, {Mode::train, Mode::infer}, mode_name);
  remember("mode");
  ImGui::Spacing();
  ImGui::TextUnformatted("Setup");
  changed |= input_int64("Global batch##batch", s.global_batch, 1, 1'000'000);
  remember("batch");
  if (current && (current->kind == ModelKind::graph || current->transformer.is_vision())) {
    changed |= input_int64("Resolution (px)##resolution", s.resolution, 0, 100'000);
    remember("resolution");
  } else {
    changed |= input_int64("Sequence length##seq", s.seq_len, 0, 10'000'000);
    remember("seq");
  }
  changed |= enum_combo("Precision##precision", s.precision,
                        {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16,
                         Precision::amp_fp16, Precision::amp_bf16, Precision::fp8},
                        precision_name);
  remember("precision");
  changed |= enum_combo("Optimizer##optimizer", s.optimizer,
                        {Optimizer::sgd, Optimizer::sgd_momentum, Optimizer::adam, Optimizer::adamw,
                         Optimizer::adam_8bit, Optimizer::adafactor},
                        optimizer_name);
  remember("optimizer");
  changed |= enum_combo("Checkpointing##checkpointing", s.checkpointing,
                        {Checkpointing::none, Checkpointing::selective, Checkpointing::full},
                        checkpointing_name);
  remember("checkpointing");
  ImGui::PopItemWidth();

  std::string rects_json = "{";
  for (const auto& [name, r] : rects) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%s\"%s\":[%.0f,%.0f,%.0f,%.0f]", rects_json.size() > 1 ? "," : "",
                  name.c_str(), r.x, r.y, r.z, r.w);
    rects_json += buf;
  }
  rects_json += "}";
  if (rects_json != widget_rects_) {
    widget_rects_ = rects_json;
    results_changed_ = true;
  }
  if (changed) {
    request_changed_ = true;
    recompute();
  }
}

void App::draw_results() {
  if (!error_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
    ImGui::TextWrapped("Error: %s", error_.c_str());
    ImGui::PopStyleColor();
  }
  if (!estimate_) return;
  const Estimate& e = *estimate_;
  ImGui::Text("Parameters: %lld (trainable %lld)", static_cast<long long>(e.params.total),
              static_cast<long long>(e.params.trainable));
  ImGui::Text("Forward FLOPs per sample: %s", format_flops(e.flops.forward_per_sample).c_str());
  if (e.flops.train_per_step > 0) {
    ImGui::Text("Training FLOPs per step: %s", format_flops(e.flops.train_per_step).c_str());
  }
  ImGui::Spacing();
  ImGui::Text("Peak memory per GPU: %s", format_bytes(e.memory.total()).c_str());
  const std::pair<const char*, double> terms[] = {
      {"Weights", e.memory.weights},         {"Gradients", e.memory.gradients},
      {"Optimizer states", e.memory.optimizer}, {"Activations", e.memory.activations},
      {"KV cache", e.memory.kv_cache},       {"Workspace", e.memory.workspace},
      {"CUDA context", e.memory.context},    {"Fragmentation", e.memory.fragmentation},
  };
  if (ImGui::BeginTable("memory", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter)) {
    ImGui::TableSetupColumn("Term");
    ImGui::TableSetupColumn("Bytes");
    ImGui::TableHeadersRow();
    for (const auto& [label, bytes] : terms) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(label);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_bytes(bytes).c_str());
    }
    ImGui::EndTable();
  }
}

std::string estimate_query_json(const Catalog& catalog, const std::string& query) {
  auto args = query_to_args(query);
  if (!args.ok()) return nlohmann::json{{"error", args.error().message}}.dump();
  auto r = parse_request(args.value());
  if (!r.ok()) return nlohmann::json{{"error", r.error().message}}.dump();
  const Model* model = catalog.find_model(r.value().model);
  if (!model) return nlohmann::json{{"error", "unknown model '" + r.value().model + "'"}}.dump();
  auto e = estimate(*model, r.value().setup);
  if (!e.ok()) return nlohmann::json{{"error", e.error().message}}.dump();
  return estimate_to_json(*model, r.value(), e.value(), -1);
}

}  // namespace gpuplan::web
