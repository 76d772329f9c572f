#pragma once
// The calculator's frame loop: owns the PageModel, draws the screens, applies what they ask for
// (UiActions) and recomputes through the core when the state changes. The screens (ui_*.cpp)
// never call back into it.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/exports.h"
#include "model/page_model.h"

namespace gpuplan::web {

class App {
 public:
  // `catalog` outlives the App; main() completes it in place after the first frame (then calls
  // catalog_changed()).
  App(const Catalog& catalog, ProbeCrypto crypto);
  // The catalog's entries moved (it was completed): recompute what points into it.
  void catalog_changed();

  // Replaces the state with one read from a URL query. A malformed query keeps the previous
  // state and shows the error.
  void load_query(const std::string& query);
  // The current state as a URL query.
  std::string query() const;

  // The language shown when the link names none (the browser's or the desktop's, e.g. "zh-CN").
  void set_default_language(const std::string& code);
  Lang lang() const { return lang_; }
  // The Chinese font is in the atlas (published for tests).
  void set_cjk_font_loaded() {
    m_.cjk_font = true;
    results_changed_ = true;
  }

  // Draws one frame (between ImGui::NewFrame and ImGui::Render). `pixel_ratio` is the device
  // pixel ratio the framebuffer uses; widget positions are published in CSS pixels.
  void draw(float pixel_ratio);

  // An uploaded file (Hugging Face config.json, probe file or measured-run file, told apart by
  // content).
  // Returns the error shown to the user, or "" on success. Nothing else changes on error.
  std::string load_file(const std::string& name, const std::string& bytes);

  // Export CSV / Export JSON of the tab on screen (model/exports.h).
  ExportFile export_file(ExportKind kind) const;
  // The launch config the tab on screen shows (Results: the estimate's, Plans: the chosen
  // plan's), for "copy-launch"; "" when it shows an error instead.
  std::string launch_text() const;

  // Keys the user pinned (base64 Ed25519 public keys), remembered by the platform.
  void set_trusted_keys(std::vector<std::string> keys);
  const std::vector<std::string>& trusted_keys() const { return trusted_keys_; }

  // Whether the last frame left work the next frames carry on (a planner search or a serving
  // plan under way, a slice a frame; a "Link copied" or "Copied" confirmation counting down): the
  // page keeps drawing while it does, and rests otherwise.
  bool wants_frames() const {
    return work_in_flight_ || m_.copied_frames > 0 || m_.launch_copied_frames > 0;
  }

  bool take_request_changed();  // once after each state change (update the URL)
  bool take_results_changed();  // once after each change of results_json()
  bool take_keys_changed();     // once after the trusted keys changed
  std::string results_json() const;
  // Pending UI requests for the platform: "copy-link", "copy-launch", "export-csv",
  // "export-json", "upload".
  std::vector<std::string> take_actions();

  // data/assumptions.json's serving constants, parsed on first use (the Serving tab, the page's
  // serve bench), not at the page's start; null when they do not parse (the tab shows why).
  const ServingAssumptions* serving();

 private:
  void set_state(const PageState& s);
  void recompute();
  void reread_probe();
  std::string load_probe(const std::string& name, const std::string& bytes);
  void toggle_language();
  void draw_tabs(UiActions& a, bool narrow);
  void draw_tab(UiActions& a, Tab tab);
  void draw_plans_tab(UiActions& a);
  void draw_serving_tab(UiActions& a);
  void run_serve_compare(const std::string& serve_key);
  void apply(UiActions&& a);
  void publish_rects(const UiActions& a);

  const Catalog& catalog_;
  ProbeCrypto crypto_;
  PageModel m_;
  bool plans_stale_ = true;
  std::optional<PlanSearch> search_;           // a planner search under way, one slice per frame
  std::optional<ServingAssumptions> serving_;  // data/assumptions.json "serving" (read lazily)
  Error serving_error_;                        // why serving_ is empty
  std::unique_ptr<ServeJob> serve_job_;        // a serving plan under way, slices per frame
  std::string serve_key_;                      // the serving question serve_job_ answers
  std::unique_ptr<CompareJob> compare_job_;    // the Serving tab's comparison under way
  std::string compare_key_;                    // the question and set compare_job_ answers
  std::string probe_text_;
  std::string measured_text_;  // the loaded gpuplan-measure file (read again with new keys)
  std::vector<std::string> trusted_keys_;
  std::vector<std::string> actions_;
  bool request_changed_ = false;
  bool results_changed_ = true;
  bool keys_changed_ = false;
  bool work_in_flight_ = false;  // see wants_frames()
  bool force_tab_ = true;        // select m_.state.tab in the next frame (state set from outside)
  bool narrow_ = false;          // the last frame laid out for a phone (the inputs a tab)
  std::string rects_json_;
  Lang default_lang_ = Lang::en;
  Lang lang_ = Lang::en;
};

}  // namespace gpuplan::web
