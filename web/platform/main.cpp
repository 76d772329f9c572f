// Entry point shared by the browser and the desktop build: a GLFW window, Dear ImGui, and the
// App. Platform specifics are in platform_*.cpp.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <memory>
#include <utility>
#include <nlohmann/json.hpp>

#include "ui/app.h"
#include "ui/fonts.h"
#include "catalog_files.h"
#include "gpuplan/signing.h"
#include "platform/main_app.h"
#include "platform/platform.h"

namespace gpuplan::web {
namespace {
std::unique_ptr<Catalog> g_catalog;  // the App holds a reference: replaced in place
std::unique_ptr<App> g_app;
bool g_catalog_complete = false;  // false while the instances wait for the first frame
std::string g_cjk_font;           // the Chinese subset's bytes, owned here for the atlas
bool g_cjk_requested = false;
bool g_cjk_arrived = false;

// The page draws only when something may have changed (issue 31: redrawing every animation
// frame while idle kept a core busy per open tab): input, a call from outside the frame (the
// link, an upload, the font, the catalog), or work the last frame left in flight. After the last
// wake it draws a few more frames for Dear ImGui to settle: hover states follow the mouse a frame
// late, a popup is measured in a hidden first frame, tables size their columns over two.
constexpr int kSettleFrames = 3;
int g_frames_due = kSettleFrames;  // the first frames draw
long g_frames_drawn = 0;

// Every input Dear ImGui's GLFW backend sees wakes the page. Installed before the backend's own
// callbacks, which call these after theirs (it chains to callbacks set before it); the cursor,
// size and refresh callbacks are ours alone (1.86's backend polls the cursor in NewFrame).
void install_wake_callbacks(GLFWwindow* window) {
  glfwSetCursorPosCallback(window, [](GLFWwindow*, double, double) { wake_page(); });
  glfwSetMouseButtonCallback(window, [](GLFWwindow*, int, int, int) { wake_page(); });
  glfwSetScrollCallback(window, [](GLFWwindow*, double, double) { wake_page(); });
  glfwSetKeyCallback(window, [](GLFWwindow*, int, int, int, int) { wake_page(); });
  glfwSetCharCallback(window, [](GLFWwindow*, unsigned int) { wake_page(); });
  glfwSetWindowFocusCallback(window, [](GLFWwindow*, int) { wake_page(); });
  glfwSetCursorEnterCallback(window, [](GLFWwindow*, int) { wake_page(); });
  glfwSetWindowSizeCallback(window, [](GLFWwindow*, int, int) { wake_page(); });
  glfwSetFramebufferSizeCallback(window, [](GLFWwindow*, int, int) { wake_page(); });
  // The desktop's window was uncovered or restored: its pixels must be drawn again.
  glfwSetWindowRefreshCallback(window, [](GLFWwindow*) { wake_page(); });
}

// Whether a mouse button or key is held: Dear ImGui repeats held keys and +/- buttons, and
// drags, by frames, with no new event to wake the page.
bool input_held() {
  const ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsAnyMouseDown()) return true;
  return std::any_of(std::begin(io.KeysDown), std::end(io.KeysDown), [](bool d) { return d; });
}

// The keys the user trusts (none until a probe file's key is trusted: then no JSON is parsed,
// which keeps the parser's code, compiled on its first call in the browser, off the first frame).
std::vector<std::string> load_trusted_keys() {
  const std::string saved = platform_load_setting("trusted_keys");
  if (saved.empty()) return {};
  const auto j = nlohmann::json::parse(saved, nullptr, false);
  std::vector<std::string> keys;
  if (j.is_array()) {
    for (const auto& k : j) {
      if (k.is_string()) keys.push_back(k.get<std::string>());
    }
  }
  return keys;
}

// Whether a link needs the instances from the start: it names one, or opens a tab listing them
// (the Serving tab ranks them; a serve key opens it).
bool link_needs_instances(const std::string& link) {
  for (const char* key : {"instance=", "tab=hardware", "tab=plans", "tab=serving", "rate="}) {
    if (link.find(key) != std::string::npos) return true;
  }
  return false;
}
}  // namespace

void wake_page() {
  g_frames_due = std::max(g_frames_due, kSettleFrames);
  platform_wake();
}

void complete_catalog() {
  if (g_catalog_complete || !g_catalog) return;
  g_catalog_complete = true;
  wake_page();
  auto full = load_page_catalog(true);
  if (!full.ok()) {
    std::fprintf(stderr, "gpuplan: bundled catalog is invalid: %s\n", full.error().message.c_str());
    return;
  }
  *g_catalog = std::move(full).value();
  if (g_app) g_app->catalog_changed();
}

void deliver_cjk_font(std::string bytes) {
  g_cjk_font = std::move(bytes);
  g_cjk_arrived = true;
  wake_page();  // the atlas is rebuilt between frames
}

// Loads the Chinese font the first time Chinese is shown, and rebuilds the atlas once it is
// here (between frames: the atlas must not change inside one).
void update_fonts(float ratio) {
  if (g_app->lang() == Lang::zh && !g_cjk_requested) {
    g_cjk_requested = true;
    platform_request_cjk_font();
  }
  if (!g_cjk_arrived) return;
  g_cjk_arrived = false;
  if (g_cjk_font.empty()) return;
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  build_font_atlas(13.0f * ratio, &g_cjk_font, *g_catalog);
  ImGui_ImplOpenGL3_CreateFontsTexture();
  g_app->set_cjk_font_loaded();
}

