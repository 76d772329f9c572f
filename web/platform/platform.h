#pragma once
// What differs between the browser and the desktop, behind one small interface. Exactly one of
// platform_emscripten.cpp and platform_native.cpp is compiled (chosen by web/CMakeLists.txt).

#include <functional>
#include <string>

struct GLFWwindow;

namespace gpuplan::web {

class App;

// GLSL version string for ImGui's OpenGL3 backend, and the GLFW context hints it needs.
const char* platform_glsl_version();
void platform_window_hints();

// The state the app starts from: the URL fragment in the browser, argv natively.
std::string platform_initial_state(int argc, char** argv);

// Records the current state where a user can share it (the URL fragment in the browser).
void platform_store_state(const std::string& query);

// Mirrors the results as text for screen readers and tests (an aria-live element and
// window.gpuplanState in the browser; the file named by GPUPLAN_STATE_FILE natively).
void platform_publish_results(const std::string& json);

// Runs `tick` until the window closes; it returns whether it drew a frame. While ticks draw,
// the loop runs at the display's rate; after one that draws nothing it waits (the browser asks
// for no animation frame, the desktop waits for events) until platform_wake(). Natively,
// GPUPLAN_MAX_FRAMES=N stops after N frames drawn or at the first tick that draws none (the
// page has come to rest: it prints "gpuplan: at rest after K frames"), whichever is first.
void platform_run_loop(GLFWwindow* window, const std::function<bool()>& tick);

// The page has something to draw (main.cpp's wake_page): a loop at rest ticks again.
void platform_wake();

// Called after each frame drawn with the count so far (window.gpuplanFrames in the browser, read
// by tests and bench/bench_web.mjs: an idle page draws none).
void platform_frame_drawn(long frames);

// How long the start took, in ms: the catalog (without instances), the App with the link, the
// window and GL context, the font atlas, and the first frame after the loop started.
struct StartupTimes {
  double catalog_ms = 0, app_ms = 0, context_ms = 0, atlas_ms = 0, frame_ms = 0;
};
// Called once the first frame is drawn: the browser records the time (window.gpuplanFirstFrameMs)
// and the stages (window.gpuplanStartup) for bench/bench_web.mjs; both print them.
void platform_first_frame(const StartupTimes& t);

// Sizes the framebuffer for the screen and returns the ratio of framebuffer pixels to the
// layout's pixels (the browser's devicePixelRatio; 1 natively, where GLFW scales).
float platform_pixel_ratio(GLFWwindow* window);

// Files dropped on the window (natively; the browser page handles drops in JavaScript).
void platform_install_drop(GLFWwindow* window, App* app);

// Carries out a UI action: "copy-link", "copy-launch", "export-csv", "export-json", "upload".
void platform_perform(const std::string& action, App& app);

// The user's preferred language ("zh-CN", "en-US", ...): navigator.language in the browser,
// $LANGUAGE, $LC_ALL or $LANG on the desktop.
std::string platform_language();

// Starts loading the Chinese font subset (only when Chinese is shown); its bytes arrive through
// deliver_cjk_font() (main_app.h), at once on the desktop, after a fetch in the browser.
void platform_request_cjk_font();

// Input the browser feeds Dear ImGui itself, for phones (touch_emscripten.cpp): text from the
// page's hidden <input> (soft keyboards, IMEs) and swipe scrolling; Emscripten's GLFW reports
// neither. Called before ImGui::NewFrame (keys), between it and the App's drawing (scrolling),
// and after the frame (the page learns where the active text field is). Nothing natively.
void platform_input_before_frame();
void platform_input_in_frame();
void platform_input_after_frame();

// A small persistent setting (localStorage in the browser, a file natively); "" when unset.
std::string platform_load_setting(const std::string& key);
void platform_save_setting(const std::string& key, const std::string& value);

}  // namespace gpuplan::web
