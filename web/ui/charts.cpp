#include "ui/charts.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpuplan/report.h"
#include "model/i18n.h"
#include "ui/widgets.h"

namespace gpuplan::web {

unsigned int series_color(int i) {
  // Okabe-Ito palette: distinguishable with the common colour-vision deficiencies.
  static const unsigned int colors[] = {
      IM_COL32(0, 114, 178, 255),   IM_COL32(230, 159, 0, 255),   IM_COL32(0, 158, 115, 255),
      IM_COL32(204, 121, 167, 255), IM_COL32(86, 180, 233, 255),  IM_COL32(213, 94, 0, 255),
      IM_COL32(240, 228, 66, 255),  IM_COL32(150, 150, 150, 255),
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
    dl->AddRectFilled(ImVec2(x, p0.y), ImVec2(x + w, p0.y + height),
                      series_color(static_cast<int>(i)));
    if (ImGui::IsMouseHoveringRect(ImVec2(x, p0.y), ImVec2(x + w, p0.y + height))) {
      ImGui::SetTooltip("%s: %s", segments[i].label.c_str(),
                        format_bytes(segments[i].value).c_str());
    }
    x += w;
  }
  if (capacity > 0) {
    const float cx = p0.x + static_cast<float>(capacity / scale_max) * width;
    const unsigned int col =
        total > capacity ? IM_COL32(255, 80, 80, 255) : IM_COL32(255, 255, 255, 255);
    dl->AddLine(ImVec2(cx, p0.y - 4), ImVec2(cx, p0.y + height + 4), col, 2.0f);
    const std::string text = capacity_label + " " + format_bytes(capacity);
    const float tw = ImGui::CalcTextSize(text.c_str()).x;
    dl->AddText(ImVec2(std::max(p0.x, cx - tw), p0.y + height + 4), col, text.c_str());
  }
  ImGui::Dummy(ImVec2(width, height + ImGui::GetTextLineHeight() + 8));
  // Legend: a swatch and label per non-zero term.
  // Legend items flow like words: on the same line while they fit.
  bool first = true;
  const float right = ImGui::GetCursorScreenPos().x + width;
  for (size_t i = 0; i < segments.size(); ++i) {
    if (segments[i].value <= 0) continue;
    const float s = ImGui::GetTextLineHeight();
    const std::string text = segments[i].label + " " + format_bytes(segments[i].value);
    const float item = s + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(text.c_str()).x;
    if (!first) {
      ImGui::SameLine(0, 16);
      if (ImGui::GetCursorScreenPos().x + item > right) ImGui::NewLine();
    }
    first = false;
    const ImVec2 q = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(q, ImVec2(q.x + s, q.y + s), series_color(static_cast<int>(i)));
    ImGui::Dummy(ImVec2(s, s));
    ImGui::SameLine();
    ImGui::TextUnformatted(text.c_str());
  }
  ImGui::PopID();
}

void draw_ticks(ImDrawList* dl, const ImVec2& a, const ImVec2& b, Axis axis,
                const std::vector<double>& ticks, const std::function<float(double)>& at,
                const std::function<std::string(double)>& text) {
  const unsigned int grid = IM_COL32(70, 75, 85, 255), color = IM_COL32(200, 200, 200, 255);
  const float line = ImGui::GetTextLineHeight();
  for (double v : ticks) {
    const float p = at(v);
    const std::string t = text(v);
    const float w = ImGui::CalcTextSize(t.c_str()).x;
    if (axis == Axis::x) {
      dl->AddLine(ImVec2(p, a.y), ImVec2(p, b.y), grid);
      dl->AddText(ImVec2(p - w / 2, b.y + 2), color, t.c_str());
    } else {
      dl->AddLine(ImVec2(a.x, p), ImVec2(b.x, p), grid);
      dl->AddText(ImVec2(a.x - w - 4, p - line / 2), color, t.c_str());
    }
  }
}

void draw_axis_titles(ImDrawList* dl, const ImVec2& a, const ImVec2& b, const ImVec2& p0,
                      const char* x_title, const char* y_title) {
  const unsigned int color = IM_COL32(200, 200, 200, 255);
  const float line = ImGui::GetTextLineHeight();
  dl->AddText(ImVec2((a.x + b.x - ImGui::CalcTextSize(x_title).x) / 2, b.y + line + 4), color,
              x_title);
  dl->AddText(p0, color, y_title);
}

namespace {

// The plot's frame: screen rectangle and log-scaled axes.
struct Frame {
  ImVec2 a, b;  // top-left and bottom-right of the plotting area
  double lx0 = 0, lx1 = 1, ly0 = 0, ly1 = 1;
  float px(double x) const {
    return a.x + static_cast<float>((std::log10(x) - lx0) / (lx1 - lx0)) * (b.x - a.x);
  }
  float py(double y) const {
    return b.y - static_cast<float>((std::log10(y) - ly0) / (ly1 - ly0)) * (b.y - a.y);
  }
};

// Log ranges padded so a single point still shows; false when no point is positive.
bool fit_ranges(const std::vector<ScatterPoint>& points, Frame& f) {
  double xmin = 1e300, xmax = -1e300, ymin = 1e300, ymax = -1e300;
  for (const auto& p : points) {
    if (p.x <= 0 || p.y <= 0) continue;
    xmin = std::min(xmin, p.x);
    xmax = std::max(xmax, p.x);
    ymin = std::min(ymin, p.y);
    ymax = std::max(ymax, p.y);
  }
  if (xmin > xmax) return false;
  f.lx0 = std::log10(xmin) - 0.1;
  f.lx1 = std::log10(xmax) + 0.1;
  f.ly0 = std::log10(ymin) - 0.1;
  f.ly1 = std::log10(ymax) + 0.1;
  return true;
}

void draw_axes(ImDrawList* dl, const Frame& f, const ImVec2& p0) {
  draw_ticks(
      dl, f.a, f.b, Axis::x, log_ticks(f.lx0, f.lx1), [&f](double v) { return f.px(v); },
      [](double v) { return format_duration(v); });
  draw_ticks(
      dl, f.a, f.b, Axis::y, log_ticks(f.ly0, f.ly1), [&f](double v) { return f.py(v); },
      [](double v) { return format_shown(v); });
  draw_axis_titles(dl, f.a, f.b, p0, tr(S::axis_time), tr(money_label(S::axis_cost)));
}

// Draws the points (the Pareto front joined by a line) and returns the one nearest the mouse.
int draw_points(ImDrawList* dl, const Frame& f, const std::vector<ScatterPoint>& points) {
  std::vector<ImVec2> front;
  for (const auto& p : points) {
    if (p.highlight && p.x > 0 && p.y > 0) front.push_back(ImVec2(f.px(p.x), f.py(p.y)));
  }
  std::sort(front.begin(), front.end(), [](const ImVec2& l, const ImVec2& r) { return l.x < r.x; });
  if (front.size() > 1)
    dl->AddPolyline(front.data(), static_cast<int>(front.size()), series_color(0), 0, 2.0f);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const unsigned int assumed = ImGui::GetColorU32(color_assumed());
  int hovered = -1;
  float best = 12.0f * 12.0f;
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    if (p.x <= 0 || p.y <= 0) continue;
    const ImVec2 c(f.px(p.x), f.py(p.y));
    const float r = p.highlight ? 6.0f : 4.0f;
    // Assumed prices: a hollow ring in the "assumed" colour; published ones filled.
    if (p.assumed)
      dl->AddCircle(c, r, assumed, 0, 2.0f);
    else
      dl->AddCircleFilled(c, r, p.highlight ? series_color(0) : series_color(4));
    const float d2 = (mouse.x - c.x) * (mouse.x - c.x) + (mouse.y - c.y) * (mouse.y - c.y);
    if (d2 < best) {
      best = d2;
      hovered = static_cast<int>(i);
    }
  }
  return hovered;
}

}  // namespace

