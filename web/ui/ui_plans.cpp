// The Plans tab: the planner's limits, its ranked plans, and the time-vs-cost chart. Clicking a
// row or a point loads that plan and switches to Results.
#include <algorithm>
#include <cstdio>

#include "gpuplan/report.h"
#include "model/launch.h"

#include "ui/charts.h"
#include "ui/screens.h"
#include "ui/widgets.h"

namespace gpuplan::web {
namespace {

// A limit showing what resolve_defaults gives while the query leaves it 0.
bool resolved_limit(const char* key, int& field, int resolved, UiActions& a) {
  int64_t shown = field != 0 ? field : resolved;
  if (!key_count(key, shown, a)) return false;
  field = static_cast<int>(shown);
  return true;
}

// The budget in the page's currency: the link keeps budget-usd (the CLI's --budget-usd), typed
// in CNY it is converted with the page's one rate; its bounds are the key's, converted too.
bool budget(Query& q, UiActions& a) {
  const QueryKey& r = *find_query_key("budget-usd");
  double shown = usd_to_shown(q.budget_usd);
  next_label_tip(language() == Lang::zh ? r.help_zh : r.help_en);
  if (!input_quantity(money_label(S::key_budget_usd), shown, usd_to_shown(r.min),
                      usd_to_shown(r.max), &a, "budget-usd"))
    return false;
  q.budget_usd = shown_to_usd(shown);
  return true;
}

// The planner's limits, in a label column as wide as their longest label (the tab has room).
void limits(const PageModel& m, UiActions& a) {
  const LabelColumnFit fit({S::key_objective, S::key_deadline_hours, money_label(S::key_budget_usd),
                            S::key_max_nodes, S::key_top, S::key_min_gpu_memory_gb, S::key_plan_gpu,
                            S::key_provider, S::key_pricing});
  PageState s = m.state;
  Query& q = s.query;
  const Query* resolved = m.ev ? &m.ev->query : nullptr;  // the limits with defaults filled
  bool edited = key_choice(
      "objective", q, a,
      +[](const std::string& v) { return tr(v == "time" ? S::by_time : S::by_cost); });
  edited |= key_quantity("deadline-hours", q.deadline_hours, a);
  edited |= budget(q, a);
  edited |= resolved_limit("max-nodes", q.max_nodes, resolved ? resolved->max_nodes : 0, a);
  edited |= resolved_limit("top", q.top_k, resolved ? resolved->top_k : 0, a);
  edited |= key_quantity("min-gpu-memory-gb", q.min_gpu_memory_gb, a);
  edited |= id_combo(S::key_plan_gpu, q.plan_gpu, gpu_items(*m.catalog));
  remember(a, "plan-gpu");
  edited |= id_combo(S::key_provider, q.provider, provider_items(*m.catalog));
  remember(a, "plan-provider");
  edited |=
      key_choice("pricing", q, a, words_of<Pricing, parse_pricing, tr_pricing>, "plan-pricing");
  if (edited) {
    s.compare.clear();
    a.state = s;
  }
}

// A total price; an assumed one (a rule, not a published price) is marked "≈" in orange.
void price_cell(double usd, const PriceQuote& q) {
  if (!q.assumption) {
    ImGui::TextUnformatted(format_price(usd, q).c_str());
    return;
  }
  ImGui::PushStyleColor(ImGuiCol_Text, color_assumed());
  ImGui::TextUnformatted(("≈ " + format_price(usd, q)).c_str());
  ImGui::PopStyleColor();
}

bool any_assumed(const PlanResult& plans) {
  for (const auto& p : plans.plans) {
    if (p.price.assumption) return true;
  }
  return false;
}

// The ranked plans; returns the index of a clicked row, or -1.
std::string plan_key(const Plan& p) {
  return p.instance + "*" + std::to_string(p.nodes);
}

bool compared(const PageState& s, const Plan& p) {
  return std::find(s.compare.begin(), s.compare.end(), plan_key(p)) != s.compare.end();
}

// The compare tick of a row; at most 4 ticked.
void compare_tick(const PageModel& m, const Plan& p, int i, UiActions& a) {
  bool on = compared(m.state, p);
  if (!on && m.state.compare.size() >= 4) ImGui::BeginDisabled();
  if (ImGui::Checkbox(("##cmp-" + std::to_string(i)).c_str(), &on)) {
    PageState s = m.state;
    if (on)
      s.compare.push_back(plan_key(p));
    else
      s.compare.erase(std::remove(s.compare.begin(), s.compare.end(), plan_key(p)),
                      s.compare.end());
    a.state = s;
  }
  if (!on && m.state.compare.size() >= 4) ImGui::EndDisabled();
  remember(a, "compare-" + std::to_string(i));
}

int plan_table(const PageModel& m, const PlanResult& plans, UiActions& a) {
  int clicked = -1;
  // Columns fit their content and the table scrolls sideways when they do not fit (a phone),
  // the rank and instance columns pinned at the left: squeezed to the panel's width, the
  // columns were cut to "..." and the instance names to nothing on a 390 px screen (issue 31).
  if (!ImGui::BeginTable("plans", 10,
                         ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter |
                             ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY |
                             ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Resizable,
                         ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 12))) {
    return clicked;
  }
  for (S h : {S::col_rank, S::key_instance, S::col_gpu, S::col_nodes, S::col_parallel,
              S::col_zero_mb, S::col_time, S::col_usd, S::col_mfu, S::col_compare}) {
    ImGui::TableSetupColumn(tr(money_label(h)));  // the cost column in the page's currency
  }
  ImGui::TableSetupScrollFreeze(2, 1);
  ImGui::TableHeadersRow();
  int i = 0;
  for (const auto& p : plans.plans) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    char label[32];
    std::snprintf(label, sizeof label, "%d%s##plan-%d", i + 1, p.pareto ? " *" : "", i);
    if (ImGui::Selectable(
            label, false,
            ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowItemOverlap)) {
      clicked = i;
    }
    remember(a, "plan-" + std::to_string(i));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(p.instance.c_str());
    if (i == 0) remember(a, "plan-instance-0");  // tests: shown whole, inside the table
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(p.gpu.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%d", p.nodes);
    ImGui::TableNextColumn();
    ImGui::Text("%d/%d/%d%s", p.setup.dp, p.setup.tp, p.setup.pp, extra_degrees(p.setup).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted((std::to_string(p.setup.zero_stage) + ", " +
                            format_count(static_cast<double>(p.setup.micro_batch)) + ", " +
                            tr_checkpointing(p.setup.checkpointing))
                               .c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_duration(p.cost.expected_hours).c_str());
    ImGui::TableNextColumn();
    price_cell(p.cost.usd_total, p.price);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted((format_number(100 * p.time.mfu, 2) + " %").c_str());
    ImGui::TableNextColumn();
    compare_tick(m, p, i, a);
    ++i;
  }
  ImGui::EndTable();
  remember(a, "plans-table");
  return clicked;
}

// The ticked plans side by side: time, cost, cost per million tokens, memory headroom.
void compare_view(const PageModel& m, const PlanResult& plans) {
  std::vector<const Plan*> chosen;
  for (const auto& p : plans.plans) {
    if (compared(m.state, p)) chosen.push_back(&p);
  }
  ImGui::TextDisabled("%s", tr(S::compare_title));
  if (chosen.size() < 2) return;
  if (!ImGui::BeginTable("compare", static_cast<int>(chosen.size()) + 1,
                         ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter |
                             ImGuiTableFlags_SizingStretchSame)) {
    return;
  }
  ImGui::TableSetupColumn("");
  for (const Plan* p : chosen)
    ImGui::TableSetupColumn((p->instance + " x" + std::to_string(p->nodes)).c_str());
  ImGui::TableHeadersRow();
  auto row = [&](S name, auto show) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(tr(name));
    for (const Plan* p : chosen) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(show(*p).c_str());
    }
  };
  row(S::cmp_time, [](const Plan& p) { return format_duration(p.cost.expected_hours); });
  row(S::cmp_cost, [](const Plan& p) {
    return (p.price.assumption ? "≈ " : "") + format_money(p.cost.usd_total);
  });
  const double tokens = m.state.query.run.tokens;
  if (tokens > 0) {
    row(S::cmp_per_million,
        [&](const Plan& p) { return format_money(p.cost.usd_total / (tokens / 1e6)); });
  }
  row(S::cmp_headroom,
      [](const Plan& p) { return format_bytes(p.gpu_memory_bytes - p.memory.total()); });
  ImGui::EndTable();
}

