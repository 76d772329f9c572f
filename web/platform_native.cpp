// Desktop platform: state from argv, results to a file for tests, a plain GLFW loop.
#include <GLFW/glfw3.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "platform.h"

namespace gpuplan::web {

const char* platform_glsl_version() { return "#version 130"; }

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

void platform_run_loop(GLFWwindow* window, const std::function<void()>& frame) {
  const char* max_env = std::getenv("GPUPLAN_MAX_FRAMES");
  const long max_frames = max_env ? std::strtol(max_env, nullptr, 10) : -1;
  for (long n = 0; !glfwWindowShouldClose(window) && (max_frames < 0 || n < max_frames); ++n) {
    frame();
  }
}

float platform_pixel_ratio(GLFWwindow* window) {
  float x = 1, y = 1;
  glfwGetWindowContentScale(window, &x, &y);
  return x;
}

}  // namespace gpuplan::web
