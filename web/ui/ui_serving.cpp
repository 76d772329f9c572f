// The Serving tab: `gpuplan serve` in the page. Its inputs (the CLI's options), the instances
// ranked as the CLI ranks them, the day's load and the replicas per hour, one replica's latency
// against the request rate with the targets, and the monthly cost, fixed vs autoscaled.
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>

#include "gpuplan/report.h"

#include "ui/charts.h"
#include "ui/screens.h"
#include "ui/widgets.h"

namespace gpuplan::web {
namespace {

constexpr ImGuiTableFlags kTableFlags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter |
                                        ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;

const char* curve_presets[] = {"flat", "business-hours", "diurnal"};
const S curve_names[] = {S::curve_flat, S::curve_business, S::curve_diurnal};

bool model_combo(const PageModel& m, PageState& s) {
  field_label(S::key_model);
  Query& q = s.query;
  const Model* cur = m.catalog->find_model(q.request.model);
  bool changed = false;
  if (ImGui::BeginCombo("##serve-model", cur ? model_name(*cur).c_str() : q.request.model.c_str(),
                        ImGuiComboFlags_HeightLarge)) {
    for (const auto& zoo : m.catalog->models) {
      if (zoo.task != "causal-lm") continue;  // serving generates tokens
      if (ImGui::Selectable((model_name(zoo) + "##" + zoo.id).c_str(), &zoo == cur)) {
        changed = &zoo != cur || q.custom.kind != CustomModel::Kind::none;
        q.request.model = zoo.id;
        q.custom.kind = CustomModel::Kind::none;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

// The day's load: a preset, or 24 typed rates (picking "typed" starts from the day shown).
bool curve_inputs(const PageModel& m, ServeRequest& r, UiActions& a) {
  constexpr size_t typed = 3;
  size_t cur = r.load_curve.empty() ? 0 : typed;
  for (size_t i = 0; i < typed; ++i) {
    if (r.load_curve == curve_presets[i]) cur = i;
  }
  field_label(S::serve_curve);
  bool changed = false;
  if (ImGui::BeginCombo("##serve-curve", tr(cur == typed ? S::curve_typed : curve_names[cur]))) {
    for (size_t i = 0; i <= typed; ++i) {
      if (ImGui::Selectable(tr(i == typed ? S::curve_typed : curve_names[i]), i == cur) &&
          i != cur) {
        changed = true;
        r.load_curve = i == typed ? typed_curve_seed(r, m.serve) : i == 0 ? "" : curve_presets[i];
      }
    }
    ImGui::EndCombo();
  }
  remember(a, "serve-curve");
  if (cur != typed) return changed;
  field_label(S::serve_curve_rates);
  char buf[1024];
  std::snprintf(buf, sizeof buf, "%s", r.load_curve.c_str());
  ImGui::InputText("##serve-curve-rates", buf, sizeof buf);
  remember(a, "serve-curve-rates");
  if (ImGui::IsItemDeactivatedAfterEdit() && r.load_curve != buf) {
    r.load_curve = buf;
    changed = true;
  }
  return changed;
}

// The autoscaling policy: the fleet's floor, how full a replica runs, headroom at the peak,
// and how long a new replica takes to serve.
bool policy_inputs(ServeRequest& r, UiActions& a) {
  bool edited = false;
  edited |=
      serve_int(S::serve_min_replicas, "min-replicas", r.min_replicas, a, "serve-min-replicas");
  edited |= serve_quantity(S::serve_utilisation, "target-utilisation", r.target_utilisation, a,
                           "serve-utilisation");
  edited |= serve_quantity(S::serve_headroom, "headroom", r.headroom, a, "serve-headroom");
  edited |= serve_quantity(S::serve_start, "start-s", r.start_s, a, "serve-start");
  edited |= serve_quantity(S::serve_load_bw, "load-gb-per-s", r.load_gb_per_s, a, "serve-load-bw");
  return edited;
}

bool percentile_combo(ServeRequest& r) {
  field_label(S::serve_percentile);
  bool changed = false;
  const std::string cur = "p" + std::to_string(r.percentile);
  if (ImGui::BeginCombo("##serve-percentile", cur.c_str())) {
    for (int p : {50, 90, 99}) {
      if (ImGui::Selectable(("p" + std::to_string(p)).c_str(), p == r.percentile)) {
        changed = p != r.percentile;
        r.percentile = p;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

// The zoo's language models (a speculative draft model must be one).
std::vector<IdName> language_model_items(const Catalog& catalog) {
  std::vector<IdName> out;
  for (const auto& zoo : catalog.models) {
    if (zoo.task == "causal-lm") out.push_back({zoo.id, model_name(zoo)});
  }
  return out;
}

// Serving features a user turns on: prefix caching, and speculative decoding with its draft
// tokens, the acceptance rate the user measured and (for a draft model) the model.
bool feature_inputs(const PageModel& m, ServeRequest& r, UiActions& a) {
  bool edited = serve_quantity(S::serve_prefix_hit, "prefix-hit-rate", r.prefix_hit_rate, a,
                               "serve-prefix-hit");
  edited |= enum_combo(S::serve_spec_method, r.spec_method,
                       {SpecMethod::none, SpecMethod::draft, SpecMethod::eagle, SpecMethod::mtp},
                       spec_method_name);
  remember(a, "serve-spec-method");
  if (r.spec_method == SpecMethod::none) {
    // Its keys go with a method: switching it off drops them (a link would refuse them).
    const bool had = r.spec_tokens > 0 || r.spec_acceptance > 0 || !r.spec_draft_model.empty();
    r.spec_tokens = 0;
    r.spec_acceptance = 0;
    r.spec_draft_model.clear();
    return edited || had;
  }
  edited |= serve_int(S::serve_spec_tokens, "spec-tokens", r.spec_tokens, a, "serve-spec-tokens");
  edited |= serve_quantity(S::serve_spec_acceptance, "spec-acceptance", r.spec_acceptance, a,
                           "serve-spec-acceptance");
  if (r.spec_method != SpecMethod::draft) {
    edited |= !r.spec_draft_model.empty();  // the key goes with the method draft only
    r.spec_draft_model.clear();
    return edited;
  }
  edited |= id_combo(S::serve_spec_draft, r.spec_draft_model, language_model_items(*m.catalog));
  remember(a, "serve-spec-draft");
  return edited;
}

// Disaggregated prefill and decode, and the GPUs of each pool's replicas (0: the best's).
bool disagg_inputs(ServeRequest& r, UiActions& a) {
  bool edited = checkbox(S::serve_disaggregate, r.disaggregate);
  remember(a, "serve-disaggregate");
  if (!r.disaggregate) {
    // Its keys go with it: switching it off drops them.
    const bool had = r.prefill_tp > 0 || r.decode_tp > 0;
    r.prefill_tp = r.decode_tp = 0;
    return edited || had;
  }
  edited |= serve_int(S::serve_prefill_tp, "prefill-tp", r.prefill_tp, a, "serve-prefill-tp");
  edited |= serve_int(S::serve_decode_tp, "decode-tp", r.decode_tp, a, "serve-decode-tp");
  return edited;
}

std::vector<IdName> instance_items(const Catalog& catalog) {
  std::vector<IdName> out;
  for (const auto& in : catalog.instances) out.push_back({in.id, in.id});
  return out;
}

// The inputs: the load and targets, then the replica and the hardware (one column, its labels
// as wide as the longest: the tab has the room the sidebar lacks).
void inputs(const PageModel& m, UiActions& a) {
  const LabelColumnFit fit({S::key_model,
                            S::serve_rate,
                            S::serve_prompt,
                            S::serve_output,
                            S::serve_ttft,
                            S::serve_tpot,
                            S::serve_percentile,
                            S::serve_runtime,
                            S::serve_weights,
                            S::serve_kv,
                            S::serve_pp,
                            S::serve_ep,
                            S::serve_gpu,
                            S::serve_instance,
                            S::serve_curve,
                            S::serve_prefix_hit,
                            S::serve_spec_method,
                            S::serve_spec_tokens,
                            S::serve_spec_acceptance,
                            S::serve_spec_draft,
                            S::serve_prefill_tp,
                            S::serve_decode_tp});
  PageState s = m.state;
  ServeRequest& r = s.serve;
  bool edited = false;
  edited |= model_combo(m, s);
  remember(a, "serve-model");
  edited |= serve_quantity(S::serve_rate, "rate", r.rate_per_s, a, "serve-rate");
  edited |= serve_quantity(S::serve_prompt, "prompt-tokens", r.prompt_tokens, a, "serve-prompt");
  edited |= serve_quantity(S::serve_output, "output-tokens", r.output_tokens, a, "serve-output");
  edited |= serve_quantity(S::serve_ttft, "ttft-ms", r.ttft_ms, a, "serve-ttft");
  edited |= serve_quantity(S::serve_tpot, "tpot-ms", r.tpot_ms, a, "serve-tpot");
  edited |= percentile_combo(r);
  edited |=
      enum_combo(S::serve_runtime, r.runtime,
                 {Runtime::vllm, Runtime::trtllm, Runtime::sglang, Runtime::hf, Runtime::llamacpp},
                 runtime_name);
  edited |= optional_enum_combo(S::serve_weights, r.weights, tr(S::serve_weights_auto),
                                kWeightFormats, weight_format_name);
  edited |=
      enum_combo(S::serve_kv, r.kv, {KvFormat::bf16, KvFormat::fp8, KvFormat::fp4}, kv_format_name);
  edited |= serve_int(S::serve_pp, "pp", r.pp, a, "serve-pp");
  edited |= serve_int(S::serve_ep, "ep", r.ep, a, "serve-ep");
  edited |= checkbox(S::serve_attention_dp, r.attention_dp);
  remember(a, "serve-attention-dp");
  edited |= id_combo(S::serve_gpu, r.gpu, gpu_items(*m.catalog));
  remember(a, "serve-gpu");
  edited |= id_combo(S::serve_instance, r.instance, instance_items(*m.catalog));
  remember(a, "serve-instance");
  edited |= curve_inputs(m, r, a);
  edited |= policy_inputs(r, a);
  edited |= feature_inputs(m, r, a);
  edited |= disagg_inputs(r, a);
  if (edited) a.state = s;
}

std::string usd_or_none(const ServeOption& o, double FleetCost::*field) {
  return o.costs.empty() ? tr(S::no_price) : format_money(o.costs.front().*field);
}

int peak_replicas(const FleetPlan& f) {
  int peak = 0;
  for (const auto& h : f.hours) peak = std::max(peak, h.replicas);
  return peak;
}

void option_row(const ServeOption& o, int rank, double percentile) {
  const auto& at = o.rate.at_max;
  ImGui::TableNextRow();
  const std::string cells[] = {
      std::to_string(rank),
      o.instance.empty() ? o.gpu : o.instance,
      o.gpu,
      replica_layout(o),
      format_number(o.rate.max_rate_per_s, 3),
      format_number(at_percentile(at.ttft_s, percentile) * 1000, 3) + " ms",
      format_number(at_percentile(at.tpot_s, percentile) * 1000, 3) + " ms",
      std::to_string(o.fleet.fixed_replicas),
      std::to_string(o.fleet.fixed_replicas * o.tp * o.pp),
      std::to_string(peak_replicas(o.fleet)),
      usd_or_none(o, &FleetCost::usd_per_month_fixed),
      usd_or_none(o, &FleetCost::usd_per_month_autoscaled),
      usd_or_none(o, &FleetCost::usd_per_million_output_tokens),
  };
  for (const auto& c : cells) {
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(c.c_str());
  }
}

void ranking(const PageModel& m, UiActions& a) {
  const ServePlan& p = *m.serve.plan;
  ImGui::TextWrapped(tr(S::serve_ranking), m.state.serve.percentile);
  const S cols[] = {
      S::col_rank,         S::key_instance,      S::col_gpu,         S::col_tp,
      S::col_rate_replica, S::col_ttft,          S::col_tpot,        S::col_replicas_fixed,
      S::col_gpus_fixed,   S::col_replicas_peak, S::col_month_fixed, S::col_month_auto,
      S::col_per_mtok};
  const float height = ImGui::GetTextLineHeightWithSpacing() *
                       (static_cast<float>(std::min<size_t>(p.options.size(), 10)) + 2.5f);
  if (!ImGui::BeginTable("serve-ranking", 13, kTableFlags, ImVec2(0, height))) return;
  for (S c : cols) ImGui::TableSetupColumn(tr(money_label(c)));
  ImGui::TableHeadersRow();
  int rank = 0;
  for (const auto& o : p.options) option_row(o, ++rank, m.state.serve.percentile);
  ImGui::EndTable();
  remember(a, "serve-ranking");
  for (const auto& n : p.notes) note_text(core_note(n));
}

// One GPU or instance of the compare popup: ticked when in the set; at most kServeCompareMax.
void compare_item(const PageModel& m, const std::string& id, const std::string& name,
                  UiActions& a) {
  const auto& set = m.state.serve_compare;
  const bool on = std::find(set.begin(), set.end(), id) != set.end();
  const bool full = !on && set.size() >= kServeCompareMax;
  if (full) ImGui::BeginDisabled();
  if (ImGui::Selectable((name + "##compare-" + id).c_str(), on,
                        ImGuiSelectableFlags_DontClosePopups)) {
    PageState s = a.state ? *a.state : m.state;
    auto& list = s.serve_compare;
    if (on)
      list.erase(std::remove(list.begin(), list.end(), id), list.end());
    else
      list.push_back(id);
    a.state = s;
  }
  if (full) ImGui::EndDisabled();
  remember(a, "serve-compare-item-" + id);
}

// The compare set: a multi-select of the catalog's GPUs and instances, the ranking's top GPUs
// as a start, and a way to clear it.
void compare_picker(const PageModel& m, UiActions& a) {
  const auto& set = m.state.serve_compare;
  std::string preview = set.empty() ? tr(S::serve_compare_none) : "";
  for (const auto& id : set) preview += (preview.empty() ? "" : ", ") + id;
  ImGui::TextUnformatted(tr(S::serve_compare_pick));
  ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, 520.0f * m.ratio));
  if (ImGui::BeginCombo("##serve-compare", preview.c_str(), ImGuiComboFlags_HeightLarge)) {
    ImGui::TextDisabled("%s", tr(S::heading_gpus));
    for (const auto& g : m.catalog->gpus) compare_item(m, g.id, g.name, a);
    ImGui::Separator();
    ImGui::TextDisabled("%s", tr(S::heading_instances));
    for (const auto& in : m.catalog->instances) compare_item(m, in.id, in.id, a);
    ImGui::EndCombo();
  }
  remember(a, "serve-compare");
  if (m.serve.plan && !m.serve.plan->options.empty()) {
    constexpr size_t kTop = 3;
    if (ImGui::Button(format(tr(S::serve_compare_top), static_cast<int>(kTop)).c_str())) {
      PageState s = m.state;
      s.serve_compare = top_gpus(*m.serve.plan, kTop);
      a.state = s;
    }
    remember(a, "serve-compare-top");
    ImGui::SameLine();
  }
  if (!set.empty() && ImGui::Button(tr(S::serve_compare_clear))) {
    PageState s = m.state;
    s.serve_compare.clear();
    a.state = s;
  }
  ImGui::TextDisabled(tr(S::serve_compare_limit), static_cast<int>(kServeCompareMax));
}

constexpr struct {
  S label;
  CompareColumn column;
  const char* id;
} kCompareColumns[] = {
    {S::col_gpu, CompareColumn::gpu, "gpu"},
    {S::key_instance, CompareColumn::instance, "instance"},
    {S::col_tp, CompareColumn::tp, "tp"},
    {S::col_replicas_fixed, CompareColumn::replicas, "replicas"},
    {S::col_rate_replica, CompareColumn::rate, "rate"},
    {S::col_ttft, CompareColumn::ttft, "ttft"},
    {S::col_tpot, CompareColumn::tpot, "tpot"},
    {S::col_month_auto, CompareColumn::month, "month"},
    {S::col_per_mtok, CompareColumn::per_mtok, "per-mtok"},
    {S::col_meets_targets, CompareColumn::meets, "meets"},
};

// A row's cells, in kCompareColumns' order; a row without an option shows its error.
std::vector<std::string> compare_cells(const CompareRow& row, double percentile) {
  if (!row.option)
    return {row.target, page_message(row.error), "", "", "", "", "", "", "", tr(S::answer_no)};
  const ServeOption& o = *row.option;
  const auto& at = o.rate.at_max;
  return {o.gpu,
          o.instance.empty() ? tr(S::no_price) : o.instance,
          replica_layout(o),
          std::to_string(o.fleet.fixed_replicas),
          format_number(o.rate.max_rate_per_s, 3),
          format_number(at_percentile(at.ttft_s, percentile) * 1000, 3) + " ms",
          format_number(at_percentile(at.tpot_s, percentile) * 1000, 3) + " ms",
          usd_or_none(o, &FleetCost::usd_per_month_autoscaled),
          usd_or_none(o, &FleetCost::usd_per_million_output_tokens),
          tr(row.meets_targets ? S::answer_yes : S::answer_no)};
}

// The table's headers, each named for tests ("serve-compare-col-month"); a click sorts by it.
void compare_headers(const PageModel& m, UiActions& a) {
  int c = 0;
  for (const auto& col : kCompareColumns) {
    ImGuiTableColumnFlags flags = ImGuiTableColumnFlags_None;
    if (col.column == m.serve_compare_sort.column) flags |= ImGuiTableColumnFlags_DefaultSort;
    if (c == 0) flags |= ImGuiTableColumnFlags_NoHide;
    ImGui::TableSetupColumn(tr(money_label(col.label)), flags, 0.0f,
                            static_cast<ImGuiID>(col.column));
    ++c;
  }
  ImGui::TableSetupScrollFreeze(1, 1);  // the GPU pinned when the table scrolls sideways
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  for (int i = 0; i < c; ++i) {
    ImGui::TableSetColumnIndex(i);
    ImGui::TableHeader(ImGui::TableGetColumnName(i));
    remember(a, std::string("serve-compare-col-") + kCompareColumns[i].id);
  }
  ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs();
  if (specs && specs->SpecsDirty && specs->SpecsCount > 0) {
    const ImGuiTableColumnSortSpecs& spec = specs->Specs[0];
    CompareSort sort{static_cast<CompareColumn>(spec.ColumnUserID),
                     spec.SortDirection == ImGuiSortDirection_Descending};
    if (sort.column != m.serve_compare_sort.column ||
        sort.descending != m.serve_compare_sort.descending)
      a.serve_compare_sort = sort;
    specs->SpecsDirty = false;
  }
}

// A job's state: while it runs, what it does and a progress bar (published as `bar`); then its
// error, if any.
void progress_and_error(S doing, double progress, const Error& error, const char* bar,
                        UiActions& a) {
  if (progress < 1) {
    ImGui::TextUnformatted(tr(doing));
    ImGui::ProgressBar(static_cast<float>(progress));
    remember(a, bar);
  }
  if (!error.message.empty()) error_text(page_message(error));
}

// The comparison: the picker, its progress, and one table with a row per GPU or instance.
void comparison(const PageModel& m, UiActions& a) {
  ImGui::Spacing();
  ImGui::TextWrapped("%s", tr(S::serve_compare_title));
  compare_picker(m, a);
  const CompareResults& r = m.serve_compare;
  progress_and_error(S::serve_compare_running, r.progress, r.error, "serve-compare-progress", a);
  if (r.rows.empty()) return;
  const double percentile = m.state.serve.percentile;
  const float height =
      ImGui::GetTextLineHeightWithSpacing() * (static_cast<float>(r.rows.size()) + 2.5f);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const float width = ImGui::GetContentRegionAvail().x;
  if (!ImGui::BeginTable("serve-compare-table", static_cast<int>(std::size(kCompareColumns)),
                         kTableFlags | ImGuiTableFlags_Sortable, ImVec2(0, height))) {
    // Scrolled out of the panel, Dear ImGui skips the table and names no item: its place is
    // still published, so a test can scroll to it as a user does.
    a.rects.push_back(
        {"serve-compare-table",
         {at.x / a.ratio, at.y / a.ratio, (at.x + width) / a.ratio, (at.y + height) / a.ratio}});
    return;
  }
  compare_headers(m, a);
  for (size_t i : compare_order(r, m.serve_compare_sort, percentile)) {
    ImGui::TableNextRow();
    for (const auto& cell : compare_cells(r.rows[i], percentile)) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(cell.c_str());
    }
  }
  ImGui::EndTable();
  remember(a, "serve-compare-table");
}

// "190-447 ms", or in seconds from a second up.
std::string latency_text(double s) {
  return s >= 1 ? format_number(s, 3) + " s" : format_number(s * 1000, 3) + " ms";
}

// The best option's bands and the evidence they rest on, in one line, with the rows' link.
void band_line(const ServeOption& b, double percentile, UiActions& a) {
  if (b.rate_band.rows == 0) {
    note_text(tr(S::band_none));
    return;
  }
  const std::string low = format_number(b.max_rate_range.low, 3);
  const std::string high = format_number(b.max_rate_range.high, 3);
  if (b.latency_band.rows > 0) {
    const int p = static_cast<int>(percentile);
    ImGui::TextWrapped(
        tr(S::serve_band), low.c_str(), high.c_str(), p, latency_text(b.ttft_range_s.low).c_str(),
        latency_text(b.ttft_range_s.high).c_str(), p, latency_text(b.tpot_range_s.low).c_str(),
        latency_text(b.tpot_range_s.high).c_str(), band_evidence(b.rate_band).c_str());
  } else {
    ImGui::TextWrapped(tr(S::serve_band_rate_only), low.c_str(), high.c_str(),
                       band_evidence(b.rate_band).c_str());
  }
  if (b.usd_per_month_autoscaled_range.high > 0) {
    ImGui::TextWrapped(tr(S::serve_bill_band),
                       format_money(b.usd_per_month_autoscaled_range.low).c_str(),
                       format_money(b.usd_per_month_autoscaled_range.high).c_str());
  }
  remember(a, "serve-band");
  band_rows_link(b.rate_band, BandTable::serving, a, "serve-band-link");
}

void best_line(const ServeOption& b, double percentile, UiActions& a) {
  ImGui::TextWrapped(tr(S::serve_best), b.instance.empty() ? b.gpu.c_str() : b.instance.c_str(),
                     b.tp * b.pp, format_bytes(b.memory.kv_bytes).c_str(),
                     format_count(static_cast<double>(b.memory.kv_tokens)).c_str(),
                     format_count(static_cast<double>(b.max_seqs)).c_str(),
                     format_number(b.prefill_s * 1000, 3).c_str(),
                     format_number(b.decode_step_s * 1000, 3).c_str());
  band_line(b, percentile, a);
  for (const auto& n : b.notes) note_text(core_note(n));
}

// --disaggregate: the two pools on the best option's instance against the co-located fleet, or
// why they could not be planned.
void disagg_lines(const ServePlan& p, UiActions& a) {
  if (p.disaggregated_error) error_text(page_message(*p.disaggregated_error));
  if (!p.disaggregated) return;
  const DisaggPlan& d = *p.disaggregated;
  auto limit = [](const DisaggPool& pool) {
    const std::string& l = pool.rate.limit;
    return tr(l == "ttft" ? S::limit_ttft : l == "tpot" ? S::limit_tpot : S::limit_throughput);
  };
  ImGui::Spacing();
  ImGui::TextWrapped(tr(S::serve_disagg_title), d.instance.c_str());
  ImGui::TextWrapped(tr(S::serve_disagg_prefill), d.prefill.tp,
                     format_number(d.prefill.rate.max_rate_per_s, 3).c_str(), limit(d.prefill),
                     format_number(d.prefill.rate.at_max.ttft_s.p90 * 1000, 3).c_str(),
                     d.prefill.fleet.fixed_replicas);
  ImGui::TextWrapped(tr(S::serve_disagg_decode), d.decode.tp,
                     format_number(d.decode.rate.max_rate_per_s, 3).c_str(), limit(d.decode),
                     format_number(d.decode.rate.at_max.tpot_s.p90 * 1000, 3).c_str(),
                     d.decode.fleet.fixed_replicas);
  ImGui::TextWrapped(tr(S::serve_disagg_kv), format_bytes(d.kv_bytes_per_request).c_str(),
                     d.kv_link.c_str(), format_number(d.kv_transfer_s * 1000, 3).c_str(),
                     format_number(d.first_decode_step_s * 1000, 3).c_str());
  ImGui::TextWrapped(tr(S::serve_disagg_fleet), d.gpus_fixed, d.colocated_gpus_fixed,
                     format_money(d.usd_per_month_fixed).c_str(),
                     format_money(d.colocated_usd_per_month_fixed).c_str(),
                     format_money(d.usd_per_month_autoscaled).c_str(),
                     format_money(d.colocated_usd_per_month_autoscaled).c_str());
  remember(a, "serve-disagg");
}

// The day: the load curve as bars, and the replicas per hour as steps with the fixed fleet.
void day_charts(const PageModel& m, const ServeOption& b, UiActions& a) {
  const float h = 180.0f * m.ratio;
  LineChart load;
  load.x_title = tr(S::axis_hour);
  load.y_title = tr(S::axis_rate);
  load.x_max = 24;
  Series bars{tr(S::chart_load), {}, m.serve.curve, Series::Kind::bars, 4};
  for (size_t i = 0; i < m.serve.curve.size(); ++i) bars.x.push_back(static_cast<double>(i));
  load.series.push_back(bars);
  ImGui::TextUnformatted(tr(S::chart_load));
  line_chart("serve-load", load, h);
  remember(a, "serve-load-chart");
  LineChart reps;
  reps.x_title = tr(S::axis_hour);
  reps.x_max = 24;
  Series steps{tr(S::series_autoscaled), {}, {}, Series::Kind::step, 0};
  for (size_t i = 0; i < b.fleet.hours.size(); ++i) {
    steps.x.push_back(static_cast<double>(i));
    steps.y.push_back(b.fleet.hours[i].replicas);
  }
  reps.series.push_back(steps);
  reps.refs.push_back({tr(S::series_fixed), static_cast<double>(b.fleet.fixed_replicas), 1});
  ImGui::TextUnformatted(tr(S::chart_replicas));
  line_chart("serve-replicas", reps, h);
  remember(a, "serve-replicas-chart");
}

// One replica: TTFT and TPOT at the SLO's percentile against the rate, with the targets.
void latency_charts(const PageModel& m, UiActions& a) {
  if (m.serve.latency.empty()) return;
  const ServeRequest& r = m.state.serve;
  const std::string p = " p" + std::to_string(r.percentile);
  LineChart ttft, tpot;
  Series st{tr(S::col_ttft) + p, {}, {}, Series::Kind::line, 0};
  Series sp{tr(S::col_tpot) + p, {}, {}, Series::Kind::line, 2};
  for (const auto& pt : m.serve.latency) {
    st.x.push_back(pt.rate_per_s);
    st.y.push_back(pt.ttft_s * 1000);
    sp.x.push_back(pt.rate_per_s);
    sp.y.push_back(pt.tpot_s * 1000);
  }
  for (auto [chart, series, target] :
       {std::tuple<LineChart*, Series*, double>{&ttft, &st, r.ttft_ms}, {&tpot, &sp, r.tpot_ms}}) {
    chart->x_title = tr(S::axis_rate);
    chart->y_title = tr(S::axis_ms);
    chart->series.push_back(*series);
    if (target > 0) chart->refs.push_back({tr(S::series_target), target, 5});
  }
  ImGui::TextUnformatted(tr(S::chart_latency));
  const float h = 180.0f * m.ratio;
  line_chart("serve-ttft", ttft, h);
  remember(a, "serve-ttft-chart");
  line_chart("serve-tpot", tpot, h);
  remember(a, "serve-tpot-chart");
}

void cost_chart(const PageModel& m, const ServeOption& b, UiActions& a) {
  if (b.costs.empty()) return;
  std::vector<BarGroup> groups;
  for (const auto& c : b.costs) {
    groups.push_back(
        {tr(fleet_pricing_string(c.pricing)),
         {usd_to_shown(c.usd_per_month_fixed), usd_to_shown(c.usd_per_month_autoscaled)}});
  }
  ImGui::TextUnformatted(tr(S::chart_cost));
  bar_groups("serve-cost", groups, {tr(S::series_fixed), tr(S::series_autoscaled)},
             18.0f * m.ratio);
  remember(a, "serve-cost-chart");
}

}  // namespace

UiActions draw_serving(const PageModel& m) {
  UiActions a(m.ratio);
  ImGui::TextUnformatted(tr(S::serve_inputs));
  inputs(m, a);
  ImGui::Separator();
  const ServeResults& r = m.serve;
  progress_and_error(S::serve_simulating, r.progress, r.error, "serve-progress", a);
  const bool ranked = r.plan && !r.plan->options.empty();
  if (ranked) ranking(m, a);
  // After the tab's own plan, which it runs after (its top GPUs are the picker's start).
  if (r.progress >= 1) comparison(m, a);
  if (!ranked) return a;
  const ServeOption& best = r.plan->options.front();
  best_line(best, m.state.serve.percentile, a);
  disagg_lines(*r.plan, a);
  ImGui::Spacing();
  day_charts(m, best, a);
  cost_chart(m, best, a);
  latency_charts(m, a);
  return a;
}

}  // namespace gpuplan::web
