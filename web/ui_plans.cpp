// The Plans tab: the planner's limits, its ranked plans, and the time-vs-cost chart. Clicking a
// row or a point loads that plan and switches to Results.
#include <cstdio>

#include "charts.h"
#include "screens.h"
#include "widgets.h"

namespace gpuplan::web {
namespace {

void limits(const PageModel& m, UiActions& a) {
  PageState s = m.state;
  bool edited = false;
  edited |= enum_combo(S::rank_by, s.objective, {Objective::cost, Objective::time},
                       +[](Objective o) { return tr(o == Objective::cost ? S::by_cost : S::by_time); });
  edited |= input_quantity(S::deadline, s.deadline_hours, 0, 1e7, &a, "deadline");
  edited |= input_quantity(S::budget, s.budget_usd, 0, 1e12, &a, "budget");
  edited |= input_int(S::max_nodes, s.max_nodes, 1, 256);
  if (edited) a.state = s;
}

// A total price; an assumed one (a rule, not a published price) is marked "≈" in orange.
void price_cell(double usd, bool assumed) {
  if (!assumed) {
    cell_text(format_usd(usd));
    return;
  }
  ImGui::PushStyleColor(ImGuiCol_Text, color_assumed());
  cell_text("≈ " + format_usd(usd));
  ImGui::PopStyleColor();
}

bool any_assumed(const PlanResult& plans) {
  for (const auto& p : plans.plans) {
    if (p.price.assumption) return true;
  }
  return false;
}

// The ranked plans; returns the index of a clicked row, or -1.
int plan_table(const PlanResult& plans, UiActions& a) {
  int clicked = -1;
  // Columns fit their content; the instance column takes the rest and cuts long names with an
  // ellipsis and a tooltip.
  if (!ImGui::BeginTable("plans", 9,
                         ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter | ImGuiTableFlags_ScrollY |
                             ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Resizable,
                         ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 12))) {
    return clicked;
  }
  for (S h : {S::col_rank, S::col_instance, S::col_gpu, S::col_nodes, S::col_parallel, S::col_zero_mb, S::col_time,
              S::col_usd, S::col_mfu}) {
    ImGui::TableSetupColumn(tr(h), h == S::col_instance ? ImGuiTableColumnFlags_WidthStretch : 0);
  }
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableHeadersRow();
  int i = 0;
  for (const auto& p : plans.plans) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    char label[32];
    std::snprintf(label, sizeof label, "%d%s##plan-%d", i + 1, p.pareto ? " *" : "", i);
    if (ImGui::Selectable(label, false, ImGuiSelectableFlags_SpanAllColumns)) clicked = i;
    remember(a, "plan-" + std::to_string(i));
    ImGui::TableNextColumn();
    cell_text(p.instance);
    ImGui::TableNextColumn();
    cell_text(p.gpu);
    ImGui::TableNextColumn();
    ImGui::Text("%d", p.nodes);
    ImGui::TableNextColumn();
    ImGui::Text("%d/%d/%d", p.setup.dp, p.setup.tp, p.setup.pp);
    ImGui::TableNextColumn();
    cell_text(std::to_string(p.setup.zero_stage) + ", " + format_count(static_cast<double>(p.setup.micro_batch)) + ", " +
              tr_checkpointing(p.setup.checkpointing));
    ImGui::TableNextColumn();
    cell_text(format_duration(p.cost.expected_hours));
    ImGui::TableNextColumn();
    price_cell(p.cost.usd_total, p.price.assumption);
    ImGui::TableNextColumn();
    cell_text(format_number(100 * p.time.mfu, 2) + " %");
    ++i;
  }
  ImGui::EndTable();
  return clicked;
}

// The state with a plan's instance and setup, on the Results tab.
PageState with_plan(PageState s, const Plan& plan) {
  s.instance = plan.instance;
  s.nodes = plan.nodes;
  Setup& setup = s.request.setup;
  setup.tp = plan.setup.tp;
  setup.pp = plan.setup.pp;
  setup.zero_stage = plan.setup.zero_stage;
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
  if (!m.plan_error.empty()) {
    error_text(page_message(m.plan_error));
    return a;
  }
  if (!m.plans) return a;
  const PlanResult& plans = *m.plans;
  ImGui::TextWrapped(tr(S::searched_line), format_count(static_cast<double>(plans.candidates)).c_str(),
                     format_count(static_cast<double>(plans.fitting)).c_str(),
                     format_count(static_cast<double>(plans.within_limits)).c_str());
  for (const auto& n : plans.notes) note_text(n);
  int load = plan_table(plans, a);
  ImGui::TextDisabled("%s", tr(S::pareto_note));
  if (any_assumed(plans)) {
    ImGui::PushStyleColor(ImGuiCol_Text, color_assumed());
    ImGui::TextWrapped("%s", tr(S::assumed_mark));
    ImGui::PopStyleColor();
  }
  std::vector<ScatterPoint> pts;
  for (const auto& p : plans.plans) {
    pts.push_back({p.cost.expected_hours, p.cost.usd_total, p.pareto, p.price.assumption,
                   p.instance + " x" + std::to_string(p.nodes)});
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
