// The sidebar (workload, setup, parallelism, hardware, run and pricing) and the toolbar above
// it. Each section edits a copy of the state and returns it as an action when the user changed
// something.
#include <algorithm>
#include <cstring>

#include "gpuplan/framework.h"
#include "gpuplan/precision.h"
#include "ui/screens.h"
#include "ui/widgets.h"

namespace gpuplan::web {
namespace {

bool showing_images(const PageModel& m) {
  return m.ev && (m.ev->model.kind == ModelKind::graph || m.ev->model.transformer.is_vision());
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
  const Query& q = m.state.query;
  const std::string current =
      m.ev ? model_name(m.ev->model)
           : (q.custom.kind != CustomModel::Kind::none ? std::string(tr(S::custom))
                                                       : q.request.model);
  key_tip("model");
  field_label(S::key_model);
  if (ImGui::BeginCombo(("##" + label(S::key_model)).c_str(), current.c_str(),
                        ImGuiComboFlags_HeightLarge)) {
    // The CLI's resolution: a name as people write it finds its entry; a near miss lists the
    // entries the CLI's "did you mean" would.
    const ModelSearch found = search_models(*m.catalog, m.model_filter);
    const Model* current_model =
        q.custom.kind == CustomModel::Kind::none ? m.catalog->find_model(q.request.model) : nullptr;
    if (!found.suggested.empty()) ImGui::TextDisabled("%s", tr(S::no_model_match));
    for (const Model* zoo : found.matches.empty() ? found.suggested : found.matches) {
      if (ImGui::Selectable((model_name(*zoo) + "##m-" + zoo->id).c_str(), zoo == current_model)) {
        PageState s = m.state;
        s.query.custom.kind = CustomModel::Kind::none;
        s.query.request.model = zoo->id;
        s.query.request.setup.seq_len = 0;
        s.query.request.setup.resolution = 0;
        a.state = s;
      }
      remember(a, "model-item-" + zoo->id);  // tests pick a model as a hand does
    }
    ImGui::EndCombo();
  }
  remember(a, "model");
}

// The editor's fields, each remembered under its link key (tests check it sits beside its label).
bool transformer_fields(TransformerSpec& t, UiActions& a) {
  // Inside the editor's tree node (indented), the column as wide as its own longest label; the
  // labels that need explaining are kept short, their explanation in a tooltip.
  const LabelColumnFit fit({S::key_c_layers, S::key_c_hidden, S::key_c_heads, S::key_c_kv_heads,
                            S::key_c_ffn, S::key_c_vocab, S::key_c_max_positions, S::key_c_experts,
                            S::key_c_experts_per_token});
  bool edited = false;
  edited |= key_int("c-layers", t.layers, a);
  edited |= key_int("c-hidden", t.hidden, a);
  edited |= key_int("c-heads", t.heads, a);
  edited |= key_int("c-kv-heads", t.kv_heads, a);
  edited |= key_int("c-ffn", t.ffn_hidden, a);
  edited |= key_int("c-vocab", t.vocab, a);
  edited |= key_int("c-max-positions", t.max_positions, a);
  edited |= key_int("c-experts", t.experts, a);
  if (t.experts > 1) edited |= key_int("c-experts-per-token", t.experts_per_token, a);
  const bool gated = t.gated_mlp;
  edited |= key_checkbox("c-gated", t.gated_mlp, a);
  edited |= key_checkbox("c-tied", t.tied_embeddings, a);
  // Switching the MLP kind switches what goes with it (norm, activation, positions): the
  // editor's conventions. Other edits keep the rest of the architecture (an uploaded config's).
  if (t.gated_mlp != gated) t = editor_conventions(t);
  return edited;
}

void custom_transformer(const PageModel& m, UiActions& a) {
  const bool open = ImGui::TreeNode(label(S::custom_transformer).c_str());
  remember(a, "custom-transformer");
  if (!open) return;
  PageState s = m.state;
  CustomModel& c = s.query.custom;
  if (c.kind != CustomModel::Kind::transformer &&
      ImGui::Button(label(S::start_from_model).c_str())) {
    c.kind = CustomModel::Kind::transformer;
    const Model* base = m.ev ? &m.ev->model : nullptr;
    if (base && base->kind == ModelKind::transformer && !base->transformer.is_vision()) {
      c.transformer = base->transformer;
    } else {
      c.transformer = m.catalog->find_model("gpt2-small")->transformer;
    }
    c.name = tr(S::custom_transformer, Lang::en);
    a.state = s;
  }
  if (c.kind == CustomModel::Kind::transformer) {
    if (transformer_fields(c.transformer, a)) a.state = s;
    if (ImGui::Button(label(S::back_to_zoo).c_str())) {
      c.kind = CustomModel::Kind::none;
      a.state = s;
    }
  }
  ImGui::TreePop();
}

void custom_cnn(const PageModel& m, UiActions& a) {
  const bool open = ImGui::TreeNode(label(S::custom_cnn).c_str());
  remember(a, "custom-cnn");
  if (!open) return;
  const LabelColumnFit fit({S::key_cnn, S::key_cnn_depth, S::key_cnn_width,
                            S::key_cnn_depth_multiple, S::key_cnn_classes});
  PageState s = m.state;
  CustomModel& c = s.query.custom;
  const char* builders[] = {"resnet", "vgg", "mobilenet_v2", "yolov5"};
  int current = 0;
  for (int i = 0; i < 4; ++i) {
    if (c.cnn_builder == builders[i]) current = i;
  }
  bool edited = false;
  key_tip("cnn");
  field_label(S::key_cnn);
  if (ImGui::Combo(("##" + label(S::key_cnn)).c_str(), &current, builders, 4)) {
    c.cnn_builder = builders[current];
    edited = true;
  }
  remember(a, "cnn");
  if (current <= 1) edited |= key_int("cnn-depth", c.cnn_depth, a);
  if (current >= 2) edited |= key_quantity("cnn-width", c.cnn_width, a);
  if (current == 3) edited |= key_quantity("cnn-depth-multiple", c.cnn_depth_multiple, a);
  edited |= key_int("cnn-classes", c.cnn_classes, a);
  if (edited ||
      (c.kind != CustomModel::Kind::cnn && ImGui::Button(label(S::use_this_cnn).c_str()))) {
    c.kind = CustomModel::Kind::cnn;
    s.query.request.setup.seq_len = 0;
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

// A field showing what evaluate() resolved when the query leaves it 0 (automatic).
template <class T>
bool resolved_int(const char* key, T& field, int64_t resolved, UiActions& a) {
  int64_t shown = field != 0 ? static_cast<int64_t>(field) : resolved;
  const bool edited = key_count(key, shown, a);
  if (edited) field = static_cast<T>(shown);
  return edited;
}

void auto_note(const std::string& resolved) {
  ImGui::Indent();
  ImGui::TextDisabled(tr(S::auto_resolved), resolved.c_str());
  ImGui::Unindent();
}

bool shape_fields(const PageModel& m, Query& q, UiActions& a) {
  Setup& s = q.request.setup;
  const Estimate* e = m.ev ? &m.ev->estimate : nullptr;
  bool edited = resolved_int("batch", s.global_batch, e ? e->global_batch : 0, a);
  edited |= key_int("micro-batch", s.micro_batch, a, true);
  if (s.micro_batch == 0 && e) auto_note(format_count(static_cast<double>(e->micro_batch)));
  if (showing_images(m)) {
    edited |= resolved_int("resolution", s.resolution, e ? e->resolution : 0, a);
  } else {
    edited |= resolved_int("seq", s.seq_len, e ? e->seq_len : 0, a);
  }
  if (s.mode == Mode::infer) {
    edited |= key_int("generate", s.generate_tokens, a);
    if (s.generate_tokens > 0) edited |= key_choice("runtime", q, a);
  }
  return edited;
}

// A box for each of Megatron's module names a Setup field holds as bits (--recompute-modules,
// --cuda-graph-modules). Selective checkpointing takes no empty list: there the last ticked box
// stays ticked.
bool module_boxes(S title, const char* key, std::string (*names_of)(unsigned),
                  std::optional<unsigned> (*parse)(const std::string&), unsigned& field,
                  bool empty_allowed, UiActions& a) {
  ImGui::Indent();
  ImGui::TextUnformatted(tr(title));
  bool edited = false;
  const std::string names = names_of(~0u);
  for (size_t start = 0; start < names.size();) {
    const size_t comma = std::min(names.find(',', start), names.size());
    const std::string name = names.substr(start, comma - start);
    if (start > 0) same_line_if_fits(radio_width(name));  // boxes side by side where they fit
    start = comma + 1;
    const unsigned bit = parse(name).value_or(0);
    bool on = (field & bit) != 0;
    if (ImGui::Checkbox((name + "##" + key).c_str(), &on)) {
      const unsigned next = on ? field | bit : field & ~bit;
      if (next != 0 || empty_allowed) {
        edited = true;
        field = next;
      }
    }
    remember(a, std::string(key) + "-" + name);
  }
  ImGui::Unindent();
  return edited;
}

bool training_fields(Query& q, UiActions& a) {
  Setup& s = q.request.setup;
  bool edited = key_choice("framework", q, a);
  edited |= key_choice("optimizer", q, a);
  edited |= key_choice("optimizer-loop", q, a,
                       words_of<OptimizerLoop, parse_optimizer_loop, tr_optimizer_loop>);
  edited |= key_checkbox("clip-grad-norm", s.clip_grad_norm, a);
  if (is_mixed(s.precision)) edited |= key_choice("grad-reduce", q, a);
  if (key_choice("checkpointing", q, a,
                 words_of<Checkpointing, parse_checkpointing, tr_checkpointing>)) {
    edited = true;
    // The module list belongs to selective checkpointing: leaving it drops the list.
    if (s.checkpointing != Checkpointing::selective) s.recompute_modules = kRecomputeCoreAttn;
  }
  if (s.checkpointing == Checkpointing::selective || s.recompute_modules != kRecomputeCoreAttn)
    edited |= module_boxes(S::key_recompute_modules, "recompute-modules", recompute_modules_name,
                           parse_recompute_modules, s.recompute_modules, false, a);
  if (s.checkpointing == Checkpointing::every_k_layers)
    edited |= key_int("checkpoint-every", s.checkpoint_every, a);
  if (s.checkpointing == Checkpointing::block)
    edited |= key_int("recompute-num-layers", s.recompute_num_layers, a);
  // Megatron offloads activations only without recompute (and without pipeline stages).
  if (s.checkpointing == Checkpointing::none || s.offload_activation_layers > 0)
    edited |= key_int("offload-activation-layers", s.offload_activation_layers, a);
  edited |=
      key_choice("pytorch", q, a, words_of<TorchRelease, parse_torch_release, tr_torch_release>);
  // Megatron's training CUDA graphs (the boxes stay while any is ticked).
  if (runs_megatron_core(s.framework) || s.cuda_graph_modules != 0) {
    edited |= module_boxes(S::key_cuda_graph_modules, "cuda-graph-modules", cuda_graph_modules_name,
                           parse_cuda_graph_modules, s.cuda_graph_modules, true, a);
  }
  return edited;
}

bool kernel_fields(const PageModel& m, Query& q, UiActions& a) {
  Setup& s = q.request.setup;
  bool edited = false;
  const Estimate* e = m.ev ? &m.ev->estimate : nullptr;
  if (s.mode == Mode::train) edited |= training_fields(q, a);
  if (m.ev && m.ev->model.kind == ModelKind::graph) {
    edited |= key_choice("memory-format", q, a,
                         words_of<MemoryFormat, parse_memory_format, tr_memory_format>);
    if (s.memory_format == MemoryFormat::automatic && e && !e->memory_format.empty())
      auto_note(e->memory_format);
  } else {
    edited |= key_choice("attention", q, a, words_of<Attention, parse_attention, tr_attention>);
    if (s.attention == Attention::automatic && e && !e->attention.empty()) {
      ImGui::Indent();
      ImGui::TextDisabled(tr(S::auto_attention), e->attention.c_str(),
                          tr_attention_reason(e->attention_reason));
      ImGui::Unindent();
    }
    // Transformer Engine's FP8 attention, under its recipes (the box stays while ticked).
    if (s.mode == Mode::train && (is_low_precision(s.precision) || s.fp8_attention))
      edited |= key_checkbox("fp8-attention", s.fp8_attention, a);
    edited |= key_checkbox("compile", s.compile, a);
    if (s.mode == Mode::train) edited |= key_checkbox("fused-loss", s.fused_loss, a);
  }
  return edited;
}

void setup_section(const PageModel& m, UiActions& a) {
  if (!ImGui::CollapsingHeader(label(S::sec_setup).c_str(), ImGuiTreeNodeFlags_DefaultOpen)) return;
  PageState st = m.state;
  Query& q = st.query;
  bool edited = key_choice("mode", q, a, words_of<Mode, parse_mode, tr_mode>);
  edited |= shape_fields(m, q, a);
  // The precisions the key table lists (a recipe added there appears here).
  edited |= key_choice("precision", q, a);
  edited |= kernel_fields(m, q, a);
  if (edited) a.state = st;
}

void parallelism_section(const PageModel& m, UiActions& a) {
  const bool open = ImGui::CollapsingHeader(label(S::sec_parallel).c_str());
  remember(a, "section-parallel");
  if (!open) return;
  PageState st = m.state;
  Setup& s = st.query.request.setup;
  bool edited = key_int("tp", s.tp, a);
  edited |= key_int("pp", s.pp, a);
  if (s.pp > 1 || s.vp > 1) edited |= key_int("vp", s.vp, a);
  edited |= key_int("cp", s.cp, a);
  edited |= key_checkbox("sp", s.sequence_parallel, a);
  // Expert parallelism and its all-to-all, for a mixture of experts (or a setup that names them).
  const bool moe =
      m.ev && m.ev->model.kind == ModelKind::transformer && m.ev->model.transformer.is_moe();
  if (moe || s.ep > 1 || s.moe_a2a_overlap) {
    edited |= key_int("ep", s.ep, a);
    edited |= key_choice("moe-dispatcher", st.query, a);
    // HybridEP's per-rank budget (the field stays while one is set).
    if (s.moe_dispatcher == MoeDispatcher::hybridep || s.moe_rank_capacity > 0)
      edited |= key_quantity("moe-rank-capacity", s.moe_rank_capacity, a, true);
    edited |= key_checkbox("moe-a2a-overlap", s.moe_a2a_overlap, a);
  }
  edited |= key_int("zero", s.zero_stage, a);
  // Hybrid sharding groups, once ZeRO shards (the field stays while one is set).
  if (s.zero_stage > 0 || s.dp_shard > 0) edited |= key_int("dp-shard", s.dp_shard, a);
  ImGui::TextDisabled(tr(S::dp_note), m.ev ? m.ev->query.request.setup.dp : 0);
  edited |= key_int("lora-rank", s.lora_rank, a);
  if (s.lora_rank > 0) edited |= key_checkbox("qlora", s.qlora, a);
  if (edited) a.state = st;
}

bool gpu_picker(const PageModel& m, Query& q, UiActions& a) {
  bool edited = false;
  const Gpu* g = m.catalog->find_gpu(q.gpu);
  key_tip("gpu");
  field_label(S::key_gpu);
  const std::string shown = g ? g->name : q.gpu.empty() ? tr(S::no_hardware) : q.gpu;
  if (ImGui::BeginCombo(("##" + label(S::key_gpu)).c_str(), shown.c_str(),
                        ImGuiComboFlags_HeightLarge)) {
    if (ImGui::Selectable(tr(S::no_hardware), q.gpu.empty())) {
      edited = !q.gpu.empty();
      q.gpu.clear();
      q.gpus = 0;
    }
    for (const auto& gpu : m.catalog->gpus) {
      if (ImGui::Selectable((gpu.name + "##g-" + gpu.id).c_str(), gpu.id == q.gpu)) {
        edited = gpu.id != q.gpu;
        q.gpu = gpu.id;
      }
    }
    ImGui::EndCombo();
  }
  remember(a, "gpu");
  if (!q.gpu.empty()) edited |= resolved_int("gpus", q.gpus, m.ev ? m.ev->gpus : 1, a);
  return edited;
}

void hardware_section(const PageModel& m, UiActions& a) {
  if (!ImGui::CollapsingHeader(label(S::sec_hardware).c_str(), ImGuiTreeNodeFlags_DefaultOpen))
    return;
  PageState s = m.state;
  Query& q = s.query;
  bool edited = false;
  if (q.instance.empty()) {
    edited = gpu_picker(m, q, a);
  } else {
    ImGui::Text(tr(S::instance_is), q.instance.c_str());
    edited |= resolved_int("nodes", q.nodes, m.ev ? m.ev->query.nodes : 1, a);
    if (ImGui::Button(label(S::bare_gpu).c_str())) {
      if (m.ev && m.ev->gpu) q.gpu = m.ev->gpu->id;
      q.instance.clear();
      q.nodes = 0;
      edited = true;
    }
  }
  if (edited) a.state = s;
}

// What spot and reserved pricing assume, where the pricing is one of them.
bool pricing_fields(Query& q, UiActions& a) {
  bool edited = false;
  if (q.pricing == Pricing::spot) {
    edited |= key_quantity("spot-interruptions-per-hour", q.spot.interruptions_per_hour, a, true);
    edited |= key_quantity("checkpoint-interval-hours", q.spot.checkpoint_interval_h, a);
    edited |= key_quantity("restart-hours", q.spot.restart_h, a, true);
  }
  if (q.pricing == Pricing::reserved_1y || q.pricing == Pricing::reserved_3y)
    edited |= key_quantity("reservation-utilisation", q.commitment.utilisation, a, true);
  return edited;
}

void run_section(const PageModel& m, UiActions& a) {
  if (!ImGui::CollapsingHeader(label(S::sec_run).c_str(), ImGuiTreeNodeFlags_DefaultOpen)) return;
  PageState s = m.state;
  RunLength& run = s.query.run;
  const bool images = showing_images(m);
  bool edited = false;
  if (images || run.epochs > 0) {
    edited |= key_quantity("epochs", run.epochs, a, true);
    double size = run.dataset_size > 0 ? run.dataset_size
                                       : (m.ev ? static_cast<double>(m.ev->model.dataset_size) : 0);
    if (key_quantity("dataset-size", size, a, true)) {
      run.dataset_size = size;
      edited = true;
    }
  }
  if (!images || run.tokens > 0) edited |= key_quantity("tokens", run.tokens, a, true);
  edited |= key_choice("pricing", s.query, a, words_of<Pricing, parse_pricing, tr_pricing>);
  edited |= pricing_fields(s.query, a);
  if (!edited) return;
  if (run.epochs > 0 && run.tokens > 0) run.tokens = 0;
  a.state = s;
}

}  // namespace

namespace {

// The currency switch: USD and CNY side by side, the page's one lit; a click sets the link's
// `currency` (the CLI's --currency). Its tooltip gives the one rate and its source.
void currency_switch(const PageModel& m, UiActions& a) {
  const std::pair<S, const char*> choices[] = {{S::currency_usd, "USD"}, {S::currency_cny, "CNY"}};
  for (const auto& [id, code] : choices) {
    ImGui::SameLine(0, id == S::currency_usd ? -1.0f : 0.0f);
    const float w = ImGui::CalcTextSize(tr(id)).x + ImGui::GetStyle().FramePadding.x * 2;
    if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();  // wraps as the buttons do
    const bool on = m.state.query.currency == code;
    if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::SmallButton(label(id).c_str()) && !on) {
      PageState s = m.state;
      s.query.currency = code;
      a.state = s;
    }
    if (on) ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) {
      const Result<Money> cny = money_for("CNY", m.catalog->pricing);
      ImGui::SetTooltip(
          "%s",
          cny.ok()
              ? format(tr(S::currency_rate), format_number(cny.value().usd_per_unit, 4).c_str(),
                       cny.value().rate_source.c_str())
                    .c_str()
              : format(tr(S::currency_no_rate), page_message(cny.error()).c_str()).c_str());
    }
    remember(a, id == S::currency_usd ? "currency-usd" : "currency-cny");
  }
}

}  // namespace

UiActions draw_toolbar(const PageModel& m) {
  UiActions a(m.ratio);
  ImGui::TextUnformatted(tr(S::app_title));
  const std::pair<S, const char*> buttons[] = {{S::copy_link, "copy-link"},
                                               {S::export_csv, "export-csv"},
                                               {S::export_json, "export-json"},
                                               {S::upload_file, "upload"},
                                               {S::help, "help"},
                                               {S::key_lang, "language"}};
  float width = 0;
  for (const auto& [id, action] : buttons)
    width += ImGui::CalcTextSize(tr(id)).x + ImGui::GetStyle().ItemSpacing.x * 2;
  for (S id : {S::currency_usd, S::currency_cny})
    width += ImGui::CalcTextSize(tr(id)).x + ImGui::GetStyle().FramePadding.x * 2;
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
      a.platform.push_back(id == S::help ? "open-url/" + help_url() : std::string(action));
    remember(a, action);
  }
  currency_switch(m, a);
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
  const LabelColumnFit fit({S::search, S::key_model,                                  // workload
                            S::key_mode, S::key_batch, S::key_micro_batch, S::key_seq,  // setup
                            S::key_resolution, S::key_generate, S::key_precision,
                            S::key_optimizer, S::key_optimizer_loop, S::key_checkpointing,
                            S::key_memory_format, S::key_attention, S::key_grad_reduce,
                            S::key_checkpoint_every, S::key_offload_activation_layers,
                            S::key_recompute_num_layers,
                            S::key_pytorch,
                            S::key_tp, S::key_pp, S::key_zero, S::key_lora_rank,  // parallelism
                            S::key_gpu, S::key_gpus, S::key_nodes,                // hardware
                            S::key_epochs, S::key_dataset_size, S::key_tokens,    // run
                            S::key_pricing, S::key_spot_interruptions_per_hour,
                            S::key_checkpoint_interval_hours, S::key_restart_hours,
                            S::key_reservation_utilisation});
  // clang-format on
  workload_section(m, a);
  setup_section(m, a);
  parallelism_section(m, a);
  hardware_section(m, a);
  run_section(m, a);
  return a;
}

}  // namespace gpuplan::web
