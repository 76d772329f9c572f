#include "charts.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpuplan/report.h"

namespace gpuplan::web {

unsigned int series_color(int i) {
  // Okabe-Ito palette: distinguishable with the common colour-vision deficiencies.
  static const unsigned int colors[] = {
      IM_COL32(0, 114, 178, 255),  IM_COL32(230, 159, 0, 255),  IM_COL32(0, 158, 115, 255),
      IM_COL32(204, 121, 167, 255), IM_COL32(86, 180, 233, 255), IM_COL32(213, 94, 0, 255),
      IM_COL32(240, 228, 66, 255), IM_COL32(150, 150, 150, 255),
  };
  return colors[static_cast<size_t>(i) % (sizeof colors / sizeof colors[0])];
}

void stacked_bar(const char* id, const std::vector<BarSegment>& segments, double capacity,
                 const std::string& capacity_label, float height) {
  ImGui::PushID(id);
  double total = 0;
  for (const auto& s : segments) total += std::max(0.0, s.value);
  const double scale_max = std::max(total, capacity) * 1.05;
  const float width = ImGui::GetContentRegionAvail().x;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p0, ImVec2(p0.x + width, p0.y + height), IM_COL32(40, 44, 52, 255));
  float x = p0.x;
  for (size_t i = 0; i < segments.size(); ++i) {
    const float w = scale_max > 0 ? static_cast<float>(segments[i].value / scale_max) * width : 0;
    if (w <= 0) continue;
    dl->AddRectFilled(ImVec2(x, p0.y), ImVec2(x + w, p0.y + height), series_color(static_cast<int>(i)));
    if (ImGui::IsMouseHoveringRect(ImVec2(x, p0.y), ImVec2(x + w, p0.y + height))) {
      ImGui::SetTooltip("%s: %s", segments[i].label.c_str(), format_bytes(segments[i].value).c_str());
    }
    x += w;
  }
  if (capacity > 0) {
    const float cx = p0.x + static_cast<float>(capacity / scale_max) * width;
    const unsigned int col = total > capacity ? IM_COL32(255, 80, 80, 255) : IM_COL32(255, 255, 255, 255);
    dl->AddLine(ImVec2(cx, p0.y - 4), ImVec2(cx, p0.y + height + 4), col, 2.0f);
    const std::string text = capacity_label + " " + format_bytes(capacity);
    const float tw = ImGui::CalcTextSize(text.c_str()).x;
    dl->AddText(ImVec2(std::max(p0.x, cx - tw), p0.y + height + 4), col, text.c_str());
  }
  ImGui::Dummy(ImVec2(width, height + ImGui::GetTextLineHeight() + 8));
  // Legend: a swatch and label per non-zero term.
  int shown = 0;
  for (size_t i = 0; i < segments.size(); ++i) {
    if (segments[i].value <= 0) continue;
    if (shown++ % 4 != 0) ImGui::SameLine(0, 16);
    const ImVec2 q = ImGui::GetCursorScreenPos();
    const float s = ImGui::GetTextLineHeight();
    dl->AddRectFilled(q, ImVec2(q.x + s, q.y + s), series_color(static_cast<int>(i)));
    ImGui::Dummy(ImVec2(s, s));
    ImGui::SameLine();
    ImGui::Text("%s %s", segments[i].label.c_str(), format_bytes(segments[i].value).c_str());
  }
  ImGui::PopID();
}

