// The Results tab: parameters, the memory bar against the GPU, FLOPs, step time (spec-based and
// calibrated), the run's duration and cost, and measured beside predicted: published runs of the
// same setup and the user's own measured run (a gpuplan-measure file).
#include "ui/charts.h"
#include "gpuplan/evaluate.h"
#include "gpuplan/report.h"
#include "model/launch.h"
#include "ui/screens.h"
#include "ui/widgets.h"

namespace gpuplan::web {
namespace {

constexpr ImGuiTableFlags kTableFlags =
    ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter | ImGuiTableFlags_SizingStretchProp;

// The verdict with the memory band and the evidence it rests on, in one line under the bar's
// numbers (a "tight" fit is drawn in the caution colour, not "fits" green).
void band_lines(const Evaluation& c, UiActions& a) {
  if (!c.gpu) return;
  const FitVerdict& v = c.verdict;
  const S word = v.fit == Fit::fits    ? S::verdict_fits
                 : v.fit == Fit::tight ? S::verdict_tight
                                       : S::verdict_no_fit;
  if (v.fit == Fit::tight) ImGui::PushStyleColor(ImGuiCol_Text, color_assumed());
  if (v.band.rows > 0) {
    ImGui::TextWrapped(tr(S::memory_band), tr(word), format_bytes(v.memory_bytes.low).c_str(),
                       format_bytes(v.memory_bytes.high).c_str(), band_evidence(v.band).c_str());
  } else {
    ImGui::TextWrapped("%s", tr(S::band_none));
  }
  if (v.fit == Fit::tight) ImGui::PopStyleColor();
  if (v.band.rows > 0) band_rows_link(v.band, BandTable::memory, a, "memory-band-link");
}

// Without hardware the estimate stands alone: memory per GPU, no capacity to compare with.
void summary_without_gpu(const Evaluation& c, UiActions& a) {
  const Estimate& e = c.estimate;
  ImGui::TextWrapped(tr(S::setup_line_no_gpu),
                     format_count(static_cast<double>(e.global_batch)).c_str(),
                     format_count(static_cast<double>(e.micro_batch)).c_str(),
                     format_count(static_cast<double>(e.grad_accum_steps)).c_str());
  ImGui::TextWrapped(tr(S::memory_no_gpu), format_bytes(e.memory.total()).c_str(),
                     tr(largest_term(c)));
  remember(a, "memory-bar");
  ImGui::Spacing();
}

void summary(const PageModel& m, UiActions& a) {
  const Evaluation& c = *m.ev;
  const Estimate& e = c.estimate;
  const MemoryBytes& mem = e.memory;
  ImGui::TextWrapped(tr(S::params_line), model_name(c.model).c_str(),
                     format_count(static_cast<double>(e.params.total)).c_str(),
                     format_count(static_cast<double>(e.params.trainable)).c_str());
  if (e.moe) {
    ImGui::TextWrapped(tr(S::moe_params_line),
                       format_count(static_cast<double>(e.params.active_per_token)).c_str(),
                       format_count(static_cast<double>(e.params.total)).c_str(),
                       format_count(static_cast<double>(e.params.experts)).c_str(),
                       format_count(e.moe->expert_params_per_gpu).c_str(),
                       format_number(e.moe->local_experts, 4).c_str(), e.moe->ep, e.moe->etp);
  }
  if (!c.gpu) return summary_without_gpu(c, a);
  ImGui::TextWrapped(tr(S::setup_line), e.num_gpus, c.gpu->name.c_str(),
                     format_count(static_cast<double>(e.global_batch)).c_str(),
                     format_count(static_cast<double>(e.micro_batch)).c_str(),
                     format_count(static_cast<double>(e.grad_accum_steps)).c_str());
  if (c.fit.fits) {
    ImGui::PushStyleColor(ImGuiCol_Text, color_ok());
    ImGui::TextWrapped(tr(S::fits_line), format_bytes(mem.total()).c_str(),
                       format_bytes(c.gpu->memory_bytes).c_str(), tr(largest_term(c)));
    ImGui::PopStyleColor();
  } else if (c.verdict.fit == Fit::tight) {
    ImGui::PushStyleColor(ImGuiCol_Text, color_assumed());  // the caution colour, as the band's
    ImGui::TextWrapped("%s", fit_advice(c).c_str());
    ImGui::PopStyleColor();
  } else {
    error_text(fit_advice(c));
  }
  band_lines(c, a);
  ImGui::Spacing();
  ImGui::TextUnformatted(tr(S::peak_memory));
  std::vector<BarSegment> segments;
  for (const auto& t : gpuplan::memory_terms(mem))
    segments.push_back({tr(term_name(t.key)), t.bytes});
  stacked_bar("memory", segments, c.gpu->memory_bytes, c.gpu->name, 28.0f * m.ratio);
  remember(a, "memory-bar");
  ImGui::Spacing();
}

void flops_table(const Estimate& e) {
  if (!ImGui::BeginTable("flops", 2, kTableFlags)) return;
  ImGui::TableSetupColumn(tr(S::flops_header));
  ImGui::TableSetupColumn(tr(S::value));
  ImGui::TableHeadersRow();
  table_row(tr(S::fwd_per_sample), format_flops(e.flops.forward_per_sample));
  if (e.moe) {
    table_row(tr(S::flops_rule_active), format_flops(e.flops.params_rule_active_per_token));
    table_row(tr(S::flops_rule_total), format_flops(e.flops.params_rule_per_token));
  }
  if (e.flops.train_per_step > 0) {
    table_row(tr(S::train_step), format_flops(e.flops.train_per_step));
    table_row(tr(S::recompute), format_flops(e.flops.recompute_per_step));
  } else {
    table_row(tr(S::prefill), format_flops(e.flops.prefill));
    table_row(tr(S::decode_per_token), format_flops(e.flops.decode_per_token));
  }
  ImGui::EndTable();
}

// One row of the time table: the spec-based value and, when there is one, the calibrated one.
void time_row(const Evaluation& c, S id, double (*get)(const StepTime&),
              std::string (*show)(double)) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(tr(id));
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(show(get(*c.time)).c_str());
  if (c.time_calibrated) {
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(show(get(*c.time_calibrated)).c_str());
  }
}

std::string seconds(double s) {
  return format_duration(s / 3600);
}
std::string rate(double x) {
  return format_number(x, 4);
}
std::string percent(double x) {
  return format_number(100 * x, 3) + " %";
}

void time_table(const Evaluation& c, UiActions& a) {
  if (ImGui::BeginTable("time", c.time_calibrated ? 3 : 2, kTableFlags)) {
    ImGui::TableSetupColumn(tr(S::time_header));
    ImGui::TableSetupColumn(tr(S::spec_x_eff));
    if (c.time_calibrated) ImGui::TableSetupColumn(tr(S::calibrated_probe));
    ImGui::TableHeadersRow();
    time_row(
        c, S::step_time, [](const StepTime& t) { return t.step_s; }, seconds);
    time_row(
        c, S::samples_per_s, [](const StepTime& t) { return t.samples_per_s; }, rate);
    if (c.time->tokens_per_s > 0)
      time_row(
          c, S::tokens_per_s, [](const StepTime& t) { return t.tokens_per_s; }, rate);
    time_row(
        c, S::mfu, [](const StepTime& t) { return t.mfu; }, percent);
    if (c.time->prefill_s > 0) {  // inference: the prompts' forward pass, then a step per token
      time_row(
          c, S::prefill, [](const StepTime& t) { return t.prefill_s; }, seconds);
      if (c.time->decode_token_s > 0)
        time_row(
            c, S::decode_step, [](const StepTime& t) { return t.decode_token_s; }, seconds);
    } else {
      time_row(
          c, S::dp_comm, [](const StepTime& t) { return t.dp_comm_exposed_s; }, seconds);
      time_row(
          c, S::pp_bubble, [](const StepTime& t) { return t.pp_bubble_s; }, seconds);
      if (c.time->pp_imbalance_s > 0)
        time_row(
            c, S::pp_imbalance, [](const StepTime& t) { return t.pp_imbalance_s; }, seconds);
    }
    if (c.time->ep_comm_s > 0)
      time_row(
          c, S::ep_comm, [](const StepTime& t) { return t.ep_comm_exposed_s; }, seconds);
    if (c.time->offload_s > 0)
      time_row(
          c, S::offload_comm, [](const StepTime& t) { return t.offload_exposed_s; }, seconds);
    ImGui::EndTable();
  }
  if (c.time_band.rows > 0) {
    const Range r = time_range_s(c.time->step_s, c.time_band);
    ImGui::TextWrapped(tr(S::step_band), seconds(r.low).c_str(), seconds(r.high).c_str(),
                       band_evidence(c.time_band).c_str());
    band_rows_link(c.time_band, BandTable::time, a, "step-band-link");
  } else {
    ImGui::TextWrapped("%s", tr(S::band_none));
  }
  for (const auto& n : c.time->notes) note_text(core_note(n));
  if (c.time->input_capacity_samples_per_s > 0) {
    ImGui::TextWrapped(tr(S::input_line),
                       format_number(c.time->input_needed_samples_per_s, 3).c_str(),
                       format_number(c.time->input_capacity_samples_per_s, 3).c_str(),
                       c.time->suggested_num_workers);
  }
}

void cost_lines(const PageModel& m) {
  const Evaluation& c = *m.ev;
  ImGui::Spacing();
  std::string run = format(tr(S::run_line), format_count(c.cost->steps).c_str(),
                           format_duration(c.cost->expected_hours).c_str());
  if (c.cost_calibrated)
    run +=
        format(tr(S::calibrated_dur), format_duration(c.cost_calibrated->expected_hours).c_str());
  ImGui::TextWrapped("%s", run.c_str());
  if (c.price_error) {
    error_text(page_message(*c.price_error));
    return;
  }
  if (!c.price) {
    ImGui::TextDisabled("%s", tr(S::pick_instance));
    return;
  }
  const bool assumed = c.price->assumption;
  const std::string total = run_total_text(c);
  ImGui::PushStyleColor(ImGuiCol_Text,
                        assumed ? color_assumed() : ImGui::GetStyleColorVec4(ImGuiCol_Text));
  ImGui::TextWrapped(tr(S::cost_line), total.c_str(),
                     format_price(c.cost->usd_per_hour, *c.price).c_str(),
                     tr_pricing(c.query.pricing), region_text(c.price->region).c_str(),
                     price_date(*c.price).c_str());
  ImGui::PopStyleColor();
  if (c.price->commitment_h > 0 && c.price->break_even_utilisation) {
    note_text(format(tr(S::break_even), format_duration(c.price->commitment_h).c_str(),
                     (format_number(100 * *c.price->break_even_utilisation, 3) + " %").c_str()));
  }
  if (assumed) {
    note_text(tr(S::assumed_mark));
    note_text(format(
        tr(S::price_basis),
        price_basis(*c.price, c.query.pricing, c.instance ? c.instance->provider : std::string())
            .c_str()));
  }
}

// Published runs of this setup: the measured figure, its source and the difference; the
// source's address opens in a new tab when clicked.
void published_lines(const Evaluation& c, UiActions& a) {
  if (c.published.empty()) return;
  ImGui::Spacing();
  ImGui::TextUnformatted(tr(S::published_header));
  for (size_t i = 0; i < c.published.size(); ++i) {
    const PublishedComparison& p = c.published[i];
    ImGui::TextWrapped("%s", published_measured_text(p).c_str());
    remember(a, "published-" + std::to_string(i));
    ImGui::TextWrapped("%s", published_predicted_text(p).c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, color_note());
    ImGui::TextWrapped(tr(S::published_link), p.run.url.c_str());
    ImGui::PopStyleColor();
    if (ImGui::IsItemClicked()) a.platform.push_back("open-url/" + p.run.url);
    remember(a, "published-link-" + std::to_string(i));
  }
}

// The loaded measured-run file (gpuplan-measure) against the prediction: step time, samples/s
// and peak memory, "absent" where the file has none (memory on a CPU) and why.
void measured_run_table(const PageModel& m, UiActions& a) {
  if (!m.measured || !m.measured->measured) return;
  const MeasuredRun& run = *m.measured->measured;
  ImGui::Spacing();
  ImGui::TextUnformatted(tr(S::measured_header));
  ImGui::TextWrapped("%s", measured_run_line(*m.measured).c_str());
  if (!m.ev || !m.ev->measured_run) {
    ImGui::TextDisabled("%s", tr(S::measured_needs_time));
    return;
  }
  if (ImGui::BeginTable("measured-run", 4, kTableFlags)) {
    for (S col : {S::col_quantity, S::col_measured, S::col_predicted, S::col_difference})
      ImGui::TableSetupColumn(tr(col));
    ImGui::TableHeadersRow();
    for (const MeasuredRow& r : measured_rows(*m.ev, run)) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(tr(r.quantity));
      for (const std::string* v : {&r.measured, &r.predicted, &r.difference}) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(v->c_str());
      }
    }
    ImGui::EndTable();
  }
  remember(a, "measured-run");
  if (run.memory_absent_reason)
    note_text(format(tr(S::memory_absent), run.memory_absent_reason->c_str()));
  for (const auto& n : m.ev->measured_run->notes) note_text(core_note(n));
}

}  // namespace

UiActions draw_results(const PageModel& m) {
  UiActions a(m.ratio);
  if (!m.error.message.empty()) {
    error_text(page_message(m.error));
    return a;
  }
  if (!m.ev) return a;
  const Evaluation& c = *m.ev;
  summary(m, a);
  flops_table(c.estimate);
  if (c.hardware_error) error_text(page_message(*c.hardware_error));
  if (c.time) time_table(c, a);
  if (c.cost) {
    cost_lines(m);
  } else if (c.price_error) {
    error_text(page_message(*c.price_error));
  }
  published_lines(c, a);
  measured_run_table(m, a);
  for (const auto& n : c.estimate.notes) note_text(core_note(n));
  // A launch config is a training run's on its GPUs: none for inference or without hardware.
  if (c.query.request.setup.mode == Mode::train && c.gpu)
    draw_launch(m, estimate_launch_config(c, shown_launch_format(m.launch_format, &c)),
                c.query.nodes, a);
  return a;
}

}  // namespace gpuplan::web