// Out of tick(): called only when the user trusts or forgets a key.
[[gnu::noinline]] void save_trusted_keys() {
  platform_save_setting("trusted_keys", nlohmann::json(g_app->trusted_keys()).dump());
}

// One tick of the loop: events, then, if the page is due a frame, the fonts, the App's drawing,
// and what it asks of the platform. A tick that does not draw returns before Dear ImGui's frame
// and any GL call: the canvas keeps its last image (the browser shows the last frame presented
// while nothing draws into a new one). Returns whether it drew.
bool tick(GLFWwindow* window) {
  glfwPollEvents();
  if (g_frames_due == 0) return false;
  --g_frames_due;
  const float r = platform_pixel_ratio(window);
  update_fonts(r);
  platform_input_before_frame();
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  platform_input_in_frame();
  g_app->draw(r);
  ImGui::Render();
  platform_input_after_frame();
  int w = 0, h = 0;
  glfwGetFramebufferSize(window, &w, &h);
  glViewport(0, 0, w, h);
  glClearColor(0.10f, 0.11f, 0.13f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  glfwSwapBuffers(window);
  platform_frame_drawn(++g_frames_drawn);
  // Whatever this frame changed is drawn again (a new state settles over frames), as are work
  // in flight (the planner's or the serving plan's slices, one share a frame) and held input.
  auto actions = g_app->take_actions();
  bool changed = !actions.empty();
  for (const auto& action : actions) platform_perform(action, *g_app);
  if (g_app->take_keys_changed()) {
    save_trusted_keys();
    changed = true;
  }
  if (g_app->take_request_changed()) {
    platform_store_state(g_app->query());
    changed = true;
  }
  if (g_app->take_results_changed()) {
    platform_publish_results(g_app->results_json());
    changed = true;
  }
  if (changed || g_app->wants_frames() || input_held()) wake_page();
  return true;
}

App* app_instance() {
  return g_app.get();
}
const Catalog* catalog_instance() {
  complete_catalog();  // callers may ask for any instance
  return g_catalog.get();
}

}  // namespace gpuplan::web

namespace {
double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

GLFWwindow* open_window() {
  if (!glfwInit()) {
    std::fprintf(stderr, "gpuplan: cannot initialise GLFW (no display?)\n");
    return nullptr;
  }
  gpuplan::web::platform_window_hints();
  GLFWwindow* window = glfwCreateWindow(1280, 800, "gpuplan", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "gpuplan: cannot create an OpenGL window\n");
    glfwTerminate();
    return nullptr;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);
  gpuplan::web::platform_install_drop(window, gpuplan::web::app_instance());
  return window;
}
}  // namespace

// Startup: what the first frame waits on is timed for bench/bench_web.mjs. The catalog without
// its instances (read from the blob the build made of data/, catalog_files.h), the App and the
// link (with the first estimate), the window and GL context, the
// font atlas (English; Chinese when shown). The first frame shows the results.
int main(int argc, char** argv) {
  using namespace gpuplan::web;
  StartupTimes t;
  auto t0 = std::chrono::steady_clock::now();
  const std::string link = platform_initial_state(argc, argv);
  g_catalog_complete = link_needs_instances(link);
  auto catalog = load_page_catalog(g_catalog_complete);
  t.catalog_ms = ms_since(t0);
  if (!catalog.ok()) {
    std::fprintf(stderr, "gpuplan: bundled catalog is invalid: %s\n",
                 catalog.error().message.c_str());
    return 1;
  }
  t0 = std::chrono::steady_clock::now();
  g_catalog = std::make_unique<gpuplan::Catalog>(std::move(catalog).value());
  g_app = std::make_unique<App>(*g_catalog, gpuplan::signing::probe_crypto());
  g_app->set_trusted_keys(load_trusted_keys());
  g_app->set_default_language(platform_language());
  g_app->load_query(link);
  t.app_ms = ms_since(t0);

  t0 = std::chrono::steady_clock::now();
  GLFWwindow* window = open_window();
  if (!window) return 1;
  t.context_ms = ms_since(t0);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  ImGui::StyleColorsDark();
  // High-DPI: lay out in framebuffer pixels with the font and spacing scaled to match.
  const float ratio = platform_pixel_ratio(window);
  t0 = std::chrono::steady_clock::now();
  build_font_atlas(13.0f * ratio, nullptr, *g_catalog);
  t.atlas_ms = ms_since(t0);
  ImGui::GetStyle().ScaleAllSizes(ratio);
  // A steady caret: a blinking one would redraw the page twice a second for as long as a field
  // keeps the focus (it does after Enter), and some find blinking distracting anyway.
  io.ConfigInputTextCursorBlink = false;
  install_wake_callbacks(window);  // before the backend's, which chain to them
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init(platform_glsl_version());

  const auto t_loop = std::chrono::steady_clock::now();
  platform_run_loop(window, [window, t_loop, t]() mutable {
    if (!tick(window)) return false;
    if (g_frames_drawn == 1) {
      t.frame_ms = ms_since(t_loop);
      platform_first_frame(t);
    } else if (g_frames_drawn == 3) {
      complete_catalog();  // once the first frame is on screen
    }
    return true;
  });

  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return 0;
}
