// Browser platform: state in the URL fragment, results mirrored into the DOM, the browser's
// animation-frame loop, canvas sizing for high-DPI screens (Emscripten 3.1.6's GLFW does not
// read devicePixelRatio; see shared/notes/wasm-build.md, pitfall 11), and the page's file
// input, clipboard, downloads and localStorage.
#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <emscripten/html5.h>

#include <cstdio>
#include <string>

#include "ui/app.h"
#include "platform/main_app.h"
#include "platform/platform.h"

// EM_ASM bodies are JavaScript, which clang-format would rewrite as C++ (it splits "!=="):
// this file keeps its hand layout.
// clang-format off
namespace gpuplan::web {
namespace {
std::function<bool()> g_tick;
bool g_paused = false;
// A tick that draws nothing also stops asking for animation frames: a page that asks for them
// has Chromium run a frame for each, 4-5% of a core per page in headless Chromium even with
// nothing drawn (0.2% paused; bench/bench_web.mjs). The loop waits for platform_wake().
void tick_trampoline() {
  if (!g_tick()) {
    g_paused = true;
    emscripten_pause_main_loop();
  }
}

// Wakes for what GLFW's callbacks do not report here: the window resized (the canvas follows
// its box, platform_pixel_ratio), the focus moving, the tab shown again. They consume nothing
// (false: no preventDefault). Input wakes the page through GLFW (main.cpp), the wheel through
// gpuplan_wheel, the page's JavaScript through the exports (exports_emscripten.cpp).
EM_BOOL wake_on_ui(int, const EmscriptenUiEvent*, void*) { wake_page(); return EM_FALSE; }
EM_BOOL wake_on_focus(int, const EmscriptenFocusEvent*, void*) { wake_page(); return EM_FALSE; }
EM_BOOL wake_on_visibility(int, const EmscriptenVisibilityChangeEvent*, void*) { wake_page(); return EM_FALSE; }
}  // namespace

const char* platform_glsl_version() { return "#version 300 es"; }

void platform_window_hints() {
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  // As the page's early context (shell.html): ImGui draws with no depth or stencil buffer.
  glfwWindowHint(GLFW_DEPTH_BITS, 0);
  glfwWindowHint(GLFW_STENCIL_BITS, 0);
}

std::string platform_initial_state(int, char**) {
  char* hash = emscripten_run_script_string("location.hash || \"\"");
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
    if (window.gpuplanResultsMs === undefined) window.gpuplanResultsMs = performance.now();
    window.gpuplanState = JSON.parse(s);
    var el = document.getElementById("app-state");
    if (el) el.textContent = s;
  }, json.c_str());
}

void platform_first_frame(const StartupTimes& t) {
  std::printf("gpuplan startup: catalog %.1f ms, app and link %.1f ms, window and GL context %.1f ms, "
              "font atlas %.1f ms; first frame %.1f ms\n", t.catalog_ms, t.app_ms, t.context_ms, t.atlas_ms,
              t.frame_ms);
  // No comma outside parentheses in an EM_ASM body (the macro would split it there).
  EM_ASM({
    window.gpuplanFirstFrameMs = performance.now();
    performance.mark("gpuplan-first-frame");  // for traces (bench_web.mjs)
    var s = {};
    s.catalog = $0;
    s.app = $1;
    s.context = $2;
    s.atlas = $3;
    s.frame = $4;
    window.gpuplanStartup = s;
  }, t.catalog_ms, t.app_ms, t.context_ms, t.atlas_ms, t.frame_ms);
}

void platform_run_loop(GLFWwindow*, const std::function<bool()>& tick) {
  g_tick = tick;
  emscripten_set_resize_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, EM_FALSE, wake_on_ui);
  emscripten_set_focus_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, EM_FALSE, wake_on_focus);
  emscripten_set_blur_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, EM_FALSE, wake_on_focus);
  emscripten_set_visibilitychange_callback(nullptr, EM_FALSE, wake_on_visibility);
  // Ticks every animation frame while the page draws.
  emscripten_set_main_loop(tick_trampoline, 0, true);
}

void platform_wake() {
  if (!g_paused) return;
  g_paused = false;
  emscripten_resume_main_loop();  // the next animation frame ticks
}

void platform_frame_drawn(long frames) {
  EM_ASM({ window.gpuplanFrames = $0; }, frames);
}