int scatter(const char* id, const std::vector<ScatterPoint>& points, float height) {
  ImGui::PushID(id);
  const float width = ImGui::GetContentRegionAvail().x;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float line = ImGui::GetTextLineHeight();
  Frame f;
  f.a = ImVec2(p0.x + ImGui::CalcTextSize("1,000 USD").x + 12, p0.y + line + 6);
  f.b = ImVec2(p0.x + width - 8, p0.y + height - line * 2 - 6);
  if (!fit_ranges(points, f)) {
    ImGui::Dummy(ImVec2(width, height));
    ImGui::PopID();
    return -1;
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(f.a, f.b, IM_COL32(30, 33, 40, 255));
  draw_axes(dl, f, p0);
  const int hovered = draw_points(dl, f, points);
  ImGui::InvisibleButton("plot", ImVec2(width, height));
  int clicked = -1;
  if (hovered >= 0 && ImGui::IsItemHovered()) {
    const auto& p = points[static_cast<size_t>(hovered)];
    ImGui::SetTooltip("%s\n%s, %s%s\n%s", p.label.c_str(), format_duration(p.x).c_str(),
                      p.assumed ? "≈ " : "", format_shown(p.y).c_str(), tr(S::click_to_load));
    if (ImGui::IsItemClicked()) clicked = hovered;
  }
  ImGui::PopID();
  return clicked;
}

}  // namespace gpuplan::web
