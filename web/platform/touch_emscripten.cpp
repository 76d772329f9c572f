// Phones (issue 31): text typed into the page's hidden <input> (a soft keyboard, an IME's
// composed Chinese), swipe scrolling, and where a touch lands, fed to Dear ImGui directly:
// Emscripten 3.1.6's GLFW reads the mouse and a physical keyboard only. The page's JavaScript
// (shell.html) turns touches into taps, drags and scroll distances and calls the exports below;
// after each frame this file tells it where the active text field is and what lies under the
// finger (platform_input_after_frame).
#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <imgui.h>
#include <imgui_internal.h>  // the hovered window and item, the active field's caret

#include <deque>
#include <string>

#include "platform/main_app.h"
#include "platform/platform.h"

// EM_ASM bodies are JavaScript (see platform_emscripten.cpp).
// clang-format off
namespace gpuplan::web {
namespace {

// What the <input> delivered, in order: text, or a key (GLFW_KEY_*) a soft keyboard sent as an
// edit (a deletion) rather than as a key event. Dear ImGui 1.86 sees a key press only when a
// frame starts with the key down after one that started with it up, so a key is held for one
// frame and released before the next entry.
struct Typed {
  std::string text;
  int key = -1;
};
std::deque<Typed> g_typed;
int g_key_held = -1;

// Scroll distance asked for since the last frame, in framebuffer pixels (positive: content moves
// up or left, as a finger pulling it).
ImVec2 g_scroll;

// What the page was last told (sent again only when it changes).
struct Told {
  bool text = false;
  ImVec2 caret{-1, -1};
  float line = 0;
  int touch = -1;
};
Told g_told;

// Scrolls the window under the finger, or the first of its parents that can still move that
// way (a table at its end hands the rest to the panel holding it), by `d` pixels on `axis`.
// Only windows that show a scrollbar on that axis move: content a window merely clips (a long
// line in a panel) stays put, as it does under the mouse. Returns the distance left over (all
// of `d` when nothing under the finger can move that way).
float scroll_under_finger(ImGuiAxis axis, float d) {
  for (ImGuiWindow* w = GImGui->HoveredWindow; w && d != 0.0f; w = w->ParentWindow) {
    const bool bar = axis == ImGuiAxis_X ? w->ScrollbarX : w->ScrollbarY;
    const float max = bar ? w->ScrollMax[axis] : 0.0f;
    const float now = w->ScrollTarget[axis] < FLT_MAX ? w->ScrollTarget[axis] : w->Scroll[axis];
    const float next = ImClamp(now + d, 0.0f, max);
    if (next != now) {
      if (axis == ImGuiAxis_Y)
        ImGui::SetScrollY(w, next);
      else
        ImGui::SetScrollX(w, next);
      d -= next - now;
    }
    if (!(w->Flags & ImGuiWindowFlags_ChildWindow)) break;
  }
  return d;
}

// What a touch at the mouse position would do: 2 a text field (a tap focuses it: the page opens
// the keyboard within the tap, as iOS requires), 1 an item that a drag works (a scrollbar, a
// column border, the text of the active field), 0 nothing a drag works: a swipe scrolls.
int touch_target(bool typing) {
  const ImGuiContext& g = *GImGui;
  if (g.MouseCursor == ImGuiMouseCursor_TextInput) return typing && g.HoveredId == g.ActiveId ? 1 : 2;
  if (g.MouseCursor == ImGuiMouseCursor_ResizeEW || g.MouseCursor == ImGuiMouseCursor_ResizeNS) return 1;
  ImGuiWindow* w = g.HoveredWindow;
  const ImGuiID id = g.HoveredId ? g.HoveredId : g.ActiveId;
  if (w && id && (id == ImGui::GetWindowScrollbarID(w, ImGuiAxis_X) || id == ImGui::GetWindowScrollbarID(w, ImGuiAxis_Y)))
    return 1;
  return 0;
}

}  // namespace

void platform_input_before_frame() {
  ImGuiIO& io = ImGui::GetIO();
  if (g_key_held >= 0) {
    io.KeysDown[g_key_held] = false;
    g_key_held = -1;
    if (!g_typed.empty()) wake_page();
    return;
  }
  while (!g_typed.empty() && g_typed.front().key < 0) {
    io.AddInputCharactersUTF8(g_typed.front().text.c_str());
    g_typed.pop_front();
  }
  if (!g_typed.empty()) {
    g_key_held = g_typed.front().key;
    io.KeysDown[g_key_held] = true;  // held: main.cpp's loop draws the next frame, which releases it
    g_typed.pop_front();
  }
}

void platform_input_in_frame() {
  if (g_scroll.x == 0.0f && g_scroll.y == 0.0f) return;
  const bool stuck = scroll_under_finger(ImGuiAxis_X, g_scroll.x) == g_scroll.x &&
                     scroll_under_finger(ImGuiAxis_Y, g_scroll.y) == g_scroll.y;
  g_scroll = ImVec2(0, 0);
  // A fling that has reached the end stops (the page can rest sooner).
  EM_ASM({ window.gpuplanScrollStuck = $0; }, stuck);
}

void platform_input_after_frame() {
  const ImGuiContext& g = *GImGui;
  // A field is being edited (the launch config's read-only text is not typed into).
  const bool text = g.WantTextInputNextFrame == 1 &&
                    !(g.InputTextState.ID == g.ActiveId && (g.InputTextState.Flags & ImGuiInputTextFlags_ReadOnly));
  const int touch = touch_target(text);
  if (touch != g_told.touch) {
    g_told.touch = touch;
    EM_ASM({ window.gpuplanTouchTarget = $0; }, touch);
  }
  const ImVec2 caret = text ? g.PlatformImePos : ImVec2(-1, -1);
  if (text == g_told.text && caret.x == g_told.caret.x && caret.y == g_told.caret.y && g.FontSize == g_told.line) return;
  g_told.text = text;
  g_told.caret = caret;
  g_told.line = g.FontSize;
  // The caret's top-left corner and the line's height, in framebuffer pixels.
  EM_ASM({ if (window.gpuplanTextInput) window.gpuplanTextInput($0, $1, $2, $3); }, text, caret.x, caret.y, g.FontSize);
}

}  // namespace gpuplan::web

extern "C" {

// Text the page's <input> received: typed, pasted, or an IME's composition once committed.
EMSCRIPTEN_KEEPALIVE void gpuplan_text(const char* utf8) {
  if (!utf8 || !*utf8) return;
  gpuplan::web::g_typed.push_back({utf8, -1});
  gpuplan::web::wake_page();
}

// An edit a soft keyboard made without a key event: "Backspace", "Delete" or "Enter".
EMSCRIPTEN_KEEPALIVE void gpuplan_key(const char* name) {
  const std::string n = name ? name : "";
  const int key = n == "Backspace" ? GLFW_KEY_BACKSPACE : n == "Delete" ? GLFW_KEY_DELETE : n == "Enter" ? GLFW_KEY_ENTER : -1;
  if (key < 0) return;
  gpuplan::web::g_typed.push_back({"", key});
  gpuplan::web::wake_page();
}

// A swipe's or a fling's step, in framebuffer pixels: positive scrolls the content up or left
// (the finger moved up or left). The next frame scrolls the window under the finger.
EMSCRIPTEN_KEEPALIVE void gpuplan_touch_scroll(double dx, double dy) {
  gpuplan::web::g_scroll.x += static_cast<float>(dx);
  gpuplan::web::g_scroll.y += static_cast<float>(dy);
  gpuplan::web::wake_page();
}

}  // extern "C"
// clang-format on
