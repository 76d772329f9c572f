// Functions the page's JavaScript calls (Module.ccall): URL changes, uploads, exports, and a
// direct query of the core for tests. Those that change what the page shows wake it (it draws
// only then: main.cpp); the queries (exports, estimates, benches) draw nothing, unless they load
// the catalog's instances (complete_catalog wakes it then).
#include <emscripten.h>
#include <imgui.h>

#include <string>

#include "catalog_files.h"
#include "model/exports.h"
#include "gpuplan/serve_assumptions.h"
#include "platform/main_app.h"

extern "C" {

// Called on hashchange/popstate (back and forward buttons) with the new fragment.
EMSCRIPTEN_KEEPALIVE void gpuplan_set_state(const char* query) {
  gpuplan::web::complete_catalog();  // the link may name an instance
  if (auto* app = gpuplan::web::app_instance()) app->load_query(query ? query : "");
  gpuplan::web::wake_page();
}

// A file the user chose or dropped: `size` bytes at `data`. Returns the error shown ("" if none).
EMSCRIPTEN_KEEPALIVE const char* gpuplan_load_file(const char* name, const char* data, int size) {
  static std::string error;
  auto* app = gpuplan::web::app_instance();
  error = app && size >= 0
              ? app->load_file(name ? name : "upload", std::string(data, static_cast<size_t>(size)))
              : std::string("not loaded");
  gpuplan::web::wake_page();  // the results, or the error shown
  return error.c_str();
}

// "csv" or "json" export of the tab on screen (what Export CSV / Export JSON download).
EMSCRIPTEN_KEEPALIVE const char* gpuplan_export(const char* kind) {
  static std::string out;
  auto* app = gpuplan::web::app_instance();
  if (!app) return "";
  const bool csv = std::string(kind ? kind : "") == "csv";
  out = app->export_file(csv ? gpuplan::web::ExportKind::csv : gpuplan::web::ExportKind::json).text;
  return out.c_str();
}

// The estimate for a CLI-style query, as JSON, computed by the core without the UI (tests).
EMSCRIPTEN_KEEPALIVE const char* gpuplan_estimate_query(const char* query) {
  static std::string out;
  const auto* catalog = gpuplan::web::catalog_instance();
  out = catalog ? gpuplan::web::estimate_query_json(*catalog, query ? query : "")
                : std::string("{\"error\":\"not loaded\"}");
  return out.c_str();
}

// Times the core in this WebAssembly build (bench/bench_web.mjs): kind "estimate", "plan" or
// "serve" (over the whole catalog: the instances are loaded first).
EMSCRIPTEN_KEEPALIVE const char* gpuplan_bench(const char* kind) {
  static std::string out;
  const std::string k = kind ? kind : "";
  const gpuplan::ServingAssumptions* serving = nullptr;
  if (k == "serve") {
    gpuplan::web::complete_catalog();
    if (auto* app = gpuplan::web::app_instance()) serving = app->serving();
  }
  const auto* catalog = gpuplan::web::catalog_instance();
  out = catalog ? gpuplan::web::bench_json(*catalog, k, serving)
                : std::string("{\"error\":\"not loaded\"}");
  return out.c_str();
}

// The Chinese font subset, fetched by the page: `size` bytes at `data`.
EMSCRIPTEN_KEEPALIVE void gpuplan_font_loaded(const char* data, int size) {
  gpuplan::web::deliver_cjk_font(size > 0 ? std::string(data, static_cast<size_t>(size))
                                          : std::string());
}

// Mouse wheel steps, already normalised by the page (deltaMode, sign; see shell.html): positive
// dy scrolls up, as Dear ImGui expects. Emscripten 3.1.6's GLFW passes the raw deltaY instead.
EMSCRIPTEN_KEEPALIVE void gpuplan_wheel(double dx, double dy) {
  if (!ImGui::GetCurrentContext()) return;
  ImGuiIO& io = ImGui::GetIO();
  io.MouseWheelH += static_cast<float>(dx);
  io.MouseWheel += static_cast<float>(dy);
  gpuplan::web::wake_page();
}

}  // extern "C"
