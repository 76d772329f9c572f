// The sidebar (workload, setup, parallelism, hardware, run and pricing) and the toolbar above
// it. Each section edits a copy of the state and returns it as an action when the user changed
// something.
#include <algorithm>
#include <cctype>
#include <cstring>

#include "gpuplan/precision.h"
#include "ui/screens.h"
#include "ui/widgets.h"

namespace gpuplan::web {
namespace {

bool showing_images(const PageModel& m) {
  return m.c.model && (m.c.model->kind == ModelKind::graph || m.c.model->transformer.is_vision());
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return s;
}

void model_picker(const PageModel& m, UiActions& a) {
  char filter[64] = {};
  std::strncpy(filter, m.model_filter.c_str(), sizeof filter - 1);
  field_label(S::search);
  if (ImGui::InputTextWithHint(("##" + label(S::search)).c_str(), tr(S::filter_hint), filter,
                               sizeof filter)) {
    a.model_filter = filter;
  }
  remember(a, "model-filter");
  const std::string current =
      m.c.model ? m.c.model->name
                : (m.state.custom.kind != CustomModel::Kind::none ? std::string(tr(S::custom))
                                                                  : m.state.request.model);
  field_label(S::model);
  if (ImGui::BeginCombo(("##" + label(S::model)).c_str(), current.c_str(),
                        ImGuiComboFlags_HeightLarge)) {
    const std::string needle = lower(m.model_filter);
    for (const auto& zoo : m.catalog->models) {
      if (!needle.empty() &&
          lower(zoo.id + " " + zoo.name + " " + zoo.task).find(needle) == std::string::npos)
        continue;
      const bool selected =
          m.state.custom.kind == CustomModel::Kind::none && zoo.id == m.state.request.model;
      if (ImGui::Selectable((zoo.name + "##m-" + zoo.id).c_str(), selected)) {
        PageState s = m.state;
        s.custom.kind = CustomModel::Kind::none;
        s.request.model = zoo.id;
        s.request.setup.seq_len = 0;
        s.request.setup.resolution = 0;
        a.state = s;
      }
    }
    ImGui::EndCombo();
  }
  remember(a, "model");
}

// The editor's fields, each remembered under its link key (tests check it sits beside its label).
bool transformer_fields(TransformerSpec& t, UiActions& a) {
  // Inside the editor's tree node (indented), the column as wide as its own longest label; the
  // labels that need explaining are kept short, their explanation in a tooltip.
  const LabelColumnFit fit({S::layers, S::hidden, S::heads, S::kv_heads, S::ffn_hidden, S::vocab,
                            S::max_positions, S::experts, S::experts_per_token});
  bool edited = false;
  edited |= input_int(S::layers, t.layers, 1, 100000, &a, "c-layers");
  edited |= input_int(S::hidden, t.hidden, 8, 1000000, &a, "c-hidden");
  edited |= input_int(S::heads, t.heads, 1, 100000, &a, "c-heads");
  next_label_tip(S::kv_heads_tip);
  edited |= input_int(S::kv_heads, t.kv_heads, 0, 100000, &a, "c-kv-heads");
  edited |= input_int(S::ffn_hidden, t.ffn_hidden, 1, 10000000, &a, "c-ffn");
  edited |= input_int(S::vocab, t.vocab, 1, 10000000, &a, "c-vocab");
  next_label_tip(S::max_positions_tip);
  edited |= input_int(S::max_positions, t.max_positions, 0, 100000000, &a, "c-max-positions");
  next_label_tip(S::experts_tip);
  edited |= input_int(S::experts, t.experts, 0, 4096, &a, "c-experts");
  if (t.experts > 1) {
    edited |= input_int(S::experts_per_token, t.experts_per_token, 1, t.experts, &a,
                        "c-experts-per-token");
  }
  edited |= checkbox(S::gated_mlp, t.gated_mlp);
  edited |= checkbox(S::tied_embeddings, t.tied_embeddings);
  return edited;
}

void custom_transformer(const PageModel& m, UiActions& a) {
  const bool open = ImGui::TreeNode(label(S::custom_transformer).c_str());
  remember(a, "custom-transformer");
  if (!open) return;
  PageState s = m.state;
  if (s.custom.kind != CustomModel::Kind::transformer &&
      ImGui::Button(label(S::start_from_model).c_str())) {
    s.custom.kind = CustomModel::Kind::transformer;
    const Model* base = m.c.model ? &*m.c.model : nullptr;
    if (base && base->kind == ModelKind::transformer && !base->transformer.is_vision()) {
      s.custom.transformer = base->transformer;
    } else {
      s.custom.transformer = m.catalog->find_model("gpt2-small")->transformer;
    }
    s.custom.name = tr(S::custom_transformer, Lang::en);
    a.state = s;
  }
  if (s.custom.kind == CustomModel::Kind::transformer) {
    if (transformer_fields(s.custom.transformer, a)) {
      // Round-trip through the URL form so the editor's conventions apply in one place.
      auto again = page_state_from_query(page_state_to_query(s));
      a.state = again.ok() ? again.value() : s;
    }
    if (ImGui::Button(label(S::back_to_zoo).c_str())) {
      s.custom.kind = CustomModel::Kind::none;
      a.state = s;
    }
  }
  ImGui::TreePop();
}

void custom_cnn(const PageModel& m, UiActions& a) {
  const bool open = ImGui::TreeNode(label(S::custom_cnn).c_str());
  remember(a, "custom-cnn");
  if (!open) return;
  const LabelColumnFit fit({S::family, S::depth, S::width, S::depth_multiple, S::classes});
  PageState s = m.state;
  const char* builders[] = {"resnet", "vgg", "mobilenet_v2", "yolov5"};
  int current = 0;
  for (int i = 0; i < 4; ++i) {
    if (s.custom.cnn_builder == builders[i]) current = i;
  }
  bool edited = false;
  field_label(S::family);
  if (ImGui::Combo(("##" + label(S::family)).c_str(), &current, builders, 4)) {
    s.custom.cnn_builder = builders[current];
    edited = true;
  }
  remember(a, "cnn");
  CustomModel& c = s.custom;
  if (current <= 1) edited |= input_int(S::depth, c.cnn_depth, 1, 200, &a, "cnn-depth");
  if (current >= 2) edited |= input_quantity(S::width, c.cnn_width, 0.1, 4, &a, "cnn-width");
  if (current == 3) {
    edited |=
        input_quantity(S::depth_multiple, c.cnn_depth_multiple, 0.1, 4, &a, "cnn-depth-multiple");
  }
  edited |= input_int(S::classes, c.cnn_classes, 1, 100000, &a, "cnn-classes");
  if (edited ||
      (s.custom.kind != CustomModel::Kind::cnn && ImGui::Button(label(S::use_this_cnn).c_str()))) {
    s.custom.kind = CustomModel::Kind::cnn;
    s.request.setup.seq_len = 0;
    a.state = s;
  }
  ImGui::TreePop();
}

void workload_section(const PageModel& m, UiActions& a) {
  if (!ImGui::CollapsingHeader(label(S::sec_workload).c_str(), ImGuiTreeNodeFlags_DefaultOpen))
    return;
  model_picker(m, a);
  custom_transformer(m, a);
  custom_cnn(m, a);
  ImGui::TextDisabled("%s", tr(S::drop_hint));
  if (!m.upload_status.empty()) ImGui::TextWrapped("%s", m.upload_status.c_str());
}

// A field showing what the estimate resolved when the state leaves it 0 (automatic).
bool resolved_int(S id, const char* name, int64_t& field, int64_t resolved, int64_t max,
                  UiActions& a) {
  int64_t shown = field != 0 ? field : resolved;
  const bool edited = input_count(id, shown, 1, max, &a, name);
  if (edited) field = shown;
  return edited;
}

void auto_note(const std::string& resolved) {
  ImGui::Indent();
  ImGui::TextDisabled(tr(S::auto_resolved), resolved.c_str());
  ImGui::Unindent();
}

bool shape_fields(const PageModel& m, Setup& s, UiActions& a) {
  const Estimate* e = m.c.estimate ? &*m.c.estimate : nullptr;
  bool edited = resolved_int(S::global_batch, "batch", s.global_batch, e ? e->global_batch : 0,
                             100'000'000, a);
  edited |= input_int(S::micro_batch, s.micro_batch, 0, 100'000'000, &a, "micro-batch");
  if (s.micro_batch == 0 && e) auto_note(format_count(static_cast<double>(e->micro_batch)));
  if (showing_images(m)) {
    edited |=
        resolved_int(S::resolution, "resolution", s.resolution, e ? e->resolution : 0, 100000, a);
  } else {
    edited |= resolved_int(S::seq_len, "seq", s.seq_len, e ? e->seq_len : 0, 100'000'000, a);
  }
  if (s.mode == Mode::infer)
    edited |= input_int(S::generate_tokens, s.generate_tokens, 0, 10'000'000);
  return edited;
}

bool kernel_fields(const PageModel& m, Setup& s, UiActions& a) {
  bool edited = false;
  const Estimate* e = m.c.estimate ? &*m.c.estimate : nullptr;
  if (s.mode == Mode::train) {
    edited |=
        enum_combo(S::optimizer, s.optimizer,
                   {Optimizer::sgd, Optimizer::sgd_momentum, Optimizer::adam, Optimizer::adamw,
                    Optimizer::adam_8bit, Optimizer::adafactor, Optimizer::lamb},
                   optimizer_name);
    remember(a, "optimizer");
    edited |= enum_combo(S::optimizer_loop, s.optimizer_loop,
                         {OptimizerLoop::foreach, OptimizerLoop::for_loop}, tr_optimizer_loop);
    remember(a, "optimizer-loop");
    edited |= checkbox(S::clip_grad_norm, s.clip_grad_norm);
    if (has_master_weights(s.precision)) {
      edited |=
          enum_combo(S::grad_reduce, s.grad_reduce,
                     {GradReduce::automatic, GradReduce::fp32, GradReduce::bf16}, grad_reduce_name);
    }
    edited |= enum_combo(S::checkpointing, s.checkpointing,
                         {Checkpointing::none, Checkpointing::selective, Checkpointing::full,
                          Checkpointing::op_selective, Checkpointing::every_k_layers},
                         tr_checkpointing);
    remember(a, "checkpointing");
    if (s.checkpointing == Checkpointing::every_k_layers)
      edited |= input_int(S::checkpoint_every, s.checkpoint_every, 1, 1000);
    edited |= enum_combo(S::pytorch_release, s.torch_release,
                         {TorchRelease::v1_11_or_later, TorchRelease::v1_10_or_earlier},
                         tr_torch_release);
    remember(a, "pytorch");
  }
  if (m.c.model && m.c.model->kind == ModelKind::graph) {
    edited |= enum_combo(S::memory_format, s.memory_format,
                         {MemoryFormat::automatic, MemoryFormat::nchw, MemoryFormat::channels_last},
                         tr_memory_format);
    if (s.memory_format == MemoryFormat::automatic && e && !e->memory_format.empty())
      auto_note(e->memory_format);
  } else {
    edited |= enum_combo(S::attention, s.attention,
                         {Attention::automatic, Attention::eager, Attention::flash}, tr_attention);
    if (s.attention == Attention::automatic && e && !e->attention.empty()) auto_note(e->attention);
    edited |= checkbox(S::compile_kernels, s.compile);
    if (s.mode == Mode::train) edited |= checkbox(S::fused_loss, s.fused_loss);
  }
  return edited;
}

void setup_section(const PageModel& m, UiActions& a) {
  if (!ImGui::CollapsingHeader(label(S::sec_setup).c_str(), ImGuiTreeNodeFlags_DefaultOpen)) return;
  PageState st = m.state;
  Setup& s = st.request.setup;
  bool edited = enum_combo(S::mode, s.mode, {Mode::train, Mode::infer}, tr_mode);
  remember(a, "mode");
  edited |= shape_fields(m, s, a);
  edited |= enum_combo(
      S::precision, s.precision,
      {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16, Precision::amp_fp16,
       Precision::amp_bf16, Precision::mixed_fp16, Precision::mixed_bf16, Precision::fp8,
       Precision::fp8_blockwise, Precision::mxfp8, Precision::nvfp4},
      precision_name);
  remember(a, "precision");
  edited |= kernel_fields(m, s, a);
  if (edited) a.state = st;
}

void parallelism_section(const PageModel& m, UiActions& a) {
  const bool open = ImGui::CollapsingHeader(label(S::sec_parallel).c_str());
  remember(a, "section-parallel");
  if (!open) return;
  PageState st = m.state;
  Setup& s = st.request.setup;
  bool edited = input_int(S::tp, s.tp, 1, 1024, &a, "tp");
  edited |= input_int(S::pp, s.pp, 1, 1024);
  edited |= checkbox(S::sp, s.sequence_parallel);
  edited |= input_int(S::zero, s.zero_stage, 0, 3, &a, "zero");
  ImGui::TextDisabled(tr(S::dp_note), m.c.estimate ? m.c.estimate->num_gpus / (s.tp * s.pp) : 0);
  edited |= input_int(S::lora_rank, s.lora_rank, 0, 4096);
  if (s.lora_rank > 0) edited |= checkbox(S::qlora, s.qlora);
  if (edited) a.state = st;
}

bool gpu_picker(const PageModel& m, PageState& s, UiActions& a) {
  bool edited = false;
  const Gpu* g = m.catalog->find_gpu(s.gpu);
  field_label(S::gpu);
  if (ImGui::BeginCombo(("##" + label(S::gpu)).c_str(), g ? g->name.c_str() : s.gpu.c_str(),
                        ImGuiComboFlags_HeightLarge)) {
    for (const auto& gpu : m.catalog->gpus) {
      if (ImGui::Selectable((gpu.name + "##g-" + gpu.id).c_str(), gpu.id == s.gpu)) {
        s.gpu = gpu.id;
        edited = true;
      }
    }
    ImGui::EndCombo();
  }
  remember(a, "gpu");
  edited |= input_int(S::gpus, s.gpus, 1, 4096, &a, "gpus");
  return edited;
}

void hardware_section(const PageModel& m, UiActions& a) {
  if (!ImGui::CollapsingHeader(label(S::sec_hardware).c_str(), ImGuiTreeNodeFlags_DefaultOpen))
    return;
  PageState s = m.state;
  bool edited = false;
  if (s.instance.empty()) {
    edited = gpu_picker(m, s, a);
  } else {
    ImGui::Text(tr(S::instance_is), s.instance.c_str());
    edited |= input_int(S::nodes, s.nodes, 1, 4096);
    if (ImGui::Button(label(S::bare_gpu).c_str())) {
      if (m.c.gpu) s.gpu = m.c.gpu->id;
      s.instance.clear();
      s.nodes = 1;
      edited = true;
    }
  }
  if (edited) a.state = s;
}

void run_section(const PageModel& m, UiActions& a) {
  if (!ImGui::CollapsingHeader(label(S::sec_run).c_str(), ImGuiTreeNodeFlags_DefaultOpen)) return;
  PageState s = m.state;
  const bool images = showing_images(m);
  bool edited = false;
  if (images || s.run.epochs > 0) {
    edited |= input_quantity(S::epochs, s.run.epochs, 0, 1e6);
    double size = s.run.dataset_size > 0
                      ? s.run.dataset_size
                      : (m.c.model ? static_cast<double>(m.c.model->dataset_size) : 0);
    if (input_quantity(S::dataset_size, size, 0, 1e13)) {
      s.run.dataset_size = size;
      edited = true;
    }
    if (s.run.epochs > 0 && s.run.dataset_size == 0 && size > 0) s.run.dataset_size = size;
  }
  if (!images || s.run.tokens > 0)
    edited |= input_quantity(S::tokens, s.run.tokens, 0, 1e16, &a, "tokens");
  edited |= enum_combo(S::pricing, s.pricing,
                       {Pricing::on_demand, Pricing::monthly, Pricing::reserved_1y,
                        Pricing::reserved_3y, Pricing::bulk, Pricing::spot},
                       tr_pricing);
  remember(a, "pricing");
  if (!edited) return;
  if (s.run.epochs > 0 && s.run.tokens > 0) s.run.tokens = 0;
  a.state = s;
}

}  // namespace

UiActions draw_toolbar(const PageModel& m) {
  UiActions a(m.ratio);
  ImGui::TextUnformatted(tr(S::app_title));
  const std::pair<S, const char*> buttons[] = {{S::copy_link, "copy-link"},
                                               {S::export_csv, "export-csv"},
                                               {S::export_json, "export-json"},
                                               {S::upload_file, "upload"},
                                               {S::language, "language"}};
  float width = 0;
  for (const auto& [id, action] : buttons)
    width += ImGui::CalcTextSize(tr(id)).x + ImGui::GetStyle().ItemSpacing.x * 2;
  // Right-aligned when there is room; on narrow screens the buttons wrap under the title.
  if (ImGui::GetContentRegionAvail().x > width + ImGui::CalcTextSize(tr(S::app_title)).x) {
    ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - width);
  }
  bool first = true;
  for (const auto& [id, action] : buttons) {
    if (!first) {
      // Wrap like words when the next button does not fit (phones).
      ImGui::SameLine();
      const float w = ImGui::CalcTextSize(tr(id)).x + ImGui::GetStyle().FramePadding.x * 2;
      if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
    }
    first = false;
    const bool copied = id == S::copy_link && m.copied_frames > 0;
    if (ImGui::SmallButton(label(copied ? S::link_copied : id).c_str()))
      a.platform.push_back(action);
    remember(a, action);
  }
  for (const LinkProblem& p : m.link_problems) {
    const std::string text = p.used.empty() ? page_message(p.error)
                                            : format(tr(S::err_fell_back),
                                                     page_message(p.error).c_str(), p.used.c_str());
    error_text(format(tr(S::link_error), text.c_str()));
  }
  if (!m.upload_error.empty()) error_text(format(tr(S::upload_error), m.upload_error.c_str()));
  return a;
}

UiActions draw_sidebar(const PageModel& m) {
  UiActions a(m.ratio);
  // The label column as wide as the longest label of the sections' fields, so none is cut in
  // either language. The custom model editors fit their own (indented) column.
  // clang-format off
  const LabelColumnFit fit({S::search, S::model,                                   // workload
                            S::mode, S::global_batch, S::micro_batch, S::seq_len,  // setup
                            S::resolution, S::generate_tokens, S::precision, S::optimizer,
                            S::optimizer_loop, S::checkpointing, S::memory_format, S::attention,
                            S::grad_reduce, S::checkpoint_every, S::pytorch_release,
                            S::tp, S::pp, S::zero, S::lora_rank,                   // parallelism
                            S::gpu, S::gpus, S::nodes,                             // hardware
                            S::epochs, S::dataset_size, S::tokens, S::pricing});   // run
  // clang-format on
  workload_section(m, a);
  setup_section(m, a);
  parallelism_section(m, a);
  hardware_section(m, a);
  run_section(m, a);
  return a;
}

}  // namespace gpuplan::web
