// Desktop platform: state from argv, results to a file for tests, settings in
// ~/.config/gpuplan, files dropped on the window, a plain GLFW loop.
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "ui/app.h"
#include "platform/main_app.h"
#include "platform/platform.h"

namespace gpuplan::web {
namespace {

App* g_drop_target = nullptr;

std::string settings_path(const std::string& key) {
  const char* home = std::getenv("HOME");
  return std::string(home ? home : ".") + "/.config/gpuplan/" + key;
}

void on_drop(GLFWwindow*, int count, const char** paths) {
  if (!g_drop_target) return;
  for (int i = 0; i < count; ++i) {
    std::ifstream in(paths[i], std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    const std::string path = paths[i];
    g_drop_target->load_file(path.substr(path.find_last_of('/') + 1), ss.str());
  }
  wake_page();
}

}  // namespace

const char* platform_glsl_version() {
  return "#version 130";
}

void platform_window_hints() {
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
}

std::string platform_initial_state(int argc, char** argv) {
  // Native: the first argument is the same query string the page keeps in its URL.
  return argc > 1 ? argv[1] : "";
}

void platform_store_state(const std::string& query) {
  if (const char* path = std::getenv("GPUPLAN_URL_FILE")) std::ofstream(path) << query << "\n";
}

void platform_publish_results(const std::string& json) {
  if (const char* path = std::getenv("GPUPLAN_STATE_FILE")) std::ofstream(path) << json << "\n";
}

void platform_first_frame(const StartupTimes& t) {
  std::printf(
      "gpuplan startup: catalog %.1f ms, app and link %.1f ms, window and GL context %.1f ms, "
      "font atlas %.1f ms; first frame %.1f ms\n",
      t.catalog_ms, t.app_ms, t.context_ms, t.atlas_ms, t.frame_ms);
}

void platform_run_loop(GLFWwindow* window, const std::function<bool()>& tick) {
  const char* max_env = std::getenv("GPUPLAN_MAX_FRAMES");
  const long max_frames = max_env ? std::strtol(max_env, nullptr, 10) : -1;
  long drawn = 0;
  while (!glfwWindowShouldClose(window) && (max_frames < 0 || drawn < max_frames)) {
    if (tick()) {
      ++drawn;
      continue;
    }
    if (max_frames >= 0) {
      std::printf("gpuplan: at rest after %ld frames\n", drawn);
      break;
    }
    // At rest: sleep until an event (input, resize, the window uncovered) wakes the page. Every
    // wake comes through GLFW's queue here; the timeout is a safety net that costs nothing.
    glfwWaitEventsTimeout(0.5);
  }
}

// Every wake comes from GLFW's callbacks, run inside glfwWaitEventsTimeout or glfwPollEvents:
// the loop ticks right after them.
void platform_wake() {}

// GLFW reads the desktop's keyboard, IME and wheel itself.
void platform_input_before_frame() {}
void platform_input_in_frame() {}
void platform_input_after_frame() {}

void platform_frame_drawn(long) {}

float platform_pixel_ratio(GLFWwindow*) {
  return 1.0f;
}

void platform_install_drop(GLFWwindow* window, App* app) {
  g_drop_target = app;
  glfwSetDropCallback(window, on_drop);
}

void platform_perform(const std::string& action, App& app) {
  // The desktop app writes exports next to where it runs and prints where.
  if (action == "export-csv" || action == "export-json") {
    const ExportFile f =
        app.export_file(action == "export-csv" ? ExportKind::csv : ExportKind::json);
    std::ofstream(f.name) << f.text;
    std::printf("gpuplan: wrote %s\n", f.name.c_str());
  } else if (action == "copy-launch") {
    ImGui::SetClipboardText(app.launch_text().c_str());
  } else if (action == "copy-link") {
    std::printf("gpuplan: #%s\n", app.query().c_str());
  } else if (action == "upload") {
    std::printf("gpuplan: drop a config.json or probe file on the window to load it\n");
  }
}

std::string platform_language() {
  for (const char* var : {"LANGUAGE", "LC_ALL", "LANG"}) {
    const char* v = std::getenv(var);
    if (v && *v) return v;
  }
  return "";
}

void platform_request_cjk_font() {
  // The subset web/subset_font.py wrote into the build folder, or the file GPUPLAN_CJK_FONT names.
  const char* env = std::getenv("GPUPLAN_CJK_FONT");
  std::ifstream in(env ? env : GPUPLAN_CJK_FONT_FILE, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  deliver_cjk_font(ss.str());
}

std::string platform_load_setting(const std::string& key) {
  std::ifstream in(settings_path(key));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void platform_save_setting(const std::string& key, const std::string& value) {
  std::ofstream(settings_path(key)) << value;
}

}  // namespace gpuplan::web
