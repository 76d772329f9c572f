#pragma once
// The page's model, with no ImGui in it: what the user set (PageState, the link), the core's
// Evaluation of it, and the page's own transient state (PageModel); and what a screen asks for
// (UiActions). Screens are functions `UiActions draw_x(const PageModel&)`; only app.cpp applies
// actions and recomputes, so no screen calls back into the App (see shared/notes/layout.md).

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuplan/calibration.h"
#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/estimate.h"
#include "gpuplan/evaluate.h"
#include "gpuplan/launch_config.h"
#include "gpuplan/measured_run.h"
#include "gpuplan/plan.h"
#include "gpuplan/probe_file.h"
#include "gpuplan/published.h"
#include "gpuplan/timing.h"
#include "model/i18n.h"
#include "model/page_state.h"
#include "model/serve_compare.h"
#include "model/serve_job.h"
#include "model/slices.h"

namespace gpuplan::web {

// The string id of a memory term (gpuplan::memory_terms' key: "weights", "kv_cache", ...).
S term_name(const std::string& key);
// The largest memory term of an evaluation (what to change when it does not fit).
S largest_term(const Evaluation& ev);
// "Does not fit: needs ... The largest term is ...: what to change", in the page's language;
// "" when it fits or has no GPU.
std::string fit_advice(const Evaluation& ev);
// A band's evidence in the page's language: "rests on 60 validated runs of this kind from 1
// sources; widened for an unvalidated GPU architecture, ...".
std::string band_evidence(const ErrorBand& band);
// The Benchmarks page's rows a band rests on (its pool's section of the step-time, memory or
// serving rows), relative to the calculator in the documentation site:
// "../benchmarks/#band-time-decoder-16-bit" (the Chinese page under zh/).
enum class BandTable { time, memory, serving };
std::string benchmarks_rows_url(const ErrorBand& band, BandTable table);

// What the screens read: the state, its results, and the page's transient state.
struct PageModel {
  const Catalog* catalog = nullptr;
  PageState state;
  // The last evaluate() of state.query (the core's answer, defaults filled in), or why it failed
  // (the core's error with its id and values: page_message shows it in the page's language).
  std::optional<Evaluation> ev;
  Error error;
  std::optional<PlanResult> plans;
  Error plan_error{};
  std::optional<ProbeFile> probe;
  std::optional<ProbeFile> measured;  // a loaded gpuplan-measure file (ProbeFile::measured set)
  bool calibrate = false;
  std::string upload_status;
  std::string upload_error;                // in the language of the moment of the upload
  std::string link_error;                  // a bad link: its first problem, in the core's words
  std::vector<LinkProblem> link_problems;  // every bad key of the link, with what it fell back to
  std::string model_filter;                // the zoo search box
  int instance_sort = 0;                   // 0 price, 1 GPU, 2 provider
  float ratio = 1.0f;                      // framebuffer pixels per CSS pixel
  int copied_frames = 0;                   // "Copy link" shows "Link copied" while > 0
  bool cjk_font = false;                   // the Chinese font is in the atlas
  bool popup_open = false;                 // a combo or popup is open (published for tests)
  double plan_progress = 1;                // share of the planner search done (1: none under way)
  SliceStats plan_slices;                  // how the last planner search spread over frames
  ServeResults serve;                      // the Serving tab's plan, curve and latency curve
  CompareResults serve_compare;            // the Serving tab's GPUs or instances side by side
  CompareSort serve_compare_sort;          // the order of their table (a header clicked)
  // The launcher the user picked for the launch config Results and Plans show (none yet: the
  // framework's, shown_launch_format).
  std::optional<LaunchFormat> launch_format;
  int launch_plan = 0;           // Plans: the plan it is for (index)
  int launch_copied_frames = 0;  // "Copy" shows "Copied" while > 0
  // The last link opened: its fragment, without '#' (a test waits for the state of its link).
  std::string opened_link;
};

// What the user asked for in one frame. Empty fields mean "no change".
struct UiActions {
  float ratio = 1.0f;                    // to publish widget rectangles in CSS pixels
  std::optional<PageState> state;        // an edited state: apply it and recompute
  bool select_tab = false;               // bring the new state's tab to the front (a loaded plan)
  std::optional<Tab> tab;                // the user opened a tab
  std::optional<bool> calibrate;         // use the probe file's measurements
  std::optional<std::string> trust_key;  // pin this public key
  std::optional<std::string> model_filter;
  std::optional<int> instance_sort;
  std::optional<CompareSort> serve_compare_sort;
  std::optional<LaunchFormat> launch_format;
  std::optional<int> launch_plan;
  std::vector<std::string> platform;  // "copy-link", "copy-launch", "export-csv", "export-json",
                                      // "upload", "language", "open-url/URL"
  std::vector<std::pair<std::string, std::array<float, 4>>> rects;  // CSS px: x0, y0, x1, y1

