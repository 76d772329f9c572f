// Entry point shared by the browser and the desktop build: a GLFW window, Dear ImGui, and the
// App. Platform specifics are in platform_*.cpp.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "app.h"
#include "gpuplan/embedded_data.h"
#include "gpuplan/signing.h"
#include "main_app.h"
#include "platform.h"

namespace gpuplan::web {
namespace {
std::unique_ptr<App> g_app;
std::unique_ptr<Catalog> g_catalog;

std::vector<std::string> load_trusted_keys() {
  const auto j = nlohmann::json::parse(platform_load_setting("trusted_keys"), nullptr, false);
  std::vector<std::string> keys;
  if (j.is_array()) {
    for (const auto& k : j) {
      if (k.is_string()) keys.push_back(k.get<std::string>());
    }
  }
  return keys;
}
}  // namespace

App* app_instance() { return g_app.get(); }
const Catalog* catalog_instance() { return g_catalog.get(); }

}  // namespace gpuplan::web

int main(int argc, char** argv) {
  using namespace gpuplan::web;
  auto catalog = gpuplan::load_catalog(gpuplan::embedded_data_files());
  if (!catalog.ok()) {
    std::fprintf(stderr, "gpuplan: bundled catalog is invalid: %s\n", catalog.error().message.c_str());
    return 1;
  }
  g_catalog = std::make_unique<gpuplan::Catalog>(catalog.value());
  g_app = std::make_unique<App>(catalog.value(), gpuplan::signing::probe_crypto());
  g_app->set_trusted_keys(load_trusted_keys());
  g_app->load_query(platform_initial_state(argc, argv));

  if (!glfwInit()) {
    std::fprintf(stderr, "gpuplan: cannot initialise GLFW (no display?)\n");
    return 1;
  }
  platform_window_hints();
  GLFWwindow* window = glfwCreateWindow(1280, 800, "gpuplan", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "gpuplan: cannot create an OpenGL window\n");
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);
  platform_install_drop(window, g_app.get());

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  ImGui::StyleColorsDark();
  // High-DPI: lay out in framebuffer pixels with the font and spacing scaled to match.
  const float ratio = platform_pixel_ratio(window);
  ImFontConfig font;
  font.SizePixels = 13.0f * ratio;
  io.Fonts->AddFontDefault(&font);
  ImGui::GetStyle().ScaleAllSizes(ratio);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init(platform_glsl_version());

  platform_run_loop(window, [window] {
    glfwPollEvents();
    const float r = platform_pixel_ratio(window);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    g_app->draw(r);
    ImGui::Render();
    int w = 0, h = 0;
    glfwGetFramebufferSize(window, &w, &h);
    glViewport(0, 0, w, h);
    glClearColor(0.10f, 0.11f, 0.13f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    glfwSwapBuffers(window);
    for (const auto& action : g_app->take_actions()) platform_perform(action, *g_app);
    if (g_app->take_keys_changed()) platform_save_setting("trusted_keys", nlohmann::json(g_app->trusted_keys()).dump());
    if (g_app->take_request_changed()) platform_store_state(g_app->query());
    if (g_app->take_results_changed()) platform_publish_results(g_app->results_json());
  });

  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return 0;
}
