#include "ui/app.h"

#include <imgui.h>
#include <imgui_internal.h>  // ClosePopupToLevel: Escape closes popups

#include <chrono>
#include <cstdio>
#include <map>
#include <utility>

#include "catalog_files.h"
#include "model/exports.h"
#include "model/launch.h"
#include "gpuplan/hf_config.h"
#include "ui/screens.h"
#include "ui/widgets.h"

namespace gpuplan::web {

App::App(const Catalog& catalog, ProbeCrypto crypto) : catalog_(catalog), crypto_(crypto) {
  m_.catalog = &catalog_;
  m_.state = default_page_state();
  // No estimate yet: main() sets the link's state next (computing the defaults first would
  // cost the first frame a second estimate); draw() computes if nothing has.
}

void App::catalog_changed() {
  if (m_.ev || !m_.error.message.empty()) recompute();
  serve_key_.clear();  // a serving plan made before the instances arrived starts again
  compare_key_.clear();
}

void App::set_default_language(const std::string& code) {
  default_lang_ = lang_from_code(code);
  lang_ = m_.state.lang.empty() ? default_lang_ : lang_from_code(m_.state.lang);
}

void App::toggle_language() {
  lang_ = lang_ == Lang::zh ? Lang::en : Lang::zh;
  m_.state.lang = lang_code(lang_);
  set_language(lang_);
  request_changed_ = true;
  results_changed_ = true;
}

void App::set_state(const PageState& s) {
  m_.state = s;
  lang_ = s.lang.empty() ? default_lang_ : lang_from_code(s.lang);
  set_language(lang_);
  force_tab_ = true;
  m_.link_error.clear();
  m_.link_problems.clear();
  forget_refused_numbers();
  recompute();
}

void App::load_query(const std::string& query) {
  // Every good key of the link is kept; each bad one falls back and is marked where it lives.
  ParsedLink link = page_state_from_link(query);
  check_link_ids(catalog_, link);
  // The Chinese page shows CNY unless the link names a currency.
  const Lang lang = link.state.lang.empty() ? default_lang_ : lang_from_code(link.state.lang);
  if (lang == Lang::zh && !link_states_currency(query)) link.state.query.currency = "CNY";
  set_state(link.state);
  m_.opened_link = query.rfind('#', 0) == 0 ? query.substr(1) : query;
  m_.link_problems = std::move(link.problems);
  if (!m_.link_problems.empty()) m_.link_error = m_.link_problems.front().error.message;
}

std::string App::query() const {
  return page_link(m_.state, lang_ == Lang::zh);
}

void App::recompute() {
  results_changed_ = true;
  plans_stale_ = true;
  m_.plans.reset();
  m_.plan_error = Error{};
  search_.reset();
  m_.plan_progress = 1;
  auto ev = compute(catalog_, m_.state, m_.calibrate && m_.probe ? &*m_.probe : nullptr,
                    m_.measured ? &*m_.measured : nullptr,
                    times_generation(m_.state) ? serving() : nullptr);
  m_.ev.reset();
  m_.error = Error{};
  if (ev.ok())
    m_.ev = std::move(ev).value();
  else
    m_.error = ev.error();
}

bool App::take_request_changed() {
  return std::exchange(request_changed_, false);
}
bool App::take_results_changed() {
  return std::exchange(results_changed_, false);
}
bool App::take_keys_changed() {
  return std::exchange(keys_changed_, false);
}
std::vector<std::string> App::take_actions() {
  return std::exchange(actions_, {});
}

void App::set_trusted_keys(std::vector<std::string> keys) {
  trusted_keys_ = std::move(keys);
  reread_probe();
}

void App::reread_probe() {
  if (probe_text_.empty() && measured_text_.empty()) return;
  if (!probe_text_.empty()) {
    auto f = read_probe_file(probe_text_, crypto_, trusted_keys_);
    if (f.ok()) m_.probe = f.value();
  }
  if (!measured_text_.empty()) {
    auto f = read_probe_file(measured_text_, crypto_, trusted_keys_);
    if (f.ok()) m_.measured = f.value();
  }
  recompute();
}

std::string App::load_probe(const std::string& name, const std::string& bytes) {
  auto f = read_probe_file(bytes, crypto_, trusted_keys_);
  if (!f.ok()) return m_.upload_error = page_message(f.error());
  if (f.value().signature == ProbeSignature::invalid) {
    const ProbeFile& p = f.value();
    const Error why{Errc::signature_invalid, p.reason, p.reason_id, p.reason_args, {}};
    return m_.upload_error =
               format(tr(S::upload_sig_invalid), name.c_str(), page_message(why).c_str());
  }
  // A measured run of the user's model is shown beside the prediction (Results); a probe file's
  // GPU measurements on the Benchmarks tab, where it can calibrate.
  const bool measured = f.value().measured.has_value();
  (measured ? measured_text_ : probe_text_) = bytes;
  (measured ? m_.measured : m_.probe) = f.value();
  m_.upload_status = format(tr(measured ? S::upload_measured : S::upload_probe), name.c_str(),
                            probe_signature_name(f.value().signature));
  m_.state.tab = measured ? Tab::results : Tab::benchmarks;
  force_tab_ = true;
  request_changed_ = true;
  recompute();
  return "";
}

std::string App::load_file(const std::string& name, const std::string& bytes) {
  m_.upload_error.clear();
  results_changed_ = true;
  if (bytes.size() > kMaxProbeFileBytes) {
    return m_.upload_error =
               format(tr(S::upload_too_big), name.c_str(), std::to_string(bytes.size()).c_str(),
                      std::to_string(kMaxProbeFileBytes).c_str());
  }
  // A probe or measured-run file is a DSSE envelope (payloadType) or a bare payload (kind
  // gpuplan-probe or gpuplan-measure).
  if (bytes.find("\"payloadType\"") != std::string::npos ||
      bytes.find("\"gpuplan-probe\"") != std::string::npos ||
      bytes.find("\"gpuplan-measure\"") != std::string::npos) {
    return load_probe(name, bytes);
  }
  auto model = model_from_hf_config(bytes, name);
  if (!model.ok()) return m_.upload_error = page_message(model.error());
  // The config's architecture becomes the custom transformer, every field a link key, so a link
  // made from it reopens as the same model.
  PageState s = m_.state;
  Query& q = s.query;
  q.custom.kind = CustomModel::Kind::transformer;
  q.custom.transformer = model.value().transformer;
  q.custom.name = model.value().name;
  q.request.setup.seq_len = 0;
  q.request.setup.resolution = 0;
  auto resolved = gpuplan::resolve_model(catalog_, q);
  if (!resolved.ok()) return m_.upload_error = name + ": " + page_message(resolved.error());
  m_.upload_status = format(tr(S::upload_config), name.c_str(), model_name(model.value()).c_str());
  set_state(s);
  request_changed_ = true;
  return "";
}

namespace {

// Whether two states ask the same: their calculator links and their serving links are equal
// (a serving link leaves the calculator's keys out, and the other way round).
bool same_question(PageState x, PageState y) {
  for (Tab t : {Tab::results, Tab::serving}) {
    x.tab = y.tab = t;
    if (page_state_to_query(x) != page_state_to_query(y)) return false;
  }
  return true;
}

}  // namespace

void App::apply(UiActions&& a) {
  for (auto& p : a.platform) {
    if (p == "language") {
      toggle_language();
      continue;
    }
    // "Copy link" confirms for about two seconds at 60 frames per second.
    if (p == "copy-link") {
      m_.copied_frames = 120;
      results_changed_ = true;
    }
    if (p == "copy-launch") {
      m_.launch_copied_frames = 120;
      results_changed_ = true;
    }
    actions_.push_back(std::move(p));
  }
  if (a.model_filter) m_.model_filter = *a.model_filter;
  if (a.instance_sort) m_.instance_sort = *a.instance_sort;
  if (a.serve_compare_sort) {
    m_.serve_compare_sort = *a.serve_compare_sort;
    results_changed_ = true;
  }
  if (a.launch_format || a.launch_plan) {
    if (a.launch_format) m_.launch_format = a.launch_format;
    m_.launch_plan = a.launch_plan.value_or(m_.launch_plan);
    results_changed_ = true;
  }
  if (a.tab && *a.tab != m_.state.tab) {
    m_.state.tab = *a.tab;
    request_changed_ = true;
    results_changed_ = true;
  }
  if (a.trust_key) {
    trusted_keys_.push_back(*a.trust_key);
    keys_changed_ = true;
    reread_probe();
  }
  if (a.calibrate) {
    m_.calibrate = *a.calibrate;
    recompute();
  }
  if (a.state) {
    if (a.tab && !a.select_tab) a.state->tab = *a.tab;
    // Ticking plans to compare changes the view, not the question: no new search.
    PageState same = *a.state;
    same.compare = m_.state.compare;
    same.serve_compare = m_.state.serve_compare;  // its own job (run_serve_compare)
    const bool view_only = same_question(same, m_.state);
    m_.state = *a.state;
    m_.link_error.clear();  // the user has taken over from the link
    m_.link_problems.clear();
    force_tab_ |= a.select_tab;
    request_changed_ = true;
    results_changed_ = true;
    if (!view_only) recompute();
  }
}

void App::draw_plans_tab(UiActions& a) {
  if (plans_stale_) {
    plans_stale_ = false;
    results_changed_ = true;
    m_.plan_slices = SliceStats{};
    if (m_.ev) {
      const Model& model = m_.ev->model;
      auto s = start_plan_search(catalog_, model, plan_query(catalog_, m_.state, model));
      if (s.ok())
        search_ = std::move(s).value();
      else
        m_.plan_error = s.error();
    } else {
      m_.plan_error = m_.error;
    }
  }
  if (search_) {
    // One instance type per slice, as many as this frame's share allows: a short search ends
    // in the frame that asked for it; a long one draws a progress bar and the page stays live.
    run_slices_for_a_frame([&] { return step_plan_search(catalog_, *search_); },
                           [&] { return search_->candidates; }, [&] { return search_->finished(); },
                           kPlanCandidatesPerFrame, kSliceTimePerFrame, m_.plan_slices);
    m_.plan_progress = search_->progress();
    results_changed_ = true;
    if (!search_->finished()) {
      work_in_flight_ = true;
      ImGui::TextUnformatted(tr(S::searching));
      ImGui::ProgressBar(static_cast<float>(m_.plan_progress));
      remember(a, "plan-progress");
      return;
    }
    auto r = finish_plan_search(catalog_, *search_);
    search_.reset();
    m_.plan_progress = 1;
    if (r.ok())
      m_.plans = r.value();
    else
      m_.plan_error = r.error();
  }
  a.merge(draw_plans(m_));
}

const ServingAssumptions* App::serving() {
  // A second parse of assumptions.json, which the first frame does not need.
  if (!serving_ && serving_error_.message.empty()) {
    auto serving = parse_serving_assumptions(page_assumptions_json(), "assumptions.json");
    if (serving.ok())
      serving_ = serving.value();
    else
      serving_error_ = serving.error();
  }
  return serving_ ? &*serving_ : nullptr;
}

void App::draw_serving_tab(UiActions& a) {
  // The serving question: the serving link's keys, and whether the model is a custom one.
  PageState s = m_.state;
  s.tab = Tab::serving;
  s.lang.clear();
  s.serve_compare.clear();  // the comparison is its own job: picking GPUs keeps the plan
  const std::string key =
      page_state_to_query(s) + "#" + std::to_string(static_cast<int>(s.query.custom.kind));
  if (key != serve_key_) {
    serve_key_ = key;
    serve_job_ = start_serve_job(catalog_, m_.state, m_.serve);
    if (!serving()) {
      m_.serve.error = serving_error_;
      serve_job_->done = true;
    }
    results_changed_ = true;
  }
  if (serve_job_ && !serve_job_->done) {
    // One slice per frame (a replica's rate search is tens of milliseconds of simulation), or
    // less than one when it runs past the frame's time; then the page draws.
    run_slices_for_a_frame(
        [&] {
          step_serve_job(catalog_, *serving_, *serve_job_, m_.serve);
          return true;
        },
        [&] { return m_.serve.slices.slices; }, [&] { return serve_job_->done; }, 1,
        kSliceTimePerFrame, m_.serve.slices);
    results_changed_ = true;
    work_in_flight_ = !serve_job_->done;
  }
  if (!serve_job_ || serve_job_->done) run_serve_compare(key);
  a.merge(draw_serving(m_));
}

// The comparison runs after the tab's own plan, one slice per frame as that does: the same
// question (serve_key) on each GPU or instance of the set.
void App::run_serve_compare(const std::string& serve_key) {
  std::string key = serve_key + "|";
  for (const auto& id : m_.state.serve_compare) key += id + ",";
  if (key != compare_key_) {
    compare_key_ = key;
    compare_job_ = start_compare_job(catalog_, m_.state, m_.serve_compare);
    if (!serving()) {
      m_.serve_compare.error = serving_error_;
      compare_job_->done = true;
    }
    results_changed_ = true;
  }
  if (!compare_job_ || compare_job_->done) return;
  run_slices_for_a_frame(
      [&] {
        step_compare_job(catalog_, *serving_, *compare_job_, m_.serve_compare);
        return true;
      },
      [&] { return m_.serve_compare.slices.slices; }, [&] { return compare_job_->done; }, 1,
      kSliceTimePerFrame, m_.serve_compare.slices);
  results_changed_ = true;
  work_in_flight_ = !compare_job_->done;
}

// The tab on screen, in a child window filling the panel (it scrolls, the tabs stay put).
void App::draw_tab(UiActions& a, Tab tab) {
  ImGui::BeginChild("panel", ImVec2(0, 0), false);
  switch (tab) {
    case Tab::results:
      a.merge(draw_results(m_));
      break;
    case Tab::plans:
      draw_plans_tab(a);
      break;
    case Tab::hardware:
      a.merge(draw_hardware(m_));
      break;
    case Tab::benchmarks:
      a.merge(draw_benchmarks(m_));
      break;
    case Tab::serving:
      draw_serving_tab(a);
      break;
  }
  ImGui::EndChild();
}

void App::draw_tabs(UiActions& a, bool narrow) {
  if (!ImGui::BeginTabBar("tabs")) return;
  // On a phone the inputs are the first tab (issue 31: stacked above the tabs, they put the
  // tabs 1,070 px down a 390 px wide page). Which tab shows them is the page's view, not the
  // link's state: the state keeps naming the last results tab.
  if (narrow) {
    const bool open = ImGui::BeginTabItem(label(S::tab_inputs).c_str());
    remember(a, "tab-inputs");
    if (open) {
      ImGui::BeginChild("panel", ImVec2(0, 0), false);
      a.merge(draw_sidebar(m_));
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
  }
  const std::pair<Tab, S> tabs[] = {{Tab::results, S::tab_results},
                                    {Tab::plans, S::tab_plans},
                                    {Tab::serving, S::tab_serving},
                                    {Tab::hardware, S::tab_hardware},
                                    {Tab::benchmarks, S::tab_benchmarks}};
  for (const auto& [tab, name] : tabs) {
    // Select the tab the state names when the state was set from outside (links, back/forward,
    // a loaded plan); otherwise follow the user's clicks.
    const ImGuiTabItemFlags flags =
        m_.state.tab == tab && force_tab_ ? ImGuiTabItemFlags_SetSelected : 0;
    const bool open = ImGui::BeginTabItem(label(name).c_str(), nullptr, flags);
    remember(a, std::string("tab-") + tab_name(tab));
    if (!open) continue;
    if (m_.state.tab != tab && !force_tab_) a.tab = tab;
    draw_tab(a, tab);
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

void App::draw(float pixel_ratio) {
  m_.ratio = pixel_ratio;
  work_in_flight_ = false;  // the tab drawn below says whether its work goes on
  if (!m_.ev && m_.error.message.empty()) recompute();
  set_language(lang_);
  set_money(page_money(m_));
  mark_fields(m_.link_problems);
  if (m_.copied_frames > 0 && --m_.copied_frames == 0) results_changed_ = true;
  if (m_.launch_copied_frames > 0 && --m_.launch_copied_frames == 0) results_changed_ = true;
  // Escape closes an open combo or popup (Dear ImGui 1.86 leaves that to the application).
  const bool popup = ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId);
  if (popup && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
    ImGui::ClosePopupToLevel(0, true);
  if (popup != m_.popup_open) {
    m_.popup_open = popup;
    results_changed_ = true;
  }
  UiActions a(pixel_ratio);
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  // Below 900 CSS pixels (phones, narrow windows) the inputs become the first tab; wider, they
  // sit in a column beside the tabs. Either way the tabs stay at the top and each panel scrolls.
  const bool narrow = vp->WorkSize.x / pixel_ratio < 900;
  if (narrow != narrow_) {
    narrow_ = narrow;
    force_tab_ = true;  // the inputs' tab comes or goes: show the state's tab again
  }
  ImGui::Begin("gpuplan", nullptr,
               ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize |
                   ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoScrollbar |
                   ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoBringToFrontOnFocus);
  a.merge(draw_toolbar(m_));
  ImGui::Separator();
  if (narrow) {
    draw_tabs(a, true);
  } else if (ImGui::BeginTable("layout", 2,
                               ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableSetupColumn("inputs", ImGuiTableColumnFlags_WidthFixed, 390.0f * pixel_ratio);
    ImGui::TableSetupColumn("outputs", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableNextColumn();
    ImGui::BeginChild("sidebar", ImVec2(0, 0), false);
    a.merge(draw_sidebar(m_));
    ImGui::EndChild();
    ImGui::TableNextColumn();
    draw_tabs(a, false);
    ImGui::EndTable();
  }
  force_tab_ = false;
  ImGui::End();
  // A label cut to fit is named in the mirror as cut-label-ID (tests look for them).
  for (const auto& cut : take_cut_labels()) a.rects.push_back({"cut-label-" + cut, {0, 0, 0, 0}});
  publish_rects(a);
  apply(std::move(a));
}

void App::publish_rects(const UiActions& a) {
  std::map<std::string, std::array<float, 4>> rects;
  for (const auto& [name, r] : a.rects) rects[name] = r;
  std::string rj = "{";
  for (const auto& [name, r] : rects) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s\"%s\":[%.0f,%.0f,%.0f,%.0f]", rj.size() > 1 ? "," : "",
                  name.c_str(), r[0], r[1], r[2], r[3]);
    rj += buf;
  }
  rj += "}";
  if (rj != rects_json_) {
    rects_json_ = rj;
    results_changed_ = true;
  }
}

std::string App::results_json() const {
  set_language(lang_);
  set_money(page_money(m_));
  return gpuplan::web::results_json(m_, rects_json_);
}
ExportFile App::export_file(ExportKind kind) const {
  set_money(page_money(m_));
  return gpuplan::web::export_file(m_, kind);
}

std::string App::launch_text() const {
  if (!m_.ev) return "";
  const LaunchFormat format = shown_launch_format(m_.launch_format, &*m_.ev);
  Result<std::string> config = estimate_launch_config(*m_.ev, format);
  if (m_.state.tab == Tab::plans) {
    const Plan* p = m_.plans ? launch_plan(*m_.plans, m_.launch_plan) : nullptr;
    if (!p) return "";
    config = plan_launch_config(m_.ev->model, *p, format);
  }
  return config.ok() ? config.value() : "";
}

}  // namespace gpuplan::web