// The launch config of a chosen plan (the first by default), with the plan picker before it.
void plan_launch(const PageModel& m, const PlanResult& plans, UiActions& a) {
  const Plan* chosen = launch_plan(plans, m.launch_plan);
  if (!chosen || !m.ev) return;
  auto name = [&](size_t i) {
    const Plan& p = plans.plans[i];
    return std::to_string(i + 1) + "  " + p.instance + " x" + std::to_string(p.nodes);
  };
  const size_t shown = static_cast<size_t>(chosen - plans.plans.data());
  ImGui::Spacing();
  ImGui::TextUnformatted(tr(S::launch_plan));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 24);
  if (ImGui::BeginCombo("##launch-plan", name(shown).c_str(), ImGuiComboFlags_HeightLargest)) {
    for (size_t i = 0; i < plans.plans.size(); ++i) {
      if (ImGui::Selectable((name(i) + "##launch-plan-" + std::to_string(i)).c_str(), i == shown))
        a.launch_plan = static_cast<int>(i);
      remember(a, "launch-plan-" + std::to_string(i));
    }
    ImGui::EndCombo();
  }
  remember(a, "launch-plan");
  draw_launch(
      m, plan_launch_config(m.ev->model, *chosen, shown_launch_format(m.launch_format, &*m.ev)),
      chosen->nodes, a);
}

