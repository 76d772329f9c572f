#pragma once
// The calculator's UI: a view over the core. It edits a PageState, asks the core for the
// estimate, step time, cost and plans when the state changes, and draws them. It does no
// arithmetic of its own beyond laying out pixels.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/calibration.h"
#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/estimate.h"
#include "gpuplan/plan.h"
#include "gpuplan/probe_file.h"
#include "gpuplan/timing.h"
#include "page_state.h"

struct ImVec4;

namespace gpuplan::web {

// Everything computed for the current state. Errors are kept as text to show.
struct Computed {
  std::optional<Model> model;
  std::optional<Estimate> estimate;
  const Gpu* gpu = nullptr;
  const Instance* instance = nullptr;
  std::optional<StepTime> time;              // spec x default efficiency
  std::optional<StepTime> time_calibrated;   // with the probe file's measurements
  std::optional<PriceQuote> price;
  std::optional<RunCost> cost, cost_calibrated;
  std::vector<std::string> calibration_notes;
  std::string error;        // the workload or setup is invalid
  std::string time_error;   // the hardware cannot run it (precision unsupported, ...)
  std::string fit_advice;   // when it does not fit: the largest term and what to change
  std::string largest_term;
  bool fits = true;
};

class App {
 public:
  App(Catalog catalog, ProbeCrypto crypto);

  // Replaces the state with one read from a URL query. A malformed query keeps the previous
  // state and shows the error.
  void load_query(const std::string& query);
  // The current state as a URL query.
  std::string query() const;

  // Draws one frame (between ImGui::NewFrame and ImGui::Render). `pixel_ratio` is the device
  // pixel ratio the framebuffer uses; widget positions are published in CSS pixels.
  void draw(float pixel_ratio);

  // An uploaded file (Hugging Face config.json or probe file, told apart by content).
  // Returns the error shown to the user, or "" on success. Nothing else changes on error.
  std::string load_file(const std::string& name, const std::string& bytes);

  // Exports of the current results.
  std::string export_csv() const;
  std::string export_json() const;

  // Keys the user pinned (base64 Ed25519 public keys), remembered by the platform.
  void set_trusted_keys(std::vector<std::string> keys);
  const std::vector<std::string>& trusted_keys() const { return trusted_keys_; }

  bool take_request_changed();   // once after each state change (update the URL)
  bool take_results_changed();   // once after each change of results_json()
  bool take_keys_changed();      // once after the trusted keys changed
  std::string results_json() const;
  // Pending UI requests for the platform: "copy-link", "export-csv", "export-json", "upload".
  std::vector<std::string> take_actions();

 private:
  void set_state(const PageState& s);
  void recompute();
  void run_planner();
  void reread_probe();
  void draw_sidebar();
  void draw_results();
  void draw_plans();
  void draw_hardware();
  void draw_benchmarks();
  void remember(const std::string& name);
  void changed();

  Catalog catalog_;
  ProbeCrypto crypto_;
  PageState state_;
  Computed c_;
  std::optional<PlanResult> plans_;
  std::string plan_error_;
  bool plans_stale_ = true;
  std::string probe_text_;
  std::optional<ProbeFile> probe_;
  bool calibrate_ = false;
  std::string upload_status_;
  std::string upload_error_;
  std::vector<std::string> trusted_keys_;
  std::string error_;  // a bad link
  std::vector<std::string> actions_;
  bool request_changed_ = false;
  bool results_changed_ = true;
  bool keys_changed_ = false;
  bool force_tab_ = true;   // select state_.tab in the next frame (state set from outside)
  float ratio_ = 1.0f;
  std::map<std::string, std::vector<float>> rects_;  // CSS px: x0, y0, x1, y1
  std::string rects_json_;
  char model_filter_[64] = {};
  int instance_sort_ = 0;  // 0 price, 1 GPU, 2 provider
};

// Computes the estimate JSON for a CLI-style query without any UI (exported to JavaScript so
// tests can compare the page's core with the native CLI).
std::string estimate_query_json(const Catalog& catalog, const std::string& query);

}  // namespace gpuplan::web
