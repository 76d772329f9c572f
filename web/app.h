#pragma once
// The calculator's UI: a view over the core. It edits a Request, asks the core for an
// Estimate when the request changes, and draws the result. It does no arithmetic of its own.

#include <optional>
#include <string>

#include "gpuplan/catalog.h"
#include "gpuplan/estimate.h"
#include "gpuplan/request.h"

namespace gpuplan::web {

class App {
 public:
  explicit App(Catalog catalog);

  // Replaces the request with one read from a URL query ("model=gpt2-small&batch=8").
  // A malformed query keeps the previous request and shows the error.
  void load_query(const std::string& query);
  // The current request as a URL query.
  std::string query() const;

  // Draws one frame of the UI (between ImGui::NewFrame and ImGui::Render).
  void draw();

  // True once after each change of the request (so the platform updates the URL).
  bool take_request_changed();
  // True once after each change of what results_json() returns.
  bool take_results_changed();
  // Results, inputs and widget positions as JSON, mirrored into the DOM for screen readers
  // and tests.
  std::string results_json() const;

 private:
  void recompute();
  void draw_inputs();
  void draw_results();

  Catalog catalog_;
  Request request_;
  std::optional<Estimate> estimate_;
  std::string error_;
  bool request_changed_ = false;
  bool results_changed_ = true;
  std::string widget_rects_;  // JSON object: widget name -> [x0, y0, x1, y1] in CSS pixels
};

// Computes the estimate JSON for a query without any UI (exported to JavaScript for tests).
std::string estimate_query_json(const Catalog& catalog, const std::string& query);

}  // namespace gpuplan::web
