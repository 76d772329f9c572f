#include "app.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

#include "charts.h"
#include "gpuplan/hf_config.h"
#include "gpuplan/report.h"

namespace gpuplan::web {
namespace {

constexpr int kStalePriceDays = 180;

// Days since 1970-01-01 of a YYYY-MM-DD date (0 when malformed).
long days_of(const std::string& date) {
  int y = 0, m = 0, d = 0;
  if (std::sscanf(date.c_str(), "%d-%d-%d", &y, &m, &d) != 3) return 0;
  // Howard Hinnant's days_from_civil.
  y -= m <= 2;
  const long era = (y >= 0 ? y : y - 399) / 400;
  const long yoe = y - era * 400;
  const long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

long today_days() { return static_cast<long>(std::time(nullptr) / 86400); }

std::string fmt(const char* f, double x) {
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}

std::string duration(double hours) {
  if (hours < 1.0 / 60) return fmt("%.1f s", hours * 3600);
  if (hours < 1) return fmt("%.1f min", hours * 60);
  if (hours < 48) return fmt("%.2f h", hours);
  return fmt("%.1f days", hours / 24);
}

template <class E>
bool enum_combo(const char* label, E& value, std::initializer_list<E> values, const char* (*name)(E)) {
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

// An integer field that commits on Enter or when it loses focus.
template <class T>
bool input_int(const char* label, T& value, int64_t min, int64_t max) {
  int v = static_cast<int>(std::clamp<int64_t>(static_cast<int64_t>(value), -2'000'000'000, 2'000'000'000));
  const bool enter = ImGui::InputInt(label, &v, 1, 8, ImGuiInputTextFlags_EnterReturnsTrue);
  if (!enter && !ImGui::IsItemDeactivatedAfterEdit()) return false;
  const T clamped = static_cast<T>(std::clamp<int64_t>(v, min, max));
  if (clamped == value) return false;
  value = clamped;
  return true;
}

bool input_double(const char* label, double& value, double min, double max, const char* format) {
  double v = value;
  const bool enter = ImGui::InputDouble(label, &v, 0, 0, format, ImGuiInputTextFlags_EnterReturnsTrue);
  if (!enter && !ImGui::IsItemDeactivatedAfterEdit()) return false;
  if (!std::isfinite(v)) return false;
  v = std::clamp(v, min, max);
  if (v == value) return false;
  value = v;
  return true;
}

void error_text(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

void note_text(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.75f, 0.75f, 0.6f, 1.0f));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

bool table_row(const char* label, const std::string& value) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(label);
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(value.c_str());
  return true;
}

nlohmann::ordered_json json_or_null(const std::optional<std::string>& s) {
  return s ? nlohmann::ordered_json(*s) : nlohmann::ordered_json();
}

}  // namespace

App::App(Catalog catalog, ProbeCrypto crypto)
    : catalog_(std::move(catalog)), crypto_(crypto), state_(default_page_state()) {
  recompute();
}

void App::changed() {
  request_changed_ = true;
  recompute();
}

void App::set_state(const PageState& s) {
  state_ = s;
  force_tab_ = true;
  error_.clear();
  recompute();
}

void App::load_query(const std::string& query) {
  auto s = page_state_from_query(query);
  if (!s.ok()) {
    error_ = s.error().message;
    results_changed_ = true;
    return;
  }
  set_state(s.value());
}

std::string App::query() const { return page_state_to_query(state_); }

void App::recompute() {
  results_changed_ = true;
  plans_stale_ = true;
  plans_.reset();
  plan_error_.clear();
  c_ = Computed{};
  auto model = resolve_model(catalog_, state_);
  if (!model.ok()) {
    c_.error = model.error().message;
    return;
  }
  c_.model = model.value();
  Setup setup = state_.request.setup;

  // Hardware: an instance (its GPU and count, times nodes), or a GPU and a count.
  int gpus = state_.gpus;
  if (!state_.instance.empty()) {
    c_.instance = catalog_.find_instance(state_.instance);
    if (!c_.instance) {
      c_.error = "--instance: unknown instance '" + state_.instance + "'";
      return;
    }
    c_.gpu = catalog_.find_gpu(c_.instance->gpu);
    gpus = c_.instance->gpu_count * state_.nodes;
  } else {
    c_.gpu = catalog_.find_gpu(state_.gpu);
    if (!c_.gpu) {
      c_.error = "--gpu: unknown GPU '" + state_.gpu + "'";
      return;
    }
  }
  if (gpus % (setup.tp * setup.pp) != 0) {
    c_.error = "--tp x --pp = " + std::to_string(setup.tp * setup.pp) + " does not divide the " +
               std::to_string(gpus) + " GPUs";
    return;
  }
  setup.dp = gpus / (setup.tp * setup.pp);
  if (setup.global_batch == 0 && setup.micro_batch == 0) setup.global_batch = setup.dp;
  auto e = estimate(*c_.model, setup);
  if (!e.ok()) {
    c_.error = e.error().message;
    return;
  }
  c_.estimate = e.value();
  const MemoryBytes& m = c_.estimate->memory;
  c_.fits = m.total() <= c_.gpu->memory_bytes;
  const std::pair<const char*, double> terms[] = {
      {"weights", m.weights},       {"gradients", m.gradients}, {"optimizer states", m.optimizer},
      {"activations", m.activations}, {"KV cache", m.kv_cache},   {"workspace", m.workspace}};
  const auto* largest = std::max_element(std::begin(terms), std::end(terms),
                                         [](const auto& a, const auto& b) { return a.second < b.second; });
  c_.largest_term = largest->first;
  if (!c_.fits) {
    std::string advice = "Does not fit: needs " + format_bytes(m.total()) + " per GPU, " + c_.gpu->name + " has " +
                         format_bytes(c_.gpu->memory_bytes) + ". The largest term is " + largest->first + " (" +
                         format_bytes(largest->second) + "): ";
    const std::string term = largest->first;
    if (term == "activations") {
      advice += "turn on activation checkpointing, lower the micro-batch or sequence length, or add tensor parallelism.";
    } else if (term == "optimizer states") {
      advice += "use ZeRO stage 1-3 across data-parallel GPUs, an 8-bit optimizer or Adafactor, or LoRA.";
    } else if (term == "gradients") {
      advice += "use ZeRO stage 2-3 or LoRA.";
    } else if (term == "weights") {
      advice += "use ZeRO-3/FSDP, tensor or pipeline parallelism, 16-bit weights, or QLoRA.";
    } else if (term == "KV cache") {
      advice += "shorten the context, lower the batch, or add tensor parallelism.";
    } else {
      advice += "lower the micro-batch.";
    }
    c_.fit_advice = advice;
  }

  auto work = build_work_profile(*c_.model, setup, *c_.estimate);
  if (!work.ok()) {
    c_.time_error = work.error().message;
    return;
  }
  auto cluster = c_.instance ? instance_cluster(*c_.instance, *c_.gpu, state_.nodes)
                             : single_node_cluster(*c_.gpu, gpus);
  if (!cluster.ok()) {
    c_.time_error = cluster.error().message;
    return;
  }
  auto t = estimate_step_time(*c_.model, setup, *c_.estimate, work.value(), cluster.value(), catalog_.efficiencies,
                              catalog_.input);
  if (!t.ok()) {
    c_.time_error = t.error().message;
    return;
  }
  c_.time = t.value();
  SpotAssumptions spot;
  spot.restart_h = catalog_.restart_s / 3600.0;
  if (catalog_.pricing.spot_interruptions_per_hour) spot.interruptions_per_hour = *catalog_.pricing.spot_interruptions_per_hour;
  double usd_per_hour = 0;
  if (c_.instance) {
    auto q = quote_price(*c_.instance, state_.pricing, catalog_.pricing, state_.region);
    if (q.ok()) {
      c_.price = q.value();
      usd_per_hour = q.value().usd_per_hour * state_.nodes;
    } else {
      c_.time_error = q.error().message;
    }
  }
  if (!state_.run.empty()) {
    auto cost = run_cost(*c_.estimate, *c_.time, state_.run, usd_per_hour, state_.pricing, spot);
    if (cost.ok()) c_.cost = cost.value();
    else c_.time_error = cost.error().message;
  }
  // Calibrated column from an uploaded probe file.
  if (calibrate_ && probe_ && probe_->payload) {
    const Calibrated cal = calibrate(catalog_.efficiencies, probe_->payload->summary, *c_.gpu, setup.precision);
    c_.calibration_notes = cal.notes;
    if (cal.gpu_matches) {
      auto tc = estimate_step_time(*c_.model, setup, *c_.estimate, work.value(), cluster.value(), cal.efficiencies,
                                   catalog_.input);
      if (tc.ok()) {
        c_.time_calibrated = tc.value();
        if (!state_.run.empty()) {
          auto cc = run_cost(*c_.estimate, *c_.time_calibrated, state_.run, usd_per_hour, state_.pricing, spot);
          if (cc.ok()) c_.cost_calibrated = cc.value();
        }
      }
    }
  }
}

void App::run_planner() {
  if (!plans_stale_) return;
  plans_stale_ = false;
  plans_.reset();
  plan_error_.clear();
  if (!c_.model) {
    plan_error_ = c_.error;
    return;
  }
  PlanQuery q;
  q.request = state_.request;
  q.request.setup.dp = 1;
  q.request.setup.tp = 1;
  q.request.setup.pp = 1;
  q.request.setup.zero_stage = 0;
  q.request.setup.micro_batch = 0;
  q.run = state_.run;
  q.pricing = state_.pricing;
  q.objective = state_.objective;
  q.deadline_hours = state_.deadline_hours;
  q.budget_usd = state_.budget_usd;
  q.provider = state_.provider;
  q.region = state_.region;
  q.compliance = state_.compliance;
  q.max_nodes = state_.max_nodes;
  q.top_k = 20;
  q.efficiencies = catalog_.efficiencies;
  q.input = catalog_.input;
  q.spot.restart_h = catalog_.restart_s / 3600.0;
  if (q.run.epochs > 0 && q.run.dataset_size == 0) q.run.dataset_size = static_cast<double>(c_.model->dataset_size);
  auto r = plan(catalog_, *c_.model, q);
  if (r.ok()) plans_ = r.value();
  else plan_error_ = r.error().message;
  results_changed_ = true;
}

bool App::take_request_changed() { return std::exchange(request_changed_, false); }
bool App::take_results_changed() { return std::exchange(results_changed_, false); }
bool App::take_keys_changed() { return std::exchange(keys_changed_, false); }
std::vector<std::string> App::take_actions() { return std::exchange(actions_, {}); }

void App::set_trusted_keys(std::vector<std::string> keys) {
  trusted_keys_ = std::move(keys);
  reread_probe();
}

void App::reread_probe() {
  if (probe_text_.empty()) return;
  auto f = read_probe_file(probe_text_, crypto_, trusted_keys_);
  if (f.ok()) probe_ = f.value();
  recompute();
}

std::string App::load_file(const std::string& name, const std::string& bytes) {
  upload_error_.clear();
  results_changed_ = true;
  if (bytes.size() > kMaxProbeFileBytes) {
    upload_error_ = name + ": file is " + std::to_string(bytes.size()) + " bytes; the limit is " +
                    std::to_string(kMaxProbeFileBytes) + " bytes";
    return upload_error_;
  }
  // A probe file is a DSSE envelope (payloadType) or a bare payload (kind gpuplan-probe).
  const bool probe = bytes.find("\"payloadType\"") != std::string::npos ||
                     bytes.find("\"gpuplan-probe\"") != std::string::npos;
  if (probe) {
    auto f = read_probe_file(bytes, crypto_, trusted_keys_);
    if (!f.ok()) {
      upload_error_ = f.error().message;
      return upload_error_;
    }
    if (f.value().signature == ProbeSignature::invalid) {
      upload_error_ = name + ": signature invalid: " + f.value().reason + " (the file was changed after signing)";
      return upload_error_;
    }
    probe_text_ = bytes;
    probe_ = f.value();
    upload_status_ = name + ": probe file, signature " + probe_signature_name(probe_->signature);
    state_.tab = Tab::benchmarks;
    force_tab_ = true;
    request_changed_ = true;
    recompute();
    return "";
  }
  auto m = model_from_hf_config(bytes, name);
  if (!m.ok()) {
    upload_error_ = m.error().message;
    return upload_error_;
  }
  PageState s = state_;
  s.custom.kind = CustomModel::Kind::transformer;
  s.custom.transformer = m.value().transformer;
  s.custom.name = m.value().name;
  s.request.setup.seq_len = 0;
  s.request.setup.resolution = 0;
  auto resolved = resolve_model(catalog_, s);
  if (!resolved.ok()) {
    upload_error_ = name + ": " + resolved.error().message;
    return upload_error_;
  }
  upload_status_ = name + ": loaded " + m.value().name;
  set_state(s);
  request_changed_ = true;
  return "";
}

void App::remember(const std::string& name) {
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  rects_[name] = {a.x / ratio_, a.y / ratio_, b.x / ratio_, b.y / ratio_};
}

void App::draw(float pixel_ratio) {
  ratio_ = pixel_ratio;
  rects_.clear();
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  ImGui::Begin("gpuplan", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoBringToFrontOnFocus);
  ImGui::TextUnformatted("gpuplan - which GPU for your PyTorch workload?");
  ImGui::SameLine(ImGui::GetContentRegionAvail().x - 330 * ratio_);
  if (ImGui::SmallButton("Copy link##copy")) actions_.push_back("copy-link");
  remember("copy-link");
  ImGui::SameLine();
  if (ImGui::SmallButton("Export CSV##csv")) actions_.push_back("export-csv");
  remember("export-csv");
  ImGui::SameLine();
  if (ImGui::SmallButton("Export JSON##json")) actions_.push_back("export-json");
  remember("export-json");
  ImGui::SameLine();
  if (ImGui::SmallButton("Upload file##upload")) actions_.push_back("upload");
  remember("upload");
  if (!error_.empty()) error_text("Link: " + error_);
  if (!upload_error_.empty()) error_text("Upload: " + upload_error_);
  ImGui::Separator();

  if (ImGui::BeginTable("layout", 2, ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableSetupColumn("inputs", ImGuiTableColumnFlags_WidthFixed, 390.0f * ratio_);
    ImGui::TableSetupColumn("outputs", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableNextColumn();
    ImGui::BeginChild("sidebar", ImVec2(0, 0), false);
    draw_sidebar();
    ImGui::EndChild();
    ImGui::TableNextColumn();
    if (ImGui::BeginTabBar("tabs")) {
      const std::pair<Tab, const char*> tabs[] = {{Tab::results, "Results##tab-results"},
                                                  {Tab::plans, "Plans##tab-plans"},
                                                  {Tab::hardware, "Hardware & prices##tab-hardware"},
                                                  {Tab::benchmarks, "Benchmarks##tab-benchmarks"}};
      for (const auto& [tab, label] : tabs) {
        // Select the tab the state names when the state was set from outside (links,
        // back/forward, a loaded plan); otherwise follow the user's clicks.
        const ImGuiTabItemFlags flags = state_.tab == tab && force_tab_ ? ImGuiTabItemFlags_SetSelected : 0;
        const bool open = ImGui::BeginTabItem(label, nullptr, flags);
        remember(std::string("tab-") + tab_name(tab));
        if (open) {
          if (state_.tab != tab && !force_tab_) {
            state_.tab = tab;
            request_changed_ = true;
            results_changed_ = true;
          }
          ImGui::BeginChild("panel", ImVec2(0, 0), false);
          switch (tab) {
            case Tab::results: draw_results(); break;
            case Tab::plans: draw_plans(); break;
            case Tab::hardware: draw_hardware(); break;
            case Tab::benchmarks: draw_benchmarks(); break;
          }
          ImGui::EndChild();
          ImGui::EndTabItem();
        }
      }
      ImGui::EndTabBar();
    }
    force_tab_ = false;
    ImGui::EndTable();
  }
  ImGui::End();

  std::string rj = "{";
  for (const auto& [name, r] : rects_) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s\"%s\":[%.0f,%.0f,%.0f,%.0f]", rj.size() > 1 ? "," : "", name.c_str(), r[0],
                  r[1], r[2], r[3]);
    rj += buf;
  }
  rj += "}";
  if (rj != rects_json_) {
    rects_json_ = rj;
    results_changed_ = true;
  }
}

void App::draw_sidebar() {
  Setup& s = state_.request.setup;
  const float w = 190.0f * ratio_;
  ImGui::PushItemWidth(w);
  if (ImGui::CollapsingHeader("Workload", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::InputTextWithHint("Search##model-filter", "filter the zoo", model_filter_, sizeof model_filter_);
    remember("model-filter");
    const std::string current = state_.custom.kind != CustomModel::Kind::none
                                    ? (c_.model ? c_.model->name : std::string("custom"))
                                    : (c_.model ? c_.model->name : state_.request.model);
    if (ImGui::BeginCombo("Model##model", current.c_str(), ImGuiComboFlags_HeightLarge)) {
      std::string filter = model_filter_;
      std::transform(filter.begin(), filter.end(), filter.begin(), ::tolower);
      for (const auto& m : catalog_.models) {
        std::string hay = m.id + " " + m.name + " " + m.task;
        std::transform(hay.begin(), hay.end(), hay.begin(), ::tolower);
        if (!filter.empty() && hay.find(filter) == std::string::npos) continue;
        const bool selected = state_.custom.kind == CustomModel::Kind::none && m.id == state_.request.model;
        if (ImGui::Selectable((m.name + "##m-" + m.id).c_str(), selected)) {
          state_.custom.kind = CustomModel::Kind::none;
          state_.request.model = m.id;
          s.seq_len = 0;
          s.resolution = 0;
          changed();
        }
      }
      ImGui::EndCombo();
    }
    remember("model");
    if (ImGui::TreeNode("Custom transformer##custom-transformer")) {
      if (state_.custom.kind != CustomModel::Kind::transformer && ImGui::Button("Start from the selected model")) {
        state_.custom.kind = CustomModel::Kind::transformer;
        if (c_.model && c_.model->kind == ModelKind::transformer && !c_.model->transformer.is_vision()) {
          state_.custom.transformer = c_.model->transformer;
        } else {
          state_.custom.transformer = catalog_.find_model("gpt2-small")->transformer;
        }
        state_.custom.name = "Custom transformer";
        changed();
      }
      if (state_.custom.kind == CustomModel::Kind::transformer) {
        TransformerSpec& t = state_.custom.transformer;
        bool edited = false;
        edited |= input_int("Layers##c-layers", t.layers, 1, 100000);
        edited |= input_int("Hidden##c-hidden", t.hidden, 8, 1000000);
        edited |= input_int("Heads##c-heads", t.heads, 1, 100000);
        edited |= input_int("KV heads (0 = heads)##c-kv", t.kv_heads, 0, 100000);
        edited |= input_int("FFN hidden##c-ffn", t.ffn_hidden, 1, 10000000);
        edited |= input_int("Vocabulary##c-vocab", t.vocab, 1, 10000000);
        edited |= input_int("Experts (MoE)##c-experts", t.experts, 0, 4096);
        if (t.experts > 1) edited |= input_int("Experts per token##c-topk", t.experts_per_token, 1, t.experts);
        edited |= ImGui::Checkbox("Gated MLP (SwiGLU)##c-gated", &t.gated_mlp);
        edited |= ImGui::Checkbox("Tied embeddings##c-tied", &t.tied_embeddings);
        if (edited) {
          // Round-trip through the URL form so the editor's conventions apply in one place.
          auto again = page_state_from_query(page_state_to_query(state_));
          if (again.ok()) state_ = again.value();
          changed();
        }
        if (ImGui::Button("Back to the zoo##c-off")) {
          state_.custom.kind = CustomModel::Kind::none;
          changed();
        }
      }
      ImGui::TreePop();
    }
    if (ImGui::TreeNode("Custom CNN##custom-cnn")) {
      const char* builders[] = {"resnet", "vgg", "mobilenet_v2", "yolov5"};
      int current_builder = 0;
      for (int i = 0; i < 4; ++i) {
        if (state_.custom.cnn_builder == builders[i]) current_builder = i;
      }
      bool edited = false;
      if (ImGui::Combo("Family##cnn", &current_builder, builders, 4)) {
        state_.custom.cnn_builder = builders[current_builder];
        edited = true;
      }
      if (current_builder <= 1) edited |= input_int("Depth##cnn-depth", state_.custom.cnn_depth, 1, 200);
      if (current_builder >= 2) edited |= input_double("Width##cnn-width", state_.custom.cnn_width, 0.1, 4, "%.2f");
      if (current_builder == 3) {
        edited |= input_double("Depth multiple##cnn-dm", state_.custom.cnn_depth_multiple, 0.1, 4, "%.2f");
      }
      edited |= input_int("Classes##cnn-classes", state_.custom.cnn_classes, 1, 100000);
      if (edited || (state_.custom.kind != CustomModel::Kind::cnn && ImGui::Button("Use this CNN##cnn-on"))) {
        state_.custom.kind = CustomModel::Kind::cnn;
        s.seq_len = 0;
        changed();
      }
      ImGui::TreePop();
    }
    ImGui::TextDisabled("Drop a config.json on the page to load it");
    if (!upload_status_.empty()) ImGui::TextWrapped("%s", upload_status_.c_str());
  }

  const bool images = c_.model && (c_.model->kind == ModelKind::graph || c_.model->transformer.is_vision());
  if (ImGui::CollapsingHeader("Setup", ImGuiTreeNodeFlags_DefaultOpen)) {
    bool edited = enum_combo("Mode##mode", s.mode, {Mode::train, Mode::infer}, mode_name);
    remember("mode");
    {
      // Shows the batch the estimate resolved (global = micro x data-parallel GPUs by default).
      int64_t shown = s.global_batch != 0 ? s.global_batch : (c_.estimate ? c_.estimate->global_batch : 0);
      if (input_int("Global batch##batch", shown, 1, 100'000'000)) {
        s.global_batch = shown;
        edited = true;
      }
      remember("batch");
    }
    edited |= input_int("Micro-batch (0 = auto)##micro-batch", s.micro_batch, 0, 100'000'000);
    remember("micro-batch");
    if (images) {
      int64_t shown = s.resolution != 0 ? s.resolution : (c_.estimate ? c_.estimate->resolution : 0);
      if (input_int("Resolution (px)##resolution", shown, 1, 100000)) {
        s.resolution = shown;
        edited = true;
      }
      remember("resolution");
    } else {
      int64_t shown = s.seq_len != 0 ? s.seq_len : (c_.estimate ? c_.estimate->seq_len : 0);
      if (input_int("Sequence length##seq", shown, 1, 100'000'000)) {
        s.seq_len = shown;
        edited = true;
      }
      remember("seq");
    }
    if (s.mode == Mode::infer) {
      edited |= input_int("Generated tokens##generate", s.generate_tokens, 0, 10'000'000);
    }
    edited |= enum_combo("Precision##precision", s.precision,
                         {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16, Precision::amp_fp16,
                          Precision::amp_bf16, Precision::fp8},
                         precision_name);
    remember("precision");
    if (s.mode == Mode::train) {
      edited |= enum_combo("Optimizer##optimizer", s.optimizer,
                           {Optimizer::sgd, Optimizer::sgd_momentum, Optimizer::adam, Optimizer::adamw,
                            Optimizer::adam_8bit, Optimizer::adafactor},
                           optimizer_name);
      remember("optimizer");
      edited |= enum_combo("Checkpointing##checkpointing", s.checkpointing,
                           {Checkpointing::none, Checkpointing::selective, Checkpointing::full}, checkpointing_name);
      remember("checkpointing");
    }
    if (c_.model && c_.model->kind == ModelKind::graph) {
      edited |= enum_combo("Memory format##memory-format", s.memory_format,
                           {MemoryFormat::automatic, MemoryFormat::nchw, MemoryFormat::channels_last},
                           memory_format_name);
    } else {
      edited |= enum_combo("Attention##attention", s.attention,
                           {Attention::automatic, Attention::eager, Attention::flash}, attention_name);
    }
    if (edited) changed();
  }
  if (ImGui::CollapsingHeader("Parallelism and LoRA")) {
    bool edited = input_int("Tensor parallel##tp", s.tp, 1, 1024);
    remember("tp");
    edited |= input_int("Pipeline parallel##pp", s.pp, 1, 1024);
    edited |= ImGui::Checkbox("Sequence parallel##sp", &s.sequence_parallel);
    edited |= input_int("ZeRO stage (3 = FSDP)##zero", s.zero_stage, 0, 3);
    remember("zero");
    ImGui::TextDisabled("Data parallel = GPUs / (tp x pp) = %d", c_.estimate ? c_.estimate->num_gpus / (s.tp * s.pp) : 0);
    edited |= input_int("LoRA rank (0 = off)##lora", s.lora_rank, 0, 4096);
    if (s.lora_rank > 0) edited |= ImGui::Checkbox("QLoRA (4-bit base)##qlora", &s.qlora);
    if (edited) changed();
  }
  if (ImGui::CollapsingHeader("Hardware", ImGuiTreeNodeFlags_DefaultOpen)) {
    bool edited = false;
    const Gpu* g = catalog_.find_gpu(state_.gpu);
    if (state_.instance.empty()) {
      if (ImGui::BeginCombo("GPU##gpu", g ? g->name.c_str() : state_.gpu.c_str(), ImGuiComboFlags_HeightLarge)) {
        for (const auto& gpu : catalog_.gpus) {
          if (ImGui::Selectable((gpu.name + "##g-" + gpu.id).c_str(), gpu.id == state_.gpu)) {
            state_.gpu = gpu.id;
            edited = true;
          }
        }
        ImGui::EndCombo();
      }
      remember("gpu");
      edited |= input_int("GPUs##gpus", state_.gpus, 1, 4096);
      remember("gpus");
    } else {
      ImGui::Text("Instance: %s", state_.instance.c_str());
      edited |= input_int("Nodes##nodes", state_.nodes, 1, 4096);
      if (ImGui::Button("Use a bare GPU instead##no-instance")) {
        if (c_.gpu) state_.gpu = c_.gpu->id;
        state_.instance.clear();
        state_.nodes = 1;
        edited = true;
      }
    }
    if (edited) changed();
  }
  if (ImGui::CollapsingHeader("Run and pricing", ImGuiTreeNodeFlags_DefaultOpen)) {
    bool edited = false;
    if (images || state_.run.epochs > 0) {
      edited |= input_double("Epochs##epochs", state_.run.epochs, 0, 1e6, "%.6g");
      double size = state_.run.dataset_size > 0 ? state_.run.dataset_size
                                                : (c_.model ? static_cast<double>(c_.model->dataset_size) : 0);
      if (input_double("Dataset size##dataset-size", size, 0, 1e13, "%.0f")) {
        state_.run.dataset_size = size;
        edited = true;
      }
      if (state_.run.epochs > 0 && state_.run.dataset_size == 0 && size > 0) state_.run.dataset_size = size;
    }
    if (!images || state_.run.tokens > 0) {
      edited |= input_double("Tokens##tokens", state_.run.tokens, 0, 1e16, "%.4g");
      remember("tokens");
    }
    edited |= enum_combo("Pricing##pricing", state_.pricing,
                         {Pricing::on_demand, Pricing::monthly, Pricing::reserved_1y, Pricing::reserved_3y, Pricing::bulk,
                          Pricing::spot},
                         pricing_name);
    remember("pricing");
    if (edited) {
      if (state_.run.epochs > 0 && state_.run.tokens > 0) state_.run.tokens = 0;
      changed();
    }
  }
  ImGui::PopItemWidth();
}

void App::draw_results() {
  if (!c_.error.empty()) {
    error_text(c_.error);
    return;
  }
  if (!c_.estimate) return;
  const Estimate& e = *c_.estimate;
  const MemoryBytes& m = e.memory;
  ImGui::Text("%s: %lld parameters (%lld trainable)", c_.model->name.c_str(), static_cast<long long>(e.params.total),
              static_cast<long long>(e.params.trainable));
  ImGui::Text("%d x %s, global batch %lld, micro-batch %lld, %lld accumulation steps", e.num_gpus, c_.gpu->name.c_str(),
              static_cast<long long>(e.global_batch), static_cast<long long>(e.micro_batch),
              static_cast<long long>(e.grad_accum_steps));
  if (c_.fits) {
    ImGui::TextColored(ImVec4(0.4f, 0.85f, 0.5f, 1), "Fits: %s of %s per GPU (largest term: %s)",
                       format_bytes(m.total()).c_str(), format_bytes(c_.gpu->memory_bytes).c_str(),
                       c_.largest_term.c_str());
  } else {
    error_text(c_.fit_advice);
  }
  ImGui::Spacing();
  ImGui::TextUnformatted("Peak memory per GPU (bytes)");
  stacked_bar("memory",
              {{"weights", m.weights},
               {"gradients", m.gradients},
               {"optimizer", m.optimizer},
               {"activations", m.activations},
               {"KV cache", m.kv_cache},
               {"workspace", m.workspace},
               {"CUDA context", m.context},
               {"fragmentation", m.fragmentation}},
              c_.gpu->memory_bytes, c_.gpu->id, 28.0f * ratio_);
  remember("memory-bar");
  ImGui::Spacing();
  const ImGuiTableFlags tf = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("flops", 2, tf)) {
    ImGui::TableSetupColumn("FLOPs (multiply-add = 2)");
    ImGui::TableSetupColumn("value");
    ImGui::TableHeadersRow();
    table_row("forward per sample", format_flops(e.flops.forward_per_sample));
    if (e.flops.train_per_step > 0) {
      table_row("training step (fwd + bwd + recompute)", format_flops(e.flops.train_per_step));
      table_row("  recompute", format_flops(e.flops.recompute_per_step));
    } else {
      table_row("prefill (batch)", format_flops(e.flops.prefill));
      table_row("decode per token (batch)", format_flops(e.flops.decode_per_token));
    }
    ImGui::EndTable();
  }
  if (!c_.time_error.empty()) error_text(c_.time_error);
  if (c_.time) {
    const bool cal = c_.time_calibrated.has_value();
    if (ImGui::BeginTable("time", cal ? 3 : 2, tf)) {
      ImGui::TableSetupColumn("Time");
      ImGui::TableSetupColumn("spec x efficiency");
      if (cal) ImGui::TableSetupColumn("calibrated (probe)");
      ImGui::TableHeadersRow();
      auto row = [&](const char* label, auto get, const char* f) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(label);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(fmt(f, get(*c_.time)).c_str());
        if (cal) {
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(fmt(f, get(*c_.time_calibrated)).c_str());
        }
      };
      row("step (s)", [](const StepTime& t) { return t.step_s; }, "%.4g");
      row("samples/s", [](const StepTime& t) { return t.samples_per_s; }, "%.1f");
      if (c_.time->tokens_per_s > 0) row("tokens/s", [](const StepTime& t) { return t.tokens_per_s; }, "%.0f");
      row("MFU (%)", [](const StepTime& t) { return 100 * t.mfu; }, "%.1f");
      row("data-parallel comm exposed (s)", [](const StepTime& t) { return t.dp_comm_exposed_s; }, "%.3g");
      row("pipeline bubble (s)", [](const StepTime& t) { return t.pp_bubble_s; }, "%.3g");
      ImGui::EndTable();
    }
    for (const auto& n : c_.time->notes) note_text(n);
    if (c_.time->input_capacity_samples_per_s > 0) {
      ImGui::Text("Input pipeline: %.0f images/s needed per node, about %.0f decodable; num_workers per GPU: %d",
                  c_.time->input_needed_samples_per_s, c_.time->input_capacity_samples_per_s,
                  c_.time->suggested_num_workers);
    }
  }
  if (c_.cost) {
    ImGui::Spacing();
    ImGui::Text("Run: %.0f steps, %s%s", c_.cost->steps, duration(c_.cost->expected_hours).c_str(),
                c_.cost_calibrated ? (" (calibrated: " + duration(c_.cost_calibrated->expected_hours) + ")").c_str() : "");
    if (c_.price) {
      ImGui::Text("Cost: %.2f USD at %.4g USD/h (%s, %s, %s)", c_.cost->usd_total, c_.cost->usd_per_hour,
                  pricing_name(state_.pricing), c_.price->region.c_str(), c_.price->date.c_str());
      if (c_.price->assumption) note_text("Price basis: " + c_.price->basis);
    } else {
      ImGui::TextDisabled("Pick an instance (Hardware & prices, or Plans) to see the cost.");
    }
  }
  for (const auto& n : e.notes) note_text(n);
}

void App::draw_plans() {
  run_planner();
  bool edited = false;
  ImGui::PushItemWidth(150.0f * ratio_);
  int objective = state_.objective == Objective::cost ? 0 : 1;
  if (ImGui::Combo("Rank by##objective", &objective, "cost\0time\0")) {
    state_.objective = objective == 0 ? Objective::cost : Objective::time;
    edited = true;
  }
  ImGui::SameLine();
  edited |= input_double("Deadline (h)##deadline", state_.deadline_hours, 0, 1e7, "%.4g");
  ImGui::SameLine();
  edited |= input_double("Budget (USD)##budget", state_.budget_usd, 0, 1e12, "%.6g");
  edited |= input_int("Max nodes##max-nodes", state_.max_nodes, 1, 256);
  ImGui::PopItemWidth();
  if (edited) changed();
  if (!plan_error_.empty()) {
    error_text(plan_error_);
    return;
  }
  if (!plans_) return;
  ImGui::Text("%lld configurations searched, %lld fit, %lld within limits", static_cast<long long>(plans_->candidates),
              static_cast<long long>(plans_->fitting), static_cast<long long>(plans_->within_limits));
  for (const auto& n : plans_->notes) note_text(n);
  std::optional<Plan> load;
  if (ImGui::BeginTable("plans", 9, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter | ImGuiTableFlags_ScrollY,
                        ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 12))) {
    for (const char* h : {"#", "instance", "GPU", "nodes", "dp/tp/pp", "ZeRO mb ckpt", "time", "USD", "MFU"}) {
      ImGui::TableSetupColumn(h);
    }
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableHeadersRow();
    int i = 0;
    for (const auto& p : plans_->plans) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      char label[32];
      std::snprintf(label, sizeof label, "%d%s##plan-%d", i + 1, p.pareto ? " *" : "", i);
      if (ImGui::Selectable(label, false, ImGuiSelectableFlags_SpanAllColumns)) load = p;
      remember("plan-" + std::to_string(i));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(p.instance.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(p.gpu.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%d", p.nodes);
      ImGui::TableNextColumn();
      ImGui::Text("%d/%d/%d", p.setup.dp, p.setup.tp, p.setup.pp);
      ImGui::TableNextColumn();
      ImGui::Text("%d %lld %s", p.setup.zero_stage, static_cast<long long>(p.setup.micro_batch),
                  checkpointing_name(p.setup.checkpointing));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(duration(p.cost.expected_hours).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.2f", p.cost.usd_total);
      ImGui::TableNextColumn();
      ImGui::Text("%.0f%%", 100 * p.time.mfu);
      ++i;
    }
    ImGui::EndTable();
  }
  ImGui::TextDisabled("* on the Pareto front. Click a row or a point to load that plan.");
  std::vector<ScatterPoint> pts;
  for (const auto& p : plans_->plans) {
    pts.push_back({p.cost.expected_hours, p.cost.usd_total, p.pareto, p.instance + " x" + std::to_string(p.nodes)});
  }
  const int clicked = scatter("pareto", pts, 260.0f * ratio_);
  remember("pareto");
  if (clicked >= 0) load = plans_->plans[static_cast<size_t>(clicked)];
  if (load) {
    state_.instance = load->instance;
    state_.nodes = load->nodes;
    Setup& s = state_.request.setup;
    s.tp = load->setup.tp;
    s.pp = load->setup.pp;
    s.zero_stage = load->setup.zero_stage;
    s.micro_batch = load->setup.micro_batch;
    s.checkpointing = load->setup.checkpointing;
    s.global_batch = load->setup.global_batch;
    state_.tab = Tab::results;
    force_tab_ = true;
    changed();
  }
}

void App::draw_hardware() {
  const long age = today_days() - days_of(catalog_.prices_as_of);
  ImGui::Text("Prices as of %s", catalog_.prices_as_of.c_str());
  if (age > kStalePriceDays) {
    ImGui::SameLine();
    error_text("(" + std::to_string(age) + " days old: check current prices with the provider)");
  }
  bool edited = false;
  ImGui::PushItemWidth(140.0f * ratio_);
  if (ImGui::BeginCombo("Provider##provider", state_.provider.empty() ? "any" : state_.provider.c_str())) {
    if (ImGui::Selectable("any", state_.provider.empty())) {
      state_.provider.clear();
      edited = true;
    }
    for (const auto& p : catalog_.providers) {
      if (ImGui::Selectable(p.id.c_str(), p.id == state_.provider)) {
        state_.provider = p.id;
        edited = true;
      }
    }
    ImGui::EndCombo();
  }
  remember("provider");
  ImGui::SameLine();
  const char* compliance[] = {"any", "hipaa", "gdpr", "gov"};
  int ci = 0;
  for (int i = 1; i < 4; ++i) {
    if (state_.compliance == compliance[i]) ci = i;
  }
  if (ImGui::Combo("Compliance##compliance", &ci, compliance, 4)) {
    state_.compliance = ci == 0 ? "" : compliance[ci];
    edited = true;
  }
  ImGui::SameLine();
  ImGui::Combo("Sort##sort", &instance_sort_, "price\0GPU\0provider\0");
  ImGui::PopItemWidth();
  if (edited) changed();

  struct Row {
    const Instance* in;
    std::optional<PriceQuote> q;
  };
  std::vector<Row> rows;
  for (const auto& in : catalog_.instances) {
    if (!state_.provider.empty() && in.provider != state_.provider) continue;
    if (!state_.compliance.empty()) {
      const Provider* p = catalog_.find_provider(in.provider);
      bool any = false;
      for (const auto& price : in.prices) {
        const Region* r = p ? p->find_region(price.region) : nullptr;
        if (!r) continue;
        any |= (state_.compliance == "hipaa" && r->hipaa.value_or(false)) ||
               (state_.compliance == "gdpr" && r->gdpr_eu.value_or(false)) ||
               (state_.compliance == "gov" && r->gov.value_or(false));
      }
      if (!any) continue;
    }
    auto q = quote_price(in, state_.pricing, catalog_.pricing, state_.region);
    rows.push_back({&in, q.ok() ? std::optional<PriceQuote>(q.value()) : std::nullopt});
  }
  std::sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    if (instance_sort_ == 1) return a.in->gpu < b.in->gpu;
    if (instance_sort_ == 2) return a.in->provider < b.in->provider;
    const double pa = a.q ? a.q->usd_per_hour : 1e18, pb = b.q ? b.q->usd_per_hour : 1e18;
    return pa < pb;
  });
  ImGui::Text("Instances (%s pricing)", pricing_name(state_.pricing));
  if (ImGui::BeginTable("instances", 7,
                        ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter | ImGuiTableFlags_ScrollY |
                            ImGuiTableFlags_Resizable,
                        ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 14))) {
    for (const char* h : {"instance", "GPU", "GPUs", "vCPUs", "USD/h", "region", "basis"}) ImGui::TableSetupColumn(h);
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableHeadersRow();
    for (const auto& r : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (ImGui::Selectable((r.in->id + "##i-" + r.in->id).c_str(), r.in->id == state_.instance,
                            ImGuiSelectableFlags_SpanAllColumns)) {
        state_.instance = r.in->id;
        state_.nodes = 1;
        changed();
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.in->gpu.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%d", r.in->gpu_count);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.in->vcpus > 0 ? std::to_string(r.in->vcpus).c_str() : "-");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.q ? fmt("%.4g", r.q->usd_per_hour).c_str() : "no price");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.q ? r.q->region.c_str() : "-");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.q ? (r.q->assumption ? "rule (assumption)" : "published") : "-");
    }
    ImGui::EndTable();
  }
  ImGui::TextDisabled("Rules (assumptions, change in data/pricing_rules.json): monthly -%.0f%%, reserved -%.0f%%, bulk -%.0f%%, spot -%.0f%%",
                      100 * catalog_.pricing.monthly, 100 * catalog_.pricing.reserved, 100 * catalog_.pricing.bulk,
                      100 * catalog_.pricing.spot);
  ImGui::Spacing();
  ImGui::TextUnformatted("GPUs (dense peaks; sparse figures are never used)");
  if (ImGui::BeginTable("gpus", 6, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter | ImGuiTableFlags_ScrollY,
                        ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 10))) {
    for (const char* h : {"GPU", "memory", "bandwidth", "bf16 TFLOPS", "fp32 TFLOPS", "TDP"}) ImGui::TableSetupColumn(h);
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableHeadersRow();
    for (const auto& g : catalog_.gpus) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (ImGui::Selectable((g.name + "##gpu-row-" + g.id).c_str(), state_.instance.empty() && g.id == state_.gpu,
                            ImGuiSelectableFlags_SpanAllColumns)) {
        state_.instance.clear();
        state_.gpu = g.id;
        changed();
      }
      if (ImGui::IsItemHovered()) {
        auto it = g.fact_sources.find("memory_bytes");
        if (it != g.fact_sources.end()) ImGui::SetTooltip("memory: %s (%s)", it->second.title.c_str(), it->second.date.c_str());
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_bytes(g.memory_bytes).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.0f GB/s", g.memory_bandwidth_bytes_per_s / 1e9);
      auto peak = [&](const char* p) {
        auto it = g.peak_dense_flops_per_s.find(p);
        return it == g.peak_dense_flops_per_s.end() ? std::string("-") : fmt("%.4g", it->second / 1e12);
      };
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(peak("bf16").c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(peak("fp32").c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(g.tdp_w > 0 ? fmt("%.0f W", g.tdp_w).c_str() : "-");
    }
    ImGui::EndTable();
  }
}

void App::draw_benchmarks() {
  ImGui::TextWrapped(
      "Upload a file written by gpuplan-probe (drop it on the page, or use Upload file). Its signature is checked "
      "in your browser; the file never leaves it.");
  if (!probe_) {
    ImGui::TextDisabled("No probe file loaded. Try one: gpuplan-probe --simulate h100-sxm5-80gb --out probe.json");
    return;
  }
  const ProbeFile& f = *probe_;
  const char* sig = probe_signature_name(f.signature);
  if (f.signature == ProbeSignature::valid) {
    ImGui::TextColored(ImVec4(0.4f, 0.85f, 0.5f, 1), "Signature valid (key %s, %s)", f.fingerprint.c_str(),
                       f.trusted ? "trusted" : "not pinned");
  } else {
    ImGui::TextColored(ImVec4(1, 0.7f, 0.3f, 1), "Signature: %s %s", sig, f.reason.c_str());
  }
  ImGui::TextWrapped("A valid signature proves the file was not changed after it was signed, not that the numbers are honest.");
  if (f.signature == ProbeSignature::valid && !f.trusted && ImGui::Button("Trust this key##trust")) {
    trusted_keys_.push_back(f.public_key);
    keys_changed_ = true;
    reread_probe();
  }
  remember("trust");
  if (!f.payload) return;
  const ProbePayload& p = *f.payload;
  if (p.simulated) error_text("SIMULATED: figures made from the catalog by gpuplan-probe --simulate, not measured.");
  ImGui::Text("%s x%lld (%s) on %lld node%s, %s to %s", p.summary.gpu_name.c_str(),
              static_cast<long long>(p.summary.gpu_count), p.summary.catalog_gpu_id.value_or("not in catalog").c_str(),
              static_cast<long long>(p.summary.node_count), p.summary.node_count == 1 ? "" : "s", p.started_utc.c_str(),
              p.finished_utc.c_str());
  if (p.cloud_instance_type) ImGui::Text("Instance: %s", p.cloud_instance_type->c_str());
  const Gpu* g = p.summary.catalog_gpu_id ? catalog_.find_gpu(*p.summary.catalog_gpu_id) : nullptr;
  if (ImGui::BeginTable("measured", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter)) {
    ImGui::TableSetupColumn("measured vs spec");
    ImGui::TableSetupColumn("measured");
    ImGui::TableSetupColumn("spec");
    ImGui::TableHeadersRow();
    auto row = [&](const char* label, const std::optional<double>& v, double spec, double unit, const char* u) {
      if (!v) return;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(label);
      ImGui::TableNextColumn();
      ImGui::Text("%.4g %s", *v / unit, u);
      ImGui::TableNextColumn();
      if (spec > 0) ImGui::Text("%.4g %s (%.0f%%)", spec / unit, u, 100 * *v / spec);
      else ImGui::TextUnformatted("-");
    };
    auto spec_peak = [&](const char* key) {
      if (!g) return 0.0;
      auto it = g->peak_dense_flops_per_s.find(key);
      return it == g->peak_dense_flops_per_s.end() ? 0.0 : it->second;
    };
    const ProbeGemm& gm = p.summary.gemm_flop_per_s;
    row("GEMM fp32", gm.fp32, spec_peak("fp32"), 1e12, "TFLOPS");
    row("GEMM tf32", gm.tf32, spec_peak("tf32"), 1e12, "TFLOPS");
    row("GEMM fp16", gm.fp16, spec_peak("fp16"), 1e12, "TFLOPS");
    row("GEMM bf16", gm.bf16, spec_peak("bf16"), 1e12, "TFLOPS");
    row("GEMM fp8", gm.fp8, spec_peak("fp8"), 1e12, "TFLOPS");
    row("HBM copy", p.summary.hbm_copy_bytes_per_s, g ? g->memory_bandwidth_bytes_per_s : 0, 1e9, "GB/s");
    row("host->device pinned", p.summary.h2d_pinned_bytes_per_s, 0, 1e9, "GB/s");
    row("all-reduce bus", p.summary.allreduce_busbw_bytes_per_s, g ? g->nvlink_bandwidth_bytes_per_s / 2 : 0, 1e9, "GB/s");
    ImGui::EndTable();
  }
  if (ImGui::Checkbox("Calibrate predictions with this file##calibrate", &calibrate_)) recompute();
  remember("calibrate");
  for (const auto& n : c_.calibration_notes) note_text(n);
  for (const auto& w : p.warnings) note_text("probe warning: " + w);
}

std::string App::results_json() const {
  nlohmann::ordered_json j;
  j["query"] = query();
  j["error"] = error_.empty() ? c_.error : error_;
  j["tab"] = tab_name(state_.tab);
  const Model* zoo = c_.model ? &*c_.model : nullptr;
  if (c_.estimate && zoo) {
    j["estimate"] = nlohmann::ordered_json::parse(estimate_to_json(*zoo, state_.request, *c_.estimate, -1));
    j["gpu"] = c_.gpu->id;
    j["instance"] = c_.instance ? nlohmann::ordered_json(c_.instance->id) : nlohmann::ordered_json();
    j["fits"] = c_.fits;
    j["largest_term"] = c_.largest_term;
    j["fit_advice"] = c_.fit_advice;
  } else {
    j["estimate"] = nullptr;
  }
  j["time_error"] = c_.time_error;
  j["time"] = c_.time ? nlohmann::ordered_json::parse(step_time_to_json(*c_.time)) : nlohmann::ordered_json();
  j["time_calibrated"] =
      c_.time_calibrated ? nlohmann::ordered_json::parse(step_time_to_json(*c_.time_calibrated)) : nlohmann::ordered_json();
  if (c_.price) {
    j["cost"] = nlohmann::ordered_json::parse(run_cost_to_json(*c_.price, c_.cost ? &*c_.cost : nullptr, state_.nodes));
  } else if (c_.cost) {
    j["cost"] = {{"steps", c_.cost->steps}, {"hours", c_.cost->hours}, {"expected_hours", c_.cost->expected_hours}};
  } else {
    j["cost"] = nullptr;
  }
  if (plans_) {
    nlohmann::ordered_json top = nlohmann::ordered_json::array();
    for (const auto& p : plans_->plans) {
      top.push_back({{"instance", p.instance},
                     {"gpu", p.gpu},
                     {"nodes", p.nodes},
                     {"hours", p.cost.expected_hours},
                     {"usd_total", p.cost.usd_total},
                     {"pareto", p.pareto}});
    }
    j["plans"] = {{"candidates", plans_->candidates}, {"top", top}};
  } else {
    j["plans"] = plan_error_.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json({{"error", plan_error_}});
  }
  nlohmann::ordered_json upload = {{"status", upload_status_}, {"error", upload_error_}};
  if (probe_) {
    upload["signature"] = probe_signature_name(probe_->signature);
    upload["fingerprint"] = probe_->fingerprint;
    upload["trusted"] = probe_->trusted;
    upload["simulated"] = probe_->payload ? probe_->payload->simulated : false;
    upload["gpu"] = probe_->payload ? json_or_null(probe_->payload->summary.catalog_gpu_id) : nlohmann::ordered_json();
  }
  upload["calibrate"] = calibrate_;
  j["upload"] = upload;
  j["prices_as_of"] = catalog_.prices_as_of;
  j["widgets"] = rects_json_.empty() ? nlohmann::ordered_json::object() : nlohmann::ordered_json::parse(rects_json_);
  return j.dump();
}

std::string App::export_json() const {
  auto j = nlohmann::ordered_json::parse(results_json());
  j.erase("widgets");
  return j.dump(2);
}

std::string App::export_csv() const {
  std::string out = "quantity,value,unit\n";
  auto row = [&](const std::string& q, double v, const char* unit) {
    char b[64];
    std::snprintf(b, sizeof b, "%.10g", v);
    out += q + "," + b + "," + unit + "\n";
  };
  if (!c_.estimate) return out;
  const Estimate& e = *c_.estimate;
  row("params", static_cast<double>(e.params.total), "count");
  row("params_trainable", static_cast<double>(e.params.trainable), "count");
  row("flops_forward_per_sample", e.flops.forward_per_sample, "FLOP");
  row("flops_train_per_step", e.flops.train_per_step, "FLOP");
  const MemoryBytes& m = e.memory;
  for (auto [name, v] : {std::pair<const char*, double>{"weights", m.weights}, {"gradients", m.gradients},
                         {"optimizer", m.optimizer}, {"activations", m.activations}, {"kv_cache", m.kv_cache},
                         {"workspace", m.workspace}, {"context", m.context}, {"fragmentation", m.fragmentation},
                         {"total", m.total()}}) {
    row(std::string("memory_") + name, v, "bytes");
  }
  if (c_.time) {
    row("step", c_.time->step_s, "s");
    row("samples_per_s", c_.time->samples_per_s, "1/s");
    if (c_.time->tokens_per_s > 0) row("tokens_per_s", c_.time->tokens_per_s, "1/s");
    row("mfu", c_.time->mfu, "fraction");
  }
  if (c_.cost) {
    row("steps", c_.cost->steps, "count");
    row("hours", c_.cost->expected_hours, "h");
    row("usd_total", c_.cost->usd_total, "USD");
  }
  return out;
}

std::string estimate_query_json(const Catalog& catalog, const std::string& query) {
  auto error = [](const std::string& m) { return nlohmann::json{{"error", m}}.dump(); };
  auto args = query_to_args(query);
  if (!args.ok()) return error(args.error().message);
  auto r = parse_request(args.value());
  if (!r.ok()) return error(r.error().message);
  const Model* model = catalog.find_model(r.value().model);
  if (!model) return error("unknown model '" + r.value().model + "'");
  auto e = estimate(*model, r.value().setup);
  if (!e.ok()) return error(e.error().message);
  return estimate_to_json(*model, r.value(), e.value(), -1);
}

}  // namespace gpuplan::web
