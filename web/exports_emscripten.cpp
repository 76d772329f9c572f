// Functions the page's JavaScript calls (Module.ccall): URL changes and direct queries.
#include <emscripten.h>

#include <string>

#include "main_app.h"

extern "C" {

// Called on hashchange/popstate (back and forward buttons) with the new fragment.
EMSCRIPTEN_KEEPALIVE void gpuplan_set_state(const char* query) {
  if (auto* app = gpuplan::web::app_instance()) app->load_query(query ? query : "");
}

// The estimate for a query, as JSON, computed by the core without the UI (for tests).
EMSCRIPTEN_KEEPALIVE const char* gpuplan_estimate_query(const char* query) {
  static std::string out;
  const auto* catalog = gpuplan::web::catalog_instance();
  out = catalog ? gpuplan::web::estimate_query_json(*catalog, query ? query : "")
                : std::string("{\"error\":\"not loaded\"}");
  return out.c_str();
}

}  // extern "C"
