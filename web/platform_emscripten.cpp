// Browser platform: state in the URL fragment, results mirrored into the DOM, the browser's
// animation-frame loop, and canvas sizing for high-DPI screens (Emscripten 3.1.6's GLFW does not
// read devicePixelRatio; see shared/notes/wasm-build.md, pitfall 11).
#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <emscripten/html5.h>

#include <string>

#include "platform.h"

namespace gpuplan::web {
namespace {
std::function<void()> g_frame;
void frame_trampoline() { g_frame(); }
}  // namespace

const char* platform_glsl_version() { return "#version 300 es"; }

void platform_window_hints() {
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
}

std::string platform_initial_state(int, char**) {
  char* hash = emscripten_run_script_string("decodeURIComponent(location.hash || \"\")");
  return hash ? std::string(hash) : std::string();
}

void platform_store_state(const std::string& query) {
  EM_ASM({
    var h = "#" + UTF8ToString($0);
    if (location.hash !== h) history.pushState(null, document.title, h);
  }, query.c_str());
}

void platform_publish_results(const std::string& json) {
  EM_ASM({
    var s = UTF8ToString($0);
    window.gpuplanState = JSON.parse(s);
    var el = document.getElementById("app-state");
    if (el) el.textContent = s;
    if (window.onGpuplanState) window.onGpuplanState(window.gpuplanState);
  }, json.c_str());
}

void platform_run_loop(GLFWwindow*, const std::function<void()>& frame) {
  g_frame = frame;
  emscripten_set_main_loop(frame_trampoline, 0, true);
}

float platform_pixel_ratio(GLFWwindow* window) {
  // The canvas follows its container's CSS size (the page lays it out full-window).
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size("#canvas-box", &css_w, &css_h);
  const int want_w = static_cast<int>(css_w), want_h = static_cast<int>(css_h);
  int w = 0, h = 0;
  glfwGetWindowSize(window, &w, &h);
  if (want_w > 0 && want_h > 0 && (w != want_w || h != want_h)) glfwSetWindowSize(window, want_w, want_h);
  return 1.0f;
}

}  // namespace gpuplan::web