float platform_pixel_ratio(GLFWwindow* window) {
  // The framebuffer is the canvas box's CSS size times devicePixelRatio; ImGui then lays out in
  // device pixels with fonts and spacing scaled by the same ratio (see main.cpp).
  const double dpr = emscripten_get_device_pixel_ratio();
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size("#canvas-box", &css_w, &css_h);
  const int want_w = static_cast<int>(css_w * dpr), want_h = static_cast<int>(css_h * dpr);
  int w = 0, h = 0;
  glfwGetWindowSize(window, &w, &h);
  if (want_w > 0 && want_h > 0 && (w != want_w || h != want_h)) {
    // Not glfwSetWindowSize: Emscripten's GLFW asks for fullscreen when the size equals the
    // screen's (headless browsers and maximised windows). Resizing the canvas through the
    // Browser library updates GLFW's window size through its resize listener.
    EM_ASM({ Browser.setCanvasSize($0, $1); }, want_w, want_h);
  }
  return static_cast<float>(dpr);
}

void platform_install_drop(GLFWwindow*, App*) {}  // the shell page handles drops

void platform_perform(const std::string& action, App& app) {
  if (action == "copy-link") {
    EM_ASM({
      if (navigator.clipboard) navigator.clipboard.writeText(location.href).catch(function() {});
      window.gpuplanLastCopied = location.href;
    });
  } else if (action == "copy-launch") {
    EM_ASM({
      var text = UTF8ToString($0);
      if (navigator.clipboard) navigator.clipboard.writeText(text).catch(function() {});
      window.gpuplanLastCopied = text;
    }, app.launch_text().c_str());
  } else if (action == "export-csv" || action == "export-json") {
    const ExportFile f =
        app.export_file(action == "export-csv" ? ExportKind::csv : ExportKind::json);
    EM_ASM({
      var blob = new Blob([UTF8ToString($0)], {type: UTF8ToString($1)});
      var a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = UTF8ToString($2);
      document.body.appendChild(a);
      a.click();
      setTimeout(function() { URL.revokeObjectURL(a.href); a.remove(); }, 0);
    }, f.text.c_str(), f.mime.c_str(), f.name.c_str());
  } else if (action == "upload") {
    EM_ASM({ document.getElementById("file-input").click(); });
  } else if (action.rfind("open-url/", 0) == 0) {
    // A published run's source (https addresses only) or a page of the documentation site the
    // calculator sits in ("../benchmarks/#band-..."), in a new tab without access to this one.
    EM_ASM({
      var url = UTF8ToString($0);
      window.gpuplanLastOpened = url;
      if (url.indexOf("https:") === 0 || url.indexOf("../") === 0) window.open(url, "_blank", "noopener");
    }, action.c_str() + 9);
  }
}

std::string platform_language() {
  // ?lang=zh in the page's address wins over the browser's language.
  const char* v = emscripten_run_script_string(
      "new URLSearchParams(location.search).get(\"lang\") || navigator.language || \"\"");
  return v ? v : "";
}

void platform_request_cjk_font() {
  // Fetched next to index.html only when Chinese is shown; the bytes go to gpuplan_font_loaded.
  EM_ASM({
    (window.gpuplanCjkFont || fetch("cjk-sc.otf")).then(function(r) { return r.ok ? r.arrayBuffer() : Promise.reject(r.status); })
      .then(function(buf) {
        var bytes = new Uint8Array(buf);
        var ptr = Module._malloc(bytes.length || 1);
        Module.HEAPU8.set(bytes, ptr);
        Module.ccall("gpuplan_font_loaded", null, ["number", "number"], [ptr, bytes.length]);
        Module._free(ptr);
      })
      .catch(function(e) { console.warn("gpuplan: Chinese font not loaded: " + e); });
  });
}

std::string platform_load_setting(const std::string& key) {
  // Keys are the app's own constants (letters, digits, '-', '_'), safe to splice into the script.
  const std::string script = "(function(){try{return localStorage.getItem(\"gpuplan." + key +
                             "\")||\"\"}catch(e){return \"\"}})()";
  const char* v = emscripten_run_script_string(script.c_str());
  return v ? v : "";
}

void platform_save_setting(const std::string& key, const std::string& value) {
  EM_ASM({
    try { localStorage.setItem("gpuplan." + UTF8ToString($0), UTF8ToString($1)); } catch (e) {}
  }, key.c_str(), value.c_str());
}

}  // namespace gpuplan::web
// clang-format on