int scatter(const char* id, const std::vector<ScatterPoint>& points, float height) {
  ImGui::PushID(id);
  int clicked = -1;
  const float width = ImGui::GetContentRegionAvail().x;
  const float pad_l = ImGui::CalcTextSize("1e+06 USD").x + 8, pad_b = ImGui::GetTextLineHeight() * 2 + 6;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 a(p0.x + pad_l, p0.y + 4), b(p0.x + width - 8, p0.y + height - pad_b);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(a, b, IM_COL32(30, 33, 40, 255));
  double xmin = 1e300, xmax = -1e300, ymin = 1e300, ymax = -1e300;
  for (const auto& p : points) {
    if (p.x <= 0 || p.y <= 0) continue;
    xmin = std::min(xmin, p.x);
    xmax = std::max(xmax, p.x);
    ymin = std::min(ymin, p.y);
    ymax = std::max(ymax, p.y);
  }
  if (xmin > xmax) {
    ImGui::Dummy(ImVec2(width, height));
    ImGui::PopID();
    return -1;
  }
  // Log axes padded to whole decades' fractions so single points still show.
  const double lx0 = std::log10(xmin) - 0.1, lx1 = std::log10(xmax) + 0.1;
  const double ly0 = std::log10(ymin) - 0.1, ly1 = std::log10(ymax) + 0.1;
  auto px = [&](double x) { return a.x + static_cast<float>((std::log10(x) - lx0) / (lx1 - lx0)) * (b.x - a.x); };
  auto py = [&](double y) { return b.y - static_cast<float>((std::log10(y) - ly0) / (ly1 - ly0)) * (b.y - a.y); };
  const unsigned int grid = IM_COL32(70, 75, 85, 255), text = IM_COL32(200, 200, 200, 255);
  char buf[32];
  // Ticks at 1, 2 and 5 times each power of ten inside the range.
  auto ticks = [](double lo, double hi) {
    std::vector<double> out;
    for (int d = static_cast<int>(std::floor(lo)); d <= static_cast<int>(std::ceil(hi)); ++d) {
      for (double m : {1.0, 2.0, 5.0}) {
        const double v = m * std::pow(10.0, d);
        if (std::log10(v) >= lo && std::log10(v) <= hi) out.push_back(v);
      }
    }
    return out;
  };
  for (double v : ticks(lx0, lx1)) {
    dl->AddLine(ImVec2(px(v), a.y), ImVec2(px(v), b.y), grid);
    std::snprintf(buf, sizeof buf, "%g h", v);
    dl->AddText(ImVec2(px(v) - 10, b.y + 2), text, buf);
  }
  for (double v : ticks(ly0, ly1)) {
    dl->AddLine(ImVec2(a.x, py(v)), ImVec2(b.x, py(v)), grid);
    std::snprintf(buf, sizeof buf, "%g USD", v);
    dl->AddText(ImVec2(p0.x, py(v) - ImGui::GetTextLineHeight() / 2), text, buf);
  }
  dl->AddText(ImVec2(a.x + (b.x - a.x) / 2 - 80, b.y + ImGui::GetTextLineHeight() + 4), text,
              "time to train (hours, log) vs cost (USD, log)");
  // Pareto front as a line, then the points; the nearest point under the mouse is active.
  std::vector<ImVec2> front;
  for (const auto& p : points) {
    if (p.highlight) front.push_back(ImVec2(px(p.x), py(p.y)));
  }
  std::sort(front.begin(), front.end(), [](const ImVec2& l, const ImVec2& r) { return l.x < r.x; });
  if (front.size() > 1) dl->AddPolyline(front.data(), static_cast<int>(front.size()), series_color(1), 0, 2.0f);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  int hovered = -1;
  float best = 12.0f * 12.0f;
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    if (p.x <= 0 || p.y <= 0) continue;
    const ImVec2 c(px(p.x), py(p.y));
    dl->AddCircleFilled(c, p.highlight ? 6.0f : 4.0f, p.highlight ? series_color(1) : series_color(0));
    const float d2 = (mouse.x - c.x) * (mouse.x - c.x) + (mouse.y - c.y) * (mouse.y - c.y);
    if (d2 < best) {
      best = d2;
      hovered = static_cast<int>(i);
    }
  }
  ImGui::InvisibleButton("plot", ImVec2(width, height));
  if (hovered >= 0 && ImGui::IsItemHovered()) {
    const auto& p = points[static_cast<size_t>(hovered)];
    ImGui::SetTooltip("%s\n%.4g h, %.4g USD\nclick to load", p.label.c_str(), p.x, p.y);
    if (ImGui::IsItemClicked()) clicked = hovered;
  }
  ImGui::PopID();
  return clicked;
}

}  // namespace gpuplan::web
