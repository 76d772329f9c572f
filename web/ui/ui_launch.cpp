// The launch config box of the Results and Plans tabs: the launcher choice, the core's config
// text in a box with a Copy button (or the core's error when the launcher cannot run the
// layout), and what the user must still fill in.
#include <algorithm>
#include <string>

#include "model/launch.h"
#include "ui/screens.h"
#include "ui/widgets.h"

namespace gpuplan::web {

namespace {

// The config's lines as they are (a command line is never wrapped: it is copied and pasted) in
// a box as wide as the pane that scrolls sideways, by its scrollbar, the wheel or a swipe, when
// a line is wider (a phone); up to 16 lines high, then it scrolls down too.
void config_box(const std::string& text, UiActions& a) {
  const ImGuiStyle& style = ImGui::GetStyle();
  const int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
  const float height = ImGui::GetTextLineHeight() * static_cast<float>(std::clamp(lines, 3, 16)) +
                       style.WindowPadding.y * 2 + style.ScrollbarSize;
  ImGui::PushStyleColor(ImGuiCol_ChildBg, style.Colors[ImGuiCol_FrameBg]);
  if (ImGui::BeginChild("launch-text", ImVec2(0, height), true,
                        ImGuiWindowFlags_HorizontalScrollbar)) {
    ImGui::TextUnformatted(text.data(), text.data() + text.size());
    remember(a, "launch-lines");
  }
  ImGui::EndChild();
  ImGui::PopStyleColor();
  remember(a, "launch-text");
}

}  // namespace

void draw_launch(const PageModel& m, const Result<std::string>& config, int nodes, UiActions& a) {
  ImGui::Spacing();
  ImGui::TextUnformatted(tr(S::launch_title));
  const LaunchFormat shown = shown_launch_format(m.launch_format, m.ev ? &*m.ev : nullptr);
  for (LaunchFormat f : kLaunchFormats) {
    const std::string name = launch_format_name(f);
    same_line_if_fits(radio_width(name));
    if (ImGui::RadioButton((name + "##launch").c_str(), shown == f)) a.launch_format = f;
    remember(a, "launch-" + name);
  }
  if (!config.ok()) {
    error_text(page_message(config.error()));
    return;
  }
  const std::string copy = label(m.launch_copied_frames > 0 ? S::launch_copied : S::launch_copy);
  same_line_if_fits(small_button_width(copy));
  if (ImGui::SmallButton(copy.c_str())) a.platform.push_back("copy-launch");
  remember(a, "launch-copy");
  config_box(config.value(), a);
  note_text(tr(launch_fill_in(shown, nodes)));
}

}  // namespace gpuplan::web
