// The launch config box of the Results and Plans tabs: the launcher choice, the core's config
// text in a read-only box with a Copy button (or the core's error when the launcher cannot run
// the layout), and what the user must still fill in.
#include <algorithm>
#include <string>

#include "model/launch.h"
#include "ui/screens.h"
#include "ui/widgets.h"

namespace gpuplan::web {

void draw_launch(const PageModel& m, const Result<std::string>& config, int nodes, UiActions& a) {
  ImGui::Spacing();
  ImGui::TextUnformatted(tr(S::launch_title));
  for (LaunchFormat f : kLaunchFormats) {
    const std::string name = launch_format_name(f);
    ImGui::SameLine();
    if (ImGui::RadioButton((name + "##launch").c_str(), m.launch_format == f)) a.launch_format = f;
    remember(a, "launch-" + name);
  }
  if (!config.ok()) {
    error_text(page_message(config.error()));
    return;
  }
  ImGui::SameLine();
  if (ImGui::SmallButton(
          label(m.launch_copied_frames > 0 ? S::launch_copied : S::launch_copy).c_str())) {
    a.platform.push_back("copy-launch");
  }
  remember(a, "launch-copy");
  // Read-only: ImGui never writes into the buffer, so the config's own text is shown as it is.
  const std::string& text = config.value();
  const int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
  const float height = ImGui::GetTextLineHeight() * static_cast<float>(std::clamp(lines, 3, 16)) +
                       ImGui::GetStyle().FramePadding.y * 2;
  ImGui::InputTextMultiline("##launch-text", const_cast<char*>(text.c_str()), text.size() + 1,
                            ImVec2(-1.0f, height), ImGuiInputTextFlags_ReadOnly);
  remember(a, "launch-text");
  note_text(tr(launch_fill_in(m.launch_format, nodes)));
}

}  // namespace gpuplan::web