// The state with a plan's instance and setup, on the Results tab.
PageState with_plan(PageState s, const Plan& plan) {
  Query& q = s.query;
  q.instance = plan.instance;
  q.nodes = plan.nodes;
  q.gpu.clear();  // the instance's
  q.gpus = 0;
  Setup& setup = q.request.setup;
  setup.tp = plan.setup.tp;
  setup.pp = plan.setup.pp;
  setup.ep = plan.setup.ep;
  setup.vp = plan.setup.vp;
  setup.cp = plan.setup.cp;
  setup.zero_stage = plan.setup.zero_stage;
  setup.dp_shard = plan.setup.dp_shard;
  setup.sequence_parallel = plan.setup.sequence_parallel;  // on for tensor with expert parallelism
  setup.micro_batch = plan.setup.micro_batch;
  setup.checkpointing = plan.setup.checkpointing;
  setup.global_batch = plan.setup.global_batch;
  s.tab = Tab::results;
  return s;
}

}  // namespace

UiActions draw_plans(const PageModel& m) {
  UiActions a(m.ratio);
  limits(m, a);
  if (!m.plan_error.message.empty()) {
    error_text(page_message(m.plan_error));
    return a;
  }
  if (!m.plans) return a;
  const PlanResult& plans = *m.plans;
  ImGui::TextWrapped(tr(S::searched_line),
                     format_count(static_cast<double>(plans.candidates)).c_str(),
                     format_count(static_cast<double>(plans.fitting)).c_str(),
                     format_count(static_cast<double>(plans.within_limits)).c_str());
  for (const auto& n : plans.notes) note_text(core_note(n));
  int load = plan_table(m, plans, a);
  plan_launch(m, plans, a);
  compare_view(m, plans);
  ImGui::TextDisabled("%s", tr(S::pareto_note));
  if (any_assumed(plans)) {
    ImGui::PushStyleColor(ImGuiCol_Text, color_assumed());
    ImGui::TextWrapped("%s", tr(S::assumed_mark));
    ImGui::PopStyleColor();
  }
  std::vector<ScatterPoint> pts;
  for (const auto& p : plans.plans) {
    pts.push_back({p.cost.expected_hours, usd_to_shown(p.cost.usd_total), p.pareto,
                   p.price.assumption, p.instance + " x" + std::to_string(p.nodes)});
  }
  const int clicked = scatter("pareto", pts, 260.0f * m.ratio);
  remember(a, "pareto");
  if (clicked >= 0) load = clicked;
  if (load >= 0) {
    a.state = with_plan(m.state, plans.plans[static_cast<size_t>(load)]);
    a.select_tab = true;
  }
  return a;
}

}  // namespace gpuplan::web