  explicit UiActions(float r = 1.0f) : ratio(r) {}
  // Takes over what `later` asked for (the later screen wins where both set a field).
  void merge(UiActions&& later);
};

// The calculator's help page in the page's language, relative to the calculator in the
// documentation site: "../calculator-help/" (the Chinese page under zh/).
std::string help_url();

// Up to `n` ids from `candidates` nearest to `id` (edit distance, ignoring case), nearest first.
std::vector<std::string> nearest_ids(const std::string& id,
                                     const std::vector<std::string>& candidates, size_t n = 3);

// What the sidebar's model search lists for `filter`: the whole zoo when it is empty; else the
// entry the name resolves to as the CLI's --model reads it ("meta-llama/Llama-3.1-8B-Instruct")
// and the entries whose id, name or task contain it. With none, `suggested` holds the entries the
// CLI's "did you mean" names.
struct ModelSearch {
  std::vector<const Model*> matches;
  std::vector<const Model*> suggested;
};
ModelSearch search_models(const Catalog& catalog, const std::string& filter);

// Replaces unknown model, GPU and instance ids with the default link's, noting each with its
// nearest matches; then says for every problem what the page uses instead ("fell back to").
void check_link_ids(const Catalog& catalog, ParsedLink& link);

// Runs the core for a state through evaluate(): model, estimate, fit, step time, price and
// cost, the calibrated time and cost when `probe` is given, the published runs of the setup, and
// `measured`'s run (a gpuplan-measure file) against the step time. A generation (mode infer with
// generated tokens) is timed with `serving`'s runtime profiles, as `gpuplan serve` times it.
Result<Evaluation> compute(const Catalog& catalog, const PageState& state, const ProbeFile* probe,
                           const ProbeFile* measured = nullptr,
                           const ServingAssumptions* serving = nullptr);
// Whether the state's estimate times a generation (compute needs the serving profiles).
bool times_generation(const PageState& state);

// Measured beside predicted, as the Results tab shows it (and its DOM mirror repeats it):
// "measured: 2,470 img/s (NVIDIA DeepLearningExamples, DGX A100, 1 x a100-sxm4-80gb; table ...)"
// and "predicted 2,301 img/s, -6.8 % from the measurement", in the page's language.
std::string published_measured_text(const PublishedComparison& c);
std::string published_predicted_text(const PublishedComparison& c);
// The run's total as the Results tab shows it, in the page's currency (money()): "≈ " before an
// assumed price (a rule, not a published one); empty without a price or a run length.
std::string run_total_text(const Evaluation& ev);
// A fraction as a signed percentage: "+5.5 %", "-6.8 %".
std::string signed_percent(double fraction);
// One row of the measured-run table; "absent" where the file has no value (memory on a CPU).
struct MeasuredRow {
  S quantity;
  std::string measured, predicted, difference;
};
// Step time, samples/s and peak memory (allocated; reserved against the predicted total per GPU).
std::vector<MeasuredRow> measured_rows(const Evaluation& ev, const MeasuredRun& run);
// "Intel Xeon (cpu x 1), 20 timed steps after 5 warm-up; signature valid".
std::string measured_run_line(const ProbeFile& f);

// The Money the page shows for its state's currency (money_for with the catalog's rate); USD
// when the catalog has no rate (the currency switch's tooltip says why).
Money page_money(const PageModel& m);

// The planner's query for a state (the setup's parallelism is left to the planner).
PlanQuery plan_query(const Catalog& catalog, const PageState& state, const Model& model);

}  // namespace gpuplan::web
